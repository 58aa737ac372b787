/*
 * test_driver.c - the driver registry (collectors/driver.h) and the timing runs of the
 * "ptrace-events" driver: process events only, no syscall span or count, yet the same process
 * tree, exec, exit statuses and reaping edges as a counting run of the same program.
 *
 * Needs permission to ptrace children; exits 77 (skip) without it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "collector.h"
#include "driver.h"
#include "trace.h"

static char target_dir[4096];

static const char *target(const char *name)
{
	static char path[4][4200];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, 4200, "%s/%s", target_dir, name);
	return p;
}

/* A spec for `argv`: a timing run (events only) or a counting run. */
static void spec_init(struct rn_run_spec *s, char **argv, bool timing)
{
	memset(s, 0, sizeof(*s));
	s->name = "t";
	s->argv = argv;
	s->collectors = RN_COLLECT_PTRACE;
	s->flags = RN_RUN_FOLLOW_FORKS | RN_RUN_NO_PROPAGATE |
		(timing ? RN_RUN_EVENTS_ONLY : RN_RUN_PIN_CPU);
	s->stdio[1] = RN_STDIO_NULL;
	s->timeout_ns = 60ull * 1000000000u;
}

static int group_setup(void **state)
{
	const char *bin = getenv("RN_BINARY_DIR");
	char *argv[] = { (char *)"/bin/true", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	int rc;

	(void)state;
	snprintf(target_dir, sizeof(target_dir), "%s/targets", bin ? bin : RN_BINARY_DIR);
	spec_init(&s, argv, true);
	rn_trace_init(&t);
	rc = rn_run_target(&s, &t, NULL);
	if (rc || t.status != RN_RUN_OK) {
		fprintf(stderr, "SKIP: cannot trace here: %s\n", t.error ? t.error : "?");
		exit(77);
	}
	rn_trace_release(&t);
	return 0;
}

static void test_driver_select(void **state)
{
	struct rn_run_spec s;
	char *argv[] = { (char *)"/bin/true", NULL };

	(void)state;
	spec_init(&s, argv, true);
	assert_string_equal(rn_loop_select(&s)->name, "ptrace-events");
	spec_init(&s, argv, false);
	assert_string_equal(rn_loop_select(&s)->name, "ptrace");
	assert_string_equal(rn_loop_select(&s)->collector, "ptrace");
	/* GPU collectors alone: no driver, the run loop waits for the root itself */
	s.collectors = RN_COLLECT_VULKAN;
	assert_null(rn_loop_select(&s));
	assert_ptr_equal(rn_loop_find("ptrace-events"), &*rn_loops[0]);
	assert_null(rn_loop_find("ebpf"));
}

/* Syscall calls recorded over every process of `t`. */
static uint64_t recorded_calls(const struct rn_trace *t)
{
	uint64_t n = 0;
	size_t i;
	int nr;

	for (i = 0; i < t->nprocs; i++)
		for (nr = 0; t->procs[i].sc && nr < rn_syscall_table_size(); nr++)
			n += t->procs[i].sc[nr].calls;
	return n;
}

static void test_driver_timing_run_fork_tree(void **state)
{
	char *argv[] = { (char *)target("pt_forktree"), (char *)"4", NULL };
	struct rn_run_spec s;
	struct rn_trace tm, cn;
	size_t i;
	int children = 0, grandchildren = 0;

	(void)state;
	spec_init(&s, argv, true);
	rn_trace_init(&tm);
	assert_int_equal(rn_run_target(&s, &tm, NULL), 0);
	assert_int_equal(tm.status, RN_RUN_OK);
	assert_true(tm.events_only);
	/* no syscall span, no count: the calls ran without stopping */
	assert_int_equal(rn_trace_total_syscalls(&tm), 0);
	assert_int_equal(recorded_calls(&tm), 0);
	/* the tree, its exits and who reaped whom, as a counting run sees them */
	assert_int_equal(tm.nprocs, 9);
	assert_true(tm.procs[0].exec_ns > tm.procs[0].start_ns);
	assert_non_null(tm.procs[0].exe);
	assert_non_null(strstr(tm.procs[0].exe, "pt_forktree"));
	assert_int_equal(tm.procs[0].end, RN_PROC_EXITED);
	assert_int_equal(tm.procs[0].exit_code, 0);
	assert_true(tm.procs[0].vm_hwm_bytes > 0);
	for (i = 1; i < tm.nprocs; i++) {
		const struct rn_process *p = &tm.procs[i];

		assert_int_equal(p->ppid, tm.procs[p->parent].pid);
		/* waited for only when its parent was blocked in wait4 as it exited */
		assert_true(p->reaped_by == p->parent || p->reaped_by == -1);
		assert_true(p->reaped_by == -1 || p->reaped_ns >= p->end_ns);
		assert_true(p->end_ns >= p->start_ns);
		assert_int_equal(p->end, RN_PROC_EXITED);
		if (p->parent == 0) {
			children++;
			assert_int_equal(p->exit_code, 0);
		} else {
			grandchildren++;
			assert_int_equal(p->exit_code, 3);
		}
	}
	assert_int_equal(children, 4);
	assert_int_equal(grandchildren, 4);
	/* nothing left in ptrace-stop */
	assert_int_equal(waitpid(-1, NULL, WNOHANG | __WALL), -1);

	/* The counting run of the same program counts every call. */
	spec_init(&s, argv, false);
	rn_trace_init(&cn);
	assert_int_equal(rn_run_target(&s, &cn, NULL), 0);
	assert_int_equal(cn.status, RN_RUN_OK);
	assert_false(cn.events_only);
	assert_int_equal(cn.nprocs, tm.nprocs);
	assert_int_equal(rn_trace_syscall_total(&cn, SYS_getpid).calls, 3 + 4 * 10 + 4 * 5);
	assert_true(recorded_calls(&cn) > 63);
	rn_trace_release(&tm);
	rn_trace_release(&cn);
}

/* The shell waits for sleep: the edge the critical path follows, from process events. */
static void test_driver_timing_run_wait_edge(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)"sleep 0.1; true", NULL };
	struct rn_run_spec s;
	struct rn_trace t;

	(void)state;
	spec_init(&s, argv, true);
	rn_trace_init(&t);
	assert_int_equal(rn_run_target(&s, &t, NULL), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.nprocs, 2);
	assert_non_null(strstr(t.procs[1].exe, "sleep"));
	assert_true(t.procs[1].exec_ns > 0);
	assert_int_equal(t.procs[1].parent, 0);
	assert_int_equal(t.procs[1].reaped_by, 0);
	assert_true(t.procs[1].reaped_ns >= t.procs[1].end_ns);
	assert_true(t.procs[1].end_ns - t.procs[1].start_ns >= 100000000u);
	assert_int_equal(recorded_calls(&t), 0);
	rn_trace_release(&t);
}

