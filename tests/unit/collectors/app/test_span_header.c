/*
 * test_span_header.c - the records renacer_span.h writes (collectors/app/renacer_span.h): a
 * name longer than RENACER_SPAN_NAME_MAX is cut between UTF-8 characters; push and pop carry
 * the thread's CPU clock in t1_ns.
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

#include "app/renacer_span.h"

/* The span pipe, as renacer passes it (the header looks RENACER_SPAN_FD up once). */
static int pipe_fds[2];

static int setup(void **state)
{
	char fd[16];

	(void)state;
	if (pipe(pipe_fds))
		return -1;
	snprintf(fd, sizeof(fd), "%d", pipe_fds[1]);
	return setenv(RENACER_SPAN_FD_ENV, fd, 1);
}

static int teardown(void **state)
{
	(void)state;
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	return 0;
}

/* The record renacer_span_push(name) writes. */
static struct renacer_span_rec push_record(const char *name)
{
	struct renacer_span_rec r;

	renacer_span_push(name);
	assert_int_equal(read(pipe_fds[0], &r, sizeof(r)), (ssize_t)sizeof(r));
	assert_int_equal(r.magic, RENACER_SPAN_MAGIC);
	assert_int_equal(r.op, RENACER_SPAN_PUSH);
	return r;
}

/* 95 ASCII bytes then "é" (2 bytes): the cut at 96 would split it; it is left out whole. */
static void test_span_header_cut_between_characters(void **state)
{
	char name[128];
	struct renacer_span_rec r;

	(void)state;
	memset(name, 'a', 95);
	memcpy(name + 95, "\xc3\xa9", 3);
	r = push_record(name);
	assert_int_equal(r.name_len, 95);
	assert_memory_equal(r.name, name, 95);
	/* a 4-byte character at 94..97: cut before it */
	memset(name, 'b', 94);
	memcpy(name + 94, "\xf0\x9f\x98\x80z", 6);
	r = push_record(name);
	assert_int_equal(r.name_len, 94);
}

/* ASCII names are cut at exactly RENACER_SPAN_NAME_MAX bytes, as before. */
static void test_span_header_cut_ascii(void **state)
{
	char name[200];
	struct renacer_span_rec r;

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	r = push_record(name);
	assert_int_equal(r.name_len, RENACER_SPAN_NAME_MAX);
	r = push_record("short");
	assert_int_equal(r.name_len, 5);
	assert_memory_equal(r.name, "short", 5);
}

/* Push and pop carry the thread's CPU clock (not 0, not going back) in t1_ns. */
static void test_span_header_cpu_clock(void **state)
{
	struct renacer_span_rec push, pop;

	(void)state;
	push = push_record("cpu");
	renacer_span_pop();
	assert_int_equal(read(pipe_fds[0], &pop, sizeof(pop)), (ssize_t)sizeof(pop));
	assert_int_equal(pop.op, RENACER_SPAN_POP);
	assert_true(push.t1_ns > 0);
	assert_true(pop.t1_ns >= push.t1_ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_header_cut_between_characters),
		cmocka_unit_test(test_span_header_cut_ascii),
		cmocka_unit_test(test_span_header_cpu_clock),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
