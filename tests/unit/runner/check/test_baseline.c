/*
 * test_baseline.c - the same-job baseline's time rows (runner/check/baseline.h) on synthetic
 * pairs: when the sides' modes explain a shift, the rows are judged on the pairs whose runs
 * share a mode, so a shift within the modes fails and a different mix of the modes does not
 * (and, with two modes on one side only, stays INCONCLUSIVE "two modes"); and the columns of a
 * memory row.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baseline.h"
#include "runner/check/internal.h" /* rn_baseline_judge: the folder's own, tested here */
#include "golden.h"
#include "sequential.h"
#include "verdict.h"

#define NPAIRS 60

/* Side `r` with NPAIRS timing runs: run i takes `fast_ms` or, when slow(i), `slow_ms`, times
 * 1 + a small deterministic jitter (+-0.4%), in wall, CPU and critical-path time alike. */
static void side(struct rn_target_result *r, double fast_ms, double slow_ms, unsigned seed,
		 unsigned slow_every, unsigned slow_phase)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->runs = calloc(NPAIRS, sizeof(*r->runs));
	assert_non_null(r->runs);
	r->nruns = NPAIRS;
	for (i = 0; i < NPAIRS; i++) {
		unsigned h = (unsigned)(i * 2654435761u + seed * 40503u);
		double jitter = 1.0 + ((double)(h % 801) - 400.0) / 100000.0;
		bool slow = (i + slow_phase) % slow_every == 0;
		uint64_t ns = (uint64_t)((slow ? slow_ms : fast_ms) * jitter * 1e6);

		r->runs[i].v[RN_METRIC_WALL] = ns;
		r->runs[i].v[RN_METRIC_CPU_TIME] = ns;
		r->runs[i].v[RN_METRIC_CRITICAL_PATH] = ns;
	}
}

/* Judge head against base at one look of NPAIRS pairs with a 1% tolerance; the cpu_time row. */
static const struct rn_verdict_result *judge(struct rn_target_result *head,
					     struct rn_target_result *base,
					     struct rn_target_report *tv)
{
	struct rn_baseline b = { .tolerance = 0.01 };
	struct rn_regression_cfg reg;
	struct rn_seq_design seq = { .first = NPAIRS, .max = NPAIRS, .alpha = 0.01 };
	size_t i;

	rn_regression_cfg_init(&reg);
	memset(tv, 0, sizeof(*tv));
	rn_baseline_judge(&b, &reg, &seq, true, "app", head, base, 0, tv);
	for (i = 0; i < tv->nverdicts; i++)
		if (!strcmp(tv->verdicts[i].assertion, "baseline:cpu_time"))
			return &tv->verdicts[i];
	fail_msg("no baseline:cpu_time row");
	return NULL;
}

static void release(struct rn_target_result *head, struct rn_target_result *base,
		    struct rn_target_report *tv)
{
	free(head->runs);
	free(base->runs);
	head->runs = base->runs = NULL;
	tv->result = NULL;
	rn_target_report_release(tv);
}

static void test_baseline_two_modes_shift_within_fails(void **state)
{
	struct rn_target_result head, base;
	struct rn_target_report tv;
	const struct rn_verdict_result *v;

	(void)state;
	/* both sides: a third of the runs in a mode 35% slower; the head +3% in both modes */
	side(&base, 50.0, 67.5, 1, 3, 0);
	side(&head, 51.5, 69.5, 2, 3, 1);
	v = judge(&head, &base, &tv);
	assert_int_equal(v->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(v->message, "whose runs share a mode"));
	release(&head, &base, &tv);
}

static void test_baseline_two_modes_mix_never_fails(void **state)
{
	struct rn_target_result head, base;
	struct rn_target_report tv;
	const struct rn_verdict_result *v;

	(void)state;
	/* the same two modes, unchanged, but the head lands in the slow one twice as often */
	side(&base, 50.0, 67.5, 1, 6, 0);
	side(&head, 50.0, 67.5, 2, 3, 0);
	v = judge(&head, &base, &tv);
	assert_int_not_equal(v->verdict, RN_VERDICT_FAIL);
	release(&head, &base, &tv);
}

static void test_baseline_one_side_modes_mix_held(void **state)
{
	struct rn_target_result head, base;
	struct rn_target_report tv;
	const struct rn_verdict_result *v;

	(void)state;
	/* the head alternates into a slow mode a third of the time, the base never: the shift
	 * is the mix, INCONCLUSIVE "two modes", neither FAIL nor PASS */
	side(&base, 50.0, 50.0, 1, NPAIRS + 1, 1);
	side(&head, 50.0, 67.5, 2, 3, 0);
	v = judge(&head, &base, &tv);
	assert_int_equal(v->verdict, RN_BASELINE_INCONCLUSIVE);
	assert_non_null(strstr(v->message, "inconclusive: two modes"));
	release(&head, &base, &tv);
}

