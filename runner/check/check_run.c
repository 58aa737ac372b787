/*
 * check_run.c - the run stage of `renacer check`: a target's runs (warmup, timing, counting,
 * adaptive extra runs against its golden trace), its same-job baseline pairs and its
 * calibration, into struct rn_target_result.
 */
#include "check.h"
#include "internal.h"
#include "drivers_instructions.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "assertion.h"
#include "baseline.h"
#include "buf.h"
#include "calibrate.h"
#include "calibrate_write.h"
#include "collector.h"
#include "config.h"
#include "cpuset.h"
#include "elf_id.h"
#include "equivalence.h"
#include "github.h"
#include "golden.h"
#include "harness.h"
#include "golden_equiv.h"
#include "conditions.h"
#include "log.h"
#include "syscall_names.h"
#include "now.h"
#include "otlp.h"
#include "console.h"
#include "sequential.h"
#include "stats.h"
#include "verdict.h"
#include "xalloc.h"

/* Does any enabled assertion that applies to this target need every span (spool)? */
static bool needs_spool(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			const struct rn_check_opts *o)
{
	size_t i;

	if (o->trace_out || cfg->trace_out || o->otlp_spool)
		return true;
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		if (a->enabled &&
		    (a->type == RN_ASSERT_ANTI_PATTERN || a->type == RN_ASSERT_EQUIVALENCE ||
		     a->type == RN_ASSERT_SPAN_TIME || a->type == RN_ASSERT_WITNESS) &&
		    rn_assertion_applies(a, tc->name))
			return true;
	}
	return false;
}

/*
 * The runs of one target (struct run_plan). A target with the ptrace collector gets timing
 * runs (process events only: its times are the program's own) and counting runs (every
 * syscall stops: exact counts, spans, allocations), each only where something needs it:
 *   timing runs    a critical_path assertion, a golden trace (compared or updated),
 *                  --bench-json, or a memory_usage "rss" assertion (peak RSS is a tree metric
 *                  that timing runs measure)
 *   counting runs  span_count, span_time and anti_pattern assertions, memory_usage
 *                  "allocations", a golden trace, --bench-json, and the outputs that want
 *                  every span (the timeline, OTLP "all")
 * A target with nothing to judge gets both. A target without the ptrace collector (GPU
 * collectors alone, without a syscall driver) has no such split: its `runs` measure both.
 * A CUDA target's runs that give times are each a GPU execution and a clean one (gpu_apart).
 */
struct run_plan {
	unsigned timing;   /* timing runs (the target's `runs`, or --runs); 0 = none */
	unsigned counting; /* counting runs (`counting_runs`); 0 = none */
	bool split;        /* timing and counting runs are different runs */
	bool gpu_apart;    /* a CUDA target's run that gives times is two executions: the GPU
			    * execution, with the CUPTI library, gives its GPU spans; the clean
			    * one, without it, its times (`clean_timing`, default true): the
			    * library costs each GPU operation a few us of the host's time */
};

static bool golden_exists(const struct rn_config *cfg, const char *target)
{
	char *path = rn_golden_path(cfg->golden_dir, target);
	bool yes = path && !access(path, F_OK);

	free(path);
	return yes;
}

static void plan_runs(const struct rn_config *cfg, const struct rn_target_cfg *tc,
		      const struct rn_check_opts *o, bool golden_update, struct run_plan *p)
{
	unsigned runs = o->runs ? (unsigned)o->runs : tc->runs;
	bool time = false, count = false, tree = false;
	size_t i;

	if (!o->runs && runs < o->min_runs) /* golden update: [golden] runs */
		runs = o->min_runs;

	memset(p, 0, sizeof(*p));
	p->gpu_apart = (tc->collectors & RN_COLLECT_CUDA) && tc->clean_timing;
	/* a syscall driver (ptrace, or the eBPF counter) makes timing runs of process events
	 * alone and counting runs apart; the GPU collectors alone measure both in one */
	if (!(tc->collectors & (RN_COLLECT_PTRACE | RN_COLLECT_EBPF))) {
		p->timing = runs;
		return;
	}
	p->split = true;
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		if (!a->enabled || !rn_assertion_applies(a, tc->name))
			continue;
		if (a->type == RN_ASSERT_CRITICAL_PATH)
			time = true;
		else if (a->type == RN_ASSERT_MEMORY_USAGE && a->tracking_mode == RN_TRACK_RSS)
			tree = true;
		else
			count = true;
	}
	if (golden_update || o->rep.bench_json ||
	    (!o->no_golden && cfg->regression.enabled && golden_exists(cfg, tc->name)))
		time = count = true;
	if (needs_spool(cfg, tc, o))
		count = true;
	if (o->baseline) /* head vs base compares times, counts and memory */
		time = count = true;
	if (!time && !count && !tree)
		time = count = true;
	p->timing = time || tree ? runs : 0;
	p->counting = count ? tc->counting_runs : 0;
	/* a golden trace records the spread of its counting runs (threads, a parallel build's
	 * overlap), which the counts and memory are then judged against */
	if (golden_update && p->counting && p->counting < RN_GOLDEN_CONFIRM_COUNTING)
		p->counting = RN_GOLDEN_CONFIRM_COUNTING;
}

/* Does an enabled equivalence assertion apply to this target? Its behaviour is then taken
 * live, with execve argv, which the spool does not keep. */
static bool needs_behaviour(const struct rn_config *cfg, const struct rn_target_cfg *tc)
{
	size_t i;

	for (i = 0; i < cfg->nassertions; i++)
		if (cfg->assertions[i].enabled &&
		    cfg->assertions[i].type == RN_ASSERT_EQUIVALENCE &&
		    rn_assertion_applies(&cfg->assertions[i], tc->name))
			return true;
	return false;
}

/* One target's runs as they go: what every run of it shares. */
struct target_runs {
	const struct rn_config *cfg;
	const struct rn_target_cfg *tc;
	const struct rn_check_opts *o;
	size_t index, count;                /* progress position */
	const struct rn_otlp_context *otlp; /* trace context handed to the target, or NULL */
	struct run_plan plan;
	bool spool;                 /* measured runs keep every span */
	bool behave;                /* measured runs record the behaviour */
	struct rn_target_result *r; /* filled */
	bool probe;                 /* a speed probe before each timing run (conditions.h) */
	unsigned timing_max;        /* the most timing runs adaptive repeats may reach */
};

