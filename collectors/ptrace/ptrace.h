/*
 * ptrace.h - the ptrace collector: syscalls, the process tree and memory of a target. (The
 * strace-compatible views of a trace are reports: runner/report/report_strace.h, runner/report/report_json.h.)
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
#include "diag.h"
#include "collector.h"
#include "trace.h"

/* The collector's ops table, listed in the registry (collectors/registry.c). */
extern const struct rn_collector_ops rn_ptrace_collector;

/*
 * Syscall sets, strace's `-e trace=SET` syntax: a comma-separated list of syscall names and
 * classes (%file, %desc, %process, %network or %net, %signal, %ipc, %memory, %creds, %clock),
 * "all" or "none"; a leading '!' negates the whole set; a trailing '?' on a name is accepted
 * and ignored (strace's "no error if unknown"). `set` must hold rn_syscall_table_size()
 * entries and is overwritten. Returns 0, or -1 with the reason in `diag` (no location;
 * nothing printed: the command words it), e.g. "unknown syscall 'opnat' (did you
 * mean 'openat'?)".
 */
int rn_syscall_set_parse(const char *expr, bool *set, struct rn_diag *diag);

#endif
