#include "utf8.h"

#include <string.h>

#include "buf.h"
#include "log.h"

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates, <= U+10FFFF),
 * or 0 when it is not valid. */
size_t rn_utf8_seq(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

bool rn_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = rn_utf8_seq(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* Copy of `s` with each invalid byte replaced by U+FFFD. Protobuf `string` fields and JSON
 * must be UTF-8, and paths, argv and messages of traced programs need not be: collectors
 * reject a whole request over one bad string. Caller frees. */
char *rn_utf8_fix(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct rn_buf b;
	char *out;

	rn_buf_init(&b, 0);
	while (*p) {
		size_t n = rn_utf8_seq(p);

		if (n) {
			rn_buf_add(&b, p, n);
			p += n;
		} else {
			rn_buf_adds(&b, "\xef\xbf\xbd");
			p++;
		}
	}
	out = rn_buf_detach(&b, NULL);
	if (!out)
		rn_die("out of memory");
	return out;
}

size_t rn_utf8_prefix(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	/* never cut before a continuation byte: that would split its character */
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}
