/*
 * internal.h - private to the check engine (runner/check): the run stage's entry points that
 * check.c's plan calls, then, one section per module, the functions of conditions.c,
 * preflight.c, profile_check.c and reporter.c that only this folder calls (their types stay
 * in the module's header, which other folders include).
 */
#ifndef RN_CHECK_INTERNAL_H
#define RN_CHECK_INTERNAL_H

#include <stdint.h>

#include "baseline.h"
#include "check.h"
#include "conditions.h"
#include "preflight.h"
#include "profile_check.h"
#include "reporter.h"

/* Run target `tc` in both trees side by side (`base_tc` is its base side, `bl` the base tree)
 * into `head` and `base`, and append its baseline:* verdicts to `tv`. `counted`: the head's
 * result of an earlier comparison in this check whose instruction count stands for this
 * head's (the ratchet after the pull-request comparison: Valgrind once per side), or NULL.
 * Returns 0 or -ECANCELED. */
int rn_check_run_baseline(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			  const struct rn_target_cfg *base_tc, const struct rn_check_opts *o,
			  const struct rn_baseline *bl, size_t index, size_t count,
			  const struct rn_otlp_context *otlp_ctx,
			  const struct rn_target_result *counted, struct rn_target_result *head,
			  struct rn_target_result *base, struct rn_target_report *tv);

/* Calibrate one target (calibrate.h): A/A pairs, then a planted slowdown; its calibrate:*
 * verdicts into `tv`. Returns 0 or -ECANCELED. */
int rn_check_run_calibrate(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			   const struct rn_check_opts *o, size_t index, size_t count,
			   const struct rn_otlp_context *otlp_ctx, struct rn_target_result *r,
			   struct rn_target_report *tv);

/* ---- conditions.c (the types are conditions.h's) ---- */

/*
 * Cumulative time, us, in which some runnable task of the machine waited for a CPU: the
 * "some ... total=" field of /proc/pressure/cpu (Linux PSI, Documentation/accounting/psi.rst).
 * 0, or a negative errno when the kernel has no PSI (-ENOENT, -EOPNOTSUPP) or the file is not
 * in that format (-EINVAL).
 */
int rn_cpu_pressure_total_us(uint64_t *out);

/* The same for I/O: cumulative time, us, in which some task of the machine waited on I/O
 * ("some ... total=" of /proc/pressure/io, Linux PSI); 0 or a negative errno as above. */
int rn_io_pressure_total_us(uint64_t *out);

void rn_pressure_probe_begin(struct rn_pressure_probe *p);
void rn_pressure_probe_end(const struct rn_pressure_probe *p, struct rn_target_result *r);

/*
 * The speed probe: a fixed piece of work (integer arithmetic and scattered writes over 64 KiB,
 * about 2 ms on a current x86_64 core) timed in renacer's own thread after a stretch of timing
 * runs (never between the sides of a same-job baseline, whose pairs must stay alike), so the
 * machine's speed at that time (load, frequency, SMT contention, another host) is measured
 * beside the target's own time. Appends the thread CPU time and the wall time of the work,
 * ns, to r->probe_cpu_ns / r->probe_wall_ns. Never fails.
 */
void rn_speed_probe(struct rn_target_result *r);

/*
 * After `golden update` measured `r`: warn, for each timing metric judged by `cfg`, when the
 * samples' robust spread (rn_golden_spread) exceeds the metric's tolerance, naming the spread it
 * saw (min, median, max, CPU pressure) and what to do. Also warns when `r` has fewer runs than
 * the rank test needs against `min_runs_for_timing` new runs. Returns the number of warnings.
 */
int rn_golden_noise_report(const struct rn_target_result *r, const struct rn_regression_cfg *cfg);

/*
 * Warn when golden trace `g` (at `golden_file`, as reported) was recorded for another target
 * than `target` or with another argv than `argv_rel` (as rn_golden_write would record it now,
 * NULL-terminated), naming both. Baselines without a recorded target or argv are not checked.
 * Returns true when it warned.
 */
bool rn_golden_identity_warn(const struct rn_golden *g, const char *golden_file, const char *target,
			     const char *const *argv_rel);

/* ---- preflight.c (the types are preflight.h's) ---- */

/*
 * Make sure output file `path` (what: "JUnit XML", "timeline", ...) can be written: its
 * directory is created when missing (as mkdir -p, mode 0777 less the umask) and must be a
 * writable directory, and `path` itself must not be a directory. Prints the reason with
 * rn_error and returns a negative errno on failure, else 0. NULL `path`: 0.
 */
int rn_preflight_output(const char *path, const char *what);

/*
 * Warn (rn_warn, one line each, "FILE:LINE:1: ...") about every enabled [[assertion]] whose
 * trace_name_pattern matches none of the targets `cfg` declares: it would judge nothing, and
 * a check would show no row for it. Configs without targets (the target comes from the
 * command line) are not checked. Returns the number of such assertions.
 */
int rn_preflight_assertions(const struct rn_config *cfg);

/* ---- profile_check.c (the types are profile_check.h's) ---- */

/*
 * Explain the first failing timing row of `tv` (target `head`; `base` is its base side under
 * --baseline, else NULL) as above, appending to that row's detail. Nothing happens when no
 * timing row failed or explaining is off. Failures (a profiled run that failed, a file that
 * cannot be written) are stated in the detail and warned about; the verdicts are unchanged.
 * Progress goes to stderr unless `quiet`.
 */
void rn_profile_check_explain(const struct rn_config *cfg, const struct rn_target_cfg *head,
			      const struct rn_target_cfg *base, struct rn_target_report *tv,
			      bool quiet);

/* ---- reporter.c (the types are reporter.h's) ---- */

/*
 * argv as a golden trace records it: arguments inside the config's directory made relative
 * to it, and secrets redacted ([report] redact), since golden traces are committed. Returns a
 * NULL-terminated copy; free with rn_otlp_argv_free.
 */
char **rn_report_golden_argv(const struct rn_config *cfg, char *const *argv);

#endif
