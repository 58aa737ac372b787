/*
 * test_evaluate.c - the verdict logic of [[assertion]]s, data-driven: rn_assertion_evaluate()
 * over a target's runs (a fixture of runs built as the collectors build traces, and an
 * assertion) -> the exact verdict line "VERDICT observed | message"; the critical path of a
 * process tree (a table of processes) -> its chain of segments; and the aggregates over runs
 * (samples, aggregate) -> the value.
 *
 * Golden-trace comparisons are judged in test_verdicts.c and test_golden.c; the detectors
 * behind anti_pattern assertions in test_antipattern.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assertion.h"
#include "assertions/internal.h"
#include "stats.h"
#include "trace.h"

#define MS 1000000ULL
#define MIB (1024ULL * 1024ULL)
#define T0 (1000 * MS) /* CLOCK_MONOTONIC start of every fixture run, ns */
#define MAX_RUNS 5

/* ---- fixtures: the runs of one target ------------------------------------------------------ */

/* One run: a root process alive for cp_ms (its critical path and wall time). */
struct run_fx {
	double cp_ms;              /* root lifetime, ms */
	uint64_t rss;              /* peak RSS of the tree, bytes */
	uint64_t alloc;            /* peak anonymous allocations, bytes */
	unsigned fsyncs;           /* fsync calls of the root */
	unsigned writes;           /* write calls of the root */
	uint64_t instructions;     /* Valgrind count written into the run, 0: none */
	enum rn_run_status status; /* how the run ended */
	const char *error;         /* its error message, or NULL */
};

struct fixture {
	const char *name; /* target name */
	size_t nruns;     /* runs in runs[] */
	struct run_fx runs[MAX_RUNS];
};

enum fixture_id {
	FX_FIVE,    /* five clean runs with spread critical paths */
	FX_MEMORY,  /* three runs with peak RSS and allocations */
	FX_NO_MEM,  /* one run without memory data */
	FX_CRASHED, /* one run that crashed */
	FX_NONE,    /* the target never ran */
	FX_INSTR,   /* one run with an instruction count */
};

static const struct fixture fixtures[] = {
	[FX_FIVE] = { "five",
		      5,
		      { { 10, 0, 0, 2, 7, 0, RN_RUN_OK, NULL },
			{ 20, 0, 0, 4, 7, 0, RN_RUN_OK, NULL },
			{ 100, 0, 0, 2, 7, 0, RN_RUN_OK, NULL },
			{ 40, 0, 0, 4, 7, 0, RN_RUN_OK, NULL },
			{ 30, 0, 0, 3, 7, 0, RN_RUN_OK, NULL } } },
	[FX_MEMORY] = { "mem",
			3,
			{ { 5, 10 * MIB, 3 * MIB, 0, 1, 0, RN_RUN_OK, NULL },
			  { 5, 12 * MIB, 1 * MIB, 0, 1, 0, RN_RUN_OK, NULL },
			  { 5, 11 * MIB, 2 * MIB, 0, 1, 0, RN_RUN_OK, NULL } } },
	[FX_NO_MEM] = { "nomem", 1, { { 5, 0, 0, 0, 1, 0, RN_RUN_OK, NULL } } },
	[FX_CRASHED] = { "crashy",
			 1,
			 { { 5, 0, 0, 0, 1, 0, RN_RUN_CRASHED, "root killed by SIGSEGV" } } },
	[FX_NONE] = { "empty", 0, { { 0 } } },
	[FX_INSTR] = { "instr", 1, { { 5, 0, 0, 0, 1, 1000500, RN_RUN_OK, NULL } } },
};

static int nr_of(const char *name)
{
	int nr = rn_syscall_lookup(name);

	assert_true(nr >= 0);
	return nr;
}

static void add_calls(struct rn_trace *t, const char *name, unsigned n, uint64_t *now)
{
	struct rn_syscall_event ev;
	unsigned i;

	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.pid = t->procs[0].pid;
		ev.tid = ev.pid;
		ev.nr = nr_of(name);
		ev.args[0] = 3;
		ev.ret = 0;
		ev.start_ns = *now;
		ev.duration_ns = 1000;
		rn_trace_syscall(t, &t->procs[0], &ev);
		*now += 2000;
	}
}

