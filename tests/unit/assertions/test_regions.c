/*
 * test_regions.c - GPU regions in span counting (assertions/evaluate.c rn_span_count,
 * rn_gpu_span_in_region) and the trace model's region helpers (collectors/trace.h): region
 * filters, match names by prefix class, full-name matching of long names with shortened
 * display names, and GPU busy time that leaves regions and graph replays out.
 */
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

static void add(struct rn_trace *t, enum rn_gpu_kind kind, const char *name, const char *region,
		uint64_t start, uint64_t end)
{
	struct rn_gpu_span s;

	memset(&s, 0, sizeof(s));
	s.pid = 1;
	s.kind = kind;
	s.name = (char *)name;
	s.region = (char *)region;
	s.start_ns = start;
	s.end_ns = end;
	rn_trace_add_gpu(t, &s);
}

static struct rn_regex *re(const char *full)
{
	struct rn_regex *r = NULL;

	assert_int_equal(rn_regex_compile(full, &r, NULL), 0);
	return r;
}

static void re_free(struct rn_regex *r)
{
	rn_regex_free(r);
}

#define LONG_NAME                                                                                  \
	"void rn_long_templated_kernel_name_that_goes_on<rn_a_rather_long_policy_name_for_"        \
	"tests<float, 3, 7>, float, 4, rn_another_tag_type_with_a_long_name_too>(float*, int)"

static void fill(struct rn_trace *t)
{
	rn_trace_init(t);
	add(t, RN_GPU_REGION, "warm-up", NULL, 0, 100);
	add(t, RN_GPU_DISPATCH, "k", "warm-up", 10, 20);
	add(t, RN_GPU_REGION, "main", NULL, 100, 1000);
	add(t, RN_GPU_DISPATCH, "k", "main", 200, 210);
	add(t, RN_GPU_DISPATCH, "k", "main", 300, 330);
	add(t, RN_GPU_COPY, "memcpy_htod", "main", 400, 450);
	add(t, RN_GPU_REGION, "inner", "main", 500, 600);
	add(t, RN_GPU_DISPATCH, "k", "inner", 510, 520);
	add(t, RN_GPU_DISPATCH, LONG_NAME, "main", 700, 705);
	add(t, RN_GPU_GRAPH, "graph:3", "main", 800, 900);
	add(t, RN_GPU_DISPATCH, "k", NULL, 2000, 2010);
}

/* region_pattern selects the innermost region only: "main" excludes "inner"'s kernel. */
static void test_regions_count_innermost(void **state)
{
	struct rn_trace t;
	char names[5][RN_SPAN_NAME_MAX];
	char *full[5];
	uint64_t counts[5], ns = 0;
	struct rn_regex *gpu = re("^(gpu:.*)$"), *main_re = re("^(main)$"), *any = re("^(.*)$");

	(void)state;
	fill(&t);
	assert_int_equal(rn_span_count(&t, gpu, main_re, names, counts, 5, full, &ns), 4);
	assert_int_equal(ns, 10 + 30 + 50 + 5);
	assert_string_equal(names[0], "gpu:k");
	assert_int_equal(counts[0], 2);
	for (int i = 0; i < 5; i++)
		free(full[i]);
	/* without a region filter: 6 kernels and copies in all; regions and graphs apart */
	assert_int_equal(rn_span_count(&t, gpu, NULL, names, counts, 5, NULL, NULL), 7);
	/* any region: the kernel launched outside every region is left out */
	assert_int_equal(rn_span_count(&t, gpu, any, names, counts, 5, NULL, NULL), 6);
	re_free(gpu);
	re_free(main_re);
	re_free(any);
	rn_trace_release(&t);
}

/* Regions count as region:<name>, graph replays as graph:<id>, never as gpu:. */
static void test_regions_prefix_classes(void **state)
{
	struct rn_trace t;
	char names[5][RN_SPAN_NAME_MAX];
	uint64_t counts[5];
	struct rn_regex *regions = re("^(region:.*)$"), *graphs = re("^(graph:[0-9]+)$"),
			*in_main = re("^(main)$");

	(void)state;
	fill(&t);
	assert_int_equal(rn_span_count(&t, regions, NULL, names, counts, 5, NULL, NULL), 3);
	assert_int_equal(rn_span_count(&t, regions, in_main, names, counts, 5, NULL, NULL), 1);
	assert_string_equal(names[0], "region:inner");
	assert_int_equal(rn_span_count(&t, graphs, in_main, names, counts, 5, NULL, NULL), 1);
	assert_string_equal(names[0], "graph:3");
	re_free(regions);
	re_free(graphs);
	re_free(in_main);
	rn_trace_release(&t);
}

/* A 165-character name: an end-anchored pattern matches it whole; the top list shows it
 * shortened to RN_GPU_DISPLAY_MAX and `full` keeps it. */
