/*
 * test_profile_rank.c - the order of a check's explanation items (runner/check/profile_check.c):
 * explaining a cpu_time row, the syscalls that wait rank after the CPU samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "runner/check/internal.h"

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/rn-rank-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* zstd's input grew: +26 ms on CPU in its compressor, +3 futex calls that waited +36 ms */
static void test_rank_waits_after_cpu(void **state)
{
	char *files[4] = {
		write_tmp("zstd;main;compress 100000000\nzstd;main;futex 1000000\n"),
		write_tmp("zstd;main;futex 10\n"),
		write_tmp("zstd;main;compress 126000000\nzstd;main;futex 37000000\n"),
		write_tmp("zstd;main;futex 13\n"),
	};
	const char *const f[4] = { files[0], files[1], files[2], files[3] };
	struct rn_buf out, all;
	const char *cpu, *futex;

	(void)state;
	rn_buf_init(&out, 0);
	rn_buf_init(&all, 0);
	/* a wall_time row: the waiting is where the time went, and it is the larger */
	assert_int_equal(rn_profile_rank_files(f, NULL, false, &out, &all), 2);
	cpu = strstr(all.buf, "on CPU in compress");
	futex = strstr(all.buf, "+3 futex from main, +36.0 ms in the calls");
	assert_non_null(cpu);
	assert_non_null(futex);
	assert_true(futex < cpu);
	rn_buf_reset(&all);
	/* a cpu_time row: the calls' waiting is no CPU time, the compressor's growth comes first */
	assert_int_equal(rn_profile_rank_files(f, NULL, true, &out, &all), 2);
	cpu = strstr(all.buf, "+26.0 ms on CPU in compress");
	futex = strstr(all.buf, "+3 futex from main, +36.0 ms waiting in the calls (not CPU time)");
	assert_non_null(cpu);
	assert_non_null(futex);
	assert_true(cpu < futex);
	rn_buf_release(&out);
	rn_buf_release(&all);
	for (int i = 0; i < 4; i++) {
		unlink(files[i]);
		free(files[i]);
	}
}

/* sqlite3's work grew under load: +24 ms on CPU in its VM, and its child's wall time on the
 * critical path +205 ms; explaining a cpu_time row, the CPU comes first */
static void test_rank_critical_path_after_cpu(void **state)
{
	char *files[4] = {
		write_tmp("sqlite3;main;vdbe 260000000\n"),
		write_tmp(""),
		write_tmp("sqlite3;main;vdbe 284000000\n"),
		write_tmp(""),
	};
	const char *const f[4] = { files[0], files[1], files[2], files[3] };
	const char *const cp[2] = { "sqlite3 480000000\n", "sqlite3 685000000\n" };
	struct rn_buf out, all;
	const char *cpu, *child;

	(void)state;
	rn_buf_init(&out, 0);
	rn_buf_init(&all, 0);
	/* a wall_time row: the child's time on the critical path is the larger, first */
	assert_int_equal(rn_profile_rank_files(f, cp, false, &out, &all), 2);
	cpu = strstr(all.buf, "+24.0 ms on CPU in vdbe");
	child = strstr(all.buf, "child sqlite3 +205.0 ms on the critical path\n");
	assert_non_null(cpu);
	assert_non_null(child);
	assert_true(child < cpu);
	rn_buf_reset(&all);
	/* a cpu_time row: wall time on the critical path after the CPU samples, and said so */
	assert_int_equal(rn_profile_rank_files(f, cp, true, &out, &all), 2);
	cpu = strstr(all.buf, "+24.0 ms on CPU in vdbe");
	child = strstr(all.buf,
		       "child sqlite3 +205.0 ms on the critical path (wall time, not CPU time)");
	assert_non_null(cpu);
	assert_non_null(child);
	assert_true(cpu < child);
	rn_buf_release(&out);
	rn_buf_release(&all);
	for (int i = 0; i < 4; i++) {
		unlink(files[i]);
		free(files[i]);
	}
}

/* node's JavaScript grew +455 ms on CPU; an idle libuv worker made one futex call more and
 * waited +1.97 s longer in them, because the run took longer: the CPU comes first, in a
 * wall-time row too */
static void test_rank_idle_wait_after_cpu(void **state)
{
	char *files[4] = {
		write_tmp("node;main;hotLoop 24000000\nnode;worker;futex 100000000\n"),
		write_tmp("node;worker;futex 20\n"),
		write_tmp("node;main;hotLoop 479000000\nnode;worker;futex 2070000000\n"),
		write_tmp("node;worker;futex 21\n"),
	};
	const char *const f[4] = { files[0], files[1], files[2], files[3] };
	struct rn_buf out, all;
	const char *cpu, *futex;

	(void)state;
	rn_buf_init(&out, 0);
	rn_buf_init(&all, 0);
	assert_int_equal(rn_profile_rank_files(f, NULL, false, &out, &all), 2);
	cpu = strstr(all.buf, "+455.0 ms on CPU in hotLoop");
	futex = strstr(all.buf, "+1 futex from worker, +1.97 s in the calls");
	assert_non_null(cpu);
	assert_non_null(futex);
	assert_true(cpu < futex);
	rn_buf_release(&out);
	rn_buf_release(&all);
	for (int i = 0; i < 4; i++) {
		unlink(files[i]);
		free(files[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_waits_after_cpu),
		cmocka_unit_test(test_rank_critical_path_after_cpu),
		cmocka_unit_test(test_rank_idle_wait_after_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
