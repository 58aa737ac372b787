/*
 * csv.c - RFC 4180 fields, neutralized formulas, valid UTF-8 (csv.h).
 */
#include "csv.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

bool rn_csv_is_formula(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return false;
	/* Spreadsheets trim spaces (U+3000 too) and stray double quotes before they look. */
	for (;;) {
		if (*p == ' ' || *p == '"')
			p++;
		else if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
			p += 3;
		else
			break;
	}
	if (*p && strchr("=+-@\t\r\n", *p))
		return true;
	/* The fullwidth forms of + - = @ (U+FF0B, U+FF0D, U+FF1D, U+FF20) */
	return p[0] == 0xef && p[1] == 0xbc &&
		(p[2] == 0x8b || p[2] == 0x8d || p[2] == 0x9d || p[2] == 0xa0);
}

void rn_csv_add_field(struct rn_buf *b, const char *s)
{
	char *fixed = NULL;
	bool formula;
	size_t len;

	if (!s)
		return;
	if (!rn_utf8_valid(s)) {
		fixed = rn_utf8_fix(s);
		s = fixed;
	}
	len = strlen(s);
	formula = rn_csv_is_formula(s);
	if (!formula && !strpbrk(s, ",\"\r\n") && !(len && (s[0] == ' ' || s[len - 1] == ' '))) {
		rn_buf_add(b, s, len);
		free(fixed);
		return;
	}
	rn_buf_addc(b, '"');
	if (formula)
		rn_buf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '"')
			rn_buf_addc(b, '"');
		rn_buf_addc(b, *s);
	}
	rn_buf_addc(b, '"');
	free(fixed);
}
