/*
 * ptrace.c - the ptrace collector: one wait status at a time from the run loop
 * (collectors/run.c), turned into syscall spans and process events of the trace model.
 *
 * Stops and what is done with them (ptrace(2) "Stopped states"):
 *   syscall-entry-stop    record nr, args, time (and paths when a sink wants lines)
 *   seccomp stop          the same, in the filtered and count-only modes (the exit is only
 *                         asked for, with PTRACE_SYSCALL, when the call's result matters)
 *   syscall-exit-stop     complete the span, feed rn_trace_syscall()
 *   PTRACE_EVENT_FORK...  a new task: a process or a thread of the parent's process
 *   PTRACE_EVENT_EXEC     the process runs a new image (exe, ELF identity)
 *   PTRACE_EVENT_EXIT     last look at a dying task: close its call, read VmHWM
 *   PTRACE_EVENT_STOP     a new task's first stop (resume) or a group-stop (PTRACE_LISTEN)
 *   signal-delivery-stop  re-inject the signal
 *   exited / killed       the task is gone; a thread group leader ends its process
 *
 * Tasks are attached with PTRACE_SEIZE, so group-stops are told apart from signal deliveries
 * and new children start with PTRACE_EVENT_STOP.
 */
#include "ptrace/ptrace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "inject_rules.h"
#include "ptrace/internal.h"
#include "symbolize.h"
#include "unwind.h"
#include "xalloc.h"

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
	const struct rn_inject *inj;          /* the rule tampering with the call in flight,
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- task map ------------------------------------------------------------------------- */

