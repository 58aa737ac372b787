/*
 * config.h - renacer.toml: the schema, its validation and its diagnostics.
 *
 * The schema is the renacer DSL existing users write ([[assertion]] tables), extended with
 * [[target]] so `check` can run programs itself, plus [golden], [report], [otlp] and
 * [regression]. Every key of every table is one row of an X-macro table below, from which the
 * validator, the did-you-mean suggestions, `renacer help config` and the docs are derived.
 *
 * Errors are located (file:line:col) through struct rn_diag and make `renacer` exit with
 * RN_EXIT_CONFIG (3). Unknown top-level tables (written for other renacer versions) are
 * warnings, unknown keys inside known tables are errors.
 */
#ifndef RN_CONFIG_H
#define RN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "assertion.h"
#include "collector.h"
#include "diag.h"
#include "equivalence.h"
#include "golden.h"
#include "strmap.h"
#include "toml.h"

/*
 * The text of a default in a key's doc: "(default " RN_CFG_STR(RN_REGRESSION_MAX_RUNS) ")" reads
 * "(default 60)" from the macro the code assigns, so each default is typed once. The macro must
 * expand to a plain literal (60, 0.10), never an expression.
 */
#define RN_CFG_STR_(x) #x
#define RN_CFG_STR(x) RN_CFG_STR_(x)

/* Defaults and limits of [[target]] (rn_cfg_target_defaults, config_target.c). */
#define RN_TARGET_TIMEOUT_S 300         /* timeout_s, s */
#define RN_TARGET_RUNS 1                /* runs */
#define RN_TARGET_RUNS_MAX 1000         /* runs: the most accepted */
#define RN_TARGET_COUNTING_RUNS 1       /* counting_runs */
#define RN_TARGET_COUNTING_RUNS_MAX 100 /* counting_runs: the most accepted */
#define RN_TARGET_MAX_PROCESSES 10000   /* max_processes */

/* Defaults of [[assertion]] (config_assertion.c). */
#define RN_ASSERT_THRESHOLD 0.8           /* anti_pattern threshold, confidence 0..1 */
#define RN_ASSERT_WITNESS_TOLERANCE 0.2   /* witness tolerance, fraction */
#define RN_ASSERT_SPAN_TIME_TOLERANCE 0.1 /* span_time tolerance under --baseline, fraction */

/* Defaults of [otlp] and [history] (report/otlp_config.c, history/history.c). */
#define RN_OTLP_DEFAULT_TIMEOUT_MS 10000 /* timeout_ms: the whole export, ms */
#define RN_HISTORY_BUSY_TIMEOUT_MS 30000 /* busy_timeout_ms: SQLite writers' wait, ms */

/* Defaults of [profile] (config.c). */
#define RN_PROFILE_FREQUENCY_HZ 999 /* frequency_hz, samples per second of CPU time */
#define RN_PROFILE_MAX_STACKS 5000  /* max_stacks */
#define RN_PROFILE_TOP 5            /* top */
#define RN_PROFILE_RUNS 3           /* runs, profiled runs a side */

