/*
 * otlp_decode.c - ExportTraceServiceRequest bodies (protobuf and OTLP/JSON) into spans.
 *
 * The protobuf reader is driven by one schema table: for each message it reads, the fields it
 * keeps with their wire type and what they hold (the field numbers runner/report/otlp_pb.h
 * writes, OTLP 1.x). A field of a known number with another wire type is an error; a field the
 * table does not list is skipped by its wire type, as every protobuf reader does. Values are
 * handed to one visitor that builds the spans, so the walk itself knows nothing of OTLP.
 */
#include "app.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "utf8.h"
#include "xalloc.h"

/* Messages read (enum msg). */
enum msg {
	M_REQUEST,        /* ExportTraceServiceRequest */
	M_RESOURCE_SPANS, /* ResourceSpans */
	M_RESOURCE,       /* Resource */
	M_SCOPE_SPANS,    /* ScopeSpans */
	M_SPAN,           /* Span */
	M_STATUS,         /* Status */
	M_KEYVALUE,       /* KeyValue */
	M_ANYVALUE,       /* AnyValue */
	M_ARRAY,          /* ArrayValue */
	M_KVLIST,         /* KeyValueList */
	M_COUNT
};

/* What a field holds (enum kind): its wire type follows. */
enum kind {
	K_MSG,     /* LEN: a nested message of type `sub` */
	K_BYTES,   /* LEN: bytes or string */
	K_VARINT,  /* VARINT */
	K_FIXED64, /* I64: fixed64 or double */
};

/* What the visitor is told a value is (enum slot). */
enum slot {
	S_NONE,
	S_RESOURCE_SPANS, /* a ResourceSpans begins / ends */
	S_RESOURCE_ATTR,  /* a Resource attribute (KeyValue) begins / ends */
	S_SPAN,           /* a Span begins / ends */
	S_TRACE_ID,
	S_SPAN_ID,
	S_PARENT_ID,
	S_NAME,
	S_START,
	S_END,
	S_SPAN_ATTR,   /* a Span attribute (KeyValue) begins / ends */
	S_STATUS_CODE, /* Status.code */
	S_KEY,         /* KeyValue.key */
	S_VALUE,       /* AnyValue begins / ends */
	S_STRING,      /* AnyValue.string_value */
	S_BOOL,
	S_INT,
	S_DOUBLE,
	S_ARRAY, /* ArrayValue begins / ends */
	S_KVLIST,
	S_BYTESVAL,
};

struct field {
	uint32_t num;   /* field number */
	enum kind kind; /* wire kind */
	enum msg sub;   /* K_MSG: the nested message */
	enum slot slot; /* what the visitor is told */
};

/* The schema: opentelemetry-proto collector/trace/v1, trace/v1, resource/v1, common/v1. */
static const struct field request_fields[] = { { 1, K_MSG, M_RESOURCE_SPANS, S_RESOURCE_SPANS },
					       { 0, 0, 0, 0 } };
static const struct field resource_spans_fields[] = { { 1, K_MSG, M_RESOURCE, S_NONE },
						      { 2, K_MSG, M_SCOPE_SPANS, S_NONE },
						      { 0, 0, 0, 0 } };
static const struct field resource_fields[] = { { 1, K_MSG, M_KEYVALUE, S_RESOURCE_ATTR },
						{ 0, 0, 0, 0 } };
static const struct field scope_spans_fields[] = { { 2, K_MSG, M_SPAN, S_SPAN }, { 0, 0, 0, 0 } };
static const struct field span_fields[] = { { 1, K_BYTES, 0, S_TRACE_ID },
					    { 2, K_BYTES, 0, S_SPAN_ID },
					    { 4, K_BYTES, 0, S_PARENT_ID },
					    { 5, K_BYTES, 0, S_NAME },
					    { 7, K_FIXED64, 0, S_START },
					    { 8, K_FIXED64, 0, S_END },
					    { 9, K_MSG, M_KEYVALUE, S_SPAN_ATTR },
					    { 15, K_MSG, M_STATUS, S_NONE },
					    { 0, 0, 0, 0 } };
