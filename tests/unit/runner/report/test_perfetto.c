/*
 * test_perfetto.c - the Chrome Trace Event timeline: the file parses as JSON (jansson), has
 * the object form with displayTimeUnit, names every track with "M" metadata, and has exactly
 * one complete ("X") slice per recorded span with the required keys, with and without a spool.
 */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "integration/otlp/fixture.h"
#include "perfetto.h"

/* The outcome of the head targets `t[0..n)`, no bases (static storage). */
static const struct rn_outcome *heads(struct rn_target_result *t, size_t n)
{
	static struct rn_outcome oc;

	memset(&oc, 0, sizeof(oc));
	oc.targets = t;
	oc.ntargets = n;
	return &oc;
}

static char out_path[256];

static int setup(void **state)
{
	(void)state;
	snprintf(out_path, sizeof(out_path), "%s/test_perfetto.%ld.json",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(out_path);
	return 0;
}

struct counts {
	size_t slices;        /* ph "X" */
	size_t process;       /* cat "process" */
	size_t syscall;       /* cat "syscall" */
	size_t gpu;           /* cat "gpu" */
	size_t process_names; /* "M" process_name */
	size_t thread_names;  /* "M" thread_name */
	size_t gpu_tracks;    /* process_name "GPU" */
};

/* Load the file, check the required keys of every event and count them. */
static json_t *load(struct counts *c)
{
	json_error_t err;
	json_t *j = json_load_file(out_path, 0, &err), *events, *ev;
	size_t i;

	if (!j)
		fail_msg("%s:%d: %s", out_path, err.line, err.text);
	assert_string_equal(json_string_value(json_object_get(j, "displayTimeUnit")), "ns");
	events = json_object_get(j, "traceEvents");
	assert_true(json_is_array(events));
	memset(c, 0, sizeof(*c));
	json_array_foreach(events, i, ev)
	{
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *name = json_string_value(json_object_get(ev, "name"));

		assert_non_null(ph);
		assert_non_null(name);
		assert_true(json_is_integer(json_object_get(ev, "pid")));
		assert_true(json_is_integer(json_object_get(ev, "tid")));
		assert_true(json_is_object(json_object_get(ev, "args")));
		if (!strcmp(ph, "M")) {
			const char *v = json_string_value(
				json_object_get(json_object_get(ev, "args"), "name"));

			if (!strcmp(name, "process_name")) {
				assert_non_null(v);
				c->process_names++;
				c->gpu_tracks += !strcmp(v, "GPU");
			} else if (!strcmp(name, "thread_name")) {
				assert_non_null(v);
				c->thread_names++;
			}
			continue;
		}
		assert_string_equal(ph, "X");
		assert_true(json_is_number(json_object_get(ev, "ts")));
		assert_true(json_is_number(json_object_get(ev, "dur")));
		assert_true(json_number_value(json_object_get(ev, "dur")) >= 0);
		c->slices++;
		if (!strcmp(json_string_value(json_object_get(ev, "cat")), "process"))
			c->process++;
		else if (!strcmp(json_string_value(json_object_get(ev, "cat")), "syscall"))
			c->syscall++;
		else if (!strcmp(json_string_value(json_object_get(ev, "cat")), "gpu"))
			c->gpu++;
	}
	return j;
}

static json_t *event_named(json_t *j, const char *name)
{
	json_t *ev;
	size_t i;

	json_array_foreach(json_object_get(j, "traceEvents"), i,
			   ev) if (!strcmp(json_string_value(json_object_get(ev, "name")),
					   name)) return ev;
	fail_msg("no event named '%s'", name);
	return NULL;
}

static void test_perfetto_with_spool(void **state)
{
	struct counts c;
	struct fx f;
	json_t *j, *ev;

	(void)state;
	fx_init(&f, true);
	assert_int_equal(rn_perfetto_write(out_path, heads(f.targets, 2)), 0);
	j = load(&c);
	assert_int_equal(c.process, 4);          /* 3 processes of api, 1 of batch */
	assert_int_equal(c.syscall, FX_SPOOLED); /* one slice per spooled span */
	assert_int_equal(c.gpu, 2);
	assert_int_equal(c.slices, 4 + FX_SPOOLED + 2);
	assert_int_equal(c.process_names, 4 + 1); /* + the GPU track */
	assert_int_equal(c.gpu_tracks, 1);
	/* main threads of the 4 processes, thread 1003 of api-server, 2 queue families */
	assert_int_equal(c.thread_names, 4 + 1 + 2);

	/* ts in microseconds from the earliest start; dur in microseconds. */
	ev = event_named(j, "process:api-server");
	assert_true(json_number_value(json_object_get(ev, "ts")) == 0.0);
	assert_true(json_number_value(json_object_get(ev, "dur")) == 500000.0);
	ev = event_named(j, "gpu:matmul");
	assert_true(json_number_value(json_object_get(ev, "ts")) == 20000.0);
	assert_true(json_number_value(json_object_get(ev, "dur")) == 10000.0);
	assert_int_equal(json_integer_value(json_array_get(
				 json_object_get(json_object_get(ev, "args"), "groups"), 0)),
			 8);
	ev = event_named(j, "openat");
	assert_true(json_number_value(json_object_get(ev, "ts")) == 2000.0);
	assert_true(json_number_value(json_object_get(ev, "dur")) == 100.0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "args"), "path")),
			    "/etc/api.conf");
	/* Invalid UTF-8 in names becomes U+FFFD instead of an invalid file. */
	event_named(j,
		    "process:\xef\xbf\xbd\xef\xbf\xbd"
		    "bad");
	json_decref(j);

	/* The spool replays again for the next output. */
	assert_int_equal(rn_perfetto_write(out_path, heads(f.targets, 2)), 0);
	j = load(&c);
	assert_int_equal(c.syscall, FX_SPOOLED);
	json_decref(j);
	fx_release(&f);
}

