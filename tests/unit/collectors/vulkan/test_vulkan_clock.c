/*
 * test_vulkan_clock.c - GPU tick arithmetic and the GPU-to-host mapping (collectors/vulkan/
 * clock.h) on synthetic calibration data.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vulkan/clock.h"

static void test_clock_mask_and_delta(void **state)
{
	(void)state;
	assert_int_equal(rn_vk_ticks_mask(UINT64_MAX, 36), (UINT64_C(1) << 36) - 1);
	assert_int_equal(rn_vk_ticks_mask(12345, 64), 12345);
	assert_int_equal(rn_vk_ticks_mask(12345, 0), 0);
	/* A 36-bit counter that wrapped between the readings: still +15. */
	assert_int_equal(rn_vk_ticks_delta((UINT64_C(1) << 36) - 10, 5, 36), 15);
	assert_int_equal(rn_vk_ticks_delta(5, (UINT64_C(1) << 36) - 10, 36), -15);
	/* Garbage above the valid bits is ignored. */
	assert_int_equal(rn_vk_ticks_delta(UINT64_C(0xff00000000000000) | 100,
					   UINT64_C(0x1200000000000000) | 130, 36),
			 30);
	assert_int_equal(rn_vk_ticks_delta(UINT64_MAX, 1, 64), 2);
	assert_int_equal(rn_vk_ticks_delta(1, 2, 0), 0);
	/* timestampPeriod scales: 1000 ticks of 1.5 ns. */
	assert_true(fabs(rn_vk_ticks_elapsed_ns(1000, 2000, 64, 1.5) - 1500.0) < 1e-9);
	assert_true(fabs(rn_vk_ticks_elapsed_ns(((UINT64_C(1) << 32) - 500), 500, 32, 2.0) -
			 2000.0) < 1e-9);
}

static void test_clock_best_keeps_lowest_deviation(void **state)
{
	struct rn_vk_clock_sample s[] = { { 1, 1, 50 }, { 2, 2, 10 }, { 3, 3, 30 }, { 4, 4, 10 } };

	(void)state;
	assert_int_equal(rn_vk_clock_best(s, 4), 1);
	assert_int_equal(rn_vk_clock_best(s, 1), 0);
}

static void test_clock_single_sample_extrapolates(void **state)
{
	const struct rn_vk_clock_sample s = { 1000, 5000000, 40 };
	const struct rn_vk_clock c = { 2.0, &s, 1, NULL };
	uint64_t host, unc;

	(void)state;
	/* 500 ticks of 2 ns after the sample; 100 ppm of 1000 ns is 0.1 -> 1 ns. */
	assert_int_equal(rn_vk_clock_map(&c, 1500, 64, &host, &unc), 0);
	assert_int_equal(host, 5001000);
	assert_int_equal(unc, 41);
	/* 1 s before the sample: uncertainty grows by 100 us. */
	assert_int_equal(rn_vk_clock_map(&c, 1000 - 500000000, 64, &host, &unc), -ERANGE);
	{
		const struct rn_vk_clock_sample late = { 600000000, 2000000000, 40 };
		const struct rn_vk_clock c2 = { 2.0, &late, 1, NULL };

		assert_int_equal(rn_vk_clock_map(&c2, 100000000, 64, &host, &unc), 0);
		assert_int_equal(host, 1000000000);
		assert_int_equal(unc, 40 + 100000);
	}
}

/* The GPU clock runs 100 ppm fast against the host: between two samples the mapping follows
 * the measured rate, not the nominal period. */
static void test_clock_interpolates_drift(void **state)
{
	struct rn_vk_clock_sample s[] = {
		{ 10000000000, 11000000000, 25 }, /* out of order on purpose */
		{ 0, 1000000000, 10 },
		{ 2000200000, 3000000000, 25 },
	};
	struct rn_vk_clock c = { 1.0, s, 3, NULL };
	uint64_t host, unc;

	(void)state;
	rn_vk_clock_sort(s, 3);
	assert_int_equal(s[0].host_ns, 1000000000);
	/* Halfway in GPU ticks is halfway in host time. */
	assert_int_equal(rn_vk_clock_map(&c, 1000100000, 64, &host, &unc), 0);
	assert_int_equal(host, 2000000000);
	assert_int_equal(unc, 25);
	/* Exactly at a sample: the bracketing pair's larger deviation still applies. */
	assert_int_equal(rn_vk_clock_map(&c, 0, 64, &host, &unc), 0);
	assert_int_equal(host, 1000000000);
	assert_int_equal(unc, 25);
	/* Past the last sample: extrapolated with the nominal period, plus 100 ppm. */
	assert_int_equal(rn_vk_clock_map(&c, 11000000000, 64, &host, &unc), 0);
	assert_int_equal(host, 12000000000);
	assert_int_equal(unc, 25 + 100000);
}

