/*
 * assertion.h - what `renacer check` judges and how it reports it.
 *
 * Data flow: the runner runs a target `runs` times; each run's trace (collectors/trace.h) is
 * reduced to a `struct rn_metrics` (rn_metrics_from_trace) and kept in a
 * `struct rn_target_result` with per-run samples, per-syscall counts, and the trace of the last
 * measured run (for span patterns, anti-patterns and export). Each enabled assertion that
 * applies is then evaluated into a `struct rn_verdict_result`; golden traces add regression
 * verdicts. Reports (console, JUnit, OTLP, GitHub) read only these structures.
 *
 * Units: durations in ns, sizes in bytes, counts as plain integers. Thresholds in the config are
 * in the units their key names say (max_duration_ms) and converted on load.
 */
#ifndef RN_ASSERTION_H
#define RN_ASSERTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fingerprint.h"
#include "rn_regex.h"
#include "trace.h"

/*
 * Per-run metrics: X(id, name, unit, description). `name` is the key in golden traces and
 * reports; `unit` is "ns", "bytes" or "count". One table feeds the enum, golden I/O, the
 * report and the docs.
 */
#define RN_METRICS(X)                                                                              \
	X(WALL, "wall_time", "ns", "root spawn to the last exit of the tree")                      \
	X(CRITICAL_PATH, "critical_path", "ns", "longest chain of dependent work")                 \
	X(CPU_TIME, "cpu_time", "ns", "user + system CPU time of the tree")                        \
	X(USER_TIME, "user_time", "ns", "user-mode part of cpu_time")                              \
	X(PEAK_RSS, "peak_rss", "bytes", "peak resident set of the process tree")                  \
	X(ALLOC_PEAK, "alloc_peak", "bytes", "peak anonymous mmap/mremap + brk bytes")             \
	X(PROCESS_ALLOC_PEAK, "process_alloc_peak", "bytes",                                       \
	  "alloc_peak of the tree's largest process (whatever the overlap)")                       \
	X(ALLOC_TOTAL, "alloc_total", "bytes", "bytes ever mapped anonymously or by brk")          \
	X(SYSCALLS, "syscalls", "count", "completed syscalls of the tree")                         \
	X(SYSCALL_ERRORS, "syscall_errors", "count", "syscalls that returned an error")            \
	X(PROCESSES, "processes", "count", "processes in the tree")                                \
	X(GPU_BUSY, "gpu_busy", "ns", "union of GPU span intervals")                               \
	X(GPU_DISPATCHES, "gpu_dispatches", "count", "GPU dispatch spans")                         \
	X(GPU_COPY_BYTES, "gpu_copy_bytes", "bytes", "bytes moved by GPU copies")                  \
	X(INSTRUCTIONS, "instructions", "count",                                                   \
	  "instructions executed by the tree under "                                               \
	  "Valgrind (cachegrind), 0 when not measured")

/* Metric identifiers (enum rn_metric). */
enum rn_metric {
#define RN_METRIC_ENUM(id, name, unit, desc) RN_METRIC_##id,
	RN_METRICS(RN_METRIC_ENUM)
#undef RN_METRIC_ENUM
	RN_METRIC_COUNT
};

/* Static description of a metric. */
struct rn_metric_info {
	const char *name; /* "critical_path" */
	const char *unit; /* "ns", "bytes" or "count" */
	const char *desc; /* one line */
};

/* The table entry of metric `m`. */
const struct rn_metric_info *rn_metric_info(enum rn_metric m);
/* The metric named `name`, or -1. */
int rn_metric_lookup(const char *name);

/*
 * What a run measured (enum rn_run_measures). A timing run (process events only, see
 * collectors/driver.h) measures times; a counting run (every syscall stops) measures counts;
 * a run of a target without the ptrace collector (GPU collectors alone) measures both.
 */
enum rn_run_measures {
	RN_MEASURES_TIMES = 1 << 0,  /* wall_time, critical_path, cpu_time, gpu_busy */
	RN_MEASURES_COUNTS = 1 << 1, /* syscalls, errors, allocations, GPU counts, spans */
	RN_MEASURES_BOTH = RN_MEASURES_TIMES | RN_MEASURES_COUNTS,
};

/* The kind of run that measures metric `m`: RN_MEASURES_TIMES, RN_MEASURES_COUNTS, or
 * RN_MEASURES_BOTH for the process-tree metrics (peak_rss, processes) that either kind sees
 * unchanged (taken from the timing runs when there are any) and for instructions (counted in
 * a Valgrind run of its own and written into runs of both kinds). */
