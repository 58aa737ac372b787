#include "recdir.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "xalloc.h"

/*
 * Create a fresh directory "$TMPDIR/renacer-<tag>-XXXXXX" (mode 0700, mkdtemp). On success
 * returns 0 and sets *out to its path (caller frees). On failure prints
 * "<tag>: cannot create record directory ...", returns negative errno, *out untouched.
 */
static int rn_recdir_create(const char *tag, char **out)
{
	const char *tmp = getenv("TMPDIR");
	struct rn_buf path;

	rn_buf_init(&path, 0);
	rn_buf_addf(&path, "%s/renacer-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	if (rn_buf_failed(&path) || !mkdtemp(path.buf)) {
		int err = rn_buf_failed(&path) ? ENOMEM : errno;

		rn_error("%s: cannot create record directory '%s': %s", tag, path.buf,
			 strerror(err));
		rn_buf_release(&path);
		return -err;
	}
	*out = rn_buf_detach(&path, NULL);
	return *out ? 0 : -ENOMEM;
}

/* Does `name` have the record files' prefix and suffix (with something in between)? */
static bool is_record_file(const char *name, const char *prefix, const char *suffix)
{
	size_t n = strlen(name), p = strlen(prefix), s = strlen(suffix);

	return n > p + s && !strncmp(name, prefix, p) && !strcmp(name + n - s, suffix);
}

/*
 * Read every file of `dir` whose name starts with `prefix` and ends with `suffix` (at most
 * `max_bytes` each) and hand its contents to `load(ctx, path, data, len)`; a negative return
 * from `load` stops the walk and is returned. A directory or file that cannot be read fails the
 * trace (`tag` names the collector in the message) and returns negative errno. Returns 0.
 */
static int rn_recdir_foreach(const char *dir, const char *prefix, const char *suffix,
			     size_t max_bytes, const char *tag, struct rn_trace *t,
			     int (*load)(void *ctx, const char *path, const char *data, size_t len),
			     void *ctx)
{
	struct rn_buf data, path;
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(dir);

	if (!d) {
		ret = -errno;
		rn_trace_fail(t, RN_RUN_ERROR, "%s: cannot read record directory '%s': %s", tag,
			      dir, strerror(-ret));
		return ret;
	}
	rn_buf_init(&data, max_bytes);
	rn_buf_init(&path, 0);
	while ((de = readdir(d))) {
		if (!is_record_file(de->d_name, prefix, suffix))
			continue;
		rn_buf_reset(&path);
		rn_buf_reset(&data);
		rn_buf_addf(&path, "%s/%s", dir, de->d_name);
		ret = rn_buf_read_file(&data, path.buf);
		if (ret) {
			rn_trace_fail(t, RN_RUN_ERROR, "%s: cannot read '%s': %s", tag, path.buf,
				      strerror(-ret));
			break;
		}
		ret = load(ctx, path.buf, data.buf, data.len);
		if (ret < 0)
			break;
		ret = 0;
	}
	closedir(d);
	rn_buf_release(&data);
	rn_buf_release(&path);
	return ret;
}

/* Remove every file in `dir`, then `dir` itself. Errors are ignored (best effort). */
static void rn_recdir_remove(const char *dir)
{
	struct rn_buf path;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		rn_buf_init(&path, 0);
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			rn_buf_reset(&path);
			rn_buf_addf(&path, "%s/%s", dir, de->d_name);
			if (!rn_buf_failed(&path))
				unlink(path.buf);
		}
		rn_buf_release(&path);
		closedir(d);
	}
	rmdir(dir);
}

/* Whether renacer itself runs from the build tree `binary_dir`. */
static bool running_from(const char *binary_dir)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t blen = binary_dir ? strlen(binary_dir) : 0;

	if (n <= 0 || !blen)
		return false;
	exe[n] = 0;
	return !strncmp(exe, binary_dir, blen) && exe[blen] == '/';
}

const char *rn_inject_locate(const char *env_var, const char *build, const char *install,
			     const char *binary_dir, bool (*usable)(const char *path))
{
	const char *env = getenv(env_var);

	if (env && *env)
		return usable(env) ? env : NULL;
	if (running_from(binary_dir) && usable(build))
		return build;
	if (usable(install))
		return install;
	if (usable(build))
		return build;
	return NULL;
}

/* Create a fresh record directory for `tag` (rn_recdir_create) and store it in *dir, freeing
 * any previous path (prepare may run once per run). 0 or negative errno (*dir untouched). */
static int rn_recdir_renew(char **dir, const char *tag)
{
	char *fresh = NULL;
	int err = rn_recdir_create(tag, &fresh);

	if (err)
		return err;
	free(*dir);
	*dir = fresh;
	return 0;
}

/* destroy(): remove the record directory `dir` (NULL: nothing) and free the path. */
static void rn_recdir_free(char *dir)
{
	if (dir)
		rn_recdir_remove(dir);
	free(dir);
}

const char *rn_injected_unavailable(const struct rn_injected_kind *kind)
{
	return kind->artifact() ? NULL : kind->missing;
}

int rn_injected_prepare(struct rn_collector *c, struct rn_strvec *env)
{
	struct rn_injected *ic = (struct rn_injected *)c;
	const char *artifact = ic->kind->artifact();
	int err;

	if (!artifact) {
		rn_error("%s: %s", ic->kind->tag, ic->kind->missing);
		return -ENOENT;
	}
	err = rn_recdir_renew(&ic->dir, ic->kind->tag);
	if (err)
		return err;
	ic->kind->set_env(ic, artifact, env);
	return 0;
}

int rn_injected_load(const struct rn_injected *ic, struct rn_trace *t,
		     int (*load)(void *ctx, const char *path, const char *data, size_t len),
		     void *ctx)
{
	if (!ic->dir)
		return 1;
	return rn_recdir_foreach(ic->dir, ic->kind->file_prefix, ic->kind->file_suffix,
				 RN_RECDIR_MAX_FILE_BYTES, ic->kind->tag, t, load, ctx);
}

void rn_injected_destroy(struct rn_collector *c)
{
	struct rn_injected *ic = (struct rn_injected *)c;

	if (!ic)
		return;
	if (ic->kind->release)
		ic->kind->release(ic);
	rn_recdir_free(ic->dir);
	free(ic);
}

int rn_recdir_on_spawn(struct rn_collector *c, pid_t pid, struct rn_trace *t)
{
	(void)c;
	(void)pid;
	(void)t;
	return 0;
}

int rn_recdir_on_event(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status)
{
	(void)c;
	(void)t;
	(void)tid;
	(void)status;
	return 0;
}

void rn_recdir_truncated(struct rn_trace *t, const char *tag, size_t files, const char *how)
{
	if (!files)
		return;
	rn_warn("%s: %zu record file(s) end inside a record (%s); spans before that point are "
		"kept",
		tag, files, how);
	rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, tag, 0,
			 "%zu record file(s) end inside a record", files);
}

void rn_recdir_unmapped(struct rn_trace *t, const char *tag, size_t spans, const char *why)
{
	if (!spans)
		return;
	rn_warn("%s: %zu span(s) dropped: %s", tag, spans, why);
	rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, tag, spans, "%s", why);
}
