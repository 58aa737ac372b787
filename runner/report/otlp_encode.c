#include "otlp_encode.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json_text.h"
#include "otlp_context.h"

/* ---- OTLP/JSON encoding (OTLP 1.x, Specification: "JSON Protobuf Encoding") ---------------- */

/* 64-bit integers are decimal strings in the proto3 JSON mapping. */
static json_t *jint64(int64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
	return json_string(tmp);
}

static json_t *juint64(uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	return json_string(tmp);
}

/* Doubles are numbers, except the non-finite ones, which are the strings of the mapping. */
static json_t *jdouble(double d)
{
	if (isnan(d))
		return json_string("NaN");
	if (isinf(d))
		return json_string(d > 0 ? "Infinity" : "-Infinity");
	return json_real(d);
}

static json_t *jhex(const uint8_t *id, size_t n)
{
	char tmp[33];

	rn_otlp_hex(id, n, tmp);
	return json_string(tmp);
}

/* Set o[k] = v, remembering a failure (v NULL or out of memory) in *ok. */
static void jset(json_t *o, const char *k, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, k, v))
		*ok = false;
}

static void jpush(json_t *a, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(a, v))
		*ok = false;
}

static json_t *anyvalue_json(const struct rn_otlp_attr *a, bool *ok)
{
	json_t *v = json_object(), *arr, *values;
	size_t i;

	if (!v) {
		*ok = false;
		return NULL;
	}
	switch (a->type) {
	case RN_OTLP_VAL_STRING:
		jset(v, "stringValue", rn_json_text(a->u.s), ok);
		break;
	case RN_OTLP_VAL_BOOL:
		jset(v, "boolValue", json_boolean(a->u.b), ok);
		break;
	case RN_OTLP_VAL_INT:
		jset(v, "intValue", jint64(a->u.i), ok);
		break;
	case RN_OTLP_VAL_DOUBLE:
		jset(v, "doubleValue", jdouble(a->u.d), ok);
		break;
	case RN_OTLP_VAL_STRINGS:
	case RN_OTLP_VAL_INTS:
		arr = json_object();
		values = json_array();
		jset(arr, "values", values, ok);
		jset(v, "arrayValue", arr, ok);
		if (!values)
			break;
		for (i = 0; a->type == RN_OTLP_VAL_STRINGS && i < a->u.strs.n; i++) {
			json_t *e = json_object();

			jset(e, "stringValue", rn_json_text(a->u.strs.v[i]), ok);
			jpush(values, e, ok);
		}
		for (i = 0; a->type == RN_OTLP_VAL_INTS && i < a->u.ints.n; i++) {
			json_t *e = json_object();

			jset(e, "intValue", jint64(a->u.ints.v[i]), ok);
			jpush(values, e, ok);
		}
		break;
	}
	return v;
}

static json_t *attrs_json(const struct rn_otlp_attr *a, size_t n, bool *ok)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && i < n; i++) {
		json_t *kv = json_object();

		if (kv) {
			jset(kv, "key", rn_json_text(a[i].key), ok);
			jset(kv, "value", anyvalue_json(&a[i], ok), ok);
		}
		jpush(arr, kv, ok);
	}
	if (!arr)
		*ok = false;
	return arr;
}

