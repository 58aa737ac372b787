/*
 * test_cpuset.c - CPU placements from the affinity (runner/util/cpuset.h): the span of n CPUs
 * from a first one, the first of the highest n, and the count, checked against a narrowed
 * affinity of the test's own thread (restored after each test).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cpuset.h"

static cpu_set_t saved;

static int save_affinity(void **state)
{
	(void)state;
	return sched_getaffinity(0, sizeof(saved), &saved) ? -1 : 0;
}

static int restore_affinity(void **state)
{
	(void)state;
	return sched_setaffinity(0, sizeof(saved), &saved) ? -1 : 0;
}

/* The i-th allowed CPU of the saved affinity, or -1. */
static int nth_allowed(int i)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &saved) && i-- == 0)
			return cpu;
	return -1;
}

static void test_cpuset_count_matches_affinity(void **state)
{
	(void)state;
	assert_int_equal(rn_cpuset_count(), CPU_COUNT(&saved));
}

/* The span takes the allowed CPUs from `first` on, in order, and says how many it found. */
static void test_cpuset_span_in_affinity_order(void **state)
{
	int n = CPU_COUNT(&saved), first = nth_allowed(0), last = nth_allowed(n - 1);
	cpu_set_t set;

	(void)state;
	assert_int_equal(rn_cpuset_span(first, 1, &set), 1);
	assert_int_equal(CPU_COUNT(&set), 1);
	assert_true(CPU_ISSET(first, &set));
	assert_int_equal(rn_cpuset_span(first, n, &set), n);
	assert_true(CPU_EQUAL(&set, &saved));
	/* more than the affinity holds from `last` on: only what is there */
	assert_int_equal(rn_cpuset_span(last, n + 3, &set), 1);
	assert_true(CPU_ISSET(last, &set));
	/* a CPU outside the affinity places nothing */
	assert_int_equal(rn_cpuset_span(-1, 1, &set), 0);
	assert_int_equal(CPU_COUNT(&set), 0);
}

/* The highest n: with the affinity narrowed to its first CPU, n = 1 is that CPU and n = 2 is
 * impossible; with the whole affinity, n = all is its lowest CPU. */
static void test_cpuset_top(void **state)
{
	int n = CPU_COUNT(&saved), first = nth_allowed(0);
	cpu_set_t one;

	(void)state;
	assert_int_equal(rn_cpuset_top(n), first);
	assert_int_equal(rn_cpuset_top(1), nth_allowed(n - 1));
	assert_int_equal(rn_cpuset_top(n + 1), -1);
	assert_int_equal(rn_cpuset_top(0), -1);
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(rn_cpuset_count(), 1);
	assert_int_equal(rn_cpuset_top(1), first);
	assert_int_equal(rn_cpuset_top(2), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cpuset_count_matches_affinity, save_affinity,
						restore_affinity),
		cmocka_unit_test_setup_teardown(test_cpuset_span_in_affinity_order, save_affinity,
						restore_affinity),
		cmocka_unit_test_setup_teardown(test_cpuset_top, save_affinity, restore_affinity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
