/*
 * test_cpuset.c - CPU placements from the affinity (util/cpuset.h): the span of n CPUs
 * from a first one, the first of the highest n, and the count, checked against a narrowed
 * affinity of the test's own thread (restored after each test); and the claims that keep
 * checks running at once off each other's CPUs, in a lock directory of the test's own.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A fresh lock directory for the claims (removed with its lock files afterwards). */
static char lockdir[PATH_MAX];

static int make_lockdir(void **state)
{
	snprintf(lockdir, sizeof(lockdir), "/tmp/rn-test-claim-XXXXXX");
	if (!mkdtemp(lockdir))
		return -1;
	return save_affinity(state);
}

static int remove_lockdir(void **state)
{
	char path[PATH_MAX + 32];

	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d.lock", lockdir, cpu);
		(void)unlink(path);
	}
	(void)rmdir(lockdir);
	return restore_affinity(state);
}

/* Two claims never hold the same CPU: the second skips the first's (in the same process, as
 * flock(2) locks belong to the open file, not the process), and with every CPU held a claim is
 * refused with -EBUSY until one is released. */
static void test_cpu_claim_excludes(void **state)
{
	int n = CPU_COUNT(&saved), first = nth_allowed(0);
	struct rn_cpu_claim a, b, c;
	cpu_set_t one;

	(void)state;
	assert_int_equal(rn_cpu_claim(lockdir, 1, first, &a), 0);
	assert_int_equal(a.first, first); /* the preferred CPU when it is free */
	assert_int_equal(a.n, 1);
	if (n >= 2) {
		assert_int_equal(rn_cpu_claim(lockdir, 1, first, &b), 0);
		assert_int_not_equal(b.first, first);
		assert_true(CPU_ISSET(b.first, &saved));
		rn_cpu_claim_release(&b);
	}
	/* narrowed to the held CPU: nothing left to claim */
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(rn_cpu_claim(lockdir, 1, -1, &c), -EBUSY);
	assert_int_equal(c.first, -1);
	assert_int_equal(c.nfds, 0);
	rn_cpu_claim_release(&a);
	assert_int_equal(a.first, -1);
	assert_int_equal(rn_cpu_claim(lockdir, 1, -1, &c), 0);
	assert_int_equal(c.first, first);
	rn_cpu_claim_release(&c);
	assert_int_equal(rn_cpu_claim(lockdir, 0, -1, &c), -EINVAL);
	assert_int_equal(rn_cpu_claim(lockdir, RN_CPU_CLAIM_MAX + 1, -1, &c), -EINVAL);
}

/* A window of n CPUs is taken from the top of the affinity down, and a window overlapping a
 * held CPU is passed over for the next one down. */
static void test_cpu_claim_windows(void **state)
{
	int n = CPU_COUNT(&saved), w = n / 2 < RN_CPU_CLAIM_MAX ? n / 2 : RN_CPU_CLAIM_MAX;
	struct rn_cpu_claim top, next;

	(void)state;
	if (w < 1)
		skip();
	assert_int_equal(rn_cpu_claim(lockdir, w, -1, &top), 0);
	assert_int_equal(top.first, nth_allowed(n - w));
	assert_int_equal(top.nfds, w);
	assert_int_equal(rn_cpu_claim(lockdir, w, -1, &next), 0);
	assert_int_equal(next.first, nth_allowed(n - 2 * w));
	rn_cpu_claim_release(&next);
	rn_cpu_claim_release(&top);
}

/* The lock directory is this user's: created 0700 under $XDG_RUNTIME_DIR, and refused when
 * what is there is not a directory. */
static void test_cpu_claim_dir(void **state)
{
	char dir[PATH_MAX], planted[PATH_MAX + 16];
	struct stat st;
	FILE *f;

	(void)state;
	assert_int_equal(setenv("XDG_RUNTIME_DIR", lockdir, 1), 0);
	assert_int_equal(rn_cpu_claim_dir(dir, sizeof(dir)), 0);
	snprintf(planted, sizeof(planted), "%s/renacer", lockdir);
	assert_string_equal(dir, planted);
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(rmdir(dir), 0);
	f = fopen(planted, "w"); /* a file where the directory goes */
	assert_non_null(f);
	fclose(f);
	assert_int_equal(rn_cpu_claim_dir(dir, sizeof(dir)), -EPERM);
	assert_int_equal(unlink(planted), 0);
	assert_int_equal(rn_cpu_claim_dir(dir, 4), -ENAMETOOLONG);
	unsetenv("XDG_RUNTIME_DIR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cpuset_count_matches_affinity, save_affinity,
						restore_affinity),
		cmocka_unit_test_setup_teardown(test_cpuset_span_in_affinity_order, save_affinity,
						restore_affinity),
		cmocka_unit_test_setup_teardown(test_cpuset_top, save_affinity, restore_affinity),
		cmocka_unit_test_setup_teardown(test_cpu_claim_excludes, make_lockdir,
						remove_lockdir),
		cmocka_unit_test_setup_teardown(test_cpu_claim_windows, make_lockdir,
						remove_lockdir),
		cmocka_unit_test_setup_teardown(test_cpu_claim_dir, make_lockdir, remove_lockdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
