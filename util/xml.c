#include "xml.h"

#include <errno.h>
#include <stdint.h>

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
static const char replacement[] = "\xEF\xBF\xBD";

/*
 * Length of the well-formed UTF-8 sequence at s[0..n) (2 to 4), or, when it is ill-formed,
 * minus the length of its maximal ill-formed subpart (-1 to -3), following Unicode Table 3-7
 * (Well-Formed UTF-8 Byte Sequences). Only called for bytes >= 0x80.
 */
static int utf8_sequence(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	int need, i;

	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		if (c == 0xE0)
			lo = 0xA0; /* overlong below U+0800 */
		else if (c == 0xED)
			hi = 0x9F; /* UTF-16 surrogates U+D800..U+DFFF */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		if (c == 0xF0)
			lo = 0x90; /* overlong below U+10000 */
		else if (c == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		return -1; /* stray continuation byte, C0/C1 overlong lead, or F5..FF */
	}
	if (n < 2 || s[1] < lo || s[1] > hi)
		return -1;
	for (i = 2; i <= need; i++)
		if ((size_t)i >= n || s[i] < 0x80 || s[i] > 0xBF)
			return -i;
	return need + 1;
}

int rn_buf_add_xml(struct rn_buf *b, const char *s, size_t len, bool attr)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0; /* p[run..i) is a pending stretch of bytes copied verbatim */
	int rc;

	if (rn_buf_failed(b))
		return -ENOMEM;

	while (i < len) {
		unsigned char c = p[i];
		const char *rep = NULL;
		size_t skip = 1;

		if (c >= 0x80) {
			int n = utf8_sequence(p + i, len - i);

			if (n > 0) {
				/* U+FFFE and U+FFFF are outside the Char production. */
				if (n == 3 && c == 0xEF && p[i + 1] == 0xBF && p[i + 2] >= 0xBE)
					rep = "";
				skip = (size_t)n;
			} else {
				rep = replacement;
				skip = (size_t)-n;
			}
			if (!rep) {
				i += skip;
				continue;
			}
		} else {
			switch (c) {
			case '&':
				rep = "&amp;";
				break;
			case '<':
				rep = "&lt;";
				break;
			case '>':
				rep = "&gt;";
				break;
			case '"':
				rep = attr ? "&quot;" : NULL;
				break;
			case '\'':
				rep = attr ? "&apos;" : NULL;
				break;
			case '\r':
				rep = "&#13;";
				break;
			case '\t':
				rep = attr ? "&#9;" : NULL;
				break;
			case '\n':
				rep = attr ? "&#10;" : NULL;
				break;
			default:
				if (c < 0x20)
					rep = ""; /* C0 control: illegal even as a reference */
				break;
			}
			if (!rep) {
				i++;
				continue;
			}
		}
		rc = rn_buf_add(b, p + run, i - run);
		if (!rc)
			rc = rn_buf_adds(b, rep);
		if (rc)
			return rc;
		i += skip;
		run = i;
	}
	return rn_buf_add(b, p + run, i - run);
}
