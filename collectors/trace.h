/*
 * trace.h - the one trace model of renacer.
 *
 * Every collector writes into a `struct rn_trace`; every assertion, exporter and golden-trace
 * writer reads from it. One trace describes one run of one target: its process tree (processes
 * with their threads, exec'd binaries, exit status and memory), per-process per-syscall
 * statistics aggregated as the run goes (so memory does not grow with the number of syscalls),
 * GPU spans merged from the GPU collectors (Vulkan, CUDA), and, only when an output asks for
 * it, a spool of every syscall span streamed to a temporary file. The model also owns the
 * names of its enums and the syscall tables (syscall_names.h); it includes no header of a
 * specific collector.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (the clock of the collectors and of the Vulkan layer's
 * calibrated GPU timestamps), durations are nanoseconds, sizes are bytes.
 *
 * Ownership: the trace owns everything reachable from it; rn_trace_release() frees it all.
 * Pointers into `procs` and `gpu` are invalidated by the next add. Not thread safe.
 */
#ifndef RN_TRACE_H
#define RN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "hist.h"          /* latency histograms (rn_trace.latency) */
#include "syscall_names.h" /* syscall and errno names, the table size of per-syscall arrays */

/* Flags of one syscall span (enum rn_syscall_flags). */
enum rn_syscall_flags {
	RN_SC_UNFINISHED = 1 << 0, /* never returned: exit/exit_group, a call cut off by the
				    * process's death or by another thread's execve; ret and
				    * duration are not meaningful and the model does not count it
				    * (strace -c counts calls at their exit) */
	RN_SC_RESTARTED = 1 << 1,  /* returned ERESTART* and will be restarted by the kernel */
	RN_SC_PATH_TRUNC = 1 << 2, /* `path` was truncated to RN_PATH_MAX bytes */
	RN_SC_INJECTED = 1 << 3,   /* the call was not made: `ret` was injected (--inject
				    * error= or retval=) */
	RN_SC_DELAYED = 1 << 4,    /* the tracer held the call (--inject delay_enter= or
				    * delay_exit=); a delay_enter is part of duration_ns */
	RN_SC_CPU = 1 << 5,        /* cpu_ns holds the thread's on-CPU time in the call */
};

/* Longest decoded path kept for a syscall span, bytes including the NUL. */
#define RN_PATH_MAX 4096

/* execve argument vectors in per-call lines, as strace shows them by default (-s 32): at most
 * RN_ARGV_MAX strings of at most RN_ARGV_STR_MAX bytes each, longer ones cut with "...". */
#define RN_ARGV_MAX 32
#define RN_ARGV_STR_MAX 32

/* Return addresses kept per syscall span (struct rn_syscall_event.stack). */
#define RN_SYSCALL_STACK_MAX 4

struct rn_maps; /* a /proc/PID/maps snapshot (collectors/symbolize.h) */

/*
 * One completed syscall, handed to sinks as it completes (never stored by the model itself).
 * `path` is borrowed for the duration of the callback.
 */
