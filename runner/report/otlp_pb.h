/*
 * otlp_pb.h - the OTLP trace data model and its protobuf wire encoding.
 *
 * A small hand-written protobuf encoder for exactly the messages an OTLP trace export needs,
 * written from the published opentelemetry-proto field numbers (OTLP 1.x;
 * opentelemetry/proto/{common,resource,trace}/v1 and
 * collector/trace/v1/trace_service.proto):
 *
 *   ExportTraceServiceRequest { 1: repeated ResourceSpans resource_spans }
 *   ResourceSpans        { 1: Resource resource, 2: repeated ScopeSpans scope_spans,
 *                          3: string schema_url }
 *   ScopeSpans           { 1: InstrumentationScope scope, 2: repeated Span spans,
 *                          3: string schema_url }
 *   InstrumentationScope { 1: string name, 2: string version, 3: repeated KeyValue attributes }
 *   Resource             { 1: repeated KeyValue attributes }
 *   Span   { 1: bytes trace_id (16), 2: bytes span_id (8), 3: string trace_state,
 *            4: bytes parent_span_id, 5: string name, 6: SpanKind kind,
 *            7: fixed64 start_time_unix_nano, 8: fixed64 end_time_unix_nano,
 *            9: repeated KeyValue attributes, 11: repeated Event events,
 *            13: repeated Link links, 15: Status status, 16: fixed32 flags }
 *   Span.Event { 1: fixed64 time_unix_nano, 2: string name, 3: repeated KeyValue attributes }
 *   Span.Link  { 1: bytes trace_id, 2: bytes span_id, 3: string trace_state,
 *                4: repeated KeyValue attributes, 6: fixed32 flags }
 *   Status     { 2: string message, 3: StatusCode code }
 *   KeyValue   { 1: string key, 2: AnyValue value }
 *   AnyValue   { oneof: 1 string, 2 bool, 3 int64, 4 double, 5 ArrayValue, ... }
 *   ArrayValue { 1: repeated AnyValue values }
 *   ExportTraceServiceResponse { 1: ExportTracePartialSuccess partial_success }
 *   ExportTracePartialSuccess  { 1: int64 rejected_spans, 2: string error_message }
 *   google.rpc.Status          { 1: int32 code, 2: string message } (error responses)
 *
 * Fields holding their proto3 default (0, "", empty) are not written, as protobuf encoders do.
 * Lengths of nested messages are minimal varints (the body is shifted once it is known).
 *
 * The model structures below borrow every string and array they point to: they describe one
 * span for the duration of an encode call and own nothing. Encoders append to a struct rn_buf
 * and never fail by themselves; a failed append leaves the buffer in its sticky failed state
 * (buf.h), which the caller checks once.
 */
#ifndef RN_OTLP_PB_H
#define RN_OTLP_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Protobuf wire types (enum rn_pb_wire), Protocol Buffers encoding guide, "Message Structure". */
enum rn_pb_wire {
	RN_PB_VARINT = 0, /* int32, int64, uint32, uint64, bool, enum */
	RN_PB_I64 = 1,    /* fixed64, double */
	RN_PB_LEN = 2,    /* string, bytes, embedded messages */
	RN_PB_I32 = 5,    /* fixed32 */
};

/* OTLP SpanKind (enum rn_otlp_span_kind), trace.proto Span.SpanKind. */
enum rn_otlp_span_kind {
	RN_OTLP_KIND_UNSPECIFIED = 0,
	RN_OTLP_KIND_INTERNAL = 1, /* every span renacer makes */
	RN_OTLP_KIND_SERVER = 2,
	RN_OTLP_KIND_CLIENT = 3,
	RN_OTLP_KIND_PRODUCER = 4,
	RN_OTLP_KIND_CONSUMER = 5,
};

/* OTLP Status.StatusCode (enum rn_otlp_status_code). */
enum rn_otlp_status_code {
	RN_OTLP_STATUS_UNSET = 0,
	RN_OTLP_STATUS_OK = 1,
	RN_OTLP_STATUS_ERROR = 2,
};

