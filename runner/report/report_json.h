/*
 * report_json.h - the JSON view of a trace, as `renacer trace --format json|jsonl` writes it:
 * the "renacer-trace" schema.
 *
 * Reads only the trace model (collectors/trace.h); any collector's trace writes the same.
 * Each function appends to a struct rn_buf (sticky failure, buf.h). Not thread safe.
 * The keys come from collectors/trace_json.h, which also holds the reader
 * (rn_trace_json_read: the equivalence assertion and `renacer diff` read these traces back).
 */
#ifndef RN_REPORT_JSON_H
#define RN_REPORT_JSON_H

#include "buf.h"
#include "json.h"
#include "trace.h"

/*
 * JSON output, schema "renacer-trace" version RN_TRACE_JSON_VERSION, documented in full in
 * runner/report/TRACE_JSON.md. In short:
 *
 *   --format jsonl   {"type":"header","schema":"renacer-trace","version":1,"command":[..]}
 *                    then {"type":"syscall",...} and {"type":"process","event":"fork|exec|exit",
 *                    ...} lines as the run goes, then {"type":"end", run fields, "summary":[..],
 *                    "processes":[..]}
 *   --format json    {"schema":"renacer-trace","version":1,"command":[..], run fields,
 *                    "summary":[..], "processes":[..], "syscalls":[..] or null with -c}
 *
 * Run fields: status, error, start_ns, end_ns, wall_ns, process_count, syscalls,
 * syscall_errors, peak_rss_bytes, max_rss_bytes, alloc_peak_bytes, alloc_total_bytes,
 * filtered, counts_only. Times are CLOCK_MONOTONIC ns; syscall durations are "under tracer".
 * The version changes when a field is removed or changes meaning; readers ignore unknown
 * keys. All text goes through rn_json_add_string() (util/json.h).
 */
#define RN_TRACE_JSON_VERSION 1

/* Append one syscall span as a JSON object (no newline):
 * {"type":"syscall","pid":..,"tid":..,"nr":..,"name":"openat","args":["0xffffff9c",..],
 *  "path":"/etc/passwd","ret":3,"errno":null,"start_ns":..,"duration_ns":..,
 *  "unfinished":false,"restarted":false} */
void rn_json_add_syscall(struct rn_buf *b, const struct rn_syscall_event *ev);

/* Append one process as a JSON object (no newline), `event` being 'f', 'e' or 'x' for the
 * JSONL stream ("type":"process","event":"fork"|"exec"|"exit") or 0 inside the final document
 * (no "type"/"event" keys). */
void rn_json_add_process(struct rn_buf *b, const struct rn_trace *t, const struct rn_process *p,
			 char event);

/* Append the summary rows as a JSON array: [{"syscall":"openat","nr":257,"calls":3,
 * "errors":0,"total_ns":..,"min_ns":..,"max_ns":..}, ...] in the order of the -c table; with
 * "p50_ns", "p90_ns", "p99_ns" (hist.h quantiles) when the trace kept latencies. */
void rn_json_add_summary(struct rn_buf *b, const struct rn_trace *t);

/* Append the run's outcome as JSON members (no braces): "status":"ok","error":null,
 * "start_ns":..,"end_ns":..,"wall_ns":..,"syscalls":..,"peak_rss_bytes":.. ... */
void rn_json_add_run_members(struct rn_buf *b, const struct rn_trace *t);

#endif