/* The trace of one fixture run, built as the ptrace collector builds one. */
static void build_run(struct rn_trace *t, const struct run_fx *fx)
{
	struct rn_process *root;
	uint64_t now = T0 + 1000;

	rn_trace_init(t);
	t->start_ns = T0;
	root = rn_trace_add_process(t, 100, 0, T0);
	rn_process_set_exe(root, "/usr/bin/app");
	add_calls(t, "write", fx->writes, &now);
	add_calls(t, "fsync", fx->fsyncs, &now);
	t->procs[0].end_ns = T0 + (uint64_t)(fx->cp_ms * (double)MS);
	t->procs[0].end = RN_PROC_EXITED;
	t->end_ns = t->procs[0].end_ns;
	t->peak_rss_bytes = fx->rss;
	t->alloc_peak_bytes = fx->alloc;
	if (fx->status != RN_RUN_OK)
		rn_trace_fail(t, fx->status, "%s", fx->error);
}

static void build_result(struct rn_target_result *r, const struct fixture *fx)
{
	struct rn_trace t;
	size_t i;

	rn_target_result_init(r, fx->name);
	for (i = 0; i < fx->nruns; i++) {
		build_run(&t, &fx->runs[i]);
		rn_target_result_add_run(r, &t);
		rn_trace_release(&t);
		/* the Valgrind run's count goes into the runs as drivers_instructions.c writes it */
		r->runs[i].v[RN_METRIC_INSTRUCTIONS] = fx->runs[i].instructions;
	}
}

/* ---- rn_assertion_evaluate: (fixture, assertion) -> verdict line --------------------------- */

struct eval_case {
	const char *what;            /* the rule under test */
	enum fixture_id fx;          /* the runs */
	enum rn_assertion_type type; /* the assertion */
	enum rn_aggregate agg;
	bool disabled;              /* enabled = false */
	bool warn_only;             /* fail_on_violation = false */
	double budget;              /* max_duration_ms, max_spans, max_bytes, threshold or
				      * max_instructions, by type */
	const char *pattern;        /* span_name_pattern or anti-pattern name */
	enum rn_tracking_mode mode; /* memory_usage */
	double tolerance;           /* instructions */
	const char *line;           /* "VERDICT observed | message", observed "-" when none */
};

