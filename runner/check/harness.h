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

#include "config.h"

#endif
