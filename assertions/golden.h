/*
 * golden.h - golden traces: the recorded baseline of a target, kept in the repository under
 * golden_traces/<target>.json, and the regression verdicts of comparing new runs against it.
 *
 * File format "renacer-golden/3" (JSON, UTF-8, written with sorted keys and two-space indent so
 * that a regenerated file diffs cleanly; every ns, byte and count value is a JSON integer):
 *
 *     {
 *       "argv": ["build/targets/io_loop", "--files", "8"],   relative to the config's directory
 *       "conditions": {                     optional: the recording's machine state
 *         "cpus": 2, "cpu_pressure": 0.01,  online CPUs, CPU pressure over its runs (or null)
 *         "probe_cpu_ns": 2100000, "probe_wall_ns": 2150000,   speed probe medians (0: none)
 *         "fingerprint": {                  optional, util/fingerprint.h: one string per
 *           "kernel": "6.1.0-18-amd64",     known field (cpu_model, microcode, kernel,
 *           "governor": "performance", ...  governor, boost, smt, virt, image, compiler,
 *         }                                 renacer); keys this renacer does not know are
 *       },                                  skipped
 *       "counting_runs": 1,                 counting runs (0: the runs measured both, a target
 *                                           without the ptrace collector)
 *       "counting_samples": {               one value per counting run, for the count metrics
 *         "syscalls": [..1..], "syscall_errors": [..], "alloc_peak": [..], ...   (only when
 *       },                                  counting_runs > 0)
 *       "format": "renacer-golden/3",
 *       "gpu": {                                             only when a run had GPU spans
 *         "busy_ns": 1200000, "copy_bytes": 4096, "dispatches": 12,      medians over runs
 *         "runs_with_gpu": 5,
 *         "spans": {"copy": 2, "dispatch": 12}               by kind, last run
 *       },
 *       "provenance": {
 *         "build_id": "3f2a...",            GNU build-id of the target binary, or null
 *         "cpu_model": "AMD EPYC 7B13",     /proc/cpuinfo "model name" ("unknown" if none)
 *         "created": "2025-01-31T12:00:00Z",    UTC, ISO 8601
 *         "kernel": "6.1.0-18-amd64",       uname -r
 *         "machine": "x86_64",              uname -m
 *         "renacer_version": "0.1.0"
 *       },
 *       "runs": 5,                          timing runs (process events only, no syscall stops)
 *       "spans": {                          only when a timing run had app spans: per app span
 *         "app:parse": [..5..], ...         name, the summed duration of its spans in each
 *       },                                  timing run that had one (ns, run order; 1..runs
 *                                           values)
 *       "span_cpu": {                       optional (files written before it have none), only
 *         "app:parse": [..5..], ...         when a span carried CPU time: per app span name of
 *       },                                  "spans" whose renacer_span.h spans carried their
 *                                           thread's CPU time (RN_APP_CPU), the summed CPU
 *                                           time in each timing run that had one (ns, run
 *                                           order; 1..runs values)
 *       "samples": {                        one value per timing run, in run order: the time
 *         "wall_time": [..5..], "critical_path": [..], "cpu_time": [..], "peak_rss": [..], ...
 *       },                                  metrics, the tree metrics, and every other metric
 *                                           when counting_runs is 0
 *       "syscalls": {                       medians over counting runs (rounded, halves up) of
 *         "openat": {"calls": 12, "errors": 2, "total_ns": 35000}, ...   every syscall seen in a
 *                                           counting run (a median of 0: seen in fewer than half)
 *       },
 *       "target": "io_loop"
 *     }
 *
 * A metric is in one of "samples" and "counting_samples" (rn_metric_measured_by). A reader of
 * version 3 rejects files of a newer version ("renacer-golden/4") with a message saying so,
 * reads "renacer-golden/2" (no "spans": span durations are not compared against it, each
 * span_time row says so and is SKIP), reads "renacer-golden/1" (one "samples" object for every metric, all runs traced with
 * syscall stops) with its timing samples flagged as taken under the tracer (timing verdicts
 * against it are WARN at most, with a hint to regenerate), and reads the JSON output of the original renacer ("format": "renacer-json-v1":
 * a "syscalls" array of {name, args, result, duration_us?} plus a "summary" object) as a
 * counts-only baseline: per-syscall calls and errors of one run, no timing or memory samples.
 *
 * Regression semantics (rn_golden_compare):
 * - Counts (total syscalls, each syscall, GPU dispatches and copy bytes) are judged in log
 *   space: a count fails when log(observed + 1) - log(golden + 1) > log(1 + count_tolerance)
 *   AND observed - golden > count_floor. Only growth fails. A syscall absent from the golden
 *   trace (never called in any of its runs) is "new" and fails whatever its count: one new
 *   sync() is a change of behaviour. Counts are gated on any machine.
 * - Timing (cpu_time, wall_time, critical_path, gpu_busy) is a three-valued decision on the
 *   Hodges-Lehmann interval of the shift at the look's alpha share (assertions/sequential.h):
 *   FAIL when its lower bound exceeds the limit (timing_tolerance * golden median, at least
 *   RN_GOLDEN_TIME_FLOOR_NS) and the recording conditions match (same machine, neither side
 *   loaded, speed probes within RN_GOLDEN_SPEED_MATCH), or beyond the drift limit whatever
 *   the conditions; PASS only when its upper bound is within the limit and the conditions
 *   match; otherwise WARN (INCONCLUSIVE or advisory). With fewer than min_runs_for_timing
 *   runs on either side, or run counts whose smallest p-value cannot reach the look's alpha,
 *   the verdict is NOT JUDGED, saying why and which runs to change: never PASS.
 * - Memory (peak_rss, alloc_peak) is less noisy: the fewest observed fails when it exceeds the
 *   golden's most by more than memory_tolerance of it and by more than memory_floor_bytes;
 *   no significance test, no minimum runs. An alloc_peak that moves with the overlap of the
 *   tree's processes is judged on process_alloc_peak (rn_alloc_peak_judge).
 * - Span durations (golden:span_time:app:<name>, one row per app span name of the golden
 *   trace): each span's per-run summed durations are judged by the timing rule above as a wall
 *   time (wall speed probe, advisory under load unless cpu_time fails beyond the drift limit),
 *   with timing_tolerance ([golden.tolerances] span_time) and the same detection limit. A span
 *   of the runs that the golden trace lacks, and every span against a golden trace without
 *   span data (renacer-golden/2 and older), is SKIP, saying why; never FAIL.
 * - Span CPU times (golden:span_cpu:app:<name>, after the span's span_time row): a span's
 *   per-run summed CPU time judged by the timing rule as cpu_time is (CPU speed probe; gating
 *   beyond the drift limit under load), with timing_tolerance ([golden.tolerances] span_cpu).
 *   Only where both the golden's runs and these measured the span's CPU time; else no row.
 * - Timing and memory metrics whose golden median is 0 were not measured then: NOT JUDGED,
 *   "the golden trace has no <metric> data". Measured then but 0 in every run now: NO DATA
 *   (an error, never a silent pass).
 * - Comparisons left out of cfg->judged ([golden] metrics) are SKIP; cfg->tolerance replaces
 *   the kind's tolerance for one comparison ([golden.tolerances]).
 * - A golden trace recorded on another machine (cpu model, kernel or architecture differ:
 *   rn_golden_same_machine) still gates counts, but timing and memory FAILs become WARN and
 *   the message says why: both depend on the CPU, the kernel and the page size.
 */