static const struct eval_case eval_cases[] = {
	/* ---- critical_path: aggregates over the runs, inclusive budgets ---- */
	{ "median under budget", FX_FIVE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MEDIAN, false, false, 50,
	  NULL, 0, 0,
	  "PASS 30 | critical path 30.000 ms (median of 5 runs) <= budget 50.000 ms (-40.0%, "
	  "inclusive)" },
	{ "equal to the budget passes", FX_FIVE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MEDIAN, false,
	  false, 30, NULL, 0, 0,
	  "PASS 30 | critical path 30.000 ms (median of 5 runs) <= budget 30.000 ms (+0.0%, "
	  "inclusive)" },
	{ "1 us over the budget is within the runs' noise", FX_FIVE, RN_ASSERT_CRITICAL_PATH,
	  RN_AGG_MEDIAN, false, false, 29.999, NULL, 0, 0,
	  "WARN 30 | critical path 30.000 ms (median of 5 runs) > budget 29.999 ms (+0.0%, "
	  "inclusive); inconclusive, not a gate: 3 of 5 runs over it, 95% lower bound 10.000 ms "
	  "within it: run-to-run noise can explain the excess" },
	{ "p95 takes the outlier, one run does not show it", FX_FIVE, RN_ASSERT_CRITICAL_PATH,
	  RN_AGG_P95, false, false, 50, NULL, 0, 0,
	  "WARN 100 | critical path 100.000 ms (p95 of 5 runs) > budget 50.000 ms (+100.0%, "
	  "inclusive); inconclusive, not a gate: 1 of 5 runs over it, 95% lower bound 40.000 ms "
	  "within it: run-to-run noise can explain the excess" },
	{ "every run over the budget fails", FX_FIVE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MEDIAN, false,
	  false, 5, NULL, 0, 0,
	  "FAIL 30 | critical path 30.000 ms (median of 5 runs) > budget 5.000 ms (+500.0%, "
	  "inclusive); 5 of 5 runs over it, 95% lower bound 10.000 ms" },
	{ "min ignores it", FX_FIVE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MIN, false, false, 50, NULL, 0,
	  0,
	  "PASS 10 | critical path 10.000 ms (min of 5 runs) <= budget 50.000 ms (-80.0%, "
	  "inclusive)" },
	{ "max", FX_FIVE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MAX, false, false, 200, NULL, 0, 0,
	  "PASS 100 | critical path 100.000 ms (max of 5 runs) <= budget 200.000 ms (-50.0%, "
	  "inclusive)" },
	{ "fail_on_violation = false warns", FX_FIVE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MEDIAN, false,
	  true, 5, NULL, 0, 0,
	  "WARN 30 | critical path 30.000 ms (median of 5 runs) > budget 5.000 ms (+500.0%, "
	  "inclusive); 5 of 5 runs over it, 95% lower bound 10.000 ms" },
	{ "one run over the budget shows nothing", FX_NO_MEM, RN_ASSERT_CRITICAL_PATH,
	  RN_AGG_MEDIAN, false, false, 4.5, NULL, 0, 0,
	  "WARN 5 | critical path 5.000 ms (median of 1 run) > budget 4.500 ms (+11.1%, "
	  "inclusive); inconclusive, not a gate: 1 run cannot show it beyond run-to-run noise (a "
	  "bound needs at least 5 runs: set the target's runs)" },
	{ "one run far beyond the drift limit fails", FX_NO_MEM, RN_ASSERT_CRITICAL_PATH,
	  RN_AGG_MEDIAN, false, false, 2, NULL, 0, 0,
	  "FAIL 5 | critical path 5.000 ms (median of 1 run) > budget 2.000 ms (+150.0%, "
	  "inclusive); every run beyond +50% over it" },
	{ "disabled is SKIP, never PASS", FX_FIVE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MEDIAN, true,
	  false, 50, NULL, 0, 0, "SKIP - | disabled (enabled = false)" },
	{ "a crashed run is ERROR", FX_CRASHED, RN_ASSERT_CRITICAL_PATH, RN_AGG_MEDIAN, false,
	  false, 50, NULL, 0, 0,
	  "ERROR - | target 'crashy' did not run cleanly: root killed by SIGSEGV" },
	{ "no run is ERROR", FX_NONE, RN_ASSERT_CRITICAL_PATH, RN_AGG_MEDIAN, false, false, 50,
	  NULL, 0, 0, "ERROR - | target 'empty' did not run cleanly: no measured run" },

	/* ---- span_count: per run, aggregated; the last run's top names ---- */
	{ "span count median at the budget", FX_FIVE, RN_ASSERT_SPAN_COUNT, RN_AGG_MEDIAN, false,
	  false, 3, "f(data)?sync", 0, 0,
	  "PASS 3 | 3 calls matching /f(data)?sync/ (median of 5 runs) <= budget 3 (+0.0%, "
	  "inclusive); top of the last run: fsync=3" },
	{ "span count max over it", FX_FIVE, RN_ASSERT_SPAN_COUNT, RN_AGG_MAX, false, false, 3,
	  "f(data)?sync", 0, 0,
	  "FAIL 4 | 4 calls matching /f(data)?sync/ (max of 5 runs) > budget 3 (+33.3%, "
	  "inclusive); top of the last run: fsync=3" },
	{ "alternation counts both names", FX_FIVE, RN_ASSERT_SPAN_COUNT, RN_AGG_MIN, false, false,
	  100, "write|fsync", 0, 0,
	  "PASS 9 | 9 calls matching /write|fsync/ (min of 5 runs) <= budget 100 (-91.0%, "
	  "inclusive); top of the last run: write=7, fsync=3" },
	{ "patterns match whole names: no sync() made", FX_FIVE, RN_ASSERT_SPAN_COUNT,
	  RN_AGG_MEDIAN, false, false, 10, "sync", 0, 0,
	  "PASS 0 | 0 calls matching /sync/ (median of 5 runs) <= budget 10 (-100.0%, inclusive); "
	  "top of the last run:" },
	{ "a pattern naming no syscall is NO DATA", FX_FIVE, RN_ASSERT_SPAN_COUNT, RN_AGG_MEDIAN,
	  false, false, 10, "fsyncc", 0, 0,
	  "NO DATA - | no span matched /fsyncc/ (and it names no syscall: a typo?)" },
	{ "nothing matched under a zero budget passes", FX_FIVE, RN_ASSERT_SPAN_COUNT,
	  RN_AGG_MEDIAN, false, false, 0, "fsyncc", 0, 0,
	  "PASS 0 | 0 calls matching /fsyncc/ (median of 5 runs) <= budget 0 (+0.0%, inclusive); "
	  "top of the last run:" },
	{ "GPU pattern without GPU spans", FX_FIVE, RN_ASSERT_SPAN_COUNT, RN_AGG_MEDIAN, false,
	  false, 0, "gpu:.*", 0, 0,
	  "NO DATA - | no span matched /gpu:.*/ (no GPU spans: is \"vulkan\" or \"cuda\" in the "
	  "target's collectors?)" },

	/* ---- memory_usage ---- */
	{ "peak RSS median", FX_MEMORY, RN_ASSERT_MEMORY_USAGE, RN_AGG_MEDIAN, false, false,
	  20.0 * MIB, NULL, RN_TRACK_RSS, 0,
	  "PASS 11534336 | peak RSS 11.0 MiB (median of 3 runs) <= budget 20.0 MiB (-45.0%, "
	  "inclusive)" },
	{ "peak RSS max over", FX_MEMORY, RN_ASSERT_MEMORY_USAGE, RN_AGG_MAX, false, false,
	  10.0 * MIB, NULL, RN_TRACK_RSS, 0,
	  "FAIL 12582912 | peak RSS 12.0 MiB (max of 3 runs) > budget 10.0 MiB (+20.0%, "
	  "inclusive)" },
	{ "allocations mode reads alloc_peak", FX_MEMORY, RN_ASSERT_MEMORY_USAGE, RN_AGG_MIN, false,
	  false, 1.0 * MIB, NULL, RN_TRACK_ALLOCATIONS, 0,
	  "PASS 1048576 | peak allocations 1.00 MiB (min of 3 runs) <= budget 1.00 MiB (+0.0%, "
	  "inclusive)" },
	{ "no memory data is NO DATA", FX_NO_MEM, RN_ASSERT_MEMORY_USAGE, RN_AGG_MEDIAN, false,
	  false, 1.0 * MIB, NULL, RN_TRACK_RSS, 0,
	  "NO DATA - | no peak RSS data (is \"ptrace\" in the target's collectors?)" },

	/* ---- anti_pattern: confidence against the threshold (detected at >=) ---- */
	{ "one process is no GodProcess", FX_FIVE, RN_ASSERT_ANTI_PATTERN, RN_AGG_MEDIAN, false,
	  false, 0.5, "GodProcess", 0, 0,
	  "PASS 0 | GodProcess not detected: confidence 0.00 < threshold 0.50" },
	{ "threshold 0 always detects", FX_FIVE, RN_ASSERT_ANTI_PATTERN, RN_AGG_MEDIAN, false,
	  false, 0.0, "GodProcess", 0, 0,
	  "FAIL 0 | GodProcess detected with confidence 0.00 (threshold 0.00): spread the dominant "
	  "process's work over the idle processes, or drop the processes that only wait" },
	{ "no spool is NO DATA for TightLoop", FX_FIVE, RN_ASSERT_ANTI_PATTERN, RN_AGG_MEDIAN,
	  false, false, 0.5, "TightLoop", 0, 0,
	  "NO DATA - | TightLoop: no data: the spool was not enabled: TightLoop needs every "
	  "syscall span (statistics show no sched_yield storm)" },

	/* ---- instructions: tolerance over the budget ---- */
	{ "within the tolerance", FX_INSTR, RN_ASSERT_INSTRUCTIONS, RN_AGG_MEDIAN, false, false,
	  1000000, NULL, 0, 0.001,
	  "PASS 1000500 | 1000500 instructions <= budget 1000000 (+0.050%, tolerance 0.10%)" },
	{ "over without a tolerance", FX_INSTR, RN_ASSERT_INSTRUCTIONS, RN_AGG_MEDIAN, false, false,
	  1000000, NULL, 0, 0,
	  "FAIL 1000500 | 1000500 instructions > budget 1000000 (+0.050%, tolerance 0.00%)" },
	{ "no Valgrind run is NO DATA", FX_FIVE, RN_ASSERT_INSTRUCTIONS, RN_AGG_MEDIAN, false,
	  false, 1000000, NULL, 0, 0,
	  "NO DATA - | no instruction count (was the target run under Valgrind?)" },
};

