/*
 * fixture.h - a synthetic `renacer check` result for the OTLP and Perfetto tests: two targets, a
 * process tree with syscalls (optionally spooled), GPU spans and verdicts, with known times. Shared
 * by tests/unit/runner/report/test_otlp.c, tests/unit/runner/report/test_perfetto.c and
 * otlp_client.c (whose output check.js checks against the numbers below).
 *
 * Shape (aggregate syscall mode: FX_SPANS_AGGREGATE spans):
 *   renacer check
 *     target:api            2 timing runs, 1 counting run
 *       run:0, run:1        timing runs: times only (no syscalls, no allocations exported)
 *       counting_run:0      the run of api->last: counts only
 *         process:api-server (pid 1000, argv with secrets)   openat x3 (1 ENOENT), read x5
 *           process:sh (pid 1001)                            write x2
 *             process:<invalid UTF-8> (pid 1002)             no syscalls
 *           gpu:matmul (dispatch 8x4x1), gpu:upload (copy 4096 B host to device)
 *       assertion:api_latency (PASS), assertion:api_memory (FAIL)
 *     target:batch          1 run, crashed
 *       run:0
 *       process:batch (pid 2000, SIGSEGV)
 *       assertion:batch_runs (ERROR)
 *     assertion:golden:wall_time (target "missing": under the root)
 */
#ifndef RN_TEST_OTLP_FIXTURE_H
#define RN_TEST_OTLP_FIXTURE_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assertion.h"
#include "otlp.h"
#include "xalloc.h"

#define FX_MONO0 5000000000ull                    /* CLOCK_MONOTONIC start of api's last run */
#define FX_UNIX0 1700000000000000000ull           /* its Unix start, ns */
#define FX_CHECK_START (FX_UNIX0 - 3000000000ull) /* renacer check started 3 s before */
#define FX_CHECK_END (FX_UNIX0 + 2000000000ull)   /* and ended 2 s after */

#define FX_SPANS_AGGREGATE 20 /* spans of the aggregate mode */
#define FX_SPOOLED 10         /* syscall spans in api's spool */
#define FX_SPANS_ALL (FX_SPANS_AGGREGATE - 3 + FX_SPOOLED)
#define FX_SLOW 4 /* spooled spans longer than FX_THRESHOLD_NS */
#define FX_THRESHOLD_NS 50000u
#define FX_SPANS_THRESHOLD (FX_SPANS_AGGREGATE - 3 + FX_SLOW)

struct fx {
	struct rn_target_result targets[2];   /* api, batch */
	struct rn_verdict_result verdicts[4]; /* see above */
	const char *const *argv[2];           /* per target command lines */
	struct rn_target_report reports[2];   /* api: verdicts 0-1; batch: 2-3 (verdict 3
					       * names a target that is not there) */
	struct rn_outcome in;                 /* all of it */
};

static const char *const fx_api_argv[] = { "/usr/bin/api-server", "--token",   "s3cr3t",
					   "DB_PASSWORD=hunter2", "--port=80", NULL };

static inline void fx_syscall(struct rn_trace *t, int k, pid_t tid, const char *name,
			      uint64_t at_ns, uint64_t dur_ns, int err, const char *path)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = t->procs[k].pid;
	ev.tid = tid;
	ev.nr = rn_syscall_lookup(name);
	ev.start_ns = FX_MONO0 + at_ns;
	ev.duration_ns = dur_ns;
	ev.err = err;
	ev.ret = err ? -err : 3;
	ev.path = path;
	rn_trace_syscall(t, &t->procs[k], &ev);
}

static inline struct rn_verdict_result fx_verdict(const char *name, const char *target,
						  enum rn_verdict v, const char *msg)
{
	struct rn_verdict_result r;

	memset(&r, 0, sizeof(r));
	r.assertion = (char *)name;
	r.type = (char *)"critical_path";
	r.target = (char *)target;
	r.verdict = v;
	r.message = (char *)msg;
	r.unit = "ms";
	r.time_ns = 1000000;
	return r;
}

