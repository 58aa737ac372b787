/*
 * test_toml.c - unit tests of the TOML 1.0.0 parser (runner/input/toml.c).
 *
 * The conformance suite (tests/integration/toml/tests.cmake) checks what is accepted; these tests
 * pin down what the suite does not: decoded values, the exact error messages and their line:column,
 * source positions of keys and values, the nesting bound, lookups and allocation failures.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "toml.h"
#include "xalloc.h"

/* Present when built with AddressSanitizer, whose allocator replaces glibc's. */
extern size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

/*
 * Bytes of heap in use, to check that a failed parse frees everything it allocated (leak
 * detection at exit is conservative: a stale pointer on the stack hides a leak).
 */
static size_t heap_in_use(void)
{
	/* Without ASan there is no exact counter: glibc's mallinfo2() counts chunks parked in
	 * its thread cache as in use. The check is then a no-op. */
	if (__sanitizer_get_current_allocated_bytes)
		return __sanitizer_get_current_allocated_bytes();
	return 0;
}

/* Parse `len` bytes that must be valid; fails the test with the diagnostic otherwise. */
static struct rn_toml_value *parse_n(const char *src, size_t len)
{
	struct rn_toml_value *root = NULL;
	struct rn_diag d;

	rn_diag_init(&d, "test.toml", src, len);
	if (rn_toml_parse(src, len, &root, &d)) {
		print_error("unexpected error %d:%d: %s\n", d.line, d.col, d.msg);
		fail();
	}
	assert_non_null(root);
	assert_int_equal(root->type, RN_TOML_TABLE);
	return root;
}

static struct rn_toml_value *parse(const char *src)
{
	return parse_n(src, strlen(src));
}

/* Parse `len` bytes that must be rejected at line:col with exactly `msg`. */
static void expect_error_n(const char *src, size_t len, int line, int col, const char *msg)
{
	struct rn_toml_value *root = (struct rn_toml_value *)1;
	struct rn_diag d;
	size_t heap;

	rn_diag_init(&d, "test.toml", src, len);
	heap = heap_in_use();
	if (rn_toml_parse(src, len, &root, &d) != -EINVAL) {
		print_error("accepted invalid TOML: %s\n", src);
		rn_toml_free(root);
		fail();
	}
	assert_int_equal(heap_in_use(), heap);
	assert_null(root);
	assert_true(d.set);
	assert_string_equal(d.msg, msg);
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
}

static void expect_error(const char *src, int line, int col, const char *msg)
{
	expect_error_n(src, strlen(src), line, col, msg);
}

/* The value at a dotted path of plain segments ("a.b.c"); fails the test if absent. */
static const struct rn_toml_value *at(const struct rn_toml_value *root, const char *path)
{
	char seg[128];
	const char *p = path;
	const struct rn_toml_value *v = root;

	while (*p) {
		size_t n = strcspn(p, ".");

		assert_true(n < sizeof(seg));
		memcpy(seg, p, n);
		seg[n] = '\0';
		v = rn_toml_get(v, seg);
		if (!v) {
			print_error("no value at '%s' (segment '%s')\n", path, seg);
			fail();
		}
		p += n + (p[n] == '.');
	}
	return v;
}

static const char *str(const struct rn_toml_value *root, const char *path)
{
	const struct rn_toml_value *v = at(root, path);

	assert_int_equal(v->type, RN_TOML_STRING);
	assert_int_equal(strlen(v->u.str.ptr), v->u.str.len);
	return v->u.str.ptr;
}

static int64_t integer(const struct rn_toml_value *root, const char *path)
{
	const struct rn_toml_value *v = at(root, path);

	assert_int_equal(v->type, RN_TOML_INTEGER);
	return v->u.integer;
}

static double fp(const struct rn_toml_value *root, const char *path)
{
	const struct rn_toml_value *v = at(root, path);

	assert_int_equal(v->type, RN_TOML_FLOAT);
	return v->u.fp;
}

/* rn_toml_format_datetime() of the value at `path`, which must have type `type`. */
static const char *dt(const struct rn_toml_value *root, const char *path, enum rn_toml_type type)
{
	static char out[64];
	const struct rn_toml_value *v = at(root, path);

	assert_int_equal(v->type, type);
	rn_toml_format_datetime(v, out, sizeof(out));
	return out;
}

/* ---- Strings -------------------------------------------------------------------------- */

static void test_toml_string_kinds(void **state)
{
	struct rn_toml_value *r = parse("basic = \"a\\tb \\\"q\\\" \\\\ \\b\\f\\r\\n\"\n"
					"literal = 'C:\\path\\no\\escape \"x\"'\n"
					"uni = \"\\u00e9\\U0001F600\\u0041\"\n"
					"raw_utf8 = \"caf\xc3\xa9\"\n"
					"empty = \"\"\n"
					"empty_lit = ''\n");

	(void)state;
	assert_string_equal(str(r, "basic"), "a\tb \"q\" \\ \b\f\r\n");
	assert_string_equal(str(r, "literal"), "C:\\path\\no\\escape \"x\"");
	assert_string_equal(str(r, "uni"),
			    "\xc3\xa9\xf0\x9f\x98\x80"
			    "A");
	assert_string_equal(str(r, "raw_utf8"), "caf\xc3\xa9");
	assert_string_equal(str(r, "empty"), "");
	assert_string_equal(str(r, "empty_lit"), "");
	rn_toml_free(r);
}

static void test_toml_string_multiline(void **state)
{
	struct rn_toml_value *r =
		parse("trim_first = \"\"\"\nline1\nline2\"\"\"\n"
		      "no_trim = \"\"\"  \nx\"\"\"\n"
		      "backslash = \"\"\"The quick \\\n\n   brown \\   \n\tfox\"\"\"\n"
		      "quotes = \"\"\"a \"\" b\"\"\"\"\"\n"
		      "one_quote = \"\"\"\"x\"\"\"\"\n"
		      "lit = '''\nC:\\raw\n  'q' '''\n"
		      "lit_quotes = '''x'''''\n"
		      "crlf = \"\"\"\r\na\r\nb\"\"\"\n");

	(void)state;
	assert_string_equal(str(r, "trim_first"), "line1\nline2");
	assert_string_equal(str(r, "no_trim"), "  \nx");
	/* TOML 1.0.0: a line-ending backslash eats all whitespace and newlines after it. */
	assert_string_equal(str(r, "backslash"), "The quick brown fox");
	assert_string_equal(str(r, "quotes"), "a \"\" b\"\"");
	assert_string_equal(str(r, "one_quote"), "\"x\"");
	assert_string_equal(str(r, "lit"), "C:\\raw\n  'q' ");
	assert_string_equal(str(r, "lit_quotes"), "x''");
	/* CRLF inside a multi-line string is normalized to LF. */
	assert_string_equal(str(r, "crlf"), "a\nb");
	rn_toml_free(r);
}

