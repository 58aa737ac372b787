/*
 * test_antipattern.c - the anti-pattern detectors on synthetic traces: for each detector a
 * positive case that fires with high confidence, near misses built at the edges of its
 * definition that do not fire, the behaviour without the spool (statistics fallback or NO
 * DATA), the process filter, the bounded tables, and the report helpers.
 *
 * Traces are built the way collectors build them: rn_trace_add_process, rn_trace_spool_enable
 * and rn_trace_syscall, with syscall numbers from the generated table (rn_syscall_lookup).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assertions/internal.h"
#include "assertion.h"
#include "trace.h"

#define MS 1000000ULL
#define US 1000ULL
#define A(...) ((const uint64_t[6]){ __VA_ARGS__ })
#define MAP_ANON_FLAGS 0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */
#define AT_FDCWD_ARG ((uint64_t)(uint32_t)-100)

/* A synthetic trace under construction, with a clock for back-to-back calls. */
struct syn {
	struct rn_trace t;
	uint64_t now; /* time of the next call, ns */
};

static void syn_init(struct syn *s, bool spool)
{
	rn_trace_init(&s->t);
	if (spool)
		assert_int_equal(rn_trace_spool_enable(&s->t), 0);
	s->now = 1000 * MS;
	s->t.start_ns = s->now;
}

/* Add a process born now (or at `start_ns` when non-zero); returns its index. */
static int syn_proc_at(struct syn *s, pid_t pid, pid_t ppid, const char *exe, uint64_t start_ns)
{
	struct rn_process *p = rn_trace_add_process(&s->t, pid, ppid, start_ns ? start_ns : s->now);

	if (exe)
		rn_process_set_exe(p, exe);
	return (int)s->t.nprocs - 1;
}

static int syn_proc(struct syn *s, pid_t pid, pid_t ppid, const char *exe)
{
	return syn_proc_at(s, pid, ppid, exe, 0);
}

static int nr_of(const char *name)
{
	int nr = rn_syscall_lookup(name);

	assert_true(nr >= 0);
	return nr;
}

/* One completed call of thread `tid` of process `proc` at `start`, lasting `dur`. */
static void syn_call_at(struct syn *s, int proc, pid_t tid, uint64_t start, uint64_t dur,
			const char *name, const uint64_t *args, int64_t ret, int err,
			const char *path)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = s->t.procs[proc].pid;
	ev.tid = tid ? tid : ev.pid;
	ev.nr = nr_of(name);
	memcpy(ev.args, args, sizeof(ev.args));
	ev.ret = err ? -err : ret;
	ev.err = err;
	ev.start_ns = start;
	ev.duration_ns = dur;
	ev.path = path;
	rn_trace_syscall(&s->t, &s->t.procs[proc], &ev);
	if (start + dur > s->t.end_ns)
		s->t.end_ns = start + dur;
}

/* A call after a user-space gap of `gap` ns, on the main thread, advancing the clock. */
static void syn_call(struct syn *s, int proc, uint64_t gap, uint64_t dur, const char *name,
		     const uint64_t *args, int64_t ret, int err, const char *path)
{
	s->now += gap;
	syn_call_at(s, proc, 0, s->now, dur, name, args, ret, err, path);
	s->now += dur;
}

static void syn_end_at(struct syn *s, int proc, uint64_t end_ns)
{
	s->t.procs[proc].end_ns = end_ns;
	s->t.procs[proc].end = RN_PROC_EXITED;
	if (end_ns > s->t.end_ns)
		s->t.end_ns = end_ns;
}

static void syn_end(struct syn *s, int proc)
{
	syn_end_at(s, proc, s->now);
}

/* Run detector `name` and return its detection (caller releases). */
static struct rn_detection detect(struct syn *s, const char *name, const void *re)
{
	struct rn_detection d;

	assert_int_equal(rn_antipattern_detect(&s->t, name, re, &d), 0);
	assert_non_null(d.pattern);
	assert_string_equal(d.pattern, rn_antipattern_canonical(name));
	assert_non_null(d.recommendation);
	assert_non_null(d.summary);
	assert_non_null(d.evidence);
	assert_true(d.confidence >= 0.0 && d.confidence <= 1.0);
	return d;
}

static void assert_fires(struct rn_detection *d, double min)
{
	if (d->confidence < min || d->no_data)
		print_error("%s: confidence %.3f (no_data %d)\n%s\n", d->pattern, d->confidence,
			    d->no_data, d->evidence);
	assert_false(d->no_data);
	assert_true(d->confidence >= min);
}

static void assert_quiet(struct rn_detection *d)
{
	if (d->confidence >= 0.5 || d->no_data)
		print_error("%s: confidence %.3f (no_data %d)\n%s\n", d->pattern, d->confidence,
			    d->no_data, d->evidence);
	assert_false(d->no_data);
	assert_true(d->confidence < 0.5);
}

static void syn_release(struct syn *s)
{
	rn_trace_release(&s->t);
}

/* ---- names, spellings, ramps ------------------------------------------------------------- */

static void test_antipattern_names_and_spellings(void **state)
{
	static const char *const want[] = { "GodProcess", "TightLoop",   "PcieBottleneck",
					    "SmallIO",    "RedundantIO", "ErrorStorm",
					    "SyncStorm",  "MemoryChurn" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_string_equal(rn_antipattern_names[i], want[i]);
		assert_ptr_equal(rn_antipattern_canonical(want[i]), rn_antipattern_names[i]);
		assert_non_null(rn_antipattern_description(want[i]));
	}
	assert_null(rn_antipattern_names[i]);
	assert_string_equal(rn_antipattern_canonical("PCIeBottleneck"), "PcieBottleneck");
	assert_string_equal(rn_antipattern_canonical("pcie_bottleneck"), "PcieBottleneck");
	assert_string_equal(rn_antipattern_canonical("tight-loop"), "TightLoop");
	assert_string_equal(rn_antipattern_canonical("GODPROCESS"), "GodProcess");
	assert_null(rn_antipattern_canonical("TightLoops"));
	assert_null(rn_antipattern_canonical("Tight"));
	assert_null(rn_antipattern_canonical(""));
	assert_null(rn_antipattern_canonical(NULL));
	assert_null(rn_antipattern_description("nope"));
}