/* The progress line of run `k` (0-based over warmup, timing and counting runs): "[1/3] app:
 * run 7 of up to 60" while more timing runs may follow (adaptive repeats). */
static void run_progress(const struct target_runs *tr, unsigned k, bool warm, bool counting)
{
	const struct rn_target_cfg *tc = tr->tc;
	const struct run_plan *p = &tr->plan;
	size_t pos = tr->index + 1;
	unsigned most = tr->timing_max > p->timing ? tr->timing_max : p->timing;

	if (tr->o->quiet)
		return;
	unsigned nsteps = tc->warmup + p->timing + p->counting;

	if (warm)
		rn_report_progress(tr->o->rep.color, k, nsteps, "[%zu/%zu] %s: warmup %u of %u",
				   pos, tr->count, tc->name, k + 1, tc->warmup);
	else if (counting)
		rn_report_progress(tr->o->rep.color, k, nsteps,
				   "[%zu/%zu] %s: counting run %u of %u", pos, tr->count, tc->name,
				   k - tc->warmup - p->timing + 1, p->counting);
	else
		rn_report_progress(tr->o->rep.color, k, nsteps, "[%zu/%zu] %s: %srun %u of %s%u",
				   pos, tr->count, tc->name, p->split ? "timing " : "",
				   k - tc->warmup + 1, most > p->timing ? "up to " : "", most);
}

/* The run spec of one run of `tc`: a timing run (`timing`: process events only, so no
 * hand-off to pin for) or a run that stops at syscalls. */
static void run_spec_of(const struct rn_target_cfg *tc, bool timing, struct rn_run_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->name = tc->name;
	spec->argv = tc->argv;
	spec->cwd = tc->cwd;
	spec->env_add = tc->env;
	spec->stdio[0] = RN_STDIO_NULL;
	spec->stdio[1] = tc->out;
	spec->stdio[2] = tc->err;
	spec->timeout_ns = tc->timeout_ns;
	spec->collectors = tc->collectors;
	spec->flags = timing ? RN_RUN_FOLLOW_FORKS | RN_RUN_EVENTS_ONLY :
			       RN_RUN_FOLLOW_FORKS | RN_RUN_PIN_CPU;
	spec->gpu_mode = tc->gpu_mode;
	spec->region_thread_scope = tc->region_thread_scope;
	spec->max_procs = tc->max_procs;
	spec->max_as_bytes = tc->max_as_bytes;
	spec->inject = tc->inject;
	spec->ninject = tc->ninject;
}

/* The span spool and the behaviour sink of a measured run that stops at syscalls. Returns the
 * behaviour recorder (owned by the caller) or NULL. */
static struct rn_equiv_behaviour *run_sinks(const struct target_runs *tr, struct rn_trace *t)
{
	struct rn_equiv_behaviour *bh;
	struct rn_trace_sink sink;

	if (tr->spool && rn_trace_spool_enable(t)) {
		rn_warn("target '%s': cannot create the span spool; anti-patterns and the "
			"timeline will lack span detail",
			tr->tc->name);
		rn_trace_add_gap(t, RN_GAP_SPOOL, RN_GAP_SPAN_DETAIL, "ptrace", 0,
				 "the span spool could not be created");
	}
	if (!tr->behave)
		return NULL;
	bh = rn_equiv_behaviour_new(tr->cfg->semantic);
	rn_equiv_behaviour_sink(bh, &sink);
	if (rn_trace_add_sink(t, &sink)) {
		rn_equiv_behaviour_free(bh);
		return NULL;
	}
	return bh;
}

/* A program that failed did not do the work being measured: its numbers are not judged
 * unless the target expects that status. */
static void check_expected_exit(const struct rn_target_cfg *tc, struct rn_trace *t)
{
	if (t->status == RN_RUN_OK && t->nprocs && t->procs[0].end == RN_PROC_EXITED &&
	    tc->expect_exit >= 0 && t->procs[0].exit_code != tc->expect_exit)
		rn_trace_fail(t, RN_RUN_ERROR,
			      "target '%s' exited with status %d (expected %d; set expect_exit to "
			      "accept it)",
			      tc->name, t->procs[0].exit_code, tc->expect_exit);
}

/* Keep a finished run `t` (measured, not warmup) in the target result. */
static void keep_run(struct rn_target_result *r, struct rn_trace *t, struct rn_equiv_behaviour *bh,
		     bool counting, uint64_t start_unix)
{
	if (bh) {
		rn_equiv_behaviour_take_processes(bh, t);
		rn_equiv_behaviour_free(r->behaviour);
		r->behaviour = bh;
	}
	if (counting) {
		rn_target_result_add_counting_run(r, t);
		r->counts[r->ncounts - 1].start_unix_ns = start_unix;
	} else {
		rn_target_result_add_run(r, t);
		r->runs[r->nruns - 1].start_unix_ns = start_unix;
	}
}

/* A counting run of a benchmark that its harness times in its own process (all but hyperfine,
 * whose benchmark is a command of its own): the harness's clock reads leave the counts. They
 * are its measurement, and their number follows its calibration and rounds, not the code:
 * pytest-benchmark's CPU timer (clock_gettime(CLOCK_PROCESS_CPUTIME_ID), no vDSO) made 29,083
 * of a run's 36,394 syscalls, and an unchanged benchmark's total moved +15% to +26% between
 * checks (docs/harness.md "The harness's clock"). */
static void forget_harness_clock(const struct rn_target_cfg *tc, struct rn_trace *t)
{
	if (tc->bench && tc->harness != RN_HARNESS_NONE && tc->harness != RN_HARNESS_HYPERFINE)
		rn_trace_forget_syscall(t, rn_syscall_lookup("clock_gettime"));
}

