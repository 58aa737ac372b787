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

/*
 * Start a batch of requests in `proto` (RN_OTLP_HTTP_PROTOBUF or RN_OTLP_HTTP_JSON, else
 * -EINVAL) for resource `res` (borrowed until release). Whenever the next span would take a
 * request over `max_bytes` (uncompressed, bytes; 0 = RN_OTLP_DEFAULT_MAX_REQUEST_BYTES), the
 * spans so far are encoded as one whole ExportTraceServiceRequest and passed to
 * `flush(ctx, body, len, nspans)` (body borrowed for the call), which returns 0 or a negative
 * errno. 0, -EINVAL or -ENOMEM; on failure nothing is left to release.
 */
int rn_otlp_batch_init(struct rn_otlp_batch *b, enum rn_otlp_protocol proto,
		       const struct rn_otlp_resource *res, size_t max_bytes,
		       int (*flush)(void *, const char *, size_t, size_t), void *ctx);
/* Encode span `s` (borrowed for the call) into the batch, flushing first when it would not
 * fit. 0, or the sticky first error (-ENOMEM, or what `flush` returned); after an error every
 * later add and flush returns it. */
int rn_otlp_batch_add(struct rn_otlp_batch *b, const struct rn_otlp_span *s);
/* Hand the waiting spans, if any, to `flush` as one request. 0 or the sticky first error. */
int rn_otlp_batch_flush(struct rn_otlp_batch *b);
/* Free what the batch holds; waiting spans are dropped (flush first to keep them). */
void rn_otlp_batch_release(struct rn_otlp_batch *b);

/*
 * Encode one ExportTraceServiceRequest holding `spans` with resource `res` in `protocol`
 * (protobuf or OTLP/JSON; grpc gives -EINVAL) into `out` (appended). The building block of
 * the two functions above, exposed for tests. 0, -EINVAL or -ENOMEM.
 */
int rn_otlp_encode_request(enum rn_otlp_protocol protocol, const struct rn_otlp_resource *res,
			   const struct rn_otlp_span *spans, size_t n, struct rn_buf *out);

#endif
