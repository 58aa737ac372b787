/*
 * baseline.h - the same-job baseline of `renacer check --baseline DIR`.
 *
 * Timing across CI jobs is not comparable; timing of two builds run interleaved on one machine
 * is. DIR is the root of a second checkout (the base revision, built by the user's CI). Every
 * target runs in both trees: the config comes from the head, and each path of the target
 * (argv elements, cwd, environment values) that lies under the head's root is re-rooted under
 * DIR. The head's root is the nearest directory above renacer.toml holding `.git`, else the
 * directory of renacer.toml.
 *
 * Runs alternate: warmups base, head; then the timing runs in pairs, either sequential pairs
 * whose order rotates (base, head, then head, base, ...), so drift of the machine falls equally
 * on both sides, or duet pairs (plan->duet): base and head at the same moment on two CPUs,
 * swapped every pair, one side in a forked copy of renacer whose run comes back through a
 * pipe, so that interference from the rest of the machine hits both sides alike; then the
 * counting runs, alternating. Each side gets the same collectors and the same
 * timing/counting split as `check`.
 *
 * Verdict rows `baseline:<metric>` (rn_baseline_judge):
 *   times   wall_time, critical_path, cpu_time (gpu_busy with GPU spans): the paired
 *           differences d_i = head_i - base_i of the timing pairs, judged by the Hodges-Lehmann
 *           estimate and its Walsh-average interval (assertions/stats.h) at the alpha share
 *           of the look (assertions/sequential.h). With the limit L = tolerance * base median
 *           (the minimum effect that matters):
 *             FAIL          the lower bound > L (slower by more than L)
 *             PASS          the upper bound <= L (any slowdown is shown to be within L)
 *             INCONCLUSIVE  otherwise (WARN, never PASS)
 *           Undecided after the first look, more pairs are measured (looks at 10, 15, 22,
 *           33, 49, 60 pairs by default) while the primary metric (rn_baseline_primary:
 *           the less noisy of cpu_time and wall_time) is undecided or another one's estimate
 *           is beyond L with p < RN_BASELINE_LEAN_P, until [regression] max_runs pairs or time_budget_s. Every time row
 *           states its detection limit: the slowdown it would catch in 80% of checks at its
 *           noise and pairs. A shift that a different mix of two modes explains
 *           (rn_stats_modes_explain, RN_STATS_MODES_MATCH) or that sides of different environment fingerprints show
 *           (util/fingerprint.h) is INCONCLUSIVE, never FAIL, saying which.
 *   counts  syscalls (each syscall by name, and the total), syscall_errors, processes (GPU
 *           counts with GPU spans): the head's fewest against the base's most over the
 *           counting runs (RN_BASELINE_VARIED_COUNTING of them when the sides differ after
 *           the configured ones), FAIL when head grew by more than [regression]
 *           count_tolerance and count_floor, as golden traces judge counts
 *   memory  peak_rss (timing runs), alloc_peak (counting runs): FAIL when head grew by more
 *           than memory_tolerance and memory_floor_bytes (alloc_peak: rn_alloc_peak_judge,
 *           the largest process's peak when the tree's moves with the overlap)
 * Nothing is judged from one side alone: a side that did not run cleanly is an ERROR row
 * `baseline:run` naming the side.
 */
#ifndef RN_BASELINE_H
#define RN_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "assertion.h"
#include "config.h"
#include "golden.h"
#include "outcome.h"
#include "verdict.h"
#include "sequential.h"

/*
 * The verdict of an undecided timing comparison: INCONCLUSIVE, which is reported as WARN like
 * an undecided golden comparison's; the message (the REASON column) starts with "inconclusive".
 */
#define RN_BASELINE_INCONCLUSIVE RN_VERDICT_WARN

/*
 * The time metric whose decision ends the adaptive repeats: wall_time for a tree that mostly
 * waits (its base CPU time under RN_BASELINE_CPU_SHARE of its wall time: I/O, sleeps), else
 * whichever of cpu_time and wall_time has the smaller relative noise over the pairs so far
 * (on a loaded machine wall time carries the load; CPU time is what it disturbs least).
 */
#define RN_BASELINE_CPU_SHARE 0.1
/* A time metric other than the primary one gets more pairs when its estimate is beyond the
 * limit and the one-sided signed-rank p of a slowdown is below this (evidence, not proof). */
#define RN_BASELINE_LEAN_P 0.05
/* Counting runs a side gets when its counts differ from the other side's after the configured
 * ones: counts and memory are then judged as the head's fewest against the base's most. */
#define RN_BASELINE_VARIED_COUNTING 3

/* Default tolerance of time metrics, fraction of the base median (3%). */
#define RN_BASELINE_TOLERANCE_PCT 3
#define RN_BASELINE_TOLERANCE (RN_BASELINE_TOLERANCE_PCT / 100.0)

/* Which checkout a run belongs to (enum rn_baseline_side). */
enum rn_baseline_side {
	RN_BASELINE_BASE = 0, /* the --baseline DIR tree */
	RN_BASELINE_HEAD = 1, /* the tree of renacer.toml */
};

/* Kind of one run asked of the runner (enum rn_baseline_run). */
enum rn_baseline_run {
	RN_BASELINE_WARMUP = 0,   /* one unmeasured run */
	RN_BASELINE_TIMING = 1,   /* one timing run, added to the side's result */
	RN_BASELINE_COUNTING = 2, /* one counting run, added to the side's result */
};

/* The baseline of one check. */
struct rn_baseline {
	char *dir;        /* absolute root of the base tree, owned */
	char *head_root;  /* absolute root of the head tree, owned */
	double tolerance; /* time tolerance, fraction of the base median (minimum effect) */
	bool confirm;     /* re-measure a failing timing verdict once before it fails */
};

/* The `cpu` of a run that the runner places itself (rn_baseline_run_fn). */
#define RN_BASELINE_OWN_PLACE (-2)

/*
 * Run one run of `kind` on `side`, adding it to `r` (the side's result). `cpu`: the CPU a
 * duet pair's timing run (and renacer's thread beside it) runs on, -1 unpinned, or
 * RN_BASELINE_OWN_PLACE (sequential pairs, warmups, counting runs: the runner's own
 * placement). A duet's run may be called in a forked copy of renacer (rn_baseline_run_target),
 * so it must not depend on what another run of the pair changes in `ctx`. Returns 0 (a failed
 * run sets r->status and r->error) or -ECANCELED when interrupted.
 */
typedef int (*rn_baseline_run_fn)(void *ctx, enum rn_baseline_side side, enum rn_baseline_run kind,
				  int cpu, struct rn_target_result *r);

/* How many runs of each kind a target gets on each side. */
struct rn_baseline_plan {
	unsigned warmup;        /* warmups per side */
	unsigned pairs;         /* timing pairs of the first look (the target's runs; raised to the
			     * fewest that can decide, rn_seq_paired_first) */
	unsigned counting;      /* counting runs per side, 0 without the ptrace collector */
	unsigned max_pairs;     /* pairs of the last look ([regression] max_runs) */
	uint64_t budget_ns;     /* no new look once the timing pairs took this long, ns
			     * ([regression] time_budget_s); 0 = no limit */
	bool duet;              /* timing pairs run as duets: both sides at once, on duet_cpu
			     * (enum rn_pair_scheme); false: sequential */
	int duet_cpu[2];        /* a duet's two CPUs (-1: unpinned); pair k runs base on
			     * duet_cpu[k % 2] and head on the other */
	const char *pairs_note; /* duet pairs were asked for but run sequentially: why
				 * (static, "fewer than 2 usable CPUs"), or NULL */
};

#endif
