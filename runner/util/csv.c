/*
 * csv.c - RFC 4180 fields (csv.h).
 */
#include "csv.h"

#include <string.h>

void rn_csv_add_field(struct rn_buf *b, const char *s)
{
	size_t len;

	if (!s)
		return;
	len = strlen(s);
	if (!strpbrk(s, ",\"\r\n") && !(len && (s[0] == ' ' || s[len - 1] == ' '))) {
		rn_buf_add(b, s, len);
		return;
	}
	rn_buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			rn_buf_addc(b, '"');
		rn_buf_addc(b, *s);
	}
	rn_buf_addc(b, '"');
}
