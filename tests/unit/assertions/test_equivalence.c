/*
 * test_equivalence.c - behaviour equivalence (assertions/equivalence.h) on synthetic events:
 * the normalisations, merging of reads and writes (buffering does not matter), roles instead
 * of pids (thread and process order do not matter), set and multiset categories, the order of
 * differences and the first diverging I/O operation.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "equivalence.h"
#include "assertions/internal.h"
#include "trace.h"

static void call(struct rn_equiv_behaviour *b, pid_t pid, const char *name, uint64_t a0,
		 uint64_t a1, uint64_t a2, int64_t ret, const char *path)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = pid;
	ev.tid = pid;
	ev.nr = rn_syscall_lookup(name);
	assert_true(ev.nr >= 0);
	ev.args[0] = a0;
	ev.args[1] = a1;
	ev.args[2] = a2;
	ev.ret = ret;
	ev.err = ret < 0 ? (int)-ret : 0;
	ev.path = path;
	rn_equiv_behaviour_syscall(b, &ev);
}

static void exec_call(struct rn_equiv_behaviour *b, pid_t pid, const char *path, const char *argv,
		      uint32_t nargv)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = pid;
	ev.nr = rn_syscall_lookup("execve");
	ev.path = path;
	ev.argv = argv;
	ev.nargv = nargv;
	rn_equiv_behaviour_syscall(b, &ev);
}

/* A root that writes out.txt in `chunks` writes of `total / chunks` bytes. */
static struct rn_equiv_behaviour *writer(pid_t pid, const char *dir, int chunks, int total)
{
	struct rn_equiv_behaviour *b = rn_equiv_behaviour_new(NULL);
	char path[256];
	int i;

	rn_equiv_behaviour_process(b, pid, 0, "/usr/bin/w", 'f', RN_PROC_RUNNING, 0, 0);
	exec_call(b, pid, "/usr/bin/w", "w\0", 1);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	call(b, pid, "openat", (uint64_t)AT_FDCWD, (uint64_t)(O_WRONLY | O_CREAT | O_TRUNC), 0644,
	     3, path);
	for (i = 0; i < chunks; i++)
		call(b, pid, "write", 3, 0, (uint64_t)(total / chunks), total / chunks, NULL);
	call(b, pid, "close", 3, 0, 0, 0, NULL);
	rn_equiv_behaviour_process(b, pid, 0, "/usr/bin/w", 'x', RN_PROC_EXITED, 0, 0);
	return b;
}

static void test_equivalence_normalize(void **state)
{
	char out[256];

	(void)state;
	rn_equiv_normalize("/tmp/tmp.Ab3dEf/out/report-20261125.txt", RN_EQUIV_NORM_ALL, out,
			   sizeof(out));
	assert_string_equal(out, "$TMP/*/out/report-#.txt");
	rn_equiv_normalize("/tmp/out.txt", RN_EQUIV_NORM_ALL, out, sizeof(out));
	assert_string_equal(out, "$TMP/out.txt");
	rn_equiv_normalize("/tmp/x/data.XyERFe", RN_EQUIV_NORM_ALL, out, sizeof(out));
	assert_string_equal(out, "$TMP/*/data.*");
	rn_equiv_normalize("/proc/4711/status", RN_EQUIV_NORM_ALL, out, sizeof(out));
	assert_string_equal(out, "/proc/$PID/status");
	rn_equiv_normalize("/home/u/run12/log", RN_EQUIV_NORM_ALL, out, sizeof(out));
	assert_string_equal(out, "/home/u/run12/log");
	rn_equiv_normalize("/tmp/tmp.Ab3dEf/x", 0, out, sizeof(out));
	assert_string_equal(out, "/tmp/tmp.Ab3dEf/x");
}

/* Same bytes in other chunks, another pid, another scratch folder: equivalent. */
static void test_equivalence_buffering(void **state)
{
	struct rn_equiv_behaviour *a = writer(100, "/tmp/tmp.aaaaa1", 64, 4096);
	struct rn_equiv_behaviour *b = writer(200, "/tmp/tmp.bbbbb2", 1, 4096);
	struct rn_equiv_opts o;
	struct rn_equiv_result r;

	(void)state;
	rn_equiv_opts_init(&o);
	rn_equiv_behaviour_compare(a, b, &o, &r);
	assert_true(r.equivalent);
	assert_int_equal(r.ndiffs, 0);
	assert_true(r.similarity == 1.0);
	assert_true(r.facts_a > 3);
	rn_equiv_result_release(&r);
	rn_equiv_behaviour_free(a);
	rn_equiv_behaviour_free(b);
}

/* Different bytes: the io sequence names its first diverging operation. */
static void test_equivalence_io_divergence(void **state)
{
	struct rn_equiv_behaviour *a = writer(100, "/tmp/tmp.aaaaa1", 2, 100);
	struct rn_equiv_behaviour *b = writer(100, "/tmp/tmp.aaaaa1", 2, 120);
	struct rn_equiv_opts o;
	struct rn_equiv_result r;

	(void)state;
	rn_equiv_opts_init(&o);
	rn_equiv_behaviour_compare(a, b, &o, &r);
	assert_false(r.equivalent);
	assert_int_equal(r.ndiffs, 1);
	assert_int_equal(r.diffs[0].cat, RN_EQUIV_IO);
	assert_string_equal(r.diffs[0].subject, "root $TMP/*/out.txt");
	assert_string_equal(r.diffs[0].text,
			    "first divergence at op #2: A 'write 100', B 'write 120'");
	assert_int_equal(r.nstrict, 0);
	rn_equiv_result_release(&r);
	/* min_confidence below the similarity tolerates an io difference */
	o.min_confidence = 0.5;
	rn_equiv_behaviour_compare(a, b, &o, &r);
	assert_true(r.equivalent);
	rn_equiv_result_release(&r);
	rn_equiv_behaviour_free(a);
	rn_equiv_behaviour_free(b);
}