/* The assertion of a case; regexes compiled anchored, as config.c compiles them. */
static void spec_of(const struct eval_case *c, struct rn_assertion_spec *a, struct rn_regex **re)
{
	memset(a, 0, sizeof(*a));
	a->name = (char *)c->what;
	a->type = c->type;
	a->line = 7;
	a->enabled = !c->disabled;
	a->fail_on_violation = !c->warn_only;
	a->aggregate = c->agg;
	switch (c->type) {
	case RN_ASSERT_CRITICAL_PATH:
		a->max_duration_ns = (uint64_t)llround(c->budget * (double)MS);
		break;
	case RN_ASSERT_SPAN_COUNT:
		a->span_name_pattern = (char *)c->pattern;
		assert_int_equal(rn_regex_compile(c->pattern, re, NULL), 0);
		a->span_re = *re;
		a->max_spans = (uint64_t)c->budget;
		break;
	case RN_ASSERT_MEMORY_USAGE:
		a->max_bytes = (uint64_t)c->budget;
		a->tracking_mode = c->mode;
		break;
	case RN_ASSERT_ANTI_PATTERN:
		a->pattern = (char *)c->pattern;
		a->threshold = c->budget;
		break;
	case RN_ASSERT_INSTRUCTIONS:
		a->max_instructions = (uint64_t)c->budget;
		a->tolerance = c->tolerance;
		break;
	default:
		fail_msg("no fixture for assertion type %d", (int)c->type);
	}
}

