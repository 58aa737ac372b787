#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "xalloc.h"

static bool ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The escape for control character c, in out[5]. */
static void spell(unsigned char c, char out[5])
{
	switch (c) {
	case '\n':
		memcpy(out, "\\n", 3);
		break;
	case '\r':
		memcpy(out, "\\r", 3);
		break;
	case '\t':
		memcpy(out, "\\t", 3);
		break;
	case 0x1b:
		memcpy(out, "\\e", 3);
		break;
	default:
		snprintf(out, 5, "\\x%02x", c);
		break;
	}
}

bool rn_has_ctl(const char *s)
{
	for (; *s; s++)
		if (ctl((unsigned char)*s))
			return true;
	return false;
}

/* Append `s` to `b` with control characters escaped. */
static void rn_buf_add_escaped(struct rn_buf *b, const char *s)
{
	for (; *s; s++) {
		char e[5];

		if (!ctl((unsigned char)*s)) {
			rn_buf_addc(b, *s);
			continue;
		}
		spell((unsigned char)*s, e);
		rn_buf_adds(b, e);
	}
}

size_t rn_escape_ctl(char *dst, size_t dst_size, const char *src)
{
	size_t n = 0;

	for (; *src; src++) {
		char e[5];
		size_t len;

		if (!ctl((unsigned char)*src)) {
			if (n + 1 >= dst_size)
				break;
			dst[n++] = *src;
			continue;
		}
		spell((unsigned char)*src, e);
		len = strlen(e);
		if (n + len >= dst_size)
			break;
		memcpy(dst + n, e, len);
		n += len;
	}
	dst[n] = '\0';
	return n;
}

char *rn_escaped_dup(const char *s)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_add_escaped(&b, s ? s : "");
	if (rn_buf_failed(&b))
		rn_die("out of memory");
	return rn_buf_detach(&b, NULL);
}

/* Shown raw, a C1 control drives some terminals (U+009B is CSI, U+0085 a new line), a
 * separator breaks the line in some viewers and a bidirectional control reorders the text
 * after it, so a name could hide or fake what follows it on its line. */
size_t rn_invisible_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	if (p[0] == 0xd8 && p[1] == 0x9c)
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 &&
	    (p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xa8 && p[2] <= 0xae)))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
		return 3;
	return 0;
}

size_t rn_buf_add_invisible(struct rn_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = rn_invisible_control(s);

	if (n == 2)
		rn_buf_addf(b, "\\u%04x", ((p[0] & 0x1fu) << 6) | (p[1] & 0x3fu));
	else if (n == 3)
		rn_buf_addf(b, "\\u%04x",
			    ((p[0] & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu));
	return n;
}

char *rn_display_dup(const char *s)
{
	char *fixed = NULL;
	const unsigned char *p;
	struct rn_buf b;

	if (!s)
		s = "";
	if (!rn_utf8_valid(s))
		s = fixed = rn_utf8_fix(s);
	rn_buf_init(&b, 0);
	for (p = (const unsigned char *)s; *p;) {
		size_t n = rn_invisible_control((const char *)p);
		char e[5];

		if (n) {
			rn_buf_add_invisible(&b, (const char *)p);
			p += n;
			continue;
		}
		if (ctl(*p)) {
			spell(*p, e);
			rn_buf_adds(&b, e);
		} else {
			rn_buf_addc(&b, (char)*p);
		}
		p++;
	}
	free(fixed);
	if (rn_buf_failed(&b))
		rn_die("out of memory");
	return rn_buf_detach(&b, NULL);
}