struct rn_syscall_event {
	pid_t pid;            /* thread group id (process) */
	pid_t tid;            /* thread id */
	int nr;               /* syscall number in the tracee's ABI (see rn_syscall_name) */
	uint32_t flags;       /* enum rn_syscall_flags */
	uint64_t args[6];     /* raw arguments as the kernel saw them */
	int64_t ret;          /* raw return value (negative errno on failure) */
	int err;              /* errno (positive) when the call failed, else 0 */
	uint64_t start_ns;    /* entry stop time, CLOCK_MONOTONIC ns */
	uint64_t duration_ns; /* exit stop minus entry stop, ns; "under tracer" (includes stops) */
	/* The calling thread's on-CPU time between the entry and exit stops, ns: the first field
	 * of /proc/TID/schedstat (sum_exec_runtime) read at both stops, so a call that blocked
	 * (a pipe write waiting for its reader) counts only the CPU it used, not its wait.
	 * Read with the caller (nstack > 0) when rn_trace.syscall_cpu asks for it, where
	 * RN_SC_CPU is set; else 0. */
	uint64_t cpu_ns;
	const char *path;  /* decoded path argument of path-taking calls, or NULL */
	const char *path2; /* second path (rename, link, ...), or NULL; not spooled */
	/* execve/execveat, read only when per-call lines are printed (else NULL/0/false), not
	 * spooled: the argument vector as `nargv` NUL-terminated strings one after another,
	 * each cut to RN_ARGV_STR_MAX + 1 bytes (one byte more than is shown, so a cut string
	 * is seen as cut), `argv_more` when it held more than RN_ARGV_MAX strings; and the size
	 * of the environment vector, `nenv`, when `env_known`. */
	const char *argv;
	uint32_t nargv;
	bool argv_more;
	bool env_known;
	uint32_t nenv;
	/* Return addresses of the calling thread at the syscall-entry stop, innermost first,
	 * captured only when the trace spools spans (never in the counting path): the return
	 * address of the function that made the syscall instruction (x86_64: the word at the
	 * stack pointer plus the offset its CFI row gives, collectors/unwind.h; the link
	 * register on aarch64), which is the caller of a libc wrapper, then the return
	 * addresses of a frame-pointer walk from rbp (x29). Candidates, not a verified
	 * backtrace: collectors/symbolize.h attributes them. */
	uint64_t stack[RN_SYSCALL_STACK_MAX];
	uint8_t nstack; /* entries of `stack` used, 0 when not captured */
};

/* Aggregate of one syscall name in one process (what strace -c prints). */
struct rn_syscall_stat {
	uint64_t calls;    /* completed calls, restarted ones included as strace counts them */
	uint64_t errors;   /* calls that returned an error */
	uint64_t total_ns; /* sum of durations, ns (under tracer) */
	uint64_t min_ns;   /* shortest duration, ns */
	uint64_t max_ns;   /* longest duration, ns */
};

/* Why a process ended (enum rn_proc_end). */
enum rn_proc_end {
	RN_PROC_RUNNING = 0, /* no exit seen yet */
	RN_PROC_EXITED,      /* exited normally; exit_code holds the status */
	RN_PROC_SIGNALED, /* killed by term_signal (core_dumped says whether a core was written) */
	RN_PROC_LOST,     /* vanished without an exit report (killed by the runner, detached) */
};

/* A range of addresses [start, end) of a tracee, bytes. */
struct rn_addr_range {
	uint64_t start, end;
};

/* One process (thread group) of the traced tree. */
struct rn_process {
	pid_t pid;               /* thread group id */
	pid_t ppid;              /* parent as seen by the tracer (0 for the root) */
	int parent;              /* index of the parent in rn_trace.procs, -1 for the root */
	uint32_t nthreads;       /* threads ever seen in this process, main thread included */
	char *exe;               /* image the process runs (/proc/PID/exe at its last successful
				* exec, or the parent's at fork), owned; NULL if unknown */
	char *comm;              /* basename of exe, owned; NULL if unknown */
	char build_id[41];       /* GNU build-id of exe as lowercase hex, "" if none */
	uint16_t elf_machine;    /* e_machine of exe (EM_X86_64 ...), 0 if unknown */
	uint64_t start_ns;       /* birth (fork/clone return or spawn), CLOCK_MONOTONIC ns */
	uint64_t exec_ns;        /* last successful exec, ns; 0 if it never exec'd */
	uint64_t end_ns;         /* exit, ns; 0 while running */
	uint64_t reaped_ns;      /* when a traced parent's wait returned this pid, ns; 0 if never */
	int reaped_by;           /* index of the process whose wait reaped it, -1 if none */
	enum rn_proc_end end;    /* how it ended */
	int exit_code;           /* exit status when end == RN_PROC_EXITED */
	int term_signal;         /* signal number when end == RN_PROC_SIGNALED */
	bool core_dumped;        /* a core was written (WCOREDUMP) */
	uint64_t vm_hwm_bytes;   /* peak RSS (VmHWM) read at the exit stop, bytes; 0 if unknown */
	uint64_t syscalls;       /* completed syscalls of all threads */
	uint64_t syscall_errors; /* of which failed */
	uint64_t syscall_ns;     /* summed syscall durations, ns */
	struct rn_syscall_stat *sc; /* per-syscall stats indexed by number, rn_syscall_table_size()
				     * entries, owned; NULL until the first syscall */
	uint64_t alloc_cur_bytes;   /* anonymous mmap/mremap + brk growth - munmap of its current
				    * image, now, bytes (0 again at each exec and at its end) */
	uint64_t alloc_peak_bytes;  /* peak of alloc_cur_bytes: the largest of its images', bytes */
	uint64_t alloc_total_bytes; /* all bytes ever mapped anonymously or by brk growth */
	uint64_t brk_cur;           /* program break of its current image (0 until the image's
				    * first brk answer; a fork child's starts at its parent's) */
	uint64_t alloc_inherited_bytes; /* of alloc_cur_bytes, those copied from the parent at
				    * fork (the parent's memory: not counted again in the tree),
				    * lowered when alloc_cur_bytes falls below it, bytes */
	struct rn_addr_range *reserved; /* anonymous PROT_NONE ranges of its current image:
				    * address space reserved, not allocated (glibc's arenas and
				    * thread stacks), counted once mprotect opens them;
				    * [nreserved], sorted by start, owned */
	size_t nreserved, reserved_cap; /* ranges used, allocated */
	struct rn_maps *maps;           /* the latest /proc/PID/maps snapshot of its current image,
				    * taken by the ptrace collector for spooled spans with a stack
				    * (lazily, again when an address is not covered, and at the
				    * exit stop), owned; NULL if none */
};