static const struct field status_fields[] = { { 3, K_VARINT, 0, S_STATUS_CODE }, { 0, 0, 0, 0 } };
static const struct field keyvalue_fields[] = { { 1, K_BYTES, 0, S_KEY },
						{ 2, K_MSG, M_ANYVALUE, S_VALUE },
						{ 0, 0, 0, 0 } };
static const struct field anyvalue_fields[] = {
	{ 1, K_BYTES, 0, S_STRING },    { 2, K_VARINT, 0, S_BOOL },
	{ 3, K_VARINT, 0, S_INT },      { 4, K_FIXED64, 0, S_DOUBLE },
	{ 5, K_MSG, M_ARRAY, S_ARRAY }, { 6, K_MSG, M_KVLIST, S_KVLIST },
	{ 7, K_BYTES, 0, S_BYTESVAL },  { 0, 0, 0, 0 }
};
static const struct field array_fields[] = { { 1, K_MSG, M_ANYVALUE, S_VALUE }, { 0, 0, 0, 0 } };
static const struct field kvlist_fields[] = { { 1, K_MSG, M_KEYVALUE, S_NONE }, { 0, 0, 0, 0 } };

static const struct field *const schema[M_COUNT] = {
	[M_REQUEST] = request_fields,   [M_RESOURCE_SPANS] = resource_spans_fields,
	[M_RESOURCE] = resource_fields, [M_SCOPE_SPANS] = scope_spans_fields,
	[M_SPAN] = span_fields,         [M_STATUS] = status_fields,
	[M_KEYVALUE] = keyvalue_fields, [M_ANYVALUE] = anyvalue_fields,
	[M_ARRAY] = array_fields,       [M_KVLIST] = kvlist_fields,
};

#define MAX_DEPTH 32
#define MAX_NAME 1024

/* ---- building spans from the visitor's calls ---- */

/* A JSON value under construction: the stack of open AnyValue containers. */
struct builder {
	struct rn_app_otlp_span *spans;
	size_t n, cap;
	int64_t res_pid;          /* process.pid of the current ResourceSpans */
	size_t res_first;         /* first span of the current ResourceSpans */
	bool in_span;             /* inside a Span */
	json_t *span_attrs;       /* attributes of the current span (object) */
	json_t *stack[MAX_DEPTH]; /* open containers: objects (KeyValue lists) or arrays */
	char *keys[MAX_DEPTH];    /* the key each open KeyValue will be stored under */
	int depth;                /* used entries of stack */
	json_t *value;            /* the last complete AnyValue */
	int err;                  /* sticky error */
};

static void set_id(uint8_t *dst, size_t size, const void *src, size_t len)
{
	memset(dst, 0, size);
	if (len == size)
		memcpy(dst, src, size);
}

/* A NUL-terminated copy of at most MAX_NAME bytes, repaired to UTF-8 (names, keys and
 * values travel on to JSON and OTLP, which hold text). */
static char *dup_text(const void *p, size_t len)
{
	char *s, *fixed;

	if (len > MAX_NAME)
		len = MAX_NAME;
	s = rn_xmalloc(len + 1);
	memcpy(s, p, len);
	s[len] = 0;
	if (rn_utf8_valid(s))
		return s;
	fixed = rn_utf8_fix(s);
	free(s);
	return fixed;
}

static struct rn_app_otlp_span *cur(struct builder *b)
{
	return &b->spans[b->n - 1];
}

/* The complete AnyValue `v` (stolen) becomes b->value; S_VALUE places it. */
static void store(struct builder *b, json_t *v)
{
	json_decref(b->value);
	b->value = v;
}

static void push(struct builder *b, json_t *container)
{
	if (b->depth >= MAX_DEPTH) {
		json_decref(container);
		b->err = -EBADMSG;
		return;
	}
	b->keys[b->depth] = NULL;
	b->stack[b->depth++] = container;
}

static json_t *pop(struct builder *b)
{
	json_t *c = b->stack[--b->depth];

	free(b->keys[b->depth]);
	b->keys[b->depth] = NULL;
	return c;
}

