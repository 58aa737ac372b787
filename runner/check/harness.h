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
 * adaptive repeats, --baseline pairs, shards and golden traces work unchanged.
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
 * After a timing run of expanded benchmark `tc`: its per-iteration times from the harness's
 * result file (or `out`, the run's captured stdout, for go test), ns. *cpu_ns is 0 where the
 * harness reports no CPU time. Returns 0, or -EINVAL / -errno with `why` (cap bytes) saying
 * what was missing.
 */
int rn_harness_read(const struct rn_target_cfg *tc, const char *out, double *real_ns,
		    double *cpu_ns, char *why, size_t cap);

#endif
