/*
 * internal.h - declarations private to collectors/ptrace: first the hooks of its drivers
 * (ptrace/driver.c), which put the run loop (collectors/run.c) in the hands of the collector
 * and therefore need a few more than the ops table offers (killing the whole tree, the seccomp
 * program, the number of live tasks); then the collector's state, shared by its files.
 */
#ifndef RN_PTRACE_INTERNAL_H
#define RN_PTRACE_INTERNAL_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "collector.h"
#include "elf_id.h"
#include "now.h"
#include "ptrace/ptrace.h"

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

/* ==== the collector's state (ptrace.c, ptrace_tasks.c, ptrace_syscall.c, ptrace_proc.c) ==== */

/*
 * The ptrace collector's state, shared by its files (the API is ptrace.h):
 *   ptrace.c          the ops (create, on_spawn, on_event: the dispatch of one wait status,
 *                     finish), attaching and detaching (-p), the run loop's hooks
 *   ptrace_tasks.c    the tid -> task map, per-process state, CPU pinning and its watchdog
 *   ptrace_syscall.c  syscall stops: reading the tracee, recording spans, resuming, --inject
 *   ptrace_proc.c     the process tree: children, threads, exec, exit, tasks gone
 * Everything here runs on the tracer thread, except the watchdog (struct watchdog).
 */

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#define NATIVE_ARCH_NAME "x86_64"
#define X32_SYSCALL_BIT 0x40000000u
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define NATIVE_ARCH_NAME "aarch64"
#else
#error "renacer's ptrace collector supports x86_64 and aarch64"
#endif

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

/* Flags of one traced task (enum task_flags). */
enum task_flags {
	TASK_NEW = 1 << 0,        /* its first stop (PTRACE_EVENT_STOP) is still to come */
	TASK_IN_SYSCALL = 1 << 1, /* entry seen, exit pending */
	TASK_HIDDEN = 1 << 2,     /* the root before its first execve: nothing recorded, as
				   * strace hides its own startup */
	TASK_SC_HIDDEN = 1 << 3,  /* the call in flight is not recorded (hidden or filtered) */
	TASK_WANT_EXIT = 1 << 4,  /* seccomp modes: resume with PTRACE_SYSCALL for the exit */
	TASK_EXITING = 1 << 5,    /* PTRACE_EVENT_EXIT seen */
	TASK_WAITING = 1 << 6,    /* inside a blocking wait4/waitid: not runnable */
	TASK_NARROW = 1 << 7,     /* its affinity is the tracer's one CPU (set by us or
				   * inherited from a narrowed parent) */
	TASK_QUIET_EXIT = 1 << 8, /* PTRACE_O_TRACEEXIT is off for it: no exit stop (see
				   * "Exit stops") */
	TASK_SC_CPU = 1 << 9,     /* cpu_entry_ns holds its on-CPU time at the call's entry */
};

/* One traced thread. */
struct task {
	pid_t tid;         /* thread id */
	int proc;          /* index of its process in rn_trace.procs */
	uint32_t flags;    /* enum task_flags */
	int nr;            /* syscall of the last entry (kept after the exit) */
	uint32_t sc_flags; /* enum rn_syscall_flags gathered at entry (PATH_TRUNC) */
	uint64_t args[6];  /* its arguments */
	uint64_t start_ns; /* entry time, ns */
	char *path;        /* decoded paths of the call in flight (RN_PATH_MAX each, lazily */
	char *path2;       /* allocated), valid when has_path/has_path2 */
	bool has_path;     /* path holds the first path argument of the call in flight */
	bool has_path2;    /* path2 holds the second */
	char *argv;        /* execve's argument vector (see rn_syscall_event.argv), lazily */
	uint32_t nargv;    /* allocated, valid when has_argv */
	bool has_argv, argv_more, env_known;
	uint32_t nenv;  /* execve's environment size, valid when env_known */
	long maxrss_kb; /* ru_maxrss of its final wait status, KiB; 0 if not asked */
	uint64_t stack[RN_SYSCALL_STACK_MAX]; /* return addresses of the call in flight */
	uint8_t nstack;                       /* entries of stack used (0: not captured) */
	int sched_fd;          /* its /proc/TID/schedstat, opened at the first call whose caller
				* is captured and kept (owned); -1 before (or not kept: opened
				* at each read), -2 when it cannot be read */
	uint64_t cpu_entry_ns; /* its on-CPU time at the entry stop, ns (TASK_SC_CPU) */
	const struct rn_inject *inj; /* the rule tampering with the call in flight,
					       * or NULL */
};

