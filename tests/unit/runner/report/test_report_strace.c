/*
 * test_report_strace.c - the strace-compatible view (runner/report/report_strace.h): the -c summary
 * in strace's exact layout and per-call lines.
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
#include "report_strace.h"
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
static void test_report_strace_execve_vectors(void **state)
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
	assert_string_equal(
		line(&ev, 0),
		"execve(\"/bin/ls\", [\"ls\", \"-l\", \"a string of more than thirty-two\"..., "
		"...], 0x3000 /* 1 var */) = 0");
}

static void test_report_strace_summary_layout(void **state)
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

static void test_report_strace_summary_widens_columns(void **state)
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
	assert_string_equal(
		text,
		"% time      seconds  usecs/call     calls    errors syscall\n"
		"------ ------------ ----------- --------- --------- ------------------\n"
		"100.00 12345.678901 12345678901         1           sched_getaffinity\n"
		"------ ------------ ----------- --------- --------- ------------------\n"
		"100.00 12345.678901 12345678901         1           total\n");
	free(text);
	rn_trace_release(&t);
}

static void test_report_strace_summary_empty(void **state)
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

static void test_report_strace_summary_percentiles(void **state)
{
	struct rn_trace t;
	struct rn_process *p;
	struct rn_syscall_event ev;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int i;

	(void)state;
	rn_trace_init(&t);
	rn_trace_latency_enable(&t);
	p = rn_trace_add_process(&t, 1, 0, 1);
	/* 100 reads of 1..100 us: p50 50 us, p90 90 us, p99 99 us, max 100 us, each reported
	 * as its bucket's midpoint (90 us lies in [89.6, 90.1) us: 89.9), max exactly */
	for (i = 1; i <= 100; i++) {
		ev = ev_make(SYS_read, 3, 0, 10, 0, 10, 0);
		ev.duration_ns = (uint64_t)i * 1000;
		rn_trace_syscall(&t, p, &ev);
	}
	mem = open_memstream(&text, &len);
	assert_int_equal(rn_trace_summary_write(&t, mem), 0);
	fclose(mem);
	assert_string_equal(
		text,
		"% time     seconds  usecs/call     calls    errors      p50 us      p90 us      p99 us"
		"      max us syscall\n"
		"------ ----------- ----------- --------- --------- ----------- ----------- -----------"
		" ----------- ----------------\n"
		"100.00    0.005050          50       100                  50.0        89.9        99.1"
		"       100.0 read\n"
		"------ ----------- ----------- --------- --------- ----------- ----------- -----------"
		" ----------- ----------------\n"
		"100.00    0.005050          50       100                                            "
		"               total\n");
	free(text);
	rn_trace_release(&t);
}

static void test_report_strace_lines(void **state)
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
	assert_string_equal(
		line(&ev, 0),
		"read(987, 0x7ffd0000, 1)                = -1 EBADF (Bad file descriptor)");

	ev = ev_make(SYS_read, 0, 0x10, 1, 0, -512, 512);
	assert_string_equal(line(&ev, 0),
			    "read(0, 0x10, 1)                        = ? ERESTARTSYS "
			    "(To be restarted if SA_RESTART is set)");

	ev = ev_make(SYS_exit_group, 0, 0, 0, 0, 0, 0);
	ev.flags = RN_SC_UNFINISHED;
	assert_string_equal(line(&ev, RN_LINE_TIME), "exit_group(0)                           = ?");

	ev = ev_make(SYS_mmap, 0, 8192, 3, 0x22, 0x7f0000000000, 0);
	ev.args[4] = (uint64_t)-1;
	assert_string_equal(line(&ev, 0),
			    "mmap(NULL, 8192, PROT_READ|PROT_WRITE, "
			    "MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000");

	ev = ev_make(SYS_close, 3, 0, 0, 0, 0, 0);
	ev.duration_ns = 12345;
	assert_string_equal(line(&ev, RN_LINE_PID | RN_LINE_TIME),
			    "[pid  1234] close(3)                    = 0 <0.000012>");

	ev = ev_make(SYS_kill, 42, 9, 0, 0, 0, 0);
	assert_string_equal(line(&ev, 0), "kill(42, SIGKILL)                       = 0");

	ev = ev_make(1000, 1, 0, 0, 0, -ENOSYS, ENOSYS);
	assert_string_equal(line(&ev, 0),
			    "syscall_0x3e8(0x1, NULL, NULL, NULL, NULL, NULL) = -1 "
			    "ENOSYS (Function not implemented)");
}

static void test_report_strace_paths(void **state)
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
	ev = ev_make(SYS_openat, (uint64_t)-100, 0x1000, O_RDONLY, 0, -ENAMETOOLONG, ENAMETOOLONG);
	ev.path = "/aaaa";
	ev.flags = RN_SC_PATH_TRUNC;
	assert_string_equal(line(&ev, 0),
			    "openat(AT_FDCWD, \"/aaaa\"..., O_RDONLY)  = -1 "
			    "ENAMETOOLONG (File name too long)");

	/* two paths */
	ev = ev_make(SYS_renameat2, (uint64_t)-100, 0x1000, (uint64_t)-100, 0x2000, 0, 0);
	ev.path = "from";
	ev.path2 = "to";
	assert_string_equal(line(&ev, 0), "renameat2(AT_FDCWD, \"from\", AT_FDCWD, \"to\", 0) = 0");
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_strace_execve_vectors),
		cmocka_unit_test(test_report_strace_summary_layout),
		cmocka_unit_test(test_report_strace_summary_widens_columns),
		cmocka_unit_test(test_report_strace_summary_empty),
		cmocka_unit_test(test_report_strace_summary_percentiles),
		cmocka_unit_test(test_report_strace_lines),
		cmocka_unit_test(test_report_strace_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
