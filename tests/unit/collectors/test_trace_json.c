/*
 * test_trace_json.c - the renacer-trace reader (collectors/trace_json.h) against its writer
 * (runner/report/report_json.h): what one writes, the other reads back field by field, in
 * both forms (JSONL stream, JSON document); bad input is an error with its line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "buf.h"
#include "report_json.h"
#include "trace_json.h"

struct seen {
	struct rn_syscall_event ev[4]; /* syscalls read, strings dropped */
	char path[4][64];              /* their paths */
	char argv0[64];                /* first argv string of the last span with argv */
	size_t nsc;
	struct rn_tj_process proc[8]; /* processes read, exe dropped */
	char events[9];               /* their events, in order */
	size_t nproc;
};

static void on_process(void *ctx, const struct rn_tj_process *p, char event)
{
	struct seen *s = ctx;

	assert_true(s->nproc < 8);
	s->proc[s->nproc] = *p;
	s->proc[s->nproc].exe = NULL;
	s->events[s->nproc++] = event;
}

static void on_syscall(void *ctx, const struct rn_syscall_event *ev)
{
	struct seen *s = ctx;

	assert_true(s->nsc < 4);
	s->ev[s->nsc] = *ev;
	snprintf(s->path[s->nsc], sizeof(s->path[0]), "%s", ev->path ? ev->path : "");
	if (ev->argv)
		snprintf(s->argv0, sizeof(s->argv0), "%s", ev->argv);
	s->nsc++;
}

static const struct rn_tj_sink sink = { on_process, on_syscall };

static struct rn_syscall_event openat_event(void)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = 41;
	ev.tid = 42;
	ev.nr = SYS_openat;
	ev.args[0] = (uint64_t)-100;
	ev.args[1] = 0x1000;
	ev.ret = -2;
	ev.err = ENOENT;
	ev.path = "/etc/missing";
	return ev;
}

static void test_trace_json_jsonl_round_trip(void **state)
{
	struct rn_trace t;
	struct rn_process *p;
	struct rn_syscall_event ev = openat_event();
	static const char argv[] = "sh\0-c\0";
	struct seen s;
	struct rn_buf b;
	const char *err;
	size_t line;

	(void)state;
	memset(&s, 0, sizeof(s));
	rn_trace_init(&t);
	p = rn_trace_add_process(&t, 41, 1, 5);
	p->end = RN_PROC_SIGNALED;
	p->term_signal = 9;
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "{\"type\":\"header\",\"schema\":\"renacer-trace\",\"version\":1}\n");
	rn_json_add_process(&b, &t, p, 'f');
	rn_buf_addc(&b, '\n');
	rn_json_add_syscall(&b, &ev);
	rn_buf_addc(&b, '\n');
	ev.nr = SYS_execve;
	ev.ret = 0;
	ev.err = 0;
	ev.path = "/bin/sh";
	ev.argv = argv;
	ev.nargv = 2;
	rn_json_add_syscall(&b, &ev);
	rn_buf_addc(&b, '\n');
	rn_json_add_process(&b, &t, p, 'x');
	rn_buf_addc(&b, '\n');
	assert_false(rn_buf_failed(&b));
	assert_int_equal(rn_trace_json_read(b.buf, b.len, &sink, &s, &err, &line), 0);
	assert_int_equal(s.nsc, 2);
	assert_int_equal(s.ev[0].pid, 41);
	assert_int_equal(s.ev[0].tid, 42);
	assert_int_equal(s.ev[0].nr, SYS_openat);
	assert_true(s.ev[0].args[0] == (uint64_t)-100);
	assert_true(s.ev[0].args[1] == 0x1000);
	assert_int_equal(s.ev[0].ret, -2);
	assert_int_equal(s.ev[0].err, ENOENT);
	assert_string_equal(s.path[0], "/etc/missing");
	assert_int_equal(s.ev[1].nr, SYS_execve);
	assert_int_equal(s.ev[1].nargv, 2);
	assert_string_equal(s.argv0, "sh");
	assert_int_equal(s.nproc, 2);
	assert_string_equal(s.events, "fx");
	assert_int_equal(s.proc[1].pid, 41);
	assert_int_equal(s.proc[1].ppid, 1);
	assert_int_equal(s.proc[1].end, RN_PROC_SIGNALED);
	assert_int_equal(s.proc[1].term_signal, 9);
	rn_buf_release(&b);
	rn_trace_release(&t);
}

static void test_trace_json_document_and_errors(void **state)
{
	struct rn_syscall_event ev = openat_event();
	struct seen s;
	struct rn_buf b;
	const char *err;
	size_t line;

	(void)state;
	memset(&s, 0, sizeof(s));
	rn_buf_init(&b, 0);
	rn_buf_adds(&b,
		    "{\"schema\":\"renacer-trace\",\"processes\":[{\"pid\":41,\"ppid\":1,"
		    "\"end\":\"exited\",\"exit_code\":3}],\"syscalls\":[");
	rn_json_add_syscall(&b, &ev);
	rn_buf_adds(&b, "]}");
	assert_int_equal(rn_trace_json_read(b.buf, b.len, &sink, &s, &err, &line), 0);
	assert_string_equal(s.events, "fx"); /* processes born, spans, processes ended */
	assert_int_equal(s.nsc, 1);
	assert_int_equal(s.proc[1].end, RN_PROC_EXITED);
	assert_int_equal(s.proc[1].exit_code, 3);
	rn_buf_release(&b);

	assert_int_equal(rn_trace_json_read("{\"syscalls\":null}", 17, &sink, &s, &err, &line),
			 -EINVAL);
	assert_string_equal(err, "the trace has no syscalls (recorded with -c?)");
	assert_int_equal(rn_trace_json_read("{\"type\":\"syscall\"}\n", 19, &sink, &s, &err, &line),
			 -EINVAL);
	assert_string_equal(err, "not a renacer-trace header");
	assert_int_equal(line, 1);
	assert_int_equal(
		rn_trace_json_read("{\"type\":\"header\",\"schema\":\"renacer-trace\"}\n[1]\n", 46,
				   &sink, &s, &err, &line),
		-EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(rn_trace_json_read("", 0, &sink, &s, &err, &line), -EINVAL);
	assert_string_equal(err, "empty trace");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_json_jsonl_round_trip),
		cmocka_unit_test(test_trace_json_document_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
