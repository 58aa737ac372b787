/*
 * test_xalloc.c - rn_xstrfmt (util/xalloc.h): the whole formatted text, however long,
 * in a new string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xalloc.h"

static void test_xalloc_strfmt_formats(void **state)
{
	char *s;

	(void)state;
	s = rn_xstrfmt("%s/%s:%d", "dir", "file", 12);
	assert_string_equal(s, "dir/file:12");
	free(s);
	s = rn_xstrfmt("%s", "");
	assert_string_equal(s, "");
	free(s);
}

/* Longer than any fixed buffer a caller might have used: never shortened. */
static void test_xalloc_strfmt_not_shortened(void **state)
{
	char *big = rn_xmalloc(100001);
	char *s;

	(void)state;
	memset(big, 'a', 100000);
	big[100000] = '\0';
	s = rn_xstrfmt("<%s>", big);
	assert_int_equal(strlen(s), 100002);
	assert_int_equal(s[0], '<');
	assert_int_equal(s[100001], '>');
	free(s);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xalloc_strfmt_formats),
		cmocka_unit_test(test_xalloc_strfmt_not_shortened),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
