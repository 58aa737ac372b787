/*
 * test_inject.c - strace's --inject rules (collectors/inject_rules.h): actions, durations
 * and their units, when= expressions, errors with their reasons, and the planted delay of
 * rn_inject_delay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "diag.h"
#include "inject_rules.h"

static void test_inject_actions(void **state)
{
	struct rn_inject inj;
	struct rn_diag d;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_inject_parse(&inj, "fsync,fdatasync:error=EIO", &d), 0);
	assert_true(inj.set[SYS_fsync] && inj.set[SYS_fdatasync] && !inj.set[SYS_read]);
	assert_int_equal(inj.actions, RN_INJECT_ERROR);
	assert_int_equal(inj.error, 5);
	assert_true(rn_inject_when(&inj, 1) && rn_inject_when(&inj, 1000));
	assert_string_equal(inj.text, "fsync,fdatasync:error=EIO");
	rn_inject_release(&inj);

	assert_int_equal(rn_inject_parse(&inj, "read:retval=42:signal=USR1", &d), 0);
	assert_int_equal(inj.actions, RN_INJECT_RETVAL | RN_INJECT_SIGNAL);
	assert_int_equal(inj.retval, 42);
	assert_int_equal(inj.signo, SIGUSR1);
	rn_inject_release(&inj);

	assert_int_equal(rn_inject_parse(&inj, "%file:error=13:signal=SIGTERM", &d), 0);
	assert_true(inj.set[SYS_openat]);
	assert_int_equal(inj.error, 13);
	assert_int_equal(inj.signo, SIGTERM);
	rn_inject_release(&inj);
}

static void test_inject_durations(void **state)
{
	static const struct {
		const char *spec;
		uint64_t enter_ns, exit_ns;
	} cases[] = {
		{ "fsync:delay_exit=10ms", 0, 10000000 },
		{ "fsync:delay_exit=250", 0, 250000 }, /* microseconds without a unit */
		{ "fsync:delay_enter=1.5s", 1500000000, 0 },
		{ "fsync:delay_enter=20us:delay_exit=300ns", 20000, 300 },
	};
	struct rn_inject inj;
	struct rn_diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rn_diag_init(&d, NULL, NULL, 0);
		assert_int_equal(rn_inject_parse(&inj, cases[i].spec, &d), 0);
		assert_int_equal(inj.delay_enter_ns, cases[i].enter_ns);
		assert_int_equal(inj.delay_exit_ns, cases[i].exit_ns);
		rn_inject_release(&inj);
	}
}

static void test_inject_when(void **state)
{
	struct rn_inject inj;
	struct rn_diag d;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_inject_parse(&inj, "fsync:error=EIO:when=3", &d), 0);
	assert_false(rn_inject_when(&inj, 2));
	assert_true(rn_inject_when(&inj, 3));
	assert_false(rn_inject_when(&inj, 4));
	rn_inject_release(&inj);
	assert_int_equal(rn_inject_parse(&inj, "fsync:error=EIO:when=3+", &d), 0);
	assert_false(rn_inject_when(&inj, 2));
	assert_true(rn_inject_when(&inj, 3) && rn_inject_when(&inj, 4) && rn_inject_when(&inj, 99));
	rn_inject_release(&inj);
	assert_int_equal(rn_inject_parse(&inj, "fsync:error=EIO:when=2+3", &d), 0);
	assert_true(rn_inject_when(&inj, 2) && rn_inject_when(&inj, 5) && rn_inject_when(&inj, 8));
	assert_false(rn_inject_when(&inj, 3) || rn_inject_when(&inj, 4) || rn_inject_when(&inj, 1));
	rn_inject_release(&inj);
	assert_int_equal(rn_inject_parse(&inj, "fsync:error=EIO:when=2..6+2", &d), 0);
	assert_true(rn_inject_when(&inj, 2) && rn_inject_when(&inj, 4) && rn_inject_when(&inj, 6));
	assert_false(rn_inject_when(&inj, 3) || rn_inject_when(&inj, 8));
	rn_inject_release(&inj);
}

static void test_inject_errors(void **state)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{ "fsync",
		  "inject 'fsync': expected SET:ACTION (fsync:error=EIO, "
		  "read:delay_exit=10ms)" },
		{ "fsync:when=2",
		  "inject 'fsync:when=2': no action (error=, retval=, signal=, "
		  "delay_enter= or delay_exit=)" },
		{ "fsync:error=EIO:retval=1",
		  "inject 'fsync:error=EIO:retval=1': error= and retval= exclude each other" },
		{ "fsync:error=EOI",
		  "inject 'fsync:error=EOI': unknown errno 'EOI' (a name such as EIO, or 1..4095)" },
		{ "fsync:signal=SIGFOO", "inject 'fsync:signal=SIGFOO': unknown signal 'SIGFOO'" },
		{ "fsync:delay_exit=10m",
		  "inject 'fsync:delay_exit=10m': delay_exit wants a "
		  "duration such as 10ms, 500us or 1s, not '10m'" },
		{ "fsync:error=EIO:when=0",
		  "inject 'fsync:error=EIO:when=0': when wants "
		  "FIRST[..LAST][+[STEP]] (from 1), not '0'" },
		{ "fsync:eror=EIO",
		  "inject 'fsync:eror=EIO': unknown modifier 'eror' (did you mean 'error'?)" },
		{ "fsync:retval=-1",
		  "inject 'fsync:retval=-1': retval wants a number >= 0, not '-1'" },
	};
	struct rn_inject inj;
	struct rn_diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rn_diag_init(&d, NULL, NULL, 0);
		assert_int_equal(rn_inject_parse(&inj, cases[i].spec, &d), -1);
		assert_string_equal(d.msg, cases[i].msg);
		assert_null(inj.set); /* nothing left to free */
	}
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_inject_parse(&inj, "fsnyc:error=EIO", &d), -1);
	assert_non_null(strstr(d.msg, "did you mean 'fsync'"));
}

static void test_inject_planted_delay(void **state)
{
	struct rn_inject inj;

	(void)state;
	assert_int_equal(rn_inject_delay(&inj, "fsync", 10000000, false), 0);
	assert_true(inj.set[SYS_fsync] && !inj.set[SYS_write]);
	assert_int_equal(inj.actions, RN_INJECT_DELAY_EXIT);
	assert_int_equal(inj.delay_exit_ns, 10000000);
	assert_true(rn_inject_when(&inj, 1) && rn_inject_when(&inj, 12345));
	assert_string_equal(inj.text, "fsync:delay_exit=10000000ns");
	rn_inject_release(&inj);
	assert_int_equal(rn_inject_delay(&inj, "exit_group", 20000000, true), 0);
	assert_true(inj.set[SYS_exit_group]);
	assert_int_equal(inj.actions, RN_INJECT_DELAY_ENTER);
	assert_int_equal(inj.delay_enter_ns, 20000000);
	assert_string_equal(inj.text, "exit_group:delay_enter=20000000ns");
	rn_inject_release(&inj);
	assert_int_equal(rn_inject_delay(&inj, "no_such_call", 1, false), -EINVAL);
	assert_int_equal(rn_inject_delay(&inj, "fsync", 0, true), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inject_actions),
		cmocka_unit_test(test_inject_durations),
		cmocka_unit_test(test_inject_when),
		cmocka_unit_test(test_inject_errors),
		cmocka_unit_test(test_inject_planted_delay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
