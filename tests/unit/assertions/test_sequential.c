/*
 * test_sequential.c - the look schedule, alpha spending and detection limits of adaptive
 * repeats (assertions/sequential.h), the error rates of the whole sequential procedure under
 * simulation, and the timing gate statement built from them (runner/report/timing_gate.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sequential.h"
#include "assertions/internal.h"
#include "runner/report/internal.h"
#include "stats.h"
#include "timing_gate.h"

static void test_seq_schedule(void **state)
{
	static const size_t want[] = { 10, 15, 22, 33, 49, 60 };
	struct rn_seq_design d = { 10, 60, 0.01 };
	size_t n = 0, i = 0;
	double spent = 0.0;

	(void)state;
	while ((n = rn_seq_next(&d, n))) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		assert_int_equal(n, want[i]);
		spent += rn_seq_alpha(&d, n);
		i++;
	}
	assert_int_equal(i, 6);
	/* Linear spending: all of alpha over the looks up to max, no more. */
	assert_float_equal(spent, 0.01, 1e-12);
	assert_float_equal(rn_seq_alpha(&d, 10), 0.01 * 10 / 60, 1e-15);
	assert_float_equal(rn_seq_alpha(&d, 15), 0.01 * 5 / 60, 1e-15);
	/* A look off the schedule spends as the scheduled one at or above it. */
	assert_float_equal(rn_seq_alpha(&d, 12), rn_seq_alpha(&d, 15), 1e-15);
	assert_float_equal(rn_seq_alpha(&d, 0), 0.0, 0);
	/* One look: all of alpha. */
	d.first = d.max = 7;
	assert_float_equal(rn_seq_alpha(&d, 7), 0.01, 1e-15);
	assert_int_equal(rn_seq_next(&d, 7), 0);
}

static void test_seq_paired_first(void **state)
{
	(void)state;
	/* 2^-10 = 0.00098 <= 0.01 * 10/60 = 0.00167; 2^-9 = 0.00195 > 0.0015 */
	assert_int_equal(rn_seq_paired_first(60, 0.01), 10);
	/* Five pairs at alpha 0.01 can never decide (the smallest p is 1/32). */
	assert_int_equal(rn_seq_paired_first(5, 0.01), 0);
	assert_int_equal(rn_seq_paired_first(7, 0.01), 7);
	assert_int_equal(rn_seq_paired_first(5, 0.05), 5);
}

static void test_seq_mde(void **state)
{
	struct rn_seq_design d = { 10, 60, 0.01 };
	double m10, m60;

	(void)state;
	/* No noise: the limit itself. */
	assert_float_equal(rn_seq_mde(3.0, 0.0, 10, 0.001, RN_SEQ_POWER), 3.0, 1e-12);
	m10 = rn_seq_mde(3.0, 10.0, 10, rn_seq_alpha(&d, 10), RN_SEQ_POWER);
	m60 = rn_seq_mde(3.0, 10.0, 60, rn_seq_alpha(&d, 60), RN_SEQ_POWER);
	assert_true(m60 < m10);
	assert_true(isinf(rn_seq_mde(3.0, 1.0, 0, 0.01, RN_SEQ_POWER)));
	/* (z(1 - 0.01) + z(0.8)) * sqrt(pi / 3) = (2.3263 + 0.8416) * 1.0233 = 3.2418 */
	assert_float_equal(rn_seq_mde(0.0, 1.0, 1, 0.01, RN_SEQ_POWER), 3.2418, 1e-3);
	/* The runs for an effect: the first look whose limit reaches it. */
	assert_int_equal(rn_seq_runs_for(1e9, 3.0, 10.0, 0, &d), 10);
	assert_int_equal(rn_seq_runs_for(3.0, 3.0, 10.0, 0, &d), 0);
	assert_true(rn_seq_runs_for(m60, 3.0, 10.0, 0, &d) <= 60);
}

