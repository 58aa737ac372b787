/*
 * test_ptrace_tables.c - the generated syscall and errno name tables, syscall signatures and
 * -e trace=SET parsing.
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

#include <cmocka.h>

#include "ptrace/internal.h"
#include "ptrace/ptrace.h"
#include "trace.h"

static void test_ptrace_tables_names_match_libc_numbers(void **state)
{
	(void)state;
	/* the table comes from the same kernel headers as <sys/syscall.h> */
	assert_string_equal(rn_syscall_name(SYS_read), "read");
	assert_string_equal(rn_syscall_name(SYS_openat), "openat");
	assert_string_equal(rn_syscall_name(SYS_exit_group), "exit_group");
	assert_string_equal(rn_syscall_name(SYS_clone3), "clone3");
	assert_int_equal(rn_syscall_lookup("openat"), SYS_openat);
	assert_int_equal(rn_syscall_lookup("execve"), SYS_execve);
	assert_int_equal(rn_syscall_lookup("no_such_call"), -1);
	assert_true(rn_syscall_table_size() > SYS_clone3);
}

static void test_ptrace_tables_every_name_round_trips(void **state)
{
	int nr, named = 0;

	(void)state;
	for (nr = 0; nr < rn_syscall_table_size(); nr++) {
		if (!rn_syscall_has_name(nr))
			continue;
		named++;
		assert_int_equal(rn_syscall_lookup(rn_syscall_name(nr)), nr);
		assert_null(strstr(rn_syscall_name(nr), "unknown"));
	}
	assert_true(named > 300);
}

static void test_ptrace_tables_unnamed_numbers_print_as_strace(void **state)
{
	(void)state;
	assert_string_equal(rn_syscall_name(1000), "syscall_0x3e8");
	assert_string_equal(rn_syscall_name(-1), "syscall_0xffffffffffffffff");
	assert_false(rn_syscall_has_name(1000));
#ifdef __x86_64__
	/* 335..423 are unassigned on x86_64 */
	assert_false(rn_syscall_has_name(400));
	assert_string_equal(rn_syscall_name(400), "syscall_0x190");
#endif
}

static void test_ptrace_tables_errno_names(void **state)
{
	(void)state;
	assert_string_equal(rn_errno_name(ENOENT), "ENOENT");
	assert_string_equal(rn_errno_name(EAGAIN), "EAGAIN"); /* not EWOULDBLOCK */
	assert_string_equal(rn_errno_name(EDEADLK), "EDEADLK");
	assert_string_equal(rn_errno_name(EHWPOISON), "EHWPOISON");
	assert_string_equal(rn_errno_name(512), "ERESTARTSYS");
	assert_string_equal(rn_errno_name(516), "ERESTART_RESTARTBLOCK");
	assert_string_equal(rn_errno_name(4000), "E?4000");
	assert_string_equal(rn_errno_desc(512), "To be restarted if SA_RESTART is set");
	assert_string_equal(rn_errno_desc(ENOENT), "No such file or directory");
	assert_true(rn_errno_is_restart(512));
	assert_true(rn_errno_is_restart(513));
	assert_true(rn_errno_is_restart(514));
	assert_true(rn_errno_is_restart(516));
	assert_false(rn_errno_is_restart(515));
	assert_false(rn_errno_is_restart(EINTR));
}

