/*
 * csv.c - RFC 4180 fields, neutralized formulas, valid UTF-8 (csv.h).
 */
#include "csv.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

bool rn_csv_is_formula(const char *s)
{
	return s && *s && strchr("=+-@\t\r", *s);
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
