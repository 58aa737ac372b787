/*
 * report_strace.h - the strace-compatible view of a trace, as `renacer trace` prints it:
 * per-call lines, the end line of each process and the -c summary table.
 *
 * Reads only the trace model (collectors/trace.h) and the syscall knowledge it owns
 * (syscall_names.h, syscall_args.h); any collector's spans print the same. Output is text
 * appended to a struct rn_buf (sticky failure, buf.h) or written to a FILE. Not thread safe
 * (rn_syscall_name and rn_signal_name use static buffers for unnamed values).
 */
#ifndef RN_REPORT_STRACE_H
#define RN_REPORT_STRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "trace.h"

/* Options of the per-call line format (enum rn_line_flags). */
enum rn_line_flags {
	RN_LINE_PID = 1 << 0,  /* prefix "[pid N] " */
	RN_LINE_TIME = 1 << 1, /* append " <0.000012>", the duration in seconds (-T) */
};

/*
 * Append the strace-style line of one syscall to `b`, without the newline:
 *     openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3
 *     read(3, 0x7ffd5c8a1e40, 4096)           = -1 EBADF (Bad file descriptor)
 *     exit_group(0)                           = ?
 * Arguments print by their kind (syscall_args.h): paths, fds, open/access/at/mmap flags, modes
 * and signals are decoded; other pointers and integers print as raw hex or decimal; a syscall
 * of unknown kinds prints six hex arguments. Unnamed syscalls print as syscall_0x1f4(...).
 * `flags` is enum rn_line_flags.
 */
void rn_syscall_format(struct rn_buf *b, const struct rn_syscall_event *ev, uint32_t flags);

/* Append "+++ exited with 0 +++", "+++ killed by SIGSEGV (core dumped) +++", "+++ killed by
 * renacer +++" (RN_PROC_LOST) or "+++ still running +++" for process `p` (with the
 * "[pid N] " prefix when `flags` has RN_LINE_PID), without the newline. */
void rn_process_format_end(struct rn_buf *b, const struct rn_process *p, uint32_t flags);

/* One row of the summary: a syscall's stats summed over all processes. */
struct rn_summary_row {
	int nr;                   /* syscall number */
	struct rn_syscall_stat s; /* its totals over the tree (rn_trace_syscall_total) */
};

/*
 * Write the strace -c summary of `t` to `out`, in strace's layout and order:
 *
 *     % time     seconds  usecs/call     calls    errors syscall
 *     ------ ----------- ----------- --------- --------- ----------------
 *      62.50    0.000125          41         3           openat
 *     ...
 *     ------ ----------- ----------- --------- --------- ----------------
 *     100.00    0.000200           5        40         2 total
 *
 * Rows are those of rn_trace_summary_rows(). Seconds are times under tracer. When the trace
 * kept latency histograms (rn_trace_latency_enable: `trace -c --percentiles`), four columns
 * "p50 us", "p90 us", "p99 us" and "max us" (microseconds, one decimal; nearest-rank
 * percentiles of the calls' durations within 0.4%, max exact) come before "syscall", blank on
 * the total line. Returns 0 or -EIO when writing failed.
 */
int rn_trace_summary_write(const struct rn_trace *t, FILE *out);

#endif
