/*
 * otlp_encode.h - OTLP request encoding and batching: spans in the trace data model of
 * otlp_pb.h become ExportTraceServiceRequest bodies in protobuf (otlp_pb.c) or in the OTLP/JSON
 * encoding (OTLP 1.x, Specification: "JSON Protobuf Encoding": lowerCamelCase field names, ids
 * as lowercase hex, 64-bit integers as decimal strings, enums as integers), split so that no
 * request exceeds a size cap.
 *
 * Part of the OTLP exporter (runner/report/otlp.h is its public header and includes this one). Not
 * thread safe.
 */
#ifndef RN_OTLP_ENCODE_H
#define RN_OTLP_ENCODE_H

#include <jansson.h>
#include <stddef.h>

#include "buf.h"
#include "otlp_config.h"
#include "otlp_pb.h"

/*
 * Spans are encoded as they are produced and handed to `flush` when a request is full, so the
 * memory of an export is bounded by one request whatever the number of spans. Fields are
 * private to otlp_encode.c; callers only init, add, flush and release.
 */
struct rn_otlp_batch {
	enum rn_otlp_protocol proto;        /* protobuf or JSON */
	const struct rn_otlp_resource *res; /* resource and scope of every request */
	size_t max_bytes;                   /* request size cap, bytes */
	size_t overhead;                    /* bytes of a request without spans */
	struct rn_buf pb;                   /* protobuf: encoded ScopeSpans.spans fields */
	struct rn_buf tmp;                  /* protobuf: the span being added */
	json_t *jspans;                     /* JSON: the spans of the request */
	size_t jbytes;                      /* JSON: their encoded size, commas included */
	size_t nspans;                      /* spans waiting */
	size_t sent;                        /* spans handed to `flush` successfully */
	int (*flush)(void *ctx, const char *body, size_t len, size_t nspans); /* sink */
	void *ctx;                                                            /* for flush */
	int err; /* sticky first error, negative errno */
};

#endif
