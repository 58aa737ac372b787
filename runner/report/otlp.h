/*
 * otlp.h - OpenTelemetry trace export of a `renacer check`: OTLP/HTTP (protobuf or JSON, gzip)
 * and the OTLP JSON Lines file.
 *
 * Life of an export, as the runner drives it:
 *
 *     struct rn_otlp_cfg cfg;
 *     struct rn_otlp_context ctx;
 *
 *     rn_otlp_cfg_init(&cfg);                  defaults
 *     rn_otlp_cfg_from_env(&cfg);              OTEL_* environment variables (lowest layer)
 *     rn_otlp_cfg_apply_file(&cfg, &config.otlp);   [otlp] of renacer.toml
 *     rn_otlp_cfg_set_endpoint(), _set_protocol()   --otlp-endpoint and friends (highest)
 *     rn_otlp_cfg_finish(&cfg);                validate (refuses grpc), default the endpoint
 *     rn_otlp_context_init(&ctx);              trace id (TRACEPARENT or random), root span id
 *     for each measured run i of target j:     rn_otlp_traceparent(&ctx, j, i, tp, sizeof(tp))
 *     for each warmup run of target j:         rn_otlp_traceparent(&ctx, j, RN_OTLP_RUN_NONE, ...)
 *     (if rn_otlp_cfg_needs_spool(&cfg), enable the spool of each measured run)
 *     ... the check runs, verdicts are computed ...
 *     if (cfg.enabled && rn_otlp_export(&cfg, &ctx, &oc) < 0 && cfg.required) -> check fails
 *     if (otlp_file) rn_otlp_write_file(path, &cfg, &ctx, &oc)
 *     rn_otlp_cfg_release(&cfg);
 *
 * Shape of the exported trace (all spans SpanKind INTERNAL, one trace per check):
 *
 *     renacer check                               root; child of TRACEPARENT when valid;
 *     |                                           renacer.check.failed_assertions/_verdicts
 *     +- target:<name>                            one per target (first run to last);
 *     |                                           renacer.target.failed_assertions/_verdicts
 *     |  +- run:<i>                               one per measured run i (0-based)
 *     |  |  +- process:<comm>                     processes of the last run only (the one whose
 *     |  |     +- process:<comm>                  trace is kept), nested by parent
 *     |  |     +- <syscall name>                  syscall spans (see enum rn_otlp_syscall_spans)
 *     |  |     +- gpu:<name>                      GPU spans, under the process that recorded them
 *     |  +- assertion:<name>                      one per verdict of that target
 *
 * Attribute names are listed in runner/report/otlp_spans.c next to the code that sets them; semantic
 * conventions (OpenTelemetry semconv 1.x: service.*, host.*, os.type, process.*, thread.id,
 * file.path, error.type, test.case.*, test.suite.name, cicd.pipeline.*, vcs.*) are used where
 * one exists, `renacer.*` otherwise. Times on the wire are Unix epoch ns: CLOCK_MONOTONIC
 * times of the trace model are shifted by an offset sampled once (REALTIME - MONOTONIC, or
 * the last run's start_unix_ns - start_ns when the run recorded both).
 *
 * Modules (one .c and .h each, folder-private helpers in internal.h):
 *     otlp_config    OTEL_* environment, [otlp] table, command-line setters -> rn_otlp_cfg
 *     otlp_context   W3C trace context: trace id, TRACEPARENT/TRACESTATE, derived span ids
 *     otlp_redact    secrets removed from command lines
 *     otlp_spans     spans and resource built from target results, traces and verdicts
 *     otlp_encode    requests in protobuf (otlp_pb) or OTLP/JSON, batched under a size cap
 *     otlp_http      delivery over OTLP/HTTP with libcurl (curl_dl): retries, Retry-After
 *     otlp           the two entry points below: export over HTTP, JSON Lines file
 *
 * Not thread safe; single-threaded runner. Header values are secrets: they are never printed
 * or logged, by any function here.
 */
#ifndef RN_OTLP_H
#define RN_OTLP_H

#include "otlp_config.h"
#include "otlp_context.h"
#include "otlp_encode.h"
#include "otlp_redact.h"
#include "otlp_spans.h"

/*
 * What both entry points read of the outcome `oc` (outcome.h): its sides (the head targets,
 * then the base sides with --baseline: rn_outcome_side; side j is "target" j of the context's
 * span ids and has the command oc->argv[j], redacted), every verdict of oc->reports (each
 * under the side of its target's name; one whose target names no side goes under the root),
 * oc->start_unix_ns and oc->end_unix_ns (rn_outcome_end_ns) for the root span,
 * oc->exit_code and oc->config_path. Nothing of `oc` is changed.
 *
 * Export the check as OTLP over HTTP (OTLP 1.x, Specification: OTLP/HTTP): POST to
 * cfg->endpoint with Content-Type application/x-protobuf or application/json, gzip'ed with
 * Content-Encoding: gzip when configured, cfg->headers added. Spans are split into requests of
 * at most cfg->max_request_bytes (uncompressed). A request is retried only on HTTP 429, 502,
 * 503, 504 and on connection failures (OTLP/HTTP "Retryable Response Codes"), at most 6
 * attempts, with exponential backoff (0.5 s doubling to 8 s, half of it random) or the
 * Retry-After delay (seconds or HTTP date) when given. The whole export, every request, retry
 * and wait included, ends within cfg->timeout_ms (a Retry-After beyond it gives up at once):
 * the specification bounds each batch, renacer bounds the total so that a dead or slow
 * collector never holds the check longer than the timeout. The first request that fails stops
 * the export. A partial-success response (rejected spans, error message) is a warning.
 * Reads the trace spool of the targets' last runs (it moves the spool's file offset, nothing
 * else). Returns 0, or a negative errno after one rn_warn() that says what failed
 * (-ECONNREFUSED, -ETIMEDOUT, -EPROTO for an HTTP error status, -ENOMEM); whether that fails
 * the check is the caller's decision (cfg->required). Does nothing and returns 0 when
 * cfg->enabled is false or disabled_by_env is set; uses RN_OTLP_DEFAULT_ENDPOINT when no
 * endpoint was set (and rn_otlp_cfg_finish() was not called); refuses grpc with -EINVAL.
 */
int rn_otlp_export(const struct rn_otlp_cfg *cfg, const struct rn_otlp_context *ctx,
		   const struct rn_outcome *oc);

/*
 * Write the same spans as OTLP JSON Lines to `path` (the OpenTelemetry Protocol File Exporter
 * format): one ExportTraceServiceRequest per line in the OTLP/JSON encoding (lowerCamelCase
 * field names, trace and span ids as lowercase hex, 64-bit integers as decimal strings, enums
 * as integers), split like the HTTP batches. Atomic: written to "<path>.tmp.<pid>", synced and
 * renamed; on failure `path` is untouched. cfg->enabled is ignored; the other fields (service
 * name, resource, syscall_spans) apply. Returns 0, or negative errno after rn_error().
 */
int rn_otlp_write_file(const char *path, const struct rn_otlp_cfg *cfg,
		       const struct rn_otlp_context *ctx, const struct rn_outcome *oc);

#endif
