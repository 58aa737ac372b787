/*
 * test_verdicts.c - every route to NOT JUDGED and to INCONCLUSIVE (WARN) of a golden comparison,
 * data-driven: a fixture (golden samples, new samples, machine load, configuration) and the
 * comparison it judges -> the exact verdict line ("VERDICT reason") the console prints.
 * Also the statistical feasibility of run counts against alpha.
 *
 * Golden traces are built in memory (no file, no tracing), recorded "on this machine" so that
 * the other-machine downgrade stays out of the way.
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

#include "golden.h"

/* Up to this many runs on a side. */
#define MAXRUNS 12

/* Small deterministic offsets, ms, around a base: a quiet machine's run-to-run noise. */
static const double quiet[MAXRUNS] = { 0.0,  1.0, -1.0, 2.0, -2.0, 0.5,
				       -0.5, 1.5, -1.5, 0.2, -0.2, 0.7 };

struct tcase {
	const char *what;       /* the route */
	size_t ngold;           /* golden runs */
	double gold_wall_ms;    /* golden wall time (and critical path) base, ms */
	const double *gold_raw; /* explicit golden wall samples [ngold], ms, or NULL for base+quiet */
	double gold_cpu_ms;     /* cpu_time of every golden run, ms (0: not recorded) */
	double gold_rss;        /* peak_rss of every golden run, bytes */
	size_t nnow;            /* measured runs */
	double now_wall_ms;     /* measured wall time base, ms */
	double now_cpu_ms;      /* cpu_time of every measured run, ms */
	double now_rss;         /* peak_rss, bytes */
	double pressure;        /* CPU pressure during the runs, [0,1]; < 0: unknown */
	unsigned min_runs;      /* min_runs_for_timing, 0: default (5) */
	const char *off;        /* a comparison left out of [golden] metrics, or NULL */
	const char *tol_name;   /* a comparison with its own tolerance, or NULL */
	double tol;             /* that tolerance */
	const char *metric;     /* the verdict looked at ("golden:wall_time") */
	const char *line;       /* the expected "VERDICT reason" */
	double syscalls;        /* syscalls of every golden run (0: none recorded) */
};

static const double noisy_golden[10] = { 100, 60, 140, 80, 120, 100, 70, 130, 90, 110 };