static void test_evaluate_verdict_lines(void **state)
{
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < sizeof(eval_cases) / sizeof(eval_cases[0]); i++) {
		const struct eval_case *c = &eval_cases[i];
		struct rn_target_result r;
		struct rn_assertion_spec a;
		struct rn_verdict_result v;
		struct rn_regex *re = NULL;
		char obs[64], line[1024];

		build_result(&r, &fixtures[c->fx]);
		spec_of(c, &a, &re);
		rn_assertion_evaluate(&a, &r, &v);
		if (v.has_observed)
			snprintf(obs, sizeof(obs), "%.10g", v.observed);
		else
			snprintf(obs, sizeof(obs), "-");
		snprintf(line, sizeof(line), "%s %s | %s", rn_verdict_label(v.verdict), obs,
			 v.message ? v.message : "(no message)");
		if (strcmp(line, c->line)) {
			print_error("%s:\n  expected: %s\n  got:      %s\n", c->what, c->line,
				    line);
			failures++;
		}
		/* Every verdict names its assertion, type, target and config line. */
		assert_string_equal(v.assertion, c->what);
		assert_string_equal(v.type, rn_assertion_type_name(c->type));
		assert_string_equal(v.target, fixtures[c->fx].name);
		assert_int_equal(v.config_line, 7);
		rn_verdict_result_release(&v);
		rn_regex_free(re);
		rn_target_result_release(&r);
	}
	assert_int_equal(failures, 0);
}

/* The verdict's numbers: budget in the unit, delta against it, the aggregate text. */
static void test_evaluate_fields(void **state)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_verdict_result v;
	struct rn_regex *re = NULL;

	(void)state;
	build_result(&r, &fixtures[FX_FIVE]);
	spec_of(&eval_cases[3], &a, &re); /* p95 critical path, budget 50 ms */
	rn_assertion_evaluate(&a, &r, &v);
	assert_string_equal(v.unit, "ms");
	assert_true(v.has_budget);
	assert_true(fabs(v.budget - 50.0) < 1e-9);
	assert_true(fabs(v.delta_pct - 100.0) < 1e-9);
	assert_string_equal(v.aggregate, "p95 of 5 runs");
	/* The chain of the last run: the root alone, 30 ms. */
	assert_non_null(v.detail);
	assert_non_null(strstr(v.detail, "chain of the last run (1 segment):\n"));
	assert_non_null(
		strstr(v.detail, "samples (5 runs): 10.000 20.000 100.000 40.000 30.000 ms"));
	rn_verdict_result_release(&v);
	rn_target_result_release(&r);
}

/*
 * On a loaded machine a time budget fails only when the runs' CPU time alone, which waiting for
 * a CPU does not raise, is beyond the drift limit over the budget (+50% by default, else
 * [regression] drift_limit): every run of FX_FIVE's critical path is over a 5 ms budget, and
 * the CPU time decides. A quiet machine judges the critical path alone.
 */
