/*
 * test_strvec.c - the string vector (util/strvec.h): always NULL-terminated, and
 * "KEY=VALUE" entries replaced in place, never duplicated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "strvec.h"

static void test_strvec_terminated(void **state)
{
	struct rn_strvec sv;

	(void)state;
	rn_strvec_init(&sv);
	assert_non_null(sv.v);
	assert_int_equal(sv.n, 0);
	assert_null(sv.v[0]);
	for (int i = 0; i < 100; i++)
		rn_strvec_push(&sv, "x");
	assert_int_equal(sv.n, 100);
	assert_string_equal(sv.v[99], "x");
	assert_null(sv.v[100]);
	rn_strvec_release(&sv);
	assert_null(sv.v);
}

static void test_strvec_env_replaces(void **state)
{
	struct rn_strvec sv;

	(void)state;
	rn_strvec_init(&sv);
	rn_strvec_env_set(&sv, "PATH=/bin");
	rn_strvec_env_set(&sv, "PATHX=1");
	rn_strvec_env_setkv(&sv, "HOME", "/root");
	rn_strvec_env_set(&sv, "PATH=/usr/bin");
	assert_int_equal(sv.n, 3);
	assert_string_equal(sv.v[0], "PATH=/usr/bin"); /* in place */
	assert_string_equal(rn_strvec_env_get(&sv, "PATHX"), "1");
	assert_string_equal(rn_strvec_env_get(&sv, "HOME"), "/root");
	assert_null(rn_strvec_env_get(&sv, "PAT"));
	assert_int_equal(rn_strvec_env_find(&sv, "HOME"), 2);
	assert_int_equal(rn_strvec_env_find(&sv, "NOPE"), -1);
	rn_strvec_env_set(&sv, "NOEQUALS");
	assert_int_equal(sv.n, 4);
	assert_null(sv.v[4]);
	rn_strvec_release(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strvec_terminated),
		cmocka_unit_test(test_strvec_env_replaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