static size_t tid_hash(pid_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static struct task *task_find(struct rn_collector *c, pid_t tid)
{
	size_t i;

	if (c->last && c->last->tid == tid)
		return c->last;
	if (!c->tasks_cap)
		return NULL;
	for (i = tid_hash(tid, c->tasks_cap); c->tasks[i]; i = (i + 1) & (c->tasks_cap - 1))
		if (c->tasks[i]->tid == tid)
			return c->tasks[i];
	return NULL;
}

static void map_insert(struct task **v, size_t cap, struct task *tk)
{
	size_t i;

	for (i = tid_hash(tk->tid, cap); v[i]; i = (i + 1) & (cap - 1))
		;
	v[i] = tk;
}

static void map_add(struct rn_collector *c, struct task *tk)
{
	if ((c->ntasks + 1) * 2 > c->tasks_cap) {
		size_t cap = c->tasks_cap ? c->tasks_cap * 2 : 64, i;
		struct task **v = rn_xcalloc(cap, sizeof(*v));

		for (i = 0; i < c->tasks_cap; i++)
			if (c->tasks[i])
				map_insert(v, cap, c->tasks[i]);
		free(c->tasks);
		c->tasks = v;
		c->tasks_cap = cap;
	}
	map_insert(c->tasks, c->tasks_cap, tk);
	c->ntasks++;
}

/* Remove `tk` from the map (not freeing it); backward-shift keeps probe chains intact. */
static void map_del(struct rn_collector *c, struct task *tk)
{
	size_t mask = c->tasks_cap - 1, i, j;

	for (i = tid_hash(tk->tid, c->tasks_cap); c->tasks[i] != tk; i = (i + 1) & mask)
		;
	c->tasks[i] = NULL;
	for (j = (i + 1) & mask; c->tasks[j]; j = (j + 1) & mask) {
		size_t home = tid_hash(c->tasks[j]->tid, c->tasks_cap);

		/* move j back to the hole i when its home is not in (i, j] (cyclically) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			c->tasks[i] = c->tasks[j];
			c->tasks[j] = NULL;
			i = j;
		}
	}
	c->ntasks--;
	if (c->last == tk)
		c->last = NULL;
}

static struct proc_state *ps_of(struct rn_collector *c, int proc)
{
	if ((size_t)proc >= c->ps_cap) {
		size_t old = c->ps_cap;

		c->ps = rn_xgrow(c->ps, &c->ps_cap, (size_t)proc + 1, sizeof(*c->ps));
		memset(c->ps + old, 0, (c->ps_cap - old) * sizeof(*c->ps));
	}
	return &c->ps[proc];
}

static struct task *task_new(struct rn_collector *c, pid_t tid, int proc, uint32_t flags)
{
	struct task *tk = rn_xcalloc(1, sizeof(*tk));

	tk->tid = tid;
	tk->proc = proc;
	tk->flags = flags;
	tk->nr = -1;
	map_add(c, tk);
	ps_of(c, proc)->live++;
	return tk;
}

static void task_free(struct task *tk)
{
	free(tk->path);
	free(tk->path2);
	free(tk->argv);
	free(tk);
}

/* Drop a task that is gone: its counters, the map, the memory. */
static void task_forget(struct rn_collector *c, struct task *tk)
{
	if (tk->flags & TASK_EXITING)
		c->nexiting--;
	if (tk->flags & TASK_WAITING)
		c->nwaiting--;
	if (tk->flags & TASK_NARROW)
		c->nnarrow--;
	if (tk->flags & TASK_QUIET_EXIT)
		c->nquiet--;
	map_del(c, tk);
	task_free(tk);
}

static void set_waiting(struct rn_collector *c, struct task *tk, bool waiting)
{
	if (!!(tk->flags & TASK_WAITING) == waiting)
		return;
	if (waiting) {
		tk->flags |= TASK_WAITING;
		c->nwaiting++;
	} else {
		tk->flags &= ~(uint32_t)TASK_WAITING;
		c->nwaiting--;
	}
}

/* ---- CPU pinning ---------------------------------------------------------------------- */

/*
 * While the tree has one runnable task, the tracer and that task share one CPU: each stop
 * then hands the CPU over directly instead of waking an idle vCPU (cross-CPU wake-ups cost
 * 100+ us on small VMs). A task blocked in wait4/waitid (without WNOHANG) is not runnable, so
 * a parent waiting for its child leaves the child pinned with the tracer. As soon as two
 * tasks may run, every narrowed task and the tracer get the original affinity back, so
 * threads and children run in parallel exactly as they would without renacer; tasks in
 * other blocking calls count as runnable (pinning never serializes work). The target cannot
 * see the pinning: sched_getaffinity answers of a narrowed task are rewritten.
 *
 * Pinning pays only while stops come fast: it saves a cross-CPU wake-up (tens of us) per
 * stop, and costs, when another job shares the chosen CPU, everything the task could have
 * run elsewhere. When two stops are more than SPARSE_GAP_NS apart the task is computing (or
 * waiting): it is let free, and pinned again after DENSE_RUN stops each closer than
 * DENSE_GAP_NS to the previous one (gzip, say, computing ~300 us between its reads, is
 * never pinned; find and tar are). A task that computes for long makes no stop at which the
 * tracer could notice: a watchdog thread lets it free once no stop came for WATCHDOG_NS.
 */
#define SPARSE_GAP_NS 200000u
#define DENSE_GAP_NS 50000u
#define DENSE_RUN 4
#define WATCHDOG_NS 5000000u

static uint64_t now_ns(void);

static void *watchdog_main(void *arg)
{
	struct watchdog *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		pid_t tid = atomic_load(&w->pinned_tid);
		struct timespec until;

		if (!tid) {
			pthread_cond_wait(&w->cv, &w->mu);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += WATCHDOG_NS;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&w->cv, &w->mu, &until);
		if (w->stop || atomic_load(&w->pinned_tid) != tid)
			continue;
		if (now_ns() - atomic_load(&w->last_stop_ns) < WATCHDOG_NS)
			continue;
		/* No stop for a while: the pinned task computes. Let it and the tracer go. */
		sched_setaffinity(tid, sizeof(w->orig), &w->orig);
		sched_setaffinity(w->tracer_tid, sizeof(w->orig), &w->orig);
		atomic_store(&w->pinned_tid, 0);
		atomic_store(&w->released, 1);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static int watchdog_start(struct rn_collector *c)
{
	struct watchdog *w = &c->wd;
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	w->tracer_tid = (pid_t)syscall(SYS_gettid);
	w->orig = c->cpus_orig;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* signals (SIGINT, the run timer) must reach the thread blocked in wait4, not this one */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, watchdog_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		return -rc;
	}
	w->running = true;
	return 0;
}

static void watchdog_stop(struct rn_collector *c)
{
	struct watchdog *w = &c->wd;

	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	w->running = false;
}

/* Tell the watchdog which task is pinned now (0: none). */
static void watchdog_watch(struct rn_collector *c, pid_t tid)
{
	struct watchdog *w = &c->wd;

	if (!w->running || atomic_load(&w->pinned_tid) == tid)
		return;
	pthread_mutex_lock(&w->mu);
	atomic_store(&w->pinned_tid, tid);
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static void set_narrow(struct rn_collector *c, struct task *tk, bool narrow)
{
	if (!!(tk->flags & TASK_NARROW) == narrow)
		return;
	if (sched_setaffinity(tk->tid, sizeof(cpu_set_t), narrow ? &c->cpus_one : &c->cpus_orig))
		return; /* gone meanwhile */
	if (narrow) {
		tk->flags |= TASK_NARROW;
		c->nnarrow++;
	} else {
		tk->flags &= ~(uint32_t)TASK_NARROW;
		c->nnarrow--;
	}
}

static void set_tracer_narrow(struct rn_collector *c, bool narrow)
{
	if (c->tracer_narrow == narrow)
		return;
	if (!sched_setaffinity(0, sizeof(cpu_set_t), narrow ? &c->cpus_one : &c->cpus_orig))
		c->tracer_narrow = narrow;
}

static void widen_all(struct rn_collector *c)
{
	size_t i;

	watchdog_watch(c, 0);
	for (i = 0; c->nnarrow && i < c->tasks_cap; i++)
		if (c->tasks[i])
			set_narrow(c, c->tasks[i], false);
	/* tasks not yet attributed may have inherited a narrowed mask */
	for (i = 0; i < c->npending; i++)
		sched_setaffinity(c->pending[i].tid, sizeof(cpu_set_t), &c->cpus_orig);
	set_tracer_narrow(c, false);
}

/* Put `tk` and the tracer on the CPU the tracer runs on now. */
static void pin(struct rn_collector *c, struct task *tk)
{
	/* the watchdog starts with the first pinning: a run that never pins never pays it */
	if (!c->wd.running && watchdog_start(c)) {
		c->pin = false;
		return;
	}
	if (!c->tracer_narrow) {
		int cpu = sched_getcpu();

		if (cpu < 0 || !CPU_ISSET(cpu, &c->cpus_orig))
			return;
		if (c->nnarrow)
			widen_all(c); /* narrowed to another CPU earlier */
		CPU_ZERO(&c->cpus_one);
		CPU_SET(cpu, &c->cpus_one);
	}
	set_narrow(c, tk, true);
	set_tracer_narrow(c, true);
	watchdog_watch(c, tk->tid);
}

/* The set of runnable tasks changed: pin a lone one, let two or more run free. */
static void balance(struct rn_collector *c)
{
	size_t runnable = c->ntasks + c->npending - c->nwaiting, i;

	if (!c->pin || c->killing)
		return;
	if (runnable >= 2 || c->npending) {
		if (c->nnarrow || c->tracer_narrow || c->npending)
			widen_all(c);
		return;
	}
	if (runnable != 1 || c->sparse)
		return;
	for (i = 0; i < c->tasks_cap; i++) {
		struct task *tk = c->tasks[i];

		if (tk && !(tk->flags & (TASK_WAITING | TASK_NEW))) {
			if (!(tk->flags & TASK_NARROW) || !c->tracer_narrow)
				pin(c, tk);
			return;
		}
	}
}

/* At every stop: pinning follows how fast stops come (see above). */
static void pin_on_stop(struct rn_collector *c, uint64_t ts)
{
	uint64_t gap = ts - c->last_stop_ns;

	c->last_stop_ns = ts;
	if (!c->pin)
		return;
	atomic_store_explicit(&c->wd.last_stop_ns, ts, memory_order_relaxed);
	if (atomic_load_explicit(&c->wd.released, memory_order_relaxed)) {
		/* the watchdog widened the pinned task and the tracer */
		size_t i;

		atomic_store(&c->wd.released, 0);
		for (i = 0; c->nnarrow && i < c->tasks_cap; i++) {
			if (c->tasks[i] && (c->tasks[i]->flags & TASK_NARROW)) {
				c->tasks[i]->flags &= ~(uint32_t)TASK_NARROW;
				c->nnarrow--;
			}
		}
		c->tracer_narrow = false;
		c->sparse = true;
		c->dense_run = 0;
		widen_all(c); /* any other narrowed task too */
		return;
	}
	if (gap > SPARSE_GAP_NS) {
		c->dense_run = 0;
		if (!c->sparse) {
			c->sparse = true;
			if (c->nnarrow || c->tracer_narrow)
				widen_all(c);
		}
	} else if (c->sparse && gap < DENSE_GAP_NS && ++c->dense_run >= DENSE_RUN) {
		c->sparse = false;
		balance(c);
	}
}

/* ---- reading the tracee --------------------------------------------------------------- */

/* Read a NUL-terminated string of at most `size` - 1 bytes at `addr` of `tid` into `out`.
 * Returns 0, 1 when it was truncated, or negative errno. Reads up to page boundaries first
 * so a string near the end of a mapping is still read. */
static int read_string(pid_t tid, uint64_t addr, char *out, size_t size)
{
	size_t got = 0;

	while (got < size - 1) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		struct iovec local, remote;
		ssize_t n;
		char *nul;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		local.iov_base = out + got;
		local.iov_len = chunk;
		remote.iov_base = (void *)(uintptr_t)(addr + got);
		remote.iov_len = chunk;
		n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n <= 0) {
			out[got] = '\0';
			return got ? 1 : (n < 0 ? -errno : -EFAULT);
		}
		nul = memchr(out + got, '\0', (size_t)n);
		if (nul)
			return 0;
		got += (size_t)n;
	}
	out[size - 1] = '\0';
	return 1;
}

static int read_mem(pid_t tid, uint64_t addr, void *out, size_t len)
{
	struct iovec local = { out, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* execve's argument vector at `vec` and the size of its environment vector at `env`, for
 * per-call lines (see rn_syscall_event.argv). */
static void decode_argv(struct task *tk, uint64_t vec, uint64_t env)
{
	const size_t slot = RN_ARGV_STR_MAX + 2;
	size_t len = 0;
	uint64_t p, chunk[64];
	uint32_t i;

	if (!tk->argv)
		tk->argv = rn_xmalloc(RN_ARGV_MAX * slot);
	tk->nargv = 0;
	tk->argv_more = false;
	for (i = 0; vec && i <= RN_ARGV_MAX; i++) {
		if (read_mem(tk->tid, vec + i * sizeof(p), &p, sizeof(p)) || !p)
			break;
		if (i == RN_ARGV_MAX) {
			tk->argv_more = true;
			break;
		}
		if (read_string(tk->tid, p, tk->argv + len, slot) < 0)
			tk->argv[len] = '\0';
		len += strlen(tk->argv + len) + 1;
		tk->nargv++;
	}
	tk->has_argv = vec != 0;
	/* the environment: only its size is shown */
	tk->env_known = false;
	tk->nenv = 0;
	for (p = env; env && tk->nenv < 1000000;) {
		size_t k, got = sizeof(chunk) / sizeof(chunk[0]);

		/* a whole chunk may cross into an unmapped page: then one pointer at a time */
		if (read_mem(tk->tid, p, chunk, sizeof(chunk))) {
			got = 1;
			if (read_mem(tk->tid, p, chunk, sizeof(chunk[0])))
				return;
		}
		p += got * sizeof(chunk[0]);
		for (k = 0; k < got; k++) {
			if (!chunk[k]) {
				tk->env_known = true;
				return;
			}
			tk->nenv++;
		}
	}
}

/* The destination of connect() and sendto() in tk->path, as "inet 127.0.0.1:9",
 * "inet6 [::1]:9", "unix /run/x.sock" or "unix @abstract" (other families are left out):
 * the network endpoints of behaviour equivalence (assertions/equivalence.h). */
static void decode_sockaddr(struct task *tk, uint64_t addr, uint64_t len)
{
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN];
	const struct sockaddr_un *un = (const void *)&ss;
	const struct sockaddr_in *in4 = (const void *)&ss;
	const struct sockaddr_in6 *in6 = (const void *)&ss;
	size_t n;

	if (!addr || len < sizeof(sa_family_t))
		return;
	if (len > sizeof(ss))
		len = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	if (read_mem(tk->tid, addr, &ss, (size_t)len))
		return;
	if (!tk->path)
		tk->path = rn_xmalloc(RN_PATH_MAX);
	if (ss.ss_family == AF_INET && inet_ntop(AF_INET, &in4->sin_addr, host, sizeof(host))) {
		snprintf(tk->path, RN_PATH_MAX, "inet %s:%u", host, ntohs(in4->sin_port));
	} else if (ss.ss_family == AF_INET6 &&
		   inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host))) {
		snprintf(tk->path, RN_PATH_MAX, "inet6 [%s]:%u", host, ntohs(in6->sin6_port));
	} else if (ss.ss_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path)) {
		n = (size_t)len - offsetof(struct sockaddr_un, sun_path);
		if (n > sizeof(un->sun_path) - 1)
			n = sizeof(un->sun_path) - 1;
		if (un->sun_path[0])
			snprintf(tk->path, RN_PATH_MAX, "unix %.*s", (int)strnlen(un->sun_path, n),
				 un->sun_path);
		else
			snprintf(tk->path, RN_PATH_MAX, "unix @%.*s", (int)(n ? n - 1 : 0),
				 un->sun_path + 1);
	} else {
		return;
	}
	tk->has_path = true;
}

/* Decode the path arguments of the call in flight into tk->path/path2. */
static void decode_paths(struct task *tk)
{
	int a0 = rn_syscall_path_arg(tk->nr, 0);
	int a1 = rn_syscall_path_arg(tk->nr, 1);
	const struct rn_sysnrs *n = rn_sysnrs();
	int rc;

	if (tk->nr == n->execve)
		decode_argv(tk, tk->args[1], tk->args[2]);
	else if (tk->nr == n->execveat)
		decode_argv(tk, tk->args[2], tk->args[3]);
	else if (tk->nr == SYS_connect)
		decode_sockaddr(tk, tk->args[1], tk->args[2]);
	else if (tk->nr == SYS_sendto)
		decode_sockaddr(tk, tk->args[4], tk->args[5]);
	if (a0 < 0)
		return;
	if (!tk->path)
		tk->path = rn_xmalloc(RN_PATH_MAX);
	rc = read_string(tk->tid, tk->args[a0], tk->path, RN_PATH_MAX);
	tk->has_path = rc >= 0;
	if (rc == 1)
		tk->sc_flags |= RN_SC_PATH_TRUNC;
	if (a1 < 0)
		return;
	if (!tk->path2)
		tk->path2 = rn_xmalloc(RN_PATH_MAX);
	rc = read_string(tk->tid, tk->args[a1], tk->path2, RN_PATH_MAX);
	tk->has_path2 = rc >= 0;
	if (rc == 1)
		tk->sc_flags |= RN_SC_PATH_TRUNC;
}

