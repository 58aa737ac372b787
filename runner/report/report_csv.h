/*
 * report_csv.h - `renacer trace --format csv`: the trace model's two views as CSV (RFC 4180
 * fields through util/csv.h, one record per line, a header record first).
 *
 * Per-call records (no -c), one per completed or unfinished syscall as it completes:
 *
 *     start_ns,pid,tid,syscall,nr,arg0,arg1,arg2,arg3,arg4,arg5,ret,errno,duration_ns,path,path2,flags
 *     81234567890,4242,4242,openat,257,0xffffffffffffff9c,0x55d0c2a4,0x0,0x0,0x0,0x0,-2,ENOENT,5120,/etc/x,,
 *
 * arguments as hex, `ret` as a signed decimal (empty for an unfinished call), `errno` the
 * error's name or empty, `path`/`path2` the decoded paths or empty, `flags` a '|'-separated
 * list of unfinished, restarted, injected, delayed, path_truncated.
 *
 * The -c summary (rows of rn_trace_summary_rows, in the table's order, then a "total" row):
 *
 *     syscall,nr,calls,errors,total_ns,min_ns,max_ns,avg_ns,time_pct[,p50_ns,p90_ns,p99_ns]
 *
 * the percentile columns when the trace kept latencies (--percentiles).
 */
#ifndef RN_REPORT_CSV_H
#define RN_REPORT_CSV_H

#include <stdio.h>

#include "buf.h"
#include "trace.h"

/* Append the header record of per-call records, with its newline. */
void rn_csv_add_syscall_header(struct rn_buf *b);
/* Append the record of one syscall, with its newline. */
void rn_csv_add_syscall(struct rn_buf *b, const struct rn_syscall_event *ev);
/* Write the summary of `t` as CSV to `out`. Returns 0 or -EIO when writing failed. */
int rn_trace_summary_csv(const struct rn_trace *t, FILE *out);

#endif
