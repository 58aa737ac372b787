/*
 * profile.h - where a run's time went, as folded stacks (`renacer trace --profile`):
 *
 *   (a) syscall time by call stack: each completed syscall's duration, keyed by its process
 *       image, the return addresses the ptrace collector captured at its entry (struct
 *       rn_syscall_event.stack: the caller of the libc wrapper, then a frame-pointer walk)
 *       and the syscall's name; and the calling thread's on-CPU time in those calls
 *       (rn_syscall_event.cpu_ns), which leaves out what a call waited;
 *   (b) on-CPU time by sampling: perf_event_open(2) with PERF_COUNT_SW_CPU_CLOCK (a software
 *       clock: it works in VMs without a hardware PMU) at `hz` samples per second of CPU
 *       time, one event per online CPU following the root and, through `inherit`, every
 *       process and thread it makes (enable_on_exec: counting starts at the root's exec),
 *       each sample with the user-space call chain the kernel walks (PERF_SAMPLE_CALLCHAIN:
 *       frame pointers; code built without them gives shorter chains) and its time
 *       (PERF_SAMPLE_TIME on CLOCK_MONOTONIC), kept per sample (struct rn_profile_timed) so
 *       the samples inside time windows can be folded alone.
 *
 * Both are written in the folded format of Brendan Gregg's FlameGraph tools, one stack per
 * line, outermost frame first, then a space and the value:
 *
 *     app;main;load_config;parse_row;read 1830000       (a: nanoseconds in the call)
 *     app;main;parse_row 37                             (b: samples)
 *
 * Frames are function names from ELF symbols (collectors/symbolize.h; a C++ symbol demangled,
 * "node::Start", rn_symbol_demangle), those of the C runtime,
 * the dynamic loader and an interpreter library followed by their module ("fwrite
 * [libc.so.6]": rn_frame_is_system tells them apart), "module+0xVADDR" when
 * the module has no symbol for the address. An address that no file's symbol names but that a
 * region of the process's perf map holds (code compiled at run time by Node.js, CPython 3.12+,
 * a JVM agent: collectors/perfmap.h, read at writing time from /tmp/perf-PID.map when it was
 * modified after rn_profile_attach) is that region's name followed by " [jit]" ("hotLoop
 * (/app/a.js:3:1) [jit]", "jit_spin_loop [jit]"): the program's own code to
 * rn_frame_is_system. Any other address that no executable file mapping holds (a stray word
 * of a frame-pointer walk through code built without frame pointers) is left out of the
 * stack, and one of a process whose mappings are unknown stays raw ("0x..."). The kernel's
 * and the ptrace collector's frame-pointer walks go on through JIT frames that keep rbp
 * frames (V8's do, CPython's trampolines do). A
 * process's frames are read against /proc/PID/maps
 * snapshots (the trace's for (a); for (b) the sampler's own, taken as samples of a new
 * process arrive and again when an address is not covered). The samples are drained from the
 * ring buffers by a thread every 50 ms while the run goes; lost samples are counted.
 *
 * Ownership: the profile owns everything it holds; rn_profile_free() releases it. The syscall
 * half is fed from the tracer's thread (a trace sink); the sampler's thread touches only the
 * sample table and the samples' times, under a mutex.
 */
#ifndef RN_PROFILE_H
#define RN_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trace.h"

/* Frames kept per sampled stack (the kernel's chain is cut there). */
#define RN_PROFILE_FRAMES_MAX 64

struct rn_profile;

/* One on-CPU sample's time, thread and stack, kept so the samples can be placed in time
 * windows after the run (the spans of an app's own work): 16 bytes each. */
struct rn_profile_timed {
	uint64_t time_ns; /* when it was taken, CLOCK_MONOTONIC ns (the trace's clock) */
	pid_t tid;        /* the thread it was taken in */
	uint32_t stack;   /* its stack's id in the profile's sample table */
};
/* Samples kept with their times (16 MiB); those past it count in the folded stacks only and
 * in rn_profile_untimed. */
#define RN_PROFILE_TIMED_MAX (1u << 20)

/* A time window [start_ns, end_ns) on CLOCK_MONOTONIC, of thread `tid` (0: of any thread). */
struct rn_profile_window {
	uint64_t start_ns, end_ns;
	pid_t tid;
};

/* A new, empty profile. Dies on out-of-memory. */
struct rn_profile *rn_profile_new(void);
/* Stop sampling if it runs, free everything (NULL-safe). */
void rn_profile_free(struct rn_profile *p);
/* The run's working directory `dir` (resolved to an absolute path; NULL, or one that does not
 * resolve: none): the files of code compiled at run time under it are named relative to it
 * (rn_perfmap_frame_name), so a head tree and its base name the same function alike. */