static void test_toml_string_nul_escape(void **state)
{
	struct rn_toml_value *r = parse("s = \"a\\u0000b\"\n\"k\\u0000\" = 1\n");
	const struct rn_toml_value *s = rn_toml_get(r, "s");

	(void)state;
	assert_non_null(s);
	assert_int_equal(s->u.str.len, 3);
	assert_memory_equal(s->u.str.ptr, "a\0b", 4);
	assert_int_equal(r->u.table->kv[1].key_len, 2);
	assert_memory_equal(r->u.table->kv[1].key, "k\0", 3);
	rn_toml_free(r);
}

static void test_toml_string_errors(void **state)
{
	(void)state;
	expect_error("s = \"a\\qb\"", 1, 7, "invalid escape '\\q' in string");
	expect_error("s = \"\\uD800\"", 1, 6,
		     "invalid escape '\\uD800': U+D800 is not a unicode scalar value");
	expect_error("s = \"\\U00110000\"", 1, 6,
		     "invalid escape '\\U00110000': U+110000 is not a unicode scalar value");
	expect_error("s = \"\\u12\"", 1, 6,
		     "invalid escape '\\u': expected 4 hex digits, found '\"'");
	expect_error("s = \"abc\n\"", 1, 5,
		     "unterminated basic string (newlines are not allowed in single-line strings)");
	expect_error("s = 'abc", 1, 5, "unterminated literal string (missing closing \"'\")");
	expect_error("\n\ns = \"\"\"abc\"\"", 3, 5,
		     "unterminated multi-line basic string (missing closing \"\"\")");
	expect_error("s = \"\"\"a\"\"\"\"\"\"", 1, 14,
		     "too many quotes at the end of a multi-line string "
		     "(at most 2 may precede the closing \"\"\")");
	expect_error("s = \"\"\"a \\  b\"\"\"", 1, 10,
		     "invalid escape in string: backslash followed by ' '");
	expect_error("s = \"a\x01\"", 1, 7,
		     "control character U+0001 is not allowed in a basic string");
	expect_error("s = 'a\x7f'", 1, 7,
		     "control character U+007F is not allowed in a literal string");
	expect_error("s = '''a\x1f'''", 1, 9,
		     "control character U+001F is not allowed in a multi-line literal string");
	expect_error("\"\"\"k\"\"\" = 1", 1, 1, "a multi-line string cannot be used as a key");
}

/* ---- Numbers and booleans ------------------------------------------------------------- */

static void test_toml_integers(void **state)
{
	struct rn_toml_value *r =
		parse("dec = 1_000_000\nneg = -17\npos = +42\nzero = 0\nnz = -0\npz = +0\n"
		      "hex = 0xDEAD_beef\noct = 0o755\nbin = 0b1101_0110\n"
		      "max = 9223372036854775807\nmin = -9223372036854775808\n"
		      "hexmax = 0x7fffffffffffffff\n");

	(void)state;
	assert_int_equal(integer(r, "dec"), 1000000);
	assert_int_equal(integer(r, "neg"), -17);
	assert_int_equal(integer(r, "pos"), 42);
	assert_int_equal(integer(r, "zero"), 0);
	assert_int_equal(integer(r, "nz"), 0);
	assert_int_equal(integer(r, "pz"), 0);
	assert_int_equal(integer(r, "hex"), 0xDEADBEEF);
	assert_int_equal(integer(r, "oct"), 0755);
	assert_int_equal(integer(r, "bin"), 0xD6);
	assert_true(integer(r, "max") == INT64_MAX);
	assert_true(integer(r, "min") == INT64_MIN);
	assert_true(integer(r, "hexmax") == INT64_MAX);
	rn_toml_free(r);
}

static void test_toml_integer_errors(void **state)
{
	(void)state;
	expect_error("n = 9223372036854775808", 1, 5,
		     "integer '9223372036854775808' is out of range (int64)");
	expect_error("n = -9223372036854775809", 1, 5,
		     "integer '-9223372036854775809' is out of range (int64)");
	expect_error("n = 0x8000000000000000", 1, 5,
		     "integer '0x8000000000000000' is out of range (int64)");
	expect_error("n = 012", 1, 5, "invalid number '012': leading zeros are not allowed");
	expect_error("n = 1__2", 1, 5, "invalid number '1__2': '_' must be between digits");
	expect_error("n = 12_", 1, 5, "invalid number '12_': '_' must be between digits");
	expect_error("n = _12", 1, 5, "invalid value '_12'");
	expect_error("n = -0x1", 1, 5,
		     "invalid integer '-0x1': a sign is not allowed with a 0x prefix");
	expect_error("n = 0o8", 1, 5, "invalid integer '0o8': expected base-8 digits");
	expect_error("n = 0b_1", 1, 5, "invalid integer '0b_1': '_' must be between digits");
	expect_error("n = 0X1", 1, 5, "invalid number '0X1'");
	expect_error("n = 1 2", 1, 7, "expected end of line after value, found '2'");
}

