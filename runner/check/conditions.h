/*
 * conditions.h - what the runner adds to the golden comparison so that a verdict can be trusted:
 * the machine's load during the runs, the golden trace's own noise when it is recorded, whether
 * a golden trace belongs to the target it is compared with, and whether the configured run
 * counts can ever reach significance (docs/golden.md; docs/metrics.md, "Verdicts and exit codes").
 */
#ifndef RN_CONDITIONS_H
#define RN_CONDITIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "assertion.h"
#include "config.h"
#include "golden.h"

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

/*
 * Measure the CPU and I/O pressure over a stretch of runs: call _begin before the first
 * measured run and _end after the last; _end sets r->cpu_pressure and r->io_pressure (shares
 * of the stretch's wall time, clamped to [0, 1]) with r->has_cpu_pressure and
 * r->has_io_pressure, or leaves each unset when PSI is unavailable.
 */
struct rn_pressure_probe {
	bool ok;              /* the first CPU reading succeeded */
	bool io_ok;           /* the first I/O reading succeeded */
	uint64_t total_us;    /* CPU PSI total at _begin, us */
	uint64_t io_total_us; /* I/O PSI total at _begin, us */
	uint64_t mono_ns;     /* CLOCK_MONOTONIC at _begin, ns */
};
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
/* Probes taken back to back after each stretch of timing runs. */
#define RN_SPEED_PROBES 5

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

/*
 * `validate`: for every target whose runs reach min_runs_for_timing (so its timing is meant to
 * be judged), check that a Mann-Whitney test of those runs against its golden trace can reach
 * alpha at all; the golden's run count is the existing golden file's, or what `golden update`
 * would record (max(runs, [golden] runs)). Each impossible combination is an error at the
 * target's line naming the smallest run counts that can. Prints every error found; returns
 * their number.
 */
int rn_config_check_feasible(const struct rn_config *cfg, bool color);

#endif
