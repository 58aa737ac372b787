/*
 * test_span_time.c - the span_time assertion (assertions/span_time.c) over several counting
 * runs: the median of the runs' statistic, stat = "self", stat = "cpu", and the comparison with a base
 * side's runs (the timing rows' three-valued rule).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "assertion.h"
#include "assertions/internal.h"
#include "trace.h"

#define MS 1000000ull

/* Add app span `name` of [start, end) ms; `parent` by name (renacer_span.h, thread 7) or, for
 * OTLP spans, by span id (`id`, `parent_id`: 0 for none). */
static void app(struct rn_trace *t, const char *name, const char *parent, unsigned id,
		unsigned parent_id, uint64_t start_ms, uint64_t end_ms)
{
	struct rn_app_span a;

	memset(&a, 0, sizeof(a));
	a.pid = 7;
	a.tid = 7;
	a.name = (char *)name;
	a.parent = (char *)parent;
	a.source = id ? RN_APP_SOURCE_OTLP : RN_APP_SOURCE_HEADER;
	a.span_id[7] = (uint8_t)id;
	a.parent_span_id[7] = (uint8_t)parent_id;
	a.start_ns = start_ms * MS;
	a.end_ns = end_ms * MS;
	rn_trace_add_app(t, &a);
}

/* A counting run whose "parse" span takes `parse_ms`. */
static void add_run(struct rn_target_result *r, double parse_ms)
{
	struct rn_trace t;

	rn_trace_init(&t);
	app(&t, "request", NULL, 0, 0, 0, 100);
	app(&t, "parse", "request", 0, 0, 1, 1 + (uint64_t)parse_ms);
	rn_target_result_add_counting_run(r, &t);
}

static struct rn_regex *re(const char *full)
{
	struct rn_regex *x = NULL;

	assert_int_equal(rn_regex_compile(full, &x, NULL), 0);
	return x;
}

static void spec(struct rn_assertion_spec *a, const char *pattern, enum rn_span_stat stat,
		 uint64_t max_ms)
{
	memset(a, 0, sizeof(*a));
	a->name = (char *)"t";
	a->type = RN_ASSERT_SPAN_TIME;
	a->enabled = true;
	a->fail_on_violation = true;
	a->span_name_pattern = (char *)pattern;
	a->span_re = re(pattern);
	a->span_stat = stat;
	a->has_max_span = true;
	a->max_span_ns = max_ms * MS;
	a->tolerance = 0.1;
}

/* Every counting run is judged: one slow run of three does not decide, the median does. */
static void test_span_time_median_of_runs(void **state)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_verdict_result v;

	(void)state;
	rn_target_result_init(&r, "app");
	add_run(&r, 10);
	add_run(&r, 11);
	add_run(&r, 50); /* the last run, alone, would fail */
	assert_int_equal(rn_target_result_span_runs(&r), 3);
	spec(&a, "app:parse", RN_SPAN_STAT_MAX, 20);
	memset(&v, 0, sizeof(v));
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_true(fabs(v.observed - 11.0) < 1e-9);
	assert_non_null(strstr(v.message, "median of 3 counting runs"));
	assert_non_null(strstr(v.detail, "max per run: 10.000 ms, 11.000 ms, 50.000 ms"));
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	rn_target_result_release(&r);
}

/* Self time: a span's duration minus its direct children's, for both kinds of parent link. */
static void test_span_time_self(void **state)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_verdict_result v;
	struct rn_trace t;

	(void)state;
	rn_trace_init(&t);
	/* renacer_span.h: request [0, 100) holds parse [10, 60) and render [60, 90); parse
	 * holds a nested "lex" [20, 30) that is not request's child */
	app(&t, "request", NULL, 0, 0, 0, 100);
	app(&t, "parse", "request", 0, 0, 10, 60);
	app(&t, "lex", "parse", 0, 0, 20, 30);
	app(&t, "render", "request", 0, 0, 60, 90);
	/* OTLP: job [200, 300) with one child step [210, 290): ids, not names */
	app(&t, "job", NULL, 1, 0, 200, 300);
	app(&t, "step", NULL, 2, 1, 210, 290);
	rn_target_result_init(&r, "app");
	rn_target_result_add_counting_run(&r, &t);
	spec(&a, "app:request", RN_SPAN_STAT_SELF, 25);
	memset(&v, 0, sizeof(v));
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_true(fabs(v.observed - 20.0) < 1e-9); /* 100 - 50 - 30 */
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	spec(&a, "app:parse", RN_SPAN_STAT_SELF, 25);
	rn_assertion_evaluate(&a, &r, &v);
	assert_true(fabs(v.observed - 40.0) < 1e-9); /* 50 - 10 */
	assert_int_equal(v.verdict, RN_VERDICT_FAIL);
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	spec(&a, "app:job", RN_SPAN_STAT_SELF, 25);
	rn_assertion_evaluate(&a, &r, &v);
	assert_true(fabs(v.observed - 20.0) < 1e-9); /* 100 - 80 */
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	/* the plain duration is still "max" */
	spec(&a, "app:request", RN_SPAN_STAT_MAX, 25);
	rn_assertion_evaluate(&a, &r, &v);
	assert_true(fabs(v.observed - 100.0) < 1e-9);
	assert_int_equal(v.verdict, RN_VERDICT_FAIL);
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	rn_target_result_release(&r);
}