/* A stop of a task whose parent's fork event has not arrived yet. */
struct pending {
	pid_t tid;  /* the new task */
	int status; /* its wait status (a PTRACE_EVENT_STOP) */
};

/* The pinning watchdog (a thread, only while pinning is possible; see "CPU pinning"). */
struct watchdog {
	pthread_t thread;              /* the thread */
	bool running;                  /* it was started */
	bool stop;                     /* asked to end (under mu) */
	pthread_mutex_t mu;            /* guards stop and the sleeps */
	pthread_cond_t cv;             /* wakes it: a new pinned task, or stop */
	_Atomic uint64_t last_stop_ns; /* time of the latest stop, written by the tracer */
	_Atomic pid_t pinned_tid;      /* the pinned task, 0 = none */
	_Atomic int released;          /* the watchdog let the pinned task and the tracer go */
	pid_t tracer_tid;              /* the thread that traces (its affinity is the tracer's) */
	cpu_set_t orig;                /* the original affinity */
};

/* Per-process state of the collector, indexed like rn_trace.procs. */
struct proc_state {
	uint32_t live;           /* tasks of the process still traced */
	bool killed;             /* it died in a teardown (recorded as RN_PROC_LOST) */
	bool had_children;       /* it forked a traced process (whose peak its ru_maxrss may
				 * include once reaped) */
	uint64_t ru_bytes;       /* ru_maxrss of its final wait status, bytes (0 if unknown):
				 * its own peak or that of a child it reaped, whichever is larger */
	uint64_t child_ru_bytes; /* largest ru_bytes of its child processes that ended */
	uint32_t maps_reads;     /* /proc/PID/maps snapshots taken for its current image */
	bool parent_waiting;     /* timing runs: its parent was blocked in a wait at its exit */
};

struct rn_collector {
	const struct rn_run_spec *spec; /* borrowed */
	struct rn_trace *t;             /* the trace being filled (borrowed, set by on_spawn) */
	/* tid -> task, open addressing with linear probing and backward-shift deletion */
	struct task **tasks;
	size_t tasks_cap;        /* power of two */
	size_t ntasks;           /* tasks in the map */
	size_t nexiting;         /* tasks past PTRACE_EVENT_EXIT, final status pending */
	size_t nquiet;           /* tasks with TASK_QUIET_EXIT */
	size_t nwaiting;         /* tasks with TASK_WAITING */
	size_t nnarrow;          /* tasks with TASK_NARROW */
	struct task *last;       /* the task of the previous stop (fast path) */
	struct pending *pending; /* stops of tasks not yet attributed */
	size_t npending, pending_cap;
	struct proc_state *ps; /* per-process state */
	size_t ps_cap;
	bool follow;                /* trace children and threads */
	bool seccomp;               /* entries come as seccomp stops */
	bool count_only;            /* no exit stops unless the result is needed */
	bool events_only;           /* timing run: process events only, no syscall stop */
	bool need_paths;            /* a sink or the spool wants decoded paths */
	bool quiet_exits;           /* exit stops only where VmHWM needs them */
	long opts;                  /* the PTRACE_SEIZE options */
	bool killing;               /* teardown: answer every stop with SIGKILL */
	bool attached;              /* -p: the tree was attached to, not spawned (no EXITKILL,
				     * no seccomp filter, no pinning; ends by detaching) */
	bool detaching;             /* -p teardown: every stop is answered by PTRACE_DETACH */
	struct sock_filter *bpf;    /* the seccomp program, or NULL */
	size_t bpf_len;             /* instructions in bpf */
	bool *want_exit;            /* seccomp modes: calls whose exit stop is needed */
	bool pin;                   /* pinning asked for and possible */
	bool tracer_narrow;         /* the tracer runs on cpus_one now */
	bool sparse;                /* stops are far apart now: no pinning */
	uint32_t dense_run;         /* consecutive close stops while sparse */
	uint64_t last_stop_ns;      /* time of the latest stop */
	struct watchdog wd;         /* frees a pinned task that stopped making stops */
	cpu_set_t cpus_orig;        /* the tracer's affinity before pinning */
	cpu_set_t cpus_one;         /* the one CPU */
	struct rn_elf_cache *elf;   /* ELF identities by path */
	struct rn_unwinder *unwind; /* CFI of syscall instructions (spooled callers), or NULL */
	uint64_t *inj_counts;       /* invocations per inject rule and syscall number
				     * [ninject * table size], NULL without rules */
};