/* X(key, type, doc) for [[target]]. `type` is a word used in messages. */
#define RN_TARGET_KEYS(X)                                                                            \
	X(name, "string", "unique name, [A-Za-z0-9_.-]+")                                            \
	X(command, "array of strings", "argv, no shell; argv[0] is searched in PATH")                \
	X(shell, "boolean", "run command[0] through /bin/sh -c (default false)")                     \
	X(cwd, "string", "working directory, relative to renacer.toml (default: its directory)")     \
	X(env, "table of strings", "variables added to the inherited environment")                   \
	X(fixed_hash_seed, "boolean",                                                                \
	  "hold PYTHONHASHSEED, PERL_HASH_SEED and PERL_PERTURB_KEYS at 0 in every run unless env "  \
	  "sets them (default true: equal hash order on both sides)")                                \
	X(timeout_s, "number",                                                                       \
	  "wall-clock limit of one run in seconds (default " RN_CFG_STR(RN_TARGET_TIMEOUT_S) ")")    \
	X(expect_exit, "integer", "exit status of a clean run (default 0; -1 accepts any)")          \
	X(runs, "integer",                                                                           \
	  "measured timing runs (default " RN_CFG_STR(RN_TARGET_RUNS) ", at most " RN_CFG_STR(       \
		  RN_TARGET_RUNS_MAX) ")")                                                           \
	X(counting_runs, "integer",                                                                  \
	  "runs with syscall stops for counts (default " RN_CFG_STR(                                 \
		  RN_TARGET_COUNTING_RUNS) ", at most " RN_CFG_STR(RN_TARGET_COUNTING_RUNS_MAX) ")") \
	X(warmup, "integer", "unmeasured runs first (default 0)")                                    \
	X(shard_weight, "number",                                                                    \
	  "expected cost in seconds for --shard balancing (default: unweighted)")                    \
	X(baseline_tolerance, "number",                                                              \
	  "check --baseline: slowdown of head over base that fails, fraction of the base median "    \
	  "(default: the check's; --baseline-tolerance overrides; calibrate --write derives it)")    \
	X(time_budget_s, "number",                                                                   \
	  "adaptive repeats of this target: no new look after this many seconds of its timing runs " \
	  "(default: [regression] time_budget_s; 0 = no limit)")                                     \
	X(collectors, "array of strings",                                                            \
	  "any of" RN_TARGET_COLLECTORS(                                                             \
		  RN_COLLECTOR_QUOTED) " (default [\"ptrace\"]; ebpf is chosen by `driver`)")        \
	X(gpu_timing, "string", "\"cmdbuf\" (default), \"submit\" or \"dispatch\" (serializes)")     \
	X(stdout, "string", "\"inherit\", \"null\" (default) or \"capture\"")                        \
	X(stderr, "string", "\"inherit\" (default), \"null\" or \"capture\"")                        \
	X(max_processes, "integer",                                                                  \
	  "kill the run when more processes are born (default " RN_CFG_STR(                          \
		  RN_TARGET_MAX_PROCESSES) ")")                                                      \
	X(max_memory_bytes, "integer", "RLIMIT_AS of each process in bytes (default unlimited)")     \
	X(driver, "string", "\"ptrace\" (default), \"ebpf\" (count in the kernel) or \"auto\"")      \
	X(region_scope, "string",                                                                    \
	  "cuda: a region holds the GPU work the whole \"process\" launched while it was open "      \
	  "(default) or only its own \"thread\"'s")                                                  \
	X(clean_timing, "boolean",                                                                   \
	  "cuda: each timing run is two executions, its times from one without the CUPTI library "   \
	  "and its GPU spans from one with it (default true; false: one, with it)")                  \
	X(instructions, "boolean",                                                                   \
	  "count instructions under Valgrind in one more run (default: "                             \
	  "when an instructions assertion applies)")                                                 \
	X(build, "string",                                                                           \
	  "shell command that builds the target, run in cwd by check --build (the "                  \
	  "renacer-check-code pre-commit hook) before its runs")                                     \
	X(inject, "array of strings",                                                                \
	  "strace --inject rules applied in every run: \"fsync:delay_exit=10ms\", "                  \
	  "\"connect:error=ECONNREFUSED:when=1\" (ptrace driver)")                                   \
	X(profile, "boolean",                                                                        \
	  "explain a failing timing row with profiles ([profile]; default: [profile] on_failure)")   \
	X(harness, "string", RN_HARNESS_KEY_DOC)                                                     \
	X(benchmarks, "array of strings",                                                            \
	  "the benchmarks or tests to run (default: the harness's own list; hyperfine: "             \
	  "the commands)")                                                                           \
	X(pattern, "string", "harness, [[suite]]: names kept, full match (regex; default all)")      \
	X(pairs, "string",                                                                           \
	  "--baseline: \"duet\" or \"sequential\" timing pairs for this target (default: "           \
	  "[regression] pairs)")

/*
 * X(id, name, suite, doc) for the harnesses a [[target]] (`suite` false) or a [[suite]]
 * (`suite` true) names with `harness`: check expands such a table into one target per
 * benchmark or test (runner/check/harness.h, docs/harness.md). NONE is the plain target.
 */
#define RN_HARNESSES(X)                                                                            \
	X(NONE, "none", false, "a plain target: the process's own times")                          \
	X(GOOGLE_BENCHMARK, "google-benchmark", false,                                             \
	  "a Google Benchmark program: --benchmark_format=json, one repetition's "                 \
	  "real_time and cpu_time per iteration")                                                  \
	X(PYTEST_BENCHMARK, "pytest-benchmark", false,                                             \
	  "pytest with pytest-benchmark: --benchmark-json, the median of stats.data")              \
	X(GO_TEST_BENCH, "go-test-bench", false,                                                   \
	  "go test -bench: ns/op of its output line; a compiled test binary at "                   \
	  "-test.benchtime Nx: also the process's CPU time over its N + 1 iterations")             \
	X(HYPERFINE, "hyperfine", false, "hyperfine --export-json: the median of `times`")         \
	X(CRITERION, "criterion", false,                                                           \
	  "cargo bench with criterion: target/criterion/<name>/new/sample.json, "                  \
	  "the median of times/iters")                                                             \
	X(CTEST, "ctest", true, "ctest --show-only=json-v1: each test's own command")              \
	X(PYTEST, "pytest", true, "pytest --collect-only -q: each test id")                        \
	X(GO_TEST, "go-test", true, "go test -list: each Test function, -run '^Name$'")

/* enum rn_harness: RN_HARNESS_<id> of RN_HARNESSES. */
enum rn_harness {
#define RN_HARNESS_ENUM(id, name, suite, doc) RN_HARNESS_##id,
	RN_HARNESSES(RN_HARNESS_ENUM)
#undef RN_HARNESS_ENUM
	RN_HARNESS_COUNT
};