/* VmHWM of `tid` from /proc/TID/status, bytes; 0 if unreadable. */
static uint64_t read_vm_hwm(pid_t tid)
{
	char path[64], buf[4096];
	const char *p;
	uint64_t kb = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	if (!p)
		return 0;
	for (p += 7; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		kb = kb * 10 + (uint64_t)(*p - '0');
	return kb * 1024;
}

/* ---- recording ------------------------------------------------------------------------ */

static struct rn_process *proc_of(struct rn_collector *c, const struct task *tk)
{
	return &c->t->procs[tk->proc];
}

/*
 * Caller capture (spooled spans only). At a syscall-entry stop the registers are the user's:
 * the syscall instruction sits in a libc wrapper, and libc is usually built without frame
 * pointers, so the wrapper's caller is taken first (the word at rsp plus the offset the
 * wrapper's CFI row gives for the instruction, 0 for a wrapper that pushed nothing,
 * collectors/unwind.h; the link register on aarch64), then
 * the frame-pointer chain from rbp (x29), which such a wrapper leaves untouched, gives the
 * callers above it. One PTRACE_GETREGSET and one process_vm_readv of at most STACK_WINDOW
 * bytes per span bound the cost; a chain that leaves the window, goes down or is misaligned
 * ends the walk.
 */
#define STACK_WINDOW 4096
#define STACK_FRAMES 8

static void push_ret(struct task *tk, uint64_t ret)
{
	if (!ret || tk->nstack >= RN_SYSCALL_STACK_MAX ||
	    (tk->nstack && tk->stack[tk->nstack - 1] == ret))
		return;
	tk->stack[tk->nstack++] = ret;
}

#if defined(__x86_64__)
static uint64_t ra_offset(struct rn_collector *c, struct task *tk, uint64_t pc);
static void cfi_walk(struct rn_collector *c, struct task *tk, uint64_t pc, uint64_t sp);
static bool in_runtime(struct rn_collector *c, struct task *tk, uint64_t addr);
#endif

static void capture_stack(struct rn_collector *c, struct task *tk)
{
	uint64_t win[STACK_WINDOW / 8], top = 0, sp, fp, cur;
	struct iovec local[2], remote[3];
	unsigned long nremote = 0, nlocal = 0;
	bool have_win = false;
	size_t win_len, first;
	ssize_t n;
	int k;
#if defined(__x86_64__)
	struct user_regs_struct regs;
#else
	struct user_pt_regs regs;
#endif
	struct iovec rv = { &regs, sizeof(regs) };

	tk->nstack = 0;
	if (ptrace(PTRACE_GETREGSET, tk->tid, (void *)NT_PRSTATUS, &rv))
		return;
#if defined(__x86_64__)
	sp = regs.rsp;
	fp = regs.rbp;
	local[nlocal++] = (struct iovec){ &top, sizeof(top) };
	remote[nremote++] =
		(struct iovec){ (void *)(uintptr_t)(sp + ra_offset(c, tk, regs.rip)), sizeof(top) };
#else
	(void)c;
	sp = regs.sp;
	fp = regs.regs[29];
	push_ret(tk, regs.regs[30]);
#endif
	local[nlocal++] = (struct iovec){ win, sizeof(win) };
	/* The frame chain is above the stack pointer. Split the window at its first page end, so
	 * a window that runs past the top of the stack still yields its first page (the kernel
	 * stops at the first remote iovec it cannot read in full). */
	if (fp >= sp && !(fp & 7) && fp - sp < (64u << 20)) {
		first = 4096 - (fp & 4095);
		if (first > STACK_WINDOW)
			first = STACK_WINDOW;
		remote[nremote++] = (struct iovec){ (void *)(uintptr_t)fp, first };
		have_win = true;
		if (first < STACK_WINDOW)
			remote[nremote++] = (struct iovec){ (void *)(uintptr_t)(fp + first),
							    STACK_WINDOW - first };
	}
	if (!nremote)
		return;
	n = process_vm_readv(tk->tid, local, nlocal, remote, nremote, 0);
	if (n <= 0)
		return;
#if defined(__x86_64__)
	if (n < (ssize_t)sizeof(top))
		return;
	push_ret(tk, top);
	n -= (ssize_t)sizeof(top);
	/* made deeper inside the C runtime (stdio's fopen calls open64): its frames' CFI leads
	 * to the first caller outside it */
	if (in_runtime(c, tk, top))
		cfi_walk(c, tk, regs.rip, sp);
#endif
	if (!have_win)
		return;
	win_len = (size_t)n;
	/* a frame record at fp: the saved fp, then the return address */
	cur = fp;
	for (k = 0; k < STACK_FRAMES && tk->nstack < RN_SYSCALL_STACK_MAX; k++) {
		uint64_t off = cur - fp, next;

		if (cur < fp || (cur & 7) || off + 16 > win_len)
			break;
		next = win[off / 8];
		push_ret(tk, win[off / 8 + 1]);
		if (next <= cur)
			break;
		cur = next;
	}
}

/* Keep a /proc/PID/maps snapshot that covers the captured addresses: taken at the first
 * captured span of the image and again when an address falls outside every mapping (a
 * library loaded since), at most MAPS_READS times per image; the exit stop takes the last. */
#define MAPS_READS 32

static void refresh_maps(struct rn_collector *c, struct task *tk)
{
	struct rn_process *p = proc_of(c, tk);
	struct rn_maps *m;

	if (rn_maps_read(p->pid, &m))
		return;
	rn_maps_free(p->maps);
	p->maps = m;
}

#if defined(__x86_64__)
/* How far above the stack pointer the return address of the function that holds the
 * syscall instruction is: its CFI row says (collectors/unwind.h), so a libc wrapper with a
 * frame of its own (open64) still names its caller; 0, the word at rsp, when unknown. */
static uint64_t ra_offset(struct rn_collector *c, struct task *tk, uint64_t pc)
{
	struct rn_process *p = proc_of(c, tk);
	struct proc_state *ps = ps_of(c, tk->proc);
	uint64_t off;

	if (!c->unwind)
		c->unwind = rn_unwinder_new();
	if ((!p->maps || !rn_maps_find(p->maps, pc)) && ps->maps_reads < MAPS_READS) {
		ps->maps_reads++;
		refresh_maps(c, tk);
	}
	if (!p->maps || rn_unwind_ra_offset(c->unwind, p->maps, pc, &off) || off >= STACK_WINDOW)
		return 0;
	return off;
}

/* Whether `addr` lies in a C runtime module (rn_module_is_runtime) of tk's process. */
static bool in_runtime(struct rn_collector *c, struct task *tk, uint64_t addr)
{
	const struct rn_maps *m = proc_of(c, tk)->maps;
	const struct rn_map *map = m ? rn_maps_find(m, addr) : NULL;

	return map && map->path && rn_module_is_runtime(map->path);
}

/* Follow the call-frame information from the syscall instruction at `pc` (stack pointer
 * `sp`) through frames of the C runtime, at most CFI_FRAMES of them within one CFI_WINDOW read
 * from sp, and keep the first return address outside it. Functions whose CFA is not the
 * stack pointer plus a constant end the walk (collectors/unwind.h). */
#define CFI_FRAMES 12
#define CFI_WINDOW 4096

static void cfi_walk(struct rn_collector *c, struct task *tk, uint64_t pc, uint64_t sp)
{
	uint64_t win[CFI_WINDOW / 8], cur = sp, off, ra;
	struct iovec local = { win, sizeof(win) }, remote[2];
	size_t first = 4096 - (sp & 4095), len;
	unsigned long nremote = 1;
	ssize_t n;
	int k;

	if (!proc_of(c, tk)->maps || (sp & 7))
		return;
	if (first > CFI_WINDOW)
		first = CFI_WINDOW;
	remote[0] = (struct iovec){ (void *)(uintptr_t)sp, first };
	if (first < CFI_WINDOW)
		remote[nremote++] =
			(struct iovec){ (void *)(uintptr_t)(sp + first), CFI_WINDOW - first };
	n = process_vm_readv(tk->tid, &local, 1, remote, nremote, 0);
	if (n <= 0)
		return;
	len = (size_t)n;
	for (k = 0; k < CFI_FRAMES; k++) {
		/* a return address is looked up at the call instruction before it */
		if (rn_unwind_ra_offset(c->unwind, proc_of(c, tk)->maps, k ? pc - 1 : pc, &off) ||
		    (off & 7) || cur - sp + off + 8 > len)
			return;
		ra = win[(cur - sp + off) / 8];
		cur += off + 8;
		if (!in_runtime(c, tk, ra)) {
			push_ret(tk, ra);
			return;
		}
		pc = ra;
	}
}
#endif

static void note_maps(struct rn_collector *c, struct task *tk)
{
	struct rn_process *p = proc_of(c, tk);
	struct proc_state *ps = ps_of(c, tk->proc);
	int i;

	if (p->maps) {
		for (i = 0; i < tk->nstack; i++)
			if (!rn_maps_find(p->maps, tk->stack[i]))
				break;
		if (i == tk->nstack)
			return;
	}
	if (ps->maps_reads >= MAPS_READS)
		return;
	ps->maps_reads++;
	refresh_maps(c, tk);
}

/* Hand the span of tk's call to the model. */
static void emit(struct rn_collector *c, struct task *tk, int64_t ret, int err, uint32_t flags,
		 uint64_t end_ns)
{
	struct rn_syscall_event ev;
	struct rn_process *p = proc_of(c, tk);

	ev.pid = p->pid;
	ev.tid = tk->tid;
	ev.nr = tk->nr;
	ev.flags = flags | tk->sc_flags;
	memcpy(ev.args, tk->args, sizeof(ev.args));
	ev.ret = ret;
	ev.err = err;
	ev.start_ns = tk->start_ns;
	ev.duration_ns = end_ns > tk->start_ns ? end_ns - tk->start_ns : 0;
	ev.path = tk->has_path ? tk->path : NULL;
	ev.path2 = tk->has_path2 ? tk->path2 : NULL;
	ev.argv = tk->has_argv ? tk->argv : NULL;
	ev.nargv = tk->has_argv ? tk->nargv : 0;
	ev.argv_more = tk->has_argv && tk->argv_more;
	ev.env_known = tk->env_known;
	ev.nenv = tk->nenv;
	ev.nstack = tk->nstack;
	memcpy(ev.stack, tk->stack, sizeof(ev.stack));
	rn_trace_syscall(c->t, p, &ev);
}

/* Close tk's call in flight as one that never returned. */
static void close_unfinished(struct rn_collector *c, struct task *tk)
{
	set_waiting(c, tk, false);
	if (!(tk->flags & TASK_IN_SYSCALL))
		return;
	tk->flags &= ~(uint32_t)(TASK_IN_SYSCALL | TASK_WANT_EXIT);
	if (!(tk->flags & TASK_SC_HIDDEN))
		emit(c, tk, 0, 0, RN_SC_UNFINISHED, tk->start_ns);
}

static int fail_arch(struct rn_collector *c, struct task *tk, const char *what)
{
	struct rn_process *p = proc_of(c, tk);

	rn_trace_fail(c->t, RN_RUN_ERROR,
		      "target '%s': process %d ('%s') makes %s system calls, which renacer does "
		      "not support (it traces " NATIVE_ARCH_NAME " system calls only)",
		      c->spec->name ? c->spec->name : "?", (int)p->pid, p->comm ? p->comm : "?",
		      what);
	return -ENOTSUP;
}

/* ---- resuming --------------------------------------------------------------------------- */

static void resume(struct rn_collector *c, struct task *tk, int sig)
{
	int req = PTRACE_SYSCALL;

	if (c->killing)
		req = PTRACE_CONT;
	else if ((c->seccomp || c->events_only) && !(tk->flags & TASK_WANT_EXIT))
		req = PTRACE_CONT;
	/* ESRCH: the task was killed meanwhile; its exit status follows */
	ptrace(req, tk->tid, 0L, (long)sig);
}

/* ---- syscall stops ---------------------------------------------------------------------- */

static bool filtered_out(const struct rn_collector *c, int nr)
{
	const bool *f = c->spec->syscall_filter;

	return f && (nr < 0 || nr >= rn_syscall_table_size() || !f[nr]);
}

/* ---- tampering (--inject, inject_rules.h) ---------------------------------------------- */

/* Hold the stopped task `ns` nanoseconds: the tracer sleeps (an interrupt cuts it short). */
static void inject_sleep(uint64_t ns)
{
	struct timespec d = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&d, NULL);
}

