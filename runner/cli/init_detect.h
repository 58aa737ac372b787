/*
 * init_detect.h - `renacer init` without a command: the benchmark harnesses and test suites a
 * project already has, found from its files, written as harness [[target]] and [[suite]]
 * tables (runner/check/harness.h, docs/harness.md).
 */
#ifndef RN_INIT_DETECT_H
#define RN_INIT_DETECT_H

#include <stddef.h>

#include "buf.h"

/*
 * Look at project folder `dir` (and its folders two levels down) and append to `b` a
 * renacer.toml body with one table per harness found: a CMake project whose targets link
 * benchmark::benchmark (each such executable under build/, built by cmake --build) and its
 * ctest suite (enable_testing), a Python project using pytest-benchmark, a Cargo project with
 * criterion benches, a Go module with Benchmark functions (and its go test suite). Returns how
 * many tables were written (0: none recognised, `b` unchanged).
 */
size_t rn_init_detect(const char *dir, struct rn_buf *b);

#endif