/* The run spec of one run of tr's target: a measured or warmup (`warm`) run that stops at
 * syscalls (`stops`) or a timing run, with the traceparent it propagates written into
 * traceparent[size]. */
static void run_spec_for(const struct target_runs *tr, bool warm, bool stops,
			 struct rn_run_spec *spec, char *traceparent, size_t size)
{
	run_spec_of(tr->tc, !stops, spec);
	if (!stops && !tr->cfg->regression.timing_guard)
		spec->flags |= RN_RUN_NO_GUARD;
	if (!stops && tr->o->pin_cpu >= 0) {
		spec->flags |= RN_RUN_PIN_TARGET;
		spec->pin_cpu = tr->o->pin_cpu;
		spec->pin_ncpus = tr->o->pin_ncpus;
	}
	if (!tr->o->no_propagate && tr->otlp) {
		rn_otlp_traceparent(tr->otlp, tr->index,
				    warm ? RN_OTLP_RUN_NONE : rn_target_result_measured(tr->r),
				    traceparent, size);
		spec->traceparent = traceparent;
	}
}

/* A benchmark's times are its harness's, per iteration (harness.h): read from run k's output
 * into *real and *cpu (`shared`: its result file stays for rn_harness_leave); a failure to read them fails the
 * run's trace t. */
static void read_bench(const struct rn_target_cfg *tc, unsigned k, bool shared,
		       const struct rn_run_result *res, struct rn_trace *t, double *real,
		       double *cpu)
{
	char why[512];

	if (rn_harness_read(tc, res->out, shared, (double)t->cpu_ns, real, cpu, why, sizeof(why)))
		rn_trace_fail(t, RN_RUN_ERROR, "run %u: %s", k + 1, why);
}

static void free_words(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A harness's own output (its stderr, captured) is shown when its run failed, not else. */
static void harness_said(const struct rn_target_cfg *tc, const struct rn_run_result *res)
{
	struct rn_buf b;

	if (!res->err_len)
		return;
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "renacer: the output of '%s':\n", tc->name);
	rn_buf_add(&b, res->err, res->err_len);
	if (res->err[res->err_len - 1] != '\n')
		rn_buf_addc(&b, '\n');
	if (!rn_buf_failed(&b))
		rn_write_stderr(b.buf, b.len);
	rn_buf_release(&b);
}

/* After run k of `tc` (rc, trace t, output res): a benchmark's `timing` run reads its times
 * (read_bench, `shared` as its); a benchmark's failed run shows its harness's output. Whether
 * times were read. */
static bool bench_done(const struct rn_target_cfg *tc, unsigned k, bool timing, bool shared, int rc,
		       const struct rn_run_result *res, struct rn_trace *t, double *real,
		       double *cpu)
{
	bool read = false;

	if (!tc->bench || tc->harness == RN_HARNESS_NONE)
		return false;
	if (!rc && timing && t->status == RN_RUN_OK) {
		read = true;
		read_bench(tc, k, shared, res, t, real, cpu);
	}
	if (rc < 0 || t->status != RN_RUN_OK)
		harness_said(tc, res);
	return read;
}

/* Timing run k of a benchmark whose times a shared run of its table left (harness.h): kept as
 * a timing run with those times, the harness not run. Whether it was. */
static bool took_bench(struct target_runs *tr, unsigned k, bool warm, bool counting)
{
	struct rn_target_result *r = tr->r;
	struct rn_metrics m;
	struct rn_trace t;

	if (warm || counting || !tr->plan.split || !rn_harness_take(tr->tc, r->nruns, &m))
		return false;
	run_progress(tr, k, warm, counting);
	if (!r->start_unix_ns)
		r->start_unix_ns = m.start_unix_ns;
	rn_trace_init(&t);
	t.events_only = true;
	rn_target_result_add_run(r, &t);
	r->runs[r->nruns - 1] = m;
	rn_target_result_set_bench(r, (double)m.v[RN_METRIC_WALL], (double)m.v[RN_METRIC_CPU_TIME]);
	rn_trace_release(&t);
	return true;
}

/* Run k (a warmup when `warm`) returned rc < 0 or ended with trace t not OK. Returns
 * -ECANCELED when interrupted (r is INTERRUPTED), else 1: a run that could not start or did
 * not end cleanly makes the target ERROR; its partial trace is still the last one, for the
 * report. */
static int run_failed(struct rn_target_result *r, unsigned k, bool warm, int rc, struct rn_trace *t)
{
	if (rc == -ECANCELED) {
		if (!r->error)
			r->error = rn_xstrdup("renacer was interrupted");
		r->status = RN_RUN_INTERRUPTED;
		return rc;
	}
	if (!t->error)
		rn_trace_fail(t, t->status ? t->status : RN_RUN_ERROR, "run %u failed (%s)", k + 1,
			      strerror(-rc));
	if (!warm || !rn_target_result_measured(r)) {
		r->status = t->status;
		free(r->error);
		r->error = rn_xstrdup(t->error);
	}
	return 1;
}

/* The GPU execution of a run whose times come from a clean one (struct run_plan, gpu_apart):
 * `spec` as it is, with the CUDA library, into `gpu`. Returns what rn_run_target returned. */
static int gpu_execution(const struct rn_target_cfg *tc, const struct rn_run_spec *spec,
			 struct rn_trace *gpu)
{
	struct rn_run_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	rn_harness_run_begin(tc);
	rc = rn_run_target(spec, gpu, &res);
	if (!rc)
		check_expected_exit(tc, gpu);
	rn_run_result_release(&res);
	return rc;
}

/* Run `k` of the target. Returns 0 (go on), 1 (the target stops: a run failed, the target is
 * ERROR) or -ECANCELED (interrupted). */