#ifndef RN_GOLDEN_H
#define RN_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "assertion.h"
#include "diag.h"

/* Format identifier written by this renacer, and its version number. */
#define RN_GOLDEN_FORMAT "renacer-golden/3"
#define RN_GOLDEN_FORMAT_PREFIX "renacer-golden/"
#define RN_GOLDEN_VERSION 3
/* The previous format: no span durations ("spans"); read, its span rows SKIP. */
#define RN_GOLDEN_FORMAT_V2 "renacer-golden/2"
/* The previous format, read with its timing samples flagged as taken under the tracer. */
#define RN_GOLDEN_FORMAT_V1 "renacer-golden/1"
/* Why timing verdicts against a renacer-golden/1 trace do not gate (one line). */
#define RN_GOLDEN_UNDER_TRACER_HINT                                                                \
	"not gated: the golden trace (renacer-golden/1) timed its runs under the tracer; "         \
	"regenerate it (renacer golden update) to gate timing"
/* Format identifier of the original renacer's JSON output, read as a counts-only baseline. */
#define RN_GOLDEN_JSON_V1 "renacer-json-v1"
/* The hint that ends the message of every failing golden comparison: the command a user has
 * (the script installs as <prefix>/share/renacer/regenerate-golden.sh; ci/ only in renacer's
 * own checkout). */
#define RN_GOLDEN_HINT                                                                             \
	"if intended, re-record it: renacer golden update (share/renacer/regenerate-golden.sh "    \
	"also shows what moved)"
