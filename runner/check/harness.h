/*
 * harness.h - the benchmarks and tests a project already has, gated like any target
 * (docs/harness.md).
 *
 * A [[target]] with `harness` (Google Benchmark, pytest-benchmark, go test -bench, hyperfine,
 * criterion) or a [[suite]] (ctest, pytest, go test) stands for many measurements inside one
 * program. Before the plan, check expands each into one target per benchmark or test, named
 * `<table>.<name>` (the name with every character outside [A-Za-z0-9_.-] made '_', so golden
 * traces, results files and shards take it as they take any target name). Each runs the
 * harness filtered to its one benchmark (or the runner's command for its one test), so
 * adaptive repeats, --baseline pairs, shards and golden traces work unchanged; the timing
 * runs of a table's benchmarks are shared (below).
 *
 * A benchmark's timing run is one invocation of the harness; its time metrics are then the
 * harness's per-iteration time, not the process's: wall_time the median over the
 * invocation's own samples (repetitions, rounds, -count lines, hyperfine runs, criterion
 * samples) of the real time per iteration in ns, cpu_time and user_time the CPU time per
 * iteration where the harness reports it (Google Benchmark), critical_path not judged
 * (rn_target_result_set_bench). Its counting runs count the harness process's syscalls and
 * memory as for any target. A test of a suite is a plain target.
 */
#ifndef RN_HARNESS_H
#define RN_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "assertion.h"
#include "config.h"

/*
 * Expand every harness [[target]] and every [[suite]] of `cfg` in place: each is replaced by
 * its targets (at its position, in the harness's order), and every assertion that names it
 * in `targets` names them instead. The names come from `benchmarks`, else from the harness's
 * own list (a run of the harness's list command in the table's cwd), kept where `pattern`
 * fully matches. With `build`, a table's `build` command runs first (check --build): the
 * list needs the program. Returns 0, or an exit code (RN_EXIT_TARGET: a list command or a
 * build failed; RN_EXIT_CONFIG: two names make one target name, or nothing is left) after
 * printing why.
 */
int rn_harness_expand(struct rn_config *cfg, bool build, bool quiet);

/* Before a run of expanded benchmark `tc`: its previous result file is removed, so a run that
 * writes none is not read as its predecessor's. Nothing for other targets. */
void rn_harness_run_begin(const struct rn_target_cfg *tc);

/*
 * One run for the benchmarks of a table. A timing run of a benchmark runs its harness for
 * every benchmark of its table whose target is not done (rn_harness_run_argv): one harness
 * run a pair or a look, whatever the number of benchmarks. It reads its own times and leaves
 * each other's in the table's folder, keyed by side (head or base) and run index; the other
 * benchmark's run of that index takes them (rn_harness_take) instead of running the harness.
 * Once a benchmark's target is judged it is done: the looks that follow, of benchmarks still
 * undecided, run the harness filtered to those. The counting runs stay one benchmark's each
 * (its own syscalls and memory).
 */

/* Before the runs: the benchmarks of the selected targets `sel[nsel]` (indices into
 * cfg->targets) share their timing runs when `share`; the others are done. */
void rn_harness_select(struct rn_config *cfg, const size_t *sel, size_t nsel, bool share);

/* Benchmark `tc`'s runs are over: no later run includes it. Nothing for other targets. */
void rn_harness_done(const struct rn_target_cfg *tc);

/* The argv of a timing run of `tc` that runs every benchmark of its table not done (owned,
 * NULL-terminated), or NULL when it runs its one benchmark (tc->argv). */
char **rn_harness_run_argv(const struct rn_target_cfg *tc);

/*
 * After timing run `k` (0-based, of its side) of `tc` that ran with rn_harness_run_argv's argv
 * and was kept as `run` (its times tc's): the times of each other benchmark it ran, read from
 * the result file (removed then) or `out` (go test), are left for that benchmark's run `k`,
 * with the run's other metrics (processes, peak RSS: the shared run's).
 */
void rn_harness_leave(const struct rn_target_cfg *tc, const char *out, size_t k,
		      const struct rn_metrics *run);

/* Whether a shared run left `tc` its timing run `k` (0-based, of its side): then `run` holds
 * it (times per iteration, as rn_target_result_set_bench sets them) and the harness need not
 * run. */
bool rn_harness_take(const struct rn_target_cfg *tc, size_t k, struct rn_metrics *run);

/*
 * After a timing run of expanded benchmark `tc`: its per-iteration times from the harness's
 * result file (or `out`, the run's captured stdout, for go test), ns. *cpu_ns is 0 where the
 * harness reports no CPU time. `keep`: the result file stays for rn_harness_leave. Returns 0,
 * or -EINVAL / -errno with `why` (cap bytes) saying what was missing.
 */
int rn_harness_read(const struct rn_target_cfg *tc, const char *out, bool keep, double *real_ns,
		    double *cpu_ns, char *why, size_t cap);

#endif