/* The harness names of RN_HARNESSES in enum order, NULL-terminated. */
extern const char *const rn_harness_names[];
/* Whether harness `h` is a test runner (a [[suite]]'s) rather than a benchmark harness. */
bool rn_harness_is_suite(enum rn_harness h);

/* ` "name"` of a harness, for the `harness` key's doc (X of RN_HARNESSES). */
#define RN_HARNESS_QUOTED(id, name, suite, doc) " \"" name "\""
/* The `harness` key's doc. */
#define RN_HARNESS_KEY_DOC                                                                         \
	"one of" RN_HARNESSES(                                                                     \
		RN_HARNESS_QUOTED) ": [[target]]: the benchmark harness `command` "                \
				   "runs, one target per benchmark; [[suite]]: the "               \
				   "test runner, one target per test (docs/harness.md)"

/* ` "name"` of a collector, for the `collectors` key's doc (X of RN_TARGET_COLLECTORS). */
#define RN_COLLECTOR_QUOTED(name, id, desc) " \"" #name "\""

/* X(key, type, doc) for [[assertion]]. */
#define RN_ASSERTION_KEYS(X)                                                                                                                                                       \
	X(name, "string", "unique name")                                                                                                                                           \
	X(type, "string", RN_ASSERTION_TYPE_CHOICES)                                                                                                                               \
	X(max_duration_ms, "number", "critical_path: budget in milliseconds (inclusive)")                                                                                          \
	X(trace_name_pattern, "string", "critical_path: targets whose name fully matches (regex)")                                                                                 \
	X(max_spans, "integer",                                                                                                                                                    \
	  "span_count: budget in spans (inclusive); span_time count_above: budget (default 0)")                                                                                    \
	X(span_name_pattern, "string",                                                                                                                                             \
	  "span_count, span_time: span names, full match (regex; default every span)")                                                                                             \
	X(region_pattern, "string",                                                                                                                                                \
	  "span_count, span_time, anti_pattern: only GPU spans whose innermost region (NVTX range, Vulkan debug label), and app spans whose parent app span, fully match (regex)") \
	X(stat, "string",                                                                                                                                                          \
	  "span_time: \"total\", \"p50\", \"p95\", \"max\" (default), \"min\", \"self\" (the longest self time: an app span's duration minus its direct children's), "             \
	  "\"cpu\" (the longest own CPU time of a `renacer_span.h` span, push to pop, instead of its duration; spans without one are NOT JUDGED) "                                 \
	  "or \"count_above\" of the spans' durations, per counting run (the median of the runs is judged)")                                                                       \
	X(max_ms, "number", "span_time: the stat's budget in milliseconds (inclusive)")                                                                                            \
	X(min_ms, "number", "span_time: the stat's floor in milliseconds (inclusive)")                                                                                             \
	X(threshold_ms, "number",                                                                                                                                                  \
	  "span_time count_above: spans longer than this count, milliseconds")                                                                                                     \
	X(max_time_ms, "number",                                                                                                                                                   \
	  "span_time: the original format's per-name budget: the longest span, milliseconds")                                                                                      \
	X(min_time_ms, "number",                                                                                                                                                   \
	  "span_time: the original format's per-name floor: the shortest span, milliseconds")                                                                                      \
	X(max_bytes, "integer", "memory_usage: budget in bytes (inclusive)")                                                                                                       \
	X(tracking_mode, "string", "memory_usage: \"rss\" (default) or \"allocations\"")                                                                                           \
	X(pattern, "string", "anti_pattern: detector name")                                                                                                                        \
	X(threshold, "number",                                                                                                                                                     \
	  "anti_pattern: minimum confidence that counts, 0..1 (default " RN_CFG_STR(                                                                                               \
		  RN_ASSERT_THRESHOLD) ")")                                                                                                                                        \
	X(process_name_pattern, "string", "anti_pattern: processes considered (regex)")                                                                                            \
	X(golden, "string",                                                                                                                                                        \
	  "equivalence: recorded trace (renacer trace -f --format jsonl) the run must behave like")                                                                                \
	X(max_instructions, "integer", "instructions: budget in instructions (inclusive)")                                                                                         \
	X(tolerance, "number",                                                                                                                                                     \
	  "instructions: fraction over the budget that passes, 0..0.05 (default 0); witness: allowed deviation of a reported span from the kernel's, fraction "                    \
	  "(default " RN_CFG_STR(RN_ASSERT_WITNESS_TOLERANCE) "); span_time: under --baseline, the growth over the base's median that fails, fraction (default " RN_CFG_STR(       \
		  RN_ASSERT_SPAN_TIME_TOLERANCE) ")")                                                                                                                              \
	X(witness_pattern, "string",                                                                                                                                               \
	  "witness: syscalls that end a span's work as the kernel sees it (regex; default the write and send family)")                                                             \
	X(aggregate, "string", "\"median\" (default), \"min\", \"p95\" or \"max\" over runs")                                                                                      \
	X(targets, "array of strings", "targets it applies to (default: all)")                                                                                                     \
	X(fail_on_violation, "boolean", "false reports a violation as WARN (default true)")                                                                                        \
	X(enabled, "boolean", "false reports SKIP (default true)")