static const struct tcase cases[] = {
	/* ---- NOT JUDGED ---- */
	{ "few measured runs", 10, 100, NULL, 10, 0, 3, 200, 10, 0, -1, 0, NULL, NULL, 0,
	  "golden:wall_time", "NOT JUDGED 3 measured runs < min_runs_for_timing 5", 0 },
	{ "few golden runs", 3, 100, NULL, 10, 0, 10, 200, 10, 0, -1, 0, NULL, NULL, 0,
	  "golden:wall_time", "NOT JUDGED 3 golden runs < min_runs_for_timing 5", 0 },
	{ "runs = 1 on both sides (the default)", 1, 100, NULL, 10, 0, 1, 540, 10, 0, -1, 0, NULL,
	  NULL, 0, "golden:cpu_time", "NOT JUDGED 1 measured run < min_runs_for_timing 5", 0 },
	{ "3 runs against a 5-run golden can never reach alpha 0.01", 5, 100, NULL, 10, 0, 3, 500,
	  10, 0, -1, 3, NULL, NULL, 0, "golden:wall_time",
	  "NOT JUDGED 3 runs vs 5 golden runs can never reach alpha 0.01 (smallest p 0.0179)", 0 },
	{ "4 against 4 cannot either", 4, 100, NULL, 10, 0, 4, 500, 10, 0, -1, 4, NULL, NULL, 0,
	  "golden:critical_path",
	  "NOT JUDGED 4 runs vs 4 golden runs can never reach alpha 0.01 (smallest p 0.0143)", 0 },
	{ "golden without cpu_time", 10, 100, NULL, 0, 0, 5, 100, 50, 0, -1, 0, NULL, NULL, 0,
	  "golden:cpu_time", "NOT JUDGED the golden trace has no cpu_time data", 0 },
	{ "golden without peak_rss", 10, 100, NULL, 10, 0, 5, 100, 10, 5 << 20, -1, 0, NULL, NULL,
	  0, "golden:peak_rss", "NOT JUDGED golden has no peak_rss data", 0 },

	/* ---- INCONCLUSIVE (WARN) ---- */
	{ "a noisy golden: the interval takes its spread in, and is still beyond", 10, 0,
	  noisy_golden, 10, 0, 5, 150, 10, 0, 0, 0, NULL, NULL, 0, "golden:wall_time",
	  "FAIL slower: CI [+19.0%, +81.0%] beyond +10%", 0 },
	{ "loaded machine, no speed probe: advisory", 10, 100, NULL, 10, 0, 5, 130, 10, 0, 1.0, 0,
	  NULL, NULL, 0, "golden:wall_time", "WARN advisory: conditions differ", 0 },
	{ "cpu_time +30% on a loaded machine: advisory, within the drift limit", 10, 100, NULL, 100,
	  0, 5, 100, 130, 0, 1.0, 0, NULL, NULL, 0, "golden:cpu_time",
	  "WARN advisory: conditions differ", 0 },
	{ "syscall-heavy cpu_time, loaded: advisory", 10, 100, NULL, 100, 0, 5, 100, 130, 0, 1.0, 0,
	  NULL, NULL, 0, "golden:cpu_time", "WARN advisory: conditions differ", 8000 },
	{ "cpu_time 2x on a loaded machine: beyond any drift", 10, 100, NULL, 100, 0, 5, 100, 200,
	  0, 1.0, 0, NULL, NULL, 0, "golden:cpu_time", "FAIL slower beyond any drift: >= +100.0%",
	  300 },
	{ "quiet machine, wall +50% with the same cpu_time: the program waits more", 10, 100, NULL,
	  90, 0, 5, 150, 90, 0, 0, 0, NULL, NULL, 0, "golden:wall_time",
	  "FAIL slower: CI [+47.8%, +51.9%] beyond +10%", 0 },
	{ "loaded, wall 2.5x with the same cpu_time: waiting, which load explains", 10, 100, NULL,
	  10, 0, 5, 250, 10, 0, 0.3, 0, NULL, NULL, 0, "golden:wall_time",
	  "WARN advisory: conditions differ", 0 },
	{ "a straddling interval is never a PASS", 10, 100, NULL, 10, 0, 5, 110, 10, 0, 0, 0, NULL,
	  NULL, 0, "golden:wall_time", "WARN inconclusive: CI [+7.8%, +12.0%] straddles +10%", 0 },

	/* ---- the same data deciding (controls) ---- */
	{ "I/O-bound on a quiet machine: its own time", 10, 100, NULL, 10, 0, 5, 130, 10, 0, 0, 0,
	  NULL, NULL, 0, "golden:wall_time", "FAIL slower: CI [+27.8%, +32.0%] beyond +10%", 0 },
	{ "loaded, cpu_time regressed too", 10, 100, NULL, 90, 0, 5, 250, 200, 0, 0.3, 0, NULL,
	  NULL, 0, "golden:wall_time", "FAIL slower beyond any drift: >= +147.7%", 0 },
	{ "unchanged: shown within the tolerance", 10, 100, NULL, 10, 0, 5, 100, 10, 0, 0, 0, NULL,
	  NULL, 0, "golden:wall_time", "PASS within +10%: CI [-2.2%, +2.0%]", 0 },
	{ "left out of [golden] metrics", 10, 100, NULL, 10, 0, 5, 500, 10, 0, 0, 0, "wall_time",
	  NULL, 0, "golden:wall_time", "SKIP not in [golden] metrics", 0 },
	{ "a per-metric tolerance", 10, 100, NULL, 10, 0, 5, 130, 10, 0, 0, 0, NULL, "wall_time",
	  0.5, "golden:wall_time", "PASS within +50%: CI [+27.8%, +32.0%]", 0 },
};