static void test_perfetto_aggregate(void **state)
{
	struct counts c;
	struct fx f;
	json_t *j, *ev, *by;

	(void)state;
	fx_init(&f, false);
	assert_int_equal(rn_perfetto_write(out_path, heads(f.targets, 2)), 0);
	j = load(&c);
	assert_int_equal(c.process, 4);
	assert_int_equal(c.syscall, 2); /* api-server and sh made syscalls */
	assert_int_equal(c.gpu, 2);
	ev = event_named(j, "syscalls");
	by = json_object_get(json_object_get(ev, "args"), "by_syscall");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(by, "read"), "calls")),
			 5);
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(by, "openat"), "errors")),
			 1);
	json_decref(j);
	fx_release(&f);
}

/* With --baseline the timeline shows the base sides after the heads. */
static void test_perfetto_base_sides(void **state)
{
	struct rn_outcome oc;
	struct counts c;
	struct fx f;
	json_t *j;

	(void)state;
	fx_init(&f, false);
	assert_int_equal(rn_perfetto_write(out_path, heads(f.targets, 1)), 0);
	j = load(&c);
	assert_int_equal(c.process, 3); /* api only */
	json_decref(j);
	memset(&oc, 0, sizeof(oc));
	oc.targets = &f.targets[0]; /* head: api */
	oc.bases = &f.targets[1];   /* its base side: batch */
	oc.ntargets = 1;
	assert_int_equal(rn_perfetto_write(out_path, &oc), 0);
	j = load(&c);
	assert_int_equal(c.process, 3 + 1);
	event_named(j, "process:batch");
	json_decref(j);
	fx_release(&f);
}

static void test_perfetto_empty_and_errors(void **state)
{
	struct rn_target_result none;
	struct counts c;
	json_t *j;

	(void)state;
	rn_target_result_init(&none, "nothing");
	assert_int_equal(rn_perfetto_write(out_path, heads(&none, 1)), 0);
	j = load(&c);
	assert_int_equal(c.slices, 0);
	json_decref(j);
	assert_int_equal(rn_perfetto_write(out_path, heads(NULL, 0)), 0);
	assert_int_equal(rn_perfetto_write("/nonexistent-dir/t.json", heads(&none, 1)), -ENOENT);
	rn_target_result_release(&none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_perfetto_with_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perfetto_aggregate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perfetto_base_sides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perfetto_empty_and_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