/* X(key, type, doc) for [golden]. */
#define RN_GOLDEN_KEYS(X)                                                                          \
	X(dir, "string", "directory of golden traces (default golden_traces)")                     \
	X(runs, "integer",                                                                         \
	  "runs `golden update` records at least (default " RN_CFG_STR(                            \
		  RN_GOLDEN_RUNS_DEFAULT) "; a target's "                                          \
					  "larger runs wins)")                                     \
	X(metrics, "array of strings",                                                             \
	  "golden comparisons made (default all: syscalls, "                                       \
	  "syscall_counts, processes, cpu_time, wall_time, critical_path, "                        \
	  "peak_rss, alloc_peak, gpu_busy, gpu_dispatches, "                                       \
	  "gpu_copy_bytes, instructions, span_time, span_cpu); the others "                        \
	  "are SKIP")                                                                              \
	X(tolerances, "table of numbers",                                                          \
	  "per-comparison tolerance, fraction ([golden."                                           \
	  "tolerances] wall_time = 0.5), replacing "                                               \
	  "count/timing/memory/instructions_tolerance for that one")

/* X(key, type, doc) for [report]. */
#define RN_REPORT_KEYS(X)                                                                          \
	X(junit, "string", "JUnit XML output path")                                                \
	X(trace_out, "string",                                                                     \
	  "Perfetto/Chrome trace-event JSON output path (each target's last measured run)")        \
	X(otlp_file, "string", "OTLP JSON Lines output path")                                      \
	X(redact, "array of strings",                                                              \
	  "secret-name words: values of flags and KEY=VALUE argv "                                 \
	  "words whose name contains one are redacted in exports "                                 \
	  "and golden traces (default token, secret, password, passwd, key)")

/* X(key, type, doc) for [otlp]. */
#define RN_OTLP_KEYS(X)                                                                            \
	X(enabled, "boolean", "export the check as an OTLP trace (default false)")                 \
	X(endpoint, "string", "base URL; /v1/traces is appended")                                  \
	X(protocol, "string", "\"http/protobuf\" (default) or \"http/json\"")                      \
	X(service_name, "string", "service.name of the resource (default renacer)")                \
	X(headers, "table of strings", "HTTP headers (never printed)")                             \
	X(timeout_ms, "integer",                                                                   \
	  "total export time limit in ms (default " RN_CFG_STR(RN_OTLP_DEFAULT_TIMEOUT_MS) ")")    \
	X(compression, "string", "\"gzip\" or \"none\" (default)")                                 \
	X(required, "boolean", "an export failure fails the check (default false)")                \
	X(syscall_spans, "string", "\"aggregate\" (default), \"all\" or \"threshold\"")            \
	X(syscall_threshold_us, "integer", "with \"threshold\": minimum span duration in us")