/* Make the kernel skip the call at this entry stop: syscall number -1, as strace does (the
 * kernel reads the number again after a syscall-entry or seccomp stop). 0 or -errno. */
static int skip_syscall(pid_t tid)
{
#if defined(__x86_64__)
	if (ptrace(PTRACE_POKEUSER, tid, (void *)offsetof(struct user, regs.orig_rax), (void *)-1L))
		return -errno;
	return 0;
#else
	int nr = -1;
	struct iovec io = { &nr, sizeof(nr) };

	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL, &io) ? -errno : 0;
#endif
}

/* Set the return value the task sees at this exit stop. 0 or -errno. */
static int set_return(pid_t tid, int64_t v)
{
#if defined(__x86_64__)
	if (ptrace(PTRACE_POKEUSER, tid, (void *)offsetof(struct user, regs.rax), (void *)v))
		return -errno;
	return 0;
#else
	struct user_regs_struct regs;
	struct iovec io = { &regs, sizeof(regs) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &io))
		return -errno;
	regs.regs[0] = (uint64_t)v;
	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &io) ? -errno : 0;
#endif
}

/* The rule that applies to this invocation of `nr`, counted: the last rule naming the call
 * (strace's order), if its when= takes this invocation; else NULL. */
static const struct rn_inject *inject_match(struct rn_collector *c, int nr)
{
	const struct rn_run_spec *spec = c->spec;
	int n = rn_syscall_table_size();

	if (nr < 0 || nr >= n)
		return NULL;
	for (size_t r = spec->ninject; r-- > 0;) {
		if (!spec->inject[r].set[nr])
			continue;
		return rn_inject_when(&spec->inject[r],
				      ++c->inj_counts[r * (size_t)n + (size_t)nr]) ?
			&spec->inject[r] :
			NULL;
	}
	return NULL;
}

/* At the entry stop of a call of the traced program: apply the rule that matches. */
static void inject_entry(struct rn_collector *c, struct task *tk, int nr)
{
	const struct rn_inject *inj = inject_match(c, nr);

	tk->inj = inj;
	if (!inj)
		return;
	/* signal=: queued to the stopped thread now, delivered as the call returns (or
	 * interrupting it, as strace's). A resume with the signal would do at a syscall-entry
	 * stop, but the kernel drops the signal of a resume from a seccomp stop. */
	if (inj->actions & RN_INJECT_SIGNAL)
		syscall(SYS_tgkill, proc_of(c, tk)->pid, tk->tid, inj->signo);
	if (inj->actions & RN_INJECT_DELAY_ENTER)
		inject_sleep(inj->delay_enter_ns);
	if ((inj->actions & (RN_INJECT_ERROR | RN_INJECT_RETVAL)) && skip_syscall(tk->tid))
		tk->inj = NULL; /* the task is gone (killed meanwhile): its exit follows */
	if (inj->actions & (RN_INJECT_ERROR | RN_INJECT_RETVAL | RN_INJECT_DELAY_EXIT))
		tk->flags |= TASK_WANT_EXIT;
}

/* At the exit stop: the injected result (*rval, *is_error), the exit delay. Returns the
 * enum rn_syscall_flags to add to the span. */
static uint32_t inject_exit(struct task *tk, int64_t *rval, bool *is_error)
{
	const struct rn_inject *inj = tk->inj;
	uint32_t flags = 0;

	tk->inj = NULL;
	if (!inj)
		return 0;
	if (inj->actions & (RN_INJECT_ERROR | RN_INJECT_RETVAL)) {
		int64_t v = inj->actions & RN_INJECT_ERROR ? -(int64_t)inj->error : inj->retval;

		if (!set_return(tk->tid, v)) {
			*rval = v;
			*is_error = (inj->actions & RN_INJECT_ERROR) != 0;
			flags |= RN_SC_INJECTED;
		}
	}
	if (inj->actions & RN_INJECT_DELAY_EXIT)
		inject_sleep(inj->delay_exit_ns);
	if (inj->actions & (RN_INJECT_DELAY_ENTER | RN_INJECT_DELAY_EXIT))
		flags |= RN_SC_DELAYED;
	return flags;
}

static int syscall_entry(struct rn_collector *c, struct task *tk, int nr, const uint64_t *args,
			 uint64_t ts)
{
	const struct rn_sysnrs *n = rn_sysnrs();

	tk->nr = nr;
	memcpy(tk->args, args, sizeof(tk->args));
	tk->start_ns = ts;
	tk->sc_flags = 0;
	tk->flags |= TASK_IN_SYSCALL;
	tk->flags &= ~(uint32_t)(TASK_SC_HIDDEN | TASK_WANT_EXIT);
	tk->has_path = false;
	tk->has_path2 = false;
	tk->has_argv = false;
	tk->env_known = false;
	if (tk->flags & TASK_HIDDEN) {
		/* strace shows the root from its execve on; so do the counts */
		if (nr == n->execve || nr == n->execveat)
			tk->flags &= ~(uint32_t)TASK_HIDDEN;
		else
			tk->flags |= TASK_SC_HIDDEN;
	} else if ((nr == n->execve || nr == n->execveat) && proc_of(c, tk)->exec_ns) {
		/* An image the process got by exec is about to be replaced: its peak RSS is part
		 * of the process's (the largest of its images'), and VmHWM restarts with the new
		 * mm. A fork child's first image is a copy of its parent's memory and is left
		 * out, as wait4's ru_maxrss is for a process that exec'd. */
		struct rn_process *p = proc_of(c, tk);
		uint64_t hwm = read_vm_hwm(tk->tid);

		if (hwm > p->vm_hwm_bytes)
			p->vm_hwm_bytes = hwm;
	}
	if (filtered_out(c, nr) || c->events_only)
		tk->flags |= TASK_SC_HIDDEN; /* a timing run stops only for --inject */
	tk->inj = NULL;
	/* strace tampers with the calls it traces (-e trace=SET) only, from the exec on */
	if (c->inj_counts && !(tk->flags & TASK_HIDDEN) && !filtered_out(c, nr))
		inject_entry(c, tk, nr);
	tk->nstack = 0;
	if (c->need_paths && !(tk->flags & TASK_SC_HIDDEN))
		decode_paths(tk);
	/* the caller is kept with spooled spans only: the counting path stays as cheap as
	 * strace's */
	if (c->t->spool && !(tk->flags & TASK_SC_HIDDEN)) {
		capture_stack(c, tk);
		if (tk->nstack)
			note_maps(c, tk);
	}
	if ((nr == n->wait4 && !(args[2] & WNOHANG)) || (nr == n->waitid && !(args[3] & WNOHANG))) {
		set_waiting(c, tk, true);
		balance(c);
	}
	if (!c->seccomp)
		return 0;
	/* Seccomp modes: the exit stop is needed for a duration (filtered mode), or for a
	 * result the model needs (reaping, allocations, the affinity answer). */
	if ((!c->count_only && !(tk->flags & TASK_SC_HIDDEN)) || (tk->flags & TASK_WANT_EXIT) ||
	    (nr >= 0 && nr < rn_syscall_table_size() && c->want_exit[nr])) {
		tk->flags |= TASK_WANT_EXIT;
		return 0;
	}
	/* Count-only: the call is counted at its entry, without duration or result; exit and
	 * exit_group never return, and strace -c does not count them. */
	tk->flags &= ~(uint32_t)TASK_IN_SYSCALL;
	if (!(tk->flags & TASK_SC_HIDDEN))
		emit(c, tk, 0, 0, nr == n->exit || nr == n->exit_group ? RN_SC_UNFINISHED : 0, ts);
	return 0;
}

