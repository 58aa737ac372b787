/*
 * test_app_decode.c - the app collector's OTLP request decoder (collectors/app/otlp_decode.c)
 * on the seed requests of tests/fuzz/regressions/otlp_receive/ (first byte: 0 protobuf,
 * 1 JSON), and on bodies it must refuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "app/app.h"
#include "buf.h"

static void decode_seed(const char *name, struct rn_app_otlp_span **s, size_t *n)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, name), 0);
	assert_true(b.len > 1);
	assert_int_equal(rn_app_otlp_decode(b.buf + 1, b.len - 1, b.buf[0] == 1, s, n), 0);
	rn_buf_release(&b);
}

static void test_app_decode_protobuf_seed(void **state)
{
	struct rn_app_otlp_span *s;
	size_t n;
	json_t *a;

	(void)state;
	decode_seed(RN_SOURCE_DIR "/tests/fuzz/regressions/otlp_receive/seed_protobuf", &s, &n);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].name, "request");
	assert_int_equal(s[0].start_unix_ns, 1700000000000000000ull);
	assert_int_equal(s[0].end_unix_ns, 1700000000050000000ull);
	assert_int_equal(s[0].span_id[0], 1);
	assert_int_equal(s[0].trace_id[15], 16);
	assert_int_equal(s[0].pid, 1234); /* the resource's process.pid, after the spans */
	assert_int_equal(s[0].tid, 4242);
	assert_true(s[0].error);
	a = json_loads(s[0].attrs, 0, NULL);
	assert_non_null(a);
	assert_string_equal(json_string_value(json_object_get(a, "http.route")), "/items");
	assert_int_equal(json_integer_value(json_object_get(a, "n")), 3);
	assert_true(json_is_true(json_object_get(a, "ok")));
	assert_true(json_real_value(json_object_get(a, "ratio")) == 0.5);
	assert_int_equal(json_array_size(json_object_get(a, "tags")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(a, "tags"), 0)), "a");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(a, "tags"), 1)), 7);
	assert_string_equal(json_string_value(json_object_get(json_object_get(a, "kv"), "x")), "y");
	json_decref(a);
	assert_string_equal(s[1].name, "parse");
	assert_memory_equal(s[1].parent_span_id, s[0].span_id, 8);
	assert_false(s[1].error);
	assert_null(s[1].attrs);
	rn_app_otlp_spans_free(s, n);
}

static void test_app_decode_json_seed(void **state)
{
	struct rn_app_otlp_span *s;
	size_t n;
	json_t *a;

	(void)state;
	decode_seed(RN_SOURCE_DIR "/tests/fuzz/regressions/otlp_receive/seed_json", &s, &n);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].name, "request");
	assert_int_equal(s[0].end_unix_ns, 1700000000050000000ull); /* a JSON number */
	assert_int_equal(s[0].pid, 1234);
	assert_true(s[0].error);
	a = json_loads(s[0].attrs, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(a, "n")), 3);
	assert_true(json_is_true(json_array_get(json_object_get(a, "arr"), 0)));
	json_decref(a);
	assert_memory_equal(s[1].parent_span_id, s[0].span_id, 8);
	assert_int_equal(s[1].span_id[7], 0x12);
	rn_app_otlp_spans_free(s, n);
}

static void test_app_decode_refuses_bad_bodies(void **state)
{
	static const struct {
		const char *body;
		size_t len;
		bool json;
	} bad[] = {
		{ "\x0a\x05\x0a", 3, false },         /* a length past the end */
		{ "\x0d\x00\x00\x00\x00", 5, false }, /* field 1 as fixed32: wrong wire type */
		{ "\x0a", 1, false },                 /* a key without its length */
		{ "\x0f", 1, false },                 /* wire type 7 */
		{ "{\"resourceSpans\":", 17, true },  /* cut JSON */
		{ "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"spanId\":\"xyz\"}]}]}]}", 0,
		  true }, /* an id that is not hex */
	};
	struct rn_app_otlp_span *s;
	size_t n, i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].body);

		assert_int_equal(rn_app_otlp_decode(bad[i].body, len, bad[i].json, &s, &n),
				 -EBADMSG);
		assert_null(s);
	}
	/* an empty request is a valid one with no spans; unknown fields are skipped */
	assert_int_equal(rn_app_otlp_decode("", 0, false, &s, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(rn_app_otlp_decode("\x50\x07\x12\x00", 4, false, &s, &n), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_app_decode_protobuf_seed),
		cmocka_unit_test(test_app_decode_json_seed),
		cmocka_unit_test(test_app_decode_refuses_bad_bodies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