enum rn_run_measures rn_metric_measured_by(enum rn_metric m);

/* Metrics of one run. */
struct rn_metrics {
	uint64_t v[RN_METRIC_COUNT]; /* values indexed by enum rn_metric, in the metric's unit */
	uint64_t start_ns;           /* CLOCK_MONOTONIC start of the run, ns */
	uint64_t start_unix_ns;      /* CLOCK_REALTIME start of the run, ns */
	enum rn_run_status status;   /* how the run ended */
	bool has_gpu;                /* the Vulkan collector contributed spans */
	uint32_t measures;           /* enum rn_run_measures of the run */
};

/* One link of the critical path: a process and the part of its life on the path. */
struct rn_cp_segment {
	int proc;          /* index into rn_trace.procs */
	uint64_t start_ns; /* segment start, ns */
	uint64_t end_ns;   /* segment end, ns */
};

/* The critical path of one run. */
struct rn_critical_path {
	uint64_t length_ns;             /* wall-clock length, ns */
	struct rn_cp_segment *segments; /* chain from the root's exec to its exit, owned */
	size_t nsegments;               /* segments used */
};

/*
 * Compute the critical path of a run: from the root's exec (or spawn) to its exit, descending
 * into each child the root (recursively, each process) waited for, and into GPU work the host
 * waited on. Fills `cp` (caller releases with rn_critical_path_release). Never fails.
 */
void rn_critical_path_compute(const struct rn_trace *t, struct rn_critical_path *cp);
/* Free the segments. */
void rn_critical_path_release(struct rn_critical_path *cp);

/* How samples over runs are aggregated (enum rn_aggregate). */
enum rn_aggregate {
	RN_AGG_MEDIAN = 0, /* default */
	RN_AGG_MIN,
	RN_AGG_P95,
	RN_AGG_MAX,
};

/* Aggregate `n` samples (n >= 1; order irrelevant, the array is not modified). p95 uses the
 * nearest-rank method. */
double rn_aggregate(const double *samples, size_t n, enum rn_aggregate a);

struct rn_equiv_behaviour; /* assertions/equivalence.h */

/*
 * The program's own spans of one name over runs: per run, the summed duration of every span
 * of that name (inclusive of its children), and the summed CPU time of those that carry one
 * (RN_APP_CPU: renacer_span.h push/pop). A target result keeps one per app span name of its
 * timing runs (rn_target_result.app_spans); a golden trace records them ("spans" and
 * "span_cpu", golden.h).
 */
struct rn_span_series {
	char *name;          /* "app:<name>", owned */
	double *ns;          /* per-run summed durations, ns [n], in run order; a run without a
			      * span of this name has no entry */
	size_t n;            /* runs that had the span */
	size_t last_run;     /* private: the run (index + 1) of ns[n - 1] while collecting */
	double *cpu_ns;      /* per-run summed thread CPU time of the spans that carry one, ns
			      * [ncpu], in run order; a run none of whose spans of this name
			      * carried CPU time has no entry; owned, NULL when ncpu is 0 */
	size_t ncpu;         /* runs whose spans of this name carried CPU time */
	size_t last_cpu_run; /* private: the run (index + 1) of cpu_ns[ncpu - 1] */
};

/*
 * Everything measured for one target over its runs. `runs` are the timing runs (the `runs` of
 * renacer.toml; for a target without the ptrace collector, runs that measure both); `counts`
 * are the counting runs. Time metrics come only from `runs`, count metrics from `counts` when
 * there are counting runs (rn_target_result_samples chooses).
 */
