/*
 * test_now.c - util/now.h: each clock read in ns is the clock_gettime(2) reading it stands
 * between, the realtime one is on the Unix epoch, and an invalid clock reads 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "now.h"

static uint64_t ts_ns(clockid_t id)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(id, &ts), 0);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A reading of each clock lies between two clock_gettime readings taken around it. */
static void test_now_between_readings(void **state)
{
	static const clockid_t ids[] = { CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_THREAD_CPUTIME_ID };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		uint64_t before = ts_ns(ids[i]);
		uint64_t now = rn_now_ns(ids[i]);
		uint64_t after = ts_ns(ids[i]);

		assert_true(before <= now);
		assert_true(now <= after);
	}
	{
		uint64_t before = ts_ns(CLOCK_MONOTONIC), now = rn_mono_ns();

		assert_true(before <= now && now <= ts_ns(CLOCK_MONOTONIC));
	}
}

/* rn_real_ns counts from the Unix epoch: its seconds are time(2)'s. */
static void test_now_real_is_unix(void **state)
{
	time_t before, after;
	uint64_t s;

	(void)state;
	before = time(NULL);
	s = rn_real_ns() / 1000000000u;
	after = time(NULL);
	assert_true((uint64_t)before <= s);
	assert_true(s <= (uint64_t)after);
}

/* A clock id the kernel does not have reads 0, not an uninitialized timespec. */
static void test_now_invalid_clock(void **state)
{
	(void)state;
	assert_int_equal(rn_now_ns((clockid_t)1000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_now_between_readings),
		cmocka_unit_test(test_now_real_is_unix),
		cmocka_unit_test(test_now_invalid_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
