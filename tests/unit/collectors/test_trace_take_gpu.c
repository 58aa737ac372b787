/*
 * test_trace_take_gpu.c - rn_trace_take_gpu (collectors/trace.h): the GPU spans of a CUDA
 * target's GPU execution move into its clean execution's trace (clean_timing), placed on the
 * clean run's timeline and processes, with the GPU execution's GPU gaps; other gaps stay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "trace.h"

static void add_gpu(struct rn_trace *t, pid_t pid, const char *name, uint64_t start, uint64_t end,
		    uint64_t submit)
{
	struct rn_gpu_span g;

	memset(&g, 0, sizeof(g));
	g.pid = pid;
	g.kind = RN_GPU_DISPATCH;
	g.name = (char *)name;
	g.region = (char *)"step";
	g.start_ns = start;
	g.end_ns = end;
	g.submit_ns = submit;
	rn_trace_add_gpu(t, &g);
}

static void test_take_gpu_moves_and_places(void **state)
{
	struct rn_trace gpu, clean;

	(void)state;
	rn_trace_init(&gpu);
	rn_trace_init(&clean);
	gpu.start_ns = 1000;
	rn_trace_add_process(&gpu, 100, 1, 1000);
	rn_trace_add_process(&gpu, 101, 100, 1500);
	clean.start_ns = 50000;
	rn_trace_add_process(&clean, 200, 1, 50000);
	rn_trace_add_process(&clean, 201, 200, 50400);
	add_gpu(&gpu, 100, "gemm", 2000, 2500, 1900);
	add_gpu(&gpu, 101, "relu", 3000, 3100, 0);
	add_gpu(&gpu, 999, "late", 4000, 4100, 0); /* a process the clean run never had */
	rn_trace_add_gap(&gpu, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, "cuda", 3, "buffers full");
	rn_trace_add_gap(&gpu, RN_GAP_SPOOL, RN_GAP_SPAN_DETAIL, "ptrace", 0, "no spool");

	rn_trace_take_gpu(&clean, &gpu);

	assert_int_equal(gpu.ngpu, 0);
	assert_int_equal(clean.ngpu, 3);
	/* shifted by the starts' difference (49000 ns) */
	assert_int_equal(clean.gpu[0].start_ns, 51000);
	assert_int_equal(clean.gpu[0].end_ns, 51500);
	assert_int_equal(clean.gpu[0].submit_ns, 50900);
	assert_int_equal(clean.gpu[1].submit_ns, 0); /* unknown stays unknown */
	/* the same birth order's process, else the root */
	assert_int_equal(clean.gpu[0].pid, 200);
	assert_int_equal(clean.gpu[1].pid, 201);
	assert_int_equal(clean.gpu[2].pid, 200);
	assert_string_equal(clean.gpu[1].name, "relu");
	assert_string_equal(clean.gpu[1].region, "step");
	/* the GPU gap came along, the spool's did not */
	assert_int_equal(clean.ngaps, 1);
	assert_int_equal(clean.gaps[0].count, 3);
	assert_string_equal(clean.gaps[0].source, "cuda");
	assert_string_equal(clean.gaps[0].reason, "buffers full");
	assert_int_equal(rn_trace_gpu_busy_ns(&clean), 700);
	rn_trace_release(&gpu);
	rn_trace_release(&clean);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_gpu_moves_and_places),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