/* A KeyValue ended with key `key` and value b->value: put it where it belongs. */
static void keyvalue_done(struct builder *b, const char *key, bool span_level, bool resource)
{
	json_t *v = b->value;

	b->value = NULL;
	if (!v)
		v = json_null();
	if (resource) {
		if (!strcmp(key, "process.pid") && json_is_integer(v))
			b->res_pid = json_integer_value(v);
		json_decref(v);
		return;
	}
	if (span_level) {
		if (!strcmp(key, "thread.id") && json_is_integer(v))
			cur(b)->tid = json_integer_value(v);
		json_object_set_new(b->span_attrs, key, v);
		return;
	}
	/* inside a kvlist value */
	if (b->depth && json_is_object(b->stack[b->depth - 1]))
		json_object_set_new(b->stack[b->depth - 1], key, v);
	else
		json_decref(v);
}

static void span_begin(struct builder *b)
{
	if (b->n >= RN_APP_MAX_SPANS) {
		b->err = -E2BIG;
		return;
	}
	b->spans = rn_xgrow(b->spans, &b->cap, b->n + 1, sizeof(*b->spans));
	memset(&b->spans[b->n++], 0, sizeof(*b->spans));
	cur(b)->pid = b->res_pid;
	b->in_span = true;
	b->span_attrs = json_object();
}

static void span_end(struct builder *b)
{
	struct rn_app_otlp_span *s = cur(b);

	if (!s->name)
		s->name = rn_xstrdup("unnamed");
	/* every string in it is UTF-8 (dup_text): dumping fails only without memory */
	if (json_object_size(b->span_attrs)) {
		s->attrs = json_dumps(b->span_attrs, JSON_COMPACT | JSON_ENSURE_ASCII);
		if (!s->attrs)
			rn_die("out of memory encoding span attributes");
	}
	json_decref(b->span_attrs);
	b->span_attrs = NULL;
	b->in_span = false;
}

/* ---- the protobuf walk ---- */

struct cursor {
	const uint8_t *p, *end;
};