static int one_run(struct target_runs *tr, unsigned k, struct rn_pressure_probe *probe)
{
	const struct rn_target_cfg *tc = tr->tc;
	struct rn_target_result *r = tr->r;
	bool warm = k < tc->warmup;
	/* a counting run (warmups are of the first kind measured) */
	bool counting =
		tr->plan.split && (k >= tc->warmup + tr->plan.timing || (warm && !tr->plan.timing));
	bool stops = counting || !tr->plan.split; /* the run stops at syscalls */
	struct rn_equiv_behaviour *bh = NULL;
	struct rn_run_spec spec;
	struct rn_run_result res;
	struct rn_trace t, gpu;
	char traceparent[64];
	uint64_t start_unix;
	double bench_real = 0.0, bench_cpu = 0.0;
	bool bench, apart = tr->plan.gpu_apart && !warm && !counting;
	char **shared_argv = NULL;
	int rc;

	if (took_bench(tr, k, warm, counting))
		return 0;
	run_progress(tr, k, warm, counting);
	run_spec_for(tr, warm, stops, &spec, traceparent, sizeof(traceparent));
	if (!warm && !counting && tr->plan.split)
		shared_argv = rn_harness_run_argv(tc);
	if (shared_argv)
		spec.argv = shared_argv;
	memset(&res, 0, sizeof(res));
	if (k == tc->warmup)
		rn_pressure_probe_begin(probe);
	rn_trace_init(&gpu);
	if (apart) {
		rc = gpu_execution(tc, &spec, &gpu);
		if (rc < 0 || gpu.status != RN_RUN_OK) {
			rc = run_failed(r, k, warm, rc, &gpu);
			free_words(shared_argv);
			rn_trace_release(&gpu);
			return rc;
		}
		spec.collectors &= ~(uint32_t)RN_COLLECT_CUDA;
	}
	rn_trace_init(&t);
	if (!warm && stops)
		bh = run_sinks(tr, &t);
	start_unix = rn_real_ns();
	if (!r->start_unix_ns)
		r->start_unix_ns = start_unix;
	rn_harness_run_begin(tc);
	rc = rn_run_target(&spec, &t, &res);
	if (!rc)
		check_expected_exit(tc, &t);
	bench = bench_done(tc, k, !warm && !counting, shared_argv, rc, &res, &t, &bench_real,
			   &bench_cpu);
	if (rc < 0 || t.status != RN_RUN_OK) {
		rc = run_failed(r, k, warm, rc, &t);
	} else if (!warm) {
		rn_trace_take_gpu(&t, &gpu);
		if (counting)
			forget_harness_clock(tc, &t);
		keep_run(r, &t, bh, counting, start_unix);
		bh = NULL;
		if (bench)
			rn_target_result_set_bench(r, bench_real, bench_cpu);
		if (bench && shared_argv) /* the others' times of this run, for their runs */
			rn_harness_leave(tc, res.out, r->nruns - 1, &r->runs[r->nruns - 1]);
	}
	rn_run_result_release(&res);
	free_words(shared_argv);
	rn_trace_release(&t);
	rn_trace_release(&gpu);
	rn_equiv_behaviour_free(bh);
	return rc;
}

/* Speed probes after a stretch of timing runs (conditions.h): a few, back to back. */
static void speed_probes(struct rn_target_result *r)
{
	int i;

	for (i = 0; i < RN_SPEED_PROBES; i++)
		rn_speed_probe(r);
}

/* The time a timing run of `r` takes, ns: the pace of the runs since `t0` (when `n0` were
 * measured), else the median wall time of its runs so far; 0 when unknown. */
static double run_pace(const struct rn_target_result *r, size_t n0, uint64_t t0)
{
	size_t n;
	double *w, pace;

	if (r->nruns > n0)
		return (double)(rn_mono_ns() - t0) / (double)(r->nruns - n0);
	w = rn_target_result_samples(r, RN_METRIC_WALL, &n);
	pace = n ? rn_stats_median(w, n) : 0.0;
	free(w);
	return pace;
}

/*
 * Adaptive repeats against golden trace `g` (assertions/sequential.h): after the first look
 * (the target's runs), more timing runs while a timing comparison is undecided, up to
 * [regression] max_runs or the target's time budget (rn_target_time_budget_ns). Returns what one_run returned last (`rc` if none).
 */
static int adaptive_runs(struct target_runs *tr, const struct rn_golden *g,
			 struct rn_pressure_probe *probe, int rc)
{
	const struct rn_regression_cfg *reg = &tr->cfg->regression;
	struct rn_target_result *r = tr->r;
	struct rn_seq_design seq;
	uint64_t t0 = rn_mono_ns(), budget = rn_target_time_budget_ns(tr->cfg, tr->tc);
	size_t next, n0 = r->nruns;

	seq.first = tr->plan.timing;
	/* --runs N is N timing runs: no repeats (what N runs cannot decide stays INCONCLUSIVE) */
	seq.max = reg->max_runs > tr->plan.timing && !tr->o->runs ? reg->max_runs : tr->plan.timing;
	seq.alpha = reg->alpha;
	/* fewer runs than can judge timing at all (min_runs_for_timing) would leave every time
	 * row NOT JUDGED whatever the comparison: the first look has at least that many */
	if (seq.first < reg->min_runs_for_timing)
		seq.first = reg->min_runs_for_timing < seq.max ? reg->min_runs_for_timing : seq.max;
	r->look_first = seq.first;
	r->look_max = seq.max;
	r->looks_spent = true;
	while (!rc && r->status == RN_RUN_OK && r->nruns < seq.first) {
		tr->plan.timing++;
		rc = one_run(tr, tr->tc->warmup + tr->plan.timing - 1, probe);
	}
	while (!rc && r->status == RN_RUN_OK) {
		size_t more, fit;

		next = rn_seq_next(&seq, r->nruns);
		if (!next)
			break;
		/* a look that would run past the budget is cut to the runs that fit, and is the
		 * last (rn_seq_budget_fit) */
		more = next - r->nruns;
		fit = rn_seq_budget_fit(more, run_pace(r, n0, t0), (double)(rn_mono_ns() - t0),
					(double)budget);
		if (!fit)
			break;
		if (!rn_golden_timing_undecided(g, r, reg, &r->looks_futile)) {
			r->looks_spent = false;
			break;
		}
		while (!rc && r->status == RN_RUN_OK && fit--) {
			/* one more timing run: it goes where the timing runs end */
			tr->plan.timing++;
			rc = one_run(tr, tr->tc->warmup + tr->plan.timing - 1, probe);
		}
		if (!rc)
			speed_probes(r);
		if (r->nruns < next)
			break; /* the budget's last look */
	}
	return rc;
}