static void test_toml_floats(void **state)
{
	struct rn_toml_value *r =
		parse("a = 3.14\nb = -0.01\nc = 5e+22\nd = 1e06\ne = -2E-2\nf = 6.626e-34\n"
		      "g = 224_617.445_991\nh = -0.0\ni = +0.0\nj = inf\nk = -inf\nl = +inf\n"
		      "m = nan\nn = -nan\no = 0.1\np = 1.7976931348623157e308\n");
	struct rn_buf b;
	size_t heap;
	int i;

	(void)state;
	assert_true(fp(r, "a") == 3.14);
	assert_true(fp(r, "b") == -0.01);
	assert_true(fp(r, "c") == 5e22);
	assert_true(fp(r, "d") == 1e6);
	assert_true(fp(r, "e") == -2e-2);
	assert_true(fp(r, "f") == 6.626e-34);
	assert_true(fp(r, "g") == 224617.445991);
	assert_true(fp(r, "h") == 0.0 && signbit(fp(r, "h")));
	assert_true(fp(r, "i") == 0.0 && !signbit(fp(r, "i")));
	assert_true(isinf(fp(r, "j")) && fp(r, "j") > 0);
	assert_true(isinf(fp(r, "k")) && fp(r, "k") < 0);
	assert_true(isinf(fp(r, "l")) && fp(r, "l") > 0);
	assert_true(isnan(fp(r, "m")));
	assert_true(isnan(fp(r, "n")));
	assert_true(fp(r, "o") == 0.1);
	assert_true(fp(r, "p") == 1.7976931348623157e308);
	rn_toml_free(r);
	/* A float longer than the parser's stack buffer is converted through the heap. */
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "long = 1.5");
	for (i = 0; i < 300; i++)
		rn_buf_adds(&b, i % 3 ? "0" : "_0");
	rn_buf_adds(&b, "e-1_0\n");
	heap = heap_in_use();
	r = parse(b.buf);
	assert_true(fp(r, "long") == 1.5e-10);
	rn_toml_free(r);
	assert_int_equal(heap_in_use(), heap);
	rn_buf_release(&b);
}

static void test_toml_float_errors(void **state)
{
	(void)state;
	expect_error("f = 1.", 1, 5, "invalid float '1.': expected a digit after '.'");
	expect_error("f = .5", 1, 5, "invalid value '.5'");
	expect_error("f = 1e", 1, 5, "invalid float '1e': expected a digit in the exponent");
	expect_error("f = 1.e5", 1, 5, "invalid float '1.e5': expected a digit after '.'");
	expect_error("f = 01.5", 1, 5, "invalid number '01.5': leading zeros are not allowed");
	expect_error("f = 1_.5", 1, 5, "invalid number '1_.5': '_' must be between digits");
	expect_error("f = 1e400", 1, 5, "float '1e400' is out of range (double)");
	expect_error("f = Inf", 1, 5, "invalid value 'Inf' (strings must be quoted)");
	expect_error("f = infinity", 1, 5, "invalid value 'infinity' (strings must be quoted)");
	expect_error("f = 1.2.3", 1, 5, "invalid number '1.2.3'");
}

static void test_toml_booleans(void **state)
{
	struct rn_toml_value *r = parse("t = true\nf = false\n");

	(void)state;
	assert_int_equal(at(r, "t")->type, RN_TOML_BOOL);
	assert_true(at(r, "t")->u.boolean);
	assert_false(at(r, "f")->u.boolean);
	rn_toml_free(r);
	expect_error("b = True", 1, 5, "invalid value 'True' (strings must be quoted)");
	expect_error("b = truex", 1, 5, "invalid value 'truex' (strings must be quoted)");
	expect_error("b = \n", 1, 5, "expected a value, found end of line");
	expect_error("b = hello", 1, 5, "invalid value 'hello' (strings must be quoted)");
}

/* ---- Dates and times ------------------------------------------------------------------ */

static void test_toml_datetimes(void **state)
{
	struct rn_toml_value *r = parse("odt1 = 1979-05-27T07:32:00Z\n"
					"odt2 = 1979-05-27T00:32:00-07:00\n"
					"odt3 = 1979-05-27T00:32:00.999999+05:30\n"
					"odt4 = 1979-05-27 07:32:00z\n"
					"odt5 = 1979-05-27t07:32:00-00:00\n"
					"ldt = 1979-05-27T07:32:00.5\n"
					"ld = 1979-05-27\n"
					"lt = 00:32:00.999\n"
					"leap = 2000-02-29\n"
					"leapsec = 1990-12-31T23:59:60Z\n"
					"long_frac = 12:00:00.1234567891234\n"
					"with_comment = 1979-05-27 # a date only\n");
	const struct rn_toml_value *v;

	(void)state;
	assert_string_equal(dt(r, "odt1", RN_TOML_DATETIME), "1979-05-27T07:32:00Z");
	assert_string_equal(dt(r, "odt2", RN_TOML_DATETIME), "1979-05-27T00:32:00-07:00");
	assert_string_equal(dt(r, "odt3", RN_TOML_DATETIME), "1979-05-27T00:32:00.999999+05:30");
	assert_string_equal(dt(r, "odt4", RN_TOML_DATETIME), "1979-05-27T07:32:00Z");
	assert_string_equal(dt(r, "odt5", RN_TOML_DATETIME), "1979-05-27T07:32:00+00:00");
	assert_string_equal(dt(r, "ldt", RN_TOML_DATETIME_LOCAL), "1979-05-27T07:32:00.5");
	assert_string_equal(dt(r, "ld", RN_TOML_DATE_LOCAL), "1979-05-27");
	assert_string_equal(dt(r, "lt", RN_TOML_TIME_LOCAL), "00:32:00.999");
	assert_string_equal(dt(r, "leap", RN_TOML_DATE_LOCAL), "2000-02-29");
	assert_string_equal(dt(r, "leapsec", RN_TOML_DATETIME), "1990-12-31T23:59:60Z");
	assert_string_equal(dt(r, "long_frac", RN_TOML_TIME_LOCAL), "12:00:00.123456789");
	assert_string_equal(dt(r, "with_comment", RN_TOML_DATE_LOCAL), "1979-05-27");
	v = at(r, "odt2");
	assert_int_equal(v->u.dt.offset_minutes, -7 * 60);
	assert_false(v->u.dt.offset_z);
	v = at(r, "odt3");
	assert_int_equal(v->u.dt.nanosecond, 999999000);
	assert_int_equal(v->u.dt.frac_digits, 6);
	assert_int_equal(v->u.dt.offset_minutes, 330);
	v = at(r, "long_frac");
	assert_int_equal(v->u.dt.nanosecond, 123456789);
	assert_int_equal(v->u.dt.frac_digits, 13);
	assert_true(at(r, "odt1")->u.dt.offset_z);
	rn_toml_free(r);
}

