/*
 * test_profile_window.c - the on-CPU samples inside time windows (collectors/profile.h,
 * rn_profile_window_count): half-open windows, the window's thread, overlapping windows
 * counting a sample once, stacks out of range skipped, unsorted samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "profile.h"

/* Samples out of time order, as the per-CPU rings deliver them. */
static void fill(struct rn_profile_timed *s)
{
	static const struct rn_profile_timed v[] = {
		{ 500, 7, 1 }, { 100, 7, 0 }, { 200, 8, 1 }, { 199, 7, 2 },
		{ 300, 7, 1 }, { 99, 7, 0 },  { 250, 7, 9 },
	};

	memcpy(s, v, sizeof(v));
}

static void test_half_open_any_thread(void **state)
{
	struct rn_profile_timed s[7];
	struct rn_profile_window w[] = { { 100, 300, 0 } };
	uint64_t counts[3] = { 0 };

	(void)state;
	fill(s);
	/* 100, 199, 200 are in; 99 is before, 300 is the end (excluded), 250's stack is 9 */
	assert_int_equal(rn_profile_window_count(s, 7, w, 1, counts, 3), 3);
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[1], 1);
	assert_int_equal(counts[2], 1);
	/* sorted by time in place */
	for (size_t i = 1; i < 7; i++)
		assert_true(s[i - 1].time_ns <= s[i].time_ns);
}

static void test_thread_and_overlap(void **state)
{
	struct rn_profile_timed s[7];
	/* two overlapping windows of thread 7 and one of thread 8 */
	struct rn_profile_window w[] = { { 0, 301, 7 }, { 150, 600, 7 }, { 200, 201, 8 } };
	uint64_t counts[3] = { 0 };

	(void)state;
	fill(s);
	/* thread 7: 99, 100 (stack 0), 199 (2), 300, 500 (1); thread 8: 200 (1); each once */
	assert_int_equal(rn_profile_window_count(s, 7, w, 3, counts, 3), 6);
	assert_int_equal(counts[0], 2);
	assert_int_equal(counts[1], 3);
	assert_int_equal(counts[2], 1);
}

static void test_empty(void **state)
{
	struct rn_profile_timed s[7];
	struct rn_profile_window w[] = { { 1000, 2000, 0 }, { 5, 5, 0 } };
	uint64_t counts[3] = { 0 };

	(void)state;
	fill(s);
	assert_int_equal(rn_profile_window_count(s, 7, w, 2, counts, 3), 0);
	assert_int_equal(rn_profile_window_count(s, 7, w, 0, counts, 3), 0);
	assert_int_equal(rn_profile_window_count(NULL, 0, w, 2, counts, 3), 0);
	assert_int_equal(counts[0] + counts[1] + counts[2], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_open_any_thread),
		cmocka_unit_test(test_thread_and_overlap),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
