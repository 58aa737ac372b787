/*
 * ptrace_tasks.c - the ptrace collector's tasks: the tid -> task map, per-process state, and
 * CPU pinning with its watchdog thread (ptrace/internal.h).
 */
#include "ptrace/internal.h"

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
#include "symbolize.h"
#include "unwind.h"
#include "xalloc.h"

/* ---- task map ------------------------------------------------------------------------- */

static size_t tid_hash(pid_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

struct task *rn_pt_task_find(struct rn_collector *c, pid_t tid)
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

void rn_pt_map_add(struct rn_collector *c, struct task *tk)
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
void rn_pt_map_del(struct rn_collector *c, struct task *tk)
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

struct proc_state *rn_pt_ps_of(struct rn_collector *c, int proc)
{
	if ((size_t)proc >= c->ps_cap) {
		size_t old = c->ps_cap;

		c->ps = rn_xgrow(c->ps, &c->ps_cap, (size_t)proc + 1, sizeof(*c->ps));
		memset(c->ps + old, 0, (c->ps_cap - old) * sizeof(*c->ps));
	}
	return &c->ps[proc];
}

struct task *rn_pt_task_new(struct rn_collector *c, pid_t tid, int proc, uint32_t flags)
{
	struct task *tk = rn_xcalloc(1, sizeof(*tk));

	tk->tid = tid;
	tk->proc = proc;
	tk->flags = flags;
	tk->nr = -1;
	tk->sched_fd = -1;
	rn_pt_map_add(c, tk);
	rn_pt_ps_of(c, proc)->live++;
	return tk;
}

void rn_pt_task_free(struct task *tk)
{
	if (tk->sched_fd >= 0)
		close(tk->sched_fd);
	free(tk->path);
	free(tk->path2);
	free(tk->argv);
	free(tk);
}

/* Drop a task that is gone: its counters, the map, the memory. */
void rn_pt_task_forget(struct rn_collector *c, struct task *tk)
{
	if (tk->flags & TASK_EXITING)
		c->nexiting--;
	if (tk->flags & TASK_WAITING)
		c->nwaiting--;
	if (tk->flags & TASK_NARROW)
		c->nnarrow--;
	if (tk->flags & TASK_QUIET_EXIT)
		c->nquiet--;
	rn_pt_map_del(c, tk);
	rn_pt_task_free(tk);
}

void rn_pt_set_waiting(struct rn_collector *c, struct task *tk, bool waiting)
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
		if (rn_mono_ns() - atomic_load(&w->last_stop_ns) < WATCHDOG_NS)
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

void rn_pt_watchdog_stop(struct rn_collector *c)
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
void rn_pt_pin(struct rn_collector *c, struct task *tk)
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
void rn_pt_balance(struct rn_collector *c)
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
				rn_pt_pin(c, tk);
			return;
		}
	}
}

/* At every stop: pinning follows how fast stops come (see above). */
void rn_pt_pin_on_stop(struct rn_collector *c, uint64_t ts)
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
		rn_pt_balance(c);
	}
}
