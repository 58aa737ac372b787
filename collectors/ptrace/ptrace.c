
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
	p = rn_trace_add_process(t, pid, 0, rn_mono_ns());
	c->last_stop_ns = p->start_ns;
	if (!t->start_ns)
		t->start_ns = p->start_ns;
	if (c->seccomp || c->events_only) {
		/* The child waits on a pipe, running: the seccomp stops (or, for a timing run,
		 * the process events) need no ptrace resume to begin, so it makes no stop before
		 * its execve (see rn_ptrace_seize_running). */
		rn_pt_task_new(c, pid, (int)(t->nprocs - 1), TASK_HIDDEN);
	} else {
		/* The child stopped itself with SIGSTOP before exec. Seizing it turns the
		 * group-stop into a PTRACE_EVENT_STOP trap; SIGCONT now ends the group-stop
		 * itself, and is delivered (and ignored) before the exec, like strace's
		 * startup. */
		kill(pid, SIGCONT);
		rn_pt_task_new(c, pid, (int)(t->nprocs - 1), TASK_NEW | TASK_HIDDEN);
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

		rn_pt_inject_exit(tk, &rval, &is_error);
	}
	ptrace(PTRACE_DETACH, tk->tid, 0L, (long)sig);
	rn_pt_ps_of(c, tk->proc)->live--;
	rn_pt_task_forget(c, tk);
}

/* Seize thread `tid` of process index `proc` and ask it for a stop (PTRACE_INTERRUPT): its
 * PTRACE_EVENT_STOP is the first stop of a new task. 0 or -errno. */
static int seize_thread(struct rn_collector *c, pid_t tid, int proc)
{
	if (ptrace(PTRACE_SEIZE, tid, 0L, c->opts))
		return -errno;
	ptrace(PTRACE_INTERRUPT, tid, 0L, 0L);
	rn_pt_task_new(c, tid, proc, TASK_NEW);
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

		if (*end || tid <= 0 || rn_pt_task_find(c, (pid_t)tid))
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
	p = rn_trace_add_process(t, pid, ppid, rn_mono_ns());
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
	if (rc < 0 && !rn_pt_ps_of(c, proc)->live)
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
	struct task *tk = rn_pt_task_find(c, tid);
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
		rn_pt_balance(c);
		return 0;
	}
	if (c->detaching && WIFSTOPPED(status)) {
		detach_task(c, tk, status);
		return 0;
	}
	c->last = tk;
	rn_pt_pin_on_stop(c, rn_mono_ns());
	if (!WIFSTOPPED(status)) {
		rn_pt_task_gone(c, tk, status);
		return !c->ntasks && !c->npending;
	}
	if (c->killing) {
		if (status >> 16 == PTRACE_EVENT_EXIT)
			rn_pt_exit_event(c, tk);
		kill(tid, SIGKILL);
		ptrace(PTRACE_CONT, tid, 0L, 0L);
		return 0;
	}
	if (WSTOPSIG(status) == (SIGTRAP | 0x80))
		rc = rn_pt_syscall_stop(c, tk);
	else if (status >> 16)
		return rn_pt_event_stop(c, tk, status);
	else {
		/* signal-delivery-stop: inject the signal */
		tk->flags &= ~(uint32_t)TASK_NEW;
		rn_pt_resume(c, tk, WSTOPSIG(status));
		return 0;
	}
	if (rc)
		return rc;
	rn_pt_resume(c, tk, 0);
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
				t->procs[i].end_ns = t->end_ns ? t->end_ns : rn_mono_ns();
		}
	}
	rn_pt_watchdog_stop(c);
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
	rn_pt_watchdog_stop(c);
	if (c->tracer_narrow)
		sched_setaffinity(0, sizeof(c->cpus_orig), &c->cpus_orig);
	for (i = 0; i < c->tasks_cap; i++)
		if (c->tasks[i])
			rn_pt_task_free(c->tasks[i]);
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
		rn_pt_ps_of(c, c->tasks[i]->proc)->killed = true;
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

		if (rn_pt_task_find(c, pe.tid) || read_ids(pe.tid, &tgid, &ppid)) {
			i++;
			continue;
		}
		proc = rn_trace_find_process(c->t, tgid != pe.tid ? tgid : ppid);
		if (tgid != pe.tid && proc < 0) {
			i++; /* a thread of a process we do not know: its exit will come */
			continue;
		}
		c->pending[i] = c->pending[--c->npending];
		tk = rn_pt_adopt(c, pe.tid, tgid != pe.tid, proc, ppid, false, &rc);
		if (rc)
			kill(pe.tid, SIGKILL);
		rn_pt_first_stop(c, tk);
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
	struct task *tk = rn_pt_task_find(c, tid);

	if (tk)
		tk->maxrss_kb = maxrss_kb;
}

const struct sock_filter *rn_ptrace_seccomp_program(const struct rn_collector *c, size_t *len)
{
	*len = c->bpf_len;
	return c->bpf;
}