/* The hint of a failing timing comparison: a time also moves with the machine, so the first
 * advice is to confirm it, then to re-record it when the change is intended. */
#define RN_GOLDEN_TIMING_HINT                                                                      \
	"if unexpected, confirm it on a quiet machine or with more runs (--runs 10); " RN_GOLDEN_HINT

/*
 * The comparisons rn_golden_compare makes, in report order: X(id, name). `name` follows
 * "golden:" in verdict names and is what `[golden] metrics` and `[golden.tolerances]` accept.
 */
#define RN_GOLDEN_CHECKS(X)                                                                        \
	X(SYSCALLS, "syscalls")                                                                    \
	X(SYSCALL_COUNTS, "syscall_counts")                                                        \
	X(PROCESSES, "processes")                                                                  \
	X(CPU_TIME, "cpu_time")                                                                    \
	X(WALL_TIME, "wall_time")                                                                  \
	X(CRITICAL_PATH, "critical_path")                                                          \
	X(PEAK_RSS, "peak_rss")                                                                    \
	X(ALLOC_PEAK, "alloc_peak")                                                                \
	X(GPU_BUSY, "gpu_busy")                                                                    \
	X(GPU_DISPATCHES, "gpu_dispatches")                                                        \
	X(GPU_COPY_BYTES, "gpu_copy_bytes")                                                        \
	X(INSTRUCTIONS, "instructions")                                                            \
	X(SPAN_TIME, "span_time")                                                                  \
	X(SPAN_CPU, "span_cpu")

/* Golden comparison identifiers (enum rn_golden_check). */
enum rn_golden_check {
#define RN_GOLDEN_CHECK_ENUM(id, name) RN_GOLDEN_CHECK_##id,
	RN_GOLDEN_CHECKS(RN_GOLDEN_CHECK_ENUM)
#undef RN_GOLDEN_CHECK_ENUM
	RN_GOLDEN_CHECK_COUNT
};

/* The comparison named `name` ("wall_time"), or -1. */
int rn_golden_check_lookup(const char *name);
/* Name of comparison `c` ("wall_time"). */
const char *rn_golden_check_name(enum rn_golden_check c);

/*
 * CPU pressure (share of wall time in which some runnable task waited for a CPU, from
 * /proc/pressure/cpu) at or above which the machine counts as loaded: timing against a golden
 * trace is then advisory (docs/timing.md, "Against a golden trace: conditions").
 */
#define RN_LOAD_PRESSURE_BUSY 0.10

/* How golden comparisons judge regressions; filled from the [regression] table of
 * renacer.toml. Defaults (rn_regression_cfg_init) are given per field. */
/* Defaults of the adaptive repeats (struct rn_regression_cfg max_runs, time_budget_s). */
#define RN_REGRESSION_MAX_RUNS 60
/* Default [regression] drift_limit: a timing shift, fraction of the golden median, beyond any
 * drift of conditions (load, another machine) observed on an unchanged program. */
#define RN_REGRESSION_DRIFT_LIMIT 0.5
/* The drift limit against a golden trace is never below this shift, ns (1 ms): a program of a
 * millisecond doubles from fork and exec scheduling alone. Neither floor applies to a
 * harness's per-iteration times (rn_target_result.per_iteration): no fork or exec is in them. */
#define RN_GOLDEN_DRIFT_FLOOR_NS 1e6
/* The timing limit against a golden trace is never below this shift, ns (5 ms): a program of a
 * few milliseconds moves by a large share of them between moments. */
#define RN_GOLDEN_TIME_FLOOR_NS 5e6
/*
 * The count tolerance of lock and yield syscalls (futex, sched_yield) is at least this: their
 * count is the program's lock contention, which the machine's load moves in every run (xz -T2
 * under a loaded 2-vCPU VM's busy loop: futex 15 when recorded, 20-23 in the fewest run of
 * unchanged checks), so only more than twice the golden's calls (and the floor) fails.
 */
#define RN_GOLDEN_CONTENTION_TOLERANCE 1.0

/*
 * A syscall whose count moves between runs of an unchanged program, and the slack its count
 * gets beyond the configured count_tolerance and count_floor (one table, golden_counts.c;
 * docs/golden.md lists it): the lock and yield syscalls (futex, futex_waitv, sched_yield) at
 * least RN_GOLDEN_CONTENTION_TOLERANCE, brk at least 2 calls. Static storage.
 */
struct rn_count_rule {
	const char *syscall;  /* name, "brk" */
	double tolerance_min; /* count tolerance at least this, fraction of the reference */
	uint64_t floor_min;   /* count floor at least this, calls */
	const char *status;   /* a passing row's status in the detail table, "ok (...)" */
};

