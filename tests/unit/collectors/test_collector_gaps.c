/*
 * test_collector_gaps.c - the GPU collectors record known data loss as gaps of the trace
 * (collectors/trace.h struct rn_trace_gap) where they warn about it: a Vulkan record file cut
 * short, CUDA spans without a clock and a CUDA record file cut short. The record files are
 * written by hand into the collector's record directory; no GPU is needed. A collector that is
 * not built here is skipped with the reason (77 when none is built).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collector.h"
#include "trace.h"
#include "cuda/cuda.h"
#include "vulkan/vulkan.h"

/* Prepare `ops`, write `len` bytes of `data` as `file` into the directory named by the
 * environment variable `dir_var`, finish into `t`. Returns finish()'s value. */
static int finish_with(const struct rn_collector_ops *ops, const char *dir_var, const char *file,
		       const void *data, size_t len, struct rn_trace *t)
{
	struct rn_run_spec spec = { .name = "gaps", .gpu_mode = RN_GPU_MODE_CMDBUF };
	struct rn_collector *c;
	struct rn_strvec env;
	char path[4200];
	FILE *f;
	int rc;

	rn_strvec_init(&env);
	assert_int_equal(ops->create(&c, &spec), 0);
	assert_int_equal(ops->prepare(c, &env), 0);
	assert_non_null(rn_strvec_env_get(&env, dir_var));
	snprintf(path, sizeof(path), "%s/%s", rn_strvec_env_get(&env, dir_var), file);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	rn_trace_init(t);
	rc = ops->finish(c, t);
	ops->destroy(c);
	rn_strvec_release(&env);
	return rc;
}

static void test_collector_gaps_vulkan_truncated_file(void **state)
{
	/* A valid preamble (magic, version 1, 16 preamble bytes), then half a record header. */
	static const unsigned char cut[] = { 'R', 'N', 'V', 'K', 'R', 'E', 'C', 0, 1,
					     0,   0,   0,   16,  0,   0,   0,   1, 0 };
	struct rn_trace t;

	(void)state;
	if (rn_vulkan_collector.unavailable()) {
		printf("skip: vulkan collector: %s\n", rn_vulkan_collector.unavailable());
		skip();
	}
	assert_int_equal(finish_with(&rn_vulkan_collector, "RENACER_VK_DIR", "vk-1.rnvk", cut,
				     sizeof(cut), &t),
			 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.ngaps, 1);
	assert_int_equal(t.gaps[0].kind, RN_GAP_DROPPED);
	assert_int_equal(t.gaps[0].scope, RN_GAP_GPU_SPANS);
	assert_string_equal(t.gaps[0].source, "vulkan");
	assert_int_equal(t.gaps[0].count, 0); /* how many spans died with the process: unknown */
	assert_string_equal(t.gaps[0].reason, "1 record file(s) end inside a record");
	rn_trace_release(&t);
}

#define CUDA_HEADER "{\"format\":\"renacer-cuda\",\"version\":1,\"pid\":4242}\n"
#define CUDA_KERNEL                                                                                \
	"{\"type\":\"kernel\",\"name\":\"k\",\"device\":0,\"context\":1,\"stream\":7,"             \
	"\"correlation\":3,\"start\":10000,\"end\":15000,\"grid\":[1,1,1],\"block\":[1,1,1],"      \
	"\"registers\":16,\"static_shared\":0,\"dynamic_shared\":0}\n"

static bool cuda_usable(void)
{
	/* the collector looks for its injection library; any readable file will do here, as
	 * nothing is injected */
	setenv(RN_CUDA_ENV_INJECTION, "/bin/sh", 1);
	if (rn_cuda_collector.unavailable()) {
		printf("skip: cuda collector: %s\n", rn_cuda_collector.unavailable());
		return false;
	}
	return true;
}

static void test_collector_gaps_cuda_spans_without_clock(void **state)
{
	static const char text[] = CUDA_HEADER CUDA_KERNEL CUDA_KERNEL;
	struct rn_trace t;

	(void)state;
	if (!cuda_usable())
		skip();
	assert_int_equal(finish_with(&rn_cuda_collector, RN_CUDA_ENV_DIR, "cuda-1.jsonl", text,
				     sizeof(text) - 1, &t),
			 0);
	assert_int_equal(t.ngpu, 0);
	assert_int_equal(t.ngaps, 1);
	assert_int_equal(t.gaps[0].kind, RN_GAP_DROPPED);
	assert_string_equal(t.gaps[0].source, "cuda");
	assert_int_equal(t.gaps[0].count, 2);
	assert_string_equal(t.gaps[0].reason, "no clock calibration or no timestamps");
	rn_trace_release(&t);
}

static void test_collector_gaps_cuda_truncated_file(void **state)
{
	static const char text[] = CUDA_HEADER "{\"type\":\"kernel\",\"na";
	struct rn_trace t;

	(void)state;
	if (!cuda_usable())
		skip();
	assert_int_equal(finish_with(&rn_cuda_collector, RN_CUDA_ENV_DIR, "cuda-1.jsonl", text,
				     sizeof(text) - 1, &t),
			 0);
	assert_int_equal(t.ngaps, 1);
	assert_int_equal(t.gaps[0].count, 0);
	assert_string_equal(t.gaps[0].reason, "1 record file(s) end inside a record");
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collector_gaps_vulkan_truncated_file),
		cmocka_unit_test(test_collector_gaps_cuda_spans_without_clock),
		cmocka_unit_test(test_collector_gaps_cuda_truncated_file),
	};

	if (rn_vulkan_collector.unavailable() && rn_cuda_collector.unavailable()) {
		printf("skip: no GPU collector is built here\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
