/*
 * test_otlp_pb.c - the protobuf encoder of the OTLP trace messages, byte for byte against
 * encodings worked out by hand from the protobuf wire format and the opentelemetry-proto field
 * numbers, plus the response decoders. The decoding of whole requests by the OpenTelemetry
 * project's own generated decoders is the integration test of tests/integration/otlp.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "otlp_pb.h"
#include "runner/report/internal.h"

#define BYTES(...) ((const uint8_t[]){ __VA_ARGS__ }), sizeof((const uint8_t[]){ __VA_ARGS__ })

static void expect_bytes(const struct rn_buf *b, const uint8_t *want, size_t n)
{
	size_t i;

	assert_false(rn_buf_failed(b));
	if (b->len != n) {
		print_error("length %zu, expected %zu\n", b->len, n);
		for (i = 0; i < b->len; i++)
			print_error("%02x ", (uint8_t)b->buf[i]);
		print_error("\n");
	}
	assert_int_equal(b->len, n);
	assert_memory_equal(b->buf, want, n);
}

static void test_otlp_pb_varints(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	rn_pb_varint(&b, 0);
	rn_pb_varint(&b, 1);
	rn_pb_varint(&b, 127);
	rn_pb_varint(&b, 128);
	rn_pb_varint(&b, 300);
	expect_bytes(&b, BYTES(0x00, 0x01, 0x7f, 0x80, 0x01, 0xac, 0x02));
	rn_buf_reset(&b);
	rn_pb_varint(&b, UINT64_MAX);
	expect_bytes(&b, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01));
	rn_buf_release(&b);
}

static void test_otlp_pb_fields(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	rn_pb_tag(&b, 1, RN_PB_LEN);  /* 1 << 3 | 2 */
	rn_pb_tag(&b, 16, RN_PB_I32); /* 133 = 0x85 0x01 */
	rn_pb_uint_field(&b, 6, 1);   /* kind = INTERNAL */
	rn_pb_fixed64_field(&b, 7, 0x0102030405060708ull);
	rn_pb_fixed32_field(&b, 16, 0x101);
	rn_pb_double_field(&b, 4, 1.5); /* 0x3ff8000000000000 */
	rn_pb_string_field(&b, 5, "");  /* proto3 default: not written */
	rn_pb_string_field(&b, 5, NULL);
	rn_pb_string_field(&b, 5, "hi");
	expect_bytes(&b,
		     BYTES(0x0a, 0x85, 0x01, 0x30, 0x01, 0x39, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03,
			   0x02, 0x01, 0x85, 0x01, 0x01, 0x01, 0x00, 0x00, 0x21, 0x00, 0x00, 0x00,
			   0x00, 0x00, 0x00, 0xf8, 0x3f, 0x2a, 0x02, 'h', 'i'));
	rn_buf_release(&b);
}

static void test_otlp_pb_nested_lengths(void **state)
{
	struct rn_buf b;
	size_t outer, inner, i;
	char big[200];

	(void)state;
	rn_buf_init(&b, 0);
	outer = rn_pb_open(&b, 1);
	inner = rn_pb_open(&b, 2);
	rn_pb_close(&b, inner);
	rn_pb_close(&b, outer);
	expect_bytes(&b, BYTES(0x0a, 0x02, 0x12, 0x00));

	/* A body of 200 bytes needs a two-byte length (0xc8 0x01); the body must move intact. */
	rn_buf_reset(&b);
	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)i;
	outer = rn_pb_open(&b, 1);
	rn_buf_add(&b, big, sizeof(big));
	rn_pb_close(&b, outer);
	assert_int_equal(b.len, 3 + sizeof(big));
	assert_memory_equal(b.buf, "\x0a\xc8\x01", 3);
	assert_memory_equal(b.buf + 3, big, sizeof(big));
	rn_buf_release(&b);
}