/* Samples on both sides of a 32-bit wrap. */
static void test_clock_maps_across_wrap(void **state)
{
	const struct rn_vk_clock_sample s[] = {
		{ 0xffff0000u, 7000000, 3 },
		{ 0x00010000u, 7131072, 3 },
	};
	const struct rn_vk_clock c = { 1.0, s, 2, NULL };
	uint64_t host, unc;

	(void)state;
	assert_int_equal(rn_vk_clock_map(&c, 0x100000005ull, 32, &host, &unc), 0);
	assert_int_equal(host, 7000000 + 0x10005);
	assert_int_equal(unc, 3);
}

/* Without calibration: spans begin after their submit and end before their harvest; the
 * mapping must contain the true offset within its uncertainty. */
static void test_clock_fallback_causal_bounds(void **state)
{
	const int64_t offset = 123456789; /* host = gpu + offset */
	struct rn_vk_fallback f;
	struct rn_vk_clock c = { 1.0, NULL, 0, &f };
	uint64_t host, unc;

	(void)state;
	rn_vk_fallback_init(&f);
	assert_int_equal(rn_vk_clock_map(&c, 1, 64, &host, &unc), -ENOENT);
	for (int i = 0; i < 20; i++) {
		uint64_t begin = 1000000 + (uint64_t)i * 100000, end = begin + 20000;
		uint64_t submit = begin + offset - 3000 - (uint64_t)(i % 5) * 1000;
		uint64_t harvest = end + offset + 2000 + (uint64_t)(i % 3) * 1000;

		rn_vk_fallback_add(&f, begin, end, 64, 1.0, submit, harvest);
	}
	assert_int_equal(rn_vk_clock_map(&c, 5000000, 64, &host, &unc), 0);
	assert_true((int64_t)host - (5000000 + offset) <= (int64_t)unc);
	assert_true((5000000 + offset) - (int64_t)host <= (int64_t)unc);
	/* The tightest latencies were 3000 and 2000 ns: the interval is 5000 wide. */
	assert_int_equal(unc, 2500);
}

static void test_clock_one_sided_fallback(void **state)
{
	struct rn_vk_fallback f;
	struct rn_vk_clock c = { 1.0, NULL, 0, &f };
	uint64_t host, unc;

	(void)state;
	rn_vk_fallback_init(&f);
	rn_vk_fallback_add(&f, 100, 200, 64, 1.0, 5000, 0);
	assert_int_equal(rn_vk_clock_map(&c, 100, 64, &host, &unc), 0);
	assert_int_equal(host, 5000);
	assert_int_equal(unc, UINT64_MAX);
}

static void test_clock_rejects_out_of_range(void **state)
{
	const struct rn_vk_clock_sample s = { 0, 10, 0 };
	const struct rn_vk_clock c = { 1e9, &s, 1, NULL };
	uint64_t host = 7, unc = 7;

	(void)state;
	assert_int_equal(rn_vk_clock_map(&c, UINT64_C(1) << 62, 64, &host, &unc), -ERANGE);
	assert_int_equal(host, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_mask_and_delta),
		cmocka_unit_test(test_clock_best_keeps_lowest_deviation),
		cmocka_unit_test(test_clock_single_sample_extrapolates),
		cmocka_unit_test(test_clock_interpolates_drift),
		cmocka_unit_test(test_clock_maps_across_wrap),
		cmocka_unit_test(test_clock_fallback_causal_bounds),
		cmocka_unit_test(test_clock_one_sided_fallback),
		cmocka_unit_test(test_clock_rejects_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