/* Kinds of GPU span (enum rn_gpu_kind). */
enum rn_gpu_kind {
	RN_GPU_DISPATCH,    /* vkCmdDispatch* (compute), timed in `dispatch` mode */
	RN_GPU_COPY,        /* vkCmdCopy*, vkCmdFillBuffer, vkCmdUpdateBuffer, blits */
	RN_GPU_RENDER_PASS, /* a render pass or dynamic rendering instance */
	RN_GPU_CMDBUF,      /* a whole primary command buffer (`cmdbuf` mode) */
	RN_GPU_SUBMIT,      /* a whole vkQueueSubmit batch */
	RN_GPU_REGION,      /* a region the program marked: an NVTX range (CUDA) or a debug-utils
			     * label (Vulkan); host-side times for NVTX. Not GPU work: left out of
			     * GPU busy time and of the work kinds above; span_count sees it as
			     * "region:<name>", never as "gpu:<name>" */
	RN_GPU_GRAPH,       /* one replay of a CUDA graph: earliest start to latest end of the
			     * kernels of one cuGraphLaunch, named "graph:<graph_id>"; derived from
			     * its kernels, which stay in the trace (left out of GPU busy time);
			     * span_count sees it as "graph:<graph_id>" */
};

/* Direction of a GPU copy (enum rn_gpu_dir), from the memory types involved. */
enum rn_gpu_dir {
	RN_GPU_DIR_NONE = 0, /* not a copy, or unknown */
	RN_GPU_DIR_HTOD,     /* host-visible memory to device-local memory */
	RN_GPU_DIR_DTOH,     /* device-local memory to host-visible memory */
	RN_GPU_DIR_DTOD,     /* device to device */
	RN_GPU_DIR_HTOH,     /* host-visible to host-visible */
};

/* Flags of a GPU span (enum rn_gpu_flags). */
enum rn_gpu_flags {
	RN_GPU_INDIRECT = 1 << 0,   /* indirect dispatch: groups[] are not known */
	RN_GPU_SERIALIZED = 1 << 1, /* timed in `dispatch` mode: timestamps serialize the GPU */
	RN_GPU_WAITED = 1 << 2,     /* the host waited for this work (fence/queue/device idle) */
	RN_GPU_UNCLOSED = 1 << 3,   /* a region still open when the process ended (no pop/end):
				     * end_ns is the last time the library saw the process */
};

/* Longest console display of a GPU span name, bytes: longer names (templated C++ kernels)
 * are shortened in console tables by rn_gpu_display_name(); JSON, OTLP, JUnit and pattern
 * matching always use the full name. */
#define RN_GPU_DISPLAY_MAX 96

