/*
 * test_xml.c - rn_buf_add_xml(): exact escapes, XML 1.0 section 2.2 character filtering,
 * U+FFFD substitution of maximal ill-formed subparts, buffer failure, and a round trip through
 * xmllint when it is installed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "xml.h"

/* Escape `len` bytes and return the result (static storage, valid until the next call). */
static const char *esc(const char *s, size_t len, bool attr)
{
	static char out[4096];
	struct rn_buf b;

	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_add_xml(&b, s, len, attr), 0);
	assert_true(b.len < sizeof(out));
	memcpy(out, b.buf, b.len + 1);
	rn_buf_release(&b);
	return out;
}

#define ESC(lit, attr) esc(lit, sizeof(lit) - 1, attr)

static void test_xml_plain_text_is_copied(void **state)
{
	(void)state;
	assert_string_equal(ESC("renacer check: 42 syscalls", false), "renacer check: 42 syscalls");
	assert_string_equal(ESC("", false), "");
	assert_string_equal(ESC("", true), "");
}

static void test_xml_markup_escapes(void **state)
{
	(void)state;
	/* Text: quotes stay, '>' is escaped anyway so "]]>" can never appear. */
	assert_string_equal(ESC("a<b>&\"c'", false), "a&lt;b&gt;&amp;\"c'");
	assert_string_equal(ESC("]]>", false), "]]&gt;");
	/* Attribute: both quote characters escaped, whichever delimiter the writer uses. */
	assert_string_equal(ESC("a<b>&\"c'", true), "a&lt;b&gt;&amp;&quot;c&apos;");
	/* Entities are not recognized in the input: '&' is always data. */
	assert_string_equal(ESC("&amp;", false), "&amp;amp;");
}

static void test_xml_whitespace_survives_normalization(void **state)
{
	(void)state;
	/* CR would become LF in any parser (section 2.11); TAB and LF in attributes would become
	 * spaces (section 3.3.3). */
	assert_string_equal(ESC("a\tb\nc\rd", false), "a\tb\nc&#13;d");
	assert_string_equal(ESC("a\tb\nc\rd", true), "a&#9;b&#10;c&#13;d");
	assert_string_equal(ESC("\r\n", false), "&#13;\n");
}

static void test_xml_illegal_controls_are_dropped(void **state)
{
	(void)state;
	/* Every C0 control but TAB, LF, CR is outside the Char production, even as &#1;. */
	assert_string_equal(ESC("a\x01\x02\x07\x08\x0b\x0c\x0e\x1b\x1f"
				"b",
				false),
			    "ab");
	assert_string_equal(ESC("a\x01\x0b"
				"b",
				true),
			    "ab");
	/* NUL inside the given length is data, and illegal. */
	assert_string_equal(esc("x\0y", 3, false), "xy");
	/* DEL and C1 controls are legal XML 1.0 characters (discouraged, not forbidden). */
	assert_string_equal(ESC("\x7f\xc2\x85", false), "\x7f\xc2\x85");
}