static void test_ptrace_tables_path_arguments(void **state)
{
	(void)state;
	assert_int_equal(rn_syscall_path_arg(SYS_openat, 0), 1);
	assert_int_equal(rn_syscall_path_arg(SYS_openat, 1), -1);
	assert_int_equal(rn_syscall_path_arg(SYS_execve, 0), 0);
	assert_int_equal(rn_syscall_path_arg(SYS_unlinkat, 0), 1);
	assert_int_equal(rn_syscall_path_arg(SYS_renameat2, 0), 1);
	assert_int_equal(rn_syscall_path_arg(SYS_renameat2, 1), 3);
	assert_int_equal(rn_syscall_path_arg(SYS_newfstatat, 0), 1);
	assert_int_equal(rn_syscall_path_arg(SYS_statx, 0), 1);
	assert_int_equal(rn_syscall_path_arg(SYS_read, 0), -1);
	assert_int_equal(rn_syscall_path_arg(1000, 0), -1);
#ifdef SYS_rename
	assert_int_equal(rn_syscall_path_arg(SYS_rename, 0), 0);
	assert_int_equal(rn_syscall_path_arg(SYS_rename, 1), 1);
	assert_int_equal(rn_syscall_path_arg(SYS_stat, 0), 0);
	assert_int_equal(rn_syscall_path_arg(SYS_access, 0), 0);
	assert_int_equal(rn_syscall_path_arg(SYS_mkdir, 0), 0);
#endif
}

static bool *set_new(void)
{
	return calloc((size_t)rn_syscall_table_size(), sizeof(bool));
}

static int count(const bool *set)
{
	int i, n = 0;

	for (i = 0; i < rn_syscall_table_size(); i++)
		n += set[i];
	return n;
}

static void test_ptrace_tables_set_names_and_classes(void **state)
{
	bool *set = set_new();
	struct rn_diag d;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_syscall_set_parse("openat,read", set, &d), 0);
	assert_int_equal(count(set), 2);
	assert_true(set[SYS_openat] && set[SYS_read]);

	assert_int_equal(rn_syscall_set_parse("%file", set, &d), 0);
	assert_true(set[SYS_openat] && set[SYS_execve] && set[SYS_unlinkat]);
	assert_false(set[SYS_read]);

	assert_int_equal(rn_syscall_set_parse("%process,write", set, &d), 0);
	assert_true(set[SYS_clone] && set[SYS_wait4] && set[SYS_exit_group] && set[SYS_write]);

	assert_int_equal(rn_syscall_set_parse("!openat", set, &d), 0);
	assert_int_equal(count(set), rn_syscall_table_size() - 1);
	assert_false(set[SYS_openat]);

	assert_int_equal(rn_syscall_set_parse("all", set, &d), 0);
	assert_int_equal(count(set), rn_syscall_table_size());
	assert_int_equal(rn_syscall_set_parse("none", set, &d), 0);
	assert_int_equal(count(set), 0);

	/* '?': no error for a name this system does not know */
	assert_int_equal(rn_syscall_set_parse("openat,no_such_call?", set, &d), 0);
	assert_int_equal(count(set), 1);
	assert_false(d.set);
	free(set);
}

static void test_ptrace_tables_set_errors(void **state)
{
	bool *set = set_new();
	struct rn_diag d;

	(void)state;
	/* the reason comes back in the diag, without the command's name: the caller words it */
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_syscall_set_parse("opnat", set, &d), -1);
	assert_string_equal(d.msg, "unknown syscall 'opnat' (did you mean 'openat'?)");
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_syscall_set_parse("%fiel", set, &d), -1);
	assert_string_equal(d.msg,
			    "unknown syscall class '%fiel' (known: %file %desc "
			    "%process %network %signal %ipc %memory %creds %clock %stat)");
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_syscall_set_parse("openat,,read", set, &d), -1);
	assert_string_equal(d.msg, "empty syscall name in 'openat,,read'");
	free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptrace_tables_names_match_libc_numbers),
		cmocka_unit_test(test_ptrace_tables_every_name_round_trips),
		cmocka_unit_test(test_ptrace_tables_unnamed_numbers_print_as_strace),
		cmocka_unit_test(test_ptrace_tables_errno_names),
		cmocka_unit_test(test_ptrace_tables_path_arguments),
		cmocka_unit_test(test_ptrace_tables_set_names_and_classes),
		cmocka_unit_test(test_ptrace_tables_set_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