/* One span of GPU work on the host CLOCK_MONOTONIC timeline. */
struct rn_gpu_span {
	pid_t pid;               /* process that recorded it */
	enum rn_gpu_kind kind;   /* what was timed */
	uint32_t flags;          /* enum rn_gpu_flags */
	char *name;              /* span name without the "gpu:" prefix, owned */
	uint32_t queue_family;   /* queue family index */
	uint64_t start_ns;       /* GPU start mapped to CLOCK_MONOTONIC, ns */
	uint64_t end_ns;         /* GPU end mapped to CLOCK_MONOTONIC, ns */
	uint64_t submit_ns;      /* host time of the submit that carried it, ns; 0 if unknown */
	uint64_t uncertainty_ns; /* +/- of the clock mapping, ns */
	uint32_t groups[3];      /* workgroup counts of a dispatch (0 when indirect) */
	uint64_t bytes;          /* bytes moved by a copy, 0 otherwise */
	enum rn_gpu_dir dir;     /* direction of a copy */
	char *region;            /* name of the innermost region (NVTX range, debug-utils label)
				    * enclosing the launch or recording of this work, owned; for a
				    * RN_GPU_REGION span its parent region; NULL when none */
	uint32_t graph_id;       /* CUDA graph the kernel was replayed from (CUPTI graphId),
				    * 0 when not from a graph */
	uint64_t graph_node_id;  /* node of that graph (CUPTI graphNodeId), 0 when none */
	uint64_t launch_id;      /* the launching API call (CUPTI correlation id; all kernels
				    * of one graph replay share it), 0 when unknown */
};

/* Flags of an app span (enum rn_app_flags). */
enum rn_app_flags {
	RN_APP_UNCLOSED = 1 << 0, /* pushed but never popped before the process ended: end_ns is
				   * when the collector saw the process's pipe close */
	RN_APP_ERROR = 1 << 1,    /* the program marked the span's status as an error (OTLP
				   * status code ERROR) */
	RN_APP_CPU = 1 << 2,      /* cpu_ns is known (renacer_span.h push/pop records that carry
				   * the thread's CPU clock) */
};

/* Where an app span came from (enum rn_app_source). */
enum rn_app_source {
	RN_APP_SOURCE_OTLP = 0, /* an OpenTelemetry SDK's export to renacer's OTLP/HTTP receiver */
	RN_APP_SOURCE_HEADER,   /* collectors/app/renacer_span.h push/pop over the span pipe */
};

/*
 * One span the program itself reported (its own compute blocks, requests, phases), on the
 * host CLOCK_MONOTONIC timeline. span_count and span_time see it as "app:<name>"; the
 * timeline and the OTLP export show it under the run's span, with its attributes and thread.
 */
struct rn_app_span {
	pid_t pid;                 /* process that reported it, 0 when unknown (OTLP without a
				     * process.pid resource attribute) */
	pid_t tid;                 /* thread that reported it, 0 when unknown */
	enum rn_app_source source; /* how it arrived */
	uint32_t flags;            /* enum rn_app_flags */
	char *name;                /* span name without the "app:" prefix, owned */
	char *parent;              /* name of the enclosing app span, owned, or NULL */
	uint64_t start_ns;         /* start, CLOCK_MONOTONIC ns (OTLP's unix times are mapped
				     * with the offset between the two clocks at receipt) */
	uint64_t end_ns;           /* end, CLOCK_MONOTONIC ns */
	uint64_t cpu_ns;           /* the span's own thread CPU time, ns, when flags has
				     * RN_APP_CPU; else 0 (OTLP spans, RECORD records, records
				     * without the CPU clock) */
	uint8_t trace_id[16];      /* OTLP trace id, zeros when none */
	uint8_t span_id[8];        /* OTLP span id, zeros when none */
	uint8_t parent_span_id[8]; /* OTLP parent span id, zeros for a root */
	char *attrs;               /* the span's attributes as one JSON object text
				     * ({"http.route":"/x","n":3}), owned, or NULL when none */
};

