/*
 * internal.h - what the modules of runner/report share and no other folder calls: the verdict
 * count of the console and GitHub reports, then, one section per module, the functions of
 * outcome.c, of the OTLP modules (otlp*.c) and of github.c that only this folder calls; the
 * types stay in each module's header (otlp.h lists the OTLP ones), which other folders may
 * include. Not thread safe.
 */
#ifndef RN_REPORT_INTERNAL_H
#define RN_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "console.h"
#include "curl_dl.h"
#include "github.h"
#include "otlp_config.h"
#include "otlp_context.h"
#include "otlp_encode.h"
#include "otlp_http.h"
#include "otlp_pb.h"
#include "otlp_redact.h"
#include "otlp_spans.h"
#include "outcome.h"
#include "report_strace.h"
#include "timing_gate.h"
#include "verdict.h"

/* Count verdicts of kind `v` over all targets `t[0..n)`. (verdict_counts.c) */
size_t rn_report_count(const struct rn_target_report *t, size_t n, enum rn_verdict v);

/* Value of a hex digit (either case), or -1. */
static inline int rn_otlp_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Optional whitespace of W3C lists and HTTP headers: space or tab. */
static inline bool rn_otlp_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Value of NAME in `envp` ("NAME=VALUE", NULL-terminated; NULL = the process environment),
 * borrowed; an empty value counts as unset (SDK Configuration: "empty value ... MUST be
 * interpreted as if the variable were unset"): NULL. (otlp_config.c) */
const char *rn_otlp_env_get(const char *const *envp, const char *name);
/* Parse a decimal unsigned integer (digits only, no sign or blanks) into *out: true, or false
 * on anything else or overflow (*out untouched). (otlp_config.c) */
bool rn_otlp_parse_u64(const char *s, uint64_t *out);

/* Fill `n` bytes from getrandom(2); if it fails, from the clock and pid with one warning.
 * (otlp_context.c) */
void rn_otlp_random_bytes(void *out, size_t n);

/* Roles of derived span ids (the first input of the derivation). */
enum rn_otlp_span_role {
	RN_OTLP_ROLE_TARGET = 1,
	RN_OTLP_ROLE_RUN,
	RN_OTLP_ROLE_PROCESS,
	RN_OTLP_ROLE_SYSCALL_AGG,
	RN_OTLP_ROLE_SYSCALL,
	RN_OTLP_ROLE_GPU,
	RN_OTLP_ROLE_VERDICT,
	RN_OTLP_ROLE_APP, /* the program's own spans (app:<name>) */
};

/* Span id of (role, a, b, c): deterministic per context, so the traceparent handed to a run
 * before it starts names the span the export writes afterwards. Never all zeros.
 * (otlp_context.c) */
void rn_otlp_derive_id(const struct rn_otlp_context *ctx, enum rn_otlp_span_role role, uint64_t a,
		       uint64_t b, uint64_t c, uint8_t out[8]);

/* Span id of measured run `run` of target `target`, or of the target's span when `run` is
 * RN_OTLP_RUN_NONE: the id rn_otlp_traceparent() hands to the run. (otlp_context.c) */
void rn_otlp_run_span_id(const struct rn_otlp_context *ctx, size_t target, size_t run,
			 uint8_t out[8]);

/* ---- outcome.c (the type is outcome.h's): the sides and verdicts every writer walks ---- */

/* Sides of the outcome: ntargets, or 2 * ntargets with bases. */
size_t rn_outcome_nsides(const struct rn_outcome *oc);

/* Side `j` (0 <= j < rn_outcome_nsides): targets[j], then bases[j - ntargets]. Borrowed. */
const struct rn_target_result *rn_outcome_side(const struct rn_outcome *oc, size_t j);

/* oc->end_unix_ns, or the CLOCK_REALTIME time now (Unix ns) when that is 0. */
uint64_t rn_outcome_end_ns(const struct rn_outcome *oc);

/* Verdicts of every report, summed. */
size_t rn_outcome_nverdicts(const struct rn_outcome *oc);

/*
 * Every verdict of the outcome in report order (reports[0].verdicts first), with its index in
 * that order (the span id of an OTLP verdict is derived from it):
 *
 *     struct rn_outcome_verdicts it = { oc };
 *     const struct rn_verdict_result *v;
 *     for (v = rn_outcome_verdict_next(&it); v; v = rn_outcome_verdict_next(&it))
 *             ... it.index - 1 is v's index ...
 */
struct rn_outcome_verdicts {
	const struct rn_outcome *oc; /* the outcome walked (set by the caller) */
	size_t report;               /* report of the next verdict (0 at the start) */
	size_t k;                    /* its verdict within that report */
	size_t index;                /* verdicts returned so far */
};

/* The next verdict (borrowed from its report), or NULL after the last. */
const struct rn_verdict_result *rn_outcome_verdict_next(struct rn_outcome_verdicts *it);

/* ---- otlp_config.c (the types are otlp_config.h's) ---- */

/* The enum value of compression `name` into *out: 0, or -EINVAL for an unknown name. */
int rn_otlp_compression_parse(const char *name, enum rn_otlp_compression *out);

/*
 * Apply the standard environment variables (OTLP Exporter Configuration; OpenTelemetry SDK
 * Configuration, "General SDK Configuration") from `envp` ("NAME=VALUE" strings,
 * NULL-terminated; NULL means the process environment):
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  full URL, used as is               } either enables
 *   OTEL_EXPORTER_OTLP_ENDPOINT         base URL, "/v1/traces" appended    } export
 *   OTEL_EXPORTER_OTLP_TRACES_HEADERS / OTEL_EXPORTER_OTLP_HEADERS
 *       "k1=v1,k2=v2", keys and values trimmed, values percent-decoded; the traces variable,
 *       when set, replaces the generic one; malformed entries are skipped with a warning that
 *       names the variable but never prints a value
 *   OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / _PROTOCOL    http/protobuf, http/json, grpc
 *   OTEL_EXPORTER_OTLP_TRACES_TIMEOUT / _TIMEOUT      ms
 *   OTEL_EXPORTER_OTLP_TRACES_COMPRESSION / _COMPRESSION  gzip, none
 *   OTEL_SERVICE_NAME                   service name (beats service.name of the next one)
 *   OTEL_RESOURCE_ATTRIBUTES            "k=v,..." percent-decoded, appended to cfg->resource
 *   OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none   set disabled_by_env
 * Before OTEL_RESOURCE_ATTRIBUTES (so it can override them) it adds the CI/VCS attributes of a
 * GitHub Actions environment: cicd.pipeline.name (GITHUB_WORKFLOW), cicd.pipeline.run.id
 * (GITHUB_RUN_ID), vcs.repository.url.full (GITHUB_SERVER_URL "/" GITHUB_REPOSITORY),
 * vcs.ref.head.revision (GITHUB_SHA), vcs.ref.head.name (GITHUB_REF_NAME).
 * Invalid values (an unparsable timeout, an unknown protocol or compression, an endpoint that
 * is not http:// or https://) are ignored with a warning, as the specification asks; "grpc" is
 * kept and refused by rn_otlp_cfg_finish() only if export ends up enabled. Returns 0.
 */
int rn_otlp_cfg_apply_env(struct rn_otlp_cfg *cfg, const char *const *envp);

/* Set resource attribute `key` (string value, copied), replacing one of the same key. 0 or
 * -EINVAL when the key is empty. */
int rn_otlp_cfg_set_resource_attr(struct rn_otlp_cfg *cfg, const char *key, const char *value);

/* Percent-decode `len` bytes of `s` into `out` (appending): "%XX" (hex, either case) becomes
 * the byte; '+' is kept as is. 0, or -EINVAL on a truncated or non-hex escape or a %00. */
int rn_otlp_percent_decode(const char *s, size_t len, struct rn_buf *out);

/* ---- otlp_context.c (the types are otlp_context.h's) ---- */

/*
 * Validate a traceparent header value (W3C Trace Context Level 1, section 3.2): version 2
 * lowercase hex, not "ff"; version 00 is exactly 55 characters; a higher version is at least
 * 55 with '-' after the flags when longer; trace-id 32 and parent-id 16 lowercase hex, neither
 * all zeros; flags 2 lowercase hex. On success fills the outputs (any may be NULL) and returns
 * true; on failure returns false and leaves them untouched.
 */
bool rn_otlp_traceparent_parse(const char *s, uint8_t trace_id[16], uint8_t span_id[8],
			       uint8_t *flags);
/* Validate a tracestate value loosely (W3C Trace Context, section 3.3): at most
 * RN_OTLP_TRACESTATE_MAX characters, at most 32 comma-separated "key=value" members of
 * printable ASCII. */
bool rn_otlp_tracestate_valid(const char *s);

/* Lowercase hex of `n` bytes into `out` (2n characters plus NUL). */
void rn_otlp_hex(const uint8_t *id, size_t n, char *out);

/* ---- otlp_encode.c (the types are otlp_encode.h's) ---- */

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

/* ---- otlp_http.c (the types are otlp_http.h's) ---- */

/*
 * Prepare an export to cfg->endpoint (borrowed, with `cfg`, until release): load libcurl,
 * build the request headers (Content-Type from cfg->protocol, Content-Encoding: gzip,
 * cfg->headers but for the reserved Content-Type, Content-Encoding, Content-Length and
 * Expect, which are dropped with a warning) and start the clock of cfg->timeout_ms. 0,
 * -ENOENT when libcurl cannot be loaded, or -ENOMEM; rn_otlp_http_release() is due either way.
 */
int rn_otlp_http_init(struct rn_otlp_http *h, const struct rn_otlp_cfg *cfg);
/*
 * The flush sink of struct rn_otlp_batch (`ctx` is the struct rn_otlp_http): POST one request
 * body of `len` bytes carrying `nspans` spans, gzip'ed when configured; retry on HTTP 429,
 * 502, 503, 504 and on connection failures (OTLP/HTTP "Retryable Response Codes"), at most 6
 * attempts, after 0.5 s doubling to 8 s (half of it random) or the Retry-After delay, never
 * past the export's deadline. A partial success is a warning. 0, or a negative errno
 * (-ECONNREFUSED, -ETIMEDOUT, -EPROTO, -ENOMEM, ...) after one rn_warn() (sets `warned`).
 */
int rn_otlp_http_post(void *ctx, const char *body, size_t len, size_t nspans);
/* Free the connection, the header list and the buffers; also after a failed init. */
void rn_otlp_http_release(struct rn_otlp_http *h);

/* ---- otlp_pb.c (the types are otlp_pb.h's) ---- */

/* Append `v` as a base-128 varint (1 to 10 bytes). */
void rn_pb_varint(struct rn_buf *b, uint64_t v);
/* Append the key of field `field` with wire type `wire`: varint(field << 3 | wire). */
void rn_pb_tag(struct rn_buf *b, uint32_t field, enum rn_pb_wire wire);
/* Append field `field` as a varint (uint64/int64/bool/enum; negative int64 as two's
 * complement, 10 bytes). Always written, even when 0. */
void rn_pb_uint_field(struct rn_buf *b, uint32_t field, uint64_t v);
/* Append field `field` as fixed64 (8 bytes little-endian). Always written. */
void rn_pb_fixed64_field(struct rn_buf *b, uint32_t field, uint64_t v);
/* Append field `field` as fixed32 (4 bytes little-endian). Always written. */
void rn_pb_fixed32_field(struct rn_buf *b, uint32_t field, uint32_t v);
/* Append field `field` as a double (IEEE 754 binary64, little-endian). Always written. */
void rn_pb_double_field(struct rn_buf *b, uint32_t field, double v);
/* Append a string field unless `s` is NULL or empty (proto3 default). */
void rn_pb_string_field(struct rn_buf *b, uint32_t field, const char *s);

/*
 * Nested messages: rn_pb_open() appends the key of length-delimited field `field` and returns
 * the offset where the body starts; the caller appends the body; rn_pb_close() inserts the
 * minimal varint length of everything after that offset. Opens nest like parentheses.
 */
size_t rn_pb_open(struct rn_buf *b, uint32_t field);
void rn_pb_close(struct rn_buf *b, size_t body_start);

/* Append KeyValue field `field` (its key and AnyValue). */
void rn_otlp_pb_attr(struct rn_buf *b, uint32_t field, const struct rn_otlp_attr *a);
/* Append Span `s` as field `field` (2 inside ScopeSpans). */
void rn_otlp_pb_span(struct rn_buf *b, uint32_t field, const struct rn_otlp_span *s);
/*
 * Append a whole ExportTraceServiceRequest: one ResourceSpans with `res`'s Resource and one
 * ScopeSpans whose spans are `spans` (`len` bytes of already-encoded ScopeSpans field 2 entries,
 * as rn_otlp_pb_span(b, 2, ...) writes them, concatenated). Lets spans be encoded once as they
 * are produced and wrapped when a batch is full.
 */
void rn_otlp_pb_request(struct rn_buf *b, const struct rn_otlp_resource *res, const void *spans,
			size_t len);

/*
 * Decode an ExportTraceServiceResponse body (OTLP 1.x, Specification: OTLP/HTTP, "Partial
 * Success"). Sets *rejected_spans (0 when absent) and appends the error_message, if any, to
 * `msg`. Returns 0, or -EBADMSG when the body is not a valid message. An empty body is a valid
 * full success.
 */
int rn_otlp_pb_parse_response(const void *data, size_t len, int64_t *rejected_spans,
			      struct rn_buf *msg);
/*
 * Decode a google.rpc.Status body (the error response of OTLP/HTTP, "Failures"). Appends the
 * message to `msg` and sets *code (0 when absent). Returns 0 or -EBADMSG.
 */
int rn_otlp_pb_parse_status(const void *data, size_t len, int32_t *code, struct rn_buf *msg);

/* ---- otlp_redact.c (the types are otlp_redact.h's) ---- */

/*
 * Redact secrets from a command line before it is exported: the value after a flag whose name
 * contains token, secret, password, passwd or key (case-insensitive; "--token X", "-password X",
 * "--api-key=X"), the value of "KEY=VALUE" words whose KEY looks like an environment variable
 * name containing those words, and the password of "scheme://user:password@host" URLs, become
 * "[REDACTED]". Returns a malloc'ed NULL-terminated copy (free with rn_otlp_argv_free).
 * Dies on out-of-memory. `argv` NULL gives NULL.
 */
char **rn_otlp_redact_argv(const char *const *argv);

/* ---- otlp_spans.c (the types are otlp_spans.h's) ---- */

/*
 * Produce every span of the check into `batch`, parents before children: the root span, then
 * per target its span, its runs, the processes of its last run with their syscall spans
 * (cfg->syscall_spans: aggregates, or spans replayed from the spool) and GPU spans, and its
 * verdicts; then the verdicts of no target under the root. Span ids come from `ctx`
 * (rn_otlp_traceparent names the same ids). Ends with rn_otlp_batch_flush(). Reads the trace
 * spools of the targets' last runs (moving their file offsets). 0, or the batch's negative
 * errno.
 */
int rn_otlp_walk(const struct rn_otlp_cfg *cfg, const struct rn_otlp_context *ctx,
		 const struct rn_outcome *oc, struct rn_otlp_batch *batch);

/*
 * Build the resource: detected facts (service.name "renacer", service.version, host.name,
 * host.arch, os.type, os.version; semconv 1.x), then cfg->resource (CI/VCS attributes, then
 * OTEL_RESOURCE_ATTRIBUTES, then the config file), then cfg->service_name, later keys
 * replacing earlier ones; invalid UTF-8 is repaired. `cfg` strings are borrowed until
 * rn_otlp_res_release(). Dies on out-of-memory.
 */
void rn_otlp_res_build(struct rn_otlp_res *r, const struct rn_otlp_cfg *cfg);
/* Free what rn_otlp_res_build() allocated. */
void rn_otlp_res_release(struct rn_otlp_res *r);

/* ---- github.c (the types are github.h's) ---- */

/*
 * The step result word for an exit code: "pass" (0 with no warning), "warn" (0 with
 * warnings), "fail" (1, a blocking assertion failed) or "error" (any other code). Static.
 */
const char *rn_github_result(int exit_code, size_t warnings);

/* The annotation limit per kind from RENACER_GITHUB_ANNOTATIONS: 0..10, default 10; an
 * invalid value prints a warning and gives the default. */
int rn_github_annotation_limit(void);

/*
 * Escaping, one tested function per syntax:
 *  - data (the message after `::`): '%' -> %25, CR -> %0D, LF -> %0A;
 *  - property (file=, title=): as data, plus ':' -> %3A and ',' -> %2C;
 *  - markdown: rn_github_escape_markdown (github.h).
 * They append to `b`; `s` may be NULL (nothing appended).
 */
void rn_github_escape_data(struct rn_buf *b, const char *s);
void rn_github_escape_property(struct rn_buf *b, const char *s);

/*
 * The one guard against mentions in Markdown outputs (the job summary, report --markdown, the
 * pull-request comment), which every escaper above calls at each byte: when `s` starts an
 * @mention, "@" followed by a letter or digit (@user, @org/team), appends "@", then U+200D
 * ZERO WIDTH JOINER, and returns true (the caller goes on after the '@'); else appends
 * nothing and returns false. GitHub then links and notifies nobody, and the text reads the
 * same. Names of spans, assertions and targets come from the program and the config.
 */
bool rn_github_add_mention_guard(struct rn_buf *b, const char *s);

/* ---- timing_gate.c (the types are timing_gate.h's) ---- */

/* Sum up the timing rows of `t[0..n)` into `g`. Never fails. */
void rn_timing_gate(const struct rn_target_report *t, size_t n, struct rn_timing_gate *g);

/*
 * Write the statement of `g` into `out` (at most `cap` bytes, NUL-terminated), e.g.
 *   "timing gated at >= +4.1% (worst: target 'build')"
 *   "timing gated at >= +4.1% (worst: target 'build'); wall_time not gated: detects >= +32.0%
 *    ('build')"
 *   "timing not gated for 1 of 3 targets ('xz': undecided, detects >= +38.0%)"
 *   "timing not gated for 2 of 2 targets ('a', 'b': undecided, detects >= +38.0%)"
 * Every ungated target is named, up to RN_TIMING_GATE_NAMES and as many as fit `cap` (the
 * rest counted: "'a', 'b' and 3 more").
 *   "" (no timing rows: nothing to state)
 * Returns the length written.
 */
size_t rn_timing_gate_format(const struct rn_timing_gate *g, char *out, size_t cap);

/* ---- curl_dl.c (the types are curl_dl.h's) ---- */

/*
 * Load libcurl (libcurl.so.4, the soname of Debian's libcurl4 packages) and resolve every
 * function. Returns 0, or -ENOENT after rn_error() naming what is missing. Later calls return
 * the first result.
 */
int rn_curl_load(void);

/* The loaded table; only valid after rn_curl_load() returned 0. */
const struct rn_curl_api *rn_curl(void);

/* ---- console.c (the types are console.h's) ---- */

/*
 * Add a line printed above the console table (for example how timing is gated), wrapped to
 * the width. Copied (control characters escaped); up to 8 lines, more are dropped. The lines
 * are printed and forgotten by the next rn_report_console() (process-wide: one check per
 * process).
 */
void rn_report_console_header(const char *line);

/* ---- report_strace.c (the types are report_strace.h's) ---- */

/* The summary rows of `t`: the syscalls with calls > 0, sorted by total time (descending; ties
 * in syscall-number order, as strace sorts). Returns a malloc'ed array of *nrows rows (plus
 * one spare) the caller frees. Dies on out-of-memory. */
struct rn_summary_row *rn_trace_summary_rows(const struct rn_trace *t, size_t *nrows);

#endif
