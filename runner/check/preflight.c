/*
 * preflight.c - golden traces and output directories checked before the first run (see
 * preflight.h).
 */
#include "preflight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "exitcode.h"
#include "github.h"
#include "golden.h"
#include "internal.h"
#include "log.h"
#include "xalloc.h"

int rn_preflight_goldens(const struct rn_config *cfg, bool (*want)(void *ctx, const char *name),
			 void *ctx, bool color, bool github, int max_errors, bool *bad,
			 struct rn_golden **keep)
{
	int nerr = 0;
	size_t i;

	for (i = 0; i < cfg->ntargets; i++) {
		const char *name = cfg->targets[i].name;
		struct rn_golden g;
		struct rn_diag d;
		struct rn_buf path;

		if (!name || (want && !want(ctx, name)))
			continue;
		rn_buf_init(&path, 0);
		rn_buf_addf(&path, "%s/%s.json", cfg->golden_dir, name);
		if (access(path.buf, F_OK)) {
			rn_buf_release(&path);
			continue;
		}
		if (rn_golden_read(path.buf, &g, &d)) {
			if (nerr < max_errors) {
				rn_diag_print(&d, color);
				if (github)
					rn_github_report_diag(&d, RN_EXIT_CONFIG);
			}
			nerr++;
			if (bad)
				bad[i] = true;
		} else if (keep) {
			keep[i] = rn_xmalloc(sizeof(*keep[i]));
			*keep[i] = g;
		} else {
			rn_golden_release(&g);
		}
		rn_buf_release(&path);
	}
	if (nerr > max_errors)
		rn_error("%d more golden trace%s unusable (not shown)", nerr - max_errors,
			 nerr - max_errors == 1 ? " is" : "s are");
	return nerr;
}

/* mkdir -p `dir` (modified in place while walking, restored). */
static int mkdir_p(char *dir)
{
	char *p = dir;
	struct stat st;

	if (!stat(dir, &st))
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	while (*p == '/')
		p++;
	for (;;) {
		char *slash = strchr(p, '/');

		if (slash)
			*slash = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			int rc = -errno;

			if (slash)
				*slash = '/';
			return rc;
		}
		if (!slash)
			break;
		*slash = '/';
		p = slash + 1;
		while (*p == '/')
			p++;
		if (!*p)
			break;
	}
	if (stat(dir, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int rn_preflight_output(const char *path, const char *what)
{
	struct stat st;
	char *dir, *slash;
	int rc;

	if (!path)
		return 0;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		rn_error("cannot write %s '%s': %s", what, path, strerror(EISDIR));
		return -EISDIR;
	}
	dir = rn_xstrdup(path);
	slash = strrchr(dir, '/');
	if (!slash) {
		free(dir);
		dir = rn_xstrdup(".");
	} else if (slash == dir) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}
	rc = mkdir_p(dir);
	if (rc) {
		rn_error("cannot write %s '%s': directory '%s' cannot be created: %s", what, path,
			 dir, strerror(-rc));
		free(dir);
		return rc;
	}
	if (access(dir, W_OK | X_OK)) {
		rc = -errno;
		rn_error("cannot write %s '%s': directory '%s': %s", what, path, dir,
			 strerror(-rc));
		free(dir);
		return rc;
	}
	free(dir);
	return 0;
}

int rn_preflight_assertions(const struct rn_config *cfg)
{
	size_t i, k;
	int n = 0;

	if (!cfg->ntargets)
		return 0;
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];
		struct rn_buf names;

		if (!a->enabled || !a->trace_name_pattern)
			continue;
		for (k = 0; k < cfg->ntargets; k++)
			if (rn_assertion_applies(a, cfg->targets[k].name))
				break;
		if (k < cfg->ntargets)
			continue;
		/* the names it was matched against: its `targets`, else every target */
		rn_buf_init(&names, 0);
		for (k = 0; a->targets ? a->targets[k] != NULL : k < cfg->ntargets; k++) {
			if (k == 8) {
				rn_buf_adds(&names, ", ...");
				break;
			}
			rn_buf_addf(&names, "%s'%s'", k ? ", " : "",
				    a->targets ? a->targets[k] : cfg->targets[k].name);
		}
		rn_warn("%s:%d:1: [[assertion]] '%s' applies to no target: trace_name_pattern '%s' "
			"matches none of %s; it judges nothing",
			cfg->path, a->line, a->name, a->trace_name_pattern, names.buf);
		rn_buf_release(&names);
		n++;
	}
	return n;
}
