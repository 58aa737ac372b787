/*
 * otlp_config.h - configuration of the OTLP export: the OTEL_* environment variables, the
 * [otlp] table of renacer.toml and the command-line setters, merged into one struct
 * rn_otlp_cfg (OTLP Exporter Configuration; OpenTelemetry SDK Configuration).
 *
 * Part of the OTLP exporter (runner/report/otlp.h is its public header and includes this one). Not
 * thread safe; header values are secrets and are never printed or logged.
 */
#ifndef RN_OTLP_CONFIG_H
#define RN_OTLP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct rn_otlp_file_cfg; /* config.h: [otlp] as written in renacer.toml */

/* OTLP transport protocols: X(id, name). The names are those of OTEL_EXPORTER_OTLP_PROTOCOL
 * (OTLP Exporter Configuration, "Specify Protocol"). */
#define RN_OTLP_PROTOCOLS(X)                                                                       \
	X(HTTP_PROTOBUF, "http/protobuf") /* default: binary protobuf, application/x-protobuf */   \
	X(HTTP_JSON, "http/json")         /* OTLP/JSON, application/json */                        \
	X(GRPC, "grpc")                   /* recognized, refused by rn_otlp_cfg_finish() */

/* enum rn_otlp_protocol: RN_OTLP_HTTP_PROTOBUF, RN_OTLP_HTTP_JSON, RN_OTLP_GRPC. */
enum rn_otlp_protocol {
#define RN_OTLP_PROTOCOL_ENUM(id, name) RN_OTLP_##id,
	RN_OTLP_PROTOCOLS(RN_OTLP_PROTOCOL_ENUM)
#undef RN_OTLP_PROTOCOL_ENUM
};

/* Request body compression: X(id, name), the values of OTEL_EXPORTER_OTLP_COMPRESSION. */
#define RN_OTLP_COMPRESSIONS(X)                                                                    \
	X(NONE, "none") /* default */                                                              \
	X(GZIP, "gzip") /* zlib gzip stream, Content-Encoding: gzip */

/* enum rn_otlp_compression: RN_OTLP_COMPRESSION_NONE, RN_OTLP_COMPRESSION_GZIP. */
enum rn_otlp_compression {
#define RN_OTLP_COMPRESSION_ENUM(id, name) RN_OTLP_COMPRESSION_##id,
	RN_OTLP_COMPRESSIONS(RN_OTLP_COMPRESSION_ENUM)
#undef RN_OTLP_COMPRESSION_ENUM
};

/* Which syscall spans are exported: X(id, name), the values of `[otlp] syscall_spans`. */
#define RN_OTLP_SYSCALL_MODES(X)                                                                   \
	X(AGGREGATE, "aggregate") /* default: one span per syscall name per process, carrying  \
				   * calls/errors/total time; needs no spool */   \
	X(ALL, "all")             /* every syscall span from the spool */                          \
	X(THRESHOLD, "threshold") /* spool spans longer than syscall_threshold_ns */

/* enum rn_otlp_syscall_spans: RN_OTLP_SYSCALLS_AGGREGATE, _ALL, _THRESHOLD. Without a spool
 * (rn_trace_spool_enable was not called for the run) ALL and THRESHOLD fall back to
 * AGGREGATE with one warning. */
enum rn_otlp_syscall_spans {
#define RN_OTLP_SYSCALL_MODE_ENUM(id, name) RN_OTLP_SYSCALLS_##id,
	RN_OTLP_SYSCALL_MODES(RN_OTLP_SYSCALL_MODE_ENUM)
#undef RN_OTLP_SYSCALL_MODE_ENUM
};

/* NULL-terminated name lists of the three enums above, in enum order (for parsers, --help and
 * did-you-mean suggestions with rn_suggest). */
extern const char *const rn_otlp_protocol_names[];
extern const char *const rn_otlp_compression_names[];
extern const char *const rn_otlp_syscall_mode_names[];

/* The enum value of syscall_spans `name` into *out: 0, or -EINVAL for an unknown name. */
int rn_otlp_syscall_mode_parse(const char *name, enum rn_otlp_syscall_spans *out);

/* Defaults (OTLP Exporter Configuration); the export's time limit is runner/input/config.h's
 * RN_OTLP_DEFAULT_TIMEOUT_MS, which the [otlp] timeout_ms doc prints. */
#define RN_OTLP_DEFAULT_ENDPOINT "http://localhost:4318/v1/traces"
#define RN_OTLP_DEFAULT_SERVICE_NAME "renacer"
#define RN_OTLP_DEFAULT_THRESHOLD_NS 1000000u /* 1 ms */
/* Uncompressed request size above which spans are split over several requests, bytes
 * (collectors commonly refuse bodies over 4 MiB). */
#define RN_OTLP_DEFAULT_MAX_REQUEST_BYTES ((size_t)4 << 20)

/* A key and a value, both owned NUL-terminated strings (headers, resource attributes). */
struct rn_otlp_pair {
	char *key;   /* header name or attribute key, owned */
	char *value; /* value, owned; for headers a secret, never printed */
};

/*
 * Export configuration. Layers are applied in this order, each overriding the previous one
 * (so the most explicit wins):
 *   1. defaults (rn_otlp_cfg_init)
 *   2. environment (rn_otlp_cfg_apply_env): within it, OTEL_EXPORTER_OTLP_TRACES_* beats
 *      OTEL_EXPORTER_OTLP_* (OTLP Exporter Configuration: signal-specific wins)
 *   3. [otlp] of renacer.toml (config.c)
 *   4. --otlp-endpoint and friends on the command line (main.c)
 * with two exceptions: OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none are kill switches
 * (`disabled_by_env`) that keep HTTP export off whatever later layers say (OpenTelemetry SDK
 * Configuration, "General SDK Configuration"); the --otlp-file output is not affected.
 * Fields may be assigned directly where no setter exists; strings are owned (use the setters).
 */