static void test_toml_datetime_errors(void **state)
{
	(void)state;
	expect_error("d = 2100-02-29", 1, 5, "invalid date '2100-02-29': day out of range (01-28)");
	expect_error("d = 2024-04-31", 1, 5, "invalid date '2024-04-31': day out of range (01-30)");
	expect_error("d = 2024-13-01", 1, 5,
		     "invalid date '2024-13-01': month out of range (01-12)");
	expect_error("d = 2024-1-01", 1, 5, "invalid date '2024-1-01': expected YYYY-MM-DD");
	expect_error("t = 24:00:00", 1, 5, "invalid time in '24:00:00': hour out of range");
	expect_error("t = 23:59:61", 1, 5, "invalid time in '23:59:61': second out of range");
	expect_error("t = 07:32", 1, 5, "invalid time in '07:32': seconds are required (HH:MM:SS)");
	expect_error("d = 1979-05-27T07:32:00+25:00", 1, 5,
		     "invalid date-time '1979-05-27T07:32:00+25:00': UTC offset out of range");
	expect_error("d = 1979-05-27T07:32:00+0700", 1, 5,
		     "invalid date-time '1979-05-27T07:32:00+0700': expected a UTC offset "
		     "(Z or +HH:MM)");
	expect_error("d = 1979-05-27T07:32:00.", 1, 5,
		     "invalid time in '1979-05-27T07:32:00.': expected a digit after '.'");
	expect_error("d = 10000-01-01", 1, 5,
		     "invalid date or time '10000-01-01' (expected YYYY-MM-DD, HH:MM:SS or both)");
}

/* ---- Arrays and inline tables --------------------------------------------------------- */

static void test_toml_arrays(void **state)
{
	struct rn_toml_value *r = parse("empty = []\n"
					"mixed = [1, 'two', 3.0, true, 1979-05-27, [4], {x = 5},]\n"
					"multi = [ # comment\n  1,\n\n  2, # two\n  # alone\n]\n"
					"nested = [[1, 2], [\"a\"]]\n");
	const struct rn_toml_value *a;

	(void)state;
	a = at(r, "empty");
	assert_int_equal(a->type, RN_TOML_ARRAY);
	assert_int_equal(a->u.array.n, 0);
	a = at(r, "mixed");
	assert_int_equal(a->u.array.n, 7);
	assert_int_equal(a->u.array.items[0]->type, RN_TOML_INTEGER);
	assert_int_equal(a->u.array.items[1]->type, RN_TOML_STRING);
	assert_int_equal(a->u.array.items[2]->type, RN_TOML_FLOAT);
	assert_int_equal(a->u.array.items[3]->type, RN_TOML_BOOL);
	assert_int_equal(a->u.array.items[4]->type, RN_TOML_DATE_LOCAL);
	assert_int_equal(a->u.array.items[5]->type, RN_TOML_ARRAY);
	assert_int_equal(a->u.array.items[6]->type, RN_TOML_TABLE);
	assert_int_equal(integer(a->u.array.items[6], "x"), 5);
	a = at(r, "multi");
	assert_int_equal(a->u.array.n, 2);
	assert_int_equal(a->u.array.items[1]->u.integer, 2);
	a = at(r, "nested");
	assert_int_equal(a->u.array.items[0]->u.array.n, 2);
	assert_string_equal(a->u.array.items[1]->u.array.items[0]->u.str.ptr, "a");
	rn_toml_free(r);
}

static void test_toml_array_errors(void **state)
{
	(void)state;
	expect_error("a = [1 2]", 1, 8, "expected ',' or ']' after an array element, found '2'");
	expect_error("a = [1,,2]", 1, 8, "expected a value, found ','");
	expect_error("a = [,]", 1, 6, "expected a value, found ','");
	expect_error("a = [1,\n2", 1, 5, "unterminated array (missing ']')");
}

static void test_toml_inline_tables(void **state)
{
	struct rn_toml_value *r = parse("name = { first = \"Tom\", last = \"Preston-Werner\" }\n"
					"point = {x=1,y=2}\n"
					"empty = {}\n"
					"dotted = { a.b = 1, a.c = 2, d = { e = [1,\n 2] } }\n");

	(void)state;
	assert_string_equal(str(r, "name.first"), "Tom");
	assert_string_equal(str(r, "name.last"), "Preston-Werner");
	assert_int_equal(integer(r, "point.y"), 2);
	assert_int_equal(at(r, "empty")->u.table->n, 0);
	assert_int_equal(integer(r, "dotted.a.b"), 1);
	assert_int_equal(integer(r, "dotted.a.c"), 2);
	assert_int_equal(at(r, "dotted.d.e")->u.array.n, 2);
	rn_toml_free(r);
}

static void test_toml_inline_table_errors(void **state)
{
	(void)state;
	expect_error("t = {a = 1,}", 1, 12, "trailing comma is not allowed in an inline table");
	expect_error("t = {a = 1\n}", 1, 11,
		     "newline in inline table (inline tables must be on one line)");
	expect_error("t = {\na = 1}", 1, 6,
		     "newline in inline table (inline tables must be on one line)");
	expect_error("t = {a = 1 b = 2}", 1, 12, "expected ',' or '}' in inline table, found 'b'");
	expect_error("t = {a = 1, a = 2}", 1, 13, "duplicate key 'a' (first defined at line 1)");
	/* TOML 1.0.0, section Inline Table: inline tables are fully self-contained. */
	expect_error("t = {a = 1}\nt.b = 2", 2, 1,
		     "cannot add keys to inline table 't' (defined at line 1): inline tables "
		     "are complete");
	expect_error("t = {a = 1}\n[t]", 2, 2,
		     "cannot define table 't': it is already an inline table (defined at line 1)");
	expect_error("t = {a = {}}\n[t.a.b]", 2, 2,
		     "cannot add to inline table 't' (defined at line 1): inline tables are "
		     "complete");
	expect_error("t = {a = {b = 1}, a.c = 2}", 1, 19,
		     "cannot add keys to inline table 'a' (defined at line 1): inline tables are "
		     "complete");
}

/* ---- Tables, arrays of tables and redefinition ---------------------------------------- */