struct rn_target_result {
	char *name;                 /* target name, owned */
	size_t nruns;               /* timing (or both-kind) runs completed */
	struct rn_metrics *runs;    /* per-run metrics [nruns], owned */
	size_t ncounts;             /* counting runs completed */
	struct rn_metrics *counts;  /* per-run metrics of the counting runs [ncounts], owned */
	double *syscall_calls;      /* per-syscall median calls over runs [rn_syscall_table_size()],
				     * owned; NULL until the first run */
	double *syscall_errors;     /* per-syscall median errors over runs, owned */
	double *syscall_ns;         /* per-syscall median over runs of the summed durations, ns
				     * [rn_syscall_table_size()], owned; NULL when not collected
				     * (golden traces then take the last run's sums) */
	uint64_t **syscall_samples; /* private: per-run calls, used to compute the medians */
	size_t nsyscall_runs;       /* private: runs in syscall_samples (those measuring counts) */
	struct rn_trace last;       /* trace of the last counting run, or of the last run when
				     * there was none (spool kept if enabled) */
	struct rn_trace last_timing;         /* trace of the last timing run when `last` holds a
				      * counting run's, else empty (see rn_target_result_cp_trace) */
	struct rn_trace *span_runs;          /* traces of the runs before `last` that measured spans
				      * (counting runs, or runs of both kinds when there are no
				      * counting runs) and kept some (app or GPU spans, a spool),
				      * oldest first, at most RN_SPAN_RUNS_MAX, owned: span_time
				      * judges every run (rn_target_result_span_trace) */
	size_t nspan_runs;                   /* traces in span_runs */
	struct rn_span_series *app_spans;    /* the program's own spans of the timing (or both-kind)
					      * runs, one series per name, sorted by name, owned:
					      * golden traces record and compare them */
	size_t napp_spans;                   /* series in app_spans */
	const struct rn_target_result *base; /* check --baseline: the base side's result of this
					      * target, borrowed (set before its assertions are
					      * judged), or NULL */
	struct rn_critical_path cp; /* critical path of the last timing (or both-kind) run */
	enum rn_run_status status;  /* worst status over the runs (OK if all ran) */
	char *error;                /* message for a failed run, owned, or NULL */
	char *build_id;             /* root binary build-id of the last run, owned, or NULL */
	char *exe;                  /* root binary of the last run (its /proc/PID/exe), owned,
				      * or NULL */
	bool has_fingerprint;       /* fingerprint was read (check/check_run.c, after the runs) */
	struct rn_fingerprint fingerprint; /* the environment of the runs (util/fingerprint.h):
					    * machine, kernel, governor, compiler of `exe` */
	uint64_t start_unix_ns; /* wall-clock (CLOCK_REALTIME) start of the first run, ns */
	uint64_t duration_ns;   /* total time spent on the target, warmups included, ns */
	struct rn_equiv_behaviour
		*behaviour;        /* behaviour of the last measured run, taken live when an
				     * equivalence assertion applies (assertions/equivalence.h),
				     * owned, or NULL (the assertion then replays the spool) */
	char *instructions_detail; /* the Valgrind run's per-process instruction counts, one
				     * "PID INSTRUCTIONS CMD" line each, owned, or NULL */
	struct rn_trace_gap *gaps; /* known data loss over the measured runs [ngaps]: one per
				     * kind, scope and source with the largest count of one run
				     * (0 when a run's was unknown) and the first reason, owned */
	size_t ngaps;              /* gaps */
	bool has_cpu_pressure;     /* cpu_pressure was measured */
	double cpu_pressure;       /* share of the measured runs' wall time in which some
				     * runnable task of the machine waited for a CPU, in [0, 1]
				     * (/proc/pressure/cpu "some"; the machine's load, whatever
				     * the target does) */
	bool has_io_pressure;      /* io_pressure was measured */
	double io_pressure;        /* share of the measured runs' wall time in which some task
				     * of the machine (the target's own included) waited on I/O,
				     * in [0, 1] (/proc/pressure/io "some") */
	double *probe_cpu_ns;      /* speed probe before each timing run (check/conditions.h):
					 * thread CPU time of the fixed work, ns [nprobes], owned */
	double *probe_wall_ns;     /* the same probes' wall time, ns [nprobes], owned */
	size_t nprobes;            /* probes taken */
	size_t look_first;         /* adaptive repeats (assertions/sequential.h): timing runs
					 * of the first look; 0 = one look at nruns */
	size_t look_max;           /* timing runs of the last look the design allowed */
	bool looks_spent;          /* no further look was possible (max_runs, time budget) */
	bool looks_futile;         /* the looks stopped because no undecided comparison could be
				    * decided by the last look at its noise (rn_seq_futile) */
	int pin_cpu;               /* same-job baseline: the first CPU its last timing run was
				    * placed on (check/check_run.c), -1 unpinned */
	int pin_ncpus;             /* and how many CPUs from pin_cpu in the affinity's order */
	bool duet_pairs;           /* same-job baseline: its timing pairs ran as duets, both
				    * sides at once on two CPUs (runner/check/baseline.h) */
	const char *pairs_note;    /* ... or why duet pairs were asked for and fell back to
				    * sequential ones, static, or NULL */
	bool per_iteration;        /* a harness's benchmark (runner/check/harness.h): the timing
				    * runs' wall_time is its time per iteration, ns, not the
				    * process's (rn_target_result_set_bench) */
	bool per_iteration_cpu;    /* ... and cpu_time/user_time its CPU time per iteration
				    * (else they are 0 and not judged) */
	bool per_iteration_wall;   /* ... and wall_time its wall time per iteration (else 0
				    * and not judged: a pytest-benchmark CPU timer) */
};