static double *samples(size_t n, double base_ms, const double *raw)
{
	double *s = calloc(n ? n : 1, sizeof(*s));
	size_t i;

	assert_non_null(s);
	for (i = 0; i < n; i++)
		s[i] = (raw ? raw[i] : base_ms + quiet[i]) * 1e6;
	return s;
}

static void build_golden(const struct tcase *t, struct rn_golden *g)
{
	struct rn_golden_host h;
	size_t i;

	memset(g, 0, sizeof(*g));
	rn_golden_host(&h);
	g->version = 1;
	g->target = strdup("t");
	g->cpu_model = strdup(h.cpu_model);
	g->kernel = strdup(h.kernel);
	g->machine = strdup(h.machine);
	g->nruns = t->ngold;
	g->samples[RN_METRIC_WALL] = samples(t->ngold, t->gold_wall_ms, t->gold_raw);
	g->samples[RN_METRIC_CRITICAL_PATH] = samples(t->ngold, t->gold_wall_ms, t->gold_raw);
	g->samples[RN_METRIC_CPU_TIME] = calloc(t->ngold, sizeof(double));
	g->samples[RN_METRIC_PEAK_RSS] = calloc(t->ngold, sizeof(double));
	if (t->syscalls > 0.0) {
		g->samples[RN_METRIC_SYSCALLS] = calloc(t->ngold, sizeof(double));
		for (i = 0; i < t->ngold; i++)
			g->samples[RN_METRIC_SYSCALLS][i] = t->syscalls;
	}
	for (i = 0; i < t->ngold; i++) {
		g->samples[RN_METRIC_CPU_TIME][i] = t->gold_cpu_ms * 1e6;
		g->samples[RN_METRIC_PEAK_RSS][i] = t->gold_rss;
	}
}

static void build_result(const struct tcase *t, struct rn_target_result *r)
{
	size_t i;

	rn_target_result_init(r, "t");
	r->status = RN_RUN_OK;
	r->nruns = t->nnow;
	r->runs = calloc(t->nnow, sizeof(*r->runs));
	assert_non_null(r->runs);
	for (i = 0; i < t->nnow; i++) {
		double w = (t->now_wall_ms + quiet[i]) * 1e6;

		r->runs[i].v[RN_METRIC_WALL] = (uint64_t)w;
		r->runs[i].v[RN_METRIC_CRITICAL_PATH] = (uint64_t)w;
		r->runs[i].v[RN_METRIC_CPU_TIME] = (uint64_t)(t->now_cpu_ms * 1e6);
		r->runs[i].v[RN_METRIC_PEAK_RSS] = (uint64_t)t->now_rss;
	}
	r->has_cpu_pressure = t->pressure >= 0.0;
	r->cpu_pressure = t->pressure >= 0.0 ? t->pressure : 0.0;
}

static void test_verdict_lines(void **state)
{
	size_t k, failures = 0;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct tcase *t = &cases[k];
		struct rn_regression_cfg cfg;
		struct rn_golden g;
		struct rn_target_result r;
		struct rn_verdict_result *v = NULL;
		size_t n = 0, i;
		char line[512] = "(no verdict)";

		rn_regression_cfg_init(&cfg);
		if (t->min_runs)
			cfg.min_runs_for_timing = t->min_runs;
		if (t->off)
			cfg.judged[rn_golden_check_lookup(t->off)] = false;
		if (t->tol_name)
			cfg.tolerance[rn_golden_check_lookup(t->tol_name)] = t->tol;
		build_golden(t, &g);
		build_result(t, &r);
		assert_int_equal(rn_golden_compare(&g, "golden_traces/t.json", &r, &cfg, &v, &n),
				 0);
		for (i = 0; i < n; i++) {
			if (strcmp(v[i].assertion, t->metric))
				continue;
			snprintf(line, sizeof(line), "%s %s", rn_verdict_label(v[i].verdict),
				 v[i].reason ? v[i].reason : "(no reason)");
			/* Whatever the route, the message says it and never reads as a pass. */
			assert_non_null(v[i].message);
			if (v[i].verdict == RN_VERDICT_NOT_JUDGED) {
				assert_non_null(strstr(v[i].message, "not judged: "));
				assert_non_null(strstr(v[i].message, "to judge it: "));
			}
			if (v[i].verdict == RN_VERDICT_WARN)
				assert_non_null(strstr(v[i].message, " (WARN)"));
		}
		if (strcmp(line, t->line)) {
			fprintf(stderr, "case '%s':\n  expected: %s\n  got:      %s\n", t->what,
				t->line, line);
			failures++;
		}
		for (i = 0; i < n; i++)
			rn_verdict_result_release(&v[i]);
		free(v);
		rn_golden_release(&g);
		rn_target_result_release(&r);
	}
	assert_int_equal(failures, 0);
}

