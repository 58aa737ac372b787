/*
 * internal.h - declarations private to collectors/ptrace and to the run loop (collectors/run.c),
 * which drives the ptrace collector's event loop and therefore needs a few more hooks than the
 * ops table offers (killing the whole tree, the seccomp program, the number of live tasks).
 */
#ifndef RN_PTRACE_INTERNAL_H
#define RN_PTRACE_INTERNAL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"

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

/* Per-syscall signature: one letter per argument (see sysent.c), or NULL when unknown. */
const char *rn_sysent_signature(int nr);

/* Syscall numbers the collector and the formatter treat specially, looked up once from the
 * generated table (-1 where the architecture lacks the call). */
struct rn_sysnrs {
	int execve, execveat, wait4, waitid, clone, clone3, fork, vfork;
	int exit, exit_group, sched_getaffinity, mmap, munmap, mremap, brk;
	int restart_syscall;
};
/* The numbers, filled on first use. */
const struct rn_sysnrs *rn_sysnrs(void);

/*
 * ELF identity of an executable: e_machine and the GNU build-id as lowercase hex ("" if none).
 * Results are cached by path for the life of the cache, so a fork-exec-heavy tree reads each
 * binary once. `path` is opened as given (use /proc/PID/exe's target). Returns 0, or negative
 * errno (the outputs are then zero/empty and the failure is cached too).
 */
struct rn_elf_cache;
int rn_elf_identify(struct rn_elf_cache **cache, const char *path, uint16_t *machine,
		    char build_id[41]);
/*
 * Zero-filled bytes of an executable's loadable segments (the sum over PT_LOAD of p_memsz -
 * p_filesz: its .bss), which the kernel maps anonymously at exec without a syscall the tracer
 * could see. Same cache as rn_elf_identify (one read per binary). Returns 0 with *bytes set,
 * or negative errno with *bytes = 0.
 */
int rn_elf_zero_fill(struct rn_elf_cache **cache, const char *path, uint64_t *bytes);
/* Free a cache made by rn_elf_identify (NULL-safe). */
void rn_elf_cache_free(struct rn_elf_cache *cache);

#endif
