/*
 * ptrace/driver.c - the ptrace collector as the driver of the run loop: its hooks
 * (ptrace/internal.h) in the two ops tables of ptrace/drivers.h. Both tables share the hooks;
 * the collector's state knows its mode from the run spec (pt_create).
 */
#include "ptrace/drivers.h"

#include "ptrace/internal.h"
#include "ptrace/ptrace.h"

static bool accepts_counting(const struct rn_run_spec *spec)
{
	return (spec->collectors & RN_COLLECT_PTRACE) && !(spec->flags & RN_RUN_EVENTS_ONLY);
}

static bool accepts_events(const struct rn_run_spec *spec)
{
	return (spec->collectors & RN_COLLECT_PTRACE) && (spec->flags & RN_RUN_EVENTS_ONLY);
}

static int on_event(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status)
{
	return rn_ptrace_collector.on_event(c, t, tid, status);
}

const struct rn_loop_ops rn_ptrace_loop = {
	.name = "ptrace",
	.collector = "ptrace",
	.accepts = accepts_counting,
	.seize_running = rn_ptrace_seize_running,
	.seccomp_program = rn_ptrace_seccomp_program,
	.idle = rn_ptrace_idle,
	.wants_rusage = rn_ptrace_wants_rusage,
	.final_rusage = rn_ptrace_final_rusage,
	.runnable_tasks = rn_ptrace_runnable_tasks,
	.on_event = on_event,
	.kill_tree = rn_ptrace_kill_tree,
	.attach = rn_ptrace_attach,
	.detach = rn_ptrace_detach,
};

const struct rn_loop_ops rn_ptrace_events_loop = {
	.name = "ptrace-events",
	.collector = "ptrace",
	.accepts = accepts_events,
	.seize_running = rn_ptrace_seize_running,
	.seccomp_program = rn_ptrace_seccomp_program,
	.idle = rn_ptrace_idle,
	.wants_rusage = rn_ptrace_wants_rusage,
	.final_rusage = rn_ptrace_final_rusage,
	.runnable_tasks = rn_ptrace_runnable_tasks,
	.on_event = on_event,
	.kill_tree = rn_ptrace_kill_tree,
};
