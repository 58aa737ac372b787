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
 * nothing else of `oc`. A run's peak RSS of 0 is not measured (driver = "ebpf" knows the
 * root's ru_maxrss only above renacer's own peak): the median is of the runs that measured
 * it, and a target none of whose runs did has no peak_rss entry (a 0 would chart as a drop
 * to nothing). Written atomically. 0 or negative errno (message printed).
 */
int rn_report_bench_json(const char *path, const struct rn_outcome *oc);

#endif