/* All rules, sorted by syscall name; their number in *n. */
const struct rn_count_rule *rn_count_rules(size_t *n);

/*
 * The count tolerance (fraction) and floor (calls) of `syscall` given the configured `tol`
 * and `floor_`: the larger of the configured value and its rule's. Golden traces and the
 * same-job baseline judge per-syscall counts with them.
 */
double rn_count_tolerance_of(const char *syscall, double tol);
uint64_t rn_count_floor_of(const char *syscall, uint64_t floor_);

/*
 * Whether a count grew from `ref` to `obs` beyond tolerance `tol` (fraction, judged in log
 * space: log(obs + 1) - log(ref + 1) > log(1 + tol)) and floor `floor_` (obs - ref > floor_,
 * calls): both must hold. Golden traces and the same-job baseline judge counts with it.
 */
bool rn_count_grew(double obs, double ref, double tol, double floor_);

/* The most a count may reach from `ref` without rn_count_grew(obs, ref, tol, floor_) (calls):
 * max((ref + 1) (1 + tol) - 1, ref + floor_), the LIMIT column of a count row. */
double rn_count_limit(double ref, double tol, double floor_);

/* The most bytes a memory metric may reach from the reference's most `ref` without growing:
 * max(ref (1 + tol), ref + floor_) (tol a fraction, floor_ bytes). Golden traces and the
 * same-job baseline judge peak_rss and alloc_peak against it. */
double rn_memory_limit(double ref, double tol, double floor_);

/*
 * The calls by which `syscall`'s count rule lets it grow beyond its reference without failing,
 * counted into the floor of the total of syscalls (whose growth a rule's syscall would
 * otherwise carry: zstd -T2's futex 148 in the median golden run and 266 in its most made the
 * total 452 read 508 and 525 in 2 of 5 unchanged checks under a busy loop): (1 +
 * tolerance_min) * ref_most - ref_median, at least floor_min; 0 for a syscall without a rule.
 * ref_median and ref_most are calls (the reference's median and most runs).
 */
double rn_count_rule_slack(const char *syscall, double ref_median, double ref_most);

/* A tree's alloc_peak moving beyond this factor of the reference's most is growth even when
 * the tree's peak depends on how its processes overlapped (a 2x never passes). */
#define RN_ALLOC_OVERLAP_LIMIT 2.0

/* What rn_alloc_peak_judge decided (struct rn_alloc_judgement). */
struct rn_alloc_judgement {
	bool overlap;      /* the tree's peak moved with the overlap of its processes: the runs
			    * of either side spread beyond the tolerance and the floor */
	bool per_process;  /* judged on process_alloc_peak (overlap, and both sides have it) */
	bool grew;         /* FAIL */
	bool beyond_limit; /* overlap, and the tree's fewest observed is beyond
			    * RN_ALLOC_OVERLAP_LIMIT times the reference's most (and floor_) */
	double obs_fewest; /* the judged metric's fewest observed, bytes */
	double ref_most;   /* the judged metric's most of the reference, bytes */
	double allowed;    /* what ref_most allows, bytes */
	double tree_lo[2]; /* the tree's fewest and most of the reference, bytes */
	double tree_hi[2]; /* of the observed runs, bytes */
	/* the numbers that decided, for a row's MEASURED, reference and LIMIT columns, bytes:
	 * obs_fewest, ref_most and allowed, or the tree's fewest against twice its reference's
	 * most (tree_hi[0], tree_lo[1] and that limit) when that alone failed it */
	double shown_obs, shown_ref, shown_limit;
};

/*
 * Judge alloc_peak (the tree's peak of live anonymous bytes, counting runs) of `obs` against
 * `ref` (golden trace or same-job base), tol a fraction and floor_ bytes. A tree whose
 * processes run at once peaks where they overlap, which moves from run to run (make -j2 read
 * 6.9, 13.0 and 8.7 MiB in three runs): when either side's runs spread by more than tol and
 * floor_, the tree's peak is said to depend on the overlap and the largest process's peak
 * (process_alloc_peak, which does not) is judged instead, while the tree's fewest beyond
 * RN_ALLOC_OVERLAP_LIMIT times the reference's most still fails. Otherwise the tree's fewest
 * is judged against the reference's most. Growth: fewest > most * (1 + tol) and
 * fewest - most > floor_. Arrays are per counting run (bytes; na, nb >= 1; the process arrays
 * may be NULL or all 0 when not recorded: the tree is then judged alone). Fills *out.
 */
