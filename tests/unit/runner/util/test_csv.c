/*
 * test_csv.c - RFC 4180 fields (runner/util/csv.h): plain fields as they are, quoting for
 * commas, quotes, CR, LF and edge spaces, doubled quotes inside.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "csv.h"

static void test_csv_fields(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "openat", "openat" },
		{ "", "" },
		{ "/tmp/a,b", "\"/tmp/a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "cr\r", "\"cr\r\"" },
		{ " lead", "\" lead\"" },
		{ "trail ", "\"trail \"" },
		{ "in side", "in side" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
	};
	struct rn_buf b;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rn_buf_init(&b, 0);
		rn_csv_add_field(&b, cases[i].in);
		assert_string_equal(b.buf, cases[i].out);
		rn_buf_release(&b);
	}
	rn_buf_init(&b, 0);
	rn_csv_add_field(&b, NULL);
	assert_string_equal(b.buf, "");
	rn_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