/* X(key, type, doc) for [regression]. */
#define RN_REGRESSION_KEYS(X)                                                                                                                                                                                   \
	X(enabled, "boolean", "compare with golden traces (default true)")                                                                                                                                      \
	X(count_tolerance, "number",                                                                                                                                                                            \
	  "allowed growth of syscall counts, fraction (default " RN_CFG_STR(                                                                                                                                    \
		  RN_REGRESSION_COUNT_TOLERANCE) ")")                                                                                                                                                           \
	X(count_floor, "integer",                                                                                                                                                                               \
	  "growth in calls always allowed (default " RN_CFG_STR(RN_REGRESSION_COUNT_FLOOR) ")")                                                                                                                 \
	X(timing_tolerance, "number",                                                                                                                                                                           \
	  "allowed slowdown, fraction (default " RN_CFG_STR(RN_REGRESSION_TIMING_TOLERANCE) ")")                                                                                                                \
	X(memory_tolerance, "number",                                                                                                                                                                           \
	  "allowed memory growth, fraction (default " RN_CFG_STR(                                                                                                                                               \
		  RN_REGRESSION_MEMORY_TOLERANCE) ")")                                                                                                                                                          \
	X(memory_floor_bytes, "integer",                                                                                                                                                                        \
	  "memory growth always allowed, bytes (default " RN_CFG_STR(                                                                                                                                           \
		  RN_REGRESSION_MEMORY_FLOOR_BYTES) ")")                                                                                                                                                        \
	X(alpha, "number",                                                                                                                                                                                      \
	  "significance level of the rank test (default " RN_CFG_STR(RN_REGRESSION_ALPHA) ")")                                                                                                                  \
	X(timing, "boolean",                                                                                                                                                                                    \
	  "judge timing metrics; false: the time rows of golden traces and of --baseline are SKIP (default true)")                                                                                              \
	X(min_runs_for_timing, "integer",                                                                                                                                                                       \
	  "runs needed on both sides to judge timing (default " RN_CFG_STR(                                                                                                                                     \
		  RN_REGRESSION_MIN_RUNS_FOR_TIMING) ")")                                                                                                                                                       \
	X(max_runs, "integer",                                                                                                                                                                                  \
	  "adaptive repeats: most timing runs (pairs with --baseline) an undecided timing row gets (default " RN_CFG_STR(                                                                                       \
		  RN_REGRESSION_MAX_RUNS) ")")                                                                                                                                                                  \
	X(drift_limit, "number",                                                                                                                                                                                \
	  "timing against a golden recorded under other conditions fails only beyond this shift, fraction (default " RN_CFG_STR(                                                                                \
		  RN_REGRESSION_DRIFT_LIMIT) ")")                                                                                                                                                               \
	X(timing_guard, "boolean",                                                                                                                                                                              \
	  "timing runs carry the guard that keeps renacer out of the target's reach (a Landlock domain on Linux 6.12+, else a seccomp filter); false: none (default true)")                                     \
	X(pin, "boolean",                                                                                                                                                                                       \
	  "same-job baseline: both sides run in one placement, one CPU for a target of one process and one thread, the highest 4 CPUs (at most half) for a parallel one where >= 4 are allowed (default true)") \
	X(pairs, "string",                                                                                                                                                                                      \
	  "same-job baseline: \"duet\" runs base and head of a pair at the same moment on two CPUs, swapped every pair; \"sequential\" one after the other on one CPU (default sequential)")                    \
	X(time_budget_s, "number",                                                                                                                                                                              \
	  "adaptive repeats: a target's timing runs stop within this long (a look that would run past it is cut), seconds (default " RN_CFG_STR(                                                                \
		  RN_REGRESSION_TIME_BUDGET_S) "; 0 = no limit; a [[target]]'s time_budget_s overrides it)")                                                                                                    \
	X(load_guard, "boolean",                                                                                                                                                                                \
	  "accepted from older configs, no effect: the recording conditions (speed probe, machine, load) decide (default true)")                                                                                \
	X(instructions_tolerance, "number",                                                                                                                                                                     \
	  "allowed growth of the instruction count, fraction (default " RN_CFG_STR(                                                                                                                             \
		  RN_REGRESSION_INSTRUCTIONS_TOLERANCE) ")")                                                                                                                                                    \
	X(not_judged, "string",                                                                                                                                                                                 \
	  "\"warn\" (default: NOT JUDGED does not block) or \"fail\" (it blocks, exit 1)")

/* Runs `golden update` records at least unless [golden] runs says otherwise: enough for the
 * rank test at alpha 0.01 against 5 measured runs, and for the golden's noise to be measured. */
#define RN_GOLDEN_RUNS_DEFAULT 10

/* X(key, type, doc) for [semantic_equivalence] (the original renacer's enabled, baseline_dir
 * and min_confidence, with the meaning of assertions/equivalence.h). */
#define RN_SEMANTIC_KEYS(X)                                                                                              \
	X(enabled, "boolean", "judge equivalence assertions and the baseline (default true)")                            \
	X(baseline_dir, "string",                                                                                        \
	  "folder of recorded traces <target>.jsonl: every target is compared with its own")                             \
	X(min_confidence, "number",                                                                                      \
	  "similarity 0..1 from which differences in opened files and I/O sequences are tolerated (default " RN_CFG_STR( \
		  RN_EQUIV_MIN_CONFIDENCE) ": none)")                                                                    \
	X(normalize, "array of strings", "any of \"tmp\", \"pids\", \"numbers\" (default all)")                          \
	X(ignore_paths, "array of strings", "fnmatch patterns of paths whose facts are dropped")                         \
	X(keep_system, "boolean", "keep the loader's files and /proc, /sys, /dev (default false)")                       \
	X(python_trace_dir, "string", "original renacer format: accepted, no effect")                                    \
	X(rust_trace_dir, "string", "original renacer format: accepted, no effect")                                      \
	X(check_write_patterns, "boolean",                                                                               \
	  "original renacer format: accepted, no effect (writes are always compared)")                                   \
	X(check_file_operations, "boolean",                                                                              \
	  "original renacer format: accepted, no effect (file operations are always compared)")                          \
	X(check_output_correctness, "boolean", "original renacer format: accepted, no effect")                           \
	X(check_memory_allocations, "boolean", "original renacer format: accepted, no effect")                           \
	X(expected_speedup_min, "number",                                                                                \
	  "original renacer format: accepted, no effect (use a baseline or golden timing)")                              \
	X(expected_speedup_max, "number", "original renacer format: accepted, no effect")                                \
	X(expected_memory_reduction_min, "number", "original renacer format: accepted, no effect")