/* A wait4/waitid of a traced process returned a child: remember who reaped whom (the
 * critical-path metric follows these edges). The tracer always sees a traced child's exit
 * before its real parent can reap it, so the child has ended in the model already. */
static void note_reap(struct rn_collector *c, struct task *tk, int64_t ret, uint64_t ts)
{
	const struct rn_sysnrs *n = rn_sysnrs();
	pid_t child = 0;
	int idx;

	if (tk->nr == n->wait4) {
		child = (pid_t)ret;
	} else if (tk->nr == n->waitid && ret == 0 && tk->args[2]) {
		int32_t pid_field;

		if (tk->args[3] & WNOWAIT)
			return;
		/* siginfo_t: si_signo, si_errno, si_code, padding, then si_pid at offset 16 */
		if (read_mem(tk->tid, tk->args[2] + 16, &pid_field, sizeof(pid_field)))
			return;
		child = pid_field;
	}
	if (child <= 0)
		return;
	idx = rn_trace_find_process(c->t, child);
	if (idx < 0 || c->t->procs[idx].end == RN_PROC_RUNNING || c->t->procs[idx].reaped_by >= 0)
		return;
	c->t->procs[idx].reaped_by = tk->proc;
	c->t->procs[idx].reaped_ns = ts;
}

/* A narrowed task must still see its real affinity: rewrite the answer. */
static void fix_affinity_answer(struct rn_collector *c, struct task *tk, int64_t ret)
{
	struct iovec local, remote;
	size_t len = (size_t)ret;

	if (!(tk->flags & TASK_NARROW) || ret <= 0)
		return;
	if (len > sizeof(c->cpus_orig))
		len = sizeof(c->cpus_orig);
	local.iov_base = &c->cpus_orig;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)tk->args[2];
	remote.iov_len = len;
	process_vm_writev(tk->tid, &local, 1, &remote, 1, 0);
}

static void syscall_exit(struct rn_collector *c, struct task *tk, int64_t rval, bool is_error,
			 uint64_t ts)
{
	const struct rn_sysnrs *n = rn_sysnrs();
	int err = is_error ? (int)-rval : 0;
	uint32_t flags = 0;

	if (!(tk->flags & TASK_IN_SYSCALL))
		return; /* an exit whose entry was not seen (attach mid-call) */
	tk->flags &= ~(uint32_t)(TASK_IN_SYSCALL | TASK_WANT_EXIT);
	if (tk->inj) {
		flags |= inject_exit(tk, &rval, &is_error);
		err = is_error ? (int)-rval : 0;
	}
	if (tk->flags & TASK_WAITING) {
		set_waiting(c, tk, false);
		balance(c);
	}
	if (err && rn_errno_is_restart(err))
		flags |= RN_SC_RESTARTED;
	if (!err) {
		if (tk->nr == n->wait4 || tk->nr == n->waitid)
			note_reap(c, tk, rval, ts);
		else if (tk->nr == n->sched_getaffinity)
			fix_affinity_answer(c, tk, rval);
	}
	if (!(tk->flags & TASK_SC_HIDDEN))
		emit(c, tk, rval, err, flags, ts);
}

static int syscall_stop(struct rn_collector *c, struct task *tk)
{
	struct __ptrace_syscall_info info;
	uint64_t ts = now_ns();
	long n;

	c->t->unfiltered_stops++;
	n = ptrace(PTRACE_GET_SYSCALL_INFO, tk->tid, (void *)sizeof(info), &info);
	if (n <= 0)
		return 0; /* killed meanwhile */
	if (info.arch != NATIVE_AUDIT_ARCH)
		return fail_arch(c, tk, info.arch == AUDIT_ARCH_I386 ? "i386 (32-bit)" : "foreign");
	switch (info.op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
#ifdef X32_SYSCALL_BIT
		if (info.entry.nr & X32_SYSCALL_BIT)
			return fail_arch(c, tk, "x32");
#endif
		return syscall_entry(c, tk, (int)info.entry.nr, info.entry.args, ts);
	case PTRACE_SYSCALL_INFO_SECCOMP:
#ifdef X32_SYSCALL_BIT
		if (info.seccomp.nr & X32_SYSCALL_BIT)
			return fail_arch(c, tk, "x32");
#endif
		return syscall_entry(c, tk, (int)info.seccomp.nr, info.seccomp.args, ts);
	case PTRACE_SYSCALL_INFO_EXIT:
		syscall_exit(c, tk, info.exit.rval, info.exit.is_error, ts);
		return 0;
	default:
		return 0;
	}
}

/* ---- process events --------------------------------------------------------------------- */

static int check_proc_limit(struct rn_collector *c)
{
	if (!c->spec->max_procs || c->t->nprocs <= c->spec->max_procs)
		return 0;
	rn_trace_fail(c->t, RN_RUN_LIMIT, "target '%s': more than %llu processes (max_procs)",
		      c->spec->name ? c->spec->name : "?", (unsigned long long)c->spec->max_procs);
	return -E2BIG;
}

static int first_stop(struct rn_collector *c, struct task *tk);

/*
 * Exit stops. PTRACE_EVENT_EXIT is where VmHWM is read, and it costs a stop per task. In the
 * seccomp modes (few stops, so each counts) it is kept only where wait4's ru_maxrss cannot
 * stand in: for a process that exec'd (Linux carries ru_maxrss across execve, so it would
 * include the image before the exec) and for one that forked processes (its ru_maxrss
 * includes the children it reaped). Every new task starts quiet, a process leaves quiet at its
 * first exec or fork, and a quiet process's peak is its ru_maxrss, exact for a process that
 * neither exec'd nor forked (its mm's high-water mark started at its RSS at fork). Options
 * are per task and change only at a stop of that task.
 */
static void set_exit_stop(struct rn_collector *c, struct task *tk, bool on)
{
	if (!c->quiet_exits || !(tk->flags & TASK_QUIET_EXIT) == on)
		return;
	if (ptrace(PTRACE_SETOPTIONS, tk->tid, 0L,
		   on ? c->opts : c->opts & ~(long)PTRACE_O_TRACEEXIT))
		return; /* killed meanwhile */
	if (on) {
		tk->flags &= ~(uint32_t)TASK_QUIET_EXIT;
		c->nquiet--;
	} else {
		tk->flags |= TASK_QUIET_EXIT;
		c->nquiet++;
	}
}

/*
 * Add task `tid`: a thread of process `proc`, or a new process whose parent is process
 * `proc` (-1: a process the tracer does not know, pid `ppid`). `narrow`: it inherited a pinned
 * affinity. *rc gets -E2BIG past max_procs.
 */
static struct task *adopt(struct rn_collector *c, pid_t tid, bool thread, int proc, pid_t ppid,
			  bool narrow, int *rc)
{
	struct task *tk;

	*rc = 0;
	if (thread) {
		c->t->procs[proc].nthreads++;
		tk = task_new(c, tid, proc, TASK_NEW);
	} else {
		struct rn_process *p =
			rn_trace_add_process(c->t, tid, proc >= 0 ? c->t->procs[proc].pid : ppid,
					     now_ns());
		const struct rn_process *pp = proc >= 0 ? &c->t->procs[proc] : NULL;

		/* (pp is read after the add, which may move the array) */
		if (pp && pp->exe) {
			rn_process_set_exe(p, pp->exe);
			memcpy(p->build_id, pp->build_id, sizeof(p->build_id));
			p->elf_machine = pp->elf_machine;
		}
		tk = task_new(c, tid, (int)(c->t->nprocs - 1), TASK_NEW);
		rn_trace_process_event(c->t, p, 'f');
		*rc = check_proc_limit(c);
	}
	if (narrow) {
		tk->flags |= TASK_NARROW;
		c->nnarrow++;
	}
	balance(c);
	return tk;
}

