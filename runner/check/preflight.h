/*
 * preflight.h - errors found before the first run: every golden trace the check will read,
 * and the directories of the outputs it will write.
 *
 * A check that fails after all its runs on a corrupt golden or an unwritable JUnit path wastes
 * the runs and reports one problem per attempt. `validate` and `check` call these first and
 * report every such error in one pass.
 */
#ifndef RN_PREFLIGHT_H
#define RN_PREFLIGHT_H

#include <stdbool.h>

struct rn_config;
struct rn_golden;

/*
 * Read the golden trace of every target of `cfg` that has one (<golden_dir>/<name>.json) and
 * for which `want(ctx, name)` is true (`want` NULL: every target). Each unusable file is
 * printed as its diagnostic (rn_golden_read's messages) and, in GitHub mode, annotated; at
 * most `max_errors` are printed, then a line says how many more there were. Missing files are
 * not errors (golden traces are optional). `bad`, when not NULL, has cfg->ntargets entries
 * and gets true for each target whose golden trace is unusable. `keep`, when not NULL, has
 * cfg->ntargets entries, NULL on entry: each golden trace read is kept there (owned by the
 * caller: rn_golden_release, then free), so that a check reads each file once; the others
 * stay NULL. Returns the number of unusable files.
 */
int rn_preflight_goldens(const struct rn_config *cfg, bool (*want)(void *ctx, const char *name),
			 void *ctx, bool color, bool github, int max_errors, bool *bad,
			 struct rn_golden **keep);

#endif
