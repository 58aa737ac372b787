/*
 * test_calibrate_write.c - the tolerance calibrate --write derives from A/A pairs
 * (runner/check/calibrate_write.h) is the smallest at which the same-job baseline's own judge
 * reads those pairs as PASS: at it the rows PASS, 0.2% below it they do not.
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
#include "baseline.h"
#include "calibrate_write.h"
#include "runner/check/internal.h"
#include "trace.h"
#include "verdict.h"

#define MS 1000000ULL
#define T0 (1000 * MS) /* CLOCK_MONOTONIC start of every run, ns */
#define PAIRS 20

/* A result of `n` runs of one process whose wall time is wall_ns[i]. */
static void build(struct rn_target_result *r, const char *name, const double *wall_ns, size_t n)
{
	size_t i;

	rn_target_result_init(r, name);
	for (i = 0; i < n; i++) {
		struct rn_trace t;

		rn_trace_init(&t);
		t.start_ns = T0;
		(void)rn_trace_add_process(&t, 100, 0, T0);
		t.procs[0].end_ns = T0 + (uint64_t)wall_ns[i];
		t.procs[0].end = RN_PROC_EXITED;
		t.end_ns = t.procs[0].end_ns;
		rn_target_result_add_run(r, &t);
	}
}

/* A/A-like pairs: base 100 ms with a spread, head = base * (1 + shift) + a deterministic
 * jitter of `jitter` (fraction) that alternates in sign and grows. */
static void pairs(double shift, double jitter, double *head, double *base)
{
	size_t i;

	for (i = 0; i < PAIRS; i++) {
		double b = 100.0 * MS * (1.0 + 0.01 * (double)(i % 5));
		double j = jitter * (double)(i % 7) / 6.0 * (i % 2 ? 1.0 : -1.0);

		base[i] = b;
		head[i] = b * (1.0 + shift + j);
	}
}

/* The verdict of every time row of judging head against base at tolerance `tol`: PASS when
 * all PASS, FAIL when any FAILs, else WARN (inconclusive). */
static enum rn_verdict judge(const struct rn_target_result *head,
			     const struct rn_target_result *base, const struct rn_seq_design *seq,
			     const struct rn_regression_cfg *reg, double tol)
{
	struct rn_baseline b;
	struct rn_target_report tv;
	enum rn_verdict out = RN_VERDICT_PASS;
	size_t k;

	memset(&b, 0, sizeof(b));
	memset(&tv, 0, sizeof(tv));
	b.tolerance = tol;
	rn_baseline_judge(&b, reg, seq, true, "app", head, base, 0, &tv);
	for (k = 0; k < tv.nverdicts; k++) {
		const struct rn_verdict_result *v = &tv.verdicts[k];

		if (!v->unit || strcmp(v->unit, "ms"))
			continue;
		if (v->verdict == RN_VERDICT_FAIL)
			out = RN_VERDICT_FAIL;
		else if (v->verdict != RN_VERDICT_PASS && out != RN_VERDICT_FAIL)
			out = RN_VERDICT_WARN;
	}
	rn_target_report_release(&tv);
	return out;
}

/* The tolerance the row states, fraction. */
static double derived(const struct rn_target_result *head, const struct rn_target_result *base,
		      const struct rn_seq_design *seq)
{
	struct rn_target_report tv;
	double tol;

	memset(&tv, 0, sizeof(tv));
	rn_calibrate_tolerance_row(head, base, seq, "app", &tv);
	assert_int_equal(tv.nverdicts, 1);
	assert_string_equal(tv.verdicts[0].assertion, "calibrate:tolerance");
	assert_int_equal(tv.verdicts[0].verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(tv.verdicts[0].message, "20 A/A pairs"));
	tol = tv.verdicts[0].observed / 100.0;
	rn_target_report_release(&tv);
	return tol;
}

static void check_smallest(double shift, double jitter)
{
	double h[PAIRS], b[PAIRS], tol;
	struct rn_target_result head, base;
	struct rn_regression_cfg reg;
	struct rn_seq_design seq = { 10, 60, 0.01 };

	rn_regression_cfg_init(&reg);
	pairs(shift, jitter, h, b);
	build(&head, "app", h, PAIRS);
	build(&base, "app (A)", b, PAIRS);
	tol = derived(&head, &base, &seq);
	/* at least the shift the pairs carry */
	assert_true(tol >= shift);
	assert_true(tol > 0.0025);
	/* the smallest: the baseline's judge reads PASS at it and not 0.2% below */
	assert_int_equal(judge(&head, &base, &seq, &reg, tol), RN_VERDICT_PASS);
	assert_int_not_equal(judge(&head, &base, &seq, &reg, tol - 0.002), RN_VERDICT_PASS);
	rn_target_result_release(&head);
	rn_target_result_release(&base);
}

static void test_calibrate_write_quiet_pairs(void **state)
{
	(void)state;
	check_smallest(0.0, 0.01);
}

static void test_calibrate_write_noisy_pairs(void **state)
{
	(void)state;
	check_smallest(0.0, 0.08);
}

static void test_calibrate_write_shifted_pairs(void **state)
{
	(void)state;
	check_smallest(0.04, 0.01);
}

static void test_calibrate_write_identical_pairs(void **state)
{
	double h[PAIRS], b[PAIRS];
	struct rn_target_result head, base;
	struct rn_seq_design seq = { 10, 60, 0.01 };

	(void)state;
	pairs(0.0, 0.0, h, b);
	build(&head, "app", h, PAIRS);
	build(&base, "app (A)", b, PAIRS);
	/* no difference at all: the floor, 0.1% */
	assert_true(fabs(derived(&head, &base, &seq) - 0.001) < 1e-9);
	rn_target_result_release(&head);
	rn_target_result_release(&base);
}

/* Pairs noisier than any tolerance a config takes (a head 5-20x the base): the row is WARN,
 * says why and names no value to write (only a PASS row is written). */
static void test_calibrate_write_beyond_config(void **state)
{
	double h[PAIRS], b[PAIRS];
	struct rn_target_result head, base;
	struct rn_target_report tv;
	struct rn_seq_design seq = { 10, 60, 0.01 };
	size_t i;

	(void)state;
	pairs(0.0, 0.0, h, b);
	for (i = 0; i < PAIRS; i++)
		h[i] = b[i] * (5.0 + (double)(i % 4) * 5.0);
	build(&head, "app", h, PAIRS);
	build(&base, "app (A)", b, PAIRS);
	memset(&tv, 0, sizeof(tv));
	rn_calibrate_tolerance_row(&head, &base, &seq, "app", &tv);
	assert_int_equal(tv.nverdicts, 1);
	assert_int_equal(tv.verdicts[0].verdict, RN_VERDICT_WARN);
	assert_true(tv.verdicts[0].observed > RN_BASELINE_TOLERANCE_MAX * 100.0);
	assert_non_null(strstr(tv.verdicts[0].message, "not written"));
	assert_non_null(strstr(tv.verdicts[0].message, "beyond the most a config takes (10)"));
	rn_target_report_release(&tv);
	rn_target_result_release(&head);
	rn_target_result_release(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_write_quiet_pairs),
		cmocka_unit_test(test_calibrate_write_noisy_pairs),
		cmocka_unit_test(test_calibrate_write_shifted_pairs),
		cmocka_unit_test(test_calibrate_write_identical_pairs),
		cmocka_unit_test(test_calibrate_write_beyond_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