static void test_xml_valid_utf8_is_kept(void **state)
{
	(void)state;
	assert_string_equal(ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", false),
			    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* U+FFFD itself, U+FDD0 (a noncharacter that XML 1.0 allows), U+10FFFF (last code
	 * point), U+D7FF and U+E000 (around the surrogates). */
	assert_string_equal(ESC("\xef\xbf\xbd\xef\xb7\x90\xf4\x8f\xbf\xbf\xed\x9f\xbf\xee\x80\x80",
				false),
			    "\xef\xbf\xbd\xef\xb7\x90\xf4\x8f\xbf\xbf\xed\x9f\xbf\xee\x80\x80");
}

static void test_xml_nonchars_fffe_ffff_are_dropped(void **state)
{
	(void)state;
	assert_string_equal(ESC("a\xef\xbf\xbe"
				"b\xef\xbf\xbf"
				"c",
				false),
			    "abc");
	assert_string_equal(ESC("\xef\xbf\xbe", true), "");
}

#define FFFD "\xef\xbf\xbd"

static void test_xml_invalid_utf8_becomes_fffd(void **state)
{
	(void)state;
	/* Expected values are Python's bytes.decode("utf-8", "replace"), which implements the
	 * Unicode "maximal subpart" practice:
	 *   b'\x80' -> [fffd]; b'\xc0\x80' -> [fffd, fffd]; b'\xe0\x80\x80' -> 3 x fffd;
	 *   b'\xed\xa0\x80' -> 3 x fffd; b'\xf4\x90\x80\x80' -> 4 x fffd; b'\xf5' -> [fffd];
	 *   b'\xe2\x82' -> [fffd]; b'\xe2\x82A' -> [fffd, 'A']; b'\xf0\x9f\x98x' -> [fffd, 'x'];
	 *   b'\xff\xfe' -> [fffd, fffd] */
	assert_string_equal(ESC("\x80", false), FFFD);
	assert_string_equal(ESC("\xc0\x80", false), FFFD FFFD);          /* overlong NUL */
	assert_string_equal(ESC("\xe0\x80\x80", false), FFFD FFFD FFFD); /* overlong */
	assert_string_equal(ESC("\xed\xa0\x80", false), FFFD FFFD FFFD); /* surrogate D800 */
	assert_string_equal(ESC("\xf4\x90\x80\x80", false), FFFD FFFD FFFD FFFD); /* > 10FFFF */
	assert_string_equal(ESC("\xf5", false), FFFD);
	assert_string_equal(ESC("\xe2\x82", false), FFFD); /* truncated at end */
	assert_string_equal(ESC("\xe2\x82"
				"A",
				false),
			    FFFD "A");
	assert_string_equal(ESC("\xf0\x9f\x98"
				"x",
				false),
			    FFFD "x");
	assert_string_equal(ESC("\xff\xfe", false), FFFD FFFD);
	/* A replacement never swallows a following markup character. */
	assert_string_equal(ESC("\xe2<", true), FFFD "&lt;");
}

/* Decode one UTF-8 sequence strictly; returns its length or 0 when ill-formed. */
static size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t need, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < need + 1)
		return 0;
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((need == 2 && c < 0x800) || (need == 3 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return need + 1;
}

static void test_xml_random_bytes_give_legal_xml(void **state)
{
	unsigned seed = 12345;
	int round;

	(void)state;
	/* Whatever the input, the output is well-formed UTF-8 made only of XML 1.0 Chars, with
	 * no raw '<', no '&' that does not start one of our references, and no reference to
	 * anything but TAB, LF, CR. */
	for (round = 0; round < 2000; round++) {
		unsigned char in[64];
		size_t n = (size_t)(round % 64), i;
		struct rn_buf b;

		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			in[i] = (unsigned char)(seed >> 16);
		}
		rn_buf_init(&b, 0);
		assert_int_equal(rn_buf_add_xml(&b, (const char *)in, n, round % 2), 0);
		for (i = 0; i < b.len;) {
			const unsigned char *p = (const unsigned char *)b.buf + i;
			uint32_t cp = 0;
			size_t k = utf8_len(p, b.len - i, &cp);

			assert_true(k > 0);
			assert_true(cp == 0x9 || cp == 0xa || (cp >= 0x20 && cp <= 0xd7ff) ||
				    (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000);
			assert_true(cp != '<' && cp != '\r');
			if (round % 2)
				assert_true(cp != '"' && cp != '\'' && cp != '\t' && cp != '\n');
			if (cp == '&') {
				static const char *const refs[] = {
					"&amp;", "&lt;",  "&gt;",  "&quot;", "&apos;",
					"&#9;",  "&#10;", "&#13;", NULL,
				};
				int r, ok = 0;

				for (r = 0; refs[r]; r++)
					ok |= !strncmp((const char *)p, refs[r], strlen(refs[r]));
				assert_true(ok);
			}
			i += k;
		}
		rn_buf_release(&b);
	}
}

static void test_xml_buffer_failure_is_reported(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 8);
	assert_int_equal(rn_buf_add_xml(&b, "abc", 3, false), 0);
	/* "&lt;&lt;" does not fit in the 5 bytes left. */
	assert_int_equal(rn_buf_add_xml(&b, "<<", 2, false), -E2BIG);
	assert_true(rn_buf_failed(&b));
	/* Sticky: later calls fail too, even when they would fit. */
	assert_true(rn_buf_add_xml(&b, "x", 1, false) < 0);
	rn_buf_release(&b);
}

/* Run a command and capture its stdout into `out`; returns its exit status. */
static int run_capture(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	if (!p)
		return -1;
	n = fread(out, 1, cap - 1, p);
	/* xmllint --xpath ends its output with a newline of its own. */
	if (n && out[n - 1] == '\n')
		n--;
	out[n] = '\0';
	return pclose(p);
}

static void test_xml_round_trip_through_xmllint(void **state)
{
	static const char input[] = "tab\there\nline\r\nCR & <tag> \"q\" 'a' ]]> \x01\x1f"
				    "caf\xc3\xa9 \xff end";
	/* What a parser must give back: controls dropped, invalid byte replaced, CR kept. */
	static const char expect[] = "tab\there\nline\r\nCR & <tag> \"q\" 'a' ]]> "
				     "caf\xc3\xa9 " FFFD " end";
	char path[4096], cmd[8192], out[4096];
	struct rn_buf b;
	FILE *f;

	(void)state;
	if (system("command -v xmllint >/dev/null 2>&1") != 0)
		skip();
	snprintf(path, sizeof(path), "%s/test_xml_roundtrip.xml", RN_BINARY_DIR);
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r a=\"");
	rn_buf_add_xml(&b, input, sizeof(input) - 1, true);
	rn_buf_adds(&b, "\">");
	rn_buf_add_xml(&b, input, sizeof(input) - 1, false);
	rn_buf_adds(&b, "</r>\n");
	assert_false(rn_buf_failed(&b));
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b.buf, 1, b.len, f), b.len);
	fclose(f);
	rn_buf_release(&b);

	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s' 2>&1", path);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 0);
	/* Attribute value: normalization must have left TAB, LF and CR alone. */
	snprintf(cmd, sizeof(cmd), "xmllint --xpath 'string(/r/@a)' '%s'", path);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 0);
	assert_string_equal(out, expect);
	snprintf(cmd, sizeof(cmd), "xmllint --xpath 'string(/r)' '%s'", path);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 0);
	assert_string_equal(out, expect);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_plain_text_is_copied),
		cmocka_unit_test(test_xml_markup_escapes),
		cmocka_unit_test(test_xml_whitespace_survives_normalization),
		cmocka_unit_test(test_xml_illegal_controls_are_dropped),
		cmocka_unit_test(test_xml_valid_utf8_is_kept),
		cmocka_unit_test(test_xml_nonchars_fffe_ffff_are_dropped),
		cmocka_unit_test(test_xml_invalid_utf8_becomes_fffd),
		cmocka_unit_test(test_xml_random_bytes_give_legal_xml),
		cmocka_unit_test(test_xml_buffer_failure_is_reported),
		cmocka_unit_test(test_xml_round_trip_through_xmllint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