/* How a run ended as a whole (enum rn_run_status). */
enum rn_run_status {
	RN_RUN_OK = 0,      /* the root exited (any exit code) */
	RN_RUN_EXEC_FAILED, /* the command could not be executed; see rn_trace.error */
	RN_RUN_CRASHED,     /* the root was killed by a signal */
	RN_RUN_TIMED_OUT,   /* the wall-clock limit expired; the tree was killed */
	RN_RUN_INTERRUPTED, /* renacer received SIGINT/SIGTERM; the tree was killed */
	RN_RUN_LIMIT,       /* a process or memory limit was hit; the tree was killed */
	RN_RUN_ERROR,       /* a collector failed; see rn_trace.error */
};

/* What a gap leaves incomplete (enum rn_gap_scope). */
enum rn_gap_scope {
	RN_GAP_GPU_SPANS = 1 << 0,    /* GPU spans (span_count over gpu:* names, gpu_* metrics,
				      * GPU anti-patterns) */
	RN_GAP_SPAN_DETAIL = 1 << 1,  /* the per-span replay of the spool (anti-patterns,
				      * equivalence without a live recording, timeline, OTLP
				      * "all"); counts are unaffected */
	RN_GAP_INSTRUCTIONS = 1 << 2, /* the instruction count of the Valgrind run: a process
				       * that left no count (SIGKILL) is missing from the total */
};

/* Kinds of known data loss (enum rn_gap_kind). */
enum rn_gap_kind {
	RN_GAP_DROPPED = 0, /* spans recorded, then lost before renacer read them (buffers full,
			     * a record file cut short, no clock to place them) */
	RN_GAP_UNTIMED,     /* work the target did that has no span (query slots ran out,
			     * results overwritten, queues without timestamps) */
	RN_GAP_SPOOL,       /* the span spool could not be created or written */
};

/*
 * Known data loss of one run: a collector that knows it lost data records it here instead of
 * only warning, so a verdict on that data can say it is incomplete (assertions:
 * rn_verdict_apply_gaps). Recorded with rn_trace_add_gap.
 */
struct rn_trace_gap {
	enum rn_gap_kind kind; /* what was lost */
	uint32_t scope;        /* enum rn_gap_scope: the data it leaves incomplete */
	const char *source;    /* who lost it: "vulkan", "cuda", "ptrace" (static) */
	uint64_t count;        /* spans or commands lost; 0 = unknown how many */
	char *reason;          /* one line, why ("the layer's query slots ran out"), owned */
};

struct rn_trace;

/*
 * A sink receives spans as they complete, for outputs that need every span (strace-style
 * lines, the spool, online anti-pattern detectors). Callbacks run in the tracer's stop loop:
 * keep them cheap. Any of the function pointers may be NULL.
 */
struct rn_trace_sink {
	/* A syscall completed (or was closed as unfinished). */
	void (*syscall)(void *ctx, const struct rn_trace *t, const struct rn_syscall_event *ev);
	/* A process was born (event 'f'), exec'd ('e') or ended ('x'); `p` is valid for the call. */
	void (*process)(void *ctx, const struct rn_trace *t, const struct rn_process *p,
			char event);
	void *ctx; /* passed back to the callbacks, owned by whoever added the sink */
};

#define RN_TRACE_MAX_SINKS 8

