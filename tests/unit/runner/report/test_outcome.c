/*
 * test_outcome.c - what every report writer reads of a check's outcome: its sides (head
 * targets, then the base sides), its end time and its verdicts in report order with their
 * indices (the OTLP span ids depend on them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner/report/internal.h"

static void test_outcome_sides_head_then_base(void **state)
{
	struct rn_target_result heads[2], bases[2];
	struct rn_outcome oc;

	(void)state;
	memset(heads, 0, sizeof(heads));
	memset(bases, 0, sizeof(bases));
	memset(&oc, 0, sizeof(oc));
	oc.targets = heads;
	oc.ntargets = 2;
	assert_int_equal(rn_outcome_nsides(&oc), 2);
	assert_ptr_equal(rn_outcome_side(&oc, 1), &heads[1]);
	oc.bases = bases;
	assert_int_equal(rn_outcome_nsides(&oc), 4);
	assert_ptr_equal(rn_outcome_side(&oc, 0), &heads[0]);
	assert_ptr_equal(rn_outcome_side(&oc, 2), &bases[0]);
	assert_ptr_equal(rn_outcome_side(&oc, 3), &bases[1]);
}

static void test_outcome_end_time(void **state)
{
	struct rn_outcome oc;

	(void)state;
	memset(&oc, 0, sizeof(oc));
	oc.end_unix_ns = 42;
	assert_int_equal(rn_outcome_end_ns(&oc), 42);
	oc.end_unix_ns = 0; /* the time of writing: after 2001-09-09 */
	assert_true(rn_outcome_end_ns(&oc) > 1000000000ull * 1000000000ull);
}

static void test_outcome_verdicts_in_report_order(void **state)
{
	struct rn_verdict_result v[4];
	struct rn_target_report t[4];
	struct rn_outcome_verdicts it;
	const struct rn_verdict_result *got;
	struct rn_outcome oc;
	size_t n = 0;

	(void)state;
	memset(v, 0, sizeof(v));
	memset(t, 0, sizeof(t));
	memset(&oc, 0, sizeof(oc));
	/* reports 0 and 2 hold no verdict: the walk steps over them */
	t[1].verdicts = v;
	t[1].nverdicts = 3;
	t[3].verdicts = v + 3;
	t[3].nverdicts = 1;
	oc.reports = t;
	oc.ntargets = 4;
	assert_int_equal(rn_outcome_nverdicts(&oc), 4);
	memset(&it, 0, sizeof(it));
	it.oc = &oc;
	for (got = rn_outcome_verdict_next(&it); got; got = rn_outcome_verdict_next(&it)) {
		assert_ptr_equal(got, &v[n]);
		assert_int_equal(it.index - 1, n);
		n++;
	}
	assert_int_equal(n, 4);
	assert_null(rn_outcome_verdict_next(&it));
	/* no targets: nothing */
	oc.ntargets = 0;
	memset(&it, 0, sizeof(it));
	it.oc = &oc;
	assert_null(rn_outcome_verdict_next(&it));
	assert_int_equal(rn_outcome_nverdicts(&oc), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outcome_sides_head_then_base),
		cmocka_unit_test(test_outcome_end_time),
		cmocka_unit_test(test_outcome_verdicts_in_report_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