static void test_regions_long_names(void **state)
{
	struct rn_trace t;
	char names[5][RN_SPAN_NAME_MAX];
	char *full[5];
	uint64_t counts[5];
	struct rn_regex *end = re("^(gpu:void rn_long.*_too>\\(float\\*, int\\))$");
	char shown[RN_GPU_DISPLAY_MAX + 1];

	(void)state;
	fill(&t);
	assert_int_equal(rn_span_count(&t, end, NULL, names, counts, 5, full, NULL), 1);
	assert_int_equal(strlen(names[0]), RN_GPU_DISPLAY_MAX);
	assert_non_null(strstr(names[0], "..."));
	assert_string_equal(full[0], "gpu:" LONG_NAME);
	for (int i = 0; i < 5; i++)
		free(full[i]);
	rn_gpu_display_name("short", RN_GPU_DISPLAY_MAX, shown, sizeof(shown));
	assert_string_equal(shown, "short");
	rn_gpu_display_name(LONG_NAME, RN_GPU_DISPLAY_MAX, shown, sizeof(shown));
	assert_int_equal(strncmp(shown, LONG_NAME, RN_GPU_DISPLAY_MAX - 23), 0);
	assert_string_equal(shown + RN_GPU_DISPLAY_MAX - 20, "me_too>(float*, int)");
	re_free(end);
	rn_trace_release(&t);
}

/* Busy time is the union of work: host-timed regions and graph replays are not added. */
static void test_regions_busy_time(void **state)
{
	struct rn_trace t;

	(void)state;
	fill(&t);
	assert_int_equal(rn_trace_gpu_busy_ns(&t), 10 + 10 + 30 + 50 + 10 + 5 + 10);
	assert_true(rn_gpu_span_in_region(&t.gpu[1], NULL));
	assert_false(rn_gpu_kind_is_work(RN_GPU_REGION));
	assert_false(rn_gpu_kind_is_work(RN_GPU_GRAPH));
	assert_string_equal(rn_gpu_kind_name(RN_GPU_GRAPH), "graph");
	rn_trace_release(&t);
}

/* A SyncStorm of waited tiny GPU submits inside region "hot": anti_pattern with
 * region_pattern "hot" detects it, with "cold" (no GPU span of that region) it does not. */
static void eval_syncstorm(const char *region, struct rn_verdict_result *out)
{
	struct rn_target_result r;
	struct rn_assertion_spec a;
	struct rn_trace t;
	struct rn_process *p;
	struct rn_regex *rre = re(region);

	rn_trace_init(&t);
	t.start_ns = 1000000;
	p = rn_trace_add_process(&t, 100, 0, t.start_ns);
	rn_process_set_exe(p, "/usr/bin/gpuapp");
	for (int i = 0; i < 1200; i++) {
		struct rn_gpu_span g;

		memset(&g, 0, sizeof(g));
		g.pid = 100;
		g.kind = RN_GPU_SUBMIT;
		g.flags = RN_GPU_WAITED;
		g.name = (char *)"submit";
		g.region = (char *)"hot";
		g.start_ns = t.start_ns + (uint64_t)i * 200000;
		g.end_ns = g.start_ns + 20000;
		rn_trace_add_gpu(&t, &g);
	}
	t.procs[0].end = RN_PROC_EXITED;
	t.procs[0].end_ns = t.start_ns + 1200 * 200000ull;
	t.end_ns = t.procs[0].end_ns;
	rn_target_result_init(&r, "gpuapp");
	rn_target_result_add_run(&r, &t);
	memset(&a, 0, sizeof(a));
	a.name = (char *)"sync";
	a.type = RN_ASSERT_ANTI_PATTERN;
	a.enabled = true;
	a.fail_on_violation = true;
	a.threshold = 0.8;
	a.pattern = (char *)"SyncStorm";
	a.region_pattern = (char *)region;
	a.region_re = rre;
	rn_assertion_evaluate(&a, &r, out);
	/* the trace's GPU array is whole again after the filtered view */
	assert_int_equal(r.last.ngpu, 1200);
	rn_target_result_release(&r);
	re_free(rre);
	rn_trace_release(&t);
}

static void test_regions_antipattern(void **state)
{
	struct rn_verdict_result v;

	(void)state;
	eval_syncstorm("^(hot)$", &v);
	assert_int_equal(v.verdict, RN_VERDICT_FAIL);
	rn_verdict_result_release(&v);
	eval_syncstorm("^(cold)$", &v);
	assert_int_equal(v.verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(v.message, "SyncStorm not detected"));
	rn_verdict_result_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regions_count_innermost),
		cmocka_unit_test(test_regions_prefix_classes),
		cmocka_unit_test(test_regions_long_names),
		cmocka_unit_test(test_regions_busy_time),
		cmocka_unit_test(test_regions_antipattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
