/*
 * report.h - what the reports of `renacer check` share: verdict counts over the judged
 * targets, and the small machine report derived from the same verdicts
 * (github-action-benchmark JSON). The console report is console.h.
 */
#ifndef RN_REPORT_H
#define RN_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "assertion.h"
#include "log.h"
#include "verdict.h"

/* Count verdicts of kind `v` over all targets. */
size_t rn_report_count(const struct rn_target_report *t, size_t n, enum rn_verdict v);

/*
 * github-action-benchmark `customSmallerIsBetter` JSON: an array of {name, unit, value,
 * extra} with one entry per target and metric (wall time and critical path in ms, peak RSS in
 * bytes, syscalls). Written atomically. 0 or negative errno (message printed).
 */
int rn_report_bench_json(const char *path, const struct rn_target_report *t, size_t n);

#endif