static void github_group_begin(const struct rn_target_cfg *tc, const struct run_plan *p)
{
	char title[256];

	snprintf(title, sizeof(title),
		 "renacer: %s (%u warmup + %u timing run%s + %u counting run%s)", tc->name,
		 tc->warmup, p->timing, p->timing == 1 ? "" : "s", p->counting,
		 p->counting == 1 ? "" : "s");
	rn_github_group_begin(title);
}

/* Run one target: warmup, then its timing runs, then its counting runs (struct run_plan),
 * into `r`, with more runs while a comparison with `golden` is undecided. Returns 0, or
 * -ECANCELED when interrupted. */
/* The environment of r's runs (util/fingerprint.h), once a result: the host's facts and the
 * compiler that built the target's root binary (its .comment), else cc's. */
static void read_fingerprint(struct rn_target_result *r)
{
	char cc[RN_FINGERPRINT_FIELD_MAX];

	rn_fingerprint_host(&r->fingerprint, NULL);
	if (r->exe && !rn_elf_compiler(r->exe, cc, sizeof(cc)))
		rn_fingerprint_set(&r->fingerprint, RN_FP_COMPILER, cc);
	else
		rn_fingerprint_default_compiler(&r->fingerprint);
	r->has_fingerprint = true;
}

/* The counting runs of tr's plan; a count that fails against the golden trace `golden` (NULL:
 * none to judge by) after them is measured again: counts of threads and parallel children vary
 * from run to run, and the per-syscall rule judges the run with the fewest calls. Returns what
 * one_run returned last (0 if none ran). */
static int counting_runs(struct target_runs *tr, const struct rn_golden *golden,
			 struct rn_pressure_probe *probe)
{
	unsigned k, first = tr->tc->warmup + tr->plan.timing;
	struct rn_target_result *r = tr->r;
	int rc = 0;

	for (k = first; k < first + tr->plan.counting && !rc; k++)
		rc = one_run(tr, k, probe);
	while (golden && !rc && tr->plan.counting && r->status == RN_RUN_OK &&
	       r->ncounts < RN_GOLDEN_CONFIRM_COUNTING &&
	       rn_golden_counts_fail(golden, r, &tr->cfg->regression)) {
		tr->plan.counting++;
		rc = one_run(tr, first + tr->plan.counting - 1, probe);
	}
	return rc;
}

/* The target's line in a CI log: the runs of each kind it made. */
static void progress_done(const struct target_runs *tr)
{
	const struct run_plan *p = &tr->plan;
	char done[512];
	int len = snprintf(done, sizeof(done), "[%zu/%zu] %s: ", tr->index + 1, tr->count,
			   tr->tc->name);
	size_t head = (size_t)len;

	if (tr->tc->warmup)
		len += snprintf(done + len, sizeof(done) - (size_t)len, "%u warmup, ",
				tr->tc->warmup);
	if (p->timing)
		len += snprintf(done + len, sizeof(done) - (size_t)len, "%u %srun%s%s, ", p->timing,
				p->split ? "timing " : "", p->timing == 1 ? "" : "s",
				p->gpu_apart ? " (each beside a GPU execution)" : "");
	if (p->counting)
		len += snprintf(done + len, sizeof(done) - (size_t)len, "%u counting run%s, ",
				p->counting, p->counting == 1 ? "" : "s");
	if ((size_t)len > head && (size_t)len < sizeof(done))
		done[len - 2] = '\0';
	rn_report_progress_done((size_t)len > head ? done : NULL);
}

/* Plan tr's runs and its speed probes; returns whether its runs are judged against the golden
 * trace `golden` as they go (adaptive timing runs, confirmed counts). */
static bool plan_target(struct target_runs *tr, bool golden_update, const struct rn_golden *golden)
{
	const struct rn_config *cfg = tr->cfg;
	const struct rn_check_opts *o = tr->o;
	bool have_golden;

	plan_runs(cfg, tr->tc, o, golden_update, &tr->plan);
	/* never in a same-job baseline: the base side has no golden trace, and the pairs must
	 * stay alike */
	tr->probe = tr->plan.timing && !o->baseline && !o->calibrate &&
		(golden_update || golden_exists(cfg, tr->tc->name));
	have_golden = golden && !golden_update && !o->baseline && !o->calibrate && !o->no_golden &&
		cfg->regression.enabled;
	if (have_golden && tr->plan.timing && cfg->regression.timing)
		tr->timing_max = (unsigned)cfg->regression.max_runs;
	return have_golden;
}

/* After tr's runs, which ended with `rc` (one_run's): the pressure reading, the environment
 * and the instruction counts. Returns 0 (a run that failed made the target ERROR; the check
 * goes on), or -ECANCELED, or the instruction counts' failure. */
static int after_runs(struct target_runs *tr, struct rn_pressure_probe *probe, int rc)
{
	struct rn_target_result *r = tr->r;

	if (rc > 0)
		rc = 0;
	if (probe->mono_ns && r->nruns)
		rn_pressure_probe_end(probe, r);
	if (!r->has_fingerprint && (r->nruns || r->ncounts))
		read_fingerprint(r);
	if (!rc && r->status == RN_RUN_OK && (r->nruns || r->ncounts) &&
	    rn_check_wants_instructions(tr->cfg, tr->tc))
		rc = rn_check_instructions(tr->tc, r, tr->o->quiet);
	return rc;
}

