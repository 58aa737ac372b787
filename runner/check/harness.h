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
 * invocation's own samples (repetitions, -count lines, hyperfine runs, criterion samples) of
 * the real time per iteration in ns (pytest-benchmark's rounds: their
 * RN_HARNESS_ROUNDS_QUANTILE), cpu_time and user_time the CPU time per iteration where the
 * harness reports it (Google Benchmark, a pytest-benchmark CPU timer), critical_path not
 * judged (rn_target_result_set_bench). Its counting runs count the harness process's syscalls
 * and memory as for any target. A test of a suite is a plain target.
 */
#ifndef RN_HARNESS_H
#define RN_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* The quantile of a pytest-benchmark invocation's rounds (hundreds of rounds in a fraction of
 * a second) taken as its one sample: the time the code takes while nothing shares its core.
 * A loaded runner's contention only adds to a round, and it comes and goes within an
 * invocation: with a busy loop beside it, test_beta's CPU time per round sat near 43 us in
 * some invocations and near 75 us in others, a mix of modes that held a +15% change
 * inconclusive in 4 of 14 checks when each invocation gave its median. */
#define RN_HARNESS_ROUNDS_QUANTILE 0.1

#endif