static int read_varint(struct cursor *c, uint64_t *v)
{
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end)
			return -EBADMSG;
		x |= (uint64_t)(*c->p & 0x7f) << shift;
		if (!(*c->p++ & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EBADMSG;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Skip a field of wire type `wire` the schema does not list. */
static int skip(struct cursor *c, uint32_t wire)
{
	uint64_t v;

	switch (wire) {
	case 0:
		return read_varint(c, &v);
	case 1:
		if (c->end - c->p < 8)
			return -EBADMSG;
		c->p += 8;
		return 0;
	case 2:
		if (read_varint(c, &v) || v > (uint64_t)(c->end - c->p))
			return -EBADMSG;
		c->p += v;
		return 0;
	case 5:
		if (c->end - c->p < 4)
			return -EBADMSG;
		c->p += 4;
		return 0;
	default: /* groups (3, 4) are not in OTLP; anything else is not protobuf */
		return -EBADMSG;
	}
}

static int walk(struct builder *b, enum msg m, const uint8_t *p, size_t len, int depth);

/* The payload of field f at c: a length-delimited message or bytes (*data, *dlen) or a number
 * (*v). 0 or -EBADMSG. */
static int read_field(struct cursor *c, const struct field *f, uint64_t *v, const uint8_t **data,
		      size_t *dlen)
{
	if (f->kind == K_MSG || f->kind == K_BYTES) {
		if (read_varint(c, v) || *v > (uint64_t)(c->end - c->p))
			return -EBADMSG;
		*data = c->p;
		*dlen = (size_t)*v;
		c->p += *dlen;
	} else if (f->kind == K_VARINT) {
		if (read_varint(c, v))
			return -EBADMSG;
	} else {
		if (c->end - c->p < 8)
			return -EBADMSG;
		*v = le64(c->p);
		c->p += 8;
	}
	return 0;
}

/* A ResourceSpans message: its spans take the resource's process.pid. */
static int visit_resource_spans(struct builder *b, const struct field *f, const uint8_t *data,
				size_t dlen, int depth)
{
	int rc;

	b->res_pid = 0;
	b->res_first = b->n;
	rc = walk(b, f->sub, data, dlen, depth + 1);
	/* process.pid may come after the spans in the message: apply it to all of them */
	for (size_t i = b->res_first; !rc && i < b->n; i++)
		b->spans[i].pid = b->res_pid;
	return rc;
}

/* A KeyValue: an attribute of the resource or the span (`attribute`), else an entry of a
 * kvlist value, whose key and value go into the object. */
static int visit_keyvalue(struct builder *b, const struct field *f, const uint8_t *data,
			  size_t dlen, int depth, bool attribute)
{
	bool res = f->slot == S_RESOURCE_ATTR;
	char *key;
	int rc;

	push(b, json_object()); /* collects S_KEY into keys[] */
	if (b->err)
		return b->err;
	rc = walk(b, f->sub, data, dlen, depth + 1);
	key = b->keys[b->depth - 1];
	b->keys[b->depth - 1] = NULL;
	json_decref(pop(b));
	if (!attribute) {
		if (!rc && key)
			keyvalue_done(b, key, false, false);
	} else if (!rc && key && *key) {
		keyvalue_done(b, key, !res, res);
	} else {
		json_decref(b->value);
		b->value = NULL;
	}
	free(key);
	return rc;
}

/* An AnyValue: the value it holds (or null) becomes b->value, or goes into the array being
 * filled. */
static int visit_value(struct builder *b, const struct field *f, const uint8_t *data, size_t dlen,
		       int depth)
{
	int rc;

	json_decref(b->value);
	b->value = NULL;
	rc = walk(b, f->sub, data, dlen, depth + 1);
	if (!b->value)
		b->value = json_null();
	if (b->depth && json_is_array(b->stack[b->depth - 1])) {
		json_array_append_new(b->stack[b->depth - 1], b->value);
		b->value = NULL;
	}
	return rc;
}

/* An ArrayValue or a KeyValueList: the array or object becomes b->value. */
static int visit_container(struct builder *b, const struct field *f, const uint8_t *data,
			   size_t dlen, int depth)
{
	json_t *done;
	int rc;

	push(b, f->slot == S_ARRAY ? json_array() : json_object());
	if (b->err)
		return b->err;
	rc = walk(b, f->sub, data, dlen, depth + 1);
	done = pop(b);
	json_decref(b->value);
	b->value = done;
	return rc;
}

/* A scalar of an AnyValue (string, bytes, bool, int or double), stored as JSON. */
static void store_scalar(struct builder *b, enum slot slot, uint64_t v, const uint8_t *data,
			 size_t dlen)
{
	if (slot == S_STRING || slot == S_BYTESVAL) {
		char *s = dup_text(data, dlen);
		json_t *j = json_stringn_nocheck(s, strlen(s));

		free(s);
		/* not UTF-8: kept as the JSON string jansson can hold, else dropped */
		store(b, j ? j : json_null());
	} else if (slot == S_BOOL) {
		store(b, json_boolean(v != 0));
	} else if (slot == S_INT) {
		store(b, json_integer((json_int_t)v));
	} else {
		double d;

		memcpy(&d, &v, sizeof(d));
		store(b, d == d && d - d == 0 ? json_real(d) : json_null());
	}
}

/* One field of message `m` that the schema lists. */
static int visit(struct builder *b, enum msg m, const struct field *f, struct cursor *c, int depth)
{
	uint64_t v = 0;
	const uint8_t *data = NULL;
	size_t dlen = 0;
	int rc;

	if (read_field(c, f, &v, &data, &dlen))
		return -EBADMSG;
	switch (f->slot) {
	case S_RESOURCE_SPANS:
		return visit_resource_spans(b, f, data, dlen, depth);
	case S_RESOURCE_ATTR:
	case S_SPAN_ATTR:
		return visit_keyvalue(b, f, data, dlen, depth, true);
	case S_SPAN:
		span_begin(b);
		if (b->err)
			return b->err;
		rc = walk(b, f->sub, data, dlen, depth + 1);
		span_end(b);
		return rc;
	case S_TRACE_ID:
		set_id(cur(b)->trace_id, 16, data, dlen);
		return 0;
	case S_SPAN_ID:
		set_id(cur(b)->span_id, 8, data, dlen);
		return 0;
	case S_PARENT_ID:
		set_id(cur(b)->parent_span_id, 8, data, dlen);
		return 0;
	case S_NAME:
		free(cur(b)->name);
		cur(b)->name = dup_text(data, dlen);
		return 0;
	case S_START:
		cur(b)->start_unix_ns = v;
		return 0;
	case S_END:
		cur(b)->end_unix_ns = v;
		return 0;
	case S_STATUS_CODE:
		cur(b)->error = v == 2;
		return 0;
	case S_KEY:
		if (b->depth) {
			free(b->keys[b->depth - 1]);
			b->keys[b->depth - 1] = dup_text(data, dlen);
		}
		return 0;
	case S_VALUE:
		return visit_value(b, f, data, dlen, depth);
	case S_STRING:
	case S_BYTESVAL:
	case S_BOOL:
	case S_INT:
	case S_DOUBLE:
		store_scalar(b, f->slot, v, data, dlen);
		return 0;
	case S_ARRAY:
	case S_KVLIST:
		return visit_container(b, f, data, dlen, depth);
	case S_NONE:
		if (m == M_KVLIST)
			return visit_keyvalue(b, f, data, dlen, depth, false);
		return f->kind == K_MSG ? walk(b, f->sub, data, dlen, depth + 1) : 0;
	}
	return 0;
}

static int walk(struct builder *b, enum msg m, const uint8_t *p, size_t len, int depth)
{
	struct cursor c = { p, p + len };
	static const uint32_t wire_of[] = {
		[K_MSG] = 2, [K_BYTES] = 2, [K_VARINT] = 0, [K_FIXED64] = 1
	};

	if (depth > MAX_DEPTH)
		return -EBADMSG;
	while (c.p < c.end) {
		const struct field *f;
		uint64_t key;
		uint32_t num, wire;
		int rc;

		if (read_varint(&c, &key) || key >> 32)
			return -EBADMSG;
		num = (uint32_t)(key >> 3);
		wire = (uint32_t)(key & 7);
		if (!num)
			return -EBADMSG;
		for (f = schema[m]; f->num && f->num != num; f++)
			;
		if (!f->num) {
			rc = skip(&c, wire);
		} else if (wire != wire_of[f->kind]) {
			rc = -EBADMSG;
		} else {
			rc = visit(b, m, f, &c, depth);
		}
		if (!rc)
			rc = b->err;
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- OTLP/JSON ---- */

static int hex_id(json_t *j, uint8_t *dst, size_t size)
{
	const char *s = json_string_value(j);
	size_t i;

	memset(dst, 0, size);
	if (!s || !*s)
		return 0;
	if (strlen(s) != size * 2)
		return -EBADMSG;
	for (i = 0; i < size; i++) {
		unsigned hi, lo;
		char c1 = s[2 * i], c2 = s[2 * i + 1];

		hi = c1 >= '0' && c1 <= '9'    ? (unsigned)(c1 - '0') :
			c1 >= 'a' && c1 <= 'f' ? (unsigned)(c1 - 'a' + 10) :
			c1 >= 'A' && c1 <= 'F' ? (unsigned)(c1 - 'A' + 10) :
						 16;
		lo = c2 >= '0' && c2 <= '9'    ? (unsigned)(c2 - '0') :
			c2 >= 'a' && c2 <= 'f' ? (unsigned)(c2 - 'a' + 10) :
			c2 >= 'A' && c2 <= 'F' ? (unsigned)(c2 - 'A' + 10) :
						 16;
		if (hi > 15 || lo > 15)
			return -EBADMSG;
		dst[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* A 64-bit integer written as a decimal string or a JSON number. */
static int json_u64(json_t *j, uint64_t *v)
{
	const char *s;
	char *end;

	*v = 0;
	if (!j)
		return 0;
	if (json_is_integer(j)) {
		*v = (uint64_t)json_integer_value(j);
		return 0;
	}
	s = json_string_value(j);
	if (!s)
		return -EBADMSG;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end ? -EBADMSG : 0;
}

static json_t *any_value(json_t *v, int depth);

static json_t *kv_object(json_t *list, int depth)
{
	json_t *o = json_object(), *kv;
	size_t i;

	json_array_foreach(list, i, kv)
	{
		const char *k = json_string_value(json_object_get(kv, "key"));

		if (k && *k)
			json_object_set_new(o, k,
					    any_value(json_object_get(kv, "value"), depth + 1));
	}
	return o;
}

/* AnyValue in OTLP/JSON into a plain JSON value. */
static json_t *any_value(json_t *v, int depth)
{
	json_t *x;
	uint64_t u;

	if (!json_is_object(v) || depth > MAX_DEPTH)
		return json_null();
	if ((x = json_object_get(v, "stringValue")) && json_is_string(x))
		return json_copy(x);
	if ((x = json_object_get(v, "boolValue")) && json_is_boolean(x))
		return json_copy(x);
	if ((x = json_object_get(v, "intValue")))
		return json_u64(x, &u) ? json_null() : json_integer((json_int_t)u);
	if ((x = json_object_get(v, "doubleValue")) && json_is_number(x))
		return json_real(json_number_value(x));
	if ((x = json_object_get(v, "bytesValue")) && json_is_string(x))
		return json_copy(x);
	if ((x = json_object_get(v, "arrayValue"))) {
		json_t *a = json_array(), *e;
		size_t i;

		json_array_foreach(json_object_get(x, "values"), i, e)
			json_array_append_new(a, any_value(e, depth + 1));
		return a;
	}
	if ((x = json_object_get(v, "kvlistValue")))
		return kv_object(json_object_get(x, "values"), depth + 1);
	return json_null();
}

static int decode_json(const void *body, size_t len, struct builder *b)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr), *rs, *ss, *sp;
	size_t i, j, k;
	int rc = 0;

	if (!root || !json_is_object(root)) {
		json_decref(root);
		return -EBADMSG;
	}
	json_array_foreach(json_object_get(root, "resourceSpans"), i, rs)
	{
		json_t *attrs =
			kv_object(json_object_get(json_object_get(rs, "resource"), "attributes"),
				  0);
		json_t *pid = json_object_get(attrs, "process.pid");

		b->res_pid = json_is_integer(pid) ? json_integer_value(pid) : 0;
		json_decref(attrs);
		json_array_foreach(json_object_get(rs, "scopeSpans"), j, ss)
		{
			json_array_foreach(json_object_get(ss, "spans"), k, sp)
			{
				struct rn_app_otlp_span *s;
				const char *name = json_string_value(json_object_get(sp, "name"));
				json_t *a, *tid, *st;

				span_begin(b);
				if (b->err) {
					rc = b->err;
					goto out;
				}
				s = cur(b);
				if (name)
					s->name = dup_text(name, strlen(name));
				if (hex_id(json_object_get(sp, "traceId"), s->trace_id, 16) ||
				    hex_id(json_object_get(sp, "spanId"), s->span_id, 8) ||
				    hex_id(json_object_get(sp, "parentSpanId"), s->parent_span_id,
					   8) ||
				    json_u64(json_object_get(sp, "startTimeUnixNano"),
					     &s->start_unix_ns) ||
				    json_u64(json_object_get(sp, "endTimeUnixNano"),
					     &s->end_unix_ns)) {
					span_end(b);
					rc = -EBADMSG;
					goto out;
				}
				a = kv_object(json_object_get(sp, "attributes"), 0);
				json_object_update(b->span_attrs, a);
				json_decref(a);
				tid = json_object_get(b->span_attrs, "thread.id");
				if (json_is_integer(tid))
					s->tid = json_integer_value(tid);
				st = json_object_get(json_object_get(sp, "status"), "code");
				s->error = json_is_integer(st) && json_integer_value(st) == 2;
				span_end(b);
			}
		}
	}
out:
	json_decref(root);
	return rc;
}

void rn_app_otlp_spans_free(struct rn_app_otlp_span *spans, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(spans[i].name);
		free(spans[i].attrs);
	}
	free(spans);
}

int rn_app_otlp_decode(const void *body, size_t len, bool json, struct rn_app_otlp_span **out,
		       size_t *n)
{
	struct builder b;
	int rc;

	memset(&b, 0, sizeof(b));
	*out = NULL;
	*n = 0;
	rc = json ? decode_json(body, len, &b) : walk(&b, M_REQUEST, body, len, 0);
	while (b.depth)
		json_decref(pop(&b));
	json_decref(b.value);
	if (b.in_span) {
		json_decref(b.span_attrs);
		if (!cur(&b)->name)
			cur(&b)->name = rn_xstrdup("unnamed");
	}
	if (rc) {
		rn_app_otlp_spans_free(b.spans, b.n);
		return rc;
	}
	*out = b.spans;
	*n = b.n;
	return 0;
}
