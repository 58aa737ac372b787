/*
 * test_span_cpu.c - a renacer_span.h span's own CPU time as the app collector reads it
 * (collectors/app/app.c through rn_app_replay): push and pop carry the thread's CPU clock in
 * t1_ns, the span's CPU time is their difference; records that hold 0 there (written before
 * the clock was carried) or a pop below its push give no CPU time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "app/app.h"
#include "app/renacer_span.h"
#include "trace.h"

#define MS 1000000ull

/* A record of operation `op` at t0 ms (run clock), thread CPU clock `cpu_ns` in t1_ns. */
static struct renacer_span_rec rec(uint16_t op, const char *name, uint64_t t0_ms, uint64_t cpu_ns)
{
	struct renacer_span_rec r;

	memset(&r, 0, sizeof(r));
	r.magic = RENACER_SPAN_MAGIC;
	r.op = op;
	r.pid = 5;
	r.tid = 5;
	r.name_len = name ? (uint16_t)strlen(name) : 0;
	if (name)
		memcpy(r.name, name, r.name_len);
	r.t0_ns = 1000 * MS + t0_ms * MS;
	r.t1_ns = cpu_ns;
	return r;
}

/* The app span named `name` of `t`. */
static const struct rn_app_span *span(const struct rn_trace *t, const char *name)
{
	for (size_t i = 0; i < t->napp; i++)
		if (!strcmp(t->app[i].name, name))
			return &t->app[i];
	fail_msg("no span %s", name);
	return NULL;
}

static void test_span_cpu_records(void **state)
{
	struct renacer_span_rec r[8];
	struct rn_trace t;
	const struct rn_app_span *s;

	(void)state;
	/* new: outer [0, 50) ms with CPU clock 7 ms .. 19 ms; inner [10, 20) 9 ms .. 10 ms */
	r[0] = rec(RENACER_SPAN_PUSH, "outer", 0, 7 * MS);
	r[1] = rec(RENACER_SPAN_PUSH, "inner", 10, 9 * MS);
	r[2] = rec(RENACER_SPAN_POP, NULL, 20, 10 * MS);
	r[3] = rec(RENACER_SPAN_POP, NULL, 50, 19 * MS);
	/* old: 0 in t1_ns at push and pop */
	r[4] = rec(RENACER_SPAN_PUSH, "old", 60, 0);
	r[5] = rec(RENACER_SPAN_POP, NULL, 70, 0);
	/* a pop below its push (not a clock of one thread): no CPU time, never a wrap */
	r[6] = rec(RENACER_SPAN_PUSH, "back", 80, 30 * MS);
	r[7] = rec(RENACER_SPAN_POP, NULL, 90, 20 * MS);
	rn_trace_init(&t);
	t.start_ns = 1000 * MS;
	t.end_ns = 2000 * MS;
	assert_int_equal(rn_app_replay(r, sizeof(r), NULL, 0, false, &t), 0);
	assert_int_equal(t.napp, 4);
	s = span(&t, "outer");
	assert_true(s->flags & RN_APP_CPU);
	assert_int_equal(s->cpu_ns, 12 * MS);
	assert_int_equal(s->end_ns - s->start_ns, 50 * MS);
	s = span(&t, "inner");
	assert_true(s->flags & RN_APP_CPU);
	assert_int_equal(s->cpu_ns, 1 * MS);
	s = span(&t, "old");
	assert_false(s->flags & RN_APP_CPU);
	assert_int_equal(s->cpu_ns, 0);
	s = span(&t, "back");
	assert_false(s->flags & RN_APP_CPU);
	assert_int_equal(s->cpu_ns, 0);
	rn_trace_release(&t);
}

/* A push with the clock and a pop without (a mixed record stream): no CPU time. */
static void test_span_cpu_half_known(void **state)
{
	struct renacer_span_rec r[2];
	struct rn_trace t;

	(void)state;
	r[0] = rec(RENACER_SPAN_PUSH, "half", 0, 5 * MS);
	r[1] = rec(RENACER_SPAN_POP, NULL, 10, 0);
	rn_trace_init(&t);
	t.start_ns = 1000 * MS;
	t.end_ns = 2000 * MS;
	assert_int_equal(rn_app_replay(r, sizeof(r), NULL, 0, false, &t), 0);
	assert_int_equal(t.napp, 1);
	assert_false(t.app[0].flags & RN_APP_CPU);
	assert_int_equal(t.app[0].cpu_ns, 0);
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_cpu_records),
		cmocka_unit_test(test_span_cpu_half_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
