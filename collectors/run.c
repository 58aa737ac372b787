/*
 * run.c - run one target once: spawn it, let the collectors watch it, wait for the whole tree,
 * enforce the wall-clock limit, and turn SIGINT/SIGTERM into a clean teardown.
 *
 * The loop reads like strace's main:
 *
 *     start the target (clone sharing memory until the exec, child setup, wait to be
 *     seized: SIGSTOP or the go pipe, collectors' on_spawn, SIGCONT or the go byte)
 *     while (dispatch(r, next_event(r)))
 *             ;
 *     finish (exec failure report, collectors' finish, memory summary, status)
 *
 * The run's driver (driver.h: "ptrace" for counting runs, "ptrace-events" for timing runs)
 * gets every wait status of the tree through its ops table; the loop ends when wait4 reports
 * no tracee left (ECHILD), so no process can stay in ptrace-stop. That wait4(-1) also reaps
 * any other child of the calling process that ends during the run: the runner must not keep
 * children of its own running across rn_run_target(). Without a driver (no selected collector
 * drives), a plain loop waits for the root alone (wait4's ru_maxrss is then the
 * root's only memory figure, and it includes the image of renacer the root was forked from).
 *
 * Signals: SIGINT/SIGTERM handlers and a CLOCK_MONOTONIC timer (SIGALRM) are installed for
 * the run, without SA_RESTART, so a blocked wait4 returns EINTR; after the deadline or an
 * interrupt the timer re-fires every RETRY_NS, closing the window between checking the flags
 * and blocking. The target gets the dispositions renacer inherited, SIGPIPE and SIGXFSZ back
 * to their defaults (renacer itself ignores them), and renacer's signal mask.
 */
#include "collector.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cpuset.h"
#include "driver.h"
#include "elf_id.h"
#include "guard.h"
#include "internal.h"
#include "log.h"
#include "now.h"
#include "xalloc.h"

extern char **environ;

/* Most bytes of stdout/stderr kept by RN_STDIO_CAPTURE. */
#define CAPTURE_MAX ((size_t)16 << 20)
/* Wait statuses queued by one drain of wait4(WNOHANG). */
#define QUEUE_MAX 256
/* Re-fire period of the timer after the deadline or an interrupt, so a signal that lands
 * just before wait4 blocks is acted on within this time (ns). */
#define RETRY_NS 10000000

/* Kinds of event of the run loop (enum run_event_kind). */
enum run_event_kind {
	EV_STATUS,    /* a wait status of a task: recorded, then handed to the driver */
	EV_TIMEOUT,   /* the wall-clock limit expired: status TIMED_OUT, kill the tree */
	EV_INTERRUPT, /* renacer got SIGINT/SIGTERM: status INTERRUPTED, kill the tree */
	EV_NONE_LEFT, /* wait4 says no child or tracee is left: the loop ends */
};

struct run_event {
	enum run_event_kind kind; /* what happened */
	pid_t pid;                /* EV_STATUS: the task */
	int status;               /* EV_STATUS: its wait status */
	long maxrss_kb;           /* EV_STATUS: ru_maxrss of wait4, KiB */
	bool have_ru;             /* EV_STATUS: wait4 was asked for rusage */
};

/* The stack of the child between its clone and its exec, bytes. */
#define CHILD_STACK (64 * 1024)

/* What the child reports through the CLOEXEC pipe when it cannot exec (enum child_stage). */
enum child_stage {
	STAGE_EXEC = 1, /* execve failed */
	STAGE_CWD,      /* chdir failed */
	STAGE_STDIO,    /* /dev/null or dup2 failed */
	STAGE_RLIMIT,   /* setrlimit(RLIMIT_AS) failed */
	STAGE_SECCOMP,  /* the seccomp filter could not be installed */
};

struct child_report {
	int32_t stage; /* enum child_stage */
	int32_t err;   /* errno */
};

struct selected {
	const struct rn_collector_ops *ops; /* from the registry */
	struct rn_collector *c;             /* its state for this run */
};

struct run {
	const struct rn_run_spec *spec;
	struct rn_trace *t;
	struct rn_run_result *res;
	struct selected sel[RN_NCOLLECTORS]; /* the collectors of this run: each at most once */
	int nsel;
	const struct rn_loop_ops *drv; /* the run's loop owner, or NULL (plain loop) */
	struct rn_collector *dc;       /* the state of the collector it drives, or NULL */
	const char *name;              /* target name for messages */
	char *exe;                     /* argv[0] resolved through PATH, owned */
	struct rn_strvec env;          /* the child's environment */
	int report_pipe[2];            /* child -> parent exec failure report */
	int go_pipe[2];    /* parent -> child "seized, go on" (seize_running), else -1 */
	void *child_stack; /* the child's stack until its exec (CLONE_VM), or NULL */
	/* What the child reads of the parent's state that the parent changes after the clone
	 * (they share memory until the exec): set before the clone, never written after. */
	struct {
		int report_fd;        /* report_pipe[1] */
		int go_fd, go_wr;     /* go_pipe[0], go_pipe[1] (-1: stop with SIGSTOP) */
		const sigset_t *mask; /* the signal mask to restore */
		bool guard_landlock;  /* the guard is a Landlock domain (guard.h) */
	} cc;
	int capture_fd[3];             /* capture files (stdout, stderr), -1 if none */
	pid_t root;                    /* the target's first process */
	long self_maxrss_kb;           /* renacer's own peak RSS when the root was about to exec,
				     * KiB (self_peak): the child shares (CLONE_VM) or copies
				     * (fork) renacer's memory until its exec, and the kernel keeps
				     * that in ru_maxrss */
	bool root_done;                /* its final wait status was seen */
	int root_status;               /* that status */
	bool killing;                  /* the tree was told to die */
	uint64_t deadline_ns;          /* CLOCK_MONOTONIC deadline, 0 = none */
	struct run_event q[QUEUE_MAX]; /* wait statuses drained, not yet dispatched */
	size_t qhead, qlen;
	struct run_event ev;                          /* the event being dispatched */
	struct sigaction old_int, old_term, old_alrm; /* dispositions before the run */
	struct sigaction old_hup, old_quit;
};