/*
 * The last timing run of `r` was one invocation of a benchmark harness: its time metrics
 * become the harness's per-iteration times, ns (`real_ns` into wall_time, `cpu_ns` into
 * cpu_time and user_time; 0 = the harness reports none, and that metric is not judged),
 * critical_path 0 (not judged). Its
 * counts and memory stay the process's. Sets r->per_iteration.
 */
void rn_target_result_set_bench(struct rn_target_result *r, double real_ns, double cpu_ns);
/* Whether time metric `m` of `r` is judged (against a golden trace or a base): not a
 * per-iteration result's critical_path, nor its CPU times where the harness reports none. */
bool rn_target_result_time_judged(const struct rn_target_result *r, enum rn_metric m);

/* Init/release a target result. */
void rn_target_result_init(struct rn_target_result *r, const char *name);
void rn_target_result_release(struct rn_target_result *r);
/* Add a finished measured run: metrics, syscall counts; `t` is moved into r (t is
 * re-initialized). A trace of a timing run (t->events_only) is a timing run, any other trace
 * a run that measured both. */
void rn_target_result_add_run(struct rn_target_result *r, struct rn_trace *t);
/* Calls of syscall `nr` in the `run`-th run that measured counts (< r->nsyscall_runs: the
 * counting runs, or the both-kind runs when there were none); 0 when out of range. */
uint64_t rn_target_result_run_calls(const struct rn_target_result *r, size_t run, int nr);
/* Runs whose per-syscall counts rn_target_result_run_calls reads. */
size_t rn_target_result_count_runs(const struct rn_target_result *r);
/* The fewest (`most` false) or most (`most` true) calls of syscall `nr` in any of those runs;
 * `none` when per-run counts were not kept. Counts what a run varies by on its own: a check's
 * fewest against a golden's or a base's most. */
double rn_target_result_calls_extreme(const struct rn_target_result *r, int nr, double none,
				      bool most);
/* Most earlier runs whose spans a result keeps for span_time (struct rn_target_result). */
#define RN_SPAN_RUNS_MAX 64

/* Add a finished counting run: its counts, spans and syscall statistics; its times are not
 * used (taken under the tracer). `t` is moved into r->last (t is re-initialized). */
void rn_target_result_add_counting_run(struct rn_target_result *r, struct rn_trace *t);
/* Samples of metric `m` over the runs that measure it, as doubles; returns a malloc'ed array
 * (never NULL) and their number in *n. */
double *rn_target_result_samples(const struct rn_target_result *r, enum rn_metric m, size_t *n);
/* The trace whose processes r->cp's segments index (the last timing run's). */
const struct rn_trace *rn_target_result_cp_trace(const struct rn_target_result *r);
/* Measured runs of both kinds (0: the target did not run). */
size_t rn_target_result_measured(const struct rn_target_result *r);

/* Verdicts (enum rn_verdict). X(id, label). */
#define RN_VERDICTS(X)                                                                             \
	X(PASS, "PASS")       /* within budget (comparisons are inclusive: <= passes) */           \
	X(FAIL, "FAIL")       /* over budget, blocking (exit 1) */                                 \
	X(WARN, "WARN")       /* over budget with fail_on_violation = false */                     \
	X(SKIP, "SKIP")       /* enabled = false; never counted as passed */                       \
	X(NO_DATA, "NO DATA") /* the metric has no data: an error, never a silent pass */          \
	X(ERROR, "ERROR")     /* the target could not run, timed out, crashed, collector failed */ \
	X(NOT_JUDGED, "NOT JUDGED") /* the data cannot be judged (too few runs, a test that can  \
				     * never reach significance, no golden data); never counted \
				     * as passed; blocks only with [regression] not_judged =     \
				     * "fail" (docs/metrics.md) */

enum rn_verdict {
#define RN_VERDICT_ENUM(id, label) RN_VERDICT_##id,
	RN_VERDICTS(RN_VERDICT_ENUM)
#undef RN_VERDICT_ENUM
	RN_VERDICT_COUNT
};

/* Label of a verdict ("PASS", "NO DATA", ...). */
const char *rn_verdict_label(enum rn_verdict v);