void rn_alloc_peak_judge(const double *tree_ref, size_t na, const double *tree_obs, size_t nb,
			 const double *proc_ref, size_t npa, const double *proc_obs, size_t npb,
			 double tol, double floor_, struct rn_alloc_judgement *out);

/* Speed probe ratio (now / recording) within which a golden trace's timing is comparable. */
#define RN_GOLDEN_SPEED_MATCH 1.15

/* Defaults of [regression] (rn_regression_cfg_init), each a plain literal: `renacer help
 * config` and docs/config.md print the same text (runner/input/config.h, RN_CFG_STR). */
#define RN_REGRESSION_COUNT_TOLERANCE 0.10         /* count_tolerance, fraction */
#define RN_REGRESSION_COUNT_FLOOR 1                /* count_floor, calls or bytes */
#define RN_REGRESSION_TIMING_TOLERANCE 0.10        /* timing_tolerance, fraction */
#define RN_REGRESSION_MEMORY_TOLERANCE 0.10        /* memory_tolerance, fraction */
#define RN_REGRESSION_MEMORY_FLOOR_BYTES 1048576   /* memory_floor_bytes: 1 MiB */
#define RN_REGRESSION_ALPHA 0.01                   /* alpha */
#define RN_REGRESSION_MIN_RUNS_FOR_TIMING 5        /* min_runs_for_timing */
#define RN_REGRESSION_INSTRUCTIONS_TOLERANCE 0.005 /* instructions_tolerance, fraction */
#define RN_REGRESSION_TIME_BUDGET_S 45             /* time_budget_s, s */

/*
 * X(id, name) of how the timing pairs of a same-job baseline run (`pairs` of [regression] and
 * [[target]]; runner/check/baseline.h): SEQUENTIAL one side after the other (order rotating)
 * on one CPU; DUET both sides at the same moment on two CPUs, swapped every pair, so that
 * interference from the rest of the machine falls on both (Bulej et al., "Duet
 * Benchmarking", 2020).
 */
#define RN_PAIR_SCHEMES(X)                                                                         \
	X(SEQUENTIAL, "sequential")                                                                \
	X(DUET, "duet")

enum rn_pair_scheme {
#define RN_PAIR_SCHEME_ENUM(id, name) RN_PAIRS_##id,
	RN_PAIR_SCHEMES(RN_PAIR_SCHEME_ENUM)
#undef RN_PAIR_SCHEME_ENUM
};

/* The names of enum rn_pair_scheme, by value, NULL-terminated. */
extern const char *const rn_pair_scheme_names[];

/* The pair scheme of a baseline without a `pairs` key (see docs/benchmarks.md). */
#define RN_PAIRS_DEFAULT RN_PAIRS_SEQUENTIAL

struct rn_regression_cfg {
	bool enabled;                  /* compare with golden traces at all (default true) */
	double count_tolerance;        /* allowed growth of counts, fraction
				       * (RN_REGRESSION_COUNT_TOLERANCE) */
	uint64_t count_floor;          /* growth in calls (or bytes) always allowed
				       * (RN_REGRESSION_COUNT_FLOOR) */
	double timing_tolerance;       /* allowed slowdown, fraction of the golden median
				       * (RN_REGRESSION_TIMING_TOLERANCE) */
	double memory_tolerance;       /* allowed memory growth, fraction
				       * (RN_REGRESSION_MEMORY_TOLERANCE) */
	double instructions_tolerance; /* allowed growth of the instruction count, fraction
					* (RN_REGRESSION_INSTRUCTIONS_TOLERANCE: the count is
					* deterministic) */
	uint64_t memory_floor_bytes;   /* memory growth always allowed, bytes
				       * (RN_REGRESSION_MEMORY_FLOOR_BYTES: a small program's RSS
				       * moves by pages between runs) */
	double alpha;                  /* significance level of the one-sided rank test and
				       * 1 - confidence of the shift bound (RN_REGRESSION_ALPHA) */
	bool timing;                   /* judge timing metrics; false reports them as SKIP
				       * (default true) */
	unsigned min_runs_for_timing;  /* runs needed on both sides to judge timing
				       * (RN_REGRESSION_MIN_RUNS_FOR_TIMING) */
	unsigned max_runs;             /* adaptive repeats: most timing runs (pairs under
				       * --baseline) an undecided timing comparison gets
				       * (RN_REGRESSION_MAX_RUNS; assertions/sequential.h) */
	double drift_limit;            /* timing against a golden recorded under other conditions
				       * (another machine, another speed probe, load) fails only
				       * beyond this shift, fraction (RN_REGRESSION_DRIFT_LIMIT) */
	bool timing_guard;             /* timing runs carry the guard's seccomp filter
				       * (collectors/guard.h); false trades it for timing
				       * fidelity (default true) */
	bool pin;                      /* same-job baseline: a target of one process and one
				       * thread runs both sides on one CPU (default true) */
	int pairs;                     /* same-job baseline: how the timing pairs run, enum
				       * rn_pair_scheme ([regression] pairs; a [[target]]'s own
				       * `pairs` overrides it) */
	double time_budget_s;          /* adaptive repeats: no new look once a target's timing
				       * runs took this long, s (RN_REGRESSION_TIME_BUDGET_S;
				       * 0 = no limit) */
	bool load_guard;               /* wall-time and critical-path slowdowns whose cpu_time did
				       * not grow significantly are INCONCLUSIVE (WARN) instead of
				       * FAIL when the target is CPU-bound (cpu_time >= half of
				       * wall_time in the golden) or the machine was loaded during
				       * the runs (RN_LOAD_PRESSURE_BUSY) (default true) */
	bool not_judged_fails;         /* NOT JUDGED blocks like FAIL (exit 1); from
				       * [regression] not_judged = "fail" (default false: "warn") */
	bool judged[RN_GOLDEN_CHECK_COUNT];      /* [golden] metrics: comparisons made; the others
					     * are reported as SKIP (default all true) */
	double tolerance[RN_GOLDEN_CHECK_COUNT]; /* [golden.tolerances]: per-comparison
						  * tolerance, fraction, replacing
						  * count/timing/memory/instructions_tolerance; < 0 when not
						  * given (default) */
};

