/*
 * test_span_bounds.c - span_time on the program's own spans with durations a hostile program
 * can report: the total saturates instead of wrapping past 2^64 ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assertion.h"
#include "rn_regex.h"
#include "trace.h"

#define T0 1000000000ull /* CLOCK_MONOTONIC start of the run, ns */

/* A target result whose last run holds app spans of `durations_ns` [n]. */
static void result_with_spans(struct rn_target_result *r, const uint64_t *durations_ns, size_t n)
{
	struct rn_trace t;
	struct rn_process *root;

	rn_target_result_init(r, "t");
	rn_trace_init(&t);
	t.start_ns = T0;
	root = rn_trace_add_process(&t, 100, 0, T0);
	rn_process_set_exe(root, "/usr/bin/app");
	for (size_t i = 0; i < n; i++) {
		struct rn_app_span s;

		memset(&s, 0, sizeof(s));
		s.pid = s.tid = 100;
		s.source = RN_APP_SOURCE_HEADER;
		s.name = (char *)"work";
		s.start_ns = 0;
		s.end_ns = durations_ns[i];
		rn_trace_add_app(&t, &s);
	}
	t.procs[0].end_ns = T0 + 1000;
	t.procs[0].end = RN_PROC_EXITED;
	t.end_ns = t.procs[0].end_ns;
	rn_target_result_add_run(r, &t);
}

static void judge_total(const uint64_t *durations_ns, size_t n, uint64_t max_ns,
			struct rn_verdict_result *v)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_regex *re = NULL;

	result_with_spans(&r, durations_ns, n);
	memset(&a, 0, sizeof(a));
	a.name = (char *)"budget";
	a.type = RN_ASSERT_SPAN_TIME;
	a.enabled = true;
	a.fail_on_violation = true;
	a.span_name_pattern = (char *)"app:work";
	assert_int_equal(rn_regex_compile(a.span_name_pattern, &re, NULL), 0);
	a.span_re = re;
	a.span_stat = RN_SPAN_STAT_TOTAL;
	a.has_max_span = true;
	a.max_span_ns = max_ns;
	rn_assertion_evaluate(&a, &r, v);
	rn_regex_free(re);
	rn_target_result_release(&r);
}

/* 2^64-1 ns plus 2 ns wrapped to 1 ns and passed a 1 ms budget. */
static void test_span_time_total_saturates(void **state)
{
	const uint64_t d[] = { UINT64_MAX, 2 };
	struct rn_verdict_result v;

	(void)state;
	judge_total(d, 2, 1000000, &v);
	assert_int_equal(v.verdict, RN_VERDICT_FAIL);
	assert_true(v.observed >= (double)UINT64_MAX / 1e6);
	rn_verdict_result_release(&v);
}

/* An ordinary total is still the plain sum. */
static void test_span_time_total_sums(void **state)
{
	const uint64_t d[] = { 300000, 400000 };
	struct rn_verdict_result v;

	(void)state;
	judge_total(d, 2, 1000000, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_true(v.observed > 0.699 && v.observed < 0.701);
	rn_verdict_result_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_time_total_saturates),
		cmocka_unit_test(test_span_time_total_sums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