/* The outcome of one assertion (or one golden-trace comparison) on one target. */
struct rn_verdict_result {
	char *assertion; /* assertion name ("api_max_latency", or "golden:<metric>"), owned */
	char *type;      /* "critical_path", "span_count", "memory_usage", "anti_pattern",
				 * "regression", owned */
	char *target;    /* target name, owned */
	enum rn_verdict verdict; /* the verdict */
	bool has_observed;       /* observed is meaningful */
	double observed;         /* measured value in `unit` */
	bool has_budget;         /* budget is meaningful */
	double budget;           /* the limit in `unit` */
	bool has_golden;         /* golden is meaningful */
	double golden;           /* the golden trace's value in `unit` */
	double delta_pct;        /* (observed - reference) / reference * 100 (reference: golden if
				 * any, else budget) */
	const char *unit;        /* "ms", "bytes", "spans", "confidence", "calls" (static) */
	char *message;           /* one line: "measured vs budget (golden, delta)", owned */
	char *detail;            /* multi-line body (tables, chain, evidence), owned, or NULL */
	char *aggregate;         /* "median of 5 runs" etc., owned, or NULL */
	char *reason;            /* why this verdict in a few words, for the console's REASON
				 * column ("1 run < min_runs_for_timing 5", "inconclusive: machine
				 * loaded"), owned, or NULL (the report then shows the aggregate) */
	int config_line;         /* line of the [[assertion]] in renacer.toml, 0 if none */
	double confidence;       /* anti_pattern: detection confidence in [0,1], else 0 */
	uint64_t time_ns;        /* time attributed to the evaluation (JUnit testcase time), ns */
	double mde_pct;          /* timing rows: detection limit, the smallest slowdown (percent
				 * of the reference) this row catches in 80% of checks at its
				 * measured noise and runs (assertions/sequential.h); 0 = not a
				 * timing row, or none could be stated */
	bool slower_shown;       /* timing rows: the shift's interval lies above zero (a
				  * slowdown is shown, beyond the limit or not); false otherwise */
};

/* Free what a verdict owns. */
void rn_verdict_result_release(struct rn_verdict_result *v);

/*
 * The assertion types of renacer.toml, one row each, written once:
 * X(id, name, evaluate, gaps, keys, help).
 *   id        RN_ASSERT_<id>, the row's index in enum rn_assertion_type
 *   name      the `type` value in renacer.toml ("critical_path")
 *   evaluate  void evaluate(const struct rn_assertion_spec *, struct rn_target_result *,
 *             struct rn_verdict_result *): judges the runs into the verdict that
 *             rn_assertion_evaluate began (name, target, SKIP and ERROR already handled)
 *   gaps      uint32_t gaps(const struct rn_assertion_spec *, const struct rn_target_result *,
 *             bool *count_bound): the gap scopes its metric reads (enum rn_gap_scope), and
 *             whether a loss could only have raised it (assertions/gaps.c); rn_gaps_none
 *             for a metric no known data loss touches
 *   keys      the renacer.toml keys it accepts beyond the common ones, space-separated, in
 *             the order of docs/metrics.md's keys column ("" = none)
 *   help      one line: what it judges (`renacer help tables`, the man page)
 * From it: the enum, rn_assertion_types[] (assertions/assertion_types.c: names, the
 * dispatch of rn_assertion_evaluate), the declarations of the row's functions
 * (internal.h), the config parser's accepted types and keys, the `type` key's doc,
 * `renacer help tables` and the check of docs/metrics.md's table. A new type is one row here
 * and one file with its evaluate function (docs/layout.md, "Adding an assertion type").
 */
#define RN_ASSERTION_TYPES(X)                                                                      \
	X(CRITICAL_PATH, "critical_path", rn_critical_path_evaluate, rn_gaps_gpu_spans,            \
	  "max_duration_ms trace_name_pattern",                                                    \
	  "the longest chain of dependent work of the process tree, against a time budget")        \
	X(SPAN_COUNT, "span_count", rn_span_count_evaluate, rn_gaps_span_count,                    \
	  "max_spans span_name_pattern region_pattern",                                            \
	  "spans whose name matches a pattern, counted per counting run, against a budget")        \
	X(MEMORY_USAGE, "memory_usage", rn_memory_usage_evaluate, rn_gaps_none,                    \
	  "max_bytes tracking_mode",                                                               \
	  "the tree's peak resident set or anonymous allocations, against a budget in bytes")      \
	X(ANTI_PATTERN, "anti_pattern", rn_anti_pattern_evaluate, rn_gaps_anti_pattern,            \
	  "pattern threshold process_name_pattern region_pattern",                                 \
	  "a detector's confidence that the run shows a known performance anti-pattern")           \
	X(EQUIVALENCE, "equivalence", rn_equiv_evaluate, rn_gaps_equivalence, "golden",            \
	  "the run's observable behaviour against a recorded trace")                               \
	X(INSTRUCTIONS, "instructions", rn_instructions_evaluate, rn_gaps_instructions,            \
	  "max_instructions tolerance",                                                            \
	  "instructions the tree executed under Valgrind, against a budget")                       \
	X(SPAN_TIME, "span_time", rn_span_time_evaluate, rn_gaps_span_time,                        \
	  "span_name_pattern region_pattern stat max_ms min_ms threshold_ms max_spans "            \
	  "max_time_ms min_time_ms tolerance",                                                     \
	  "a statistic of the matching spans' durations, against a budget and a floor")            \
	X(WITNESS, "witness", rn_witness_evaluate, rn_gaps_span_detail,                            \
	  "span_name_pattern witness_pattern tolerance",                                           \
	  "the program's reported span durations against what the kernel saw of the same work")