void rn_profile_set_root(struct rn_profile *p, const char *dir);

/* Register the profile's sink on `t` (call before the run): (a) from every completed syscall
 * with a captured stack, and (b) sampling started at the root's birth when `hz` > 0. The
 * trace must spool spans with stacks (rn_trace_spool_enable) for (a). Returns 0 or -ENOSPC. */
int rn_profile_attach(struct rn_profile *p, struct rn_trace *t, unsigned hz);

/* Stop sampling and drain what is left (idempotent; nothing when it never started). */
void rn_profile_sample_stop(struct rn_profile *p);

/* Samples taken, and samples the kernel reported lost (PERF_RECORD_LOST). */
uint64_t rn_profile_samples(const struct rn_profile *p);
uint64_t rn_profile_lost(const struct rn_profile *p);
/* Why sampling is off after rn_profile_attach asked for it ("" when it runs), static. */
const char *rn_profile_sampling_error(const struct rn_profile *p);

/* Below this share of the run's CPU time covered by samples the on-CPU profile is thin. */
#define RN_PROFILE_THIN_COVERAGE 0.5
/* Less CPU time than this many sampling periods is too short to judge the coverage of. */
#define RN_PROFILE_COVERAGE_MIN_PERIODS 10

/*
 * Whether the on-CPU samples of run `t` cover too little of its CPU time to be read as where
 * the time went. Each sample stands for one sampling period (1e9 / hz ns) of CPU time, and
 * each process counts its own period from its start (the inherited event of a child starts
 * at zero), so a process that runs less than one period of CPU is never sampled: a build of
 * many short compiler runs gets few samples for a lot of CPU time. Compares (samples + lost)
 * x period with t->cpu_ns (t->user_ns where the kernel is not sampled). When the coverage is
 * under RN_PROFILE_THIN_COVERAGE and the CPU time at least RN_PROFILE_COVERAGE_MIN_PERIODS
 * periods, writes a one-line note to note[cap] ("3 samples at 99 Hz stand for 30 ms of the
 * 1280 ms of CPU time (2%): ...") and returns true; else false (also when sampling is off).
 */
bool rn_profile_coverage_note(const struct rn_profile *p, const struct rn_trace *t, char *note,
			      size_t cap);

/* Which folded stacks to write (enum rn_profile_kind). */
enum rn_profile_kind {
	RN_PROFILE_SYSCALLS,      /* (a): syscall nanoseconds by call stack */
	RN_PROFILE_CPU,           /* (b): on-CPU samples by call stack */
	RN_PROFILE_SYSCALL_CALLS, /* (a) counted: completed syscalls by call stack */
	RN_PROFILE_SYSCALL_CPU,   /* (a) on CPU: the calling threads' on-CPU nanoseconds in the
				   * calls by call stack (rn_syscall_event.cpu_ns, read when the
				   * trace's syscall_cpu was set before the run; a call's duration
				   * where it was not or the kernel does not tell) */
};

struct rn_srcloc; /* DWARF source lines (collectors/srcloc.h) */

/* Write the folded stacks of `kind` to `out`, sorted by stack, symbolized against the
 * processes of `t`. With `src` (not NULL), a frame whose module has DWARF line information
 * becomes one frame per source frame, inlined ones included: "parse_row (src/parse.c:88)",
 * the line of the call for a caller's frame (spaces inside a frame are kept: the value is
 * after the last space). Returns 0 or -EIO. */
int rn_profile_write_folded(struct rn_profile *p, const struct rn_trace *t,
			    enum rn_profile_kind kind, struct rn_srcloc *src, FILE *out);

/*
 * The window filter: count each sample of s[ns] that lies in at least one window of w[nw]
 * (taken in the window's thread, or any thread for tid 0) once, into counts[stack]
 * (counts[nstacks], added to; a sample whose stack is >= nstacks is skipped). Sorts s by
 * time in place. Returns the samples counted.
 */
uint64_t rn_profile_window_count(struct rn_profile_timed *s, size_t ns,
				 const struct rn_profile_window *w, size_t nw, uint64_t *counts,
				 size_t nstacks);

/* Samples taken past RN_PROFILE_TIMED_MAX, so without a time (in no window's count). */
uint64_t rn_profile_untimed(const struct rn_profile *p);

/* rn_profile_write_folded's RN_PROFILE_CPU stacks of only the samples inside the windows
 * w[nw] (rn_profile_window_count), each line's value the samples in them; *counted (not
 * NULL) gets their sum. Returns 0 or -EIO. */
int rn_profile_write_folded_windows(struct rn_profile *p, const struct rn_trace *t,
				    const struct rn_profile_window *w, size_t nw,
				    struct rn_srcloc *src, FILE *out, uint64_t *counted);

#endif
