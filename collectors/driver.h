/*
 * driver.h - the syscall source and the event loop's owner.
 *
 * "Driver" is the user's word: renacer.toml's per-target `driver` and `--driver` of check and
 * trace choose where a target's syscalls come from, ptrace or eBPF (enum rn_driver_pref and
 * RN_DRIVER_PREFS below, the one list of those names).
 *
 * The loop owner (struct rn_loop_ops) is the run loop's view of that choice: a collector
 * watches a run; a loop owner makes the run observable at all. The run loop
 * (collectors/run.c) spawns the target and then asks the run's loop owner, through this ops
 * table only, how the child waits to be attached, which seccomp program it installs, which
 * wait statuses it needs rusage for, what to do with each wait status, and how to kill the
 * tree. Its state is the state of one collector of the run (`collector` names it): the
 * collector's own ops create it, attach in on_spawn, merge in finish and free it in destroy.
 *
 * Loop owners (rn_loops[], chosen by rn_loop_select()):
 *   "ptrace"         counting runs: every syscall (or the filtered subset) stops, so counts,
 *                    paths, errors, allocations and spans are exact; times are "under tracer"
 *   "ptrace-events"  timing runs (RN_RUN_EVENTS_ONLY): PTRACE_SEIZE with TRACEFORK, VFORK,
 *                    CLONE, EXEC, EXIT and EXITKILL, resumed with PTRACE_CONT: no syscall
 *                    stop, no seccomp filter. Who waited for whom (the critical path's
 *                    edges) is the parent's wchan at each child's exit stop. No syscall span
 *                    is recorded: the trace has the process tree, fork/exec/exit times, exit
 *                    statuses, VmHWM at exit and wait4's rusage.
 * A run whose collectors include none that owns the loop (GPU collectors alone, or the eBPF
 * collector, which counts in the kernel) has none: the run loop then waits for the root
 * itself (the "plain" loop of run.c).
 */
#ifndef RN_DRIVER_H
#define RN_DRIVER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"

/* One loop owner's operations. `c` is the state of the collector named `collector`. */
struct rn_loop_ops {
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

/* Every loop owner, NULL-terminated, in the order rn_loop_select() tries them. */
extern const struct rn_loop_ops *const rn_loops[];

/* The loop owner of a run of `spec`: the first of rn_loops that accepts it, or NULL (no
 * selected collector owns the loop: the run loop waits for the root itself). */
const struct rn_loop_ops *rn_loop_select(const struct rn_run_spec *spec);

/* The loop owner named `name`, or NULL. */
const struct rn_loop_ops *rn_loop_find(const char *name);

/*
 * The syscall source a target's `driver` chooses: X(ID, name, what it does). The enum,
 * rn_driver_pref_names, the parser, the config's "must be one of" message and `--driver`'s
 * help are derived from it. A new source is one row here, one collector (collector.h's
 * RN_DRIVER_COLLECTORS) and one case of rn_driver_pref_resolve().
 */
#define RN_DRIVER_PREFS(X)                                                                         \
	X(PTRACE, "ptrace", "stops at every call (the default)")                                   \
	X(EBPF, "ebpf", "counts in the kernel; an error where it cannot load")                     \
	X(AUTO, "auto",                                                                            \
	  "eBPF where it can load and the target needs nothing only ptrace gives, else ptrace "    \
	  "(saying why)")

/* Which source collects a target's syscalls (renacer.toml `driver`, --driver). */
enum rn_driver_pref {
#define RN_DRIVER_PREF_ENUM(id, name, doc) RN_DRIVER_PREF_##id,
	RN_DRIVER_PREFS(RN_DRIVER_PREF_ENUM)
#undef RN_DRIVER_PREF_ENUM
};

/* The names of enum rn_driver_pref, in its order, NULL-terminated. */
extern const char *const rn_driver_pref_names[];

/* Parse a name of RN_DRIVER_PREFS. 0, or -EINVAL for anything else. */
int rn_driver_pref_parse(const char *s, enum rn_driver_pref *out);
/* The name of `p` ("ptrace" for a value outside the enum). Static. */
const char *rn_driver_pref_name(enum rn_driver_pref p);

/*
 * The collector bit (RN_COLLECT_PTRACE or RN_COLLECT_EBPF) that runs a target with
 * preference `pref`. `needs_ptrace` is NULL when the target needs nothing the eBPF driver
 * cannot give, else a static phrase saying what it needs ("anti-pattern evidence (per-call
 * spans)"). For AUTO, *why is set to a static reason when it falls back to ptrace (the
 * caller prints it), else NULL. For EBPF, *why is set when eBPF cannot do it (the caller
 * fails the target with it) and the result is RN_COLLECT_EBPF regardless. Whether eBPF can
 * load is the eBPF collector's `unavailable` (through the registry).
 */
uint32_t rn_driver_pref_resolve(enum rn_driver_pref pref, const char *needs_ptrace,
				const char **why);

#endif
