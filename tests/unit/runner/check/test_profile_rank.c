/*
 * test_profile_rank.c - the order of a check's explanation items (runner/check/profile_check.c):
 * explaining a cpu_time row, the syscalls that wait and a child's time on the critical path
 * rank after the CPU samples; an idle wait ranks after them in any row.
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

/* Rank the folded texts (base, base calls, head, head calls) with critical path shares `cp`
 * (or NULL) for a cpu_time row or not; assert that 2 items grew and that `first` comes before
 * `second` in the list. */
static void assert_ranked(const char *const texts[4], const char *const cp[2], bool cpu_row,
			  const char *first, const char *second)
{
	char *files[4];
	const char *f[4], *a, *b;
	struct rn_buf out, all;

	for (int i = 0; i < 4; i++)
		f[i] = files[i] = write_tmp(texts[i]);
	rn_buf_init(&out, 0);
	rn_buf_init(&all, 0);
	assert_int_equal(rn_profile_rank_files(f, cp, cpu_row, &out, &all), 2);
	a = strstr(all.buf, first);
	b = strstr(all.buf, second);
	if (!a || !b || a > b)
		fail_msg("expected '%s' before '%s' in:\n%s", first, second, all.buf);
	rn_buf_release(&out);
	rn_buf_release(&all);
	for (int i = 0; i < 4; i++) {
		unlink(files[i]);
		free(files[i]);
	}
}

/* zstd's input grew: +26 ms on CPU in its compressor, +3 futex calls that waited +36 ms */
static void test_rank_waits_after_cpu(void **state)
{
	const char *const texts[4] = {
		"zstd;main;compress 100000000\nzstd;main;futex 1000000\n",
		"zstd;main;futex 10\n",
		"zstd;main;compress 126000000\nzstd;main;futex 37000000\n",
		"zstd;main;futex 13\n",
	};

	(void)state;
	/* a wall_time row: the waiting is where the time went, and it is the larger */
	assert_ranked(texts, NULL, false, "+3 futex from main, +36.0 ms in the calls",
		      "on CPU in compress");
	/* a cpu_time row: the calls' waiting is no CPU time, the compressor's growth comes first */
	assert_ranked(texts, NULL, true, "+26.0 ms on CPU in compress",
		      "+3 futex from main, +36.0 ms waiting in the calls (not CPU time)");
}

/* sqlite3's work grew under load: +24 ms on CPU in its VM, and its child's wall time on the
 * critical path +205 ms; explaining a cpu_time row, the CPU comes first */
static void test_rank_critical_path_after_cpu(void **state)
{
	const char *const texts[4] = { "sqlite3;main;vdbe 260000000\n", "",
				       "sqlite3;main;vdbe 284000000\n", "" };
	const char *const cp[2] = { "sqlite3 480000000\n", "sqlite3 685000000\n" };

	(void)state;
	/* a wall_time row: the child's time on the critical path is the larger, first */
	assert_ranked(texts, cp, false, "child sqlite3 +205.0 ms on the critical path\n",
		      "+24.0 ms on CPU in vdbe");
	/* a cpu_time row: wall time on the critical path after the CPU samples, and said so */
	assert_ranked(texts, cp, true, "+24.0 ms on CPU in vdbe",
		      "child sqlite3 +205.0 ms on the critical path (wall time, not CPU time)");
}

/* node's JavaScript grew +455 ms on CPU; an idle libuv worker made one futex call more and
 * waited +1.97 s longer in them, because the run took longer: the CPU comes first, in a
 * wall-time row too */
static void test_rank_idle_wait_after_cpu(void **state)
{
	const char *const texts[4] = {
		"node;main;hotLoop 24000000\nnode;worker;futex 100000000\n",
		"node;worker;futex 20\n",
		"node;main;hotLoop 479000000\nnode;worker;futex 2070000000\n",
		"node;worker;futex 21\n",
	};

	(void)state;
	assert_ranked(texts, NULL, false, "+455.0 ms on CPU in hotLoop",
		      "+1 futex from worker, +1.97 s in the calls");
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