static void test_evaluate_budget_loaded(void **state)
{
	static const struct {
		double pressure;      /* cpu_pressure */
		double cpu_ms;        /* every run's CPU time */
		double drift;         /* configured drift_limit, < 0: none (the default) */
		enum rn_verdict want; /* the verdict */
		const char *says;     /* in its message */
	} cases[] = {
		{ 0.99, 6.0, -1, RN_VERDICT_WARN,
		  "inconclusive, not a gate: the machine was loaded (CPU pressure 99% of the runs' "
		  "time) and the runs' CPU time (6.000 ms on 1 CPU) stays within +50% of the budget" },
		{ 0.99, 8.0, -1, RN_VERDICT_FAIL,
		  "on a loaded machine (CPU pressure 99%) the runs' CPU time alone (8.000 ms on 1 CPU) "
		  "is beyond +50% over it" },
		{ 0.99, 8.0, 1.0, RN_VERDICT_WARN, "stays within +100% of the budget" },
		{ 0.02, 1.0, -1, RN_VERDICT_FAIL, "5 of 5 runs over it" },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rn_target_result r;
		struct rn_assertion_spec a;
		struct rn_verdict_result v;
		struct rn_regex *re = NULL;

		build_result(&r, &fixtures[FX_FIVE]);
		r.has_cpu_pressure = true;
		r.cpu_pressure = cases[i].pressure;
		for (k = 0; k < r.nruns; k++)
			r.runs[k].v[RN_METRIC_CPU_TIME] = (uint64_t)(cases[i].cpu_ms * (double)MS);
		spec_of(&eval_cases[4], &a, &re); /* median, budget 5 ms */
		a.has_drift_limit = cases[i].drift >= 0.0;
		a.drift_limit = cases[i].drift;
		rn_assertion_evaluate(&a, &r, &v);
		assert_int_equal(v.verdict, cases[i].want);
		if (!strstr(v.message, cases[i].says))
			fail_msg("case %zu: '%s' lacks '%s'", i, v.message, cases[i].says);
		rn_verdict_result_release(&v);
		rn_target_result_release(&r);
		rn_regex_free(re);
	}
}

/* The order-statistic bound: the largest k with P(Binomial(n, q) >= k) >= 1 - alpha. */
static void test_quantile_lower(void **state)
{
	static const double x[] = { 50, 10, 40, 20, 30, 70, 60 };
	size_t k;

	(void)state;
	/* median of 5 at 95%: P(B(5, .5) >= 1) = 31/32, P(>= 2) = 26/32: the smallest */
	assert_true(rn_stats_quantile_lower(x, 5, 0.5, 0.05, &k) == 10.0);
	assert_int_equal(k, 1);
	/* at 99% five runs bound nothing; seven do (P(B(7, .5) >= 1) = 127/128) */
	assert_true(isinf(rn_stats_quantile_lower(x, 5, 0.5, 0.01, &k)));
	assert_int_equal(k, 0);
	assert_true(rn_stats_quantile_lower(x, 7, 0.5, 0.01, &k) == 10.0);
	/* p95 of 5: P(B(5, .95) >= 4) = 0.977, P(>= 5) = 0.774: the 4th smallest */
	assert_true(rn_stats_quantile_lower(x, 5, 0.95, 0.05, &k) == 40.0);
	assert_int_equal(k, 4);
	/* the maximum is its own bound */
	assert_true(rn_stats_quantile_lower(x, 7, 1.0, 0.05, &k) == 70.0);
}

/* An anti_pattern whose process_name_pattern names no process of the run looked at nothing:
 * NO DATA, never "not detected"; one that names the process is judged. */
static void test_anti_pattern_process_filter(void **state)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_verdict_result v;
	struct rn_regex *re = NULL;

	(void)state;
	build_result(&r, &fixtures[FX_FIVE]);
	spec_of(&eval_cases[0], &a, &re);
	a.type = RN_ASSERT_ANTI_PATTERN;
	a.pattern = (char *)"GodProcess";
	a.threshold = 0.5;
	a.process_name_pattern = (char *)"nomatch";
	assert_int_equal(rn_regex_compile("nomatch", &re, NULL), 0);
	a.process_re = re;
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_NO_DATA);
	assert_string_equal(v.message,
			    "GodProcess: no process of the run matches "
			    "process_name_pattern /nomatch/");
	rn_verdict_result_release(&v);
	rn_regex_free(re);
	a.process_name_pattern = (char *)"ap+";
	assert_int_equal(rn_regex_compile("ap+", &re, NULL), 0);
	a.process_re = re;
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	rn_verdict_result_release(&v);
	rn_regex_free(re);
	rn_target_result_release(&r);
}