/* A trace of one run of one target. */
struct rn_trace {
	struct rn_process *procs;   /* processes in order of birth; procs[0] is the root */
	size_t nprocs;              /* processes used */
	size_t procs_cap;           /* processes allocated */
	struct rn_gpu_span *gpu;    /* GPU spans in order of arrival */
	size_t ngpu;                /* GPU spans used */
	size_t gpu_cap;             /* GPU spans allocated */
	uint64_t start_ns;          /* spawn of the root, ns */
	uint64_t end_ns;            /* the last process of the tree ended, ns */
	enum rn_run_status status;  /* how the run ended */
	char *error;                /* human-readable reason when status != OK, owned, or NULL */
	uint64_t peak_rss_bytes;    /* tree peak RSS: max over time of the summed VmHWM of the
				     * processes alive then (an upper bound), bytes */
	uint64_t max_rss_bytes;     /* largest single-process peak RSS (VmHWM, ru_maxrss), bytes */
	uint64_t alloc_peak_bytes;  /* tree peak of anonymous mapped + brk bytes, bytes */
	uint64_t alloc_total_bytes; /* tree total of bytes ever mapped/brk'ed, bytes */
	uint64_t alloc_cur_bytes;   /* tree current mapped bytes while running, bytes */
	uint64_t cpu_ns;            /* user + system CPU time of the root and of every descendant
				     * reaped by its parent, ns (getrusage(RUSAGE_CHILDREN) over
				     * the run); contention from other processes barely moves it */
	uint64_t user_ns;           /* the user-mode part of cpu_ns (ru_utime), ns; the rest is
				     * the kernel's work for the tree. The kernel splits cpu_ns
				     * by tick samples, so a few ms of a short run are noise */
	uint64_t unfiltered_stops;  /* syscall stops seen (diagnostics of the filtered mode) */
	bool filtered;              /* only a subset of syscalls was traced (seccomp filter) */
	bool counts_only;           /* durations were not measured (count-only mode) */
	bool events_only;           /* a timing run: process events only, no syscall spans or
				     * counts (RN_RUN_EVENTS_ONLY) */
	bool syscall_cpu;           /* a sink wants each spooled call's cpu_ns (a profile's
				     * RN_PROFILE_SYSCALL_CPU): two /proc reads a call */
	struct rn_trace_sink sinks[RN_TRACE_MAX_SINKS]; /* registered sinks */
	int nsinks;                                     /* sinks used */
	struct rn_app_span *app;   /* the program's own spans in order of arrival [napp], owned */
	size_t napp;               /* app spans used */
	size_t app_cap;            /* app spans allocated */
	uint16_t app_port;         /* the app collector's OTLP/HTTP receiver port on 127.0.0.1,
				    * 0 without one: the program's own export to it is no part
				    * of its work (assertions' witness leaves it out) */
	struct rn_trace_gap *gaps; /* known data loss of the run [ngaps], owned */
	size_t ngaps;              /* gaps recorded */
	FILE *spool;              /* spool of every syscall span, or NULL (rn_trace_spool_enable) */
	uint64_t spooled;         /* spans written to the spool */
	struct rn_hist **latency; /* per-syscall latency histograms of the whole tree, indexed by
				   * number (rn_syscall_table_size() entries, each NULL until the
				   * call's first completion), owned; NULL unless
				   * rn_trace_latency_enable() was called */
	void *pid_index;          /* private pid -> process index map */
};

/* Initialize an empty trace. Allocates nothing. */
void rn_trace_init(struct rn_trace *t);
/* Free everything the trace owns (closing the spool); `t` is then as after init. */
void rn_trace_release(struct rn_trace *t);

/* Append a process and return it (zeroed but for pid, ppid, parent, reaped_by = -1,
 * nthreads = 1, start_ns). Dies on out-of-memory. The pointer is valid until the next add. */
struct rn_process *rn_trace_add_process(struct rn_trace *t, pid_t pid, pid_t ppid,
					uint64_t start_ns);
/* Index of the newest process with thread-group id `pid`, or -1. O(1) average. */
int rn_trace_find_process(const struct rn_trace *t, pid_t pid);
/* Set a process's exe (copied) and comm (its basename). */
void rn_process_set_exe(struct rn_process *p, const char *exe);

/*
 * Memory accounting follows the process image that owns it (issue: a wrapper that execs,
 * `sh -c 'exec gzip ...'`, must not carry the shell's program break into gzip's):
 * - rn_trace_image_fork(): `child` was made by fork (its own copy of `parent`'s image:
 *   `shares_vm` false) or by clone(CLONE_VM)/vfork without CLONE_THREAD (`shares_vm` true:
 *   it runs in the parent's image until it execs, so it starts with nothing of its own).
 *   A copy starts with the parent's program break and current bytes; the copied bytes stay
 *   the parent's in the tree totals (alloc_inherited_bytes). Threads share their process's
 *   rn_process and need no call.
 * - rn_trace_image_end(): the image of `p` is gone (a successful exec replaced it, or the
 *   process ended): its current bytes leave the tree's current total and it restarts with no
 *   mappings and no program break. Its alloc_peak_bytes (the largest of its images') and
 *   alloc_total_bytes stay.
 */