/* Types of attribute value (enum rn_otlp_value_type), a subset of AnyValue. */
enum rn_otlp_value_type {
	RN_OTLP_VAL_STRING = 0, /* u.s: string_value */
	RN_OTLP_VAL_BOOL,       /* u.b: bool_value */
	RN_OTLP_VAL_INT,        /* u.i: int_value (int64) */
	RN_OTLP_VAL_DOUBLE,     /* u.d: double_value */
	RN_OTLP_VAL_STRINGS,    /* u.strs: array_value of string_value */
	RN_OTLP_VAL_INTS,       /* u.ints: array_value of int_value */
};

/* One attribute (KeyValue). Borrows `key` and the value's strings/arrays. */
struct rn_otlp_attr {
	const char *key;              /* attribute name, non-empty */
	enum rn_otlp_value_type type; /* which member of `u` holds the value */
	union {
		const char *s; /* RN_OTLP_VAL_STRING (NULL encodes as "") */
		bool b;        /* RN_OTLP_VAL_BOOL */
		int64_t i;     /* RN_OTLP_VAL_INT */
		double d;      /* RN_OTLP_VAL_DOUBLE */
		struct {
			const char *const *v; /* strings */
			size_t n;             /* count */
		} strs;                       /* RN_OTLP_VAL_STRINGS */
		struct {
			const int64_t *v; /* integers */
			size_t n;         /* count */
		} ints;                   /* RN_OTLP_VAL_INTS */
	} u;                              /* the value */
};

/* One span event (Span.Event). Borrowed contents. */
struct rn_otlp_event {
	const char *name;                 /* event name */
	uint64_t time_unix_ns;            /* Unix epoch ns */
	const struct rn_otlp_attr *attrs; /* attributes [nattrs] */
	size_t nattrs;                    /* count */
};

/* One span link (Span.Link). Borrowed contents. */
struct rn_otlp_link {
	uint8_t trace_id[16];             /* linked trace */
	uint8_t span_id[8];               /* linked span */
	const char *trace_state;          /* W3C tracestate of the link, or NULL */
	const struct rn_otlp_attr *attrs; /* attributes [nattrs] */
	size_t nattrs;                    /* count */
	uint32_t flags;                   /* trace flags in bits 0-7, 0 = none */
};

/* One span (trace.proto Span). Borrowed contents. */
struct rn_otlp_span {
	uint8_t trace_id[16];               /* trace, not all zero */
	uint8_t span_id[8];                 /* this span, not all zero */
	uint8_t parent_span_id[8];          /* parent, meaningful when has_parent */
	bool has_parent;                    /* false for a root span */
	const char *trace_state;            /* W3C tracestate, or NULL */
	const char *name;                   /* span name */
	enum rn_otlp_span_kind kind;        /* RN_OTLP_KIND_INTERNAL for renacer's spans */
	uint64_t start_unix_ns;             /* Unix epoch ns */
	uint64_t end_unix_ns;               /* Unix epoch ns, >= start */
	const struct rn_otlp_attr *attrs;   /* attributes [nattrs] */
	size_t nattrs;                      /* count */
	const struct rn_otlp_event *events; /* events [nevents] */
	size_t nevents;                     /* count */
	const struct rn_otlp_link *links;   /* links [nlinks] */
	size_t nlinks;                      /* count */
	enum rn_otlp_status_code status;    /* UNSET unless something went wrong */
	const char *status_message;         /* with RN_OTLP_STATUS_ERROR, or NULL */
	uint32_t flags;                     /* SpanFlags: trace flags in bits 0-7, bit 8 "has
					    * is_remote", bit 9 "parent is remote"; 0 = none */
};

/* The resource and instrumentation scope shared by all spans of an export. Borrowed. */
struct rn_otlp_resource {
	const struct rn_otlp_attr *attrs; /* resource attributes [nattrs] */
	size_t nattrs;                    /* count */
	const char *scope_name;           /* InstrumentationScope.name ("renacer") */
	const char *scope_version;        /* InstrumentationScope.version, or NULL */
};

/* Bits of Span.flags beyond the W3C trace flags (trace.proto SpanFlags). */
#define RN_OTLP_SPAN_FLAGS_HAS_IS_REMOTE 0x100u
#define RN_OTLP_SPAN_FLAGS_IS_REMOTE 0x200u

#endif
