/*
 * github.h - GitHub Actions mode of `renacer check` (--github, on when GITHUB_ACTIONS=true):
 * a Markdown job summary appended to $GITHUB_STEP_SUMMARY, `::error file=...,line=N::`
 * annotations pointing at each failing assertion's line in renacer.toml, and step outputs
 * written to $GITHUB_OUTPUT.
 */
#ifndef RN_GITHUB_H
#define RN_GITHUB_H

#include <stddef.h>

#include "config.h"
#include "report.h"

/*
 * Write the job summary, annotations (stdout, as workflow commands) and outputs for a finished
 * check. Missing environment variables skip their part. Returns 0 or negative errno (a warning
 * is printed; the verdict never changes because of it).
 */
int rn_github_report(const struct rn_config *cfg, const struct rn_target_report *t, size_t n,
		     int exit_code);

#endif