int rn_check_run_target(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			const struct rn_check_opts *o, size_t index, size_t count,
			const struct rn_otlp_context *otlp_ctx, bool golden_update,
			const struct rn_golden *golden, struct rn_target_result *r)
{
	struct target_runs tr = { cfg,
				  tc,
				  o,
				  index,
				  count,
				  otlp_ctx,
				  { 0, 0, false, false },
				  needs_spool(cfg, tc, o),
				  needs_behaviour(cfg, tc),
				  r,
				  false,
				  0 };
	struct rn_pressure_probe probe = { 0 };
	uint64_t t0 = rn_mono_ns();
	bool have_golden;
	unsigned first, k;
	int rc = 0;

	have_golden = plan_target(&tr, golden_update, golden);
	if (o->rep.github)
		github_group_begin(tc, &tr.plan);
	first = tc->warmup + tr.plan.timing;
	for (k = 0; k < first && !rc; k++)
		rc = one_run(&tr, k, &probe);
	if (tr.probe && !rc)
		speed_probes(r);
	if (have_golden && tr.plan.timing && cfg->regression.timing)
		rc = adaptive_runs(&tr, golden, &probe, rc);
	if (!rc)
		rc = counting_runs(&tr, have_golden ? golden : NULL, &probe);
	rc = after_runs(&tr, &probe, rc);
	r->duration_ns = rn_mono_ns() - t0;
	if (!o->quiet && !o->progress_part)
		progress_done(&tr);
	if (o->rep.github)
		rn_github_group_end();
	return rc;
}

/* What the baseline's runner callback needs (baseline_run_one). */
struct baseline_ctx {
	const struct rn_config *cfg;
	const struct rn_check_opts *o;
	const struct rn_target_cfg *head, *base; /* the two sides of the target */
	size_t index, count;                     /* progress position */
	size_t base_index;                       /* OTLP target index of the base side */
	const struct rn_otlp_context *otlp;
	int pin;       /* first CPU of the timing runs, -1 none, RN_PIN_UNDECIDED before a pair */
	int pin_ncpus; /* how many CPUs from `pin` (cpuset.h); 1 for a lone thread */
	struct rn_cpu_claim *claim; /* the CPUs held for `pin`, the caller's (pin_claim) */
	bool seen[2];               /* a timing run of the side was measured */
	bool alone[2];              /* it was one process of one thread */
};

/* baseline_ctx.pin before the first timing pair decided it */
#define RN_PIN_UNDECIDED (-2)

/* The most CPUs a parallel target's placement takes, and the fewest the affinity must allow
 * for one (half of them at most: a 2-vCPU runner keeps its parallel targets unpinned). */
#define RN_PIN_PARALLEL_MAX 4
#define RN_PIN_PARALLEL_MIN_ALLOWED 4

/* The CPU the scheduler has renacer on (the least busy, as far as it knows), or -1. */
static int pin_current(void)
{
	cpu_set_t set;
	int now = sched_getcpu();

	if (now < 0 || now >= CPU_SETSIZE || sched_getaffinity(0, sizeof(set), &set) ||
	    !CPU_ISSET(now, &set))
		return -1;
	return now;
}

/* Place the timing runs on `n` CPUs (the one renacer is on first, for a lone thread) that no
 * other check running on the machine holds, through c->claim (cpuset.h): two checks of a
 * `ctest -j2` once pinned their pairs to the same CPU and each read the other's runs as noise
 * (an identical 1 ms pair failed). Every CPU held elsewhere: unpinned, the scheduler spreads
 * them. No lock directory: placed as before, unclaimed. */
static void pin_claim(struct baseline_ctx *c, int n)
{
	char dir[4096];
	int rc, prefer = n == 1 ? pin_current() : -1;

	if (c->claim->first >= 0 && c->claim->n == n) {
		c->pin = c->claim->first; /* calibrate's planted side keeps its A/A placement */
		c->pin_ncpus = n;
		return;
	}
	rn_cpu_claim_release(c->claim);
	rc = rn_cpu_claim_dir(dir, sizeof(dir));
	if (!rc)
		rc = rn_cpu_claim(dir, n, prefer, c->claim);
	if (!rc) {
		c->pin = c->claim->first;
		c->pin_ncpus = n;
	} else if (rc != -EBUSY) {
		c->pin = prefer >= 0 ? prefer : rn_cpuset_top(n);
		c->pin_ncpus = n;
	}
}

/* Placement of the timing runs, decided after one timing run of each side and the same for
 * both from then on. A target of one process and one thread on both sides runs on one CPU
 * (on a loaded 2-vCPU VM, cpu_time noise of a 70 ms program +-2.6% -> +-0.9% a pair); a
 * parallel one (several processes or threads) on the highest RN_PIN_PARALLEL_MAX CPUs, where
 * the affinity allows at least RN_PIN_PARALLEL_MIN_ALLOWED, so that its parallelism is still
 * measured but its placement stops moving (quiet 16-core machine: a sort | uniq | sort
 * pipeline's A/A noise +-26% a pair unpinned, +-8.7% on 4 CPUs); tests/bench/timing/
 * placement.sh. renacer's thread runs in the same placement, and no other check running on
 * the machine gets the same CPUs (pin_claim). */
static void pin_decide(struct baseline_ctx *c, enum rn_baseline_side side,
		       const struct rn_target_result *r)
{
	const struct rn_trace *t = rn_target_result_cp_trace(r); /* the last timing run's */
	int allowed, n;

	if (c->pin != RN_PIN_UNDECIDED || c->seen[side])
		return;
	c->seen[side] = true;
	c->alone[side] = t->nprocs == 1 && t->procs[0].nthreads <= 1;
	if (!c->seen[0] || !c->seen[1])
		return;
	c->pin = -1;
	c->pin_ncpus = 1;
	if (!c->cfg->regression.pin)
		return;
	if (c->alone[0] && c->alone[1]) {
		pin_claim(c, 1);
		return;
	}
	allowed = rn_cpuset_count();
	if (allowed < RN_PIN_PARALLEL_MIN_ALLOWED)
		return;
	n = allowed / 2 < RN_PIN_PARALLEL_MAX ? allowed / 2 : RN_PIN_PARALLEL_MAX;
	pin_claim(c, n);
}

/* The two CPUs of duet pairs (plan->duet_cpu), claimed as pin_claim claims a sequential
 * pair's one CPU, so that no other check running on the machine gets them; unpinned without
 * [regression] pin or when other checks hold them (as sequential pairs then are: the load of
 * those checks falls on both sides of a duet alike). With fewer than 2 usable CPUs the pairs
 * stay sequential and plan->pairs_note says why. */