/* A new task `tid` made by `parent`: a thread of its process or a new process. */
static int new_child(struct rn_collector *c, struct task *parent, pid_t tid, int event)
{
	const struct rn_sysnrs *n = rn_sysnrs();
	bool thread = false, shares_vm = event == PTRACE_EVENT_VFORK;
	struct task *tk;
	size_t i;
	int rc = 0;

	if (event == PTRACE_EVENT_CLONE && !c->seccomp && !c->events_only) {
		uint64_t flags = 0;

		/* The parent's clone/clone3 entry tells a thread from a process. */
		if (parent->nr == n->clone)
			flags = parent->args[0];
		else if (parent->nr == n->clone3)
			read_mem(parent->tid, parent->args[0], &flags, sizeof(flags));
		thread = flags & CLONE_THREAD;
		shares_vm = flags & CLONE_VM;
	} else if (event == PTRACE_EVENT_CLONE) {
		/* Seccomp modes do not stop at clone: a thread is listed under its group. */
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)proc_of(c, parent)->pid,
			 (int)tid);
		thread = !access(path, F_OK);
	}
	if (task_find(c, tid))
		return 0; /* already known (pid reuse races are not possible while traced) */
	if (!thread) {
		ps_of(c, parent->proc)->had_children = true;
		set_exit_stop(c, parent, true);
	}
	tk = adopt(c, tid, thread, parent->proc, 0, parent->flags & TASK_NARROW, &rc);
	if (!thread) /* its memory accounting starts as a copy of the parent's image, or empty */
		rn_trace_image_fork(c->t, proc_of(c, tk), &c->t->procs[parent->proc], shares_vm);
	/* Its first stop may have come before this event. */
	for (i = 0; i < c->npending; i++) {
		if (c->pending[i].tid != tid)
			continue;
		c->pending[i] = c->pending[--c->npending];
		if (!rc)
			rc = first_stop(c, tk);
		else
			kill(tid, SIGKILL);
		break;
	}
	return rc;
}

/* PTRACE_EVENT_EXEC; returns the task that has the stop (its tid may have changed) and sets
 * *known when the new exe path was read (exec_identify finishes the exec after the resume). */
static struct task *exec_event(struct rn_collector *c, struct task *tk, bool *known)
{
	unsigned long former = 0;
	char path[64], exe[RN_PATH_MAX];
	struct rn_process *p;
	ssize_t len;

	ptrace(PTRACE_GETEVENTMSG, tk->tid, 0L, &former);
	if ((pid_t)former != tk->tid && former) {
		/* A non-leader thread exec'd: it now has the leader's tid; the leader vanished
		 * without an exit report, its call in flight cut off. */
		struct task *moved = task_find(c, (pid_t)former);

		if (moved && moved != tk) {
			close_unfinished(c, tk);
			ps_of(c, tk->proc)->live--;
			task_forget(c, tk);
			map_del(c, moved);
			moved->tid = (pid_t)(c->t->procs[moved->proc].pid);
			map_add(c, moved);
			tk = moved;
		}
	}
	tk->flags &= ~(uint32_t)TASK_HIDDEN;
	set_exit_stop(c, tk, true);
	p = proc_of(c, tk);
	p->exec_ns = now_ns();
	/* a new image: its memory accounting restarts (no mappings, no program break) */
	rn_trace_image_end(c->t, p);
	/* a new image: the mappings of the old one would misattribute the next spans */
	rn_maps_free(p->maps);
	p->maps = NULL;
	ps_of(c, tk->proc)->maps_reads = 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)tk->tid);
	len = readlink(path, exe, sizeof(exe) - 1);
	p->build_id[0] = '\0';
	p->elf_machine = 0;
	if (len > 0) {
		exe[len] = '\0';
		rn_process_set_exe(p, exe);
	}
	*known = len > 0;
	return tk;
}

/* The rest of an exec, once its task runs again: reading the binary's ELF identity (open,
 * mmap, the notes: tens of us) overlaps with the new image's start-up instead of stopping
 * it. The path was read in the stop; a file replaced at that path in between is the same
 * window any path-based reader has. Then the process event, so sinks see the identity. */
static void exec_identify(struct rn_collector *c, struct rn_process *p, bool known)
{
	if (known) {
		uint64_t bss = 0;

		rn_elf_identify(&c->elf, p->exe, &p->elf_machine, p->build_id);
		/* the new image's zero-filled data, mapped by the kernel at exec */
		if (!rn_elf_zero_fill(&c->elf, p->exe, &bss))
			rn_trace_image_map(c->t, p, bss);
	}
	rn_trace_process_event(c->t, p, 'e');
}

static bool parent_in_wait(struct rn_collector *c, const struct rn_process *p);

static void exit_event(struct rn_collector *c, struct task *tk)
{
	struct proc_state *ps = ps_of(c, tk->proc);
	struct rn_process *p = proc_of(c, tk);

	close_unfinished(c, tk);
	if (tk->flags & TASK_EXITING)
		return;
	tk->flags |= TASK_EXITING;
	c->nexiting++;
	if (ps->live)
		ps->live--;
	/* The last thread: the address space is still there (PTRACE_EVENT_EXIT comes before
	 * exit_mm), so VmHWM is the peak RSS of the image the process runs. Quiet threads may
	 * outlive the leader without an exit stop: read it at the leader's too. */
	if (!ps->live || (c->nquiet && tk->tid == p->pid)) {
		uint64_t hwm = read_vm_hwm(tk->tid);

		if (c->events_only && !ps->live)
			ps->parent_waiting = parent_in_wait(c, p);
		if (hwm > p->vm_hwm_bytes)
			p->vm_hwm_bytes = hwm;
		/* the final mappings of a process whose spans carry callers */
		if (p->maps)
			refresh_maps(c, tk);
	}
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* The first stop of a task. */
static int first_stop(struct rn_collector *c, struct task *tk)
{
	tk->flags &= ~(uint32_t)TASK_NEW;
	set_exit_stop(c, tk, false);
	balance(c);
	resume(c, tk, 0);
	return 0;
}

static int event_stop(struct rn_collector *c, struct task *tk, int status)
{
	int event = status >> 16, sig = WSTOPSIG(status);
	unsigned long msg = 0;
	bool known;
	int rc = 0;

	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		ptrace(PTRACE_GETEVENTMSG, tk->tid, 0L, &msg);
		rc = new_child(c, tk, (pid_t)msg, event);
		break;
	case PTRACE_EVENT_EXEC:
		tk = exec_event(c, tk, &known);
		c->last = tk;
		resume(c, tk, 0);
		exec_identify(c, proc_of(c, tk), known);
		return 0;
	case PTRACE_EVENT_EXIT:
		exit_event(c, tk);
		break;
	case PTRACE_EVENT_SECCOMP:
		rc = syscall_stop(c, tk);
		break;
	case PTRACE_EVENT_STOP:
		if (tk->flags & TASK_NEW)
			return first_stop(c, tk);
		if (is_stop_signal(sig)) {
			/* group-stop: stay stopped until SIGCONT, without a ptrace-stop that would
			 * hide the job-control state */
			ptrace(PTRACE_LISTEN, tk->tid, 0L, 0L);
			return 0;
		}
		break;
	default:
		break;
	}
	if (rc)
		return rc;
	resume(c, tk, 0);
	return 0;
}

/* ---- a task is gone ----------------------------------------------------------------------- */

/*
 * Timing runs see no wait4 return. At a child's PTRACE_EVENT_EXIT stop (every task has one in
 * timing runs) its parent cannot have been woken by it yet: blocked in wait4/waitid (wchan
 * "do_wait") it is waiting for a child, and the child's exit is what resumes it, so the
 * critical path goes through the child (reaped_by is set when the child is gone). A parent
 * busy elsewhere did not wait for the child then, and the child is not on its path.
 */
static bool parent_in_wait(struct rn_collector *c, const struct rn_process *p)
{
	char path[64], wchan[64];
	ssize_t n;
	int fd;

	if (p->parent < 0 || c->t->procs[p->parent].end != RN_PROC_RUNNING)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)c->t->procs[p->parent].pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, wchan, sizeof(wchan) - 1);
	close(fd);
	if (n <= 0)
		return false;
	wchan[n] = '\0';
	return !strcmp(wchan, "do_wait") || !strcmp(wchan, "__do_wait") ||
		!strcmp(wchan, "kernel_waitid") || !strcmp(wchan, "do_wait_pid");
}

static int task_gone(struct rn_collector *c, struct task *tk, int status)
{
	struct proc_state *ps = ps_of(c, tk->proc);
	struct rn_process *p = proc_of(c, tk);
	uint64_t ts = now_ns();

	close_unfinished(c, tk);
	if (!(tk->flags & TASK_EXITING) && ps->live)
		ps->live--;
	if (tk->tid == p->pid) {
		/*
		 * wait4's ru_maxrss is a floor only where it means this process's own peak:
		 * Linux carries it across execve (so after an exec it includes the pre-exec
		 * image, for the root a copy of renacer), and it includes the children the
		 * process reaped. So: never for a process that exec'd, and for one that reaped
		 * children only when it exceeds theirs.
		 */
		uint64_t ru = (uint64_t)tk->maxrss_kb * 1024;

		ps->ru_bytes = ru;
		if (ru > p->vm_hwm_bytes && !p->exec_ns &&
		    (!ps->had_children || ru > ps->child_ru_bytes))
			p->vm_hwm_bytes = ru;
		if (p->parent >= 0 && ru > ps_of(c, p->parent)->child_ru_bytes)
			ps_of(c, p->parent)->child_ru_bytes = ru;
		/* The leader's exit is reported after all its threads': the process is over. */
		rn_process_set_end(p, status, c->killing || ps->killed);
		p->end_ns = ts;
		if (ts > c->t->end_ns)
			c->t->end_ns = ts;
		/* its mappings are gone: they leave the tree's current total */
		rn_trace_image_end(c->t, p);
		if (ps->parent_waiting && !c->killing && p->reaped_by < 0) {
			p->reaped_by = p->parent;
			p->reaped_ns = ts;
		}
		rn_trace_process_event(c->t, p, 'x');
	}
	task_forget(c, tk);
	balance(c);
	return 0;
}