static void test_driver_timing_run_exec_chain(void **state)
{
	char *argv[] = { (char *)target("pt_execchain"), (char *)"2", NULL };
	struct rn_run_spec s;
	struct rn_trace t;

	(void)state;
	spec_init(&s, argv, true);
	rn_trace_init(&t);
	assert_int_equal(rn_run_target(&s, &t, NULL), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	/* one process, its last image /bin/true (exec events seen), no syscall recorded */
	assert_int_equal(t.nprocs, 1);
	assert_non_null(t.procs[0].exe);
	assert_non_null(strstr(t.procs[0].exe, "true"));
	assert_int_equal(t.procs[0].end, RN_PROC_EXITED);
	assert_int_equal(recorded_calls(&t), 0);
	rn_trace_release(&t);
}

static void test_driver_timing_run_exit_status(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)"exit 7", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	(void)state;
	spec_init(&s, argv, true);
	rn_trace_init(&t);
	assert_int_equal(rn_run_target(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_true(WIFEXITED(res.root_status));
	assert_int_equal(WEXITSTATUS(res.root_status), 7);
	assert_int_equal(t.procs[0].end, RN_PROC_EXITED);
	assert_int_equal(t.procs[0].exit_code, 7);
	rn_run_result_release(&res);
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_select),
		cmocka_unit_test(test_driver_timing_run_fork_tree),
		cmocka_unit_test(test_driver_timing_run_wait_edge),
		cmocka_unit_test(test_driver_timing_run_exec_chain),
		cmocka_unit_test(test_driver_timing_run_exit_status),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