/*
 * Whether a one-sided Mann-Whitney test of `nb` new runs against `na` golden runs can ever
 * reach p < alpha: its smallest p-value, 1 / C(na + nb, na) without ties (exact) or the normal
 * approximation's at the largest U (stats.h), must be below alpha. With 3 runs against a 5-run
 * golden the smallest p is 1/56 = 0.0179, so alpha 0.01 can never be reached.
 */
bool rn_golden_timing_feasible(size_t na, size_t nb, double alpha);
/*
 * The smallest number of new runs (>= `least`) that can reach alpha against `na` golden runs,
 * or 0 when none up to 1000 can (na == 0).
 */
size_t rn_golden_timing_min_runs(size_t na, size_t least, double alpha);
/*
 * Relative spread of timing samples: 1.4826 * MAD / median (a robust coefficient of
 * variation); 0 when n < 2 or the median is 0.
 */
double rn_golden_spread(const double *x, size_t n);

/* Set the defaults documented above. */
void rn_regression_cfg_init(struct rn_regression_cfg *cfg);

/* One syscall of a golden trace. */
struct rn_golden_syscall {
	char *name;       /* syscall name ("openat"), owned */
	double calls;     /* median calls over the golden runs */
	double calls_max; /* most calls of any golden counting run (file key "calls_max", written
			   * where it differs from "calls"; = calls when absent) */
	double errors;    /* median failed calls */
	double total_ns;  /* median summed duration, ns; 0 for renacer-json-v1 baselines */
};

/* GPU summary of a golden trace. */
struct rn_golden_gpu {
	double busy_ns;         /* median union of GPU span intervals, ns */
	double dispatches;      /* median dispatch spans */
	double copy_bytes;      /* median bytes moved by copies */
	uint64_t runs_with_gpu; /* runs in which the Vulkan collector contributed spans */
};

