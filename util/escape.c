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

char *rn_display_dup(const char *s)
{
	char *fixed, *out;

	if (rn_utf8_valid(s))
		return rn_escaped_dup(s);
	fixed = rn_utf8_fix(s);
	out = rn_escaped_dup(fixed);
	free(fixed);
	return out;
}
