/*
 * check.h - the subcommands of the main job: `renacer check`, `renacer validate` and
 * `renacer golden update`.
 *
 * Flow of `check`: plan -> run -> judge -> report. Plan: config, selected targets, per target
 * its warmup, timing and counting runs. Run: the runs under its collectors -> per-run metrics
 * and gaps. Judge: each enabled assertion that applies, the golden comparison, known data
 * loss -> verdicts. Report: one struct rn_outcome through every reporter of
 * runner/reporter.h (JUnit, timeline, OTLP, benchmark JSON, results, GitHub, history,
 * console) -> exit code.
 */
#ifndef RN_CHECK_H
#define RN_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* `renacer check [OPTIONS] [-- CMD [ARGS...]]`. Returns an enum rn_exit value. */
int rn_cmd_check(int argc, char **argv);
/* `renacer validate [--config FILE]`: parse and check only. Returns RN_EXIT_OK or
 * RN_EXIT_CONFIG. */
int rn_cmd_validate(int argc, char **argv);
/* `renacer golden update [--config FILE] [--target NAME]`: run targets, write golden traces
 * atomically. Returns an enum rn_exit value. */
int rn_cmd_golden(int argc, char **argv);
/* `renacer calibrate [--config FILE] [--target NAME] [--effect PCT] [--pairs N] [--plant PCT]`:
 * A/A noise, detection limits and a planted slowdown per target (runner/calibrate.h).
 * Returns an enum rn_exit value: RN_EXIT_FAIL when a planted slowdown was not caught. */
int rn_cmd_calibrate(int argc, char **argv);

struct rn_target_report;
/*
 * The exit code `renacer check` gives for `n` targets' verdicts (FAIL or NO DATA, and NOT
 * JUDGED when `not_judged_fails` ([regression] not_judged = "fail"): RN_EXIT_FAIL; ERROR:
 * RN_EXIT_TARGET; else RN_EXIT_OK), unless `worst_other` (an exit code not derived from
 * verdicts, such as RN_EXIT_CONFIG for an unusable golden trace) is non-zero. Used by
 * `renacer merge` so a merged suite exits as one check would have.
 */
int rn_check_exit_code(const struct rn_target_report *tvs, size_t n, int worst_other,
		       bool not_judged_fails);

/* Option tables (for --help and the man page). */
extern const struct rn_command rn_cmd_check_def;
extern const struct rn_command rn_cmd_validate_def;
extern const struct rn_command rn_cmd_golden_def;
extern const struct rn_command rn_cmd_calibrate_def;

#endif