/* xorshift64* and Box-Muller: reproducible normal noise */
static double gauss(uint64_t *s)
{
	double u1, u2;

	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	u1 = ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	u2 = ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* One sequential comparison of paired differences d ~ N(shift, 1) with limit L: -1 PASS,
 * +1 FAIL, 0 undecided at the last look. */
static int one_sequence(double shift, double L, uint64_t *seed)
{
	struct rn_seq_design des = { 10, 60, 0.01 };
	double d[60];
	size_t n = 0, have = 0;

	while ((n = rn_seq_next(&des, n))) {
		struct rn_walsh_ci ci;

		for (; have < n; have++)
			d[have] = shift + gauss(seed);
		rn_stats_walsh_ci(d, n, rn_seq_alpha(&des, n), &ci);
		if (ci.k && ci.lower > L)
			return 1;
		if (ci.k && ci.upper <= L)
			return -1;
	}
	return 0;
}

/*
 * The error rates over all looks stay at alpha: a true shift exactly at the limit (the worst
 * case for a false FAIL) fails in at most alpha of 4,000 sequences, and a shift of 2 noise
 * SDs beyond the limit passes in none; a shift well within the limit passes.
 */
/* The limit read off the deciding interval: its formula, and that it sees a two-mode noise
 * the normal model's MAD does not (30% of pairs 10 units off, the rest within +-0.05). */
static void test_seq_mde_interval(void **state)
{
	double d[20], z = rn_stats_normal_quantile(0.95), zp = rn_stats_normal_quantile(0.8);
	struct rn_walsh_ci ci;
	size_t i;

	(void)state;
	assert_true(fabs(rn_seq_mde_interval(1.0, 2.0, 4.0, 0.05, 0.8) - (2.0 + zp / z)) < 1e-9);
	assert_true(isinf(rn_seq_mde_interval(1.0, 4.0, 2.0, 0.05, 0.8)));
	assert_true(isinf(rn_seq_mde_interval(1.0, 2.0, 4.0, 0.0, 0.8)));
	for (i = 0; i < 20; i++)
		d[i] = i % 10 < 3 ? 10.0 : 0.01 * (double)(i % 10) - 0.05;
	rn_stats_walsh_ci(d, 20, 0.05, &ci);
	assert_true(ci.k > 0);
	assert_true(rn_seq_mde_interval(0.0, ci.lower, ci.upper, 0.05, 0.8) >
		    10.0 * rn_seq_mde(0.0, 1.4826 * rn_stats_mad(d, 20), 20.0, 0.05, 0.8));
}

static void test_seq_error_rates_by_simulation(void **state)
{
	uint64_t seed = 88172645463325252ull;
	size_t i, fails = 0, passes = 0, reps = 4000;

	(void)state;
	for (i = 0; i < reps; i++)
		fails += one_sequence(0.5, 0.5, &seed) == 1;
	assert_true((double)fails / (double)reps <= 0.01);
	for (i = 0; i < reps / 4; i++)
		passes += one_sequence(2.5, 0.5, &seed) == -1;
	assert_int_equal(passes, 0);
	passes = 0;
	for (i = 0; i < reps / 4; i++)
		passes += one_sequence(0.0, 1.0, &seed) == -1;
	assert_true(passes > reps / 4 * 9 / 10);
}

/* One paired sequence with the futility stop: 1 FAIL, -1 PASS, 0 undecided; `*pairs` the
 * pairs it measured. */
static int one_futile_sequence(double shift, double L, uint64_t *seed, size_t *pairs)
{
	struct rn_seq_design des = { 10, 60, 0.01 };
	double d[60];
	size_t n = 0, have = 0;

	while ((n = rn_seq_next(&des, n))) {
		struct rn_walsh_ci ci;
		double median;

		for (; have < n; have++)
			d[have] = shift + gauss(seed);
		*pairs = n;
		rn_stats_walsh_ci(d, n, rn_seq_alpha(&des, n), &ci);
		if (ci.k && ci.lower > L)
			return 1;
		if (ci.k && ci.upper <= L)
			return -1;
		median = rn_stats_median(d, n);
		if (ci.k && rn_seq_futile(&des, n, 0, median, ci.lower, ci.upper, L, true))
			return 0;
	}
	return 0;
}

/*
 * Futility: a shift at the limit stops early (undecided, never wrongly decided more often
 * than alpha), a shift far from it is still decided as often as without the stop; an advisory
 * row (can_pass false) is futile while its estimate cannot clear the bound.
 */
static void test_seq_futile(void **state)
{
	struct rn_seq_design des = { 10, 60, 0.01 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t i, reps = 2000, fails = 0, caught = 0, pairs = 0, spent = 0;

	(void)state;
	/* never at the first look: its estimate is the noisiest */
	assert_false(rn_seq_futile(&des, 10, 0, 5.0, 4.0, 6.0, 5.0, true));
	/* an interval of +-1 around an estimate on the limit: no look decides it */
	assert_true(rn_seq_futile(&des, 15, 0, 5.0, 4.0, 6.0, 5.0, true));
	/* far above the limit: a FAIL is within reach */
	assert_false(rn_seq_futile(&des, 15, 0, 9.0, 8.0, 10.0, 5.0, true));
	/* far below: a PASS is, unless the row cannot pass */
	assert_false(rn_seq_futile(&des, 15, 0, 1.0, 0.0, 2.0, 5.0, true));
	assert_true(rn_seq_futile(&des, 15, 0, 1.0, 0.0, 2.0, 5.0, false));
	/* against 10 reference runs more new runs shrink the interval less than paired ones */
	assert_true(rn_seq_futile(&des, 15, 10, 5.5, 3.0, 8.0, 5.0, true));
	assert_false(rn_seq_futile(&des, 15, 0, 5.5, 3.0, 8.0, 5.0, true));
	/* no look left: nothing to save */
	assert_false(rn_seq_futile(&des, 60, 0, 5.0, 4.0, 6.0, 5.0, true));
	for (i = 0; i < reps; i++) {
		fails += one_futile_sequence(0.5, 0.5, &seed, &pairs) == 1;
		spent += pairs;
	}
	assert_true((double)fails / (double)reps <= 0.01);
	/* at the limit the looks end before max_runs on average */
	if (!((double)spent / (double)reps < 50.0))
		fail_msg("futility saved nothing: %.1f pairs on average", (double)spent / reps);
	for (i = 0; i < reps / 4; i++)
		caught += one_futile_sequence(2.0, 0.5, &seed, &pairs) == 1;
	assert_true(caught > reps / 4 * 95 / 100);
}

static void verdict(struct rn_target_report *t, const char *type, const char *assertion,
		    enum rn_verdict v, double mde)
{
	struct rn_verdict_result *r = rn_target_report_push(t);

	r->type = strdup(type);
	r->assertion = strdup(assertion);
	r->target = strdup("t");
	r->unit = "ms";
	r->verdict = v;
	r->mde_pct = mde;
}

static void test_timing_gate_statement(void **state)
{
	struct rn_target_result r[2];
	struct rn_target_report t[2];
	struct rn_timing_gate g;
	char line[256], build[] = "build", xz[] = "xz";

	(void)state;
	memset(r, 0, sizeof(r));
	memset(t, 0, sizeof(t));
	r[0].name = build;
	r[1].name = xz;
	t[0].result = &r[0];
	t[1].result = &r[1];
	verdict(&t[0], "baseline", "baseline:cpu_time", RN_VERDICT_PASS, 4.2);
	verdict(&t[0], "baseline", "baseline:wall_time", RN_VERDICT_WARN, 30.0);
	verdict(&t[1], "regression", "golden:cpu_time", RN_VERDICT_FAIL, 7.5);
	/* a golden row left advisory beside the baseline row that decided its metric does not
	 * leave the metric open (b2sum: baseline:critical_path FAIL, "critical_path not gated:
	 * detects >= +79.5%" from golden:critical_path) */
	verdict(&t[1], "baseline", "baseline:critical_path", RN_VERDICT_FAIL, 9.8);
	verdict(&t[1], "regression", "golden:critical_path", RN_VERDICT_WARN, 79.5);
	rn_timing_gate(t, 2, &g);
	rn_timing_gate_format(&g, line, sizeof(line));
	/* the undecided row of a gated target is named with its limit: a change that only
	 * waits longer is not gated at +7.5% */
	assert_string_equal(line,
			    "timing gated at >= +7.5% (worst: target 'xz'); wall_time not gated: "
			    "detects >= +30.0% ('build')");
	t[0].verdicts[1].verdict = RN_VERDICT_PASS;
	rn_timing_gate(t, 2, &g);
	rn_timing_gate_format(&g, line, sizeof(line));
	assert_string_equal(line, "timing gated at >= +7.5% (worst: target 'xz')");
	t[0].verdicts[1].verdict = RN_VERDICT_WARN;
	/* An undecided target is not gated, whatever the others say. */
	t[1].verdicts[0].verdict = RN_VERDICT_WARN;
	t[1].verdicts[1].verdict = RN_VERDICT_WARN;
	rn_timing_gate(t, 2, &g);
	rn_timing_gate_format(&g, line, sizeof(line));
	assert_string_equal(
		line, "timing not gated for 1 of 2 targets ('xz': undecided, detects >= +79.5%)");
	/* No timing rows: nothing to state. */
	rn_timing_gate(t, 0, &g);
	assert_int_equal(rn_timing_gate_format(&g, line, sizeof(line)), 0);
	rn_target_report_release(&t[0]);
	rn_target_report_release(&t[1]);
}

/* A look that would run past the time budget is cut to the samples that fit at the pace so
 * far; none fit once the budget is used; no budget or no pace yet: the whole look. */
static void test_seq_budget_fit(void **state)
{
	(void)state;
	/* 44 s of 45 used at 2.8 s a pair: the look's 7 pairs (19.6 s) are cut to none */
	assert_int_equal(rn_seq_budget_fit(7, 2.8e9, 44e9, 45e9), 0);
	/* 30 s used: 15 s left, 5 of the 7 pairs fit */
	assert_int_equal(rn_seq_budget_fit(7, 2.8e9, 30e9, 45e9), 5);
	/* 10 s used: the whole look fits */
	assert_int_equal(rn_seq_budget_fit(7, 2.8e9, 10e9, 45e9), 7);
	assert_int_equal(rn_seq_budget_fit(7, 2.8e9, 45e9, 45e9), 0);
	assert_int_equal(rn_seq_budget_fit(7, 2.8e9, 50e9, 0.0), 7); /* no limit */
	assert_int_equal(rn_seq_budget_fit(7, 0.0, 40e9, 45e9), 7);  /* no pace known */
	assert_int_equal(rn_seq_budget_fit(7, 0.0, 50e9, 45e9), 0);  /* ... and none left */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_schedule),
		cmocka_unit_test(test_seq_paired_first),
		cmocka_unit_test(test_seq_mde),
		cmocka_unit_test(test_seq_mde_interval),
		cmocka_unit_test(test_seq_error_rates_by_simulation),
		cmocka_unit_test(test_seq_futile),
		cmocka_unit_test(test_seq_budget_fit),
		cmocka_unit_test(test_timing_gate_statement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
