/*
 * json_text.h - text that jansson outputs accept: JSON strings must be UTF-8 (RFC 8259 section
 * 8.1) and json_string() refuses anything else, while paths, argv words and kernel names in a
 * trace are bytes. The outputs that write such text (the timeline, OTLP/JSON) build their
 * strings here.
 */
#ifndef RN_JSON_TEXT_H
#define RN_JSON_TEXT_H

#include <jansson.h>

/* A new JSON string of `s` ("" when NULL), every byte of `s` that does not start a valid UTF-8
 * sequence replaced by U+FFFD (rn_utf8_fix). The caller owns the reference; NULL only when
 * jansson cannot allocate. */
json_t *rn_json_text(const char *s);

#endif
