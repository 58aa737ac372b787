/*
 * collector.h - the collector interface: how the runner runs one target once and which
 * collectors watch it.
 *
 * Data flow: the runner fills a `struct rn_run_spec` from the config, calls rn_run_target(),
 * and gets back a filled `struct rn_trace` (trace.h). Inside, each selected collector is one
 * `struct rn_collector_ops` from the registry:
 *
 *     prepare   -> before the spawn: adjust the spawn (env vars, seccomp filter, flags)
 *     on_spawn  -> the child exists, stopped before exec (ptrace seizes it here)
 *     on_event  -> one wait status of a process of the tree (only the collector that drives
 *                  the event loop, ptrace, receives them; the plain driver handles them itself)
 *     finish    -> the tree is gone: merge what was collected into the trace (the Vulkan
 *                  collector reads the layer's record files here)
 *     destroy   -> free the collector
 *
 * A collector that was not built (RN_WITH_VULKAN=OFF) is still in the registry as a stub whose
 * `unavailable` says why; callers carry no #ifdef.
 */
#ifndef RN_COLLECTOR_H
#define RN_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "strvec.h"
#include "trace.h"

/* What to do with a standard stream of the target (enum rn_stdio). */
enum rn_stdio {
	RN_STDIO_INHERIT = 0, /* share renacer's stream */
	RN_STDIO_NULL,        /* /dev/null */
	RN_STDIO_CAPTURE,     /* a pipe read by the runner, kept in rn_run_result (capped) */
};

/* Vulkan timing modes (enum rn_gpu_mode), see collectors/vulkan. */
enum rn_gpu_mode {
	RN_GPU_MODE_CMDBUF = 0, /* a timestamp pair per primary command buffer (default, cheap) */
	RN_GPU_MODE_SUBMIT,     /* a timestamp pair per vkQueueSubmit batch */
	RN_GPU_MODE_DISPATCH,   /* a pair per dispatch/copy/render pass (serializes the GPU) */
};

/*
 * The collector list, written once: X(name, ID, what it records), one row per collector.
 * RN_TARGET_COLLECTORS are those a target names in renacer.toml `collectors = [...]`;
 * RN_DRIVER_COLLECTORS are chosen by a target's `driver` instead (ebpf replaces ptrace). The
 * row order numbers the collectors (enum rn_collector_index, RN_NCOLLECTORS) and gives each
 * its bit RN_COLLECT_<ID> = 1 << its index (enum rn_collector_mask); the registry
 * (collectors/registry.c: rn_collectors in the same order, the name and mask look-ups),
 * run.c's selection, the config parser and its messages, `renacer help tables`,
 * docs/collectors.md's table and the layer check's list of specific collector folders
 * (tests/integration/docs/layers.py) are all derived from it. Each name has a folder
 * collectors/<name>/ with an ops table `rn_<name>_collector` (docs/layout.md, "Adding a
 * collector").
 */
#define RN_TARGET_COLLECTORS(X)                                                                    \
	X(ptrace, PTRACE, "every syscall of the process tree, processes, memory")                  \
	X(vulkan, VULKAN, "GPU work of Vulkan programs, timed by an injected layer")               \
	X(cuda, CUDA, "CUDA kernels and copies, through a CUPTI injection library")                \
	X(app, APP,                                                                                \
	  "the program's own spans: OTLP/HTTP on a loopback port, renacer_span.h push/pop")
#define RN_DRIVER_COLLECTORS(X)                                                                    \
	X(ebpf, EBPF, "syscall counts and the process tree, counted in the kernel")
#define RN_COLLECTORS(X)                                                                           \
	RN_TARGET_COLLECTORS(X)                                                                    \
	RN_DRIVER_COLLECTORS(X)

/* Each collector's index: its row in RN_COLLECTORS and in rn_collectors[] (enum
 * rn_collector_index); RN_NCOLLECTORS is how many there are, the most one run can select. */
enum rn_collector_index {
#define RN_COLLECTOR_INDEX(name, id, desc) RN_COLLECTOR_##id,
	RN_COLLECTORS(RN_COLLECTOR_INDEX)
#undef RN_COLLECTOR_INDEX
	RN_NCOLLECTORS
};

/* Which collectors watch a run (enum rn_collector_mask): RN_COLLECT_<ID> = 1 << its index.
 * ebpf counts syscalls instead of ptrace, never with it (collectors/ebpf/ebpf.h). */
