/*
 * fuzz_json.c - JSON string escaping through jansson, which writes every JSON file renacer
 * makes (golden traces, the OTLP/JSON export, the timeline).
 *
 * Properties, for the input as one string:
 * - jansson accepts the bytes as a string exactly when they are well-formed UTF-8 (by the
 *   independent decoder of fuzz_common.c), so renacer's fallback (replacing invalid bytes
 *   before json_string) is needed exactly then;
 * - json_dumps of the string, plain and with JSON_ENSURE_ASCII, contains no raw control
 *   character (RFC 8259 section 7) and, with JSON_ENSURE_ASCII, only ASCII;
 * - json_loads of that text (JSON_ALLOW_NUL) gives back the same bytes, NULs included;
 * - the same holds for the string used as an object key when it has no NUL.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static bool valid_utf8(const uint8_t *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		long cp;

		i += fuzz_utf8_next(s + i, len - i, &cp);
		if (cp < 0)
			return false;
	}
	return true;
}

static void check_dump(const char *text, bool ascii)
{
	const unsigned char *p;

	FUZZ_CHECK(text != NULL, "json_dumps failed");
	for (p = (const unsigned char *)text; *p; p++) {
		FUZZ_CHECK(*p >= 0x20, "raw control character in JSON text");
		if (ascii)
			FUZZ_CHECK(*p < 0x80, "non-ASCII byte with JSON_ENSURE_ASCII");
	}
}

static void round_trip_string(const json_t *s, const uint8_t *data, size_t size, size_t flags)
{
	char *text = json_dumps(s, JSON_ENCODE_ANY | flags);
	json_error_t err;
	json_t *back;

	check_dump(text, flags & JSON_ENSURE_ASCII);
	back = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
	if (!back)
		fuzz_fail("json_loads rejects what json_dumps wrote: %s", err.text);
	FUZZ_CHECK(json_is_string(back), "not a string after the round trip");
	FUZZ_CHECK(json_string_length(back) == size && !memcmp(json_string_value(back), data, size),
		   "the string changed in the round trip");
	json_decref(back);
	free(text);
}

static void round_trip_key(const char *key, size_t flags)
{
	json_t *o = json_object(), *back;
	json_error_t err;
	char *text;

	FUZZ_CHECK(o && !json_object_set_new(o, key, json_true()), "cannot build the object");
	text = json_dumps(o, flags);
	check_dump(text, flags & JSON_ENSURE_ASCII);
	back = json_loads(text, 0, &err);
	if (!back)
		fuzz_fail("json_loads rejects an object json_dumps wrote: %s", err.text);
	FUZZ_CHECK(json_object_size(back) == 1 && json_object_get(back, key) != NULL,
		   "the key changed in the round trip");
	json_decref(back);
	json_decref(o);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *s = json_stringn((const char *)data, size);
	bool valid = valid_utf8(data, size);

	if (!s) {
		FUZZ_CHECK(!valid, "jansson rejects well-formed UTF-8");
		return 0;
	}
	FUZZ_CHECK(valid, "jansson accepts ill-formed UTF-8");
	round_trip_string(s, data, size, 0);
	round_trip_string(s, data, size, JSON_ENSURE_ASCII);
	if (!memchr(data, '\0', size)) {
		round_trip_key(json_string_value(s), 0);
		round_trip_key(json_string_value(s), JSON_ENSURE_ASCII | JSON_SORT_KEYS);
	}
	json_decref(s);
	return 0;
}