enum rn_assertion_type {
#define RN_ASSERTION_TYPE_ENUM(id, name, evaluate, gaps, keys, help) RN_ASSERT_##id,
	RN_ASSERTION_TYPES(RN_ASSERTION_TYPE_ENUM)
#undef RN_ASSERTION_TYPE_ENUM
	RN_ASSERT_COUNT
};

struct rn_assertion_spec;

/* One row of RN_ASSERTION_TYPES (the columns are described there). */
struct rn_assertion_type_info {
	const char *name; /* "critical_path" */
	void (*evaluate)(const struct rn_assertion_spec *a, struct rn_target_result *r,
			 struct rn_verdict_result *out); /* judges; `out` begun */
	uint32_t (*gaps)(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			 bool *count_bound); /* gap scopes its metric reads */
	const char *keys;                    /* its own keys, space-separated, static */
	const char *help;                    /* one line, static */
};

/* The rows of RN_ASSERTION_TYPES, indexed by enum rn_assertion_type [RN_ASSERT_COUNT]. */
extern const struct rn_assertion_type_info rn_assertion_types[];

/* The type named `name`, or -1. */
int rn_assertion_type_lookup(const char *name);
/* Whether `key` is one of type `t`'s own keys (its row's `keys`). */
bool rn_assertion_type_has_key(enum rn_assertion_type t, const char *key);
/* Whether `key` is the own key of some type (not a key every type accepts). */
bool rn_assertion_key_is_specific(const char *key);

/* The types' names joined by " | " ("critical_path | span_count | ..."), static: the doc
 * of the `type` key (string literals joined, the first separator skipped). */
#define RN_ASSERTION_TYPE_PIPE(id, name, evaluate, gaps, keys, help) " | " name
#define RN_ASSERTION_TYPE_CHOICES ("" RN_ASSERTION_TYPES(RN_ASSERTION_TYPE_PIPE) + 3)

/*
 * What span_time judges of the durations of the matching spans: X(id, name, doc). One table
 * feeds the enum, the `stat` key's parser, `renacer help config` and the docs.
 */
#define RN_SPAN_STATS(X)                                                                           \
	X(TOTAL, "total", "sum of the durations")                                                  \
	X(P50, "p50", "median duration (nearest rank)")                                            \
	X(P95, "p95", "95th percentile duration (nearest rank)")                                   \
	X(MAX, "max", "longest span (the default)")                                                \
	X(MIN, "min", "shortest span")                                                             \
	X(SELF, "self",                                                                            \
	  "longest self time: a span's duration minus its direct children's (app spans)")          \
	X(CPU, "cpu",                                                                              \
	  "longest own CPU time: the thread's CPU time from push to pop (renacer_span.h spans)")   \
	X(COUNT_ABOVE, "count_above", "spans longer than threshold_ms, against max_spans")

enum rn_span_stat {
#define RN_SPAN_STAT_ENUM(id, name, doc) RN_SPAN_STAT_##id,
	RN_SPAN_STATS(RN_SPAN_STAT_ENUM)
#undef RN_SPAN_STAT_ENUM
	RN_SPAN_STAT_COUNT
};

/* memory_usage tracking modes (enum rn_tracking_mode). */
enum rn_tracking_mode {
	RN_TRACK_RSS = 0,     /* "rss": peak resident set of the tree (metric peak_rss) */
	RN_TRACK_ALLOCATIONS, /* "allocations": peak anonymous mapped bytes (metric alloc_peak) */
};

struct rn_equiv_opts; /* assertions/equivalence.h */

