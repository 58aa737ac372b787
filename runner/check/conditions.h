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

/* Probes taken back to back after each stretch of timing runs. */
#define RN_SPEED_PROBES 5

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