/* X(key, type, doc) for [history] (runner/history/history.h). */
#define RN_HISTORY_KEYS(X)                                                                                               \
	X(enabled, "boolean",                                                                                            \
	  "record every check in the history store (default true when [history] is present)")                            \
	X(url, "string",                                                                                                 \
	  "store: a SQLite path (default .renacer/history.db) or postgresql://... URI")                                  \
	X(busy_timeout_ms, "integer",                                                                                    \
	  "how long a store operation may wait, ms (default " RN_CFG_STR(                                                \
		  RN_HISTORY_BUSY_TIMEOUT_MS) "): SQLite's lock wait; "                                                  \
					      "PostgreSQL's statement and lock timeout (the client gives up 2 s later)") \
	X(machine, "string",                                                                                             \
	  "machine name recorded with each run (default: a hardware fingerprint)")

/* X(key, type, doc) for [profile] (runner/check/profile_check.h: where a failed timing row's time
 * went). */
#define RN_PROFILE_KEYS(X)                                                                         \
	X(on_failure, "boolean",                                                                   \
	  "when a timing row fails, profile more runs of each side and rank what grew "            \
	  "(default true, with or without the table)")                                             \
	X(runs, "integer",                                                                         \
	  "profiled runs a side, 2..10 (default " RN_CFG_STR(                                      \
		  RN_PROFILE_RUNS) "): an item is "                                                \
				   "ranked when it grew in most of them, at least 2")              \
	X(frequency_hz, "integer",                                                                 \
	  "on-CPU samples per second of CPU time, 1..10000 (default " RN_CFG_STR(                  \
		  RN_PROFILE_FREQUENCY_HZ) ": the profiled runs are not measured)")                \
	X(syscalls, "boolean",                                                                     \
	  "also syscall time and calls by call stack (syscall stops; default true)")               \
	X(max_stacks, "integer",                                                                   \
	  "call stacks kept per profile, the largest (default " RN_CFG_STR(                        \
		  RN_PROFILE_MAX_STACKS) ")")                                                      \
	X(top, "integer",                                                                          \
	  "ranked items shown in reports, 1..50 (default " RN_CFG_STR(RN_PROFILE_TOP) ")")         \
	X(dir, "string", "folder of the profiles and flame graphs (default .renacer/explain)")     \
	X(golden, "boolean",                                                                       \
	  "`golden update` records <target>.folded beside each golden trace "                      \
	  "(default true when [profile] is present)")

/* X(key, type, doc) for [ratchet] (runner/check/ratchet.h: head against a release, in the job
 * of `check --baseline`). */
/* Default [ratchet] budget, percent. */
#define RN_RATCHET_BUDGET_PCT 5

#define RN_RATCHET_KEYS(X)                                                                         \
	X(reference, "string",                                                                     \
	  "the release head is held to: a built checkout's directory (relative to renacer.toml), " \
	  "else a git ref that check --baseline checks out and builds with the targets' `build`")  \
	X(budget, "number",                                                                        \
	  "percent head may be slower (time rows) or grow (syscall counts) against the "           \
	  "reference, all pull requests together (default " RN_CFG_STR(RN_RATCHET_BUDGET_PCT) ")")

/* [ratchet] as written in the file. */
struct rn_ratchet_cfg {
	bool present;         /* the file has a [ratchet] table */
	char *reference;      /* `reference` as written, owned, or NULL */
	char *reference_path; /* reference resolved against the config's directory, owned */
	double budget;        /* `budget`, fraction (percent / 100) */
};

/* [profile] as written in the file, defaults filled. */
struct rn_profile_cfg {
	bool present;          /* the file has a [profile] table */
	bool on_failure;       /* explain failing timing rows (default true) */
	unsigned frequency_hz; /* CPU samples per second of CPU time (RN_PROFILE_FREQUENCY_HZ) */
	bool syscalls;         /* syscall stacks too (default true) */
	unsigned max_stacks;   /* call stacks kept per profile (RN_PROFILE_MAX_STACKS) */
	unsigned top;          /* ranked items in reports (RN_PROFILE_TOP) */
	unsigned runs;         /* profiled runs a side, 2..10 (RN_PROFILE_RUNS) */
	char *dir;             /* absolute folder of the profiles, owned */
	bool golden;           /* golden update records the golden side's profile */
};

/* [history] as written in the file. */
struct rn_history_file_cfg {
	bool present;            /* the file has a [history] table */
	bool enabled;            /* enabled (default true when present) */
	char *url;               /* url as written (relative paths resolved), or NULL */
	int64_t busy_timeout_ms; /* -1 = not given */
	char *machine;           /* or NULL */
};

/*
 * The benchmarks of one harness [[target]] once expanded (runner/check/harness.h): a timing
 * run of one of them runs the harness for every member not yet done and leaves the others'
 * samples in `dir` for their own runs of the same index. Shared by the members' targets.
 */
struct rn_harness_group {
	size_t id;    /* the table's index, unique within the check */
	size_t n;     /* members */
	char **names; /* [n] the benchmarks as the harness names them, owned */
	bool *done;   /* [n] its runs are over, or it is not run: no later run includes it */
	char *dir;    /* folder of the samples left for members, owned */
};

