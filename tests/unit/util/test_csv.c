/*
 * test_csv.c - RFC 4180 fields (util/csv.h): plain fields as they are, quoting for
 * commas, quotes, CR, LF and edge spaces, doubled quotes inside; spreadsheet formulas
 * neutralized with a leading single quote (OWASP CSV injection); invalid UTF-8 as U+FFFD.
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
		/* formulas: = + - @ TAB CR at the start (OWASP) */
		{ "=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\"" },
		{ "+1+1", "\"'+1+1\"" },
		{ "-2+3", "\"'-2+3\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "\t=1", "\"'\t=1\"" },
		{ "\r=1", "\"'\r=1\"" },
		{ "=\"x\"", "\"'=\"\"x\"\"\"" },
		/* after spaces or quotes a spreadsheet trims, LF, and the fullwidth forms */
		{ " =1+1", "\"' =1+1\"" },
		{ "  +1", "\"'  +1\"" },
		{ "\"=1+1", "\"'\"\"=1+1\"" },
		{ " \"@x", "\"' \"\"@x\"" },
		{ "\n=1", "\"'\n=1\"" },
		{ "\xe3\x80\x80=1", "\"'\xe3\x80\x80=1\"" },
		{ "\xef\xbc\x9d"
		  "1+1",
		  "\"'\xef\xbc\x9d"
		  "1+1\"" },
		{ "\xef\xbc\xa0x", "\"'\xef\xbc\xa0x\"" },
		{ "\xef\xbc\x8b"
		  "1",
		  "\"'\xef\xbc\x8b"
		  "1\"" },
		{ "\xef\xbc\x8d"
		  "1",
		  "\"'\xef\xbc\x8d"
		  "1\"" },
		{ " x", "\" x\"" },
		{ "\"", "\"\"\"\"" },
		{ "\xef\xbc\xa1", "\xef\xbc\xa1" },
		{ "a=1", "a=1" },
		{ "/tmp/-x", "/tmp/-x" },
		/* bytes that are not UTF-8 */
		{ "bad\xff", "bad\xef\xbf\xbd" },
		{ "\xc3", "\xef\xbf\xbd" },
		{ "=\xfe", "\"'=\xef\xbf\xbd\"" },
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