/* What to change is named: the measured runs, the golden runs, or both. */
static void test_not_judged_says_what_to_change(void **state)
{
	static const struct {
		size_t ngold, nnow;
		const char *fix;
	} rows[] = {
		{ 10, 1, "to judge it: runs >= 5 in [[target]] 't' (or --runs 5)" },
		{ 1, 10,
		  "to judge it: re-record the golden trace with >= 5 runs ([golden] runs, then "
		  "renacer golden update)" },
		{ 1, 1,
		  "to judge it: runs >= 5 in [[target]] 't' (or --runs 5), and a golden trace "
		  "of >= 5 runs ([golden] runs, then renacer golden update)" },
	};
	size_t k, i;

	(void)state;
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct tcase t = cases[0];
		struct rn_regression_cfg cfg;
		struct rn_golden g;
		struct rn_target_result r;
		struct rn_verdict_result *v = NULL;
		size_t n = 0;
		bool seen = false;

		t.ngold = rows[k].ngold;
		t.nnow = rows[k].nnow;
		rn_regression_cfg_init(&cfg);
		build_golden(&t, &g);
		build_result(&t, &r);
		assert_int_equal(rn_golden_compare(&g, "g.json", &r, &cfg, &v, &n), 0);
		for (i = 0; i < n; i++) {
			if (!strcmp(v[i].assertion, "golden:wall_time")) {
				assert_int_equal(v[i].verdict, RN_VERDICT_NOT_JUDGED);
				assert_non_null(strstr(v[i].message, rows[k].fix));
				seen = true;
			}
			rn_verdict_result_release(&v[i]);
		}
		assert_true(seen);
		free(v);
		rn_golden_release(&g);
		rn_target_result_release(&r);
	}
}

/* A syscall never seen in the golden trace, once: FAIL, whatever count_floor allows. */
static void test_new_syscall_fails(void **state)
{
	struct tcase t = cases[0];
	struct rn_regression_cfg cfg;
	struct rn_golden g;
	struct rn_target_result r;
	struct rn_verdict_result *v = NULL;
	size_t n = 0, i, nt = (size_t)rn_syscall_table_size();
	bool seen = false;

	(void)state;
	t.nnow = 5;
	rn_regression_cfg_init(&cfg);
	cfg.count_floor = 100;
	build_golden(&t, &g);
	g.syscalls = calloc(1, sizeof(*g.syscalls));
	g.syscalls[0].name = strdup("read");
	g.syscalls[0].calls = 10;
	g.nsyscalls = 1;
	build_result(&t, &r);
	r.syscall_calls = calloc(nt, sizeof(double));
	r.syscall_calls[rn_syscall_lookup("read")] = 10;
	r.syscall_calls[rn_syscall_lookup("sync")] = 1;
	assert_int_equal(rn_golden_compare(&g, "g.json", &r, &cfg, &v, &n), 0);
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].assertion, "golden:syscall_counts")) {
			assert_int_equal(v[i].verdict, RN_VERDICT_FAIL);
			assert_string_equal(
				v[i].reason,
				"sync is new; 1 syscall failed (1 new, 0 grew beyond +10%)");
			seen = true;
		}
		rn_verdict_result_release(&v[i]);
	}
	assert_true(seen);
	free(v);
	rn_golden_release(&g);
	rn_target_result_release(&r);
}

/* A syscall seen in one golden run of three (median 0) is in the golden trace, so a check that
 * sees it once is not "new": sporadic calls do not false-alarm. */