static void test_baseline_one_side_modes_shift_within_fails(void **state)
{
	struct rn_target_result head, base;
	struct rn_target_report tv;
	const struct rn_verdict_result *v;

	(void)state;
	/* the same, but the head's fast mode is also 3% slower than the base: that fails */
	side(&base, 50.0, 50.0, 1, NPAIRS + 1, 1);
	side(&head, 51.5, 67.5, 2, 3, 0);
	v = judge(&head, &base, &tv);
	assert_int_equal(v->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(v->message, "whose runs share a mode"));
	release(&head, &base, &tv);
}

static void test_baseline_one_mode_shift_fails(void **state)
{
	struct rn_target_result head, base;
	struct rn_target_report tv;
	const struct rn_verdict_result *v;

	(void)state;
	/* one mode a side (slow_every larger than the runs): +3% fails, no word of modes */
	side(&base, 50.0, 50.0, 1, NPAIRS + 1, 1);
	side(&head, 51.5, 51.5, 2, NPAIRS + 1, 1);
	v = judge(&head, &base, &tv);
	assert_int_equal(v->verdict, RN_VERDICT_FAIL);
	assert_null(strstr(v->message, "mode"));
	release(&head, &base, &tv);
}

/* Ten pairs (a harness check's first look): the base at one mode, the head +15% with a third
 * of its runs a further 3.5% slower. The head's two clusters are one mode (too close to tell
 * a mix from a shift: assertions/stats.h), so the row judges all ten pairs and FAILs; read as
 * two modes, the base's median sat "at" the head's lower one and the row was held
 * INCONCLUSIVE on the few pairs sharing it. */
static void test_baseline_close_clusters_shift_fails(void **state)
{
	struct rn_target_result head, base;
	struct rn_target_report tv;
	const struct rn_verdict_result *v;

	(void)state;
	side(&base, 42.0, 42.0, 1, NPAIRS + 1, 1);
	side(&head, 48.3, 50.0, 2, 3, 0);
	head.nruns = base.nruns = 10;
	v = judge(&head, &base, &tv);
	assert_int_equal(v->verdict, RN_VERDICT_FAIL);
	assert_null(strstr(v->message, "mode"));
	release(&head, &base, &tv);
}

/* A memory row's columns are the numbers that decided: the head's fewest against the base's
 * most and the limit they allow, so a PASS never reads over its limit (the head's median,
 * 10.2 MiB, is over the 9 MiB a median of the base's 8 MiB would allow). */
static void test_baseline_memory_columns_judged(void **state)
{
	struct rn_target_result head, base;
	struct rn_target_report tv;
	const struct rn_verdict_result *v = NULL;
	size_t i;

	(void)state;
	side(&base, 50.0, 50.0, 1, NPAIRS + 1, 1);
	side(&head, 50.0, 50.0, 2, NPAIRS + 1, 1);
	for (i = 0; i < NPAIRS; i++) {
		base.runs[i].v[RN_METRIC_PEAK_RSS] = 8u << 20;
		head.runs[i].v[RN_METRIC_PEAK_RSS] = i ? (uint64_t)(10.2 * (1 << 20)) : 17u << 19;
	}
	judge(&head, &base, &tv);
	for (i = 0; i < tv.nverdicts; i++)
		if (!strcmp(tv.verdicts[i].assertion, "baseline:peak_rss"))
			v = &tv.verdicts[i];
	assert_non_null(v);
	assert_int_equal(v->verdict, RN_VERDICT_PASS);
	assert_true(v->has_budget && v->observed <= v->budget);
	assert_true(v->observed == 17u << 19 && v->golden == 8u << 20 && v->budget == 9u << 20);
	/* the message keeps the medians */
	assert_non_null(strstr(v->message, "head 10695475 vs base 8388608 bytes"));
	release(&head, &base, &tv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_two_modes_shift_within_fails),
		cmocka_unit_test(test_baseline_two_modes_mix_never_fails),
		cmocka_unit_test(test_baseline_one_side_modes_mix_held),
		cmocka_unit_test(test_baseline_one_side_modes_shift_within_fails),
		cmocka_unit_test(test_baseline_one_mode_shift_fails),
		cmocka_unit_test(test_baseline_close_clusters_shift_fails),
		cmocka_unit_test(test_baseline_memory_columns_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