static void test_otlp_pb_attributes(void **state)
{
	static const char *const strs[] = { "a", "" };
	static const int64_t ints[] = { 1, -1 };
	struct rn_otlp_attr a;
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	memset(&a, 0, sizeof(a));
	a.key = "a";
	a.type = RN_OTLP_VAL_STRING;
	a.u.s = "b";
	rn_otlp_pb_attr(&b, 9, &a);
	/* Span.attributes (9): KeyValue{ key "a", value AnyValue{ string_value "b" } } */
	expect_bytes(&b, BYTES(0x4a, 0x08, 0x0a, 0x01, 'a', 0x12, 0x03, 0x0a, 0x01, 'b'));

	rn_buf_reset(&b);
	a.u.s = ""; /* an empty string is still a set oneof member */
	rn_otlp_pb_attr(&b, 1, &a);
	expect_bytes(&b, BYTES(0x0a, 0x07, 0x0a, 0x01, 'a', 0x12, 0x02, 0x0a, 0x00));

	rn_buf_reset(&b);
	a.key = "n";
	a.type = RN_OTLP_VAL_INT;
	a.u.i = -1; /* int64: two's complement, ten bytes */
	rn_otlp_pb_attr(&b, 1, &a);
	expect_bytes(&b,
		     BYTES(0x0a, 0x10, 0x0a, 0x01, 'n', 0x12, 0x0b, 0x18, 0xff, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff, 0xff, 0xff, 0x01));

	rn_buf_reset(&b);
	a.type = RN_OTLP_VAL_BOOL;
	a.u.b = false; /* false is written: the oneof member is set */
	rn_otlp_pb_attr(&b, 1, &a);
	expect_bytes(&b, BYTES(0x0a, 0x07, 0x0a, 0x01, 'n', 0x12, 0x02, 0x10, 0x00));

	rn_buf_reset(&b);
	a.type = RN_OTLP_VAL_DOUBLE;
	a.u.d = -2.0; /* 0xc000000000000000 */
	rn_otlp_pb_attr(&b, 1, &a);
	expect_bytes(&b,
		     BYTES(0x0a, 0x0e, 0x0a, 0x01, 'n', 0x12, 0x09, 0x21, 0, 0, 0, 0, 0, 0, 0,
			   0xc0));

	rn_buf_reset(&b);
	a.type = RN_OTLP_VAL_STRINGS;
	a.u.strs.v = strs;
	a.u.strs.n = 2;
	rn_otlp_pb_attr(&b, 1, &a);
	/* AnyValue{ array_value (5) ArrayValue{ values (1): {string "a"}, {string ""} } } */
	expect_bytes(&b,
		     BYTES(0x0a, 0x10, 0x0a, 0x01, 'n', 0x12, 0x0b, 0x2a, 0x09, 0x0a, 0x03, 0x0a,
			   0x01, 'a', 0x0a, 0x02, 0x0a, 0x00));

	rn_buf_reset(&b);
	a.type = RN_OTLP_VAL_INTS;
	a.u.ints.v = ints;
	a.u.ints.n = 1;
	rn_otlp_pb_attr(&b, 1, &a);
	expect_bytes(&b,
		     BYTES(0x0a, 0x0b, 0x0a, 0x01, 'n', 0x12, 0x06, 0x2a, 0x04, 0x0a, 0x02, 0x18,
			   0x01));
	rn_buf_release(&b);
}

static void test_otlp_pb_minimal_span(void **state)
{
	struct rn_otlp_span s;
	struct rn_buf b;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(s.trace_id, 0x11, 16);
	memset(s.span_id, 0x22, 8);
	s.name = "s";
	s.kind = RN_OTLP_KIND_INTERNAL;
	s.start_unix_ns = 1;
	s.end_unix_ns = 2;
	rn_buf_init(&b, 0);
	rn_otlp_pb_span(&b, 2, &s);
	/* 18 (trace_id) + 10 (span_id) + 3 (name) + 2 (kind) + 9 + 9 (times) = 51 = 0x33 */
	expect_bytes(&b,
		     BYTES(0x12, 0x33, 0x0a, 0x10, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
			   0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x12, 0x08, 0x22, 0x22,
			   0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x2a, 0x01, 's', 0x30, 0x01, 0x39,
			   0x01, 0, 0, 0, 0, 0, 0, 0, 0x41, 0x02, 0, 0, 0, 0, 0, 0, 0));
	rn_buf_release(&b);
}

static void test_otlp_pb_full_span(void **state)
{
	struct rn_otlp_attr ea = { .key = "k", .type = RN_OTLP_VAL_INT, .u.i = 5 };
	struct rn_otlp_event ev = { "e", 3, &ea, 1 };
	struct rn_otlp_link lk;
	struct rn_otlp_span s;
	struct rn_buf b;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&lk, 0, sizeof(lk));
	memset(s.trace_id, 0x11, 16);
	memset(s.span_id, 0x22, 8);
	memset(s.parent_span_id, 0x33, 8);
	s.has_parent = true;
	s.trace_state = "v=1";
	s.events = &ev;
	s.nevents = 1;
	memset(lk.trace_id, 0x44, 16);
	memset(lk.span_id, 0x55, 8);
	lk.flags = 1;
	s.links = &lk;
	s.nlinks = 1;
	s.status = RN_OTLP_STATUS_ERROR;
	s.status_message = "x";
	s.flags = 0x101;
	rn_buf_init(&b, 0);
	rn_otlp_pb_span(&b, 2, &s);
	expect_bytes(&b,
		     BYTES(0x12, 0x72,
			   /* trace_id, span_id */
			   0x0a, 0x10, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
			   0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x12, 0x08, 0x22, 0x22, 0x22, 0x22,
			   0x22, 0x22, 0x22, 0x22,
			   /* trace_state (3), parent_span_id (4) */
			   0x1a, 0x03, 'v', '=', '1', 0x22, 0x08, 0x33, 0x33, 0x33, 0x33, 0x33,
			   0x33, 0x33, 0x33,
			   /* events (11): Event{ time 3, name "e", attributes {k: 5} } */
			   0x5a, 0x15, 0x09, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x01, 'e', 0x1a, 0x07,
			   0x0a, 0x01, 'k', 0x12, 0x02, 0x18, 0x05,
			   /* links (13): Link{ trace_id, span_id, flags (6) fixed32 1 } */
			   0x6a, 0x21, 0x0a, 0x10, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44,
			   0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x12, 0x08, 0x55, 0x55,
			   0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x35, 0x01, 0x00, 0x00, 0x00,
			   /* status (15): { message (2) "x", code (3) ERROR } */
			   0x7a, 0x05, 0x12, 0x01, 'x', 0x18, 0x02,
			   /* flags (16) fixed32 0x101 */
			   0x85, 0x01, 0x01, 0x01, 0x00, 0x00));
	rn_buf_release(&b);
}

