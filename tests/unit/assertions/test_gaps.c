/*
 * test_gaps.c - known data loss (struct rn_trace_gap) in verdicts: a GPU span count that
 * passes on spans known to be lost is NO DATA when the loss could reach the budget, stays PASS
 * when it cannot, and any other metric passing on incomplete data is WARN; gaps are recorded,
 * merged and folded over runs as trace.h and assertion.h say.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assertion.h"

/* A span_count assertion over `pattern` (full match) with budget `max_spans`. */
static void span_assertion(struct rn_assertion_spec *a, struct rn_regex **re, const char *pattern,
			   uint64_t max_spans)
{
	assert_int_equal(rn_regex_compile(pattern, re, NULL), 0);
	memset(a, 0, sizeof(*a));
	a->name = (char *)"gpu_spans";
	a->type = RN_ASSERT_SPAN_COUNT;
	a->enabled = true;
	a->fail_on_violation = true;
	a->span_name_pattern = (char *)pattern;
	a->span_re = *re;
	a->max_spans = max_spans;
}

/* A target result of one run with `ngpu` GPU dispatch spans and, when `lost` is not
 * (uint64_t)-1, a Vulkan gap of `lost` spans (0: unknown how many). */
static void one_run(struct rn_target_result *r, size_t ngpu, uint64_t lost)
{
	struct rn_trace t;
	struct rn_process *p;
	size_t i;

	rn_target_result_init(r, "gpu_app");
	rn_trace_init(&t);
	p = rn_trace_add_process(&t, 100, 1, 1000);
	p->end = RN_PROC_EXITED;
	t.start_ns = 1000;
	t.end_ns = 5000;
	for (i = 0; i < ngpu; i++) {
		struct rn_gpu_span s;

		memset(&s, 0, sizeof(s));
		s.pid = 100;
		s.kind = RN_GPU_DISPATCH;
		s.name = (char *)"dispatch";
		s.start_ns = 2000 + i * 10;
		s.end_ns = 2005 + i * 10;
		rn_trace_add_gpu(&t, &s);
	}
	if (lost != (uint64_t)-1)
		rn_trace_add_gap(&t, RN_GAP_UNTIMED, RN_GAP_GPU_SPANS, "vulkan", lost,
				 "the layer's query slots ran out");
	rn_target_result_add_run(r, &t);
	rn_trace_release(&t);
}

static void judge_span_count(const char *pattern, uint64_t max_spans, size_t ngpu, uint64_t lost,
			     struct rn_verdict_result *v)
{
	struct rn_assertion_spec a;
	struct rn_target_result r;
	struct rn_regex *re;

	span_assertion(&a, &re, pattern, max_spans);
	one_run(&r, ngpu, lost);
	rn_assertion_evaluate(&a, &r, v);
	rn_target_result_release(&r);
	rn_regex_free(re);
}

static void test_gaps_span_count_loss_could_reach_budget_is_no_data(void **state)
{
	struct rn_verdict_result v;

	(void)state;
	/* 8 spans seen, 5 lost: the true count may be 13 > 10 */
	judge_span_count("gpu:.*", 10, 8, 5, &v);
	assert_int_equal(v.verdict, RN_VERDICT_NO_DATA);
	assert_string_equal(v.reason, "data lost: the count is a lower bound");
	assert_non_null(strstr(v.message, "vulkan: 5 untimed (the layer's query slots ran out)"));
	rn_verdict_result_release(&v);
}