void rn_trace_image_fork(struct rn_trace *t, struct rn_process *child,
			 const struct rn_process *parent, bool shares_vm);
void rn_trace_image_end(struct rn_trace *t, struct rn_process *p);
/* `bytes` of anonymous memory were mapped into the current image of `p` without a syscall
 * (the executable's .bss, mapped by the kernel at exec): counted as an mmap would be. */
void rn_trace_image_map(struct rn_trace *t, struct rn_process *p, uint64_t bytes);

/*
 * Account one completed syscall into process `p` (stats, totals, allocations) and hand it to
 * every sink and the spool. `p` must be the process of ev->pid. Events flagged
 * RN_SC_UNFINISHED only reach the sinks and the spool: they are not counted.
 */
void rn_trace_syscall(struct rn_trace *t, struct rn_process *p, const struct rn_syscall_event *ev);
/* Tell the sinks about a process event ('f' born, 'e' exec, 'x' ended). */
void rn_trace_process_event(struct rn_trace *t, const struct rn_process *p, char event);

/*
 * Decode `wait_status` (the status word of wait4(2) for p's exit) into p->end, exit_code,
 * term_signal and core_dumped: RN_PROC_LOST when `lost` (renacer killed it: the signal or
 * exit code is kept but the end is not the program's), else RN_PROC_SIGNALED or
 * RN_PROC_EXITED. The one decoder of wait statuses for every driver.
 */
void rn_process_set_end(struct rn_process *p, int wait_status, bool lost);

/* Register a sink (copied). Returns 0, or -ENOSPC when RN_TRACE_MAX_SINKS are in use. */
int rn_trace_add_sink(struct rn_trace *t, const struct rn_trace_sink *sink);

/* Append a GPU span; `name` ("unnamed" when NULL) and `region` are copied. Returns the stored
 * span. Dies on
 * out-of-memory. */
struct rn_gpu_span *rn_trace_add_gpu(struct rn_trace *t, const struct rn_gpu_span *span);

/*
 * Move the GPU spans of `src` (a run of the same program with a GPU collector) into `dst` (a
 * run without it): appended to dst's, their times shifted by dst->start_ns - src->start_ns
 * (ns: both runs start at 0 on dst's timeline; how far apart two runs' work lies is not known)
 * and their pids mapped to dst's process of the same birth order (the root's when dst has
 * fewer). src's gaps that leave GPU spans incomplete (RN_GAP_GPU_SPANS) are added to dst's.
 * src keeps no GPU spans. Dies on out-of-memory.
 */
void rn_trace_take_gpu(struct rn_trace *dst, struct rn_trace *src);

/* Append an app span; `name` ("unnamed" when NULL), `parent` and `attrs` are copied. Returns
 * the stored span (valid until the next add). Dies on out-of-memory. */
struct rn_app_span *rn_trace_add_app(struct rn_trace *t, const struct rn_app_span *span);

