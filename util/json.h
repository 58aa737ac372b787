/*
 * json.h - the one JSON string escaper of the hand-written JSON outputs (the renacer-trace
 * view, source locations). Outputs built with jansson escape through jansson.
 */
#ifndef RN_JSON_H
#define RN_JSON_H

#include "buf.h"

/* Append `s` as a JSON string literal (quotes included; RFC 8259, section 7): ", \, control
 * characters and DEL are escaped (\n, \r, \t, else \u00XX), valid UTF-8 (RFC 3629, utf8.h)
 * is copied, and a byte that is not valid UTF-8 becomes \u00XX of its value, so no
 * information is lost. NULL appends null. A failed append leaves `b` in its sticky failed
 * state (buf.h). */
void rn_json_add_string(struct rn_buf *b, const char *s);

#endif