enum rn_collector_mask {
#define RN_COLLECTOR_BIT(name, id, desc) RN_COLLECT_##id = 1u << RN_COLLECTOR_##id,
	RN_COLLECTORS(RN_COLLECTOR_BIT)
#undef RN_COLLECTOR_BIT
};

/* Flags of a run (enum rn_run_flags). */
enum rn_run_flags {
	RN_RUN_FOLLOW_FORKS = 1 << 0, /* trace children and threads too (always on for check) */
	RN_RUN_COUNT_ONLY = 1 << 1,   /* no durations: no exit stop where not needed */
	RN_RUN_PIN_CPU = 1 << 2,      /* keep tracer and a lone tracee on one CPU (default on) */
	RN_RUN_NO_PROPAGATE = 1 << 3, /* do not put TRACEPARENT into the target's environment */
	RN_RUN_EVENTS_ONLY = 1 << 4,  /* a timing run: process events only, no syscall spans
				       * (the "ptrace-events" driver, driver.h) */
	RN_RUN_PIN_TARGET = 1 << 5,   /* the target's tree runs on spec->pin_cpu (and the next
				       * spec->pin_ncpus - 1 CPUs it may use) only: both sides of
				       * a same-job baseline in one placement (runner/check/baseline.h) */
	RN_RUN_NO_GUARD = 1 << 6,     /* no guard seccomp filter (guard.h): every syscall stays on
				       * the kernel's fast path ([regression] timing_guard = false,
				       * timing runs only) */
};

/* Everything needed to run one target once. All pointers are borrowed. */
struct rn_inject; /* a --inject rule (collectors/inject_rules.h) */

struct rn_run_spec {
	const char *name;           /* target name for messages ("parse_large") */
	char *const *argv;          /* argv, NULL-terminated; argv[0] resolved through PATH */
	const char *cwd;            /* working directory, NULL = inherit */
	char *const *env_add;       /* "KEY=VALUE" strings added to the inherited environment */
	enum rn_stdio stdio[3];     /* stdin, stdout, stderr */
	uint64_t timeout_ns;        /* wall-clock limit of the run, ns; 0 = none */
	uint32_t collectors;        /* enum rn_collector_mask */
	uint32_t flags;             /* enum rn_run_flags */
	const bool *syscall_filter; /* if non-NULL: trace only syscalls whose entry is true
				     * (indexed by number, rn_syscall_table_size() entries),
				     * through a seccomp-bpf filter installed before exec */
	enum rn_gpu_mode gpu_mode;  /* Vulkan timing mode */
	uint64_t max_procs;         /* kill the tree when more processes were born; 0 = no limit */
	uint64_t max_as_bytes;      /* RLIMIT_AS of each process, bytes; 0 = unchanged */
	const char *traceparent;    /* W3C traceparent value for the target's env, or NULL */
	bool region_thread_scope;   /* cuda: a region holds the work its own thread launched
				     * (region_scope = "thread"), not all the process launched
				     * while it was open */
	int pin_cpu;                /* with RN_RUN_PIN_TARGET: the first CPU the target's tree
				     * runs on (its affinity, set before exec, is inherited) */
	int pin_ncpus;              /* with RN_RUN_PIN_TARGET: how many CPUs, pin_cpu and the
				     * next ones of the parent's affinity; <= 1 = pin_cpu alone */
	const struct rn_inject *inject; /* fault and delay rules applied by the ptrace driver
					 * (collectors/inject_rules.h) [ninject], borrowed for
					 * the run; NULL = none */
	size_t ninject;                 /* rules in inject */
	const pid_t *attach;            /* -p: running processes (thread group ids) to attach
					 * to instead of spawning argv [nattach], borrowed; the
					 * run ends when they are gone or, on SIGINT/SIGTERM or the
					 * timeout, by detaching (they run on); NULL = spawn */
	size_t nattach;                 /* processes in attach */
};

/* Outcome of a run beyond the trace. Owned by the caller; free with rn_run_result_release. */
struct rn_run_result {
	int root_status;    /* wait status of the root process (as from wait4) */
	char *out;          /* captured stdout (RN_STDIO_CAPTURE), NUL-terminated, or NULL */
	size_t out_len;     /* bytes in out */
	char *err;          /* captured stderr, or NULL */
	size_t err_len;     /* bytes in err */
	bool out_truncated; /* capture exceeded its cap (16 MiB) */
};