/* A child that execs git and a connect: strict differences, the process first. */
static void test_equivalence_new_program_first(void **state)
{
	struct rn_equiv_behaviour *a = writer(100, "/tmp/tmp.aaaaa1", 1, 10);
	struct rn_equiv_behaviour *b = writer(100, "/tmp/tmp.aaaaa1", 1, 10);
	struct rn_equiv_opts o;
	struct rn_equiv_result r;

	(void)state;
	rn_equiv_behaviour_process(b, 101, 100, "/usr/bin/w", 'f', RN_PROC_RUNNING, 0, 0);
	exec_call(b, 101, "/usr/bin/git", "git\0--version\0", 2);
	rn_equiv_behaviour_process(b, 101, 100, "/usr/bin/git", 'e', RN_PROC_RUNNING, 0, 0);
	rn_equiv_behaviour_process(b, 101, 100, "/usr/bin/git", 'x', RN_PROC_EXITED, 0, 0);
	call(b, 100, "connect", 4, 0, 16, -111, "inet 127.0.0.1:9");
	rn_equiv_opts_init(&o);
	o.min_confidence = 0.1; /* strict differences fail whatever the similarity */
	rn_equiv_behaviour_compare(a, b, &o, &r);
	assert_false(r.equivalent);
	assert_true(r.ndiffs >= 4);
	assert_int_equal(r.diffs[0].cat, RN_EQUIV_PROCESS);
	assert_string_equal(r.diffs[0].subject, "root/git");
	assert_int_equal(r.diffs[1].cat, RN_EQUIV_EXEC);
	assert_string_equal(r.diffs[1].text, "only in B: git --version");
	assert_int_equal(r.diffs[2].cat, RN_EQUIV_CONNECT);
	assert_string_equal(r.diffs[2].text, "only in B: inet 127.0.0.1:9");
	rn_equiv_result_release(&r);
	rn_equiv_behaviour_free(a);
	rn_equiv_behaviour_free(b);
}

/* Opens are a set (a second open of the same file is not a difference); the loader's files
 * are not facts; ignore_paths drops facts. */
static void test_equivalence_sets_and_filters(void **state)
{
	static char pat[] = "*/cache/*";
	char *const ignore[] = { pat, NULL };
	struct rn_equiv_behaviour *a = writer(100, "/tmp/tmp.aaaaa1", 1, 10), *b;
	struct rn_equiv_opts o;
	struct rn_equiv_result r;

	(void)state;
	rn_equiv_opts_init(&o);
	o.ignore_paths = ignore;
	call(a, 100, "openat", (uint64_t)AT_FDCWD, O_RDONLY, 0, 4, "/etc/hosts");
	call(a, 100, "close", 4, 0, 0, 0, NULL);
	b = rn_equiv_behaviour_new(&o);
	rn_equiv_behaviour_process(b, 100, 0, "/usr/bin/w", 'f', RN_PROC_RUNNING, 0, 0);
	exec_call(b, 100, "/usr/bin/w", "w\0", 1);
	call(b, 100, "openat", (uint64_t)AT_FDCWD, (uint64_t)(O_WRONLY | O_CREAT | O_TRUNC), 0644,
	     3, "/tmp/tmp.aaaaa1/out.txt");
	call(b, 100, "write", 3, 0, 10, 10, NULL);
	call(b, 100, "close", 3, 0, 0, 0, NULL);
	call(b, 100, "openat", (uint64_t)AT_FDCWD, O_RDONLY, 0, 4, "/etc/hosts");
	call(b, 100, "close", 4, 0, 0, 0, NULL);
	call(b, 100, "openat", (uint64_t)AT_FDCWD, O_RDONLY, 0, 4, "/etc/hosts");
	call(b, 100, "close", 4, 0, 0, 0, NULL);
	/* not facts: the loader's library, an ignored path, a failed open */
	call(b, 100, "openat", (uint64_t)AT_FDCWD, O_RDONLY, 0, 5,
	     "/lib/x86_64-linux-gnu/libz.so.1");
	call(b, 100, "read", 5, 0, 832, 832, NULL);
	call(b, 100, "openat", (uint64_t)AT_FDCWD, O_WRONLY | O_CREAT, 0, 6, "/home/u/cache/x");
	call(b, 100, "write", 6, 0, 5, 5, NULL);
	call(b, 100, "openat", (uint64_t)AT_FDCWD, O_RDONLY, 0, -2, "/etc/missing");
	rn_equiv_behaviour_process(b, 100, 0, "/usr/bin/w", 'x', RN_PROC_EXITED, 0, 0);
	rn_equiv_behaviour_compare(a, b, &o, &r);
	/* /etc/hosts opened once in A and twice in B: the open facts are a set, but each open
	 * has its own io sequence (a multiset), so one difference remains */
	assert_int_equal(r.ndiffs, 1);
	assert_int_equal(r.diffs[0].cat, RN_EQUIV_IO);
	assert_string_equal(r.diffs[0].subject, "root /etc/hosts");
	assert_string_equal(r.diffs[0].text, "only in B: open r");
	rn_equiv_result_release(&r);
	rn_equiv_behaviour_free(a);
	rn_equiv_behaviour_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equivalence_normalize),
		cmocka_unit_test(test_equivalence_buffering),
		cmocka_unit_test(test_equivalence_io_divergence),
		cmocka_unit_test(test_equivalence_new_program_first),
		cmocka_unit_test(test_equivalence_sets_and_filters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
