/*
 * test_ptrace_format.c - the strace-compatible views: the -c summary in strace's exact
 * layout, per-call lines, JSON string escaping and the JSON objects of the renacer-trace
 * schema (checked by parsing them back with jansson).
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
#include "ptrace/ptrace.h"
#include "trace.h"

static struct rn_syscall_event ev_make(int nr, uint64_t a0, uint64_t a1, uint64_t a2,
				       uint64_t a3, int64_t ret, int err)
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

/* Format one line (static storage). */
static const char *line(const struct rn_syscall_event *ev, uint32_t flags)
{
	static char out[1024];
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_syscall_format(&b, ev, flags);
	snprintf(out, sizeof(out), "%s", b.buf);
	rn_buf_release(&b);
	return out;
}

/* execve's vectors as strace prints them: quoted strings, cut ones and a cut vector marked
 * "...", the environment as its address and size; unread vectors stay raw pointers. */
static void test_ptrace_format_execve_vectors(void **state)
{
	static const char strs[] = "ls\0-l\0a string of more than thirty-two bytes!\0";
	struct rn_syscall_event ev = ev_make(SYS_execve, 0x1000, 0x2000, 0x3000, 0, 0, 0);

	(void)state;
	ev.path = "/bin/ls";
	assert_string_equal(line(&ev, 0), "execve(\"/bin/ls\", 0x2000, 0x3000)       = 0");
	ev.argv = strs;
	ev.nargv = 2;
	ev.env_known = true;
	ev.nenv = 23;
	assert_string_equal(line(&ev, 0),
			    "execve(\"/bin/ls\", [\"ls\", \"-l\"], 0x3000 /* 23 vars */) = 0");
	/* the third string is kept with one byte more than is shown: it is cut */
	ev.nargv = 3;
	ev.argv_more = true;
	ev.nenv = 1;
	assert_string_equal(line(&ev, 0),
			    "execve(\"/bin/ls\", [\"ls\", \"-l\", \"a string of more than thirty-two\"..., "
			    "...], 0x3000 /* 1 var */) = 0");
}

static void test_ptrace_format_summary_layout(void **state)
{
	struct rn_trace t;
	struct rn_process *p;
	struct rn_syscall_event ev;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	uint64_t openat_ns[3] = { 100000, 20000, 5000 };
	int i;

	(void)state;
	rn_trace_init(&t);
	p = rn_trace_add_process(&t, 1234, 0, 1);
	for (i = 0; i < 3; i++) {
		ev = ev_make(SYS_openat, (uint64_t)-100, 0, 0, 0, i == 2 ? -ENOENT : 3,
			     i == 2 ? ENOENT : 0);
		ev.duration_ns = openat_ns[i];
		rn_trace_syscall(&t, p, &ev);
	}
	for (i = 0; i < 2; i++) {
		ev = ev_make(SYS_read, 3, 0, 10, 0, 10, 0);
		ev.duration_ns = 10000;
		rn_trace_syscall(&t, p, &ev);
	}
	/* never returned: not counted, as strace -c */
	ev = ev_make(SYS_exit_group, 0, 0, 0, 0, 0, 0);
	ev.flags = RN_SC_UNFINISHED;
	rn_trace_syscall(&t, p, &ev);

	mem = open_memstream(&text, &len);
	assert_int_equal(rn_trace_summary_write(&t, mem), 0);
	fclose(mem);
	assert_string_equal(text,
			    "% time     seconds  usecs/call     calls    errors syscall\n"
			    "------ ----------- ----------- --------- --------- ----------------\n"
			    " 86.21    0.000125          41         3         1 openat\n"
			    " 13.79    0.000020          10         2           read\n"
			    "------ ----------- ----------- --------- --------- ----------------\n"
			    "100.00    0.000145          29         5         1 total\n");
	free(text);
	assert_int_equal(rn_trace_total_syscalls(&t), 5);
	rn_trace_release(&t);
}

static void test_ptrace_format_summary_widens_columns(void **state)
{
	struct rn_trace t;
	struct rn_process *p;
	struct rn_syscall_event ev;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	rn_trace_init(&t);
	p = rn_trace_add_process(&t, 1, 0, 1);
	ev = ev_make(SYS_sched_getaffinity, 0, 0, 0, 0, 8, 0);
	ev.duration_ns = 12345678901234ull; /* 12345 s: the seconds column grows */
	rn_trace_syscall(&t, p, &ev);
	mem = open_memstream(&text, &len);
	rn_trace_summary_write(&t, mem);
	fclose(mem);
	assert_string_equal(text,
			    "% time      seconds  usecs/call     calls    errors syscall\n"
			    "------ ------------ ----------- --------- --------- ------------------\n"
			    "100.00 12345.678901 12345678901         1           sched_getaffinity\n"
			    "------ ------------ ----------- --------- --------- ------------------\n"
			    "100.00 12345.678901 12345678901         1           total\n");
	free(text);
	rn_trace_release(&t);
}

static void test_ptrace_format_summary_empty(void **state)
{
	struct rn_trace t;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	rn_trace_init(&t);
	mem = open_memstream(&text, &len);
	rn_trace_summary_write(&t, mem);
	fclose(mem);
	assert_string_equal(text,
			    "% time     seconds  usecs/call     calls    errors syscall\n"
			    "------ ----------- ----------- --------- --------- ----------------\n"
			    "------ ----------- ----------- --------- --------- ----------------\n"
			    "100.00    0.000000           0         0           total\n");
	free(text);
	rn_trace_release(&t);
}