/* Release what a run result owns. */
void rn_run_result_release(struct rn_run_result *r);

struct rn_collector;

/* One collector's operations. Every function returns 0 or a negative code unless noted. */
struct rn_collector_ops {
	const char *name; /* "ptrace", "vulkan": the name used in renacer.toml `collectors` */
	/* NULL when usable here, else a static one-line reason ("not built: RN_WITH_VULKAN=OFF"). */
	const char *(*unavailable)(void);
	/* Allocate the collector's state for one run of `spec`. */
	int (*create)(struct rn_collector **out, const struct rn_run_spec *spec);
	/* Before the spawn: set "KEY=VALUE" entries of `env`, the child's whole environment
	 * (rn_strvec_env_set replaces a key already there); may set up files. */
	int (*prepare)(struct rn_collector *c, struct rn_strvec *env);
	/* The child `pid` exists and is stopped before exec. */
	int (*on_spawn)(struct rn_collector *c, pid_t pid, struct rn_trace *t);
	/* One wait status `status` of task `tid` (driver only). Returns 0 to go on, 1 when the
	 * tree is gone, negative on error. */
	int (*on_event)(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status);
	/* The tree is gone: merge collected data into `t`. */
	int (*finish)(struct rn_collector *c, struct rn_trace *t);
	/* Free the collector (NULL-safe). */
	void (*destroy)(struct rn_collector *c);
};

/* The create and destroy of a collector that was not built (its stub's ops hold only name,
 * unavailable, create and destroy): create sets *out to NULL and returns -ENOSYS; destroy
 * does nothing. */
int rn_collector_stub_create(struct rn_collector **out, const struct rn_run_spec *spec);
void rn_collector_stub_destroy(struct rn_collector *c);

/* Each collector's ops table, rn_<name>_collector, defined in its folder (its stub when it
 * was not built). */
#define RN_COLLECTOR_OPS_DECL(name, id, desc)                                                      \
	extern const struct rn_collector_ops rn_##name##_collector;
RN_COLLECTORS(RN_COLLECTOR_OPS_DECL)
#undef RN_COLLECTOR_OPS_DECL

/* The registry: every known collector, built or stub, in RN_COLLECTORS order (index enum
 * rn_collector_index), NULL-terminated. */
extern const struct rn_collector_ops *const rn_collectors[];

/* The names a target may give in `collectors` (RN_TARGET_COLLECTORS), NULL-terminated, static
 * storage. */
extern const char *const rn_target_collector_names[];

/* The collector named `name`, or NULL. */
const struct rn_collector_ops *rn_collector_find(const char *name);

/* The enum rn_collector_mask bit of the collector named `name` ("ptrace", "vulkan", "cuda"),
 * or 0 when no collector has that name. */
uint32_t rn_collector_mask_of(const char *name);

/*
 * Run `spec` once and fill `t` (which must be initialized; sinks and the spool may be set up
 * beforehand). Blocks until the whole tree is gone or the timeout expires.
 *
 * Returns 0 when the run happened (check t->status: a target that crashed or timed out is a
 * successful run with a non-OK status), or a negative errno when it could not start: the
 * child's errno from exec, chdir or the seccomp set-up (-ENOEXEC when the child reported none),
 * -errno of a failed fork, pipe or wait, -ENOTSUP for a collector that is unavailable; the
 * reason is in t->error. -ECANCELED when renacer was interrupted (SIGINT/SIGTERM; the tree is
 * killed and reaped first, t->status is RN_RUN_INTERRUPTED).
 */
int rn_run_target(const struct rn_run_spec *spec, struct rn_trace *t, struct rn_run_result *res);

/* Signal number (SIGINT/SIGTERM) that interrupted renacer, or 0. Set by the run loop's
 * handler; the runner checks it between runs. */
int rn_run_interrupted(void);

/*
 * Catch SIGINT, SIGTERM, SIGHUP and SIGQUIT for the rest of the process with the run loop's
 * handler (SA_RESTART), whatever their disposition was (a background job of a shell starts
 * with SIGINT ignored): a long command calls it first, so a signal between runs is no longer
 * lost (ignored) nor fatal before the reports, but sticky in rn_run_interrupted(). The next
 * rn_run_target() returns -ECANCELED at once, and the command ends with
 * rn_exit_for_signal(rn_run_interrupted()) (exitcode.h). Each run installs its own handlers
 * and restores these after it.
 */
void rn_run_catch_signals(void);

#endif