/* ---- ptrace_tasks.c ---- */

/* The task of `tid`, or NULL (c->last first: the fast path). */
struct task *rn_pt_task_find(struct rn_collector *c, pid_t tid);
/* Insert `tk` into the tid map, growing it at half full. */
void rn_pt_map_add(struct rn_collector *c, struct task *tk);
/* Remove `tk` from the map (not freeing it); backward-shift keeps probe chains intact. */
void rn_pt_map_del(struct rn_collector *c, struct task *tk);
/* Per-process state of process index `proc`, grown on demand (zeroed). */
struct proc_state *rn_pt_ps_of(struct rn_collector *c, int proc);
/* A new task `tid` of process index `proc` with `flags` (enum task_flags), in the map. */
struct task *rn_pt_task_new(struct rn_collector *c, pid_t tid, int proc, uint32_t flags);
/* Free a task and what it owns (not removing it from the map). */
void rn_pt_task_free(struct task *tk);
/* Drop a task that is gone: its counters, the map, the memory. */
void rn_pt_task_forget(struct rn_collector *c, struct task *tk);
/* Mark `tk` blocked in wait4/waitid (not runnable) or not, keeping c->nwaiting. */
void rn_pt_set_waiting(struct rn_collector *c, struct task *tk, bool waiting);
/* Stop and join the pinning watchdog thread, if it runs. */
void rn_pt_watchdog_stop(struct rn_collector *c);
/* Put `tk` and the tracer on the CPU the tracer runs on now. */
void rn_pt_pin(struct rn_collector *c, struct task *tk);
/* The set of runnable tasks changed: pin a lone one, let two or more run free. */
void rn_pt_balance(struct rn_collector *c);
/* At every stop: pinning follows how fast stops come (see above). */
void rn_pt_pin_on_stop(struct rn_collector *c, uint64_t ts);

/* ---- ptrace_syscall.c ---- */

/* Read `len` bytes at `addr` of `tid` into `out`. 0 or negative errno. */
int rn_pt_read_mem(pid_t tid, uint64_t addr, void *out, size_t len);
/* Decode the path arguments of the call in flight into tk->path/path2. */
void rn_pt_decode_paths(struct task *tk);
/* VmHWM of `tid` from /proc/TID/status, bytes; 0 if unreadable. */
uint64_t rn_pt_read_vm_hwm(pid_t tid);
/* The trace model's process of `tk`. */
struct rn_process *rn_pt_proc_of(struct rn_collector *c, const struct task *tk);
/* Record the return addresses of tk's call (spooled callers), from its stack. */
void rn_pt_capture_stack(struct rn_collector *c, struct task *tk);