/* One Span object; NULL on out-of-memory. Empty repeated fields and defaults are omitted. */
static json_t *span_json(const struct rn_otlp_span *s)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	size_t i;

	if (!o)
		return NULL;
	jset(o, "traceId", jhex(s->trace_id, 16), &ok);
	jset(o, "spanId", jhex(s->span_id, 8), &ok);
	if (s->trace_state && *s->trace_state)
		jset(o, "traceState", rn_json_text(s->trace_state), &ok);
	if (s->has_parent)
		jset(o, "parentSpanId", jhex(s->parent_span_id, 8), &ok);
	if (s->flags)
		jset(o, "flags", json_integer(s->flags), &ok);
	jset(o, "name", rn_json_text(s->name), &ok);
	if (s->kind)
		jset(o, "kind", json_integer(s->kind), &ok);
	jset(o, "startTimeUnixNano", juint64(s->start_unix_ns), &ok);
	jset(o, "endTimeUnixNano", juint64(s->end_unix_ns), &ok);
	if (s->nattrs)
		jset(o, "attributes", attrs_json(s->attrs, s->nattrs, &ok), &ok);
	if (s->nevents) {
		json_t *evs = json_array();

		for (i = 0; evs && i < s->nevents; i++) {
			const struct rn_otlp_event *e = &s->events[i];
			json_t *ev = json_object();

			if (ev) {
				jset(ev, "timeUnixNano", juint64(e->time_unix_ns), &ok);
				jset(ev, "name", rn_json_text(e->name), &ok);
				if (e->nattrs)
					jset(ev, "attributes", attrs_json(e->attrs, e->nattrs, &ok),
					     &ok);
			}
			jpush(evs, ev, &ok);
		}
		jset(o, "events", evs, &ok);
	}
	if (s->nlinks) {
		json_t *lks = json_array();

		for (i = 0; lks && i < s->nlinks; i++) {
			const struct rn_otlp_link *l = &s->links[i];
			json_t *lk = json_object();

			if (lk) {
				jset(lk, "traceId", jhex(l->trace_id, 16), &ok);
				jset(lk, "spanId", jhex(l->span_id, 8), &ok);
				if (l->trace_state && *l->trace_state)
					jset(lk, "traceState", rn_json_text(l->trace_state), &ok);
				if (l->nattrs)
					jset(lk, "attributes", attrs_json(l->attrs, l->nattrs, &ok),
					     &ok);
				if (l->flags)
					jset(lk, "flags", json_integer(l->flags), &ok);
			}
			jpush(lks, lk, &ok);
		}
		jset(o, "links", lks, &ok);
	}
	if (s->status || (s->status_message && *s->status_message)) {
		json_t *st = json_object();

		if (st) {
			if (s->status_message && *s->status_message)
				jset(st, "message", rn_json_text(s->status_message), &ok);
			if (s->status)
				jset(st, "code", json_integer(s->status), &ok);
		}
		jset(o, "status", st, &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A whole ExportTraceServiceRequest around `spans` (a JSON array, borrowed), dumped compact.
 * Caller frees; NULL on out-of-memory. */
static char *request_json(const struct rn_otlp_resource *res, json_t *spans, size_t *len)
{
	json_t *req = json_object(), *rss = json_array(), *rs = json_object();
	json_t *resource = json_object(), *sss = json_array(), *ss = json_object();
	json_t *scope = json_object();
	bool ok = req && rss && rs && resource && sss && ss && scope;
	char *out = NULL;

	if (ok) {
		jset(resource, "attributes", attrs_json(res->attrs, res->nattrs, &ok), &ok);
		jset(scope, "name", rn_json_text(res->scope_name), &ok);
		if (res->scope_version)
			jset(scope, "version", rn_json_text(res->scope_version), &ok);
		jset(ss, "scope", scope, &ok);
		jset(ss, "spans", json_incref(spans), &ok);
		jpush(sss, ss, &ok);
		jset(rs, "resource", resource, &ok);
		jset(rs, "scopeSpans", sss, &ok);
		jpush(rss, rs, &ok);
		jset(req, "resourceSpans", rss, &ok);
		if (ok)
			out = json_dumps(req, JSON_COMPACT);
		json_decref(req);
	} else {
		json_decref(req);
		json_decref(rss);
		json_decref(rs);
		json_decref(resource);
		json_decref(sss);
		json_decref(ss);
		json_decref(scope);
	}
	if (out && len)
		*len = strlen(out);
	return out;
}

/* ---- Batches: spans are encoded as they are produced and sent when a request is full ------ */

void rn_otlp_batch_release(struct rn_otlp_batch *b)
{
	rn_buf_release(&b->pb);
	rn_buf_release(&b->tmp);
	json_decref(b->jspans);
	b->jspans = NULL;
}

int rn_otlp_batch_init(struct rn_otlp_batch *b, enum rn_otlp_protocol proto,
		       const struct rn_otlp_resource *res, size_t max_bytes,
		       int (*flush)(void *, const char *, size_t, size_t), void *ctx)
{
	memset(b, 0, sizeof(*b));
	if (proto != RN_OTLP_HTTP_PROTOBUF && proto != RN_OTLP_HTTP_JSON)
		return -EINVAL;
	b->proto = proto;
	b->res = res;
	b->max_bytes = max_bytes ? max_bytes : RN_OTLP_DEFAULT_MAX_REQUEST_BYTES;
	b->flush = flush;
	b->ctx = ctx;
	rn_buf_init(&b->pb, 0);
	rn_buf_init(&b->tmp, 0);
	if (proto == RN_OTLP_HTTP_PROTOBUF) {
		rn_otlp_pb_request(&b->tmp, res, NULL, 0);
		b->overhead = b->tmp.len + 16; /* room for longer nested length varints */
		if (rn_buf_failed(&b->tmp))
			goto out_nomem;
		rn_buf_reset(&b->tmp);
	} else {
		char *empty;

		b->jspans = json_array();
		empty = b->jspans ? request_json(res, b->jspans, &b->overhead) : NULL;
		if (!empty)
			goto out_nomem;
		free(empty);
	}
	return 0;
out_nomem:
	rn_otlp_batch_release(b);
	return -ENOMEM;
}

int rn_otlp_batch_flush(struct rn_otlp_batch *b)
{
	int rc;

	if (b->err || !b->nspans)
		return b->err;
	if (b->proto == RN_OTLP_HTTP_PROTOBUF) {
		struct rn_buf body;

		rn_buf_init(&body, 0);
		rn_otlp_pb_request(&body, b->res, b->pb.buf, b->pb.len);
		rc = rn_buf_failed(&body) ? -ENOMEM :
					    b->flush(b->ctx, body.buf, body.len, b->nspans);
		rn_buf_release(&body);
		rn_buf_reset(&b->pb);
	} else {
		size_t len;
		char *body = request_json(b->res, b->jspans, &len);

		rc = body ? b->flush(b->ctx, body, len, b->nspans) : -ENOMEM;
		free(body);
		json_array_clear(b->jspans);
		b->jbytes = 0;
	}
	if (rc < 0)
		b->err = rc;
	else
		b->sent += b->nspans;
	b->nspans = 0;
	return rc < 0 ? rc : 0;
}

int rn_otlp_batch_add(struct rn_otlp_batch *b, const struct rn_otlp_span *s)
{
	if (b->err)
		return b->err;
	if (b->proto == RN_OTLP_HTTP_PROTOBUF) {
		rn_buf_reset(&b->tmp);
		rn_otlp_pb_span(&b->tmp, 2, s);
		if (rn_buf_failed(&b->tmp))
			return b->err = -ENOMEM;
		if (b->nspans && b->overhead + b->pb.len + b->tmp.len > b->max_bytes &&
		    rn_otlp_batch_flush(b))
			return b->err;
		rn_buf_add(&b->pb, b->tmp.buf, b->tmp.len);
		if (rn_buf_failed(&b->pb))
			return b->err = -ENOMEM;
	} else {
		json_t *j = span_json(s);
		size_t len = j ? json_dumpb(j, NULL, 0, JSON_COMPACT) + 1 : 0;

		if (!j || len == 1) {
			json_decref(j);
			return b->err = -ENOMEM;
		}
		if (b->nspans && b->overhead + b->jbytes + len > b->max_bytes &&
		    rn_otlp_batch_flush(b)) {
			json_decref(j);
			return b->err;
		}
		if (json_array_append_new(b->jspans, j))
			return b->err = -ENOMEM;
		b->jbytes += len;
	}
	b->nspans++;
	return 0;
}

static int append_body(void *ctx, const char *body, size_t len, size_t nspans)
{
	(void)nspans;
	return rn_buf_add(ctx, body, len);
}

int rn_otlp_encode_request(enum rn_otlp_protocol protocol, const struct rn_otlp_resource *res,
			   const struct rn_otlp_span *spans, size_t n, struct rn_buf *out)
{
	struct rn_otlp_batch b;
	size_t i;
	int rc = rn_otlp_batch_init(&b, protocol, res, SIZE_MAX, append_body, out);

	for (i = 0; !rc && i < n; i++)
		rc = rn_otlp_batch_add(&b, &spans[i]);
	if (!rc && n) {
		rc = rn_otlp_batch_flush(&b);
	} else if (!rc && protocol == RN_OTLP_HTTP_PROTOBUF) {
		rn_otlp_pb_request(out, res, NULL, 0); /* an empty request is still a request */
	} else if (!rc) {
		size_t len;
		char *body = request_json(res, b.jspans, &len);

		rc = body ? rn_buf_add(out, body, len) : -ENOMEM;
		free(body);
	}
	rn_otlp_batch_release(&b);
	if (!rc && rn_buf_failed(out))
		rc = -ENOMEM;
	return rc;
}
