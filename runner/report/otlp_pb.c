#include "otlp_pb.h"

#include <errno.h>
#include <string.h>

#include "internal.h"

/* Field numbers of opentelemetry-proto (OTLP 1.x), named so the encoders read like the .proto. */
enum {
	REQ_RESOURCE_SPANS = 1,
	RS_RESOURCE = 1,
	RS_SCOPE_SPANS = 2,
	SS_SCOPE = 1,
	SS_SPANS = 2,
	SCOPE_NAME = 1,
	SCOPE_VERSION = 2,
	RES_ATTRIBUTES = 1,
	SPAN_TRACE_ID = 1,
	SPAN_SPAN_ID = 2,
	SPAN_TRACE_STATE = 3,
	SPAN_PARENT_SPAN_ID = 4,
	SPAN_NAME = 5,
	SPAN_KIND = 6,
	SPAN_START = 7,
	SPAN_END = 8,
	SPAN_ATTRIBUTES = 9,
	SPAN_EVENTS = 11,
	SPAN_LINKS = 13,
	SPAN_STATUS = 15,
	SPAN_FLAGS = 16,
	EVENT_TIME = 1,
	EVENT_NAME = 2,
	EVENT_ATTRIBUTES = 3,
	LINK_TRACE_ID = 1,
	LINK_SPAN_ID = 2,
	LINK_TRACE_STATE = 3,
	LINK_ATTRIBUTES = 4,
	LINK_FLAGS = 6,
	STATUS_MESSAGE = 2,
	STATUS_CODE = 3,
	KV_KEY = 1,
	KV_VALUE = 2,
	ANY_STRING = 1,
	ANY_BOOL = 2,
	ANY_INT = 3,
	ANY_DOUBLE = 4,
	ANY_ARRAY = 5,
	ARRAY_VALUES = 1,
	RESP_PARTIAL_SUCCESS = 1,
	PS_REJECTED_SPANS = 1,
	PS_ERROR_MESSAGE = 2,
	RPC_STATUS_CODE = 1,
	RPC_STATUS_MESSAGE = 2,
};

