/*
 * ptrace_proc.c - the ptrace collector's process tree: new children and threads, exec, exit
 * and group stops, and tasks that are gone (ptrace/internal.h).
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

/* ---- process events --------------------------------------------------------------------- */

static int check_proc_limit(struct rn_collector *c)
{
	if (!c->spec->max_procs || c->t->nprocs <= c->spec->max_procs)
		return 0;
	rn_trace_fail(c->t, RN_RUN_LIMIT, "target '%s': more than %llu processes (max_procs)",
		      c->spec->name ? c->spec->name : "?", (unsigned long long)c->spec->max_procs);
	return -E2BIG;
}

int rn_pt_first_stop(struct rn_collector *c, struct task *tk);

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
struct task *rn_pt_adopt(struct rn_collector *c, pid_t tid, bool thread, int proc, pid_t ppid,
			 bool narrow, int *rc)
{
	struct task *tk;

	*rc = 0;
	if (thread) {
		c->t->procs[proc].nthreads++;
		tk = rn_pt_task_new(c, tid, proc, TASK_NEW);
	} else {
		struct rn_process *p =
			rn_trace_add_process(c->t, tid, proc >= 0 ? c->t->procs[proc].pid : ppid,
					     rn_mono_ns());
		const struct rn_process *pp = proc >= 0 ? &c->t->procs[proc] : NULL;

		/* (pp is read after the add, which may move the array) */
		if (pp && pp->exe) {
			rn_process_set_exe(p, pp->exe);
			memcpy(p->build_id, pp->build_id, sizeof(p->build_id));
			p->elf_machine = pp->elf_machine;
		}
		tk = rn_pt_task_new(c, tid, (int)(c->t->nprocs - 1), TASK_NEW);
		rn_trace_process_event(c->t, p, 'f');
		*rc = check_proc_limit(c);
	}
	if (narrow) {
		tk->flags |= TASK_NARROW;
		c->nnarrow++;
	}
	rn_pt_balance(c);
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
			rn_pt_read_mem(parent->tid, parent->args[0], &flags, sizeof(flags));
		thread = flags & CLONE_THREAD;
		shares_vm = flags & CLONE_VM;
	} else if (event == PTRACE_EVENT_CLONE) {
		/* Seccomp modes do not stop at clone: a thread is listed under its group. */
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)rn_pt_proc_of(c, parent)->pid,
			 (int)tid);
		thread = !access(path, F_OK);
	}
	if (rn_pt_task_find(c, tid))
		return 0; /* already known (pid reuse races are not possible while traced) */
	if (!thread) {
		rn_pt_ps_of(c, parent->proc)->had_children = true;
		set_exit_stop(c, parent, true);
	}
	tk = rn_pt_adopt(c, tid, thread, parent->proc, 0, parent->flags & TASK_NARROW, &rc);
	if (!thread) /* its memory accounting starts as a copy of the parent's image, or empty */
		rn_trace_image_fork(c->t, rn_pt_proc_of(c, tk), &c->t->procs[parent->proc],
				    shares_vm);
	/* Its first stop may have come before this event. */
	for (i = 0; i < c->npending; i++) {
		if (c->pending[i].tid != tid)
			continue;
		c->pending[i] = c->pending[--c->npending];
		if (!rc)
			rc = rn_pt_first_stop(c, tk);
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
		struct task *moved = rn_pt_task_find(c, (pid_t)former);

		if (moved && moved != tk) {
			rn_pt_close_unfinished(c, tk);
			rn_pt_ps_of(c, tk->proc)->live--;
			rn_pt_task_forget(c, tk);
			rn_pt_map_del(c, moved);
			moved->tid = (pid_t)(c->t->procs[moved->proc].pid);
			rn_pt_map_add(c, moved);
			tk = moved;
		}
	}
	tk->flags &= ~(uint32_t)TASK_HIDDEN;
	set_exit_stop(c, tk, true);
	p = rn_pt_proc_of(c, tk);
	p->exec_ns = rn_mono_ns();
	/* a new image: its memory accounting restarts (no mappings, no program break) */
	rn_trace_image_end(c->t, p);
	/* a new image: the mappings of the old one would misattribute the next spans */
	rn_maps_free(p->maps);
	p->maps = NULL;
	rn_pt_ps_of(c, tk->proc)->maps_reads = 0;
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

bool rn_pt_parent_in_wait(struct rn_collector *c, const struct rn_process *p);

void rn_pt_exit_event(struct rn_collector *c, struct task *tk)
{
	struct proc_state *ps = rn_pt_ps_of(c, tk->proc);
	struct rn_process *p = rn_pt_proc_of(c, tk);

	rn_pt_close_unfinished(c, tk);
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
		uint64_t hwm = rn_pt_read_vm_hwm(tk->tid);

		if (c->events_only && !ps->live)
			ps->parent_waiting = rn_pt_parent_in_wait(c, p);
		if (hwm > p->vm_hwm_bytes)
			p->vm_hwm_bytes = hwm;
		/* the final mappings of a process whose spans carry callers */
		if (p->maps)
			rn_pt_refresh_maps(c, tk);
	}
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* The first stop of a task. */
int rn_pt_first_stop(struct rn_collector *c, struct task *tk)
{
	tk->flags &= ~(uint32_t)TASK_NEW;
	set_exit_stop(c, tk, false);
	rn_pt_balance(c);
	rn_pt_resume(c, tk, 0);
	return 0;
}

int rn_pt_event_stop(struct rn_collector *c, struct task *tk, int status)
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
		rn_pt_resume(c, tk, 0);
		exec_identify(c, rn_pt_proc_of(c, tk), known);
		return 0;
	case PTRACE_EVENT_EXIT:
		rn_pt_exit_event(c, tk);
		break;
	case PTRACE_EVENT_SECCOMP:
		rc = rn_pt_syscall_stop(c, tk);
		break;
	case PTRACE_EVENT_STOP:
		if (tk->flags & TASK_NEW)
			return rn_pt_first_stop(c, tk);
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
	rn_pt_resume(c, tk, 0);
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
bool rn_pt_parent_in_wait(struct rn_collector *c, const struct rn_process *p)
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

int rn_pt_task_gone(struct rn_collector *c, struct task *tk, int status)
{
	struct proc_state *ps = rn_pt_ps_of(c, tk->proc);
	struct rn_process *p = rn_pt_proc_of(c, tk);
	uint64_t ts = rn_mono_ns();

	rn_pt_close_unfinished(c, tk);
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
		if (p->parent >= 0 && ru > rn_pt_ps_of(c, p->parent)->child_ru_bytes)
			rn_pt_ps_of(c, p->parent)->child_ru_bytes = ru;
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
	rn_pt_task_forget(c, tk);
	rn_pt_balance(c);
	return 0;
}
