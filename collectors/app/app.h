/*
 * app.h - the "app" collector: the program's own spans.
 *
 * During a run it listens for OTLP/HTTP (OTLP 1.x, Specification "OTLP/HTTP": POST
 * /v1/traces, bodies in binary protobuf or in the JSON protobuf encoding) on a private
 * loopback port and points the target's standard OpenTelemetry variables at it
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_TRACES_EXPORTER=otlp,
 * OTEL_EXPORTER_OTLP_PROTOCOL unless the target's environment chose one), so an unmodified
 * OpenTelemetry-instrumented program exports its spans to renacer. It also reads the records
 * of renacer_span.h (push/pop over a pipe whose write end is RENACER_SPAN_FD). Both become
 * struct rn_app_span ("app:<name>") in the trace at finish().
 *
 * A receiver thread serves the socket and the pipe while the run loop waits for the tree; it
 * touches only the collector's own list, which finish() merges into the trace after joining
 * it. An SDK's export is synchronous (it waits for the response), so every span a program
 * exported before it exited is in the trace.
 */
#ifndef RN_APP_H
#define RN_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"

/* The collector's ops table (registry: RN_TARGET_COLLECTORS). */
extern const struct rn_collector_ops rn_app_collector;

/* Largest OTLP request body accepted, bytes (a larger one gets 413). */
#define RN_APP_MAX_BODY (16u << 20)
/* Most spans kept from one run (later ones are counted as a gap). */
#define RN_APP_MAX_SPANS 1000000u
/* Most renacer_span.h spans open at once in one run (pushed, not yet popped); a push beyond
 * is refused and counted as a gap, and its pop closes nothing. */
#define RN_APP_MAX_OPEN 10000u

/* One span decoded from an OTLP request. Owns its strings. */
struct rn_app_otlp_span {
	char *name;                /* span name (at most 1024 bytes kept), owned */
	uint8_t trace_id[16];      /* trace id, zeros when absent */
	uint8_t span_id[8];        /* span id, zeros when absent */
	uint8_t parent_span_id[8]; /* parent span id, zeros for a root */
	uint64_t start_unix_ns;    /* start, Unix epoch ns */
	uint64_t end_unix_ns;      /* end, Unix epoch ns */
	char *attrs;               /* attributes as one JSON object text, owned, or NULL */
	int64_t pid;               /* resource attribute process.pid, 0 when absent */
	int64_t tid;               /* span attribute thread.id, 0 when absent */
	bool error;                /* Status.code is ERROR (2) */
};

/*
 * Decode one ExportTraceServiceRequest body: binary protobuf (`json` false; the field numbers
 * of opentelemetry-proto's collector/trace/v1, trace/v1, resource/v1 and common/v1, as
 * runner/report/otlp_pb.h writes them) or the OTLP/JSON encoding (`json` true: lowerCamelCase
 * names, ids in hex, 64-bit integers as strings or numbers). Unknown fields are skipped, as
 * protobuf readers do. On success *out holds *n spans (caller frees with
 * rn_app_otlp_spans_free; NULL when none). Returns 0, -EBADMSG for a body that is not such a
 * message (wrong wire types, lengths past the end, nesting deeper than 32, bad JSON), or
 * -E2BIG past RN_APP_MAX_SPANS spans; then nothing is left to free. Never reads past `len`.
 */
int rn_app_otlp_decode(const void *body, size_t len, bool json, struct rn_app_otlp_span **out,
		       size_t *n);
/* Free `n` decoded spans and the array. */
void rn_app_otlp_spans_free(struct rn_app_otlp_span *spans, size_t n);

/*
 * What the receiver does with its input, without its thread, socket or pipe (for tests and
 * fuzzing): the renacer_span.h records in `pipe_bytes` [pipe_len] (read as whole 128-byte
 * records in order, a partial one at the end ignored), then, when `body` is not NULL, the
 * OTLP request body [body_len] decoded as rn_app_otlp_decode does and its spans taken as a
 * request's are; then folded into `t` as the collector's finish() does (spans still open
 * closed at the run's end, parents resolved, times outside t's run dropped, gaps recorded).
 * Returns 0, or rn_app_otlp_decode's error for the body (the records are folded either way).
 */
int rn_app_replay(const void *pipe_bytes, size_t pipe_len, const void *body, size_t body_len,
		  bool json, struct rn_trace *t);

#endif