/* ---- the ops ----------------------------------------------------------------------------- */

static const char *pt_unavailable(void)
{
	return NULL;
}

/* Build the seccomp program: SECCOMP_RET_TRACE for the traced numbers, ALLOW for the rest.
 * Calls of a foreign ABI (i386, x32) are traced so they can be reported as unsupported. */
static void build_bpf(struct rn_collector *c, const bool *traced)
{
	int n = rn_syscall_table_size(), lo, hi;
	size_t cap = 8 + 3 * (size_t)n, k = 0;
	struct sock_filter *f = rn_xcalloc(cap, sizeof(*f));

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
#ifdef X32_SYSCALL_BIT
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
#endif
	/* one test per run of consecutive traced numbers */
	for (lo = 0; lo < n; lo = hi + 1) {
		if (!traced[lo]) {
			hi = lo;
			continue;
		}
		for (hi = lo; hi + 1 < n && traced[hi + 1]; hi++)
			;
		if (lo == hi) {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							      (uint32_t)lo, 0, 1);
		} else {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
							      (uint32_t)lo, 0, 2);
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K,
							      (uint32_t)hi, 1, 0);
		}
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	c->bpf = f;
	c->bpf_len = k;
}

static void set_nr(bool *v, int nr)
{
	if (nr >= 0 && nr < rn_syscall_table_size())
		v[nr] = true;
}

static bool filtered_out_spec(const struct rn_run_spec *spec, int nr)
{
	return spec->syscall_filter && !spec->syscall_filter[nr];
}

/* The calls of the --inject rules: traced, and their exits wanted where a rule sets a result
 * or an exit delay. Under -e trace=SET only those in SET: strace tampers with traced calls
 * only. */
static void add_injected(const struct rn_run_spec *spec, bool *traced, bool *want_exit)
{
	int n = rn_syscall_table_size();

	for (size_t r = 0; r < spec->ninject; r++) {
		const struct rn_inject *inj = &spec->inject[r];
		bool exit =
			inj->actions & (RN_INJECT_ERROR | RN_INJECT_RETVAL | RN_INJECT_DELAY_EXIT);

		for (int i = 0; i < n; i++) {
			if (!inj->set[i] || filtered_out_spec(spec, i))
				continue;
			traced[i] = true;
			if (exit)
				want_exit[i] = true;
		}
	}
}

static int pt_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	struct rn_collector *c = rn_xcalloc(1, sizeof(*c));
	int n = rn_syscall_table_size(), i;

	c->spec = spec;
	c->follow = spec->flags & RN_RUN_FOLLOW_FORKS;
	c->count_only = spec->flags & RN_RUN_COUNT_ONLY;
	c->events_only = spec->flags & RN_RUN_EVENTS_ONLY;
	c->seccomp = c->count_only || spec->syscall_filter;
	if (spec->nattach) {
		/* -p: a running process installs no filter; -e trace= is applied at each stop,
		 * and its children are followed */
		c->attached = true;
		c->follow = true;
		c->seccomp = false;
		c->count_only = false;
	}
	if (spec->ninject)
		c->inj_counts = rn_xcalloc(spec->ninject * (size_t)n, sizeof(*c->inj_counts));
	if (c->events_only && spec->ninject) {
		/* A timing run with --inject: stops for the injected calls only (their entries
		 * through the filter, their exits where a result or a delay needs them). */
		bool *traced = rn_xcalloc((size_t)n, sizeof(*traced));

		c->seccomp = true;
		c->want_exit = rn_xcalloc((size_t)n, sizeof(*c->want_exit));
		add_injected(spec, traced, c->want_exit);
		build_bpf(c, traced);
		free(traced);
	} else if (c->events_only) {
		/* Timing runs: no syscall stops at all, not even a seccomp filter (a filter on
		 * the wait-family calls alone put every syscall on the kernel's slow entry path:
		 * +16% on 100,000 getppid here). Who waited for whom comes from the parent's
		 * wchan at each child's exit stop (parent_in_wait). No pinning: with so few
		 * stops there is no hand-off to speed up. */
		c->seccomp = false;
	} else if (c->seccomp) {
		const struct rn_sysnrs *nr = rn_sysnrs();
		bool *traced = rn_xcalloc((size_t)n, sizeof(*traced));

		c->want_exit = rn_xcalloc((size_t)n, sizeof(*c->want_exit));
		for (i = 0; i < n; i++)
			traced[i] = !spec->syscall_filter || spec->syscall_filter[i];
		/* Count-only mode sees every call, with the results the model needs: reaping and
		 * blocking waits (wait4/waitid, for reaped_by and the pinning). The filtered mode
		 * sees the named calls only (without waits, pinning just never counts a waiting
		 * parent out). Both see the affinity answer, rewritten while pinned. */
		if (!spec->syscall_filter) {
			set_nr(c->want_exit, nr->wait4);
			set_nr(c->want_exit, nr->waitid);
		}
		if (spec->flags & RN_RUN_PIN_CPU) {
			set_nr(traced, nr->sched_getaffinity);
			set_nr(c->want_exit, nr->sched_getaffinity);
		}
		add_injected(spec, traced, c->want_exit);
		if (c->count_only) {
			/* allocation accounting needs the results of the memory calls */
			set_nr(c->want_exit, nr->mmap);
			set_nr(c->want_exit, nr->munmap);
			set_nr(c->want_exit, nr->mremap);
			set_nr(c->want_exit, nr->brk);
		}
		build_bpf(c, traced);
		free(traced);
	}
	*out = c;
	return 0;
}

static int pt_prepare(struct rn_collector *c, struct rn_strvec *env)
{
	(void)env;
	/* Pinning needs two CPUs to choose from, and every child to be seen: an untraced child
	 * would inherit the narrowed affinity of its parent and keep it. */
	if ((c->spec->flags & RN_RUN_PIN_CPU) && c->follow && !c->events_only && !c->attached &&
	    !sched_getaffinity(0, sizeof(c->cpus_orig), &c->cpus_orig) &&
	    CPU_COUNT(&c->cpus_orig) >= 2)
		c->pin = true;
	return 0;
}

static int pt_on_spawn(struct rn_collector *c, pid_t pid, struct rn_trace *t)
{
	long opts =
		PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	struct rn_process *p;

	c->t = t;
	c->need_paths = t->nsinks > 0 || t->spool;
	/* the spool keeps callers, whose final mappings are read at the exit stop */
	c->quiet_exits = c->seccomp && !c->events_only && !t->spool;
	if (c->follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE;
	if (c->seccomp)
		opts |= PTRACE_O_TRACESECCOMP;
	c->opts = opts;
	t->filtered = c->spec->syscall_filter != NULL;
	t->counts_only = c->count_only;
	t->events_only = c->events_only;
	if (ptrace(PTRACE_SEIZE, pid, 0L, opts))
		return -errno;
	p = rn_trace_add_process(t, pid, 0, now_ns());
	c->last_stop_ns = p->start_ns;
	if (!t->start_ns)
		t->start_ns = p->start_ns;
	if (c->seccomp || c->events_only) {
		/* The child waits on a pipe, running: the seccomp stops (or, for a timing run,
		 * the process events) need no ptrace resume to begin, so it makes no stop before
		 * its execve (see rn_ptrace_seize_running). */
		task_new(c, pid, (int)(t->nprocs - 1), TASK_HIDDEN);
	} else {
		/* The child stopped itself with SIGSTOP before exec. Seizing it turns the
		 * group-stop into a PTRACE_EVENT_STOP trap; SIGCONT now ends the group-stop
		 * itself, and is delivered (and ignored) before the exec, like strace's
		 * startup. */
		kill(pid, SIGCONT);
		task_new(c, pid, (int)(t->nprocs - 1), TASK_NEW | TASK_HIDDEN);
	}
	rn_trace_process_event(t, p, 'f');
	return 0;
}

/* ---- attaching and detaching (-p) ------------------------------------------------------ */

static int read_ids(pid_t tid, pid_t *tgid, pid_t *ppid);

/* The -p teardown: task `tk` stopped; let it go, with the signal it was about to receive
 * (a signal-delivery-stop), so it runs on as if never traced. */
static void detach_task(struct rn_collector *c, struct task *tk, int status)
{
	int sig = 0;

	if (!(status >> 16) && WSTOPSIG(status) != (SIGTRAP | 0x80) && !(tk->flags & TASK_NEW))
		sig = WSTOPSIG(status);
	if (tk->inj && WSTOPSIG(status) == (SIGTRAP | 0x80) && (tk->flags & TASK_IN_SYSCALL)) {
		/* a call skipped at its entry still gets its injected result */
		int64_t rval = 0;
		bool is_error = false;

		inject_exit(tk, &rval, &is_error);
	}
	ptrace(PTRACE_DETACH, tk->tid, 0L, (long)sig);
	ps_of(c, tk->proc)->live--;
	task_forget(c, tk);
}

/* Seize thread `tid` of process index `proc` and ask it for a stop (PTRACE_INTERRUPT): its
 * PTRACE_EVENT_STOP is the first stop of a new task. 0 or -errno. */
static int seize_thread(struct rn_collector *c, pid_t tid, int proc)
{
	if (ptrace(PTRACE_SEIZE, tid, 0L, c->opts))
		return -errno;
	ptrace(PTRACE_INTERRUPT, tid, 0L, 0L);
	task_new(c, tid, proc, TASK_NEW);
	return 0;
}

/* Seize every thread of /proc/PID/task not traced yet. Returns the number seized, or -errno
 * when none could be and `first` (the process's first scan). */
static int seize_threads(struct rn_collector *c, pid_t pid, int proc, bool first)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0, rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0 || task_find(c, (pid_t)tid))
			continue;
		rc = seize_thread(c, (pid_t)tid, proc);
		if (!rc) {
			if (n || !first)
				c->t->procs[proc].nthreads++;
			n++;
		} else if (rc != -ESRCH) {
			break; /* EPERM: not ours to trace */
		}
	}
	closedir(d);
	if (!n && first)
		return rc ? rc : -ESRCH;
	return n;
}