static void test_toml_tables(void **state)
{
	struct rn_toml_value *r =
		parse("top = 1\n"
		      "[a.b.c]\nx = 1\n"
		      "[a]\ny = 2\n"
		      "[ a . \"quoted key\" . 'lit' ]\nz = 3\n"
		      "[dog.\"tater.man\"]\ntype.name = \"pug\"\n"
		      "[fruit]\napple.color = \"red\"\n[fruit.apple.texture]\nsmooth = true\n");

	(void)state;
	assert_int_equal(integer(r, "top"), 1);
	assert_int_equal(integer(r, "a.b.c.x"), 1);
	assert_int_equal(integer(r, "a.y"), 2);
	assert_int_equal(integer(at(r, "a.quoted key"), "lit.z"), 3);
	/* A quoted segment may contain dots; it is still one key. */
	assert_non_null(rn_toml_get(at(r, "dog"), "tater.man"));
	assert_string_equal(str(rn_toml_get(at(r, "dog"), "tater.man"), "type.name"), "pug");
	assert_true(at(r, "fruit.apple.texture.smooth")->u.boolean);
	assert_string_equal(str(r, "fruit.apple.color"), "red");
	rn_toml_free(r);
}

static void test_toml_arrays_of_tables(void **state)
{
	struct rn_toml_value *r = parse("[[fruits]]\nname = \"apple\"\n"
					"[fruits.physical]\ncolor = \"red\"\n"
					"[[fruits.varieties]]\nname = \"red delicious\"\n"
					"[[fruits.varieties]]\nname = \"granny smith\"\n"
					"[[fruits]]\nname = \"banana\"\n"
					"[[fruits.varieties]]\nname = \"plantain\"\n"
					"[[empty]]\n[[empty]]\n");
	const struct rn_toml_value *f, *e;

	(void)state;
	f = at(r, "fruits");
	assert_int_equal(f->type, RN_TOML_ARRAY);
	assert_int_equal(f->u.array.n, 2);
	assert_string_equal(str(f->u.array.items[0], "physical.color"), "red");
	assert_int_equal(at(f->u.array.items[0], "varieties")->u.array.n, 2);
	assert_string_equal(str(at(f->u.array.items[0], "varieties")->u.array.items[1], "name"),
			    "granny smith");
	assert_string_equal(str(f->u.array.items[1], "name"), "banana");
	assert_int_equal(at(f->u.array.items[1], "varieties")->u.array.n, 1);
	e = at(r, "empty");
	assert_int_equal(e->u.array.n, 2);
	assert_int_equal(e->u.array.items[1]->u.table->n, 0);
	rn_toml_free(r);
}

static void test_toml_redefinition_errors(void **state)
{
	(void)state;
	expect_error("a = 1\nb = 2\n  a = 3", 3, 3, "duplicate key 'a' (first defined at line 1)");
	expect_error("a.b = 1\na.b = 2", 2, 3, "duplicate key 'a.b' (first defined at line 1)");
	expect_error("a = 1\n\"a\" = 2", 2, 1, "duplicate key '\"a\"' (first defined at line 1)");
	expect_error("[a]\nx = 1\n[b]\n[a]", 4, 2, "duplicate table 'a' (first defined at line 1)");
	expect_error("[a.b]\n[a]\n[a]", 3, 2, "duplicate table 'a' (first defined at line 2)");
	expect_error("a = 1\n[a]", 2, 2,
		     "cannot define table 'a': it is already an integer (defined at line 1)");
	expect_error("a = 1\n[a.b]", 2, 2,
		     "cannot use key 'a' as a table: it is already an integer (defined at line 1)");
	expect_error("a = 1\na.b = 2", 2, 1,
		     "cannot use key 'a' as a table: it is already an integer (defined at line 1)");
	/* TOML 1.0.0, section Table: tables defined by dotted keys cannot be redefined by a
	 * header, and dotted keys cannot reopen a table defined by a header. */
	expect_error("[fruit]\napple.color = 'red'\n[fruit.apple]", 3, 8,
		     "cannot define table 'fruit.apple': it was already created by dotted keys "
		     "(at line 2)");
	expect_error("[a.b.c]\nz = 9\n[a]\nb.c.t = 1", 4, 1,
		     "cannot add keys to table 'b' with a dotted key: it was defined by a table "
		     "header at line 1");
	/* Section Array of Tables: static arrays cannot be appended to, and a name cannot be
	 * both a table and an array of tables. */
	expect_error("a = []\n[[a]]", 2, 3,
		     "cannot define array of tables 'a': it is already an array (defined at "
		     "line 1)");
	expect_error("a = [{}]\n[[a]]", 2, 3,
		     "cannot define array of tables 'a': it is already an array (defined at "
		     "line 1)");
	expect_error("[[a]]\n[a]", 2, 2,
		     "cannot define table 'a': it is already an array of tables (defined at "
		     "line 1)");
	expect_error("[a]\n[[a]]", 2, 3,
		     "cannot define array of tables 'a': it is already a table (defined at "
		     "line 1)");
	expect_error("[a.b]\n[[a]]", 2, 3,
		     "cannot define array of tables 'a': it is already a table (defined at "
		     "line 1)");
	expect_error("a = [1]\n[a.b]", 2, 2,
		     "cannot use key 'a' as a table: it is already an array (defined at line 1)");
}

/* ---- Keys, syntax errors and positions ------------------------------------------------ */

static void test_toml_keys(void **state)
{
	struct rn_toml_value *r =
		parse("bare_key-1 = 1\n1234 = 2\n\"quoted \\u00e9\" = 3\n'lit\"' = 4\n\"\" = 5\n"
		      "a . b . c = 6\n3.14159 = 7\n");

	(void)state;
	assert_int_equal(integer(r, "bare_key-1"), 1);
	assert_int_equal(integer(r, "1234"), 2);
	assert_int_equal(integer(r, "quoted \xc3\xa9"), 3);
	assert_int_equal(integer(r, "lit\""), 4);
	assert_int_equal(rn_toml_get(r, "")->u.integer, 5);
	assert_int_equal(integer(r, "a.b.c"), 6);
	assert_int_equal(integer(at(r, "3"), "14159"), 7);
	rn_toml_free(r);
}

static void test_toml_syntax_errors(void **state)
{
	(void)state;
	expect_error("name x", 1, 6, "expected '=' after key 'name', found 'x'");
	expect_error("a.b\n", 1, 4, "expected '=' after key 'a.b', found end of line");
	expect_error("= 1", 1, 1, "expected a key, found '='");
	expect_error("a. = 1", 1, 4, "expected a key, found '='");
	expect_error("k\xc3\xa9 = 1", 1, 2, "expected '=' after key 'k', found '\xc3\xa9'");
	expect_error("a = 1 # ok\n[t] x", 2, 5,
		     "expected end of line after table header, found 'x'");
	expect_error("[a", 1, 3, "expected ']' to close table header 'a', found end of input");
	expect_error("[[a] ]", 1, 4, "expected ']]' to close table header 'a', found ']'");
	expect_error("[]", 1, 2, "expected a key, found ']'");
	expect_error("a = 1\n\n\tb = 'x' 'y'", 3, 10,
		     "expected end of line after value, found \"'\"");
}