static void duet_place(struct baseline_ctx *c, struct rn_baseline_plan *plan)
{
	cpu_set_t set;
	int i, k = 0;

	plan->duet_cpu[0] = plan->duet_cpu[1] = -1;
	if (rn_cpuset_count() < 2) {
		plan->pairs_note = "fewer than 2 usable CPUs";
		return;
	}
	plan->duet = true;
	if (!c->cfg->regression.pin)
		return;
	pin_claim(c, 2);
	if (c->pin < 0 || rn_cpuset_span(c->pin, 2, &set) < 2) {
		rn_cpu_claim_release(c->claim);
		c->pin = -1; /* no placement to decide after the first pair either */
		c->pin_ncpus = 1;
		return;
	}
	for (i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &set))
			plan->duet_cpu[k++] = i;
}

/* One run of one side for the baseline (rn_baseline_run_fn): run_target with that single
 * run, its time added to the side's total. */
static int baseline_run_one(void *ctx, enum rn_baseline_side side, enum rn_baseline_run kind,
			    int cpu, struct rn_target_result *r)
{
	struct baseline_ctx *c = ctx;
	struct rn_target_cfg tc = side == RN_BASELINE_BASE ? *c->base : *c->head;
	struct rn_check_opts o = *c->o;
	uint64_t before = r->duration_ns;
	cpu_set_t mine, placed;
	bool pinned = false;
	int rc;

	o.runs = 0;
	o.rep.github = 0;
	o.progress_part = true;
	o.pin_cpu = cpu != RN_BASELINE_OWN_PLACE ? cpu : c->pin >= 0 ? c->pin : -1;
	o.pin_ncpus = cpu != RN_BASELINE_OWN_PLACE ? 1 : c->pin_ncpus;
	tc.warmup = kind == RN_BASELINE_WARMUP;
	tc.runs = kind == RN_BASELINE_TIMING;
	tc.counting_runs = kind == RN_BASELINE_COUNTING;
	tc.instructions = 0; /* once a side, after the pairs (rn_check_run_baseline) */
	/* renacer's thread beside a pinned target: its event stops then wake no idle CPU, and the
	 * CPU stays busy (no frequency ramp) between the runs (quiet 16-core machine: awk's A/A
	 * noise +-13% a pair with the target alone pinned, +-1.8% with both) */
	if (o.pin_cpu >= 0 && !sched_getaffinity(0, sizeof(mine), &mine) &&
	    rn_cpuset_span(o.pin_cpu, o.pin_ncpus, &placed) > 0)
		pinned = !sched_setaffinity(0, sizeof(placed), &placed);
	rc = rn_check_run_target(c->cfg, &tc, &o,
				 side == RN_BASELINE_BASE ? c->base_index : c->index, c->count,
				 c->otlp, false, NULL, r);
	if (pinned)
		(void)sched_setaffinity(0, sizeof(mine), &mine);
	r->duration_ns += before;
	if (kind == RN_BASELINE_TIMING) {
		r->pin_cpu = pinned ? o.pin_cpu : -1;
		r->pin_ncpus = pinned ? o.pin_ncpus : 0;
	}
	if (!rc && kind == RN_BASELINE_TIMING && r->status == RN_RUN_OK &&
	    cpu == RN_BASELINE_OWN_PLACE)
		pin_decide(c, side, r);
	return rc;
}

/* [regression] timing = false: the time rows of a same-job baseline (those from index
 * `first` on) are SKIP, as a golden comparison's are; counts and memory stay judged. */
static void skip_time_rows(struct rn_target_report *tv, size_t first)
{
	static const enum rn_metric times[] = { RN_METRIC_WALL, RN_METRIC_CRITICAL_PATH,
						RN_METRIC_CPU_TIME, RN_METRIC_GPU_BUSY };
	size_t k, i;

	for (k = first; k < tv->nverdicts; k++) {
		struct rn_verdict_result *v = &tv->verdicts[k];

		for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
			const char *name = rn_metric_info(times[i])->name;

			if (!v->assertion || strncmp(v->assertion, "baseline:", 9) ||
			    strcmp(v->assertion + 9, name))
				continue;
			v->verdict = RN_VERDICT_SKIP;
			free(v->reason);
			v->reason = rn_xstrdup("[regression] timing = false");
		}
	}
}

/* Run target `tc` in both trees side by side and append its baseline:* verdicts. Returns 0 or
 * -ECANCELED. */
int rn_check_run_baseline(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			  const struct rn_target_cfg *base_tc, const struct rn_check_opts *o,
			  const struct rn_baseline *bl, size_t index, size_t count,
			  const struct rn_otlp_context *otlp_ctx,
			  const struct rn_target_result *counted, struct rn_target_result *head,
			  struct rn_target_result *base, struct rn_target_report *tv)
{
	struct baseline_ctx c = { .cfg = cfg,
				  .o = o,
				  .head = tc,
				  .base = base_tc,
				  .index = index,
				  .count = count,
				  .base_index = count + index,
				  .otlp = otlp_ctx,
				  .pin = RN_PIN_UNDECIDED };
	struct rn_cpu_claim claim = { .first = -1 };
	struct rn_baseline_plan plan = { 0 };
	struct run_plan rp;
	size_t first_row;
	int rc;

