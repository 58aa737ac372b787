/*
 * test_profile_window.c - the on-CPU samples inside time windows (collectors/profile.h,
 * rn_profile_window_count): half-open windows, the window's thread, overlapping windows
 * counting a sample once, stacks out of range skipped, unsorted samples; and the syscall
 * profile's two times of a call stack: its calls' durations (RN_PROFILE_SYSCALLS) and their
 * threads' CPU time in them (RN_PROFILE_SYSCALL_CPU, the duration where none was read).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

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

/* The folded text of `kind` of `p` over `t` (owned). */
static char *folded(struct rn_profile *p, const struct rn_trace *t, enum rn_profile_kind kind)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	assert_non_null(mem);
	assert_int_equal(rn_profile_write_folded(p, t, kind, NULL, mem), 0);
	fclose(mem);
	return text;
}

/* A blocked write (1 ms at the stops, 20 us of it on CPU), twice, and a read whose CPU time
 * was not read: the time view sums the durations, the CPU view the CPU times and, for the
 * read, its duration; a call that never returned is in neither. */
static void test_syscall_cpu(void **state)
{
	struct rn_trace t;
	struct rn_process *proc;
	struct rn_profile *p = rn_profile_new();
	struct rn_syscall_event ev;
	char *time, *cpu, *calls;

	(void)state;
	rn_trace_init(&t);
	assert_int_equal(rn_profile_attach(p, &t, 0), 0);
	proc = rn_trace_add_process(&t, 4242, 1, 1);
	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = 4242;
	ev.nstack = 1;
	ev.stack[0] = 0x1000; /* no mappings: the frame stays raw, one stack per call site */
	ev.nr = SYS_write;
	ev.flags = RN_SC_CPU;
	ev.duration_ns = 1000000;
	ev.cpu_ns = 20000;
	rn_trace_syscall(&t, proc, &ev);
	rn_trace_syscall(&t, proc, &ev);
	ev.stack[0] = 0x2000;
	ev.nr = SYS_read;
	ev.flags = 0;
	ev.duration_ns = 3000;
	ev.cpu_ns = 0;
	rn_trace_syscall(&t, proc, &ev);
	ev.flags = RN_SC_UNFINISHED;
	ev.duration_ns = 5000000;
	rn_trace_syscall(&t, proc, &ev);
	time = folded(p, &t, RN_PROFILE_SYSCALLS);
	cpu = folded(p, &t, RN_PROFILE_SYSCALL_CPU);
	calls = folded(p, &t, RN_PROFILE_SYSCALL_CALLS);
	assert_non_null(strstr(time, ";write 2000000\n"));
	assert_non_null(strstr(time, ";read 3000\n"));
	assert_non_null(strstr(cpu, ";write 40000\n"));
	assert_non_null(strstr(cpu, ";read 3000\n"));
	assert_non_null(strstr(calls, ";write 2\n"));
	assert_non_null(strstr(calls, ";read 1\n"));
	free(time);
	free(cpu);
	free(calls);
	rn_profile_free(p);
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_open_any_thread),
		cmocka_unit_test(test_thread_and_overlap),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_syscall_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
