/*
 * golden_equiv.c - the behaviour traces of equivalence assertions, recorded by `golden
 * update` through `renacer trace` (see golden_equiv.h).
 */
#include "golden_equiv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assertion.h"
#include "buf.h"
#include "exitcode.h"
#include "log.h"
#include "xalloc.h"

/* The trace command, set by main (rn_golden_equiv_set_tracer). */
static rn_trace_cmd_fn tracer;

void rn_golden_equiv_set_tracer(rn_trace_cmd_fn trace)
{
	tracer = trace;
}

/* The recorded trace an equivalence assertion reads for target `name`, owned. */
static char *trace_path(const struct rn_assertion_spec *a, const char *name)
{
	struct rn_buf b;

	if (a->golden)
		return rn_xstrdup(a->golden);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s.jsonl", a->golden_dir, name);
	return rn_buf_detach(&b, NULL);
}

/* Create the directories of `path` that are missing (mkdir -p of its parent). */
static int make_parent(const char *path)
{
	char *dir = rn_xstrdup(path), *p;
	int rc = 0;

	for (p = dir + 1; *p && !rc; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			rc = -errno;
		*p = '/';
	}
	free(dir);
	return rc;
}

/* The environment additions of the target, set for the trace run; the old values are kept in
 * `saved` ("KEY=VALUE" or "KEY" when unset) to restore. */
static char **env_apply(char *const *env)
{
	size_t n = 0, i;
	char **saved;

	while (env && env[n])
		n++;
	saved = rn_xcalloc(n + 1, sizeof(*saved));
	for (i = 0; i < n; i++) {
		const char *eq = strchr(env[i], '=');
		char *key = rn_xstrndup(env[i], eq ? (size_t)(eq - env[i]) : strlen(env[i]));
		const char *old = getenv(key);
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_adds(&b, key);
		if (old)
			rn_buf_addf(&b, "=%s", old);
		saved[i] = rn_buf_detach(&b, NULL);
		setenv(key, eq ? eq + 1 : "", 1);
		free(key);
	}
	return saved;
}

static void env_restore(char **saved)
{
	size_t i;

	for (i = 0; saved[i]; i++) {
		char *eq = strchr(saved[i], '=');

		if (eq) {
			*eq = '\0';
			setenv(saved[i], eq + 1, 1);
		} else {
			unsetenv(saved[i]);
		}
		free(saved[i]);
	}
	free(saved);
}

/* A complete JSONL trace ends with its {"type":"end",...} line. */
static bool trace_complete(const char *path)
{
	struct rn_buf b;
	bool ok;

	rn_buf_init(&b, 0);
	ok = !rn_buf_read_file(&b, path) && strstr(b.buf, "\"type\":\"end\"");
	rn_buf_release(&b);
	return ok;
}

/* One run of `renacer trace -f --format jsonl -o TMP -- CMD` in the target's cwd and
 * environment, renamed to `path` when complete. */
static int record_one(const struct rn_target_cfg *tc, const char *path, const char *assertion,
		      bool quiet)
{
	struct rn_buf tmp;
	char a0[] = "trace", a1[] = "-f", a2[] = "--format", a3[] = "jsonl", a4[] = "-o",
	     a5[] = "--";
	char **argv, **saved;
	size_t n = 0, i, k = 0;
	int cwd_fd, rc, err;

	if (!tracer) {
		rn_error("internal: no trace command to record '%s' with", path);
		return RN_EXIT_INTERNAL;
	}
	while (tc->argv[n])
		n++;
	rn_buf_init(&tmp, 0);
	rn_buf_addf(&tmp, "%s.tmp-%ld", path, (long)getpid());
	err = make_parent(path);
	if (err) {
		rn_error("cannot create the directory of '%s': %s", path, strerror(-err));
		rn_buf_release(&tmp);
		return RN_EXIT_OUTPUT;
	}
	argv = rn_xcalloc(n + 8, sizeof(*argv));
	argv[k++] = a0;
	argv[k++] = a1;
	argv[k++] = a2;
	argv[k++] = a3;
	argv[k++] = a4;
	argv[k++] = tmp.buf;
	argv[k++] = a5;
	for (i = 0; i < n; i++)
		argv[k++] = tc->argv[i];
	cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd_fd < 0 || (tc->cwd && chdir(tc->cwd))) {
		rn_error("target '%s': cannot enter '%s': %s", tc->name, tc->cwd ? tc->cwd : ".",
			 strerror(errno));
		if (cwd_fd >= 0)
			close(cwd_fd);
		free(argv);
		rn_buf_release(&tmp);
		return RN_EXIT_TARGET;
	}
	saved = env_apply(tc->env);
	rc = tracer((int)k, argv);
	env_restore(saved);
	if (fchdir(cwd_fd))
		rn_warn("cannot return to the working directory: %s", strerror(errno));
	close(cwd_fd);
	free(argv);
	/* trace returns the target's exit status when it ran */
	if ((tc->expect_exit >= 0 && rc != tc->expect_exit) || !trace_complete(tmp.buf)) {
		rn_error("target '%s': the behaviour trace for equivalence assertion '%s' was not "
			 "recorded (renacer trace exited %d%s); '%s' left as it was",
			 tc->name, assertion, rc,
			 tc->expect_exit >= 0 && rc != tc->expect_exit ? ", not expect_exit" : "",
			 path);
		unlink(tmp.buf);
		rn_buf_release(&tmp);
		return RN_EXIT_TARGET;
	}
	if (rename(tmp.buf, path)) {
		rn_error("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp.buf);
		rn_buf_release(&tmp);
		return RN_EXIT_OUTPUT;
	}
	if (!quiet)
		fprintf(stderr, "wrote %s (behaviour trace for equivalence assertion '%s')\n", path,
			assertion);
	rn_buf_release(&tmp);
	return 0;
}

int rn_golden_record_behaviour(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			       bool quiet)
{
	char **done = NULL;
	size_t i, k, ndone = 0;
	int rc = 0;

	for (i = 0; i < cfg->nassertions && !rc; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];
		char *path;
		bool seen = false;

		if (a->type != RN_ASSERT_EQUIVALENCE || !a->enabled ||
		    !rn_assertion_applies(a, tc->name) || (!a->golden && !a->golden_dir))
			continue;
		path = trace_path(a, tc->name);
		for (k = 0; k < ndone && !seen; k++)
			seen = !strcmp(done[k], path);
		if (seen) {
			free(path);
			continue;
		}
		rc = record_one(tc, path, a->name, quiet);
		done = rn_xrealloc(done, (ndone + 1) * sizeof(*done));
		done[ndone++] = path;
	}
	for (k = 0; k < ndone; k++)
		free(done[k]);
	free(done);
	return rc;
}