/* A golden trace as read from disk. All strings and arrays owned; rn_golden_release frees. */
struct rn_golden {
	int version;              /* format version (1 to 3); 0 for a renacer-json-v1 baseline */
	bool counts_only;         /* renacer-json-v1: only syscall counts, no timing or memory */
	char *target;             /* target name, or NULL (renacer-json-v1) */
	char **argv;              /* recorded argv, NULL-terminated (empty for renacer-json-v1) */
	char *renacer_version;    /* version of the renacer that wrote it, or NULL */
	char *created;            /* UTC ISO 8601 creation time, or NULL */
	char *kernel;             /* uname -r of the recording host, or NULL */
	char *cpu_model;          /* cpu model of the recording host, or NULL */
	char *machine;            /* uname -m of the recording host, or NULL */
	char *build_id;           /* build-id of the target binary, or NULL */
	size_t nruns;             /* (timing) runs recorded (1 for renacer-json-v1) */
	size_t ncounting_runs;    /* counting runs recorded (0 in older formats) */
	bool timing_under_tracer; /* renacer-golden/1: its time samples include the tracer's
				   * cost; timing verdicts against it are WARN at most */
	double *samples[RN_METRIC_COUNT];   /* per-run samples [nsamples[m]] by enum rn_metric, in
					   * the metric's unit; NULL when the file lacks it */
	size_t nsamples[RN_METRIC_COUNT];   /* values in samples[m]: nruns, or ncounting_runs for
					   * a metric of "counting_samples" */
	struct rn_golden_syscall *syscalls; /* per-syscall medians, sorted by name */
	size_t nsyscalls;                   /* entries in syscalls */
	bool has_gpu;                       /* the file has a GPU summary */
	struct rn_golden_gpu gpu;           /* GPU summary when has_gpu */
	bool has_conditions;                /* "conditions" recorded (the fields below) */
	unsigned cpus;                      /* online CPUs of the recording host */
	double cpu_pressure;                /* CPU pressure during its runs, [0, 1]; < 0 unknown */
	double probe_cpu_ns;                /* speed probe median, thread CPU time, ns; 0 none */
	double probe_wall_ns;               /* speed probe median, wall time, ns; 0 none */
	bool has_fingerprint;               /* "conditions.fingerprint" recorded */
	struct rn_fingerprint fingerprint;  /* the recording's environment (util/fingerprint.h);
					     * fields it did not record are "" */
	bool has_spans;                     /* span durations recorded (version >= 3; "spans"
					     * may still be absent: no app spans then) */
	struct rn_span_series *spans;       /* per app span name, the timing runs' summed
					     * durations and CPU times ("span_cpu"; ncpu 0
					     * when absent), sorted by name [nspans], owned */
	size_t nspans;                      /* entries in spans */
};

/*
 * Adaptive repeats against golden trace `g`: whether the timing comparisons of `r` (its runs
 * so far, at the look r->look_first/look_max make) leave one to decide: none fails, and
 * cpu_time is undecided, or another time metric is whose shift is beyond its limit, and that
 * comparison can still be decided by the last look at its measured noise (rn_seq_futile; an
 * advisory row can only fail beyond the drift limit). Sets `*futile` (when not NULL) when
 * some undecided comparison was left for futility alone.
 */
bool rn_golden_timing_undecided(const struct rn_golden *g, const struct rn_target_result *r,
				const struct rn_regression_cfg *cfg, bool *futile);

/*
 * Whether the counting runs' comparisons (golden:syscalls, golden:syscall_counts,
 * golden:alloc_peak) of
 * `r` against `g` fail as measured so far. A check measures up to RN_GOLDEN_CONFIRM_COUNTING
 * counting runs while they do, so that run-to-run variation of threaded programs (a two-thread
 * compressor's munmap 15 -> 17-19) is not a failure; a real change fails in every run.
 */
bool rn_golden_counts_fail(const struct rn_golden *g, const struct rn_target_result *r,
			   const struct rn_regression_cfg *cfg);
#define RN_GOLDEN_CONFIRM_COUNTING 3

/* Facts about the current host recorded as provenance. */
struct rn_golden_host {
	char kernel[128];    /* uname -r */
	char machine[64];    /* uname -m */
	char cpu_model[256]; /* first "model name" of /proc/cpuinfo, else "unknown" */
};

/* Read the current host's facts. Never fails (unknown fields become "unknown"). */
void rn_golden_host(struct rn_golden_host *h);

/*
 * The golden trace path of target `target` in directory `dir`: "<dir>/<target>.json".
 * Returns a malloc'ed string (caller frees), or NULL when the name cannot be a file name
 * (empty, ".", "..", or contains '/').
 */
char *rn_golden_path(const char *dir, const char *target);

/*
 * Write the golden trace of `r` to `path` (format above) atomically (rn_write_file_atomic:
 * the previous file stays intact on any failure). `argv_rel` is the target's argv as it should
 * be recorded, NULL-terminated, with paths already made relative to the config's directory
 * (no absolute paths in the repository), or NULL for an empty argv.
 *
 * `created` is, in order of preference, $SOURCE_DATE_EPOCH (reproducible builds), the wall
 * clock start of the first run (r->start_unix_ns), or the current time; so writing the same
 * result twice gives identical bytes. Per-syscall total_ns come from r->syscall_ns, or from the
 * last run's trace when that is NULL.
 *
 * Returns 0, or a negative errno with `d` filled (file = path, no line): -EINVAL when `r` has no
 * measured runs, did not run cleanly, or argv is not valid UTF-8; the error of writing otherwise.
 */
