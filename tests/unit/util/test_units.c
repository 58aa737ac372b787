/*
 * test_units.c - numbers for people: bytes with binary prefixes, durations in us/ms/s,
 * counts without decimals and with the right singular or plural noun.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

static char out[RN_UNITS_MAX];

static void test_units_bytes(void **state)
{
	(void)state;
	assert_string_equal(rn_fmt_bytes(out, sizeof(out), 0), "0 B");
	assert_string_equal(rn_fmt_bytes(out, sizeof(out), 1023), "1023 B");
	assert_string_equal(rn_fmt_bytes(out, sizeof(out), 1536), "1.50 KiB");
	assert_string_equal(rn_fmt_bytes(out, sizeof(out), 27443200.0), "26.2 MiB");
	assert_string_equal(rn_fmt_bytes(out, sizeof(out), 3.0 * 1024 * 1024 * 1024), "3.00 GiB");
	/* 1023.99 KiB rounds to the next prefix, never "1024 KiB" */
	assert_string_equal(rn_fmt_bytes(out, sizeof(out), 1048570.0), "1.00 MiB");
	assert_string_equal(rn_fmt_bytes(out, sizeof(out), -2048.0), "-2.00 KiB");
}

static void test_units_durations(void **state)
{
	(void)state;
	assert_string_equal(rn_fmt_ms(out, sizeof(out), 5029.057), "5.03 s");
	assert_string_equal(rn_fmt_ms(out, sizeof(out), 0.85), "850 us");
	assert_string_equal(rn_fmt_ms(out, sizeof(out), 12.345), "12.3 ms");
	assert_string_equal(rn_fmt_ms(out, sizeof(out), 1.5), "1.50 ms");
	assert_string_equal(rn_fmt_ms(out, sizeof(out), 236.0), "236 ms");
	assert_string_equal(rn_fmt_ms(out, sizeof(out), 0.0004), "0.4 us");
	assert_string_equal(rn_fmt_ms(out, sizeof(out), 125000.0), "2 min 5 s");
	assert_string_equal(rn_fmt_ns(out, sizeof(out), 9e6), "9.00 ms");
	assert_string_equal(rn_fmt_signed(out, sizeof(out), 9.0, "ms"), "+9.00 ms");
	assert_string_equal(rn_fmt_signed(out, sizeof(out), -1.5 * 1024 * 1024, "bytes"),
			    "-1.50 MiB");
}

static void test_units_counts(void **state)
{
	(void)state;
	assert_string_equal(rn_fmt_count(out, sizeof(out), 1, "process"), "1 process");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 1, "processes"), "1 process");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 3, "process"), "3 processes");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 427.0, "calls"), "427 calls");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 1, "calls"), "1 call");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 2, "entry"), "2 entries");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 1, "entries"), "1 entry");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 2, "dispatch"), "2 dispatches");
	assert_string_equal(rn_fmt_count(out, sizeof(out), 12.4, ""), "12");
	assert_string_equal(rn_fmt_value(out, sizeof(out), 27443200.0, "bytes"), "26.2 MiB");
	assert_string_equal(rn_fmt_value(out, sizeof(out), 0.91, "confidence"), "0.91");
	assert_string_equal(rn_fmt_value(out, sizeof(out), 7.0, "spans"), "7 spans");
	assert_string_equal(rn_fmt_value(out, sizeof(out), 1.0, "spans"), "1 span");
	assert_string_equal(rn_plural(0, "run"), "runs");
	/* two in one printf: each keeps its own word */
	{
		const char *a = rn_plural(3, "row"), *b = rn_plural(2, "target");

		assert_string_equal(a, "rows");
		assert_string_equal(b, "targets");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_bytes),
		cmocka_unit_test(test_units_durations),
		cmocka_unit_test(test_units_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
