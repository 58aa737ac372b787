/*
 * internal.h - declarations private to collectors/ptrace and its drivers (ptrace/driver.c),
 * which put the run loop (collectors/run.c) in the hands of the collector and therefore need a
 * few more hooks than the ops table offers (killing the whole tree, the seccomp program, the
 * number of live tasks).
 */
#ifndef RN_PTRACE_INTERNAL_H
#define RN_PTRACE_INTERNAL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"
#include "elf_id.h"

/*
 * Kill every traced process (SIGKILL to each known thread group and to tasks not yet
 * attributed) and switch the collector to teardown: from now on every stop is answered by
 * SIGKILL and a resume, and processes that end are recorded as RN_PROC_LOST. The caller keeps
 * calling on_event until wait reports no tracee left. Idempotent.
 */
void rn_ptrace_kill_tree(struct rn_collector *c);

/*
 * How the child waits to be seized (before the collectors' on_spawn). false: it stops itself
 * with SIGSTOP, and on_spawn ends that stop (full tracing: the first PTRACE_SYSCALL resume
 * needs a stop). true: it blocks reading a pipe the run loop writes after on_spawn, seized
 * while running (seccomp modes: the filter, installed after the read, makes the stops; this
 * saves the SIGSTOP, the trap and the SIGCONT delivery, three stops of every run).
 */
bool rn_ptrace_seize_running(const struct rn_collector *c);

/* Traced tasks that may make stops now: all tasks (threads of all processes, tasks not yet
 * attributed included) but those blocked in wait4/waitid. While at most one may, there is
 * nobody to starve and the run loop skips draining wait4(WNOHANG) after each stop. */
size_t rn_ptrace_runnable_tasks(const struct rn_collector *c);

/*
 * Whether the next wait statuses may be final ones whose rusage the collector needs (a task
 * is past its PTRACE_EVENT_EXIT stop, a task runs without exit stop so its ru_maxrss is its
 * peak RSS, or the tree is being killed). wait4 computes a full
 * getrusage() for every ptrace-stop it reports when asked for rusage; the run loop passes
 * NULL while this is false, so the stops of a running tree cost less. (A process killed by
 * SIGKILL skips its exit stop; only the ru_maxrss of a tree being killed can then help.)
 */
bool rn_ptrace_wants_rusage(const struct rn_collector *c);

/* The final wait status of task `tid` came with ru_maxrss `maxrss_kb` (KiB); call before
 * on_event hands the status over. */
void rn_ptrace_final_rusage(struct rn_collector *c, pid_t tid, long maxrss_kb);

/* The run loop has nothing queued and is about to block in wait4: settle what cannot wait
 * for another event (new tasks whose parent's fork event never came). */
void rn_ptrace_idle(struct rn_collector *c);

/*
 * The seccomp-bpf program for the child, or NULL when the run needs none (full tracing).
 * Built in the parent before fork (the child only installs it: prctl and seccomp are
 * async-signal-safe, allocation is not). Owned by the collector; *len gets the instruction
 * count.
 */
const struct sock_filter *rn_ptrace_seccomp_program(const struct rn_collector *c, size_t *len);

/*
 * -p: seize the running process `pid` (a thread group id) and every thread of /proc/PID/task
 * with PTRACE_SEIZE (no PTRACE_O_EXITKILL: renacer's end never kills it) and ask each for a
 * stop; its children are followed. Adds the process to `t`. 0, -ESRCH (no such process),
 * -EPERM (not ours to trace), -EINVAL (`pid` is a thread of another process).
 */
int rn_ptrace_attach(struct rn_collector *c, pid_t pid, struct rn_trace *t);

/*
 * -p teardown: interrupt every traced task and answer each of their stops (and those of new
 * children) with PTRACE_DETACH, re-delivering a signal that was about to be delivered. The
 * processes run on untraced and stay RN_PROC_RUNNING in the trace; wait4 then reports no
 * tracee left. Idempotent; nothing for a spawned tree.
 */
void rn_ptrace_detach(struct rn_collector *c);

/* Syscall numbers the collector treats specially, looked up once from the
 * generated table (-1 where the architecture lacks the call). */
struct rn_sysnrs {
	int execve, execveat, wait4, waitid, clone, clone3, fork, vfork;
	int exit, exit_group, sched_getaffinity, mmap, munmap, mremap, brk;
	int restart_syscall;
};
/* The numbers, filled on first use. */
const struct rn_sysnrs *rn_sysnrs(void);

/* rn_elf_identify() and its cache: collectors/elf_id.h (the run loop and eBPF use them too). */

#endif
