#include "json.h"

#include "utf8.h"

void rn_json_add_string(struct rn_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		rn_buf_adds(b, "null");
		return;
	}
	rn_buf_addc(b, '"');
	while (*p) {
		size_t n = rn_utf8_seq(p);

		if (n > 1) {
			rn_buf_add(b, p, n);
			p += n;
			continue;
		}
		switch (*p) {
		case '"':
			rn_buf_adds(b, "\\\"");
			break;
		case '\\':
			rn_buf_adds(b, "\\\\");
			break;
		case '\n':
			rn_buf_adds(b, "\\n");
			break;
		case '\r':
			rn_buf_adds(b, "\\r");
			break;
		case '\t':
			rn_buf_adds(b, "\\t");
			break;
		default:
			/* control characters, DEL and bytes that are not UTF-8 */
			if (*p < 0x20 || *p == 0x7f || !n)
				rn_buf_addf(b, "\\u%04x", *p);
			else
				rn_buf_addc(b, (char)*p);
		}
		p++;
	}
	rn_buf_addc(b, '"');
}