static void test_gaps_span_count_loss_within_budget_stays_pass(void **state)
{
	struct rn_verdict_result v;

	(void)state;
	/* 2 seen, 3 lost: at most 5 <= 10 */
	judge_span_count("gpu:.*", 10, 2, 3, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_null(v.reason);
	assert_non_null(strstr(v.message, "the lost items cannot reach the budget"));
	assert_non_null(strstr(v.message, "known data loss: vulkan: 3 untimed"));
	rn_verdict_result_release(&v);
}

static void test_gaps_span_count_unknown_loss_is_no_data(void **state)
{
	struct rn_verdict_result v;

	(void)state;
	judge_span_count("gpu:.*", 10, 2, 0, &v);
	assert_int_equal(v.verdict, RN_VERDICT_NO_DATA);
	assert_non_null(strstr(v.message, "how many unknown"));
	rn_verdict_result_release(&v);
}

static void test_gaps_span_count_fail_stays_fail(void **state)
{
	struct rn_verdict_result v;

	(void)state;
	/* 12 seen > 10: a lower bound already over the budget */
	judge_span_count("gpu:.*", 10, 12, 5, &v);
	assert_int_equal(v.verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(v.message, "known data loss"));
	rn_verdict_result_release(&v);
}

static void test_gaps_syscall_pattern_is_unaffected(void **state)
{
	struct rn_verdict_result v;

	(void)state;
	/* A pattern that cannot match a GPU span does not read GPU spans. */
	judge_span_count("openat|read", 10, 8, 5, &v);
	/* no openat or read in the counting run: 0 spans, a measurement within budget */
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_null(strstr(v.message ? v.message : "", "known data loss"));
	rn_verdict_result_release(&v);
	judge_span_count("openat|read", 0, 8, 5, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_null(strstr(v.message, "known data loss"));
	rn_verdict_result_release(&v);
}

static void test_gaps_without_gap_nothing_changes(void **state)
{
	struct rn_verdict_result v;

	(void)state;
	judge_span_count("gpu:.*", 10, 8, (uint64_t)-1, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_null(strstr(v.message, "known data loss"));
	rn_verdict_result_release(&v);
}

static void test_gaps_other_metric_passing_is_warn(void **state)
{
	struct rn_target_result r;
	struct rn_verdict_result v;

	(void)state;
	one_run(&r, 1, (uint64_t)-1);
	{
		struct rn_trace t;

		rn_trace_init(&t);
		rn_trace_add_gap(&t, RN_GAP_SPOOL, RN_GAP_SPAN_DETAIL, "ptrace", 0,
				 "the span spool could not be created");
		rn_target_result_add_gaps(&r, &t);
		rn_trace_release(&t);
	}
	memset(&v, 0, sizeof(v));
	v.verdict = RN_VERDICT_PASS;
	v.message = strdup("TightLoop not detected: confidence 0.10 < threshold 0.80");
	/* a detection is no count: passing on incomplete span detail is WARN */
	rn_verdict_apply_gaps(&r, RN_GAP_SPAN_DETAIL, false, &v);
	assert_int_equal(v.verdict, RN_VERDICT_WARN);
	assert_string_equal(v.reason, "passed on incomplete data");
	assert_non_null(strstr(v.message,
			       "ptrace: spool, how many unknown (the span spool could "
			       "not be created)"));
	/* a gap of another scope leaves a verdict alone */
	v.verdict = RN_VERDICT_PASS;
	rn_verdict_apply_gaps(&r, RN_GAP_GPU_SPANS, false, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	rn_verdict_result_release(&v);
	rn_target_result_release(&r);
}

static void test_gaps_trace_merges_same_gap(void **state)
{
	struct rn_trace t;

	(void)state;
	rn_trace_init(&t);
	rn_trace_add_gap(&t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, "cuda", 2, "first %d", 1);
	rn_trace_add_gap(&t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, "cuda", 3, "second");
	rn_trace_add_gap(&t, RN_GAP_UNTIMED, RN_GAP_GPU_SPANS, "cuda", 1, "other kind");
	assert_int_equal(t.ngaps, 2);
	assert_int_equal(t.gaps[0].count, 5);
	assert_string_equal(t.gaps[0].reason, "first 1");
	rn_trace_add_gap(&t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, "cuda", 0, "unknown");
	assert_int_equal(t.gaps[0].count, 0); /* unknown stays unknown */
	assert_string_equal(rn_gap_kind_name(t.gaps[1].kind), "untimed");
	rn_trace_release(&t);
	assert_int_equal(t.ngaps, 0);
	assert_null(t.gaps);
}

static void test_gaps_result_keeps_largest_run_loss(void **state)
{
	struct rn_target_result r;
	struct rn_trace t;
	uint64_t lost[] = { 3, 7, 4 };
	size_t i;

	(void)state;
	rn_target_result_init(&r, "x");
	for (i = 0; i < 3; i++) {
		rn_trace_init(&t);
		rn_trace_add_gap(&t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, "vulkan", lost[i], "run");
		rn_target_result_add_gaps(&r, &t);
		rn_trace_release(&t);
	}
	assert_int_equal(r.ngaps, 1);
	assert_int_equal(r.gaps[0].count, 7);
	rn_target_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gaps_span_count_loss_could_reach_budget_is_no_data),
		cmocka_unit_test(test_gaps_span_count_loss_within_budget_stays_pass),
		cmocka_unit_test(test_gaps_span_count_unknown_loss_is_no_data),
		cmocka_unit_test(test_gaps_span_count_fail_stays_fail),
		cmocka_unit_test(test_gaps_syscall_pattern_is_unaffected),
		cmocka_unit_test(test_gaps_without_gap_nothing_changes),
		cmocka_unit_test(test_gaps_other_metric_passing_is_warn),
		cmocka_unit_test(test_gaps_trace_merges_same_gap),
		cmocka_unit_test(test_gaps_result_keeps_largest_run_loss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