	plan_runs(cfg, tc, o, false, &rp);
	plan.warmup = tc->warmup;
	plan.pairs = rp.timing;
	plan.counting = rp.split ? rp.counting : 0;
	/* --runs N is N timing pairs: no repeats */
	plan.max_pairs = o->runs ? (unsigned)o->runs : cfg->regression.max_runs;
	plan.budget_ns = rn_target_time_budget_ns(cfg, tc);
	{
		struct rn_seq_design seq = rn_baseline_design(&plan, &cfg->regression);

		plan.pairs = (unsigned)seq.first;
	}
	if (!cfg->regression.timing) /* time rows are SKIP: no pairs beyond the first look */
		plan.max_pairs = plan.pairs;
	if (o->rep.github) {
		char title[256];

		snprintf(title, sizeof(title),
			 "renacer: %s vs base (%u warmup + %u to %u timing pairs + %u counting "
			 "run%s a side)",
			 tc->name, plan.warmup, plan.pairs, plan.max_pairs, plan.counting,
			 plan.counting == 1 ? "" : "s");
		rn_github_group_begin(title);
	}
	c.claim = &claim;
	if ((o->pairs >= 0          ? o->pairs :
		     tc->pairs >= 0 ? tc->pairs :
				      cfg->regression.pairs) == RN_PAIRS_DUET)
		duet_place(&c, &plan);
	first_row = tv->nverdicts;
	rc = rn_baseline_run_target(bl, &plan, &cfg->regression, tc->name, baseline_run_one, &c,
				    head, base, tv);
	rn_cpu_claim_release(&claim);
	if (!rc && !cfg->regression.timing)
		skip_time_rows(tv, first_row);
	if (!rc && rn_check_wants_instructions(cfg, tc) && head->status == RN_RUN_OK &&
	    base->status == RN_RUN_OK) {
		if (!counted || !rn_check_instructions_reuse(counted, head))
			rc = rn_check_instructions(tc, head, o->quiet);
		if (!rc)
			rc = rn_check_instructions(base_tc, base, o->quiet);
		if (!rc)
			rn_baseline_judge_instructions(bl, tc->name, head, base, first_row, tv);
	}
	if (!o->quiet) {
		char done[512];

		snprintf(done, sizeof(done),
			 "[%zu/%zu] %s vs base: %zu timing pair%s, %zu counting "
			 "run%s a side",
			 index + 1, count, tc->name, head->nruns, head->nruns == 1 ? "" : "s",
			 head->ncounts, head->ncounts == 1 ? "" : "s");
		rn_report_progress_done(done);
	}
	if (o->rep.github)
		rn_github_group_end();
	return rc;
}

/* calibrate: the planted head side, a shell busy loop before the target's command. */
struct planted {
	struct baseline_ctx c;   /* head = &tc */
	struct rn_target_cfg tc; /* the head target with argv planted */
	char **argv;             /* sh -c SCRIPT argv..., owned (strings borrowed but [2]) */
};

static void plant_argv(void *ctx, unsigned long iterations)
{
	struct planted *p = ctx;
	size_t n = 0, i;

	if (p->argv) {
		free(p->argv[2]);
		free(p->argv);
	}
	for (n = 0; p->c.base->argv[n]; n++)
		;
	p->argv = rn_xcalloc(n + 4, sizeof(*p->argv));
	p->argv[0] = (char *)"/bin/sh";
	p->argv[1] = (char *)"-c";
	p->argv[2] = rn_xstrdup(rn_calibrate_loop_script(iterations));
	for (i = 0; i < n; i++)
		p->argv[3 + i] = p->c.base->argv[i];
	p->tc.argv = p->argv;
}

/* calibrate one target (calibrate.h): A/A, then a planted slowdown. Returns 0 or -ECANCELED. */
int rn_check_run_calibrate(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			   const struct rn_check_opts *o, size_t index, size_t count,
			   const struct rn_otlp_context *otlp_ctx, struct rn_target_result *r,
			   struct rn_target_report *tv)
{
	struct rn_target_cfg base = *tc;
	struct baseline_ctx aa = { .cfg = cfg,
				   .o = o,
				   .head = tc,
				   .base = &base,
				   .index = index,
				   .count = count,
				   .base_index = count + index,
				   .otlp = otlp_ctx,
				   .pin = RN_PIN_UNDECIDED };
	struct rn_cpu_claim claim = { .first = -1 };
	struct planted pl;
	struct rn_calibrate_sides sides = { baseline_run_one, &aa, &pl, plant_argv };
	struct rn_target_result more[3], *res[4] = { r, &more[0], &more[1], &more[2] };
	struct rn_baseline bl;
	struct rn_baseline_plan plan;
	struct run_plan rp;
	char *base_name, *planted_name;
	size_t i;
	int rc;

	memset(&bl, 0, sizeof(bl));
	bl.tolerance = RN_BASELINE_TOLERANCE;
	base_name = rn_xstrdup(tc->name);
	planted_name = rn_xstrdup(tc->name);
	{
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s (A)", tc->name);
		free(base_name);
		base_name = rn_buf_detach(&b, NULL);
		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s (planted)", tc->name);
		free(planted_name);
		planted_name = rn_buf_detach(&b, NULL);
	}
	base.name = base_name;
	aa.claim = &claim;
	memset(&pl, 0, sizeof(pl));
	pl.tc = *tc;
	pl.tc.name = planted_name;
	pl.c = aa;
	pl.c.head = &pl.tc;
	plan_runs(cfg, tc, o, false, &rp);
	plan.warmup = tc->warmup;
	plan.pairs = rp.timing;
	plan.counting = 0;
	plan.max_pairs = cfg->regression.max_runs;
	plan.budget_ns = rn_target_time_budget_ns(cfg, tc);
	plan.duet = false; /* calibrate measures the sequential pairs' noise */
	plan.pairs_note = NULL;
	rn_target_result_init(&more[0], base.name);
	rn_target_result_init(&more[1], pl.tc.name);
	rn_target_result_init(&more[2], base.name);
	rc = rn_calibrate_target(&bl, &plan, &cfg->regression, &o->cal, tc->name, &sides, res, tv);
	if (!rc && o->cal.write && res[0]->status == RN_RUN_OK && res[1]->status == RN_RUN_OK) {
		struct rn_seq_design seq = rn_baseline_design(&plan, &cfg->regression);

		rn_calibrate_tolerance_row(res[0], res[1], &seq, tc->name, tv);
	}
	rn_cpu_claim_release(&claim);
	if (!o->quiet) {
		char done[512];

		snprintf(done, sizeof(done), "[%zu/%zu] %s calibrated", index + 1, count, tc->name);
		rn_report_progress_done(done);
	}
	for (i = 0; i < 3; i++)
		rn_target_result_release(&more[i]);
	if (pl.argv) {
		free(pl.argv[2]);
		free(pl.argv);
	}
	free(base_name);
	free(planted_name);
	return rc;
}