/* A pattern that gave up on a name at the match limit leaves the count unknown: ERROR. */
static void test_evaluate_pattern_gave_up(void **state)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_verdict_result v;
	struct rn_regex *re = NULL;
	char run[64];

	(void)state;
	build_result(&r, &fixtures[FX_FIVE]);
	spec_of(&eval_cases[0], &a, &re);
	a.type = RN_ASSERT_SPAN_COUNT;
	a.span_name_pattern = (char *)"(a|aa)*(b|c)";
	assert_int_equal(rn_regex_compile(a.span_name_pattern, &re, NULL), 0);
	a.span_re = re;
	a.max_spans = 1000;
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_NO_DATA); /* names no syscall of the run */
	rn_verdict_result_release(&v);
	memset(run, 'a', sizeof(run) - 1);
	run[sizeof(run) - 1] = '\0';
	assert_false(rn_regex_match(re, run)); /* gives up: 2^63 ways to split the run */
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_ERROR);
	assert_non_null(strstr(v.message, "pattern '(a|aa)*(b|c)' gave up"));
	rn_verdict_result_release(&v);
	rn_regex_free(re);
	rn_target_result_release(&r);
}

/* ---- critical path: (process tree) -> chain ------------------------------------------------ */

/* One process of a tree: times in ms from T0; indices into the same table. */
struct proc_fx {
	const char *comm;
	int parent; /* index, -1 for the root */
	double start_ms;
	double end_ms;    /* 0: still running at the end of the trace */
	int reaped_by;    /* index of the process whose wait reaped it, -1 if none */
	double reaped_ms; /* when */
};

struct cp_case {
	const char *what;
	size_t nprocs;
	struct proc_fx procs[6];
	double trace_end_ms; /* end of the trace (the run), ms */
	const char *chain;   /* "comm start-end, ..." in ms, time order */
	double length_ms;
};

static const struct cp_case cp_cases[] = {
	{ "one process", 1, { { "a", -1, 0, 100, -1, 0 } }, 100, "a 0-100", 100 },
	{ "nested waits descend into each waited-for child",
	  4,
	  { { "root", -1, 0, 100, -1, 0 },
	    { "A", 0, 10, 60, 0, 60 },
	    { "B", 0, 65, 90, -1, 0 }, /* never waited for: off the path */
	    { "C", 1, 20, 50, 1, 50 } },
	  100,
	  "root 0-10, A 10-20, C 20-50, A 50-60, root 60-100",
	  100 },
	{ "of two children waited for, the one that ended last",
	  3,
	  { { "root", -1, 0, 100, -1, 0 }, { "A", 0, 10, 50, 0, 50 }, { "B", 0, 10, 80, 0, 85 } },
	  100,
	  "root 0-10, B 10-80, root 80-100",
	  100 },
	{ "sequential children are both on the path",
	  3,
	  { { "sh", -1, 0, 100, -1, 0 }, { "cc", 0, 10, 40, 0, 40 }, { "ld", 0, 45, 90, 0, 90 } },
	  100,
	  "sh 0-10, cc 10-40, sh 40-45, ld 45-90, sh 90-100",
	  100 },
	{ "a child reaped after the root's end is not waited for",
	  2,
	  { { "root", -1, 0, 100, -1, 0 }, { "late", 0, 10, 95, 0, 110 } },
	  120,
	  "root 0-100",
	  100 },
	{ "a root still running ends with the trace",
	  1,
	  { { "srv", -1, 0, 0, -1, 0 } },
	  120,
	  "srv 0-120",
	  120 },
	{ "no process, no path", 0, { { 0 } }, 0, "", 0 },
};

static void build_tree(struct rn_trace *t, const struct cp_case *c)
{
	size_t i;

	rn_trace_init(t);
	t->start_ns = T0;
	t->end_ns = T0 + (uint64_t)(c->trace_end_ms * (double)MS);
	for (i = 0; i < c->nprocs; i++) {
		const struct proc_fx *f = &c->procs[i];
		struct rn_process *p =
			rn_trace_add_process(t, (pid_t)(100 + i),
					     f->parent < 0 ? 0 : (pid_t)(100 + f->parent),
					     T0 + (uint64_t)(f->start_ms * (double)MS));

		rn_process_set_exe(p, f->comm);
		p->end_ns = f->end_ms ? T0 + (uint64_t)(f->end_ms * (double)MS) : 0;
		p->reaped_by = f->reaped_by;
		p->reaped_ns = f->reaped_by >= 0 ? T0 + (uint64_t)(f->reaped_ms * (double)MS) : 0;
	}
}