/* Build the fixture; `spool` keeps api's syscall spans in its spool. */
static inline void fx_init(struct fx *f, bool spool)
{
	struct rn_target_result *api = &f->targets[0], *batch = &f->targets[1];
	struct rn_trace *t;
	struct rn_process *p;
	struct rn_gpu_span g;

	memset(f, 0, sizeof(*f));

	rn_target_result_init(api, "api");
	api->nruns = 2;
	api->runs = rn_xcalloc(2, sizeof(*api->runs));
	api->runs[0].start_ns = FX_MONO0 - 1000000000ull;
	api->runs[0].start_unix_ns = FX_UNIX0 - 1000000000ull;
	api->runs[0].v[RN_METRIC_WALL] = 400000000ull;
	api->runs[0].v[RN_METRIC_SYSCALLS] = 10;
	api->runs[0].measures = RN_MEASURES_TIMES;
	api->runs[1].start_ns = FX_MONO0 - 500000000ull;
	api->runs[1].start_unix_ns = FX_UNIX0 - 500000000ull;
	api->runs[1].v[RN_METRIC_WALL] = 450000000ull;
	api->runs[1].v[RN_METRIC_SYSCALLS] = 0; /* a timing run does not count: never exported */
	api->runs[1].v[RN_METRIC_ALLOC_PEAK] = 8;
	api->runs[1].v[RN_METRIC_PEAK_RSS] = 1 << 20;
	api->runs[1].measures = RN_MEASURES_TIMES;
	/* The counting run: its processes are api->last, so they hang under it. */
	api->ncounts = 1;
	api->counts = rn_xcalloc(1, sizeof(*api->counts));
	api->counts[0].start_ns = FX_MONO0;
	api->counts[0].start_unix_ns = FX_UNIX0;
	api->counts[0].v[RN_METRIC_WALL] = 500000000ull;
	api->counts[0].v[RN_METRIC_SYSCALLS] = 10;
	api->counts[0].v[RN_METRIC_PEAK_RSS] = 1 << 20;
	api->counts[0].has_gpu = true;
	api->counts[0].v[RN_METRIC_GPU_DISPATCHES] = 1;
	api->counts[0].measures = RN_MEASURES_COUNTS;
	api->start_unix_ns = FX_UNIX0 - 1000000000ull;
	api->duration_ns = 1500000000ull;
	api->build_id = rn_xstrdup("0123456789abcdef0123456789abcdef01234567");

	t = &api->last;
	if (spool && rn_trace_spool_enable(t))
		abort();
	t->start_ns = FX_MONO0;
	t->end_ns = FX_MONO0 + 500000000ull;
	p = rn_trace_add_process(t, 1000, 0, FX_MONO0);
	rn_process_set_exe(p, "/usr/bin/api-server");
	memcpy(p->build_id, "0123456789abcdef0123456789abcdef01234567", 41);
	p->exec_ns = FX_MONO0 + 1000000;
	p->end_ns = FX_MONO0 + 500000000ull;
	p->end = RN_PROC_EXITED;
	p->nthreads = 2;
	p = rn_trace_add_process(t, 1001, 1000, FX_MONO0 + 100000000ull);
	rn_process_set_exe(p, "/bin/sh");
	p->end_ns = FX_MONO0 + 300000000ull;
	p->end = RN_PROC_EXITED;
	p->exit_code = 2;
	p = rn_trace_add_process(t, 1002, 1001, FX_MONO0 + 150000000ull);
	rn_process_set_exe(p,
			   "/tmp/\xff\xfe"
			   "bad");
	p->end_ns = FX_MONO0 + 250000000ull;
	p->end = RN_PROC_EXITED;

	/* Ten syscalls; four are longer than FX_THRESHOLD_NS. */
	fx_syscall(t, 0, 1000, "openat", 2000000, 100000, 0, "/etc/api.conf");
	fx_syscall(t, 0, 1000, "openat", 3000000, 20000, ENOENT, "/etc/missing");
	fx_syscall(t, 0, 1003, "openat", 4000000, 20000, 0, "/var/lib/api/\xc3\xa9t\xc3\xa9");
	fx_syscall(t, 0, 1000, "read", 5000000, 200000, 0, NULL);
	fx_syscall(t, 0, 1000, "read", 6000000, 1000, 0, NULL);
	fx_syscall(t, 0, 1003, "read", 7000000, 1000, 0, NULL);
	fx_syscall(t, 0, 1003, "read", 8000000, 1000, 0, NULL);
	fx_syscall(t, 0, 1000, "read", 9000000, 300000, 0, NULL);
	fx_syscall(t, 1, 1001, "write", 110000000, 60000, 0, NULL);
	fx_syscall(t, 1, 1001, "write", 120000000, 1000, 0, NULL);

	memset(&g, 0, sizeof(g));
	g.pid = 1000;
	g.kind = RN_GPU_DISPATCH;
	g.name = (char *)"matmul";
	g.start_ns = FX_MONO0 + 20000000;
	g.end_ns = FX_MONO0 + 30000000;
	g.submit_ns = FX_MONO0 + 19000000;
	g.groups[0] = 8;
	g.groups[1] = 4;
	g.groups[2] = 1;
	g.flags = RN_GPU_WAITED;
	rn_trace_add_gpu(t, &g);
	memset(&g, 0, sizeof(g));
	g.pid = 1000;
	g.kind = RN_GPU_COPY;
	g.name = (char *)"upload";
	g.queue_family = 1;
	g.start_ns = FX_MONO0 + 10000000;
	g.end_ns = FX_MONO0 + 12000000;
	g.bytes = 4096;
	g.dir = RN_GPU_DIR_HTOD;
	rn_trace_add_gpu(t, &g);

	rn_target_result_init(batch, "batch");
	batch->nruns = 1;
	batch->runs = rn_xcalloc(1, sizeof(*batch->runs));
	batch->runs[0].start_ns = FX_MONO0 + 1000000000ull;
	batch->runs[0].start_unix_ns = FX_UNIX0 + 1000000000ull;
	batch->runs[0].v[RN_METRIC_WALL] = 100000000ull;
	batch->runs[0].status = RN_RUN_CRASHED;
	batch->status = RN_RUN_CRASHED;
	batch->error = rn_xstrdup("killed by SIGSEGV");
	batch->start_unix_ns = FX_UNIX0 + 1000000000ull;
	batch->duration_ns = 100000000ull;
	t = &batch->last;
	t->start_ns = FX_MONO0 + 1000000000ull;
	t->end_ns = FX_MONO0 + 1100000000ull;
	p = rn_trace_add_process(t, 2000, 0, FX_MONO0 + 1000000000ull);
	rn_process_set_exe(p, "/opt/batch");
	p->end_ns = FX_MONO0 + 1100000000ull;
	p->end = RN_PROC_SIGNALED;
	p->term_signal = SIGSEGV;

	f->verdicts[0] = fx_verdict("api_latency", "api", RN_VERDICT_PASS, "410 ms <= 500 ms");
	f->verdicts[0].has_observed = f->verdicts[0].has_budget = true;
	f->verdicts[0].observed = 410.0;
	f->verdicts[0].budget = 500.0;
	f->verdicts[0].delta_pct = -18.0;
	f->verdicts[1] = fx_verdict("api_memory", "api", RN_VERDICT_FAIL, "1 MiB > 512 KiB");
	f->verdicts[1].type = (char *)"memory_usage";
	f->verdicts[1].unit = "bytes";
	f->verdicts[1].has_observed = f->verdicts[1].has_budget = true;
	f->verdicts[1].observed = 1048576.0;
	f->verdicts[1].budget = 524288.0;
	f->verdicts[1].delta_pct = 100.0;
	f->verdicts[2] = fx_verdict("batch_runs", "batch", RN_VERDICT_ERROR, "target crashed");
	f->verdicts[3] = fx_verdict("golden:wall_time", "missing", RN_VERDICT_WARN, "slower");
	f->verdicts[3].type = (char *)"regression";

	f->argv[0] = fx_api_argv;
	f->argv[1] = NULL;
	f->reports[0].result = &f->targets[0];
	f->reports[0].verdicts = f->verdicts;
	f->reports[0].nverdicts = 2;
	f->reports[1].result = &f->targets[1];
	f->reports[1].verdicts = f->verdicts + 2;
	f->reports[1].nverdicts = 2;
	f->in.targets = f->targets;
	f->in.reports = f->reports;
	f->in.ntargets = 2;
	f->in.start_unix_ns = FX_CHECK_START;
	f->in.end_unix_ns = FX_CHECK_END;
	f->in.exit_code = 1;
	f->in.config_path = "renacer.toml";
	f->in.argv = f->argv;
}

static inline void fx_release(struct fx *f)
{
	rn_target_result_release(&f->targets[0]);
	rn_target_result_release(&f->targets[1]);
}

/* A context with fixed ids (no TRACEPARENT): trace 0102..10, root span a1a2..a8. */
static inline void fx_context(struct rn_otlp_context *ctx)
{
	static const char *const env[] = {
		"TRACEPARENT=00-0102030405060708090a0b0c0d0e0f10-b1b2b3b4b5b6b7b8-01", NULL
	};
	int i;

	rn_otlp_context_init_env(ctx, env);
	for (i = 0; i < 8; i++)
		ctx->root_span_id[i] = (uint8_t)(0xa1 + i);
	ctx->salt = 42;
}

#endif