static void test_sporadic_syscall_is_not_new(void **state)
{
	static const char *const argv[] = { "t", NULL };
	size_t nt = (size_t)rn_syscall_table_size(), k, i, n = 0;
	int getpid_nr = rn_syscall_lookup("getpid"), read_nr = rn_syscall_lookup("read");
	struct rn_target_result r, now;
	struct rn_regression_cfg cfg;
	struct rn_verdict_result *v = NULL;
	struct rn_golden g;
	struct rn_diag d;
	bool seen = false;

	(void)state;
	rn_target_result_init(&r, "t");
	r.status = RN_RUN_OK;
	r.nruns = 3;
	r.runs = calloc(3, sizeof(*r.runs));
	r.syscall_samples = calloc(3 * 3, sizeof(*r.syscall_samples));
	r.nsyscall_runs = 3; /* per-run counts are those of counting runs */
	r.syscall_calls = calloc(nt, sizeof(double));
	r.syscall_errors = calloc(nt, sizeof(double));
	r.syscall_ns = calloc(nt, sizeof(double));
	for (k = 0; k < 3 * 3; k++)
		r.syscall_samples[k] = calloc(nt, sizeof(uint64_t));
	for (k = 0; k < 3; k++) {
		r.runs[k].v[RN_METRIC_SYSCALLS] = 10 + (k == 1);
		r.syscall_samples[3 * k][read_nr] = 10;
	}
	r.syscall_samples[3 * 1][getpid_nr] = 1; /* run 2 only */
	r.syscall_calls[read_nr] = 10;
	assert_int_equal(rn_golden_write(RN_BINARY_DIR "/test_verdicts_sporadic.json", &r, argv,
					 &d),
			 0);
	assert_int_equal(rn_golden_read(RN_BINARY_DIR "/test_verdicts_sporadic.json", &g, &d), 0);
	for (i = 0; i < g.nsyscalls; i++)
		if (!strcmp(g.syscalls[i].name, "getpid")) {
			assert_true(g.syscalls[i].calls == 0.0);
			seen = true;
		}
	assert_true(seen);

	rn_target_result_init(&now, "t");
	now.status = RN_RUN_OK;
	now.nruns = 1;
	now.runs = calloc(1, sizeof(*now.runs));
	now.runs[0].v[RN_METRIC_SYSCALLS] = 11;
	now.syscall_calls = calloc(nt, sizeof(double));
	now.syscall_calls[read_nr] = 10;
	now.syscall_calls[getpid_nr] = 1;
	rn_regression_cfg_init(&cfg);
	assert_int_equal(rn_golden_compare(&g, "g.json", &now, &cfg, &v, &n), 0);
	seen = false;
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].assertion, "golden:syscall_counts")) {
			assert_int_equal(v[i].verdict, RN_VERDICT_PASS);
			seen = true;
		}
		rn_verdict_result_release(&v[i]);
	}
	assert_true(seen);
	free(v);
	rn_golden_release(&g);
	rn_target_result_release(&now);
	rn_target_result_release(&r);
}

/* Per-run counts: futex 10, 40, 40 against a golden 10 grew in some runs only (scheduling);
 * 40, 40, 40 grew in every run and fails. */