static void test_otlp_pb_request_wrapping(void **state)
{
	struct rn_otlp_attr a = { .key = "a", .type = RN_OTLP_VAL_STRING, .u.s = "b" };
	struct rn_otlp_resource res = { NULL, 0, "r", NULL };
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	rn_otlp_pb_request(&b, &res, NULL, 0);
	/* ExportTraceServiceRequest{ resource_spans{ resource{}, scope_spans{ scope{name "r"} } } } */
	expect_bytes(&b, BYTES(0x0a, 0x09, 0x0a, 0x00, 0x12, 0x05, 0x0a, 0x03, 0x0a, 0x01, 'r'));

	rn_buf_reset(&b);
	res.attrs = &a;
	res.nattrs = 1;
	res.scope_version = "1";
	rn_otlp_pb_request(&b, &res, "\x12\x00", 2); /* one empty Span */
	/* resource{ attributes{a: "b"} } is 12 bytes, scope_spans{ scope{ name, version },
	 * span } another 12 */
	expect_bytes(&b,
		     BYTES(0x0a, 0x18, 0x0a, 0x0a, 0x0a, 0x08, 0x0a, 0x01, 'a', 0x12, 0x03, 0x0a,
			   0x01, 'b', 0x12, 0x0a, 0x0a, 0x06, 0x0a, 0x01, 'r', 0x12, 0x01, '1',
			   0x12, 0x00));
	rn_buf_release(&b);
}

static void test_otlp_pb_responses(void **state)
{
	struct rn_buf msg;
	int64_t rejected = -5;
	int32_t code = -5;

	(void)state;
	rn_buf_init(&msg, 0);
	/* partial_success{ rejected_spans 3, error_message "bad" } */
	assert_int_equal(rn_otlp_pb_parse_response("\x0a\x07\x08\x03\x12\x03"
						   "bad",
						   9, &rejected, &msg),
			 0);
	assert_int_equal(rejected, 3);
	assert_string_equal(msg.buf, "bad");

	rn_buf_reset(&msg);
	assert_int_equal(rn_otlp_pb_parse_response("", 0, &rejected, &msg), 0);
	assert_int_equal(rejected, 0);
	assert_int_equal(msg.len, 0);

	/* Unknown fields of every wire type are skipped. */
	assert_int_equal(rn_otlp_pb_parse_response("\x10\x01\x19\x01\x02\x03\x04\x05\x06\x07\x08"
						   "\x25\x01\x02\x03\x04",
						   16, &rejected, &msg),
			 0);

	/* Truncated length, truncated varint, field number 0, a group. */
	assert_int_equal(rn_otlp_pb_parse_response("\x0a\x09\x08", 3, &rejected, &msg), -EBADMSG);
	assert_int_equal(rn_otlp_pb_parse_response("\x08\x80", 2, &rejected, &msg), -EBADMSG);
	assert_int_equal(rn_otlp_pb_parse_response("\x00\x00", 2, &rejected, &msg), -EBADMSG);
	assert_int_equal(rn_otlp_pb_parse_response("\x0b", 1, &rejected, &msg), -EBADMSG);

	/* google.rpc.Status{ code 3, message "no" } */
	rn_buf_reset(&msg);
	assert_int_equal(rn_otlp_pb_parse_status("\x08\x03\x12\x02no", 6, &code, &msg), 0);
	assert_int_equal(code, 3);
	assert_string_equal(msg.buf, "no");
	assert_int_equal(rn_otlp_pb_parse_status("\x12\x05no", 4, &code, &msg), -EBADMSG);
	rn_buf_release(&msg);
}

static void test_otlp_pb_buffer_cap(void **state)
{
	struct rn_otlp_span s;
	struct rn_buf b;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.name = "a name longer than the cap";
	rn_buf_init(&b, 16);
	rn_otlp_pb_span(&b, 2, &s);
	assert_true(rn_buf_failed(&b)); /* sticky failure, no overflow */
	rn_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_otlp_pb_varints),
		cmocka_unit_test(test_otlp_pb_fields),
		cmocka_unit_test(test_otlp_pb_nested_lengths),
		cmocka_unit_test(test_otlp_pb_attributes),
		cmocka_unit_test(test_otlp_pb_minimal_span),
		cmocka_unit_test(test_otlp_pb_full_span),
		cmocka_unit_test(test_otlp_pb_request_wrapping),
		cmocka_unit_test(test_otlp_pb_responses),
		cmocka_unit_test(test_otlp_pb_buffer_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