static void test_toml_positions(void **state)
{
	struct rn_toml_value *r = parse("# comment\n"
					"name = \"x\"\n"
					"\t\"\xc3\xa9t\xc3\xa9\" = 'y' # multibyte key\n"
					"[server]\n"
					"  a.b   =   [1,\n"
					"    2]\n"
					"[[items]]\n");
	const struct rn_toml_kv *kv;
	const struct rn_toml_value *v;

	(void)state;
	kv = rn_toml_get_kv(r, "name");
	assert_non_null(kv);
	assert_int_equal(kv->key_pos.line, 2);
	assert_int_equal(kv->key_pos.col, 1);
	assert_int_equal(kv->val->pos.line, 2);
	assert_int_equal(kv->val->pos.col, 8);
	/* Columns count code points, so "\xc3\xa9" is one column; a tab is one too. */
	kv = rn_toml_get_kv(r, "\xc3\xa9t\xc3\xa9");
	assert_non_null(kv);
	assert_int_equal(kv->key_pos.col, 2);
	assert_int_equal(kv->val->pos.col, 10);
	v = at(r, "server");
	assert_int_equal(v->pos.line, 4);
	assert_int_equal(v->pos.col, 1);
	kv = rn_toml_get_kv(v, "a");
	assert_int_equal(kv->key_pos.line, 5);
	assert_int_equal(kv->key_pos.col, 3);
	kv = rn_toml_get_kv(kv->val, "b");
	assert_int_equal(kv->key_pos.col, 5);
	assert_int_equal(kv->val->pos.col, 13);
	assert_int_equal(kv->val->u.array.items[1]->pos.line, 6);
	assert_int_equal(kv->val->u.array.items[1]->pos.col, 5);
	v = at(r, "items");
	assert_int_equal(v->u.array.items[0]->pos.line, 7);
	rn_toml_free(r);
}

/* Lines are counted as newlines are consumed, including those inside multi-line strings and
 * those trimmed by a line-ending backslash. */
static void test_toml_positions_after_multiline(void **state)
{
	struct rn_toml_value *r = parse("a = \"\"\"\r\none\r\ntwo \\\r\n\r\n   three\"\"\"\r\n"
					"b = '''\n\n''' # c\n"
					"c = [\n  \"x\",\n  { d = \"\"\"\n\"\"\" },\n]\n"
					"e = 1\n");
	const struct rn_toml_kv *kv;

	(void)state;
	assert_string_equal(str(r, "a"), "one\ntwo three");
	kv = rn_toml_get_kv(r, "b");
	assert_int_equal(kv->key_pos.line, 6);
	kv = rn_toml_get_kv(r, "c");
	assert_int_equal(kv->val->u.array.items[1]->pos.line, 11);
	assert_int_equal(kv->val->u.array.items[1]->pos.col, 3);
	kv = rn_toml_get_kv(r, "e");
	assert_int_equal(kv->key_pos.line, 14);
	assert_int_equal(kv->val->pos.col, 5);
	rn_toml_free(r);
	expect_error("a = '''\n\n''' x", 3, 5, "expected end of line after value, found 'x'");
	expect_error("a = \"\"\"\nx\n", 1, 5,
		     "unterminated multi-line basic string (missing closing \"\"\")");
}

/* ---- Nesting bound -------------------------------------------------------------------- */

/* "a = " followed by `n` opening `open` and `n` closing `close` characters. */
static char *nested(int n, char open, const char *inner, char close)
{
	struct rn_buf b;
	int i;

	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "a = ");
	for (i = 0; i < n; i++) {
		rn_buf_addc(&b, open);
		if (open == '{' && i < n - 1)
			rn_buf_adds(&b, "b = ");
	}
	rn_buf_adds(&b, inner);
	for (i = 0; i < n; i++)
		rn_buf_addc(&b, close);
	return rn_buf_detach(&b, NULL);
}

static void test_toml_depth_limit(void **state)
{
	struct rn_toml_value *r;
	struct rn_buf b;
	char *s;
	int i;

	(void)state;
	s = nested(RN_TOML_MAX_DEPTH, '[', "1", ']');
	r = parse(s);
	rn_toml_free(r);
	free(s);
	s = nested(RN_TOML_MAX_DEPTH + 1, '[', "1", ']');
	expect_error(s, 1, 5 + RN_TOML_MAX_DEPTH, "nesting is deeper than 128 levels");
	free(s);
	s = nested(RN_TOML_MAX_DEPTH + 1, '{', "", '}');
	expect_error(s, 1, 5 + RN_TOML_MAX_DEPTH * 5, "nesting is deeper than 128 levels");
	free(s);
	/* A 100000-deep array must fail cleanly, not overflow the stack. */
	s = nested(100000, '[', "", ']');
	expect_error(s, 1, 5 + RN_TOML_MAX_DEPTH, "nesting is deeper than 128 levels");
	free(s);
	/* Table headers and dotted keys nest tables too: a header may name 128 levels, a
	 * dotted key 128 tables plus the key of the value. */
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "[k");
	for (i = 1; i < RN_TOML_MAX_DEPTH; i++)
		rn_buf_adds(&b, ".k");
	rn_buf_adds(&b, "]");
	rn_toml_free(parse(b.buf));
	rn_buf_reset(&b);
	rn_buf_adds(&b, "[k");
	for (i = 1; i <= RN_TOML_MAX_DEPTH; i++)
		rn_buf_adds(&b, ".k");
	rn_buf_adds(&b, "]");
	expect_error(b.buf, 1, 2 + 2 * RN_TOML_MAX_DEPTH, "nesting is deeper than 128 levels");
	b.buf[0] = ' ';
	b.buf[b.len - 1] = ' ';
	rn_buf_adds(&b, "= 1");
	rn_toml_free(parse(b.buf));
	rn_buf_reset(&b);
	rn_buf_adds(&b, "k");
	for (i = 1; i <= RN_TOML_MAX_DEPTH + 1; i++)
		rn_buf_adds(&b, ".k");
	rn_buf_adds(&b, " = 1");
	expect_error(b.buf, 1, 1 + 2 * RN_TOML_MAX_DEPTH, "nesting is deeper than 128 levels");
	rn_buf_release(&b);
}