static void test_critical_path_chains(void **state)
{
	size_t i, k;
	int failures = 0;

	(void)state;
	for (i = 0; i < sizeof(cp_cases) / sizeof(cp_cases[0]); i++) {
		const struct cp_case *c = &cp_cases[i];
		struct rn_trace t;
		struct rn_critical_path cp;
		char chain[512] = "";
		size_t o = 0;

		build_tree(&t, c);
		rn_critical_path_compute(&t, &cp);
		for (k = 0; k < cp.nsegments; k++) {
			const struct rn_cp_segment *s = &cp.segments[k];

			o += (size_t)snprintf(chain + o, sizeof(chain) - o, "%s%s %g-%g",
					      k ? ", " : "", t.procs[s->proc].comm,
					      (double)(s->start_ns - T0) / (double)MS,
					      (double)(s->end_ns - T0) / (double)MS);
			assert_true(o < sizeof(chain));
			/* segments are in time order and never empty */
			assert_true(s->end_ns > s->start_ns);
			if (k)
				assert_true(s->start_ns >= cp.segments[k - 1].end_ns);
		}
		if (strcmp(chain, c->chain) ||
		    fabs((double)cp.length_ns / (double)MS - c->length_ms) > 1e-9) {
			print_error("%s:\n  expected: %s (%g ms)\n  got:      %s (%g ms)\n",
				    c->what, c->chain, c->length_ms, chain,
				    (double)cp.length_ns / (double)MS);
			failures++;
		}
		rn_critical_path_release(&cp);
		assert_int_equal(cp.nsegments, 0);
		rn_trace_release(&t);
	}
	assert_int_equal(failures, 0);
}

/* The critical path metric of a run is the path's length, not the wall time. */
static void test_critical_path_metric(void **state)
{
	struct rn_trace t;
	struct rn_metrics m;

	(void)state;
	build_tree(&t, &cp_cases[4]); /* root 0-100, trace to 120 */
	rn_metrics_from_trace(&t, &m);
	assert_int_equal(m.v[RN_METRIC_CRITICAL_PATH], 100 * MS);
	assert_int_equal(m.v[RN_METRIC_WALL], 120 * MS);
	assert_int_equal(m.v[RN_METRIC_PROCESSES], 2);
	rn_trace_release(&t);
}

/* ---- aggregates: (samples, aggregate) -> value --------------------------------------------- */

struct agg_case {
	size_t n;
	double s[20];
	enum rn_aggregate agg;
	double want;
};

static const struct agg_case agg_cases[] = {
	{ 1, { 7 }, RN_AGG_MEDIAN, 7 },
	{ 1, { 7 }, RN_AGG_P95, 7 },
	{ 3, { 3, 1, 2 }, RN_AGG_MEDIAN, 2 },      /* order does not matter */
	{ 4, { 4, 1, 3, 2 }, RN_AGG_MEDIAN, 2.5 }, /* even: mean of the middle two */
	{ 4, { 4, 1, 3, 2 }, RN_AGG_MIN, 1 },
	{ 4, { 4, 1, 3, 2 }, RN_AGG_MAX, 4 },
	{ 5, { 10, 20, 100, 40, 30 }, RN_AGG_P95, 100 },           /* rank ceil(4.75) = 5 */
	{ 10, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, RN_AGG_P95, 10 }, /* rank ceil(9.5) */
	{ 20,
	  { 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 },
	  RN_AGG_P95,
	  19 }, /* rank 19 */
	{ 20,
	  { 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 },
	  RN_AGG_MEDIAN,
	  10.5 },
	{ 0, { 0 }, RN_AGG_MAX, 0 }, /* no samples: 0 */
};

static void test_aggregates(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(agg_cases) / sizeof(agg_cases[0]); i++) {
		const struct agg_case *c = &agg_cases[i];
		double copy[20];
		double got;

		memcpy(copy, c->s, sizeof(copy));
		got = rn_aggregate(c->s, c->n, c->agg);
		if (got != c->want)
			fail_msg("case %zu: %s of %zu samples = %g, expected %g", i,
				 rn_aggregate_name(c->agg), c->n, got, c->want);
		/* the samples are not modified */
		assert_memory_equal(copy, c->s, sizeof(copy));
	}
	assert_string_equal(rn_aggregate_name(RN_AGG_MEDIAN), "median");
	assert_string_equal(rn_aggregate_name(RN_AGG_P95), "p95");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evaluate_verdict_lines),
		cmocka_unit_test(test_evaluate_fields),
		cmocka_unit_test(test_evaluate_budget_loaded),
		cmocka_unit_test(test_quantile_lower),
		cmocka_unit_test(test_anti_pattern_process_filter),
		cmocka_unit_test(test_evaluate_pattern_gave_up),
		cmocka_unit_test(test_critical_path_chains),
		cmocka_unit_test(test_critical_path_metric),
		cmocka_unit_test(test_aggregates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