/* ---- signals ---------------------------------------------------------------------------- */

static volatile sig_atomic_t interrupted_sig; /* SIGINT/SIGTERM received, sticky */
static volatile sig_atomic_t alarm_seen;      /* the timer fired since the last check */
static volatile sig_atomic_t have_timer;      /* run_timer is valid */
static timer_t run_timer;

int rn_run_interrupted(void)
{
	return interrupted_sig;
}

static void arm_retry(void)
{
	struct itimerspec its = { { 0, RETRY_NS }, { 0, RETRY_NS } };

	if (have_timer)
		timer_settime(run_timer, 0, &its, NULL); /* async-signal-safe */
}

static void on_signal(int sig)
{
	if (sig == SIGALRM) {
		alarm_seen = 1;
		return;
	}
	interrupted_sig = sig;
	arm_retry();
}

void rn_run_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* outside a run nothing waits on the tree: a read or write the signal lands in goes on,
	 * and the command looks at rn_run_interrupted() at its next step */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* ---- preparing the spawn -------------------------------------------------------------- */

static void build_env(struct run *r)
{
	char **e;

	rn_strvec_init(&r->env);
	for (e = environ; e && *e; e++)
		rn_strvec_env_set(&r->env, *e);
	for (e = (char **)r->spec->env_add; e && *e; e++)
		rn_strvec_env_set(&r->env, *e);
	if (r->spec->traceparent && !(r->spec->flags & RN_RUN_NO_PROPAGATE))
		rn_strvec_env_setkv(&r->env, "TRACEPARENT", r->spec->traceparent);
}

static bool is_executable_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/*
 * Resolve argv[0] through PATH before the fork, as strace does: the child then makes exactly
 * one execve, so the execve count matches strace's. A name with a '/' is used as given.
 * Returns 0 or -ENOENT.
 */