static void test_count_growth_in_every_run(void **state)
{
	static const uint64_t runs_some[3] = { 10, 40, 40 }, runs_all[3] = { 40, 40, 40 };
	const uint64_t *which[2] = { runs_some, runs_all };
	static const enum rn_verdict want[2] = { RN_VERDICT_PASS, RN_VERDICT_FAIL };
	size_t nt = (size_t)rn_syscall_table_size(), k, i, w, n;
	int futex = rn_syscall_lookup("futex");
	struct tcase t = cases[0];
	struct rn_regression_cfg cfg;
	struct rn_golden g;

	(void)state;
	t.ngold = 5;
	t.nnow = 3;
	rn_regression_cfg_init(&cfg);
	for (w = 0; w < 2; w++) {
		struct rn_target_result r;
		struct rn_verdict_result *v = NULL;
		bool seen = false;

		build_golden(&t, &g);
		g.syscalls = calloc(1, sizeof(*g.syscalls));
		g.syscalls[0].name = strdup("futex");
		g.syscalls[0].calls = 10;
		g.nsyscalls = 1;
		build_result(&t, &r);
		r.syscall_calls = calloc(nt, sizeof(double));
		r.syscall_calls[futex] = 40; /* the median */
		r.syscall_samples = calloc(3 * 3, sizeof(*r.syscall_samples));
		r.nsyscall_runs = 3; /* three counting runs */
		for (k = 0; k < 3 * 3; k++)
			r.syscall_samples[k] = calloc(nt, sizeof(uint64_t));
		for (k = 0; k < 3; k++)
			r.syscall_samples[3 * k][futex] = which[w][k];
		n = 0;
		assert_int_equal(rn_golden_compare(&g, "g.json", &r, &cfg, &v, &n), 0);
		for (i = 0; i < n; i++) {
			if (!strcmp(v[i].assertion, "golden:syscall_counts")) {
				assert_int_equal(v[i].verdict, want[w]);
				assert_non_null(strstr(v[i].detail,
						       w ? "FAIL" : "ok (grew in some runs only)"));
				seen = true;
			}
			rn_verdict_result_release(&v[i]);
		}
		assert_true(seen);
		free(v);
		rn_golden_release(&g);
		rn_target_result_release(&r);
	}
}

/* The smallest p of the rank test: 1 / C(na + nb, na); feasible only below alpha. */
static void test_feasibility(void **state)
{
	(void)state;
	assert_false(rn_golden_timing_feasible(5, 3, 0.01));  /* 1/56 = 0.0179 */
	assert_true(rn_golden_timing_feasible(5, 4, 0.01));   /* 1/126 */
	assert_false(rn_golden_timing_feasible(4, 4, 0.01));  /* 1/70 */
	assert_true(rn_golden_timing_feasible(5, 5, 0.01));   /* 1/252 */
	assert_false(rn_golden_timing_feasible(3, 3, 0.05));  /* 1/20 = 0.05, not < 0.05 */
	assert_true(rn_golden_timing_feasible(10, 2, 0.05));  /* 1/66 */
	assert_false(rn_golden_timing_feasible(10, 1, 0.05)); /* 1/11 */
	assert_false(rn_golden_timing_feasible(0, 10, 0.5));
	assert_true(rn_golden_timing_feasible(60, 60, 1e-9)); /* normal approximation */
	assert_int_equal(rn_golden_timing_min_runs(5, 3, 0.01), 4);
	assert_int_equal(rn_golden_timing_min_runs(5, 1, 0.01), 4);
	assert_int_equal(rn_golden_timing_min_runs(10, 1, 0.01), 3); /* 1/286 */
	/* One golden run: exactly 1/(n+1), which needs n = 100; beyond RN_STATS_EXACT_MAX the test
	 * is the normal approximation, which never gets below 0.04 with one run on a side. */
	assert_int_equal(rn_golden_timing_min_runs(1, 1, 0.01), 0);
	assert_int_equal(rn_golden_timing_min_runs(1, 1, 0.05), 20);
	assert_int_equal(rn_golden_timing_min_runs(0, 1, 0.01), 0);
}

/* The robust spread the noise report and the INCONCLUSIVE rule use. */
static void test_spread(void **state)
{
	static const double x[] = { 100, 60, 140, 80, 120, 100, 70, 130, 90, 110 };
	static const double one[] = { 5 };

	(void)state;
	/* median 100, MAD 20: 1.4826 * 20 / 100 */
	assert_true(fabs(rn_golden_spread(x, 10) - 0.29652) < 1e-9);
	assert_true(rn_golden_spread(one, 1) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_lines),
		cmocka_unit_test(test_not_judged_says_what_to_change),
		cmocka_unit_test(test_new_syscall_fails),
		cmocka_unit_test(test_sporadic_syscall_is_not_new),
		cmocka_unit_test(test_count_growth_in_every_run),
		cmocka_unit_test(test_feasibility),
		cmocka_unit_test(test_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