/* Bytes of the varint encoding of v, and the encoding itself into out[10]. */
static size_t varint_encode(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

void rn_pb_varint(struct rn_buf *b, uint64_t v)
{
	uint8_t tmp[10];

	rn_buf_add(b, tmp, varint_encode(tmp, v));
}

void rn_pb_tag(struct rn_buf *b, uint32_t field, enum rn_pb_wire wire)
{
	rn_pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

void rn_pb_uint_field(struct rn_buf *b, uint32_t field, uint64_t v)
{
	rn_pb_tag(b, field, RN_PB_VARINT);
	rn_pb_varint(b, v);
}

void rn_pb_fixed64_field(struct rn_buf *b, uint32_t field, uint64_t v)
{
	uint8_t le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	rn_pb_tag(b, field, RN_PB_I64);
	rn_buf_add(b, le, sizeof(le));
}

void rn_pb_fixed32_field(struct rn_buf *b, uint32_t field, uint32_t v)
{
	uint8_t le[4];
	int i;

	for (i = 0; i < 4; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	rn_pb_tag(b, field, RN_PB_I32);
	rn_buf_add(b, le, sizeof(le));
}

void rn_pb_double_field(struct rn_buf *b, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	rn_pb_fixed64_field(b, field, bits);
}

/* Append a length-delimited field: key, varint length, `len` bytes. */
static void rn_pb_bytes_field(struct rn_buf *b, uint32_t field, const void *data, size_t len)
{
	rn_pb_tag(b, field, RN_PB_LEN);
	rn_pb_varint(b, len);
	if (len)
		rn_buf_add(b, data, len);
}

void rn_pb_string_field(struct rn_buf *b, uint32_t field, const char *s)
{
	if (s && *s)
		rn_pb_bytes_field(b, field, s, strlen(s));
}

size_t rn_pb_open(struct rn_buf *b, uint32_t field)
{
	rn_pb_tag(b, field, RN_PB_LEN);
	return b->len;
}

void rn_pb_close(struct rn_buf *b, size_t body_start)
{
	uint8_t tmp[10];
	size_t body, n;

	if (rn_buf_failed(b) || body_start > b->len)
		return;
	body = b->len - body_start;
	n = varint_encode(tmp, body);
	/* Shift the body right by the length's size: one copy per nesting level keeps the
	 * encoding minimal without a separate size pass. */
	if (rn_buf_grow(b, n))
		return;
	memmove(b->buf + body_start + n, b->buf + body_start, body);
	memcpy(b->buf + body_start, tmp, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

static void anyvalue(struct rn_buf *b, uint32_t field, const struct rn_otlp_attr *a)
{
	size_t v = rn_pb_open(b, field), arr, i;

	switch (a->type) {
	case RN_OTLP_VAL_STRING:
		/* An empty string is still a set oneof member: write it explicitly. */
		rn_pb_bytes_field(b, ANY_STRING, a->u.s ? a->u.s : "", a->u.s ? strlen(a->u.s) : 0);
		break;
	case RN_OTLP_VAL_BOOL:
		rn_pb_uint_field(b, ANY_BOOL, a->u.b ? 1 : 0);
		break;
	case RN_OTLP_VAL_INT:
		rn_pb_uint_field(b, ANY_INT, (uint64_t)a->u.i);
		break;
	case RN_OTLP_VAL_DOUBLE:
		rn_pb_double_field(b, ANY_DOUBLE, a->u.d);
		break;
	case RN_OTLP_VAL_STRINGS:
		arr = rn_pb_open(b, ANY_ARRAY);
		for (i = 0; i < a->u.strs.n; i++) {
			const char *s = a->u.strs.v[i] ? a->u.strs.v[i] : "";
			size_t e = rn_pb_open(b, ARRAY_VALUES);

			rn_pb_bytes_field(b, ANY_STRING, s, strlen(s));
			rn_pb_close(b, e);
		}
		rn_pb_close(b, arr);
		break;
	case RN_OTLP_VAL_INTS:
		arr = rn_pb_open(b, ANY_ARRAY);
		for (i = 0; i < a->u.ints.n; i++) {
			size_t e = rn_pb_open(b, ARRAY_VALUES);

			rn_pb_uint_field(b, ANY_INT, (uint64_t)a->u.ints.v[i]);
			rn_pb_close(b, e);
		}
		rn_pb_close(b, arr);
		break;
	}
	rn_pb_close(b, v);
}

void rn_otlp_pb_attr(struct rn_buf *b, uint32_t field, const struct rn_otlp_attr *a)
{
	size_t kv = rn_pb_open(b, field);

	rn_pb_string_field(b, KV_KEY, a->key);
	anyvalue(b, KV_VALUE, a);
	rn_pb_close(b, kv);
}

static void attrs(struct rn_buf *b, uint32_t field, const struct rn_otlp_attr *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rn_otlp_pb_attr(b, field, &a[i]);
}

void rn_otlp_pb_span(struct rn_buf *b, uint32_t field, const struct rn_otlp_span *s)
{
	size_t span = rn_pb_open(b, field), i;

	rn_pb_bytes_field(b, SPAN_TRACE_ID, s->trace_id, sizeof(s->trace_id));
	rn_pb_bytes_field(b, SPAN_SPAN_ID, s->span_id, sizeof(s->span_id));
	rn_pb_string_field(b, SPAN_TRACE_STATE, s->trace_state);
	if (s->has_parent)
		rn_pb_bytes_field(b, SPAN_PARENT_SPAN_ID, s->parent_span_id,
				  sizeof(s->parent_span_id));
	rn_pb_string_field(b, SPAN_NAME, s->name);
	if (s->kind)
		rn_pb_uint_field(b, SPAN_KIND, (uint64_t)s->kind);
	if (s->start_unix_ns)
		rn_pb_fixed64_field(b, SPAN_START, s->start_unix_ns);
	if (s->end_unix_ns)
		rn_pb_fixed64_field(b, SPAN_END, s->end_unix_ns);
	attrs(b, SPAN_ATTRIBUTES, s->attrs, s->nattrs);
	for (i = 0; i < s->nevents; i++) {
		const struct rn_otlp_event *e = &s->events[i];
		size_t ev = rn_pb_open(b, SPAN_EVENTS);

		if (e->time_unix_ns)
			rn_pb_fixed64_field(b, EVENT_TIME, e->time_unix_ns);
		rn_pb_string_field(b, EVENT_NAME, e->name);
		attrs(b, EVENT_ATTRIBUTES, e->attrs, e->nattrs);
		rn_pb_close(b, ev);
	}
	for (i = 0; i < s->nlinks; i++) {
		const struct rn_otlp_link *l = &s->links[i];
		size_t lk = rn_pb_open(b, SPAN_LINKS);

		rn_pb_bytes_field(b, LINK_TRACE_ID, l->trace_id, sizeof(l->trace_id));
		rn_pb_bytes_field(b, LINK_SPAN_ID, l->span_id, sizeof(l->span_id));
		rn_pb_string_field(b, LINK_TRACE_STATE, l->trace_state);
		attrs(b, LINK_ATTRIBUTES, l->attrs, l->nattrs);
		if (l->flags)
			rn_pb_fixed32_field(b, LINK_FLAGS, l->flags);
		rn_pb_close(b, lk);
	}
	if (s->status || (s->status_message && *s->status_message)) {
		size_t st = rn_pb_open(b, SPAN_STATUS);

		rn_pb_string_field(b, STATUS_MESSAGE, s->status_message);
		if (s->status)
			rn_pb_uint_field(b, STATUS_CODE, (uint64_t)s->status);
		rn_pb_close(b, st);
	}
	if (s->flags)
		rn_pb_fixed32_field(b, SPAN_FLAGS, s->flags);
	rn_pb_close(b, span);
}

void rn_otlp_pb_request(struct rn_buf *b, const struct rn_otlp_resource *res, const void *spans,
			size_t len)
{
	size_t rs = rn_pb_open(b, REQ_RESOURCE_SPANS), r, ss, sc;

	r = rn_pb_open(b, RS_RESOURCE);
	attrs(b, RES_ATTRIBUTES, res->attrs, res->nattrs);
	rn_pb_close(b, r);
	ss = rn_pb_open(b, RS_SCOPE_SPANS);
	sc = rn_pb_open(b, SS_SCOPE);
	rn_pb_string_field(b, SCOPE_NAME, res->scope_name);
	rn_pb_string_field(b, SCOPE_VERSION, res->scope_version);
	rn_pb_close(b, sc);
	if (len)
		rn_buf_add(b, spans, len);
	rn_pb_close(b, ss);
	rn_pb_close(b, rs);
}

/* ---- Decoding (responses only): a bounded reader over untrusted bytes ---------------------- */

struct reader {
	const uint8_t *p;   /* next byte */
	const uint8_t *end; /* one past the last byte */
};

static int read_varint(struct reader *r, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 64; shift += 7) {
		uint8_t c;

		if (r->p >= r->end)
			return -EBADMSG;
		c = *r->p++;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
	}
	return -EBADMSG;
}

/* Read one field key, then its value: varints into *v, length-delimited into *data and *len;
 * fixed-width values are skipped. */
static int read_field(struct reader *r, uint32_t *field, uint64_t *v, const uint8_t **data,
		      size_t *len)
{
	uint64_t key, n;

	if (read_varint(r, &key))
		return -EBADMSG;
	*field = (uint32_t)(key >> 3);
	if (!*field)
		return -EBADMSG;
	*v = 0;
	*data = NULL;
	*len = 0;
	switch (key & 7) {
	case RN_PB_VARINT:
		return read_varint(r, v);
	case RN_PB_I64:
		n = 8;
		break;
	case RN_PB_I32:
		n = 4;
		break;
	case RN_PB_LEN:
		if (read_varint(r, &n))
			return -EBADMSG;
		if (n > (uint64_t)(r->end - r->p))
			return -EBADMSG;
		*data = r->p;
		*len = (size_t)n;
		r->p += n;
		return 0;
	default:
		return -EBADMSG; /* groups (3, 4) are not used by OTLP */
	}
	if (n > (uint64_t)(r->end - r->p))
		return -EBADMSG;
	r->p += n;
	return 0;
}

int rn_otlp_pb_parse_response(const void *data, size_t len, int64_t *rejected_spans,
			      struct rn_buf *msg)
{
	struct reader r = { data, (const uint8_t *)data + len };

	*rejected_spans = 0;
	while (r.p < r.end) {
		const uint8_t *d;
		uint32_t f;
		uint64_t v;
		size_t n;

		if (read_field(&r, &f, &v, &d, &n))
			return -EBADMSG;
		if (f == RESP_PARTIAL_SUCCESS && d) {
			struct reader ps = { d, d + n };

			while (ps.p < ps.end) {
				const uint8_t *pd;
				uint32_t pf;
				uint64_t pv;
				size_t pn;

				if (read_field(&ps, &pf, &pv, &pd, &pn))
					return -EBADMSG;
				if (pf == PS_REJECTED_SPANS && !pd)
					*rejected_spans = (int64_t)pv;
				else if (pf == PS_ERROR_MESSAGE && pd)
					rn_buf_add(msg, pd, pn);
			}
		}
	}
	return 0;
}

int rn_otlp_pb_parse_status(const void *data, size_t len, int32_t *code, struct rn_buf *msg)
{
	struct reader r = { data, (const uint8_t *)data + len };

	*code = 0;
	while (r.p < r.end) {
		const uint8_t *d;
		uint32_t f;
		uint64_t v;
		size_t n;

		if (read_field(&r, &f, &v, &d, &n))
			return -EBADMSG;
		if (f == RPC_STATUS_CODE && !d)
			*code = (int32_t)v;
		else if (f == RPC_STATUS_MESSAGE && d)
			rn_buf_add(msg, d, n);
	}
	return 0;
}
