/*
 * bench_json.h - the small machine report derived from the verdicts of `renacer check`
 * (github-action-benchmark JSON). The console report is console.h.
 */
#ifndef RN_BENCH_JSON_H
#define RN_BENCH_JSON_H

#include <stddef.h>

#include "outcome.h"

/*
 * github-action-benchmark `customSmallerIsBetter` JSON: an array of {name, unit, value,
 * extra} with one entry per measured head target of `oc` (oc->reports[i].result) and metric
 * (the median of wall time and critical path in ms, peak RSS in bytes, syscalls); reads
 * nothing else of `oc`. Written atomically. 0 or negative errno (message printed).
 */
int rn_report_bench_json(const char *path, const struct rn_outcome *oc);

#endif
