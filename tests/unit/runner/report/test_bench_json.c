/*
 * test_bench_json.c - the github-action-benchmark JSON: one entry per measured metric, a peak
 * RSS that no run measured (0: driver = "ebpf" below renacer's own peak) left out rather than
 * written as 0 bytes, and the median of the runs that measured it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "bench_json.h"
#include "verdict.h"

/* Three timing runs of target "work": wall 10, 20, 30 ms, peak RSS rss[i] bytes. */
static void make_result(struct rn_target_result *r, const uint64_t rss[3])
{
	size_t i;

	rn_target_result_init(r, "work");
	r->nruns = 3;
	r->runs = calloc(3, sizeof(*r->runs));
	assert_non_null(r->runs);
	r->status = RN_RUN_OK;
	for (i = 0; i < 3; i++) {
		r->runs[i].measures = RN_MEASURES_BOTH;
		r->runs[i].v[RN_METRIC_WALL] = (uint64_t)(i + 1) * 10000000u;
		r->runs[i].v[RN_METRIC_CRITICAL_PATH] = (uint64_t)(i + 1) * 10000000u;
		r->runs[i].v[RN_METRIC_PEAK_RSS] = rss[i];
		r->runs[i].v[RN_METRIC_SYSCALLS] = 53;
	}
}

/* rn_report_bench_json's text for `r`, the caller frees. */
static char *bench_json(struct rn_target_result *r)
{
	char path[] = "/tmp/rn-test-bench-XXXXXX";
	int fd = mkstemp(path);
	struct rn_target_report t;
	struct rn_outcome oc;
	struct rn_buf b;

	assert_true(fd >= 0);
	close(fd);
	memset(&t, 0, sizeof(t));
	t.result = r;
	memset(&oc, 0, sizeof(oc));
	oc.reports = &t;
	oc.ntargets = 1;
	assert_int_equal(rn_report_bench_json(path, &oc), 0);
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, path), 0);
	unlink(path);
	return rn_buf_detach(&b, NULL);
}

static void test_bench_json_unmeasured_rss_left_out(void **state)
{
	static const uint64_t none[3] = { 0, 0, 0 };
	struct rn_target_result r;
	char *out;

	(void)state;
	make_result(&r, none);
	out = bench_json(&r);
	assert_non_null(strstr(out, "\"name\": \"work wall_time\""));
	assert_non_null(strstr(out, "\"name\": \"work syscalls\""));
	assert_null(strstr(out, "peak_rss"));
	free(out);
	rn_target_result_release(&r);
}

static void test_bench_json_rss_of_the_runs_that_measured_it(void **state)
{
	static const uint64_t some[3] = { 0, 3 << 20, 5 << 20 };
	struct rn_target_result r;
	char *out, *e;

	(void)state;
	make_result(&r, some);
	out = bench_json(&r);
	e = strstr(out, "\"name\": \"work peak_rss\"");
	assert_non_null(e);
	assert_non_null(strstr(e, "\"unit\": \"bytes\""));
	assert_non_null(strstr(e, "\"value\": 4194304"));
	assert_non_null(strstr(e, "\"extra\": \"median of 2 runs\""));
	free(out);
	rn_target_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bench_json_unmeasured_rss_left_out),
		cmocka_unit_test(test_bench_json_rss_of_the_runs_that_measured_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