static void test_antipattern_unknown_pattern_is_einval(void **state)
{
	struct syn s;
	struct rn_detection d;

	(void)state;
	syn_init(&s, true);
	syn_proc(&s, 10, 0, "/bin/x");
	memset(&d, 0x5a, sizeof(d));
	assert_int_equal(rn_antipattern_detect(&s.t, "Nope", NULL, &d), -EINVAL);
	assert_null(d.pattern);
	assert_null(d.evidence);
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_ramps(void **state)
{
	(void)state;
	assert_true(rn_ap_ramp_log(64, 64, 4096) == 0.0);
	assert_true(rn_ap_ramp_log(10, 64, 4096) == 0.0);
	assert_true(rn_ap_ramp_log(0, 64, 4096) == 0.0);
	assert_true(fabs(rn_ap_ramp_log(512, 64, 4096) - 0.5) < 1e-9);
	assert_true(rn_ap_ramp_log(4096, 64, 4096) == 1.0);
	assert_true(rn_ap_ramp_log(INFINITY, 0.25, 4) == 1.0);
	assert_true(rn_ap_ramp_log(NAN, 0.25, 4) == 0.0);
	assert_true(fabs(rn_ap_ramp_log(1.0, 0.25, 4.0) - 0.5) < 1e-9);
	assert_true(fabs(rn_ap_ramp_lin(0.75, 0.6, 0.9) - 0.5) < 1e-9);
	assert_true(rn_ap_ramp_lin(0.6, 0.6, 0.9) == 0.0);
	assert_true(rn_ap_ramp_lin(1.0, 0.6, 0.9) == 1.0);
}

/* ---- TightLoop ---------------------------------------------------------------------------- */

static void test_antipattern_tightloop_zero_timeout_poll(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/spinner");
	syn_call(&s, p, 0, 20 * US, "timerfd_create", A(1, 0), 3, 0, NULL);
	for (i = 0; i < 20000; i++)
		syn_call(&s, p, 5 * US, 10 * US, "poll", A(0x7ffd1000, 1, 0), 0, 0, NULL);
	syn_call(&s, p, 5 * US, 10 * US, "poll", A(0x7ffd1000, 1, 0), 1, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_fires(&d, 0.95);
	assert_int_equal(d.proc, p);
	assert_non_null(strstr(d.evidence, "poll(0x7ffd1000, 1, 0) = 0 x20000"));
	assert_non_null(strstr(d.summary, "the longest 20000 consecutive poll calls"));
	assert_null(strstr(d.evidence, "timerfd_create"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_tightloop_alternating_eagain_and_yield(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/spinner");
	for (i = 0; i < 3000; i++) {
		syn_call(&s, p, 3 * US, 4 * US, "read", A(5, 0x7ffd5000, 4096), 0, EAGAIN, NULL);
		syn_call(&s, p, 3 * US, 2 * US, "sched_yield", A(0), 0, 0, NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "read(5, 0x7ffd5000, 4096) = -1 EAGAIN x3000"));
	assert_non_null(strstr(d.evidence, "sched_yield() = 0 x3000"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_tightloop_near_misses(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	/* A polling loop with a 5 ms timeout: it sleeps in the kernel. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/poller");
	for (i = 0; i < 60; i++)
		syn_call(&s, p, 5 * US, 5 * MS, "poll", A(0x7ffd1000, 1, 5), 0, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);

	/* Identical reads that move data are progress (cat), not spinning. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/cat");
	for (i = 0; i < 20000; i++)
		syn_call(&s, p, 2 * US, 10 * US, "read", A(3, 0x9000, 131072), 131072, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);

	/* Identical no-progress calls, but 2 ms apart: a slow poll, not a tight loop. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/watcher");
	for (i = 0; i < 2000; i++)
		syn_call(&s, p, 2 * MS, 10 * US, "wait4", A(200, 0x7ffd2000, 1, 0), 0, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_quiet(&d);
	rn_detection_release(&d);
	syn_release(&s);

	/* A real spin, but only 40 calls long inside a long-lived process. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/brief");
	for (i = 0; i < 40; i++)
		syn_call(&s, p, 3 * US, 2 * US, "sched_yield", A(0), 0, 0, NULL);
	syn_call(&s, p, 500 * MS, 10 * US, "getpid", A(0), 100, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_tightloop_without_spool(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, false);
	p = syn_proc(&s, 100, 0, "/usr/bin/poller");
	for (i = 0; i < 100; i++)
		syn_call(&s, p, 5 * US, 10 * US, "poll", A(0x1000, 1, 0), 0, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_true(d.no_data);
	assert_null(strchr(d.evidence, '\n')); /* one line: it goes into the NO DATA message */
	rn_detection_release(&d);
	syn_release(&s);

	/* The statistics still show a sched_yield storm. */
	syn_init(&s, false);
	p = syn_proc(&s, 100, 0, "/usr/bin/yielder");
	for (i = 0; i < 70000; i++)
		syn_call(&s, p, 1 * US, 1 * US, "sched_yield", A(0), 0, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "spool was not enabled"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_tightloop_threads_beyond_cap(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/many");
	for (i = 0; i < 5000; i++)
		syn_call(&s, p, 3 * US, 2 * US, "sched_yield", A(0), 0, 0, NULL);
	for (i = 0; i < (int)RN_AP_MAX_THREADS + 100; i++) {
		syn_call_at(&s, p, 1000 + i, s.now, 1 * US, "getpid", A(0), 100, 0, NULL);
		s.now += 2 * US;
	}
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_fires(&d, 0.9);
	assert_non_null(strstr(d.evidence, "were not followed"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_tightloop_exited_threads_leave(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i, k;

	(void)state;
	/* More threads over the run than the table holds, but never that many at once. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/pool");
	for (i = 0; i < (int)RN_AP_MAX_THREADS * 2; i++) {
		pid_t tid = 1000 + i;

		for (k = 0; k < 20; k++) {
			syn_call_at(&s, p, tid, s.now, 1 * US, "sched_yield", A(0), 0, 0, NULL);
			s.now += 2 * US;
		}
		syn_call_at(&s, p, tid, s.now, 1 * US, "exit", A(0), 0, 0, NULL);
		s.now += 2 * US;
	}
	syn_end(&s, p);
	d = detect(&s, "TightLoop", NULL);
	assert_fires(&d, 0.95);
	assert_null(strstr(d.evidence, "were not followed"));
	assert_non_null(strstr(d.evidence, "spinning: 491520 calls"));
	rn_detection_release(&d);
	syn_release(&s);
}

/* ---- GodProcess --------------------------------------------------------------------------- */

/* A parent busy for 300 ms while three workers sit blocked in read. */
static void build_god(struct syn *s, bool spool)
{
	uint64_t t0 = s->now;
	int par, w, k;

	(void)spool;
	par = syn_proc_at(s, 100, 0, "/usr/bin/pool", t0);
	for (k = 0; k < 3; k++) {
		w = syn_proc_at(s, 101 + k, 100, NULL, t0 + 1 * MS);
		syn_call_at(s, w, 0, t0 + 1 * MS + 10 * US, 10 * US, "close", A(4), 0, 0, NULL);
		syn_call_at(s, w, 0, t0 + 1 * MS + 30 * US, 300 * MS, "read", A(3, 0x7000, 64), 0,
			    0, NULL);
		syn_end_at(s, w, t0 + 302 * MS);
	}
	syn_call_at(s, par, 0, t0 + 2 * MS, 10 * US, "close", A(3), 0, 0, NULL);
	syn_call_at(s, par, 0, t0 + 301 * MS, 10 * US, "close", A(4), 0, 0, NULL);
	syn_call_at(s, par, 0, t0 + 301 * MS + 20 * US, 1 * MS, "wait4", A(101, 0, 0, 0), 101, 0,
		    NULL);
	syn_end_at(s, par, t0 + 303 * MS);
	for (k = 1; k <= 3; k++) {
		s->t.procs[k].reaped_by = 0;
		s->t.procs[k].reaped_ns = t0 + 302 * MS;
	}
}

static void test_antipattern_godprocess_idle_workers(void **state)
{
	struct syn s;
	struct rn_detection d;

	(void)state;
	syn_init(&s, true);
	build_god(&s, true);
	d = detect(&s, "GodProcess", NULL);
	assert_fires(&d, 0.9);
	assert_int_equal(d.proc, 0);
	assert_non_null(strstr(d.evidence, "pid 100 (pool)"));
	assert_non_null(strstr(d.evidence, "pid 101 (pool): alive"));
	assert_non_null(strstr(d.evidence, "critical path"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_godprocess_near_misses(void **state)
{
	struct syn s;
	struct rn_detection d;
	uint64_t t0;
	int par, w, k;

	(void)state;
	/* The same pool, but the work is split: each worker computes 75 ms. */
	syn_init(&s, true);
	t0 = s.now;
	par = syn_proc_at(&s, 100, 0, "/usr/bin/pool", t0);
	for (k = 0; k < 3; k++) {
		w = syn_proc_at(&s, 101 + k, 100, NULL, t0 + 1 * MS);
		syn_call_at(&s, w, 0, t0 + 1 * MS + 10 * US, 20 * US, "read", A(3, 0x7000, 8), 8, 0,
			    NULL);
		syn_end_at(&s, w, t0 + 77 * MS);
	}
	syn_call_at(&s, par, 0, t0 + 77 * MS, 1 * MS, "wait4", A(101, 0, 0, 0), 101, 0, NULL);
	syn_end_at(&s, par, t0 + 79 * MS);
	d = detect(&s, "GodProcess", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);

	/* A shell running two commands one after the other: nothing runs alongside the busy one
	 * but its waiting parent. */
	syn_init(&s, true);
	t0 = s.now;
	par = syn_proc_at(&s, 100, 0, "/bin/sh", t0);
	w = syn_proc_at(&s, 101, 100, "/usr/bin/a", t0 + 1 * MS);
	syn_end_at(&s, w, t0 + 200 * MS);
	w = syn_proc_at(&s, 102, 100, "/usr/bin/b", t0 + 201 * MS);
	syn_end_at(&s, w, t0 + 220 * MS);
	syn_call_at(&s, par, 0, t0 + 1 * MS, 199 * MS, "wait4", A(101, 0, 0, 0), 101, 0, NULL);
	syn_call_at(&s, par, 0, t0 + 201 * MS, 19 * MS, "wait4", A(102, 0, 0, 0), 102, 0, NULL);
	syn_end_at(&s, par, t0 + 221 * MS);
	d = detect(&s, "GodProcess", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	assert_non_null(strstr(d.evidence, "no other process"));
	rn_detection_release(&d);
	syn_release(&s);

	/* A single process never qualifies, however busy. */
	syn_init(&s, true);
	par = syn_proc(&s, 100, 0, "/usr/bin/solo");
	syn_call(&s, par, 500 * MS, 10 * US, "write", A(1, 0x1000, 10), 10, 0, NULL);
	syn_end(&s, par);
	d = detect(&s, "GodProcess", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	assert_non_null(strstr(d.evidence, "multi-process"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_godprocess_process_filter(void **state)
{
	struct syn s;
	struct rn_detection d;
	struct rn_regex *re;

	(void)state;
	syn_init(&s, true);
	build_god(&s, true);
	/* Patterns match whole names, as the config compiles them. */
	assert_int_equal(rn_regex_compile("other", &re, NULL), 0);
	d = detect(&s, "GodProcess", re);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	rn_regex_free(re);
	assert_int_equal(rn_regex_compile("po.*", &re, NULL), 0);
	d = detect(&s, "GodProcess", re); /* forked workers carry their parent's comm */
	assert_fires(&d, 0.9);
	rn_detection_release(&d);
	rn_regex_free(re);
	syn_release(&s);
}

/* ---- PcieBottleneck ----------------------------------------------------------------------- */

static void gpu(struct syn *s, enum rn_gpu_kind kind, enum rn_gpu_dir dir, uint64_t start,
		uint64_t dur, uint64_t bytes, uint32_t flags)
{
	struct rn_gpu_span g;

	memset(&g, 0, sizeof(g));
	g.pid = s->t.procs[0].pid;
	g.kind = kind;
	g.dir = dir;
	g.flags = flags;
	g.name = (char *)rn_gpu_kind_name(kind);
	g.start_ns = start;
	g.end_ns = start + dur;
	g.bytes = bytes;
	rn_trace_add_gpu(&s->t, &g);
}

static void test_antipattern_pcie(void **state)
{
	struct syn s;
	struct rn_detection d;
	uint64_t t;
	int i;

	(void)state;
	/* Without GPU spans: NO DATA, never a pass. */
	syn_init(&s, true);
	syn_proc(&s, 100, 0, "/usr/bin/gpuapp");
	d = detect(&s, "PCIeBottleneck", NULL);
	assert_true(d.no_data);
	assert_true(d.confidence == 0.0);
	assert_null(strchr(d.evidence, '\n'));
	rn_detection_release(&d);
	syn_release(&s);

	/* Copies of 64 MiB each way around each 0.5 ms dispatch. */
	syn_init(&s, true);
	syn_proc(&s, 100, 0, "/usr/bin/gpuapp");
	for (i = 0, t = s.now; i < 100; i++, t += 20 * MS) {
		gpu(&s, RN_GPU_COPY, RN_GPU_DIR_HTOD, t, 5 * MS, 64ULL << 20, RN_GPU_SERIALIZED);
		gpu(&s, RN_GPU_DISPATCH, RN_GPU_DIR_NONE, t + 5 * MS, 500 * US, 0,
		    RN_GPU_SERIALIZED);
		gpu(&s, RN_GPU_COPY, RN_GPU_DIR_DTOH, t + 6 * MS, 5 * MS, 64ULL << 20,
		    RN_GPU_SERIALIZED);
	}
	d = detect(&s, "PcieBottleneck", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "host->device: 100 copies, 6.25 GiB"));
	assert_non_null(strstr(d.evidence, "GB/s"));
	rn_detection_release(&d);
	syn_release(&s);

	/* Near miss: the same copies feeding 40 ms of compute each. */
	syn_init(&s, true);
	syn_proc(&s, 100, 0, "/usr/bin/gpuapp");
	for (i = 0, t = s.now; i < 100; i++, t += 60 * MS) {
		gpu(&s, RN_GPU_COPY, RN_GPU_DIR_HTOD, t, 5 * MS, 64ULL << 20, 0);
		gpu(&s, RN_GPU_DISPATCH, RN_GPU_DIR_NONE, t + 5 * MS, 40 * MS, 0, 0);
		gpu(&s, RN_GPU_COPY, RN_GPU_DIR_DTOH, t + 46 * MS, 5 * MS, 64ULL << 20, 0);
	}
	d = detect(&s, "PcieBottleneck", NULL);
	assert_quiet(&d);
	rn_detection_release(&d);
	syn_release(&s);

	/* Command-buffer spans only: copies cannot be told from compute. */
	syn_init(&s, true);
	syn_proc(&s, 100, 0, "/usr/bin/gpuapp");
	gpu(&s, RN_GPU_CMDBUF, RN_GPU_DIR_NONE, s.now, 5 * MS, 0, 0);
	d = detect(&s, "PcieBottleneck", NULL);
	assert_true(d.no_data);
	assert_non_null(strstr(d.evidence, "dispatch"));
	rn_detection_release(&d);
	syn_release(&s);
}

/* ---- SmallIO ------------------------------------------------------------------------------ */

static void test_antipattern_smallio(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/logger");
	syn_call(&s, p, 0, 20 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x241, 0600), 3, 0,
		 "/tmp/app.log");
	for (i = 0; i < 20000; i++)
		syn_call(&s, p, 2 * US, 5 * US, "write", A(3, 0x2000 + (uint64_t)i, 24), 24, 0,
			 NULL);
	syn_call(&s, p, 2 * US, 5 * US, "close", A(3), 0, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "SmallIO", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "fd 3 /tmp/app.log"));
	assert_non_null(strstr(d.evidence, "writes: 20000 of 20000 below 512 bytes"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_smallio_near_misses(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/logger");
	/* Buffered: the same bytes in page-sized writes. */
	syn_call(&s, p, 0, 20 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x241, 0600), 3, 0,
		 "/tmp/app.log");
	for (i = 0; i < 120; i++)
		syn_call(&s, p, 2 * US, 5 * US, "write", A(3, 0x2000, 4096), 4096, 0, NULL);
	/* 50 small writes on another fd: below the floor. */
	syn_call(&s, p, 0, 20 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x241, 0600), 4, 0,
		 "/tmp/other.log");
	for (i = 0; i < 50; i++)
		syn_call(&s, p, 2 * US, 5 * US, "write", A(4, 0x2000, 10), 10, 0, NULL);
	/* 100 files opened as fd 6 in turn, 40 small writes each: no single fd is chatty. */
	for (i = 0; i < 100; i++) {
		int k;

		syn_call(&s, p, 0, 20 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x241, 0600), 6, 0,
			 "/tmp/part");
		for (k = 0; k < 40; k++)
			syn_call(&s, p, 2 * US, 5 * US, "write", A(6, 0x2000, 10), 10, 0, NULL);
		syn_call(&s, p, 2 * US, 5 * US, "close", A(6), 0, 0, NULL);
	}
	/* eventfd reads are 8 bytes by definition. */
	syn_call(&s, p, 0, 20 * US, "eventfd2", A(0, 0), 5, 0, NULL);
	for (i = 0; i < 10000; i++)
		syn_call(&s, p, 2 * US, 5 * US, "read", A(5, 0x3000, 8), 8, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "SmallIO", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);

	/* Without the spool sizes are unknown: NO DATA. */
	syn_init(&s, false);
	p = syn_proc(&s, 100, 0, "/usr/bin/logger");
	syn_call(&s, p, 2 * US, 5 * US, "write", A(1, 0x2000, 4), 4, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "SmallIO", NULL);
	assert_true(d.no_data);
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_smallio_fd_table_churn(void **state)
{
	struct syn s;
	struct rn_detection d;
	char path[64];
	uint32_t x = 12345;
	int p, i, r, left;
	static int order[2000];

	(void)state;
	/* 2000 fds open at once, closed in a scrambled order: the table deletes entries with
	 * backward shifts, and the one fd that stays open must keep its counts. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/fds");
	for (i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "/tmp/f%d", i + 3);
		syn_call(&s, p, 1 * US, 1 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x241, 0600),
			 i + 3, 0, path);
		order[i] = i + 3;
	}
	for (r = 0; r < 10; r++)
		for (i = 0; i < 2000; i++)
			syn_call(&s, p, 1 * US, 1 * US, "write", A((uint64_t)i + 3, 0x2000, 10), 10,
				 0, NULL);
	for (i = 1999; i > 0; i--) { /* Fisher-Yates with a fixed LCG */
		int j, tmp;

		x = x * 1103515245u + 12345u;
		j = (int)(x % (uint32_t)(i + 1));
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (i = 0, left = 0; i < 2000; i++)
		if (order[i] != 777)
			syn_call(&s, p, 1 * US, 1 * US, "close", A((uint64_t)order[i]), 0, 0, NULL);
		else
			left++;
	assert_int_equal(left, 1);
	for (i = 0; i < 5000; i++)
		syn_call(&s, p, 1 * US, 1 * US, "write", A(777, 0x2000, 10), 10, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "SmallIO", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "fd 777 /tmp/f777"));
	assert_non_null(strstr(d.evidence, "writes: 5010 of 5010 below 512 bytes"));
	rn_detection_release(&d);
	syn_release(&s);
}

/* ---- RedundantIO -------------------------------------------------------------------------- */

static void test_antipattern_redundantio(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/reload");
	for (i = 0; i < 1000; i++) {
		syn_call(&s, p, 2 * US, 5 * US, "newfstatat",
			 A(AT_FDCWD_ARG, 0x1000, 0x7ffd0000, 0), 0, 0, "/etc/app/settings.conf");
		syn_call(&s, p, 2 * US, 8 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0, 0), 3, 0,
			 "/etc/app/settings.conf");
		syn_call(&s, p, 2 * US, 5 * US, "read", A(3, 0x2000, 255), 22, 0, NULL);
		syn_call(&s, p, 2 * US, 5 * US, "close", A(3), 0, 0, NULL);
	}
	syn_call(&s, p, 2 * US, 8 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0, 0), 3, 0,
		 "/etc/app/other.conf");
	syn_call(&s, p, 2 * US, 8 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0, 0), 4, 0,
		 "/etc/app/other.conf");
	syn_end(&s, p);
	d = detect(&s, "RedundantIO", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence,
			       "/etc/app/settings.conf accessed 2000 times: 1000 opens, "
			       "1000 stats, 0 re-reads"));
	assert_non_null(strstr(d.evidence, "also: /etc/app/other.conf 2 times"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_redundantio_rereads(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/db");
	syn_call(&s, p, 2 * US, 8 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 2, 0), 7, 0,
		 "/var/db/main.db");
	for (i = 0; i < 600; i++) {
		/* page 0 again and again, plus a sequential rewind-and-read */
		syn_call(&s, p, 2 * US, 5 * US, "pread64", A(7, 0x2000, 4096, 0), 4096, 0, NULL);
		syn_call(&s, p, 2 * US, 5 * US, "read", A(7, 0x2000, 65536), 65536, 0, NULL);
		syn_call(&s, p, 2 * US, 5 * US, "lseek", A(7, 0, 0), 0, 0, NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "RedundantIO", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "1 opens, 0 stats, 1199 re-reads"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_redundantio_near_misses(void **state)
{
	struct syn s;
	struct rn_detection d;
	char path[64];
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/build");
	for (i = 0; i < 1000; i++) { /* many inputs, each once */
		snprintf(path, sizeof(path), "/src/f%04d.c", i);
		syn_call(&s, p, 2 * US, 5 * US, "newfstatat", A(AT_FDCWD_ARG, 0x1000, 0x7000, 0), 0,
			 0, path);
		syn_call(&s, p, 2 * US, 8 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0, 0), 3, 0,
			 path);
		syn_call(&s, p, 2 * US, 5 * US, "close", A(3), 0, 0, NULL);
	}
	for (i = 0; i < 4; i++) /* a few repeats are normal */
		syn_call(&s, p, 2 * US, 5 * US, "newfstatat", A(AT_FDCWD_ARG, 0x1000, 0x7000, 0), 0,
			 0, "/etc/localtime");
	for (i = 0; i < 500; i++) /* failures are ErrorStorm's, not redundant I/O */
		syn_call(&s, p, 2 * US, 5 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0, 0), 0, ENOENT,
			 "/src/missing.h");
	syn_end(&s, p);
	d = detect(&s, "RedundantIO", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_redundantio_relative_paths(void **state)
{
	struct syn s;
	struct rn_detection d;
	char path[64];
	int p, i;

	(void)state;
	/* A tree walk: 300 directories, each opened as fd 5 in turn, each with a "Makefile";
	 * and random-access reads of distinct offsets. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/walk");
	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "/src/d%03d", i);
		syn_call(&s, p, 2 * US, 5 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x10000, 0), 5, 0,
			 path);
		syn_call(&s, p, 2 * US, 5 * US, "newfstatat", A(5, 0x1000, 0x7000, 0x100), 0, 0,
			 "Makefile");
		syn_call(&s, p, 2 * US, 5 * US, "openat", A(5, 0x1000, 0, 0), 6, 0, "Makefile");
		syn_call(&s, p, 2 * US, 5 * US, "close", A(6), 0, 0, NULL);
		syn_call(&s, p, 2 * US, 5 * US, "close", A(5), 0, 0, NULL);
	}
	syn_call(&s, p, 2 * US, 8 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0, 0), 7, 0,
		 "/var/db/main.db");
	for (i = 0; i < 1000; i++)
		syn_call(&s, p, 2 * US, 5 * US, "pread64", A(7, 0x2000, 4096, (uint64_t)i * 4096),
			 4096, 0, NULL);
	syn_end(&s, p);
	d = detect(&s, "RedundantIO", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);

	/* The same relative name under one open of one directory: redundant, shown in full. */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/app");
	syn_call(&s, p, 2 * US, 5 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x10000, 0), 5, 0,
		 "/etc/app");
	for (i = 0; i < 600; i++)
		syn_call(&s, p, 2 * US, 5 * US, "newfstatat", A(5, 0x1000, 0x7000, 0), 0, 0,
			 "config");
	syn_end(&s, p);
	d = detect(&s, "RedundantIO", NULL);
	assert_fires(&d, 0.8);
	assert_non_null(strstr(d.evidence, "/etc/app/config accessed 600 times"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_redundantio_paths_beyond_cap(void **state)
{
	struct syn s;
	struct rn_detection d;
	char path[64];
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/walker");
	for (i = 0; i < 600; i++)
		syn_call(&s, p, 1 * US, 1 * US, "access", A(0x1000, 4), 0, 0, "/etc/app.conf");
	for (i = 0; i < (int)RN_AP_MAX_PATHS + 10; i++) {
		snprintf(path, sizeof(path), "/data/%07d", i);
		syn_call(&s, p, 1 * US, 1 * US, "access", A(0x1000, 4), 0, 0, path);
	}
	syn_end(&s, p);
	d = detect(&s, "RedundantIO", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "/etc/app.conf"));
	assert_non_null(strstr(d.evidence, "were not counted"));
	rn_detection_release(&d);
	syn_release(&s);
}

/* ---- ErrorStorm --------------------------------------------------------------------------- */

static void test_antipattern_errorstorm(void **state)
{
	struct syn s;
	struct rn_detection d;
	char path[64];
	int p, i, k;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/plugins");
	for (i = 0; i < 250; i++)
		for (k = 0; k < 20; k++) {
			snprintf(path, sizeof(path), "/opt/d%02d/plugin%03d.so", k, i);
			syn_call(&s, p, 2 * US, 4 * US, "access", A(0x1000, 4), 0,
				 k == 19 ? 0 : ENOENT, path);
		}
	syn_end(&s, p);
	d = detect(&s, "ErrorStorm", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "4750 of 5000 access calls failed with ENOENT"));
	assert_non_null(strstr(d.evidence, "/opt/d00/plugin000.so"));
	rn_detection_release(&d);
	syn_release(&s);

	/* Without the spool: the statistics still count failures per syscall. */
	syn_init(&s, false);
	p = syn_proc(&s, 100, 0, "/usr/bin/plugins");
	for (i = 0; i < 5000; i++)
		syn_call(&s, p, 2 * US, 4 * US, "access", A(0x1000, 4), 0,
			 i % 20 == 19 ? 0 : ENOENT, "/x");
	syn_end(&s, p);
	d = detect(&s, "ErrorStorm", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "errno unknown"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_errorstorm_near_misses(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/app");
	for (i = 0; i < 40; i++) /* a few optional files missing */
		syn_call(&s, p, 2 * US, 4 * US, "access", A(0x1000, 4), 0, ENOENT, "/etc/opt.conf");
	for (i = 0; i < 10000; i++) /* futex EAGAIN is its protocol */
		syn_call(&s, p, 2 * US, 4 * US, "futex", A(0x6000, 0x80, 1, 0), 0, EAGAIN, NULL);
	for (i = 0; i < 45000; i++) /* 5000 EAGAIN among 50000 reads: 10% */
		syn_call(&s, p, 2 * US, 4 * US, "read", A(6, 0x6000, 4096), 100, 0, NULL);
	for (i = 0; i < 5000; i++)
		syn_call(&s, p, 2 * US, 4 * US, "read", A(6, 0x6000, 4096), 0, EAGAIN, NULL);
	syn_end(&s, p);
	d = detect(&s, "ErrorStorm", NULL);
	assert_quiet(&d);
	rn_detection_release(&d);
	syn_release(&s);
}

/* ---- SyncStorm ---------------------------------------------------------------------------- */

static void test_antipattern_syncstorm(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/journal");
	syn_call(&s, p, 0, 20 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x441, 0600), 3, 0,
		 "/var/lib/app/journal");
	for (i = 0; i < 600; i++) {
		syn_call(&s, p, 2 * US, 5 * US, "write", A(3, 0x2000, 100), 100, 0, NULL);
		syn_call(&s, p, 2 * US, 2 * MS, "fsync", A(3), 0, 0, NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "SyncStorm", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(
		strstr(d.evidence, "600 of 600 syncs came after less than 16.0 KiB written"));
	assert_non_null(strstr(d.evidence, "/var/lib/app/journal"));
	rn_detection_release(&d);
	syn_release(&s);

	/* Without the spool: one fsync per write in the statistics. */
	syn_init(&s, false);
	p = syn_proc(&s, 100, 0, "/usr/bin/journal");
	for (i = 0; i < 300; i++) {
		syn_call(&s, p, 2 * US, 5 * US, "write", A(3, 0x2000, 100), 100, 0, NULL);
		syn_call(&s, p, 2 * US, 2 * MS, "fdatasync", A(3), 0, 0, NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "SyncStorm", NULL);
	assert_fires(&d, 0.85); /* ramp_log(300; 8..512) = 0.87 */
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_syncstorm_near_miss(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/journal");
	syn_call(&s, p, 0, 20 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x441, 0600), 3, 0,
		 "/var/lib/app/journal");
	for (i = 1; i <= 1000; i++) {
		syn_call(&s, p, 2 * US, 5 * US, "write", A(3, 0x2000, 100), 100, 0, NULL);
		if (i % 250 == 0)
			syn_call(&s, p, 2 * US, 2 * MS, "fsync", A(3), 0, 0, NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "SyncStorm", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_syncstorm_gpu(void **state)
{
	struct syn s;
	struct rn_detection d;
	uint64_t t;
	int i;

	(void)state;
	syn_init(&s, true);
	syn_proc(&s, 100, 0, "/usr/bin/gpuapp");
	for (i = 0, t = s.now; i < 1200; i++, t += 200 * US)
		gpu(&s, RN_GPU_SUBMIT, RN_GPU_DIR_NONE, t, 20 * US, 0, RN_GPU_WAITED);
	d = detect(&s, "SyncStorm", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "GPU: 1200 of 1200 submit spans were waited for"));
	rn_detection_release(&d);
	syn_release(&s);

	/* Near miss: the same submissions, not waited one by one. */
	syn_init(&s, true);
	syn_proc(&s, 100, 0, "/usr/bin/gpuapp");
	for (i = 0, t = s.now; i < 500; i++, t += 200 * US)
		gpu(&s, RN_GPU_SUBMIT, RN_GPU_DIR_NONE, t, 20 * US, 0,
		    i == 499 ? RN_GPU_WAITED : 0);
	d = detect(&s, "SyncStorm", NULL);
	assert_quiet(&d);
	rn_detection_release(&d);
	syn_release(&s);
}

/* ---- MemoryChurn -------------------------------------------------------------------------- */

static void test_antipattern_memorychurn(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/scratch");
	for (i = 0; i < 5000; i++) {
		uint64_t addr = 0x7f0000000000ULL + (uint64_t)(i % 7) * 0x100000;

		syn_call(&s, p, 2 * US, 6 * US, "mmap", A(0, 262144, 3, MAP_ANON_FLAGS, -1ULL, 0),
			 (int64_t)addr, 0, NULL);
		syn_call(&s, p, 20 * US, 6 * US, "munmap", A(addr, 262144), 0, 0, NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "MemoryChurn", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence,
			       "5000 of 5000 anonymous mappings were unmapped within "
			       "10.0 ms (1.22 GiB in them)"));
	rn_detection_release(&d);
	syn_release(&s);

	/* brk grow/shrink cycles (malloc trimming the heap top each time). */
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/trimmer");
	syn_call(&s, p, 2 * US, 2 * US, "brk", A(0), 0x555555560000LL, 0, NULL);
	for (i = 0; i < 3000; i++) {
		syn_call(&s, p, 2 * US, 2 * US, "brk", A(0x555555600000ULL), 0x555555600000LL, 0,
			 NULL);
		syn_call(&s, p, 20 * US, 2 * US, "brk", A(0x555555560000ULL), 0x555555560000LL, 0,
			 NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "MemoryChurn", NULL);
	assert_fires(&d, 0.9);
	assert_non_null(strstr(d.evidence, "2999 brk shrink/grow cycles of 3000 growths"));
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_memorychurn_near_misses(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/scratch");
	/* one mapping reused */
	syn_call(&s, p, 2 * US, 6 * US, "mmap", A(0, 262144, 3, MAP_ANON_FLAGS, -1ULL, 0),
		 0x7f0000000000LL, 0, NULL);
	/* long-lived mappings, unmapped much later */
	for (i = 0; i < 2000; i++)
		syn_call(&s, p, 2 * US, 6 * US, "mmap", A(0, 65536, 3, MAP_ANON_FLAGS, -1ULL, 0),
			 (int64_t)(0x7e0000000000ULL + (uint64_t)i * 0x10000), 0, NULL);
	s.now += 50 * MS;
	for (i = 0; i < 2000; i++)
		syn_call(&s, p, 2 * US, 6 * US, "munmap",
			 A(0x7e0000000000ULL + (uint64_t)i * 0x10000, 65536), 0, 0, NULL);
	/* file mappings come and go (a reader mapping files), not anonymous memory */
	for (i = 0; i < 2000; i++) {
		syn_call(&s, p, 2 * US, 6 * US, "mmap", A(0, 65536, 1, 2, 3, 0), 0x7d0000000000LL,
			 0, NULL);
		syn_call(&s, p, 2 * US, 6 * US, "munmap", A(0x7d0000000000ULL, 65536), 0, 0, NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "MemoryChurn", NULL);
	assert_quiet(&d);
	assert_true(d.confidence == 0.0);
	rn_detection_release(&d);
	syn_release(&s);
}

static void test_antipattern_memorychurn_without_spool(void **state)
{
	struct syn s;
	struct rn_detection d;
	int p, i;

	(void)state;
	syn_init(&s, false);
	p = syn_proc(&s, 100, 0, "/usr/bin/scratch");
	for (i = 0; i < 5000; i++) {
		syn_call(&s, p, 2 * US, 6 * US, "mmap", A(0, 262144, 3, MAP_ANON_FLAGS, -1ULL, 0),
			 0x7f0000000000LL, 0, NULL);
		syn_call(&s, p, 20 * US, 6 * US, "munmap", A(0x7f0000000000ULL, 262144), 0, 0,
			 NULL);
	}
	syn_end(&s, p);
	d = detect(&s, "MemoryChurn", NULL);
	assert_fires(&d, 0.95);
	assert_non_null(strstr(d.evidence, "turnover"));
	rn_detection_release(&d);
	syn_release(&s);
}

/* ---- all at once ---------------------------------------------------------------------------- */

static void test_antipattern_detect_all_and_report(void **state)
{
	struct rn_detection d[8];
	struct syn s;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int p, i, n;

	(void)state;
	syn_init(&s, true);
	p = syn_proc(&s, 100, 0, "/usr/bin/mixed");
	for (i = 0; i < 20000; i++)
		syn_call(&s, p, 3 * US, 2 * US, "sched_yield", A(0), 0, 0, NULL);
	syn_call(&s, p, 0, 20 * US, "openat", A(AT_FDCWD_ARG, 0x1000, 0x241, 0600), 3, 0,
		 "/tmp/out");
	for (i = 0; i < 20000; i++)
		syn_call(&s, p, 2 * US, 5 * US, "write", A(3, 0x2000, 1), 1, 0, NULL);
	syn_end(&s, p);

	assert_int_equal(rn_antipattern_detect_all(&s.t, NULL, d), 0);
	for (i = 0; i < 8; i++)
		assert_string_equal(d[i].pattern, rn_antipattern_names[i]);
	assert_true(d[1].confidence >= 0.95); /* TightLoop */
	assert_true(d[3].confidence >= 0.95); /* SmallIO */
	assert_true(d[2].no_data);            /* PcieBottleneck */
	assert_true(d[0].confidence == 0.0);  /* GodProcess */
	for (i = 0; i < 8; i++)
		rn_detection_release(&d[i]);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	n = rn_antipattern_report_all(&s.t, NULL, 0.5, f);
	fclose(f);
	assert_int_equal(n, 2);
	assert_non_null(strstr(text, "anti-patterns (confidence >= 0.50): 2 detected"));
	assert_non_null(strstr(text, "TightLoop  confidence 1.00"));
	assert_non_null(strstr(text, "SmallIO  confidence 1.00"));
	assert_non_null(strstr(text, "  recommendation: buffer the I/O"));
	assert_non_null(strstr(text, "below 0.50: GodProcess 0.00"));
	assert_non_null(strstr(text, "no data:\n  PcieBottleneck: no GPU spans"));
	free(text);

	/* Replaying twice gives the same answer (the spool is rewound). */
	f = open_memstream(&text, &len);
	assert_int_equal(rn_antipattern_report_all(&s.t, NULL, 0.5, f), 2);
	fclose(f);
	free(text);
	syn_release(&s);
}

static void test_antipattern_empty_trace(void **state)
{
	struct rn_detection d[8];
	struct rn_trace t;
	int i;

	(void)state;
	rn_trace_init(&t);
	assert_int_equal(rn_antipattern_detect_all(&t, NULL, d), 0);
	for (i = 0; i < 8; i++) {
		assert_true(d[i].confidence == 0.0);
		assert_non_null(d[i].evidence);
		rn_detection_release(&d[i]);
	}
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_antipattern_names_and_spellings),
		cmocka_unit_test(test_antipattern_unknown_pattern_is_einval),
		cmocka_unit_test(test_antipattern_ramps),
		cmocka_unit_test(test_antipattern_tightloop_zero_timeout_poll),
		cmocka_unit_test(test_antipattern_tightloop_alternating_eagain_and_yield),
		cmocka_unit_test(test_antipattern_tightloop_near_misses),
		cmocka_unit_test(test_antipattern_tightloop_without_spool),
		cmocka_unit_test(test_antipattern_tightloop_threads_beyond_cap),
		cmocka_unit_test(test_antipattern_tightloop_exited_threads_leave),
		cmocka_unit_test(test_antipattern_godprocess_idle_workers),
		cmocka_unit_test(test_antipattern_godprocess_near_misses),
		cmocka_unit_test(test_antipattern_godprocess_process_filter),
		cmocka_unit_test(test_antipattern_pcie),
		cmocka_unit_test(test_antipattern_smallio),
		cmocka_unit_test(test_antipattern_smallio_near_misses),
		cmocka_unit_test(test_antipattern_smallio_fd_table_churn),
		cmocka_unit_test(test_antipattern_redundantio),
		cmocka_unit_test(test_antipattern_redundantio_rereads),
		cmocka_unit_test(test_antipattern_redundantio_near_misses),
		cmocka_unit_test(test_antipattern_redundantio_relative_paths),
		cmocka_unit_test(test_antipattern_redundantio_paths_beyond_cap),
		cmocka_unit_test(test_antipattern_errorstorm),
		cmocka_unit_test(test_antipattern_errorstorm_near_misses),
		cmocka_unit_test(test_antipattern_syncstorm),
		cmocka_unit_test(test_antipattern_syncstorm_near_miss),
		cmocka_unit_test(test_antipattern_syncstorm_gpu),
		cmocka_unit_test(test_antipattern_memorychurn),
		cmocka_unit_test(test_antipattern_memorychurn_near_misses),
		cmocka_unit_test(test_antipattern_memorychurn_without_spool),
		cmocka_unit_test(test_antipattern_detect_all_and_report),
		cmocka_unit_test(test_antipattern_empty_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