/* tk's on-CPU time so far, ns: the first field of /proc/TID/schedstat (sum_exec_runtime),
 * read through tk->sched_fd (opened on first use). 0 when it cannot be read (a kernel
 * without CONFIG_SCHED_INFO); a stopped tracee's value is exact. */
uint64_t rn_pt_task_cpu_ns(struct task *tk);
/* Forget tk's process memory maps (after exec): read again when next needed. */
void rn_pt_refresh_maps(struct rn_collector *c, struct task *tk);
/* Read tk's process memory maps for the symbolizer if they may have changed. */
void rn_pt_note_maps(struct rn_collector *c, struct task *tk);
/* Hand the span of tk's call to the model. */
void rn_pt_emit(struct rn_collector *c, struct task *tk, int64_t ret, int err, uint32_t flags,
		uint64_t end_ns);
/* Close tk's call in flight as one that never returned. */
void rn_pt_close_unfinished(struct rn_collector *c, struct task *tk);
/* A stop of a foreign syscall ABI (`what`): fail the run with RN_RUN_ERROR. Returns
 * -ENOTSUP. */
int rn_pt_fail_arch(struct rn_collector *c, struct task *tk, const char *what);
/* Resume `tk` (PTRACE_SYSCALL, PTRACE_CONT or PTRACE_LISTEN as its mode needs), delivering
 * `sig` (0: none). */
void rn_pt_resume(struct rn_collector *c, struct task *tk, int sig);
/* At the exit stop: the injected result (*rval, *is_error), the exit delay. Returns the
 * enum rn_syscall_flags to add to the span. */
uint32_t rn_pt_inject_exit(struct task *tk, int64_t *rval, bool *is_error);
/* A syscall-entry, seccomp or syscall-exit stop of `tk`: record and resume. 0 or negative
 * errno. */
int rn_pt_syscall_stop(struct rn_collector *c, struct task *tk);

/* ---- ptrace_proc.c ---- */

/*
 * Add task `tid`: a thread of process `proc`, or a new process whose parent is process
 * `proc` (-1: a process the tracer does not know, pid `ppid`). `narrow`: it inherited a pinned
 * affinity. *rc gets -E2BIG past max_procs.
 */
struct task *rn_pt_adopt(struct rn_collector *c, pid_t tid, bool thread, int proc, pid_t ppid,
			 bool narrow, int *rc);
/* PTRACE_EVENT_EXIT: close the call in flight, read VmHWM. */
void rn_pt_exit_event(struct rn_collector *c, struct task *tk);
/* The first stop of a task. */
int rn_pt_first_stop(struct rn_collector *c, struct task *tk);
/* A PTRACE_EVENT_* stop (`status` as wait returned it): fork/clone, exec, exit, group stop.
 * 0 or negative errno. */
int rn_pt_event_stop(struct rn_collector *c, struct task *tk, int status);
/*
 * Timing runs see no wait4 return. At a child's PTRACE_EVENT_EXIT stop (every task has one in
 * timing runs) its parent cannot have been woken by it yet: blocked in wait4/waitid (wchan
 * "do_wait") it is waiting for a child, and the child's exit is what resumes it, so the
 * critical path goes through the child (reaped_by is set when the child is gone). A parent
 * busy elsewhere did not wait for the child then, and the child is not on its path.
 */
bool rn_pt_parent_in_wait(struct rn_collector *c, const struct rn_process *p);
/* `tk` exited or was killed (`status` from wait): end its process when it led it, forget it.
 * 0 or negative errno. */
int rn_pt_task_gone(struct rn_collector *c, struct task *tk, int status);

/* ---- ptrace.h's helpers ---- */

/*
 * Index (0..5) of the `which`-th (0 or 1) path argument of syscall `nr`, or -1 when it has
 * none: openat's path is argument 1, rename's are 0 and 1. Paths are decoded from the
 * tracee's memory at syscall entry.
 */
int rn_syscall_path_arg(int nr, int which);

#endif
