/*
 * test_cuda_clock.c - CUPTI-to-host clock calibration and mapping (collectors/cuda/clock.h)
 * on synthetic samples.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cuda/clock.h"

static void test_cuda_clock_keeps_tightest_sample(void **state)
{
	/* CUPTI clock runs 1000000 ns behind the host clock. */
	struct rn_cuda_clock_sample s[] = {
		{ 2000000, 1000400, 2000900 }, /* window 900 */
		{ 3000000, 2000050, 3000100 }, /* window 100: kept */
		{ 4000000, 3000100, 4000300 }, /* window 300 */
		{ 5000000, 4000000, 5000100 }, /* window 100, later: first on ties wins */
	};
	struct rn_cuda_clock c;

	(void)state;
	assert_int_equal(rn_cuda_clock_calibrate(s, 4, &c), 0);
	assert_int_equal(c.offset_ns, 3000050 - 2000050);
	assert_int_equal(c.uncertainty_ns, 50);
}

static void test_cuda_clock_negative_offset_and_map(void **state)
{
	/* CUPTI ahead of the host: offset negative. */
	struct rn_cuda_clock_sample s[] = { { 100, 5000010, 121 } };
	struct rn_cuda_clock c;
	uint64_t host;

	(void)state;
	assert_int_equal(rn_cuda_clock_calibrate(s, 1, &c), 0);
	assert_int_equal(c.offset_ns, 110 - 5000010);
	assert_int_equal(c.uncertainty_ns, 11);
	assert_int_equal(rn_cuda_clock_map(&c, 6000010, &host), 0);
	assert_int_equal(host, 1000110);
	/* Before the host clock's origin. */
	assert_int_equal(rn_cuda_clock_map(&c, 10, &host), -ERANGE);
}

static void test_cuda_clock_rejects_bad_samples(void **state)
{
	struct rn_cuda_clock_sample bad[] = {
		{ 200, 50, 100 },      /* host went backwards */
		{ 0, UINT64_MAX, 10 }, /* does not fit int64 */
		{ 0, 10, UINT64_MAX },
	};
	struct rn_cuda_clock c;

	(void)state;
	assert_int_equal(rn_cuda_clock_calibrate(bad, 3, &c), -EINVAL);
	assert_int_equal(rn_cuda_clock_calibrate(bad, 0, &c), -EINVAL);
}

static void test_cuda_clock_map_overflow(void **state)
{
	struct rn_cuda_clock big = { INT64_MAX, 0 }, small = { INT64_MIN, 0 };
	uint64_t host;

	(void)state;
	assert_int_equal(rn_cuda_clock_map(&big, UINT64_MAX, &host), -ERANGE);
	assert_int_equal(rn_cuda_clock_map(&big, 5, &host), 0);
	assert_int_equal(host, (uint64_t)INT64_MAX + 5);
	assert_int_equal(rn_cuda_clock_map(&small, 5, &host), -ERANGE);
	assert_int_equal(rn_cuda_clock_map(&small, UINT64_MAX, &host), 0);
	assert_int_equal(host, UINT64_MAX - ((uint64_t)1 << 63));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda_clock_keeps_tightest_sample),
		cmocka_unit_test(test_cuda_clock_negative_offset_and_map),
		cmocka_unit_test(test_cuda_clock_rejects_bad_samples),
		cmocka_unit_test(test_cuda_clock_map_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