/* ---- Line endings, BOM, encoding and control characters ------------------------------- */

static void test_toml_crlf(void **state)
{
	struct rn_toml_value *r = parse("a = 1\r\n# c\r\n[t]\r\nb = [\r\n 2,\r\n]\r\n");
	const struct rn_toml_kv *kv;

	(void)state;
	assert_int_equal(integer(r, "a"), 1);
	kv = rn_toml_get_kv(at(r, "t"), "b");
	assert_int_equal(kv->key_pos.line, 4);
	assert_int_equal(kv->val->u.array.items[0]->pos.line, 5);
	assert_int_equal(kv->val->u.array.items[0]->pos.col, 2);
	rn_toml_free(r);
	/* TOML 1.0.0, section Spec: a newline is LF or CRLF; a bare CR is neither. */
	expect_error("a = 1\rb = 2", 1, 6,
		     "expected end of line after value, found a carriage return without a line "
		     "feed");
	expect_error("a = 1 # x\ry\n", 1, 10, "carriage return without a line feed in a comment");
	expect_error("a = \"x\ry\"", 1, 7, "carriage return without a line feed in a basic string");
	expect_error("a = \"\"\"x\ry\"\"\"", 1, 9,
		     "carriage return without a line feed in a multi-line basic string");
}

static void test_toml_bom(void **state)
{
	struct rn_toml_value *r = parse("\xef\xbb\xbf"
					"a = 1\n");
	const struct rn_toml_kv *kv = rn_toml_get_kv(r, "a");

	(void)state;
	assert_non_null(kv);
	/* The BOM is not part of the document: the key is at column 1. */
	assert_int_equal(kv->key_pos.col, 1);
	assert_int_equal(kv->val->pos.col, 5);
	rn_toml_free(r);
	expect_error("\xef\xbb\xbf"
		     "a = x",
		     1, 5, "invalid value 'x' (strings must be quoted)");
	expect_error("a = 1\n\xef\xbb\xbf"
		     "b = 2",
		     2, 1, "expected a key, found '\xef\xbb\xbf'");
}

static void test_toml_utf8_errors(void **state)
{
	(void)state;
	/* Overlong encoding of '/', a surrogate (U+D800), and a code point past U+10FFFF. */
	expect_error("# \xc0\xaf", 1, 3, "invalid UTF-8 byte 0xc0 in a comment");
	expect_error("s = \"\xed\xa0\x80\"", 1, 6, "invalid UTF-8 byte 0xed in a basic string");
	expect_error("s = '\xf4\x90\x80\x80'", 1, 6, "invalid UTF-8 byte 0xf4 in a literal string");
	expect_error("s = '''\n\xe2\x82'''", 2, 1,
		     "invalid UTF-8 byte 0xe2 in a multi-line literal string");
	expect_error("s = \"ok\" # \xff", 1, 12, "invalid UTF-8 byte 0xff in a comment");
	expect_error("\xfe\xff", 1, 1, "expected a key, found invalid UTF-8 byte 0xfe");
	/* Valid 4-byte sequences are accepted. */
	rn_toml_free(parse("s = \"\xf4\x8f\xbf\xbf\xf0\x90\x80\x80\" # \xe2\x82\xac\n"));
}

static void test_toml_control_chars(void **state)
{
	(void)state;
	expect_error_n("# a\0b", 5, 1, 4, "control character U+0000 is not allowed in a comment");
	expect_error("# a\x7f", 1, 4, "control character U+007F is not allowed in a comment");
	expect_error("a = \x0b"
		     "1",
		     1, 5, "expected a value, found control character U+000B");
	expect_error_n("a = 1\0", 6, 1, 6,
		       "expected end of line after value, found control character U+0000");
	/* Tabs are whitespace and allowed in comments and strings. */
	rn_toml_free(parse("\ta\t=\t\"x\ty\"\t#\tc\t\n"));
}

/* ---- Lookups -------------------------------------------------------------------------- */

static void test_toml_get(void **state)
{
	struct rn_toml_value *r = parse("a = 1\n[t]\nb = 'x'\n");

	(void)state;
	assert_null(rn_toml_get(r, "missing"));
	assert_null(rn_toml_get(r, "t.b"));        /* not dotted: one segment */
	assert_null(rn_toml_get(at(r, "a"), "a")); /* not a table */
	assert_null(rn_toml_get(NULL, "a"));
	assert_null(rn_toml_get_kv(r, "missing"));
	assert_string_equal(rn_toml_get_kv(at(r, "t"), "b")->key, "b");
	assert_string_equal(rn_toml_type_name(RN_TOML_DATETIME_LOCAL), "datetime-local");
	assert_string_equal(rn_toml_type_name(RN_TOML_BOOL), "bool");
	assert_string_equal(rn_toml_type_name(RN_TOML_TABLE), "table");
	assert_string_equal(rn_toml_type_phrase(RN_TOML_INTEGER), "an integer");
	assert_string_equal(rn_toml_type_phrase(RN_TOML_DATE_LOCAL), "a local date");
	assert_string_equal(rn_toml_type_phrase(RN_TOML_ARRAY), "an array");
	rn_toml_free(r);
	rn_toml_free(NULL);
}

/* Tables past ~16 keys switch to a hash index; lookups and duplicate checks must still be
 * exact (this also covers keys that collide in the index). */
static void test_toml_large_table(void **state)
{
	struct rn_toml_value *r;
	struct rn_diag d;
	struct rn_buf b;
	char key[32];
	int i;

	(void)state;
	rn_buf_init(&b, 0);
	for (i = 0; i < 5000; i++)
		rn_buf_addf(&b, "key_%d = %d\n", i, i);
	r = parse(b.buf);
	assert_int_equal(r->u.table->n, 5000);
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "key_%d", i);
		assert_int_equal(integer(r, key), i);
	}
	assert_null(rn_toml_get(r, "key_5000"));
	assert_int_equal(r->u.table->kv[4999].key_pos.line, 5000);
	rn_toml_free(r);
	rn_buf_adds(&b, "key_17 = 0\n");
	rn_diag_init(&d, NULL, b.buf, b.len);
	assert_int_equal(rn_toml_parse(b.buf, b.len, &r, &d), -EINVAL);
	assert_string_equal(d.msg, "duplicate key 'key_17' (first defined at line 18)");
	assert_int_equal(d.line, 5001);
	rn_buf_release(&b);
}

