/*
 * test_report_json.c - the JSON view (runner/report/report_json.h): JSON string escaping and the
 * objects of the renacer-trace schema (checked by parsing them back with jansson).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include <cmocka.h>
#include <jansson.h>

#include "buf.h"
#include "report_json.h"
#include "trace.h"

static struct rn_syscall_event ev_make(int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
				       int64_t ret, int err)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = 1234;
	ev.nr = nr;
	ev.args[0] = a0;
	ev.args[1] = a1;
	ev.args[2] = a2;
	ev.args[3] = a3;
	ev.ret = ret;
	ev.err = err;
	return ev;
}

static const char *json_str(const char *s)
{
	static char out[256];
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_json_add_string(&b, s);
	snprintf(out, sizeof(out), "%s", b.buf);
	rn_buf_release(&b);
	return out;
}

static void test_report_json_escaping(void **state)
{
	(void)state;
	assert_string_equal(json_str("plain"), "\"plain\"");
	assert_string_equal(json_str("q\"b\\s/"), "\"q\\\"b\\\\s/\"");
	assert_string_equal(json_str("\n\r\t\001\037\177"), "\"\\n\\r\\t\\u0001\\u001f\\u007f\"");
	/* valid UTF-8 is kept; bytes that are not UTF-8 become \u00XX of their value */
	assert_string_equal(json_str("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
	assert_string_equal(json_str("\xff\xc3"), "\"\\u00ff\\u00c3\"");
	assert_string_equal(json_str("\xc0\xaf"), "\"\\u00c0\\u00af\""); /* overlong '/' */
	assert_string_equal(json_str("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\""); /* surrogate */
	assert_string_equal(json_str(NULL), "null");
}

static json_t *parse(const struct rn_buf *b)
{
	json_error_t err;
	json_t *j = json_loads(b->buf, 0, &err);

	if (!j)
		fail_msg("invalid JSON (%s): %s", err.text, b->buf);
	return j;
}

static void test_report_json_syscall(void **state)
{
	struct rn_syscall_event ev;
	struct rn_buf b;
	json_t *j;

	(void)state;
	ev = ev_make(SYS_openat, (uint64_t)-100, 0x1000, O_RDONLY, 0, -ENOENT, ENOENT);
	ev.path = "/no\"pe";
	ev.start_ns = 1000;
	ev.duration_ns = 250;
	rn_buf_init(&b, 0);
	rn_json_add_syscall(&b, &ev);
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "type")), "syscall");
	assert_string_equal(json_string_value(json_object_get(j, "name")), "openat");
	assert_int_equal(json_integer_value(json_object_get(j, "nr")), SYS_openat);
	assert_int_equal(json_integer_value(json_object_get(j, "pid")), 1234);
	assert_string_equal(json_string_value(json_object_get(j, "path")), "/no\"pe");
	assert_int_equal(json_integer_value(json_object_get(j, "ret")), -ENOENT);
	assert_string_equal(json_string_value(json_object_get(j, "errno")), "ENOENT");
	assert_int_equal(json_array_size(json_object_get(j, "args")), 6);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "args"), 0)),
			    "0xffffffffffffff9c");
	assert_int_equal(json_integer_value(json_object_get(j, "duration_ns")), 250);
	assert_true(json_is_false(json_object_get(j, "unfinished")));
	json_decref(j);

	rn_buf_reset(&b);
	ev = ev_make(SYS_exit_group, 0, 0, 0, 0, 0, 0);
	ev.flags = RN_SC_UNFINISHED;
	rn_json_add_syscall(&b, &ev);
	j = parse(&b);
	assert_true(json_is_null(json_object_get(j, "ret")));
	assert_true(json_is_null(json_object_get(j, "path")));
	assert_true(json_is_true(json_object_get(j, "unfinished")));
	json_decref(j);
	rn_buf_release(&b);
}

static void test_report_json_process_and_summary(void **state)
{
	struct rn_trace t;
	struct rn_process *root, *child;
	struct rn_syscall_event ev;
	struct rn_buf b;
	json_t *j, *row;

	(void)state;
	rn_trace_init(&t);
	root = rn_trace_add_process(&t, 100, 0, 10);
	rn_process_set_exe(root, "/usr/bin/make");
	child = rn_trace_add_process(&t, 101, 100, 20);
	child->end = RN_PROC_SIGNALED;
	child->term_signal = 11;
	child->core_dumped = true;
	child->reaped_by = 0;
	child->reaped_ns = 30;
	ev = ev_make(SYS_write, 1, 0, 1, 0, 1, 0);
	ev.pid = ev.tid = 101;
	ev.duration_ns = 7;
	rn_trace_syscall(&t, &t.procs[1], &ev);

	rn_buf_init(&b, 0);
	rn_json_add_process(&b, &t, &t.procs[1], 'x');
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "event")), "exit");
	assert_string_equal(json_string_value(json_object_get(j, "end")), "signaled");
	assert_string_equal(json_string_value(json_object_get(j, "signal")), "SIGSEGV");
	assert_true(json_is_true(json_object_get(j, "core_dumped")));
	assert_int_equal(json_integer_value(json_object_get(j, "reaped_by")), 100);
	assert_int_equal(json_integer_value(json_object_get(j, "syscalls")), 1);
	assert_true(json_is_null(json_object_get(j, "exe")));
	json_decref(j);

	rn_buf_reset(&b);
	rn_json_add_process(&b, &t, &t.procs[0], 0);
	j = parse(&b);
	assert_null(json_object_get(j, "type"));
	assert_string_equal(json_string_value(json_object_get(j, "comm")), "make");
	assert_true(json_is_null(json_object_get(j, "reaped_by")));
	json_decref(j);

	rn_buf_reset(&b);
	rn_json_add_summary(&b, &t);
	j = parse(&b);
	assert_int_equal(json_array_size(j), 1);
	row = json_array_get(j, 0);
	assert_string_equal(json_string_value(json_object_get(row, "syscall")), "write");
	assert_int_equal(json_integer_value(json_object_get(row, "calls")), 1);
	assert_int_equal(json_integer_value(json_object_get(row, "total_ns")), 7);
	json_decref(j);

	rn_buf_reset(&b);
	rn_buf_addc(&b, '{');
	t.status = RN_RUN_TIMED_OUT;
	rn_trace_fail(&t, RN_RUN_TIMED_OUT, "target 'x' timed out after %d s", 1);
	rn_json_add_run_members(&b, &t);
	rn_buf_addc(&b, '}');
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "timed_out");
	assert_string_equal(json_string_value(json_object_get(j, "error")),
			    "target 'x' timed out after 1 s");
	assert_int_equal(json_integer_value(json_object_get(j, "process_count")), 2);
	json_decref(j);
	rn_buf_release(&b);
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_json_escaping),
		cmocka_unit_test(test_report_json_syscall),
		cmocka_unit_test(test_report_json_process_and_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