int rn_golden_write(const char *path, const struct rn_target_result *r, const char *const *argv_rel,
		    struct rn_diag *d);

/*
 * Read and validate the golden trace at `path` into `g` (overwritten; nothing to release on
 * failure). Accepts "renacer-golden/3", "/2", "/1" and "renacer-json-v1". Validation is strict: every
 * required key with its type, integers >= 0 where counts are expected, one sample per run,
 * no unknown metric names, no duplicate keys.
 *
 * `d` is initialized with `path` as file name and filled on failure; messages, after
 * "PATH:LINE:COL: error: " (location only for JSON syntax errors, from jansson):
 *   "cannot read golden trace: No such file or directory"                      (-ENOENT, ...)
 *   "cannot use golden trace: not a regular file"            (-EINVAL: FIFO, device, socket)
 *   "cannot use golden trace: larger than 256 MiB"             (-EFBIG: RN_GOLDEN_MAX_BYTES)
 *   "truncated golden trace: <jansson's text>"        (input ends early, or the file is empty)
 *   "corrupt golden trace: <jansson's text>"                         (other JSON syntax errors)
 *   "corrupt golden trace: <what is wrong> (key \"samples.wall_time\")"    (schema violations)
 *   "not a golden trace: missing \"format\""
 *   "not a golden trace: unknown format \"X\" (expected \"renacer-golden/3\", \"renacer-golden/2\",
 *    \"renacer-golden/1\" or \"renacer-json-v1\")"
 *   "written by a newer renacer (format renacer-golden/4); this renacer reads renacer-golden/3"
 * Returns 0, a negative errno from reading, -EINVAL for invalid content, or -EPROTONOSUPPORT
 * for a newer format version.
 */
int rn_golden_read(const char *path, struct rn_golden *g, struct rn_diag *d);

/* The largest golden trace rn_golden_read() reads, in bytes (opened O_NONBLOCK, checked with
 * fstat: only regular files; see util/safefile.h). */
#define RN_GOLDEN_MAX_BYTES (256 << 20)

/* Free what `g` owns; `g` is then zeroed. Safe on a zeroed struct. */
void rn_golden_release(struct rn_golden *g);

/* True when `g` was recorded on a host with the same cpu model, kernel release and machine
 * architecture as this one (all three recorded and equal). */
bool rn_golden_same_machine(const struct rn_golden *g);

/*
 * Compare the runs of `r` against golden trace `g` (read from `golden_path`, named in the
 * details) under `cfg`, producing regression verdicts (type "regression", assertion
 * "golden:<name>"), in this order:
 *   golden:syscalls        total syscalls (count)
 *   golden:syscall_counts  every syscall's median calls (count); one verdict whose detail table
 *                          lists grown and new syscalls, so the set of JUnit testcases stays
 *                          the same from run to run whatever fails
 *   golden:wall_time, golden:critical_path     (timing; not for counts-only baselines)
 *   golden:peak_rss, golden:alloc_peak         (memory; not for counts-only baselines)
 *   golden:gpu_busy (timing), golden:gpu_dispatches, golden:gpu_copy_bytes (count)
 *                          only when the golden trace has a GPU summary; NO DATA when it has
 *                          one and no run had GPU spans
 *   golden:span_time:app:<name>  (timing) one per app span name of the golden trace or of the
 *                          runs, by name; NO DATA for a golden span no run had, SKIP for a
 *                          span the golden lacks or a golden without span data
 *   golden:span_cpu:app:<name>   (timing) after its span_time row, when the golden's runs and
 *                          these both had the span's CPU time (none: no row)
 * Each carries observed, golden, budget (the largest passing value), delta_pct (relative to
 * the golden value, or to 1 when that is 0), unit, a one-line message such as
 * "syscalls 2480 vs golden 1240 (+100.0%, tolerance +10%)" (ending with "; " RN_GOLDEN_HINT
 * when it fails), the aggregate, and a detail table. When `r` has no runs or did not run
 * cleanly every verdict is ERROR. When cfg->enabled is false there are no verdicts.
 *
 * *out receives a malloc'ed array of *nout verdicts (NULL when 0); the caller releases each
 * with rn_verdict_result_release() and frees the array. Returns 0 (dies on out-of-memory).
 */
int rn_golden_compare(const struct rn_golden *g, const char *golden_path,
		      const struct rn_target_result *r, const struct rn_regression_cfg *cfg,
		      struct rn_verdict_result **out, size_t *nout);

#endif