/* One [[assertion]] of renacer.toml, validated. Owned by the config; regexes compiled. */
struct rn_assertion_spec {
	char *name;                  /* unique name */
	enum rn_assertion_type type; /* what it judges */
	int line;                    /* line of the [[assertion]] header in renacer.toml */
	int col;                     /* column of the header */
	bool enabled;                /* false: reported as SKIP */
	bool fail_on_violation;      /* false: a violation is WARN, not FAIL */
	enum rn_aggregate aggregate; /* aggregation of samples over runs */
	char **targets;              /* target names it applies to, NULL-terminated; NULL = all */
	char *trace_name_pattern;    /* critical_path: targets whose name fully matches, or NULL */
	const struct rn_regex *trace_re; /* compiled trace_name_pattern, or NULL;
				     * borrowed from the config's regex pool */
	uint64_t max_duration_ns;        /* critical_path budget, ns (max_duration_ms * 1e6) */
	bool has_drift_limit;            /* drift_limit was set (else RN_REGRESSION_DRIFT_LIMIT) */
	double drift_limit;              /* critical_path: over the budget by at most this fraction
					  * on a loaded machine is advisory ([regression]
					  * drift_limit, set after parsing) */
	char *span_name_pattern;         /* span_count: pattern over span names, full match */
	const struct rn_regex *span_re;  /* compiled span_name_pattern, borrowed */
	char *region_pattern;            /* span_count, anti_pattern: only GPU spans whose innermost
				      * region (NVTX range, debug-utils label) fully matches this
				      * pattern; NULL = no region filter */
	const struct rn_regex *region_re;    /* compiled region_pattern, or NULL, borrowed */
	uint64_t max_spans;                  /* span_count budget */
	uint64_t max_bytes;                  /* memory_usage budget, bytes */
	enum rn_tracking_mode tracking_mode; /* memory_usage mode */
	char *pattern;                       /* anti_pattern: canonical detector name */
	double threshold;                  /* anti_pattern: minimum confidence that counts, [0,1] */
	char *process_name_pattern;        /* anti_pattern: processes considered, or NULL = all */
	const struct rn_regex *process_re; /* compiled process_name_pattern, or NULL,
				     * borrowed */
	char *golden;     /* equivalence: absolute path of the recorded trace the run
				      * is compared with, or NULL to use golden_dir */
	char *golden_dir; /* equivalence without golden: folder of <target>.jsonl (or
				      * .json) recorded traces, absolute, or NULL */
	const struct rn_equiv_opts *equiv; /* equivalence: [semantic_equivalence] options,
				      * borrowed from the config; NULL for the defaults */
	uint64_t max_instructions;         /* instructions: budget, count (inclusive) */
	double tolerance;                  /* instructions: fraction over the budget still passing
				      * (default 0: the count is deterministic; at most 0.05);
				      * witness: allowed deviation (default 0.2); span_time:
				      * growth over the base's that fails (default 0.1) */
	enum rn_span_stat span_stat;       /* span_time: the statistic judged (default max) */
	bool has_max_span;                 /* span_time: max_span_ns is a budget */
	uint64_t max_span_ns;              /* span_time: the statistic <= this, ns (max_ms, or the
				      * original format's max_time_ms with stat max) */
	bool has_min_span;                 /* span_time: min_span_ns is a floor */
	uint64_t min_span_ns;              /* span_time: the statistic >= this, ns (min_ms) */
	bool has_min_each;                 /* span_time: min_each_ns is a floor */
	uint64_t min_each_ns;              /* span_time: the shortest span >= this, ns (the
				      * original format's min_time_ms) */
	uint64_t threshold_ns;             /* span_time count_above: a span longer than this
				      * counts, ns (threshold_ms); the budget is max_spans */
	char *witness_pattern;             /* witness: syscalls that end the work as the kernel
				      * sees it (a pattern, full match), owned */
	const struct rn_regex *witness_re; /* compiled witness_pattern, borrowed */
};

/* True when assertion `a` applies to the target named `target` (targets list and
 * trace_name_pattern both honored). */
bool rn_assertion_applies(const struct rn_assertion_spec *a, const char *target);

/*
 * Evaluate `a` on the runs of one target. Always fills *out (caller releases): SKIP for
 * disabled assertions, ERROR when the target did not run cleanly, NO DATA when the metric has no
 * data, else PASS/FAIL/WARN with observed, budget, message and detail.
 */
void rn_assertion_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			   struct rn_verdict_result *out);

