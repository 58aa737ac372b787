/*
 * fuzz_otlp_receive.c - the app collector's OTLP request decoder (rn_app_otlp_decode,
 * collectors/app/otlp_decode.c) on arbitrary bodies. The first byte chooses the encoding
 * (odd: OTLP/JSON, even: protobuf), the rest is the body. Properties: the decoder accepts or
 * refuses without reading past the body; every accepted span has a name and attributes that
 * are one JSON object; and what it accepted, encoded again by the exporter's encoder
 * (runner/report/otlp_encode.c: the same schema written the other way), decodes to the same
 * names, ids and times in both encodings. Then the receiver takes the body as a request's
 * (rn_app_replay: Unix times mapped to the run's clock, parents, names made display text): every
 * span in the trace has a one-line UTF-8 name and lies within the run, and a time at or past
 * 2^63 ns is dropped, not wrapped. Seeds: tests/fuzz/regressions/otlp_receive/.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "buf.h"
#include "escape.h"
#include "fuzz.h"
#include "trace.h"
#include "utf8.h"
#include "otlp_encode.h"
#include "runner/report/internal.h"
#include "xalloc.h"

static void check_same(const struct rn_app_otlp_span *a, size_t na,
		       const struct rn_app_otlp_span *b, size_t nb)
{
	size_t i;

	FUZZ_CHECK(na == nb, "spans survive an encode and decode");
	for (i = 0; i < na; i++) {
		FUZZ_CHECK(!strcmp(a[i].name, b[i].name) || !*a[i].name,
			   "names survive an encode and decode");
		FUZZ_CHECK(!memcmp(a[i].span_id, b[i].span_id, 8) &&
				   !memcmp(a[i].trace_id, b[i].trace_id, 16) &&
				   !memcmp(a[i].parent_span_id, b[i].parent_span_id, 8),
			   "ids survive an encode and decode");
		FUZZ_CHECK(a[i].start_unix_ns == b[i].start_unix_ns,
			   "start times survive an encode and decode");
		FUZZ_CHECK(a[i].end_unix_ns == b[i].end_unix_ns ||
				   a[i].end_unix_ns < a[i].start_unix_ns,
			   "end times survive an encode and decode");
	}
}

/* Encode `s` again with the exporter and decode the result. */
static void round_trip(const struct rn_app_otlp_span *s, size_t n, bool json)
{
	static const uint8_t zero[8];
	struct rn_otlp_span *os = rn_xcalloc(n ? n : 1, sizeof(*os));
	struct rn_otlp_resource res = { NULL, 0, "fuzz", NULL };
	struct rn_app_otlp_span *back;
	size_t nback, i;
	struct rn_buf b;

	for (i = 0; i < n; i++) {
		memcpy(os[i].trace_id, s[i].trace_id, 16);
		memcpy(os[i].span_id, s[i].span_id, 8);
		memcpy(os[i].parent_span_id, s[i].parent_span_id, 8);
		os[i].has_parent = memcmp(s[i].parent_span_id, zero, 8) != 0;
		os[i].name = s[i].name;
		os[i].start_unix_ns = s[i].start_unix_ns;
		os[i].end_unix_ns = s[i].end_unix_ns;
	}
	rn_buf_init(&b, 0);
	if (!rn_otlp_encode_request(json ? RN_OTLP_HTTP_JSON : RN_OTLP_HTTP_PROTOBUF, &res, os, n,
				    &b) &&
	    !rn_buf_failed(&b)) {
		int rc = rn_app_otlp_decode(b.buf, b.len, json, &back, &nback);

		/* names that are not UTF-8 are repaired by the JSON encoder: compare in protobuf */
		FUZZ_CHECK(!rc || json, "the exporter's protobuf decodes");
		if (!rc && !json)
			check_same(s, n, back, nback);
		if (!rc)
			rn_app_otlp_spans_free(back, nback);
	}
	rn_buf_release(&b);
	free(os);
}

/* The body taken by the receiver into a run of the last minute. */
static void receive(const char *body, size_t len, bool json, size_t nspans)
{
	struct rn_trace t;
	struct timespec now;
	size_t i;

	rn_trace_init(&t);
	clock_gettime(CLOCK_MONOTONIC, &now);
	t.end_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	t.start_ns = t.end_ns - 60000000000ull;
	FUZZ_CHECK(!rn_app_replay(NULL, 0, body, len, json, &t), "the receiver takes the body");
	FUZZ_CHECK(t.napp <= nspans, "no more spans than the body holds");
	for (i = 0; i < t.napp; i++) {
		const struct rn_app_span *a = &t.app[i];

		FUZZ_CHECK(rn_utf8_valid(a->name) && !rn_has_ctl(a->name),
			   "a received name is one line of UTF-8");
		FUZZ_CHECK(!a->parent || (rn_utf8_valid(a->parent) && !rn_has_ctl(a->parent)),
			   "a received parent name is one line of UTF-8");
		FUZZ_CHECK(a->end_ns >= a->start_ns, "a received span ends after it starts");
		FUZZ_CHECK(a->start_ns + 60000000000ull >= t.start_ns &&
				   a->end_ns <= t.end_ns + 60000000000ull,
			   "a received span lies within the run");
	}
	rn_trace_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_app_otlp_span *spans;
	bool json;
	size_t n, i;
	char *copy;

	if (!size)
		return 0;
	json = data[0] & 1;
	/* an exact-size copy, so a read past the body is caught by the sanitizers */
	copy = rn_xmalloc(size - 1 ? size - 1 : 1);
	memcpy(copy, data + 1, size - 1);
	if (rn_app_otlp_decode(copy, size - 1, json, &spans, &n)) {
		free(copy);
		return 0;
	}
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(spans[i].name, "an accepted span has a name");
		if (spans[i].attrs) {
			json_t *a = json_loads(spans[i].attrs, 0, NULL);

			FUZZ_CHECK(json_is_object(a), "attributes are one JSON object");
			json_decref(a);
		}
	}
	round_trip(spans, n, false);
	round_trip(spans, n, true);
	receive(copy, size - 1, json, n);
	rn_app_otlp_spans_free(spans, n);
	free(copy);
	return 0;
}