/* The folder of renacer's pytest plugin inside a check's results folder (rn_config bench_dir),
 * written by runner/check/harness.c and removed with the config (rn_config_release). */
#define RN_HARNESS_PYTEST_DIR "pytest"

/* Free group `g` and the samples left in its folder (NULL: nothing). */
void rn_harness_group_free(struct rn_harness_group *g);

/* The largest `baseline_tolerance` a config takes, fraction (+1000%): `renacer calibrate
 * --write` writes none above it. */
#define RN_BASELINE_TOLERANCE_MAX 10.0

/* One [[target]]. Owned by the config. */
struct rn_target_cfg {
	char *name;             /* unique name */
	char **argv;            /* argv, NULL-terminated, owned (shell: {"/bin/sh","-c",cmd}) */
	char *cwd;              /* absolute working directory, owned */
	char *build;            /* `build`: /bin/sh -c command run by check --build, or NULL */
	char **env;             /* "KEY=VALUE" added to the environment, NULL-terminated */
	uint64_t timeout_ns;    /* wall-clock limit of one run, ns */
	int expect_exit;        /* exit status of a clean run, -1 = any */
	unsigned runs;          /* measured timing runs, >= 1 */
	unsigned counting_runs; /* counting runs when counts are needed, >= 1 */
	unsigned warmup;        /* unmeasured runs */
	double shard_weight;    /* expected cost for `--shard K/N` balancing, seconds; 0 = not set
				   * (runner/input/shard.h) */
	uint32_t collectors;    /* enum rn_collector_mask */
	enum rn_gpu_mode gpu_mode; /* Vulkan timing mode */
	bool region_thread_scope;  /* region_scope = "thread" (cuda) */
	bool clean_timing;         /* `clean_timing` (cuda): timing runs are a GPU execution
				   * and a clean one (runner/check/check_run.c, struct run_plan) */
	enum rn_stdio out;         /* stdout handling */
	enum rn_stdio err;         /* stderr handling */
	uint64_t max_procs;        /* process limit */
	uint64_t max_as_bytes;     /* RLIMIT_AS, 0 = unchanged */
	int driver;                /* enum rn_driver_pref (collectors/driver.h): which driver
				   * collects syscalls; check resolves it into `collectors` */
	int instructions;          /* -1: when an instructions assertion applies (default), 0/1:
				   * `instructions = false/true` */
	struct rn_inject *inject;  /* `inject` rules [ninject] (collectors/inject_rules.h),
				   * owned; NULL = none */
	size_t ninject;            /* rules in inject */
	int profile;               /* -1: [profile] on_failure (default), 0/1: `profile` */
	double baseline_tolerance; /* `baseline_tolerance`, fraction of the base median; 0 = the
				   * check's (RN_BASELINE_TOLERANCE or --baseline-tolerance) */
	double time_budget_s;      /* `time_budget_s`, s, 0 = no limit; < 0 = not set: [regression]
				   * time_budget_s (rn_target_time_budget_ns) */
	int pairs;                 /* -1: [regression] pairs (default), else enum rn_pair_scheme */
	int harness;               /* enum rn_harness: the table stands for a harness's benchmarks
				   * or a runner's tests until check expands it; NONE otherwise */
	char **benchmarks;         /* `benchmarks`: names run instead of the harness's list,
				   * NULL-terminated, owned, or NULL */
	char *pattern;             /* `pattern` as written, owned, or NULL */
	const struct rn_regex *pattern_re; /* pattern compiled, borrowed from cfg->regexes */
	/* an expanded target (runner/check/harness.h), else NULL: */
	char *bench;                    /* the benchmark or test it runs, owned */
	char *bench_out;                /* a benchmark's result file, owned (NULL: go's stdout) */
	char *parent;                   /* its [[target]] or [[suite]], owned */
	struct rn_harness_group *group; /* a benchmark: its table's shared runs, or NULL;
					 * owned by member 0 (its copies borrow it) */
	size_t group_member;            /* its index in group */
	size_t bench_arg;               /* argv[bench_arg] names its benchmark (its filter) */
	bool suite;                     /* written as [[suite]] */
	int line;                       /* line of its [[target]] header */
};

/* [otlp] as written in the file (the exporter merges it with the environment). */
struct rn_otlp_file_cfg {
	bool set_enabled;             /* enabled was given */
	bool enabled;                 /* enabled */
	char *endpoint;               /* or NULL */
	char *protocol;               /* or NULL */
	char *service_name;           /* or NULL */
	char **headers;               /* "Name: value" strings, NULL-terminated, or NULL */
	int64_t timeout_ms;           /* -1 = not given */
	char *compression;            /* or NULL */
	bool required;                /* export failure fails the check */
	char *syscall_spans;          /* or NULL */
	int64_t syscall_threshold_us; /* -1 = not given */
};