static int resolve_exe(struct run *r)
{
	const char *name = r->spec->argv[0], *path, *p;
	struct rn_buf b;

	if (strchr(name, '/')) {
		r->exe = rn_xstrdup(name);
		return 0;
	}
	path = rn_strvec_env_get(&r->env, "PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	rn_buf_init(&b, 0);
	for (p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		rn_buf_reset(&b);
		if (len)
			rn_buf_add(&b, p, len);
		else
			rn_buf_addc(&b, '.');
		rn_buf_addf(&b, "/%s", name);
		if (is_executable_file(b.buf)) {
			r->exe = rn_buf_detach(&b, NULL);
			return 0;
		}
		if (!end)
			break;
		p = end;
	}
	rn_buf_release(&b);
	return -ENOENT;
}

static int open_capture(void)
{
	char tmpl[] = "/tmp/renacer-capture-XXXXXX";
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(tmpl);
	return fd;
}

/* The root's final wait status `status` was seen. */
static void root_ended(struct run *r, int status)
{
	r->root_done = true;
	r->root_status = status;
	if (r->res)
		r->res->root_status = status;
}

/* ---- the child ------------------------------------------------------------------------ */

static void child_fail(struct run *r, int stage, int err)
{
	struct child_report rep = { stage, err };
	ssize_t n = write(r->cc.report_fd, &rep, sizeof(rep));

	(void)n;
	_exit(127);
}

static int install_seccomp(const struct sock_filter *prog, size_t len)
{
	struct sock_fprog fprog = { (unsigned short)len, (struct sock_filter *)prog };

	if (!syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog))
		return 0;
	/* Without CAP_SYS_ADMIN a filter needs no_new_privs (set-uid binaries then run with
	 * their caller's rights, as they do under any ptrace tracer). Retried whatever the
	 * error (EACCES): errno is not the child's own (see clone_child). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog))
		return -errno;
	return 0;
}

/* In the child: the dispositions and mask the target starts with. */
static void child_signals(const struct run *r, const sigset_t *mask)
{
	/* the dispositions renacer inherited (an ignored SIGINT stays ignored, as under strace;
	 * handlers become SIG_DFL at exec anyway) */
	sigaction(SIGINT, &r->old_int, NULL);
	sigaction(SIGTERM, &r->old_term, NULL);
	sigaction(SIGALRM, &r->old_alrm, NULL);
	sigaction(SIGHUP, &r->old_hup, NULL);
	sigaction(SIGQUIT, &r->old_quit, NULL);
	/* renacer ignores SIGPIPE, SIGXFSZ, SIGUSR1 and SIGUSR2 for itself (main.c); targets get
	 * the defaults */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
}

/* In the child: stdin, stdout and stderr as the spec asks. */
static void child_stdio(struct run *r)
{
	int i;

	for (i = 0; i < 3; i++) {
		int fd = -1;

		if (r->spec->stdio[i] == RN_STDIO_NULL ||
		    (i == 0 && r->spec->stdio[i] == RN_STDIO_CAPTURE))
			fd = open("/dev/null", i ? O_WRONLY : O_RDONLY);
		else if (r->spec->stdio[i] == RN_STDIO_CAPTURE)
			fd = dup(r->capture_fd[i]);
		else
			continue;
		if (fd < 0 || dup2(fd, i) < 0)
			child_fail(r, STAGE_STDIO, errno);
		if (fd != i)
			close(fd);
	}
}

/* In the child: the CPUs it is pinned to and its address-space limit, as the spec asks. */
static void child_limits(struct run *r)
{
	if (r->spec->flags & RN_RUN_PIN_TARGET) {
		cpu_set_t set;

		/* best effort: a CPU that went offline leaves the affinity as it was */
		if (rn_cpuset_span(r->spec->pin_cpu,
				   r->spec->pin_ncpus > 1 ? r->spec->pin_ncpus : 1, &set) > 0)
			(void)sched_setaffinity(0, sizeof(set), &set);
	}
	if (r->spec->max_as_bytes) {
		struct rlimit rl = { r->spec->max_as_bytes, r->spec->max_as_bytes };

		if (setrlimit(RLIMIT_AS, &rl))
			child_fail(r, STAGE_RLIMIT, errno);
	}
}

/* In the child: wait until the collectors are ready (ptrace seizes us here): stopped, or
 * blocked on the go pipe (see rn_loop_ops.seize_running). */
static void child_wait_go(const struct run *r)
{
	if (r->cc.go_fd >= 0) {
		char go;
		ssize_t n;

		close(r->cc.go_wr);
		while ((n = read(r->cc.go_fd, &go, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			_exit(127); /* the runner is gone */
		close(r->cc.go_fd);
	} else {
		syscall(SYS_kill, getpid(), SIGSTOP);
	}
}

/* In the child: renacer's own process is out of the target's reach (guard.h), whatever the
 * driver, unless the caller traded it for timing fidelity (RN_RUN_NO_GUARD). A Landlock domain
 * where the kernel scopes signals (no cost per syscall), else the seccomp filter (every
 * syscall of the target on the kernel's slow entry path). */
static void child_guard(struct run *r)
{
	if (!(r->spec->flags & RN_RUN_NO_GUARD) && (!r->cc.guard_landlock || rn_guard_landlock())) {
		struct sock_filter guard[RN_GUARD_MAX_INSNS];
		pid_t self = getppid(), pgrp = getpgid(0);
		size_t glen = rn_guard_filter(self, pgrp == getpgid(self) ? pgrp : 0, guard);
		int rc = install_seccomp(guard, glen);

		/* A kernel without seccomp filters (or a child still running under Valgrind,
		 * which implements none) answers ENOSYS/EINVAL: the guard is defence in depth
		 * beside the tracer's own checks, so the run goes on without it. */
		if (rc && rc != -ENOSYS && rc != -EINVAL)
			child_fail(r, STAGE_SECCOMP, -rc);
	}
}

/* In the child: set up stdio, cwd, limits, stop for the collectors, exec. Never returns. */
static void child(struct run *r, const sigset_t *mask)
{
	const struct sock_filter *prog = NULL;
	size_t prog_len = 0;

	child_signals(r, mask);
	child_stdio(r);
	if (r->spec->cwd && chdir(r->spec->cwd))
		child_fail(r, STAGE_CWD, errno);
	child_limits(r);
	if (r->drv && r->drv->seccomp_program)
		prog = r->drv->seccomp_program(r->dc, &prog_len);
	child_wait_go(r);
	child_guard(r);
	/* After the seize: SECCOMP_RET_TRACE without a tracer would fail calls with ENOSYS. */
	if (prog) {
		int rc = install_seccomp(prog, prog_len);

		if (rc)
			child_fail(r, STAGE_SECCOMP, -rc);
	}
	execve(r->exe, r->spec->argv, r->env.v);
	child_fail(r, STAGE_EXEC, errno);
}

/* ---- killing the tree ------------------------------------------------------------------- */

/* Plain driver: kill `pid` and, depth first, every descendant listed in /proc. */
static void kill_descendants(pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	kill(pid, SIGSTOP); /* freeze it so it makes no new children while we look */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char cpath[96];
		struct rn_buf b;
		const char *p;

		if (de->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%.20s/children", (int)pid,
			 de->d_name);
		rn_buf_init(&b, 1 << 20);
		if (!rn_buf_read_file(&b, cpath)) {
			for (p = b.buf; *p;) {
				pid_t c = 0;

				while (*p == ' ')
					p++;
				for (; *p >= '0' && *p <= '9'; p++)
					c = c * 10 + (*p - '0');
				if (c > 0)
					kill_descendants(c);
				if (*p && *p != ' ')
					break;
			}
		}
		rn_buf_release(&b);
	}
	if (d)
		closedir(d);
	kill(pid, SIGKILL);
}

static void kill_tree(struct run *r)
{
	if (r->spec->nattach) {
		/* -p: processes renacer attached to are never killed: they are let go */
		if (r->drv && r->drv->detach)
			r->drv->detach(r->dc);
		r->killing = true;
		return;
	}
	if (r->killing)
		return;
	r->killing = true;
	if (r->drv)
		r->drv->kill_tree(r->dc);
	else if (!r->root_done)
		kill_descendants(r->root);
}

/* ---- the loop ------------------------------------------------------------------------- */

static void push(struct run *r, pid_t pid, int status, const struct rusage *ru)
{
	struct run_event *e = &r->q[(r->qhead + r->qlen) % QUEUE_MAX];

	e->kind = EV_STATUS;
	e->pid = pid;
	e->status = status;
	e->maxrss_kb = ru ? ru->ru_maxrss : 0;
	e->have_ru = ru != NULL;
	r->qlen++;
}

static struct run_event *pop(struct run *r)
{
	r->ev = r->q[r->qhead];
	r->qhead = (r->qhead + 1) % QUEUE_MAX;
	r->qlen--;
	return &r->ev;
}

static struct run_event *next_event(struct run *r)
{
	pid_t who = r->drv ? -1 : r->root;
	struct rusage ru, *rup;
	int status;
	pid_t pid;

	if (r->qlen)
		return pop(r);
	for (;;) {
		if (interrupted_sig && !r->killing) {
			r->ev.kind = EV_INTERRUPT;
			return &r->ev;
		}
		if (alarm_seen) {
			alarm_seen = 0;
			if (r->deadline_ns && !r->killing && rn_mono_ns() >= r->deadline_ns) {
				r->ev.kind = EV_TIMEOUT;
				return &r->ev;
			}
		}
		if (r->drv && r->drv->idle)
			r->drv->idle(r->dc);
		rup = !r->drv || r->drv->wants_rusage(r->dc) ? &ru : NULL;
		ru.ru_maxrss = 0;
		pid = wait4(who, &status, __WALL, rup);
		if (pid > 0)
			break;
		if (errno == EINTR)
			continue;
		r->ev.kind = EV_NONE_LEFT; /* ECHILD: nothing left to wait for */
		return &r->ev;
	}
	push(r, pid, status, rup);
	/* Serve every pending stop in turn: wait4(-1) prefers the caller's own children, so
	 * a busy root would otherwise starve its descendants. */
	while (r->drv && r->qlen < QUEUE_MAX && r->drv->runnable_tasks(r->dc) > 1) {
		rup = r->drv->wants_rusage(r->dc) ? &ru : NULL;
		ru.ru_maxrss = 0;
		pid = wait4(-1, &status, __WALL | WNOHANG, rup);
		if (pid <= 0)
			break;
		push(r, pid, status, rup);
	}
	return pop(r);
}

/* Plain driver: the root's final status. */
static void plain_exit(struct run *r, int status)
{
	struct rn_process *p = &r->t->procs[0];

	p->end_ns = rn_mono_ns();
	r->t->end_ns = p->end_ns;
	rn_process_set_end(p, status, r->killing);
	rn_trace_process_event(r->t, p, 'x');
}

static void on_status(struct run *r, const struct run_event *ev)
{
	bool gone = WIFEXITED(ev->status) || WIFSIGNALED(ev->status);
	int rc;

	if (gone && ev->pid == r->root) {
		root_ended(r, ev->status);
	}
	if (gone && r->drv && ev->have_ru)
		r->drv->final_rusage(r->dc, ev->pid, ev->maxrss_kb);
	if (gone && !r->drv && ev->maxrss_kb > r->self_maxrss_kb + CHILD_STACK / 1024) {
		/* wait4's ru_maxrss: the root's peak RSS (or a reaped child's, if larger). It
		 * includes the image the child had before its exec, renacer's: only a figure
		 * above renacer's own peak (self_peak; and the child's stack, which its exec
		 * call may still touch) is the target's; below it the peak is unknown (0, no
		 * data), never renacer's memory reported as the target's. */
		int idx = rn_trace_find_process(r->t, ev->pid);

		if (idx >= 0 && r->t->procs[idx].pid == ev->pid &&
		    r->t->procs[idx].end == RN_PROC_RUNNING &&
		    (uint64_t)ev->maxrss_kb * 1024 > r->t->procs[idx].vm_hwm_bytes)
			r->t->procs[idx].vm_hwm_bytes = (uint64_t)ev->maxrss_kb * 1024;
	}
	if (!r->drv) {
		if (gone && ev->pid == r->root)
			plain_exit(r, ev->status);
		return;
	}
	rc = r->drv->on_event(r->dc, r->t, ev->pid, ev->status);
	if (rc < 0) {
		if (r->t->status == RN_RUN_OK)
			rn_trace_fail(r->t, RN_RUN_ERROR, "target '%s': tracing failed: %s",
				      r->name, strerror(-rc));
		kill_tree(r);
	}
}

static bool dispatch(struct run *r, struct run_event *ev)
{
	switch (ev->kind) {
	case EV_STATUS:
		on_status(r, ev);
		return true;
	case EV_TIMEOUT:
		if (r->spec->nattach) {
			/* -p with a timeout: trace for that long, then detach */
			kill_tree(r);
			return true;
		}
		rn_trace_fail(r->t, RN_RUN_TIMED_OUT, "target '%s' timed out after %.3f s", r->name,
			      (double)r->spec->timeout_ns / 1e9);
		kill_tree(r);
		return true;
	case EV_INTERRUPT:
		if (r->spec->nattach) {
			/* -p: SIGINT is how a trace of running processes ends, as strace's */
			kill_tree(r);
			return true;
		}
		rn_trace_fail(r->t, RN_RUN_INTERRUPTED, "target '%s' interrupted by %s", r->name,
			      interrupted_sig == SIGINT          ? "SIGINT" :
				      interrupted_sig == SIGHUP  ? "SIGHUP" :
				      interrupted_sig == SIGQUIT ? "SIGQUIT" :
								   "SIGTERM");
		kill_tree(r);
		return true;
	case EV_NONE_LEFT:
		return false;
	}
	return false;
}

/* ---- start and finish ------------------------------------------------------------------- */

static int select_collectors(struct run *r)
{
	int i;

	/* in registry order, each at most once: sel[] holds RN_NCOLLECTORS */
	for (i = 0; i < RN_NCOLLECTORS; i++) {
		const struct rn_collector_ops *ops = rn_collectors[i];
		const char *why;
		int rc;

		if (!(r->spec->collectors & (1u << i)))
			continue;
		why = ops->unavailable ? ops->unavailable() : NULL;
		if (why) {
			rn_trace_fail(r->t, RN_RUN_ERROR, "collector '%s' is unavailable: %s",
				      ops->name, why);
			return -ENOTSUP;
		}
		rc = ops->create(&r->sel[r->nsel].c, r->spec);
		if (rc) {
			rn_trace_fail(r->t, RN_RUN_ERROR, "collector '%s' failed to start: %s",
				      ops->name, strerror(-rc));
			return rc;
		}
		r->sel[r->nsel].ops = ops;
		if (r->drv && !strcmp(ops->name, r->drv->collector))
			r->dc = r->sel[r->nsel].c;
		r->nsel++;
	}
	return 0;
}

static int prepare_collectors(struct run *r)
{
	int i, rc;

	for (i = 0; i < r->nsel; i++) {
		if (!r->sel[i].ops->prepare)
			continue;
		rc = r->sel[i].ops->prepare(r->sel[i].c, &r->env);
		if (rc) {
			rn_trace_fail(r->t, RN_RUN_ERROR, "collector '%s' failed to prepare: %s",
				      r->sel[i].ops->name, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

#if defined(RN_SPAWN_FORK) || defined(__SANITIZE_ADDRESS__)
/* ASan cannot follow a child onto a stack of its own, valgrind runs no general clone():
 * plain fork (ci/valgrind.sh builds with -DRN_SPAWN_FORK) */
#define CHILD_FORKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHILD_FORKS 1
#endif
#endif

#ifndef CHILD_FORKS
static int child_main(void *arg)
{
	struct run *r = arg;

	child(r, r->cc.mask);
	return 127;
}
#endif

/*
 * Start the child as posix_spawn does, sharing the parent's memory until its exec
 * (CLONE_VM): no page tables to copy and tear down again for a process that only sets up and
 * execs (0.3 ms of every run on a 2-vCPU VM). Unlike posix_spawn the parent is not suspended
 * (it must seize the child before the exec), so the child reads only what the parent no
 * longer writes (r->cc, and the spec, environment and collector state fixed before the
 * clone), runs on its own stack, and starts with every signal blocked so that no handler of
 * the parent runs in it. It shares the main thread's errno: the child sets it only when a
 * call fails on its way to _exit, and branches on none, so the worst a coincidence with a
 * failing call of the parent can do is report a wrong errno in one error message.
 * AddressSanitizer builds and builds with RN_SPAWN_FORK (valgrind) fork instead.
 */
static pid_t clone_child(struct run *r, const sigset_t *mask)
{
#ifndef CHILD_FORKS
	sigset_t all, old;
#endif
	pid_t pid;

	r->cc.report_fd = r->report_pipe[1];
	r->cc.go_fd = r->go_pipe[0];
	r->cc.go_wr = r->go_pipe[1];
	r->cc.mask = mask;
	r->cc.guard_landlock = rn_guard_landlock_abi() >= RN_GUARD_LANDLOCK_MIN_ABI;
#ifdef CHILD_FORKS
	pid = fork();
	if (pid == 0)
		child(r, mask);
	if (pid < 0)
		pid = -errno;
#else
	if (!r->child_stack) {
		r->child_stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (r->child_stack == MAP_FAILED) {
			r->child_stack = NULL;
			return -errno;
		}
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = clone(child_main, (char *)r->child_stack + CHILD_STACK, CLONE_VM | SIGCHLD, r);
	if (pid < 0)
		pid = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
#endif
	return pid;
}

static void spawn_failed(struct run *r, pid_t pid, int rc)
{
	int status;

	rn_trace_fail(r->t, RN_RUN_ERROR, "cannot trace target '%s': %s%s", r->name, strerror(-rc),
		      rc == -EPERM ? " (ptrace is not permitted here; "
				     "see /proc/sys/kernel/yama/ptrace_scope)" :
				     "");
	kill(pid, SIGKILL);
	kill(pid, SIGCONT);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	r->root_done = true;
}

/* The child waits on the go pipe: seize it running (only ptrace has on_spawn work then),
 * and let it go. A child whose setup failed is exiting and cannot be seized: its failure
 * report is the error then. */
static int spawn_running(struct run *r, pid_t pid)
{
	int i, rc, status;

	close(r->go_pipe[0]);
	r->go_pipe[0] = -1;
	for (i = 0; i < r->nsel; i++) {
		if (!r->sel[i].ops->on_spawn)
			continue;
		rc = r->sel[i].ops->on_spawn(r->sel[i].c, pid, r->t);
		if (!rc)
			continue;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			root_ended(r, status);
			return 0; /* the failure report is read at the end */
		}
		spawn_failed(r, pid, rc);
		return rc;
	}
	if (write(r->go_pipe[1], "g", 1) != 1)
		rc = -errno;
	else
		rc = 0;
	close(r->go_pipe[1]);
	r->go_pipe[1] = -1;
	return rc;
}

/* renacer's own peak RSS now, into r->self_maxrss_kb. The child shares renacer's memory until
 * its exec (CLONE_VM) and the kernel keeps that memory's peak in the child's ru_maxrss: taken
 * while the child is stopped before its exec, the peak includes its pre-exec work (its stack,
 * renacer's threads meanwhile), which a reading before the clone missed (a shell's peak read
 * as 3.3 to 4.3 MiB instead of unknown, now and then). */
static void self_peak(struct run *r)
{
	struct rusage ru;

	if (!getrusage(RUSAGE_SELF, &ru))
		r->self_maxrss_kb = ru.ru_maxrss;
}

/* Fork the child and hand it, stopped before exec, to the collectors. */
static int spawn(struct run *r, const sigset_t *mask)
{
	int status, i, rc;
	pid_t pid;

	if (pipe2(r->report_pipe, O_CLOEXEC))
		return -errno;
	if (r->drv && r->drv->seize_running(r->dc) && pipe2(r->go_pipe, O_CLOEXEC))
		return -errno;
	r->t->start_ns = rn_mono_ns();
	pid = clone_child(r, mask);
	if (pid < 0)
		return pid;
	r->root = pid;
	close(r->report_pipe[1]);
	r->report_pipe[1] = -1;
	if (r->go_pipe[0] >= 0)
		return spawn_running(r, pid);
	/* the child stops itself (SIGSTOP) before exec; exec setup failures exit instead */
	while (waitpid(pid, &status, WUNTRACED) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (!WIFSTOPPED(status)) {
		root_ended(r, status);
		return 0; /* the failure report is read at the end */
	}
	if (!r->drv) {
		struct rn_process *p = rn_trace_add_process(r->t, pid, 0, r->t->start_ns);

		rn_process_set_exe(p, r->exe);
		rn_trace_process_event(r->t, p, 'f');
	}
	for (i = 0; i < r->nsel; i++) {
		if (!r->sel[i].ops->on_spawn)
			continue;
		rc = r->sel[i].ops->on_spawn(r->sel[i].c, pid, r->t);
		if (rc) {
			spawn_failed(r, pid, rc);
			return rc;
		}
	}
	if (!r->drv) {
		struct rn_process *p = &r->t->procs[0];
		struct rn_elf_cache *elf = NULL;

		/* Without ptrace the exec is not seen: it follows this SIGCONT at once. */
		rn_elf_identify(&elf, r->exe, &p->elf_machine, p->build_id);
		rn_elf_cache_free(elf);
		self_peak(r);
		kill(pid, SIGCONT);
		p->exec_ns = rn_mono_ns();
	}
	return 0;
}

/* -p: attach to every process of spec->attach instead of spawning. 0, or -errno after
 * failing the run (the processes attached so far are let go by the loop). */
static int attach_all(struct run *r)
{
	int rc = 0;

	if (!r->drv || !r->drv->attach) {
		rn_trace_fail(r->t, RN_RUN_ERROR, "the syscall driver cannot attach to processes");
		return -ENOTSUP;
	}
	r->t->start_ns = rn_mono_ns();
	for (size_t i = 0; i < r->spec->nattach && !rc; i++) {
		rc = r->drv->attach(r->dc, r->spec->attach[i], r->t);
		if (rc)
			rn_trace_fail(r->t, RN_RUN_ERROR, "cannot attach to process %d: %s",
				      (int)r->spec->attach[i],
				      rc == -EINVAL ? "it is a thread of another process, not a "
						      "process (use its thread group id)" :
						      strerror(-rc));
	}
	if (rc && r->t->nprocs)
		kill_tree(r); /* let go of those attached: the loop serves their stops */
	return rc && !r->t->nprocs ? rc : 0;
}

/* Read the child's exec failure report, if any: 0 when it exec'd, else -errno. */
static int read_report(struct run *r)
{
	struct child_report rep;
	ssize_t n;

	if (r->report_pipe[0] < 0)
		return 0;
	fcntl(r->report_pipe[0], F_SETFL, O_NONBLOCK);
	n = read(r->report_pipe[0], &rep, sizeof(rep));
	if (n != (ssize_t)sizeof(rep))
		return 0;
	switch (rep.stage) {
	case STAGE_EXEC:
		rn_trace_fail(r->t, RN_RUN_EXEC_FAILED, "target '%s': cannot execute '%s': %s",
			      r->name, r->spec->argv[0], strerror(rep.err));
		break;
	case STAGE_CWD:
		rn_trace_fail(r->t, RN_RUN_EXEC_FAILED,
			      "target '%s': cannot change to directory '%s': %s", r->name,
			      r->spec->cwd ? r->spec->cwd : "", strerror(rep.err));
		break;
	case STAGE_SECCOMP:
		rn_trace_fail(r->t, RN_RUN_EXEC_FAILED,
			      "target '%s': cannot install the seccomp filter: %s", r->name,
			      strerror(rep.err));
		break;
	default:
		rn_trace_fail(r->t, RN_RUN_EXEC_FAILED,
			      "target '%s': cannot set up the process: %s", r->name,
			      strerror(rep.err));
		break;
	}
	return rep.err ? -rep.err : -ENOEXEC;
}

static void read_capture(int fd, char **out, size_t *len, bool *trunc)
{
	struct rn_buf b;
	off_t size = lseek(fd, 0, SEEK_END);
	char chunk[65536];

	if (size < 0)
		return;
	*trunc = (size_t)size > CAPTURE_MAX;
	lseek(fd, 0, SEEK_SET);
	rn_buf_init(&b, CAPTURE_MAX);
	while (b.len < CAPTURE_MAX) {
		size_t want =
			CAPTURE_MAX - b.len < sizeof(chunk) ? CAPTURE_MAX - b.len : sizeof(chunk);
		ssize_t n = read(fd, chunk, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		rn_buf_add(&b, chunk, (size_t)n);
	}
	*out = rn_buf_detach(&b, len);
}

static void final_status(struct run *r, int status)
{
	const struct rn_process *root = r->t->nprocs ? &r->t->procs[0] : NULL;
	struct rn_process waited = { 0 };
	const struct rn_process *end = &waited;

	if (r->t->status != RN_RUN_OK || !r->root_done)
		return;
	/* the status wait returned, else (a driver that reaped the root itself) the model's */
	rn_process_set_end(&waited, status, false);
	if (waited.end != RN_PROC_SIGNALED && root)
		end = root;
	if (end->end == RN_PROC_SIGNALED)
		rn_trace_fail(r->t, RN_RUN_CRASHED, "target '%s' was killed by signal %d (%s)%s",
			      r->name, end->term_signal, strsignal(end->term_signal),
			      end->core_dumped ? " (core dumped)" : "");
}

void rn_run_result_release(struct rn_run_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

/* The capture files of the streams the spec captures (stdout, stderr). */
static int open_captures(struct run *r)
{
	int i, rc;

	for (i = 1; i < 3; i++) {
		if (r->spec->stdio[i] != RN_STDIO_CAPTURE)
			continue;
		r->capture_fd[i] = open_capture();
		if (r->capture_fd[i] < 0) {
			rc = r->capture_fd[i];
			rn_trace_fail(r->t, RN_RUN_ERROR, "cannot create a capture file: %s",
				      strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/*
 * SIGINT/SIGTERM end the run cleanly; the timer wakes wait4 at the deadline. Handlers are
 * installed without SA_RESTART so a blocked wait4 returns EINTR. restore_signals() undoes it.
 */
static void install_signals(struct run *r)
{
	struct sigaction sa;
	struct sigevent sev;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &r->old_int);
	sigaction(SIGTERM, &sa, &r->old_term);
	sigaction(SIGALRM, &sa, &r->old_alrm);
	sigaction(SIGHUP, &sa, &r->old_hup); /* SIGHUP and SIGQUIT end the run as SIGTERM does */
	sigaction(SIGQUIT, &sa, &r->old_quit);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGALRM;
	alarm_seen = 0;
	if (!timer_create(CLOCK_MONOTONIC, &sev, &run_timer))
		have_timer = 1;
}

static void restore_signals(struct run *r)
{
	if (have_timer) {
		have_timer = 0;
		timer_delete(run_timer);
	}
	sigaction(SIGINT, &r->old_int, NULL);
	sigaction(SIGTERM, &r->old_term, NULL);
	sigaction(SIGALRM, &r->old_alrm, NULL);
	sigaction(SIGHUP, &r->old_hup, NULL);
	sigaction(SIGQUIT, &r->old_quit, NULL);
}

/* Arm the run's deadline (spec->timeout_ns), then retry every RETRY_NS until it is over. */
static void arm_deadline(struct run *r)
{
	struct itimerspec its;

	r->deadline_ns = rn_mono_ns() + r->spec->timeout_ns;
	its.it_value.tv_sec = (time_t)(r->spec->timeout_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(r->spec->timeout_ns % 1000000000u);
	its.it_interval.tv_sec = 0;
	its.it_interval.tv_nsec = RETRY_NS;
	timer_settime(run_timer, 0, &its, NULL);
}

/* Each selected collector's finish(); the first failure fails a run still OK. */
static void finish_collectors(struct run *r)
{
	int i, frc;

	for (i = 0; i < r->nsel; i++) {
		if (!r->sel[i].ops->finish)
			continue;
		frc = r->sel[i].ops->finish(r->sel[i].c, r->t);
		if (frc && r->t->status == RN_RUN_OK)
			rn_trace_fail(r->t, RN_RUN_ERROR, "collector '%s' failed: %s",
				      r->sel[i].ops->name, strerror(-frc));
	}
}

/* The captured stdout and stderr into r->res. */
static void read_captures(struct run *r)
{
	struct rn_run_result *res = r->res;
	bool trunc = false;

	if (r->capture_fd[1] >= 0)
		read_capture(r->capture_fd[1], &res->out, &res->out_len, &res->out_truncated);
	if (r->capture_fd[2] >= 0) {
		read_capture(r->capture_fd[2], &res->err, &res->err_len, &trunc);
		res->out_truncated |= trunc;
	}
}

/* A new run of spec into t (res may be NULL), with no file descriptor open yet. */
static struct run *run_new(const struct rn_run_spec *spec, struct rn_trace *t,
			   struct rn_run_result *res)
{
	struct run *r = rn_xcalloc(1, sizeof(*r));
	int i;

	r->spec = spec;
	r->t = t;
	r->res = res;
	r->name = spec->name ? spec->name : spec->argv ? spec->argv[0] : "?";
	r->report_pipe[0] = r->report_pipe[1] = -1;
	r->go_pipe[0] = r->go_pipe[1] = -1;
	for (i = 0; i < 3; i++)
		r->capture_fd[i] = -1;
	return r;
}

/* Close what the run still holds and free it. */
static void run_free(struct run *r)
{
	int i;

	for (i = 0; i < 3; i++)
		if (r->capture_fd[i] >= 0)
			close(r->capture_fd[i]);
	if (r->report_pipe[0] >= 0)
		close(r->report_pipe[0]);
	for (i = 0; i < 2; i++)
		if (r->go_pipe[i] >= 0)
			close(r->go_pipe[i]);
	if (r->child_stack)
		munmap(r->child_stack, CHILD_STACK);
	if (r->env.v)
		rn_strvec_release(&r->env);
	free(r->exe);
	free(r);
}

/* Select the driver and the collectors, and prepare them. */
static int setup_collectors(struct run *r)
{
	int rc;

	r->drv = rn_loop_select(r->spec);
	rc = select_collectors(r);
	if (!rc && r->drv && !r->dc) {
		rn_trace_fail(r->t, RN_RUN_ERROR, "driver '%s' has no collector '%s' in this run",
			      r->drv->name, r->drv->collector);
		rc = -EINVAL;
	}
	if (!rc)
		rc = prepare_collectors(r);
	return rc;
}

/* Spawn the target and serve its events until the tree is done; t->cpu_ns gets the tree's
 * CPU time. Signals and the timer are installed around it. */
static int run_loop(struct run *r, const sigset_t *mask)
{
	struct rusage ru_before, ru_after;
	int rc;

	install_signals(r);
	getrusage(RUSAGE_CHILDREN, &ru_before);
	getrusage(RUSAGE_SELF, &ru_after);
	r->self_maxrss_kb = ru_after.ru_maxrss;
	rc = r->spec->nattach ? attach_all(r) : spawn(r, mask);
	if (!rc && r->spec->timeout_ns && have_timer)
		arm_deadline(r);
	if (!rc && !r->root_done) {
		while (dispatch(r, next_event(r)))
			;
	}
	/* CPU time of the tree: what the runner's waited-for children used during the run (the
	 * root, which counts its own waited-for descendants). */
	if (!rc && !getrusage(RUSAGE_CHILDREN, &ru_after)) {
		r->t->cpu_ns = tv_ns(&ru_after.ru_utime) + tv_ns(&ru_after.ru_stime) -
			tv_ns(&ru_before.ru_utime) - tv_ns(&ru_before.ru_stime);
		r->t->user_ns = tv_ns(&ru_after.ru_utime) - tv_ns(&ru_before.ru_utime);
	}
	restore_signals(r);
	return rc;
}

int rn_run_target(const struct rn_run_spec *spec, struct rn_trace *t, struct rn_run_result *res)
{
	sigset_t mask;
	struct run *r;
	int rc, i, exec_rc;

	if (res)
		memset(res, 0, sizeof(*res));
	if (interrupted_sig) {
		rn_trace_fail(t, RN_RUN_INTERRUPTED, "interrupted before target '%s' started",
			      spec->name         ? spec->name :
				      spec->argv ? spec->argv[0] :
						   "?");
		return -ECANCELED;
	}
	r = run_new(spec, t, res);
	sigprocmask(SIG_SETMASK, NULL, &mask);

	build_env(r);
	rc = spec->nattach ? 0 : resolve_exe(r);
	if (rc) {
		rn_trace_fail(t, RN_RUN_EXEC_FAILED, "target '%s': cannot execute '%s': %s",
			      r->name, spec->argv[0], strerror(-rc));
		goto out_free;
	}
	rc = open_captures(r);
	if (rc)
		goto out_free;
	rc = setup_collectors(r);
	if (rc)
		goto out_collectors;

	rc = run_loop(r, &mask);
	exec_rc = read_report(r);
	if (!rc)
		rc = exec_rc;
	finish_collectors(r);
	if (!t->end_ns)
		t->end_ns = rn_mono_ns();
	rn_trace_finish_memory(t);
	final_status(r, r->root_status);
	if (res)
		read_captures(r);
	if (t->status == RN_RUN_INTERRUPTED)
		rc = -ECANCELED;

out_collectors:
	for (i = 0; i < r->nsel; i++)
		r->sel[i].ops->destroy(r->sel[i].c);
out_free:
	run_free(r);
	return rc;
}