/*
 * Known data loss against a verdict (assertions/gaps.c). `v` was judged on r's runs; the gaps
 * of r->gaps whose scope is in `scopes` (enum rn_gap_scope) left its data incomplete. A PASS
 * cannot stand as if the data were whole:
 *   - a count that lost items could only have raised (`count_bound`, with a budget) stays
 *     PASS when the observed value plus every lost item still fits the budget;
 *   - such a count becomes NO DATA when the losses could reach the budget (or how many were
 *     lost is unknown): the pass is not proven;
 *   - any other metric (a time, a detection, behaviour) becomes WARN.
 * The verdict's message gets each gap (source, kind, count, reason) and a changed verdict
 * gets `reason`. Other verdicts are kept, with the gaps in their message. No-op without a
 * matching gap.
 */
void rn_verdict_apply_gaps(const struct rn_target_result *r, uint32_t scopes, bool count_bound,
			   struct rn_verdict_result *v);

/* Fold the gaps of trace `t` (one measured run) into r->gaps, as described there. */
void rn_target_result_add_gaps(struct rn_target_result *r, const struct rn_trace *t);

/* Longest span name kept in a span_count top list, bytes including the NUL. */
#define RN_SPAN_NAME_MAX 160

/*
 * The durations of the spans of trace `t` whose names fully match `re`, as
 * span_count names them: syscall spans by syscall name (from the spool, one per completed
 * call; without a spool, only their per-syscall total and max are known), "gpu:<name>",
 * "region:<name>", "graph:<id>" and the program's own "app:<name>" spans. With `region_re`
 * (or NULL) only GPU spans whose innermost region, and app spans whose parent app
 * span (or whose NVTX region), fully match it are kept; syscalls have no region and are left
 * out. Used by span_time (assertions/span_time.c).
 */
struct rn_span_times {
	uint64_t *ns;                    /* durations of the spans seen one by one [n], ns, sorted
				  * ascending, owned */
	size_t n;                        /* spans in `ns` */
	uint64_t agg_calls;              /* syscall spans known only by their per-syscall stats
				  * (no spool): counted here, not in `ns` */
	uint64_t agg_total_ns;           /* their summed durations, ns */
	uint64_t agg_max_ns;             /* the longest of them, ns */
	uint64_t agg_min_ns;             /* the shortest of them, ns (UINT64_MAX when none) */
	bool syscalls_matched;           /* the pattern fully matches at least one syscall name */
	size_t nsyscall;                 /* of `n` and agg_calls, syscall spans */
	size_t ngpu;                     /* of `n`, GPU, region and graph spans */
	size_t napp;                     /* of `n`, app spans */
	size_t nno_cpu;                  /* stat "cpu": matching spans left out of `n` for having
				  * no CPU time (GPU, OTLP, renacer_span_record() spans, and
				  * records without the CPU clock) */
	char top_name[RN_SPAN_NAME_MAX]; /* name of the longest span seen ("" when none) */
	uint64_t top_ns;                 /* its duration, ns */
};

/*
 * Anti-pattern detection (assertions/antipattern.c, one detector per file in
 * assertions/antipattern/). Detectors read only the trace model:
 * the per-process statistics, the process tree, the GPU spans, and the spool (every syscall
 * span) when it was enabled for the run.
 */
struct rn_detection {
	char *pattern;        /* canonical detector name ("TightLoop"), owned */
	double confidence;    /* in [0,1], formula documented per detector */
	int proc;             /* index of the process in the trace, -1 for the whole tree */
	char *evidence;       /* multi-line evidence (process, syscall run, files, share of time) */
	char *recommendation; /* one line */
	bool no_data;         /* the detector lacked the data it needs (e.g. no GPU spans); then
			       * evidence is one line saying what was missing */
	char *summary;        /* one line: what was found ("not detected", "no data" if nothing),
			       * owned */
};

/* Names of all detectors, NULL-terminated (canonical spellings). */
extern const char *const rn_antipattern_names[];
/* Canonical name for a user spelling ("PCIeBottleneck" -> "PcieBottleneck"), or NULL. */
const char *rn_antipattern_canonical(const char *name);

/*
 * Print every detection with confidence >= min_confidence to `out` (for
 * `renacer trace --anti-patterns`): a block per detection (pattern, confidence, summary,
 * evidence, recommendation), then one line naming the detectors below the threshold and the
 * ones that had no data. Returns the number of detections printed, or negative errno.
 */
int rn_antipattern_report_all(struct rn_trace *t, const struct rn_regex *process_re,
			      double min_confidence, FILE *out);

#endif
