/*
 * test_textfit.c - fitting text to a terminal: the width from COLUMNS, shortening at a word
 * boundary with "...", word wrapping with an indent, and widths counted in code points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "textfit.h"

/* rn_text_shorten(s, width) as a string (static storage, valid until the next call). */
static const char *shorten(const char *s, size_t width)
{
	static char out[1024];
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_text_shorten(&b, s, width);
	assert_true(b.len < sizeof(out));
	memcpy(out, b.buf, b.len + 1);
	rn_buf_release(&b);
	return out;
}

static const char *wrap(const char *s, size_t width, size_t indent)
{
	static char out[4096];
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_text_wrap(&b, s, width, indent);
	assert_true(b.len < sizeof(out));
	memcpy(out, b.buf, b.len + 1);
	rn_buf_release(&b);
	return out;
}

static void test_textfit_width_from_columns(void **state)
{
	(void)state;
	setenv("COLUMNS", "100", 1);
	assert_int_equal(rn_term_width(), 100);
	setenv("COLUMNS", "63", 1);
	assert_int_equal(rn_term_width(), 63);
	/* Nonsense and absurd widths fall back (stderr is no terminal under ctest). */
	setenv("COLUMNS", "12x", 1);
	assert_int_equal(rn_term_width(), isatty(2) ? rn_term_width() : RN_TEXTFIT_DEFAULT_WIDTH);
	setenv("COLUMNS", "5", 1);
	if (!isatty(2))
		assert_int_equal(rn_term_width(), RN_TEXTFIT_DEFAULT_WIDTH);
	unsetenv("COLUMNS");
	if (!isatty(2))
		assert_int_equal(rn_term_width(), RN_TEXTFIT_DEFAULT_WIDTH);
}

static void test_textfit_shorten_at_a_word(void **state)
{
	(void)state;
	/* Fits: whole. */
	assert_string_equal(shorten("top: openat=3", 20), "top: openat=3");
	/* Cut at the last space that leaves room for "...", never mid-word ("top: ope"). */
	assert_string_equal(shorten("10 spans matching /fsync/ > budget 1; top: openat=3", 30),
			    "10 spans matching /fsync/ >...");
	assert_string_equal(shorten("critical path 1.594 ms (median of 5 runs)", 28),
			    "critical path 1.594 ms...");
	/* No ellipsis right after a separator: "top:..." not "top: ...". */
	assert_string_equal(shorten("a budget; top: openat=3 read=2", 17), "a budget; top...");
	/* A word longer than half the width is cut inside. */
	assert_string_equal(shorten("golden:syscall_counts", 12), "golden:sy...");
	/* Too narrow for an ellipsis: a plain cut. */
	assert_string_equal(shorten("abcdef", 3), "abc");
	assert_true(strlen(shorten("x y z w v u t s r q p", 9)) <= 9);
}

/* rn_text_shorten_middle: head, "...", tail; the ends of a name stay. */
static void test_textfit_shorten_middle(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	rn_text_shorten_middle(&b, "baseline:instructions", 21);
	assert_string_equal(b.buf, "baseline:instructions");
	rn_buf_reset(&b);
	rn_text_shorten_middle(&b, "golden:span_time:app:render_frame", 20);
	assert_string_equal(b.buf, "golden:sp...er_frame");
	rn_buf_reset(&b);
	rn_text_shorten_middle(&b, "golden:span_time:app:render_frame", 21);
	assert_string_equal(b.buf, "golden:sp...der_frame");
	rn_buf_reset(&b);
	/* Code points, not bytes: "é" is one column. */
	rn_text_shorten_middle(&b,
			       "\xc3\xa9"
			       "abcdefgh"
			       "\xc3\xa9",
			       7);
	assert_string_equal(b.buf,
			    "\xc3\xa9"
			    "a...h"
			    "\xc3\xa9");
	rn_buf_reset(&b);
	rn_text_shorten_middle(&b, "abcdef", 4);
	assert_string_equal(b.buf, "abcd");
	rn_buf_release(&b);
}

static void test_textfit_wrap(void **state)
{
	(void)state;
	assert_string_equal(wrap("one two three four", 9, 2), "one two\n  three\n  four");
	/* A word longer than the line is broken. */
	assert_string_equal(wrap("abcdefghij", 4, 0), "abcd\nefgh\nij");
	/* Newlines start a new indented line; spaces at a break are dropped. */
	assert_string_equal(wrap("a b\nc    d", 20, 4), "a b\n    c    d");
	assert_string_equal(wrap("aaaa    bbbb", 6, 1), "aaaa\n bbbb");
	/* Every line fits its width. */
	{
		const char *w = wrap("renacer: the quick brown fox jumps over the lazy dog again "
				     "and again until the line is long enough",
				     20, 4);
		const char *p = w;
		size_t first = 1;

		while (*p) {
			size_t len = strcspn(p, "\n");

			assert_true(len <= (first ? 20u : 24u));
			first = 0;
			p += len + (p[len] ? 1 : 0);
		}
	}
}

static void test_textfit_counts_code_points(void **state)
{
	(void)state;
	/* "é" is two bytes, one column; a cut never splits it. */
	assert_int_equal(rn_text_width("\xc3\xa9t\xc3\xa9", 5), 3);
	assert_string_equal(shorten("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5),
			    "\xc3\xa9\xc3\xa9...");
	assert_string_equal(wrap("\xc3\xa9\xc3\xa9\xc3\xa9", 2, 0), "\xc3\xa9\xc3\xa9\n\xc3\xa9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_textfit_width_from_columns),
		cmocka_unit_test(test_textfit_shorten_at_a_word),
		cmocka_unit_test(test_textfit_shorten_middle),
		cmocka_unit_test(test_textfit_wrap),
		cmocka_unit_test(test_textfit_counts_code_points),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