int rn_ptrace_attach(struct rn_collector *c, pid_t pid, struct rn_trace *t)
{
	char path[64], exe[4096];
	struct rn_process *p;
	pid_t tgid = 0, ppid = 0;
	ssize_t len;
	int rc, proc, round;

	c->t = t;
	c->need_paths = t->nsinks > 0 || t->spool;
	c->opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
		PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE;
	t->filtered = c->spec->syscall_filter != NULL;
	rc = read_ids(pid, &tgid, &ppid);
	if (rc)
		return rc == -ENOENT ? -ESRCH : rc;
	if (tgid != pid)
		return -EINVAL; /* a thread id: -p takes processes */
	if (rn_trace_find_process(t, pid) >= 0)
		return 0; /* named twice */
	p = rn_trace_add_process(t, pid, ppid, now_ns());
	proc = (int)(t->nprocs - 1);
	if (!t->start_ns)
		t->start_ns = p->start_ns;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	len = readlink(path, exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		rn_process_set_exe(p, exe);
		rn_elf_identify(&c->elf, exe, &p->elf_machine, p->build_id);
	}
	/* Threads made while the scan runs are seized by their creator's clone event once it is
	 * traced; before that they must be found by another scan (strace's loop). */
	rc = seize_threads(c, pid, proc, true);
	for (round = 0; rc > 0 && round < 8; round++)
		rc = seize_threads(c, pid, proc, false);
	if (rc < 0 && !ps_of(c, proc)->live)
		return rc;
	rn_trace_process_event(t, &t->procs[proc], 'f');
	return 0;
}

void rn_ptrace_detach(struct rn_collector *c)
{
	if (c->detaching || !c->attached)
		return;
	c->detaching = true;
	/* Each task answers the interrupt with a stop (a task stopped already, its stop queued,
	 * is detached when the stop is served); stops of new children are detached as they
	 * come. */
	for (size_t i = 0; i < c->tasks_cap; i++)
		if (c->tasks[i])
			ptrace(PTRACE_INTERRUPT, c->tasks[i]->tid, 0L, 0L);
	for (size_t i = 0; i < c->npending; i++)
		ptrace(PTRACE_DETACH, c->pending[i].tid, 0L, 0L);
	c->npending = 0;
}

static int pt_on_event(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status)
{
	struct task *tk = task_find(c, tid);
	int rc = 0;

	(void)t;
	if (!tk) {
		if (!WIFSTOPPED(status)) {
			size_t i;

			for (i = 0; i < c->npending; i++)
				if (c->pending[i].tid == tid)
					c->pending[i--] = c->pending[--c->npending];
			return !c->ntasks && !c->npending;
		}
		if (c->killing) {
			kill(tid, SIGKILL);
			ptrace(PTRACE_CONT, tid, 0L, 0L);
			return 0;
		}
		if (c->detaching) {
			ptrace(PTRACE_DETACH, tid, 0L, 0L); /* a new child: let it go too */
			return 0;
		}
		/* A new task whose parent's fork event is still to come: keep it stopped. */
		c->pending =
			rn_xgrow(c->pending, &c->pending_cap, c->npending + 1, sizeof(*c->pending));
		c->pending[c->npending++] = (struct pending){ tid, status };
		balance(c);
		return 0;
	}
	if (c->detaching && WIFSTOPPED(status)) {
		detach_task(c, tk, status);
		return 0;
	}
	c->last = tk;
	pin_on_stop(c, now_ns());
	if (!WIFSTOPPED(status)) {
		task_gone(c, tk, status);
		return !c->ntasks && !c->npending;
	}
	if (c->killing) {
		if (status >> 16 == PTRACE_EVENT_EXIT)
			exit_event(c, tk);
		kill(tid, SIGKILL);
		ptrace(PTRACE_CONT, tid, 0L, 0L);
		return 0;
	}
	if (WSTOPSIG(status) == (SIGTRAP | 0x80))
		rc = syscall_stop(c, tk);
	else if (status >> 16)
		return event_stop(c, tk, status);
	else {
		/* signal-delivery-stop: inject the signal */
		tk->flags &= ~(uint32_t)TASK_NEW;
		resume(c, tk, WSTOPSIG(status));
		return 0;
	}
	if (rc)
		return rc;
	resume(c, tk, 0);
	return 0;
}

static int pt_finish(struct rn_collector *c, struct rn_trace *t)
{
	size_t i;

	/* Anything left over (a tree that could not be reaped) is lost, not running. */
	for (i = 0; i < t->nprocs; i++) {
		if (t->procs[i].end == RN_PROC_RUNNING) {
			t->procs[i].end = RN_PROC_LOST;
			if (!t->procs[i].end_ns)
				t->procs[i].end_ns = t->end_ns ? t->end_ns : now_ns();
		}
	}
	watchdog_stop(c);
	/* the watchdog may have widened the tracer already; one more call is harmless */
	if (c->tracer_narrow)
		sched_setaffinity(0, sizeof(c->cpus_orig), &c->cpus_orig);
	c->tracer_narrow = false;
	return 0;
}

static void pt_destroy(struct rn_collector *c)
{
	size_t i;

	if (!c)
		return;
	watchdog_stop(c);
	if (c->tracer_narrow)
		sched_setaffinity(0, sizeof(c->cpus_orig), &c->cpus_orig);
	for (i = 0; i < c->tasks_cap; i++)
		if (c->tasks[i])
			task_free(c->tasks[i]);
	free(c->tasks);
	free(c->pending);
	free(c->ps);
	free(c->bpf);
	free(c->want_exit);
	free(c->inj_counts);
	rn_elf_cache_free(c->elf);
	rn_unwinder_free(c->unwind);
	free(c);
}

const struct rn_collector_ops rn_ptrace_collector = {
	.name = "ptrace",
	.unavailable = pt_unavailable,
	.create = pt_create,
	.prepare = pt_prepare,
	.on_spawn = pt_on_spawn,
	.on_event = pt_on_event,
	.finish = pt_finish,
	.destroy = pt_destroy,
};

/* ---- hooks of the run loop ---------------------------------------------------------------- */

void rn_ptrace_kill_tree(struct rn_collector *c)
{
	size_t i;

	if (c->killing)
		return;
	c->killing = true;
	for (i = 0; i < c->tasks_cap; i++) {
		if (!c->tasks[i])
			continue;
		ps_of(c, c->tasks[i]->proc)->killed = true;
		kill(c->tasks[i]->tid, SIGKILL);
	}
	for (i = 0; i < c->npending; i++) {
		kill(c->pending[i].tid, SIGKILL);
		ptrace(PTRACE_CONT, c->pending[i].tid, 0L, 0L);
	}
	c->npending = 0;
}

size_t rn_ptrace_runnable_tasks(const struct rn_collector *c)
{
	return c->ntasks + c->npending - c->nwaiting;
}

/* Tgid and PPid of `tid` from /proc/TID/status. 0 or negative errno. */
static int read_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], buf[2048];
	const char *keys[2] = { "\nTgid:", "\nPPid:" };
	pid_t *out[2] = { tgid, ppid };
	ssize_t n;
	int fd, k;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	for (k = 0; k < 2; k++) {
		const char *p = strstr(buf, keys[k]);
		pid_t v = 0;

		if (!p)
			return -EIO;
		for (p += 6; *p == ' ' || *p == '\t'; p++)
			;
		for (; *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (*p - '0');
		*out[k] = v;
	}
	return 0;
}

void rn_ptrace_idle(struct rn_collector *c)
{
	size_t i = 0;

	/* New tasks whose parent's fork event has not come (the parent may have been killed
	 * between clone and its event stop, and then it never comes): ask /proc who they are
	 * rather than leave them stopped. */
	while (i < c->npending && !c->killing) {
		struct pending pe = c->pending[i];
		pid_t tgid, ppid;
		struct task *tk;
		int proc, rc;

		if (task_find(c, pe.tid) || read_ids(pe.tid, &tgid, &ppid)) {
			i++;
			continue;
		}
		proc = rn_trace_find_process(c->t, tgid != pe.tid ? tgid : ppid);
		if (tgid != pe.tid && proc < 0) {
			i++; /* a thread of a process we do not know: its exit will come */
			continue;
		}
		c->pending[i] = c->pending[--c->npending];
		tk = adopt(c, pe.tid, tgid != pe.tid, proc, ppid, false, &rc);
		if (rc)
			kill(pe.tid, SIGKILL);
		first_stop(c, tk);
	}
}

bool rn_ptrace_seize_running(const struct rn_collector *c)
{
	return c->seccomp || c->events_only;
}

bool rn_ptrace_wants_rusage(const struct rn_collector *c)
{
	return c->nexiting || c->nquiet || c->killing;
}

void rn_ptrace_final_rusage(struct rn_collector *c, pid_t tid, long maxrss_kb)
{
	struct task *tk = task_find(c, tid);

	if (tk)
		tk->maxrss_kb = maxrss_kb;
}

const struct sock_filter *rn_ptrace_seccomp_program(const struct rn_collector *c, size_t *len)
{
	*len = c->bpf_len;
	return c->bpf;
}