static void test_ptrace_format_lines(void **state)
{
	struct rn_syscall_event ev;

	(void)state;
	ev = ev_make(SYS_openat, (uint64_t)-100, 0x1000, O_RDONLY | O_CLOEXEC, 0, 3, 0);
	ev.path = "/etc/passwd";
	assert_string_equal(line(&ev, 0),
			    "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3");

	ev = ev_make(SYS_openat, 5, 0x1000, O_WRONLY | O_CREAT | O_TRUNC, 0644, 4, 0);
	ev.path = "a.txt";
	assert_string_equal(line(&ev, 0),
			    "openat(5, \"a.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4");

	ev = ev_make(SYS_close, 3, 0, 0, 0, 0, 0);
	assert_string_equal(line(&ev, 0), "close(3)                                = 0");

	ev = ev_make(SYS_read, 987, 0x7ffd0000, 1, 0, -EBADF, EBADF);
	assert_string_equal(line(&ev, 0),
			    "read(987, 0x7ffd0000, 1)                = -1 EBADF (Bad file descriptor)");

	ev = ev_make(SYS_read, 0, 0x10, 1, 0, -512, 512);
	assert_string_equal(line(&ev, 0), "read(0, 0x10, 1)                        = ? ERESTARTSYS "
					  "(To be restarted if SA_RESTART is set)");

	ev = ev_make(SYS_exit_group, 0, 0, 0, 0, 0, 0);
	ev.flags = RN_SC_UNFINISHED;
	assert_string_equal(line(&ev, RN_LINE_TIME), "exit_group(0)                           = ?");

	ev = ev_make(SYS_mmap, 0, 8192, 3, 0x22, 0x7f0000000000, 0);
	ev.args[4] = (uint64_t)-1;
	assert_string_equal(line(&ev, 0), "mmap(NULL, 8192, PROT_READ|PROT_WRITE, "
					  "MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000");

	ev = ev_make(SYS_close, 3, 0, 0, 0, 0, 0);
	ev.duration_ns = 12345;
	assert_string_equal(line(&ev, RN_LINE_PID | RN_LINE_TIME),
			    "[pid  1234] close(3)                    = 0 <0.000012>");

	ev = ev_make(SYS_kill, 42, 9, 0, 0, 0, 0);
	assert_string_equal(line(&ev, 0), "kill(42, SIGKILL)                       = 0");

	ev = ev_make(1000, 1, 0, 0, 0, -ENOSYS, ENOSYS);
	assert_string_equal(line(&ev, 0), "syscall_0x3e8(0x1, NULL, NULL, NULL, NULL, NULL) = -1 "
					  "ENOSYS (Function not implemented)");
}

static void test_ptrace_format_paths(void **state)
{
	struct rn_syscall_event ev;

	(void)state;
	/* escapes as strace prints them */
	ev = ev_make(SYS_unlinkat, (uint64_t)-100, 0x1000, 0, 0, 0, 0);
	ev.path = "a\"b\\c\nd\te\001";
	assert_string_equal(line(&ev, 0), "unlinkat(AT_FDCWD, \"a\\\"b\\\\c\\nd\\te\\1\", 0) = 0");

	/* a path that was not decoded (unreadable memory) stays a pointer */
	ev = ev_make(SYS_openat, (uint64_t)-100, 0, O_RDONLY, 0, -EFAULT, EFAULT);
	assert_string_equal(line(&ev, 0),
			    "openat(AT_FDCWD, NULL, O_RDONLY)        = -1 EFAULT (Bad address)");

	/* truncated paths end in "..." */
	ev = ev_make(SYS_openat, (uint64_t)-100, 0x1000, O_RDONLY, 0, -ENAMETOOLONG,
		     ENAMETOOLONG);
	ev.path = "/aaaa";
	ev.flags = RN_SC_PATH_TRUNC;
	assert_string_equal(line(&ev, 0), "openat(AT_FDCWD, \"/aaaa\"..., O_RDONLY)  = -1 "
					  "ENAMETOOLONG (File name too long)");

	/* two paths */
	ev = ev_make(SYS_renameat2, (uint64_t)-100, 0x1000, (uint64_t)-100, 0x2000, 0, 0);
	ev.path = "from";
	ev.path2 = "to";
	assert_string_equal(line(&ev, 0),
			    "renameat2(AT_FDCWD, \"from\", AT_FDCWD, \"to\", 0) = 0");
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

static void test_ptrace_format_json_escaping(void **state)
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

static void test_ptrace_format_json_syscall(void **state)
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

static void test_ptrace_format_json_process_and_summary(void **state)
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
		cmocka_unit_test(test_ptrace_format_execve_vectors),
		cmocka_unit_test(test_ptrace_format_summary_layout),
		cmocka_unit_test(test_ptrace_format_summary_widens_columns),
		cmocka_unit_test(test_ptrace_format_summary_empty),
		cmocka_unit_test(test_ptrace_format_lines),
		cmocka_unit_test(test_ptrace_format_paths),
		cmocka_unit_test(test_ptrace_format_json_escaping),
		cmocka_unit_test(test_ptrace_format_json_syscall),
		cmocka_unit_test(test_ptrace_format_json_process_and_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
