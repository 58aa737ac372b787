/*
 * fuzz_xml.c - the XML escaper (rn_buf_add_xml, util/xml.h) on arbitrary bytes.
 *
 * The first input byte chooses character data (even) or an attribute value (odd); the rest is
 * the text. No XML parser is linked, so the harness checks what one would need:
 * - the output is well-formed UTF-8 made only of XML 1.0 characters (section 2.2);
 * - no raw '<' or '>' anywhere, every '&' starts one of the references the escaper writes,
 *   no raw CR (a parser would turn it into LF, section 2.11); in an attribute value no raw
 *   quote of either kind and no raw TAB or LF (normalized to spaces, section 3.3.3);
 * - decoding those references gives back the input's legal characters: the input read as
 *   UTF-8 by an independent decoder, each maximal ill-formed subpart replaced by U+FFFD and
 *   characters outside the Char production dropped.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fuzz.h"
#include "xml.h"

static const struct {
	const char *ref;
	char c;
} refs[] = {
	{ "&amp;", '&' },   { "&lt;", '<' },   { "&gt;", '>' },  { "&quot;", '"' },
	{ "&apos;", '\'' }, { "&#13;", '\r' }, { "&#9;", '\t' }, { "&#10;", '\n' },
};

static void add_utf8(struct rn_buf *b, long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	rn_buf_add(b, u, n);
}

/* What a reader of our output should get: the input's legal characters. */
static void expected_text(struct rn_buf *b, const uint8_t *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		long cp;
		size_t n = fuzz_utf8_next(s + i, len - i, &cp);

		if (cp < 0)
			add_utf8(b, 0xFFFD);
		else if (fuzz_xml_char(cp))
			add_utf8(b, cp);
		i += n;
	}
}

/* Check the raw output and decode its references into `b`. */
static void decode_output(struct rn_buf *b, const char *s, size_t len, bool attr)
{
	size_t i = 0, k;

	while (i < len) {
		char c = s[i];

		FUZZ_CHECK(c != '<' && c != '>', "raw '<' or '>' in the output");
		FUZZ_CHECK(c != '\r', "raw CR in the output");
		if (attr) {
			FUZZ_CHECK(c != '"' && c != '\'', "raw quote in an attribute value");
			FUZZ_CHECK(c != '\t' && c != '\n', "raw TAB or LF in an attribute value");
		}
		if (c != '&') {
			rn_buf_addc(b, c);
			i++;
			continue;
		}
		for (k = 0; k < sizeof(refs) / sizeof(refs[0]); k++)
			if (!strncmp(s + i, refs[k].ref, strlen(refs[k].ref)))
				break;
		if (k == sizeof(refs) / sizeof(refs[0]))
			fuzz_fail("'&' at byte %zu starts no known reference", i);
		rn_buf_addc(b, refs[k].c);
		i += strlen(refs[k].ref);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_buf out, want, got;
	bool attr;
	int rc;

	if (!size)
		return 0;
	attr = data[0] & 1;
	data++;
	size--;
	rn_buf_init(&out, 0);
	rn_buf_adds(&out, "x"); /* appending after existing content */
	rc = rn_buf_add_xml(&out, (const char *)data, size, attr);
	FUZZ_CHECK(rc == 0 && !rn_buf_failed(&out), "escaping failed");
	FUZZ_CHECK(out.buf[out.len] == '\0', "buffer not NUL-terminated");
	FUZZ_CHECK(out.buf[0] == 'x', "existing content changed");
	fuzz_check_xml_chars(out.buf + 1, out.len - 1, "escaped text");

	rn_buf_init(&want, 0);
	rn_buf_init(&got, 0);
	expected_text(&want, data, size);
	decode_output(&got, out.buf + 1, out.len - 1, attr);
	FUZZ_CHECK(!rn_buf_failed(&want) && !rn_buf_failed(&got), "out of memory");
	if (want.len != got.len || memcmp(want.buf, got.buf, want.len))
		fuzz_fail("decoding the output does not give the legal input characters "
			  "(%zu bytes expected, %zu decoded)",
			  want.len, got.len);
	rn_buf_release(&want);
	rn_buf_release(&got);
	rn_buf_release(&out);
	return 0;
}