/* The compiled patterns of a config, one per distinct pattern: 100,000 assertions that
 * share a handful of patterns compile each once (util/rn_regex.h). Assertions borrow
 * from it; rn_config_release frees it. */
struct rn_regex_pool {
	struct rn_strmap index;     /* pattern as written -> slot in the arrays below */
	char **patterns;            /* patterns [n], owned (the index's keys) */
	struct rn_regex **compiled; /* compiled patterns [n], owned */
	size_t n, cap;              /* slots used, allocated */
};

/* A loaded renacer.toml. */
struct rn_config {
	char *path;                           /* path as given, owned */
	char *dir;                            /* absolute directory of the file, owned */
	char *src;                            /* file contents (diagnostics point into it), owned */
	size_t src_len;                       /* bytes in src */
	struct rn_target_cfg *targets;        /* [[target]] tables in order */
	size_t ntargets;                      /* targets used */
	struct rn_assertion_spec *assertions; /* [[assertion]] tables in order */
	size_t nassertions;                   /* assertions used */
	char *golden_dir;                     /* absolute golden trace directory, owned */
	unsigned golden_runs;                 /* [golden] runs: least runs `golden update` records
				       * (default RN_GOLDEN_RUNS_DEFAULT) */
	char *junit;                          /* [report] junit, resolved against dir, or NULL */
	char *trace_out;                      /* [report] trace_out, or NULL */
	char *otlp_file;                      /* [report] otlp_file, or NULL */
	char **redact; /* [report] redact words, NULL-terminated, or NULL (defaults) */
	struct rn_otlp_file_cfg otlp;        /* [otlp] */
	struct rn_regression_cfg regression; /* [regression] */
	struct rn_history_file_cfg history;  /* [history] */
	struct rn_profile_cfg profile;       /* [profile] */
	struct rn_ratchet_cfg ratchet;       /* [ratchet] */
	char **ignored_tables; /* unknown top-level tables (warned about), NULL-terminated */
	struct rn_equiv_opts *semantic; /* [semantic_equivalence] options (defaults when absent),
				       * owned; ignore_paths owned through semantic_ignore */
	char **semantic_ignore;         /* [semantic_equivalence] ignore_paths, NULL-terminated */
	char **notes;                 /* "FILE:LINE:COL: note: ..." lines about keys of the original
				       * renacer format (runner/input/original.h), owned, NULL-terminated,
				       * or NULL; printed at load unless quiet */
	struct rn_regex_pool regexes; /* every compiled pattern the assertions borrow */
	char *bench_dir;              /* folder the expanded benchmarks' result files go to
				       * (runner/check/harness.h), owned, removed with the config;
				       * NULL before expansion */
};

/*
 * Is `s` a valid target name: [A-Za-z0-9_.-]+ (the [[target]] `name` rule)? Every reader of
 * target names from files renacer did not write itself (results files, imported golden
 * traces) applies it too, so a name never carries a newline or an escape into a log line.
 */
bool rn_config_name_valid(const char *s);

/* Is `url` a PostgreSQL history store: a postgresql:// or postgres:// URI, or a libpq
 * key=value connection string ("host=db dbname=perf")? Anything else is a SQLite path, which
 * [history] url resolves against the config's directory. */
bool rn_config_is_postgres_url(const char *url);

/*
 * Load and validate `path`. Returns 0 on success; on failure -EINVAL (an invalid config) or the
 * -errno of reading it, with `d` filled (initialized by this function with the file name and
 * text, which it borrows from cfg->path and cfg->src).
 * Either way the caller ends with rn_config_release(cfg), after printing `d` on failure.
 * A file that cannot be read is reported as "cannot read 'x': <strerror>" without a location.
 * Warnings (ignored tables) are printed with rn_warn unless `quiet`.
 */
int rn_config_load(struct rn_config *cfg, const char *path, bool quiet, struct rn_diag *d);
/* Same from text in memory (`src` is copied). `path` names it in messages and anchors relative
 * paths. */
int rn_config_parse(struct rn_config *cfg, const char *path, const char *src, size_t len,
		    bool quiet, struct rn_diag *d);
/* Free what target `t` owns (a target of cfg->targets taken out of it) and zero it. */
void rn_config_target_release(struct rn_target_cfg *t);
/* Free everything the config owns; `cfg` is then zeroed. */
void rn_config_release(struct rn_config *cfg);

/*
 * Give the config a target from the command line (`renacer check -- ./app args`): name is the
 * basename of argv[0], default settings. argv is copied. Returns the new target.
 */
struct rn_target_cfg *rn_config_add_cli_target(struct rn_config *cfg, char *const *argv);

/* The adaptive repeats' time budget of target `t` of `cfg`, ns: its `time_budget_s`, else
 * [regression] time_budget_s; 0 = no limit. */
uint64_t rn_target_time_budget_ns(const struct rn_config *cfg, const struct rn_target_cfg *t);

/* Write the documentation of every key (the tables above) in Markdown to `out`. */
void rn_config_write_docs(FILE *out);

#endif
