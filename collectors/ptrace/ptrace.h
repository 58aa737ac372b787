/*
 * ptrace.h - the ptrace collector: syscalls, the process tree and memory of a target, and the
 * strace-compatible views of them (per-call lines, the -c summary, JSON).
 *
 * The collector is one ops table (rn_ptrace_collector) driven by the run loop in
 * collectors/run.c. Each traced task stops at syscall entry and exit (PTRACE_SYSCALL), or, in
 * the filtered and count-only modes, at a seccomp stop for the syscalls a BPF filter selects.
 * Completed syscalls go into the trace model with rn_trace_syscall() (trace.h).
 *
 * Durations are measured between the entry and the exit stop with CLOCK_MONOTONIC: they are
 * times "under tracer" and include the cost of the two stops (several microseconds each).
 *
 * Everything here runs in the runner's single thread; nothing is thread safe.
 */
#ifndef RN_PTRACE_H
#define RN_PTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "collector.h"
#include "trace.h"

/* The collector's ops table, listed in the registry (collectors/registry.c). */
extern const struct rn_collector_ops rn_ptrace_collector;

/*
 * Name tables (generated at build time by gen_tables.cmake, see trace.h for
 * rn_syscall_name/rn_syscall_lookup/rn_errno_name).
 */
/* True when syscall `nr` has a name in the table (rn_syscall_name prints "syscall_0x.." else). */
bool rn_syscall_has_name(int nr);
/* strerror-like description of errno `err`, including the kernel-internal restart codes
 * (512..531) as strace prints them. Static storage (or strerror's), never NULL. */
const char *rn_errno_desc(int err);
/* True for ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND and ERESTART_RESTARTBLOCK: the call
 * returned to the tracer with this code and the kernel will restart it. */
bool rn_errno_is_restart(int err);

/*
 * Syscall sets, strace's `-e trace=SET` syntax: a comma-separated list of syscall names and
 * classes (%file, %desc, %process, %network or %net, %signal, %ipc, %memory, %creds, %clock),
 * "all" or "none"; a leading '!' negates the whole set; a trailing '?' on a name is accepted
 * and ignored (strace's "no error if unknown"). `set` must hold rn_syscall_table_size()
 * entries and is overwritten. Returns 0, or -1 after printing
 * "renacer trace: unknown syscall 'opnat' in -e trace= (did you mean 'openat'?)".
 */
int rn_syscall_set_parse(const char *expr, bool *set);

/*
 * Index (0..5) of the `which`-th (0 or 1) path argument of syscall `nr`, or -1 when it has
 * none: openat's path is argument 1, rename's are 0 and 1. Paths are decoded from the
 * tracee's memory at syscall entry.
 */
int rn_syscall_path_arg(int nr, int which);

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
 * Paths, fds, open/access/at/mmap flags, modes and signals are decoded; other pointers and
 * integers print as raw hex or decimal. Unnamed syscalls print as syscall_0x1f4(...).
 * `flags` is enum rn_line_flags.
 */
void rn_syscall_format(struct rn_buf *b, const struct rn_syscall_event *ev, uint32_t flags);

/* Append "+++ exited with 0 +++" or "+++ killed by SIGSEGV (core dumped) +++" for an ended
 * process (with the "[pid N] " prefix when `flags` has RN_LINE_PID). */
void rn_process_format_end(struct rn_buf *b, const struct rn_process *p, uint32_t flags);

/* Name of signal `sig` ("SIGSEGV"), or "SIG" + number. Static storage. */
const char *rn_signal_name(int sig);

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
 * Rows are the syscalls with calls > 0, summed over all processes, sorted by total time
 * (descending; ties keep syscall-number order). Seconds are times under tracer. Returns 0 or
 * -EIO when writing failed.
 */
int rn_trace_summary_write(const struct rn_trace *t, FILE *out);

/*
 * JSON output, schema "renacer-trace" version RN_TRACE_JSON_VERSION, documented in full in
 * collectors/ptrace/JSON.md. In short:
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
 * keys. All text goes through rn_json_add_string().
 */
#define RN_TRACE_JSON_VERSION 1

/* Append `s` as a JSON string literal (quotes included): ", \, control characters and
 * invalid UTF-8 bytes are escaped (\u00XX; an invalid byte becomes \u00XX of its value so no
 * information is lost). NULL appends null. */
void rn_json_add_string(struct rn_buf *b, const char *s);

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
 * "errors":0,"total_ns":..,"min_ns":..,"max_ns":..}, ...] in the order of the -c table. */
void rn_json_add_summary(struct rn_buf *b, const struct rn_trace *t);

/* Append the run's outcome as JSON members (no braces): "status":"ok","error":null,
 * "start_ns":..,"end_ns":..,"wall_ns":..,"syscalls":..,"peak_rss_bytes":.. ... */
void rn_json_add_run_members(struct rn_buf *b, const struct rn_trace *t);

/* Name of enum rn_run_status in JSON and messages: "ok", "exec_failed", "crashed",
 * "timed_out", "interrupted", "limit", "error". */
const char *rn_run_status_name(enum rn_run_status status);

#endif