struct rn_otlp_cfg {
	bool enabled;                   /* export over HTTP at the end of the check; set by
				       * apply_env when an endpoint variable is present, by
				       * `[otlp] enabled`, by --otlp-endpoint (main.c) */
	bool disabled_by_env;           /* OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none:
				       * rn_otlp_cfg_finish() turns `enabled` off */
	char *endpoint;                 /* full URL requests are POSTed to, owned; NULL until set
				       * (finish() then uses RN_OTLP_DEFAULT_ENDPOINT) */
	enum rn_otlp_protocol protocol; /* default RN_OTLP_HTTP_PROTOBUF */
	enum rn_otlp_compression compression; /* default RN_OTLP_COMPRESSION_NONE */
	char *service_name;            /* service.name, owned; NULL = service.name of the resource
				       * attributes, else "renacer" */
	struct rn_otlp_pair *headers;  /* extra HTTP request headers [nheaders], owned; secret */
	size_t nheaders;               /* headers used */
	struct rn_otlp_pair *resource; /* extra resource attributes [nresource], owned: detected
					* CI/VCS attributes, then OTEL_RESOURCE_ATTRIBUTES */
	size_t nresource;              /* resource attributes used */
	uint32_t timeout_ms;           /* bound on the whole export (every request, retry and
				       * backoff), ms (RN_OTLP_DEFAULT_TIMEOUT_MS) */
	bool required;                 /* a failed export fails the check (the caller decides) */
	enum rn_otlp_syscall_spans syscall_spans; /* default AGGREGATE */
	uint64_t syscall_threshold_ns; /* THRESHOLD mode: export spans longer than this, ns
					* (`syscall_threshold_us` * 1000; default 1 ms) */
	size_t max_request_bytes;      /* split batches above this uncompressed size, bytes */
	char **redact_words;           /* secret-name words for command-line redaction, owned,
				       * NULL-terminated; NULL = rn_redact_default_words */
};

/* Set the defaults above. Allocates nothing. */
void rn_otlp_cfg_init(struct rn_otlp_cfg *cfg);
/* Free what the configuration owns; `cfg` is then as after rn_otlp_cfg_init(). */
void rn_otlp_cfg_release(struct rn_otlp_cfg *cfg);

/* rn_otlp_cfg_apply_env() on the process environment. Returns 0. */
int rn_otlp_cfg_from_env(struct rn_otlp_cfg *cfg);

/*
 * Apply the [otlp] table of renacer.toml (config.h's struct rn_otlp_file_cfg; only the keys
 * given there override): endpoint (rn_otlp_cfg_set_endpoint, which enables export), then
 * enabled, protocol, compression, syscall_spans, service_name, timeout_ms,
 * syscall_threshold_us (converted to ns), required, headers ("Name: value" strings, each
 * replacing a header of the same name from the environment). Returns 0, or -EINVAL after
 * rn_error() for a value config.c did not already validate (an endpoint that is not an
 * http(s) URL, a header that is not "Name: value"; a header value is never printed).
 */
int rn_otlp_cfg_apply_file(struct rn_otlp_cfg *cfg, const struct rn_otlp_file_cfg *f);

/*
 * Set the endpoint from a base URL (config file, --otlp-endpoint): "/v1/traces" is appended
 * to its path, exactly as for OTEL_EXPORTER_OTLP_ENDPOINT, unless the path already ends with
 * "/v1/traces" (a full traces URL is then used as is). Turns export on (`enabled` = true; a
 * later `enabled = false` turns it off again). 0, or -EINVAL when the URL is not http:// or
 * https:// with a host (nothing printed).
 */
int rn_otlp_cfg_set_endpoint(struct rn_otlp_cfg *cfg, const char *url);
/* Set the protocol by name (rn_otlp_protocol_names; "grpc" is accepted here and refused by
 * rn_otlp_cfg_finish). 0, or -EINVAL after rn_error() naming the value. */
int rn_otlp_cfg_set_protocol(struct rn_otlp_cfg *cfg, const char *name);
/* Set the compression by name ("gzip", "none"). 0, or -EINVAL after rn_error(). */
int rn_otlp_cfg_set_compression(struct rn_otlp_cfg *cfg, const char *name);
/* Set header `name` to `value` (copied), replacing a header of the same name (case-insensitive),
 * so later layers override earlier ones per header. 0, or -EINVAL for a name that is not an
 * HTTP token or a value with CR, LF or NUL (nothing printed, the value never is). */
int rn_otlp_cfg_set_header(struct rn_otlp_cfg *cfg, const char *name, const char *value);

/*
 * Validate the final configuration once all layers are applied: applies disabled_by_env,
 * refuses grpc when export is enabled ("renacer: error: OTLP protocol 'grpc' is not supported
 * ..." and -EINVAL: renacer speaks OTLP/HTTP only), and sets the default endpoint when export
 * is enabled without one. 0 or -EINVAL.
 */
int rn_otlp_cfg_finish(struct rn_otlp_cfg *cfg);

/* True when the export or file output needs each syscall span, i.e. the runner must call
 * rn_trace_spool_enable() on the measured runs (syscall_spans ALL or THRESHOLD). */
bool rn_otlp_cfg_needs_spool(const struct rn_otlp_cfg *cfg);

#endif