static void test_toml_format_datetime(void **state)
{
	struct rn_toml_value *r = parse("d = 2024-01-02T03:04:05.678+01:00\n");
	const struct rn_toml_value *v = at(r, "d");
	char small[8];

	(void)state;
	/* Returns the full length like snprintf, truncating the output. */
	assert_int_equal(rn_toml_format_datetime(v, small, sizeof(small)), 29);
	assert_string_equal(small, "2024-01");
	rn_toml_free(r);
}

static void test_toml_diag_output(void **state)
{
	const char *src = "a = 1\nname x\n";
	struct rn_toml_value *r;
	struct rn_diag d;
	char *s;

	(void)state;
	rn_diag_init(&d, "renacer.toml", src, strlen(src));
	assert_int_equal(rn_toml_parse(src, strlen(src), &r, &d), -EINVAL);
	s = rn_diag_oneline(&d);
	assert_string_equal(s, "renacer.toml:2:6: error: expected '=' after key 'name', found 'x'");
	free(s);
}

/* ---- Allocation failure --------------------------------------------------------------- */

static const char alloc_doc[] =
	"# a nontrivial document touching every allocation site\n"
	"title = \"alloc \\u00e9\"\n"
	"lit = '''\nmulti\n'''\n"
	"f = 1.5e3\n"
	"d = 1979-05-27T07:32:00Z\n"
	"arr = [1, [2, 3], {x = \"y\", z.w = 1}, 'a', 'b', 'c', 'd', 'e']\n"
	"a.b.c = 1\n"
	"[tbl.sub]\n"
	"k0 = 0\nk1 = 1\nk2 = 2\nk3 = 3\nk4 = 4\nk5 = 5\nk6 = 6\nk7 = 7\nk8 = 8\nk9 = 9\n"
	"k10 = 0\nk11 = 1\nk12 = 2\nk13 = 3\nk14 = 4\nk15 = 5\nk16 = 6\nk17 = 7\nk18 = 8\n"
	"\"quoted key\" = 'v'\n"
	"[tbl]\n"
	"[[aot]]\nn = 1\n[aot.inner]\nm = 2\n[[aot]]\nn = 2\n[[aot.deep]]\n";

/* The tree of alloc_doc is complete and right. */
static void check_alloc_doc(const struct rn_toml_value *r)
{
	assert_string_equal(str(r, "title"), "alloc \xc3\xa9");
	assert_int_equal(at(r, "arr")->u.array.n, 8);
	assert_int_equal(integer(r, "tbl.sub.k18"), 8);
	assert_string_equal(str(r, "tbl.sub.quoted key"), "v");
	assert_int_equal(at(r, "aot")->u.array.n, 2);
	assert_int_equal(at(r, "aot")->u.array.items[1]->u.table->n, 2);
}

/*
 * Fail each allocation of a parse in turn (curl's torture mode). Every failure must be
 * reported as "out of memory" with nothing left allocated, except for the lookup index,
 * which is optional: when it cannot be allocated the parse goes on without it.
 */
static void test_toml_alloc_failure(void **state)
{
	const size_t len = sizeof(alloc_doc) - 1;
	unsigned long n, total, failures = 0;
	struct rn_toml_value *r = NULL;
	struct rn_diag d;
	size_t heap;
	int rc;

	(void)state;
	rn_diag_init(&d, NULL, alloc_doc, len);
	rn_alloc_fail_at(0);
	assert_int_equal(rn_toml_parse(alloc_doc, len, &r, &d), 0);
	total = rn_alloc_count();
	check_alloc_doc(r);
	rn_toml_free(r);
	assert_true(total > 50);
	for (n = 1; n <= total + 1; n++) {
		rn_diag_init(&d, NULL, alloc_doc, len);
		heap = heap_in_use();
		rn_alloc_fail_at(n);
		rc = rn_toml_parse(alloc_doc, len, &r, &d);
		rn_alloc_fail_at(0);
		if (!rc) {
			check_alloc_doc(r);
			rn_toml_free(r);
			continue;
		}
		/* Reported as such, never as a syntax error, and nothing left allocated. */
		failures++;
		assert_int_equal(rc, -ENOMEM);
		assert_null(r);
		assert_string_equal(d.msg, "out of memory");
		assert_int_equal(d.line, 0);
		assert_int_equal(heap_in_use(), heap);
	}
	/* Only the index allocations (two per indexed table) may fail silently. */
	assert_true(failures >= total - 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toml_string_kinds),
		cmocka_unit_test(test_toml_string_multiline),
		cmocka_unit_test(test_toml_string_nul_escape),
		cmocka_unit_test(test_toml_string_errors),
		cmocka_unit_test(test_toml_integers),
		cmocka_unit_test(test_toml_integer_errors),
		cmocka_unit_test(test_toml_floats),
		cmocka_unit_test(test_toml_float_errors),
		cmocka_unit_test(test_toml_booleans),
		cmocka_unit_test(test_toml_datetimes),
		cmocka_unit_test(test_toml_datetime_errors),
		cmocka_unit_test(test_toml_arrays),
		cmocka_unit_test(test_toml_array_errors),
		cmocka_unit_test(test_toml_inline_tables),
		cmocka_unit_test(test_toml_inline_table_errors),
		cmocka_unit_test(test_toml_tables),
		cmocka_unit_test(test_toml_arrays_of_tables),
		cmocka_unit_test(test_toml_redefinition_errors),
		cmocka_unit_test(test_toml_keys),
		cmocka_unit_test(test_toml_syntax_errors),
		cmocka_unit_test(test_toml_positions),
		cmocka_unit_test(test_toml_positions_after_multiline),
		cmocka_unit_test(test_toml_depth_limit),
		cmocka_unit_test(test_toml_crlf),
		cmocka_unit_test(test_toml_bom),
		cmocka_unit_test(test_toml_utf8_errors),
		cmocka_unit_test(test_toml_control_chars),
		cmocka_unit_test(test_toml_get),
		cmocka_unit_test(test_toml_large_table),
		cmocka_unit_test(test_toml_format_datetime),
		cmocka_unit_test(test_toml_diag_output),
		cmocka_unit_test(test_toml_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
