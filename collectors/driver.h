/*
 * driver.h - the driver interface: what owns the event loop of one run.
 *
 * A collector watches a run; a driver makes the run observable at all. The run loop
 * (collectors/run.c) spawns the target and then asks the run's driver, through this ops table
 * only, how the child waits to be attached, which seccomp program it installs, which wait
 * statuses it needs rusage for, what to do with each wait status, and how to kill the tree.
 * The driver's state is the state of one collector of the run (`collector` names it): the
 * collector's own ops create it, attach in on_spawn, merge in finish and free it in destroy.
 *
 * Drivers (rn_drivers[], chosen by rn_driver_select()):
 *   "ptrace"         counting runs: every syscall (or the filtered subset) stops, so counts,
 *                    paths, errors, allocations and spans are exact; times are "under tracer"
 *   "ptrace-events"  timing runs (RN_RUN_EVENTS_ONLY): PTRACE_SEIZE with TRACEFORK, VFORK,
 *                    CLONE, EXEC, EXIT and EXITKILL, resumed with PTRACE_CONT: no syscall
 *                    stop, no seccomp filter. Who waited for whom (the critical path's
 *                    edges) is the parent's wchan at each child's exit stop. No syscall span
 *                    is recorded: the trace has the process tree, fork/exec/exit times, exit
 *                    statuses, VmHWM at exit and wait4's rusage.
 * A run whose collectors include none that drives (GPU collectors alone) has no driver: the
 * run loop then waits for the root itself (the "plain" loop of run.c).
 *
 * An eBPF counting driver is one more ops table here, naming the collector that holds its
 * maps and ring buffer.
 */
#ifndef RN_DRIVER_H
#define RN_DRIVER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "collector.h"

/* One driver's operations. `c` is the state of the collector named `collector`. */
struct rn_driver_ops {
	const char *name;      /* "ptrace", "ptrace-events" */
	const char *collector; /* the collector whose state drives the loop ("ptrace") */
	/* True when this driver runs `spec` (its collector is selected and the run's flags are
	 * the ones it serves). */
	bool (*accepts)(const struct rn_run_spec *spec);
	/* How the child waits to be attached (before the collectors' on_spawn). false: it stops
	 * itself with SIGSTOP and on_spawn ends that stop. true: it blocks reading a pipe the
	 * run loop writes after on_spawn (attached while running). */
	bool (*seize_running)(const struct rn_collector *c);
	/* The seccomp-bpf program the child installs after the attach and before its exec, or
	 * NULL for none; *len gets the instruction count. Owned by the collector, built before
	 * the spawn (the child may not allocate). */
	const struct sock_filter *(*seccomp_program)(const struct rn_collector *c, size_t *len);
	/* Nothing queued, the loop is about to block in wait4: settle what cannot wait. */
	void (*idle)(struct rn_collector *c);
	/* Whether the next wait statuses may be final ones whose rusage the driver needs (the
	 * loop passes NULL to wait4 otherwise: a full getrusage per stop costs). */
	bool (*wants_rusage)(const struct rn_collector *c);
	/* The final wait status of task `tid` came with ru_maxrss `maxrss_kb` (KiB); called
	 * before on_event hands that status over. */
	void (*final_rusage)(struct rn_collector *c, pid_t tid, long maxrss_kb);
	/* Tasks that may make stops now; while more than one may, the loop drains every pending
	 * wait status (wait4 WNOHANG) before serving them, so none starves. */
	size_t (*runnable_tasks)(const struct rn_collector *c);
	/* One wait status `status` of task `tid`. Returns 0 to go on, 1 when the tree is gone,
	 * or a negative errno (the loop then fails the run and kills the tree). */
	int (*on_event)(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status);
	/* Kill every process of the tree; later stops are answered with SIGKILL. Idempotent. */
	void (*kill_tree)(struct rn_collector *c);
	/* Attach to the running process `pid` (rn_run_spec.attach), its threads and its future
	 * children, adding it to `t`: 0 or -errno. NULL when the driver cannot attach. */
	int (*attach)(struct rn_collector *c, pid_t pid, struct rn_trace *t);
	/* End an attached run: let every process go on untraced (instead of kill_tree).
	 * Idempotent. */
	void (*detach)(struct rn_collector *c);
};

/* Every driver, NULL-terminated, in the order rn_driver_select() tries them. */
extern const struct rn_driver_ops *const rn_drivers[];

/* The driver of a run of `spec`: the first of rn_drivers that accepts it, or NULL (no
 * selected collector drives: the run loop waits for the root itself). */
const struct rn_driver_ops *rn_driver_select(const struct rn_run_spec *spec);

/* The driver named `name`, or NULL. */
const struct rn_driver_ops *rn_driver_find(const char *name);

#endif