/* Set status and a printf-formatted error message (replacing any previous one). */
void rn_trace_fail(struct rn_trace *t, enum rn_run_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a gap: `count` items (0: unknown) of `scope` lost by `source` (static string) for the
 * printf-formatted reason. A gap of the same kind, scope and source adds its count to the one
 * recorded (keeping the first reason). Dies on out-of-memory. */
void rn_trace_add_gap(struct rn_trace *t, enum rn_gap_kind kind, uint32_t scope, const char *source,
		      uint64_t count, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Name of a gap kind: "dropped", "untimed", "spool". Static. */
const char *rn_gap_kind_name(enum rn_gap_kind kind);

/*
 * Spool: keep every syscall span in an unlinked temporary file (binary records), so outputs
 * that need each span (OTLP, Perfetto, anti-patterns) can replay them after the run without
 * the runner's memory growing. Call before the run. 0 or negative errno.
 */
int rn_trace_spool_enable(struct rn_trace *t);
/* Replay spooled spans in completion order; stops early when `fn` returns non-zero and returns
 * that value. Returns 0, the callback's value, or a negative errno (-EIO for a short or
 * corrupt record). The spool's offset is back at its end afterwards. */
int rn_trace_spool_foreach(struct rn_trace *t,
			   int (*fn)(void *ctx, const struct rn_syscall_event *ev), void *ctx);

/*
 * Keep a latency histogram per syscall (hist.h: bounded memory, <= 1% relative error) for
 * the percentiles of `trace -c --percentiles`. Call before the run. Every counted call (not
 * RN_SC_UNFINISHED) records its duration_ns. Dies on out-of-memory.
 */
void rn_trace_latency_enable(struct rn_trace *t);
/* The latency histogram of syscall `nr`, or NULL when latencies are not kept or the call
 * never completed. Borrowed from the trace. */
const struct rn_hist *rn_trace_latency(const struct rn_trace *t, int nr);

/*
 * Take syscall `nr` out of the counts of `t`: each process's stats of it and its share of the
 * process's syscalls and syscall_errors, and its latency histogram (the syscall spans and
 * events stay). A benchmark harness's clock reads are its measurement, not the benchmark's
 * work (runner/check/check_run.c). `nr` out of range: nothing.
 */
void rn_trace_forget_syscall(struct rn_trace *t, int nr);

/* Sum of one syscall's stats over all processes. `nr` out of range gives zeros. */
struct rn_syscall_stat rn_trace_syscall_total(const struct rn_trace *t, int nr);
/* Total completed syscalls of the tree. */
uint64_t rn_trace_total_syscalls(const struct rn_trace *t);
/* Wall time of the run: root spawn to last exit, ns. */
uint64_t rn_trace_wall_ns(const struct rn_trace *t);

/* Busy time of the GPU: union of the GPU span intervals, ns (region and graph spans left
 * out: they are not work of their own). */
uint64_t rn_trace_gpu_busy_ns(const struct rn_trace *t);

/*
 * Names of the model's enums: the one list every view and exporter writes (JSON, strace-style
 * messages, OTLP attributes, results files, the timeline). Static strings.
 *   enum rn_run_status  "ok", "exec_failed", "crashed", "timed_out", "interrupted", "limit",
 *                       "error"
 *   enum rn_proc_end    "running", "exited", "signaled", "lost"
 *   enum rn_gpu_dir     "none", "host_to_device", "device_to_host", "device_to_device",
 *                       "host_to_host"
 * A value outside its enum (a corrupt record) gives NULL: each output keeps the fallback its
 * format documents.
 */
const char *rn_run_status_name(enum rn_run_status status);
const char *rn_proc_end_name(enum rn_proc_end end);
const char *rn_gpu_dir_name(enum rn_gpu_dir dir);
/* The enum value of a name given by rn_run_status_name() / rn_proc_end_name(), or -1 for NULL
 * or an unknown name (readers of results files). */
int rn_run_status_lookup(const char *name);
int rn_proc_end_lookup(const char *name);

/* Name of signal `sig` (rn_process.term_signal): "SIGSEGV"; "SIGRT_<n>" for 32..64, else
 * "SIG<number>", these two in a static buffer valid until the next call. Never NULL. */
const char *rn_signal_name(int sig);

/* Human name of enum rn_gpu_kind ("dispatch", "copy", "render_pass", "cmdbuf", "submit",
 * "region", "graph"), "unknown" for a value outside the enum. */
const char *rn_gpu_kind_name(enum rn_gpu_kind kind);

/* Whether `kind` is GPU work (dispatch, copy, render pass, cmdbuf, submit) rather than a
 * region or a graph replay derived from work. */
bool rn_gpu_kind_is_work(enum rn_gpu_kind kind);

/*
 * Name of `g` as span_count matches it: "gpu:<name>" for work, "region:<name>" for regions,
 * "graph:<graph_id>" for graph replays. Written into `out` (`cap` bytes, cut to fit,
 * NUL-terminated).
 */
void rn_gpu_span_match_name(const struct rn_gpu_span *g, char *out, size_t cap);

/*
 * `name` for console tables: unchanged when it has at most `max` bytes (at least 16), else
 * its first max - 23 bytes, "...", and its last 20 bytes (the end of a templated C++ name
 * holds the parameter list that tells overloads apart). Written into `out` (`cap` bytes,
 * at least max + 1). Returns `out`.
 */
const char *rn_gpu_display_name(const char *name, size_t max, char *out, size_t cap);

#endif