/* head's runs of parse_ms[nh] against base's of base_ms[nb]: the verdict, message in *msg. */
static enum rn_verdict against(const double *base_ms, size_t nb, const double *head_ms, size_t nh,
			       char **msg)
{
	struct rn_target_result head, base;
	struct rn_assertion_spec a;
	struct rn_verdict_result v;
	enum rn_verdict out;

	rn_target_result_init(&head, "app");
	rn_target_result_init(&base, "app");
	for (size_t i = 0; i < nb; i++)
		add_run(&base, base_ms[i]);
	for (size_t i = 0; i < nh; i++)
		add_run(&head, head_ms[i]);
	head.base = &base;
	spec(&a, "app:parse", RN_SPAN_STAT_MAX, 1000); /* a budget far away */
	memset(&v, 0, sizeof(v));
	rn_assertion_evaluate(&a, &head, &v);
	out = v.verdict;
	*msg = strdup(v.message);
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	rn_target_result_release(&head);
	rn_target_result_release(&base);
	return out;
}

/* Against the base: 2x slower fails, the same passes, one run a side cannot decide. */
static void test_span_time_against_base(void **state)
{
	const double base[] = { 20, 21, 22, 20, 21 }, same[] = { 21, 20, 22, 21, 20 },
		     slow[] = { 40, 42, 41, 43, 40 };
	char *msg;

	(void)state;
	assert_int_equal(against(base, 5, slow, 5, &msg), RN_VERDICT_FAIL);
	assert_non_null(strstr(msg,
			       "against the base (median 21.000 ms over 5 runs): grew beyond "
			       "the limit +2.100 ms (tolerance 10%)"));
	free(msg);
	assert_int_equal(against(base, 5, same, 5, &msg), RN_VERDICT_PASS);
	assert_non_null(strstr(msg, "within the limit"));
	free(msg);
	assert_int_equal(against(base, 1, slow, 1, &msg), RN_VERDICT_WARN);
	assert_non_null(strstr(msg, "inconclusive (too few runs for an interval"));
	free(msg);
}

/* A counting run whose "work" span (200 ms of wall time) had `cpu_ms` of CPU time, and an
 * OTLP span "remote" (no CPU time). */
static void add_cpu_run(struct rn_target_result *r, uint64_t cpu_ms)
{
	struct rn_trace t;

	rn_trace_init(&t);
	app(&t, "work", NULL, 0, 0, 0, 200);
	t.app[t.napp - 1].flags |= RN_APP_CPU;
	t.app[t.napp - 1].cpu_ns = cpu_ms * MS;
	app(&t, "remote", NULL, 1, 0, 0, 200);
	rn_target_result_add_counting_run(r, &t);
}

/* stat = "cpu": the spans' own CPU times, not their durations, by the runs' median; a span
 * without CPU time is not judged, never PASS. */
static void test_span_time_cpu(void **state)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_verdict_result v;

	(void)state;
	rn_target_result_init(&r, "app");
	add_cpu_run(&r, 30);
	add_cpu_run(&r, 40);
	add_cpu_run(&r, 150);
	spec(&a, "app:work", RN_SPAN_STAT_CPU, 50); /* wall 200 ms > 50, CPU median 40 */
	memset(&v, 0, sizeof(v));
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_true(fabs(v.observed - 40.0) < 1e-9);
	assert_non_null(strstr(v.detail, "cpu per run: 30.000 ms, 40.000 ms, 150.000 ms"));
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	spec(&a, "app:work", RN_SPAN_STAT_CPU, 35);
	memset(&v, 0, sizeof(v));
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_FAIL);
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	spec(&a, "app:remote", RN_SPAN_STAT_CPU, 1000);
	memset(&v, 0, sizeof(v));
	rn_assertion_evaluate(&a, &r, &v);
	assert_int_equal(v.verdict, RN_VERDICT_NOT_JUDGED);
	assert_non_null(strstr(v.message, "carry no CPU time"));
	rn_verdict_result_release(&v);
	rn_regex_free((struct rn_regex *)a.span_re);
	rn_target_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_time_median_of_runs),
		cmocka_unit_test(test_span_time_self),
		cmocka_unit_test(test_span_time_cpu),
		cmocka_unit_test(test_span_time_against_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
