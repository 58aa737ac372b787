/*
 * cmd_bisect.h - `renacer bisect GOOD BAD`: the first commit of BAD's first-parent history
 * whose same-job baseline against GOOD fails.
 */
#ifndef RN_CMD_BISECT_H
#define RN_CMD_BISECT_H

#include "cli.h"

/*
 * `renacer bisect GOOD BAD [--target NAME]... [--markdown FILE]`. Every candidate of
 * `git rev-list --first-parent GOOD..BAD` is checked out (runner/check/checkout.h), built with
 * the targets' `build` key and compared with GOOD by `renacer check --baseline` (a child
 * process: the candidate is the head side, GOOD's built checkout the base side). BAD is
 * compared first; the `baseline:*` rows that FAIL there decide for the other commits (time rows
 * at a limit of half BAD's shift when that is above the default tolerance): FAIL = bad, all
 * PASS = good, INCONCLUSIVE or a failed build or run = skipped with its reason, as `git bisect
 * skip`. Then binary search.
 * argv[0] is "bisect". Returns an enum rn_exit value: RN_EXIT_FAIL when BAD regressed (the
 * first bad commit named, or the range of skipped commits that holds it), RN_EXIT_OK when BAD
 * does not fail against GOOD, RN_EXIT_USAGE for bad revisions, RN_EXIT_TARGET when GOOD could
 * not be built or BAD could not be judged, RN_EXIT_OUTPUT when --markdown could not be written.
 */
int rn_cmd_bisect(int argc, char **argv);

/* The option table of `renacer bisect` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_bisect_def;

#endif
