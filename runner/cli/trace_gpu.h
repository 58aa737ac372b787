/*
 * trace_gpu.h - the GPU and app span writers of `renacer trace` (trace_gpu.c). Times
 * are the trace's (ns from the run's start), printed in seconds as strace -T prints them.
 */
#ifndef RN_TRACE_GPU_H
#define RN_TRACE_GPU_H

#include <stdio.h>

#include "buf.h"
#include "collector.h"

/* One line per GPU span of `t` into `out`, by start time: seconds since the run began, pid,
 * kind, the full name as span_count matches it, the duration, then region, graph, grid or
 * bytes when known. */
void rn_trace_gpu_lines(const struct rn_trace *t, FILE *out);
/* One line per span the program reported itself (the "app" collector) into `out`, by
 * arrival. */
void rn_trace_app_lines(const struct rn_trace *t, FILE *out);
/* The -c table of GPU work into `out`: share of the total, count, average, min and max in
 * microseconds per kind and name (names shortened to RN_GPU_DISPLAY_MAX). */
void rn_trace_gpu_summary(const struct rn_trace *t, FILE *out);
/* The GPU spans of `t` as a JSON array (full names) appended to `b` (TRACE_JSON.md). */
void rn_trace_gpu_json(struct rn_buf *b, const struct rn_trace *t);

#endif
