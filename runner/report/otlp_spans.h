/*
 * otlp_spans.h - the spans of one `renacer check`, built from the trace model and the
 * verdicts (the shape is drawn in runner/report/otlp.h), and the OTLP resource that carries them.
 *
 * Attribute names are listed in otlp_spans.c next to the code that sets them: semantic
 * conventions (OpenTelemetry semconv 1.x) where one exists, `renacer.*` otherwise. Times on
 * the wire are Unix epoch ns (CLOCK_MONOTONIC times of the trace model shifted by an offset).
 *
 * Part of the OTLP exporter (runner/report/otlp.h is its public header and includes this one). Not
 * thread safe.
 */
#ifndef RN_OTLP_SPANS_H
#define RN_OTLP_SPANS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/utsname.h>

#include "assertion.h"
#include "otlp_config.h"
#include "otlp_context.h"
#include "otlp_encode.h"
#include "otlp_pb.h"

/* What one check produced, borrowed by the export functions. */
struct rn_otlp_input {
	const struct rn_target_result *targets;   /* results [ntargets], in config order */
	size_t ntargets;                          /* count */
	const struct rn_verdict_result *verdicts; /* verdicts [nverdicts], any order; each is
						   * attached to the target of the same name */
	size_t nverdicts;                         /* count */
	uint64_t start_unix_ns;                   /* start of `renacer check`, Unix ns */
	uint64_t end_unix_ns;                     /* end (before the export), Unix ns */
	int exit_code;                            /* enum rn_exit the check will return */
	const char *config_path;                  /* renacer.toml used, or NULL */
	const char *const *const *argv;           /* argv[j]: NULL-terminated command line of
						   * target j (redacted on export), or NULL */
};

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
		 const struct rn_otlp_input *in, struct rn_otlp_batch *batch);

/* The resource of every request (OTLP Resource, InstrumentationScope), with its storage.
 * Fields are private to otlp_spans.c but for `res`, which the encoders read. */
struct rn_otlp_res {
	struct rn_otlp_attr *attrs;  /* attributes */
	size_t n;                    /* used */
	char **owned;                /* UTF-8-fixed copies */
	size_t nowned;               /* used */
	struct rn_otlp_resource res; /* what the encoders read */
	struct utsname uts;          /* host facts */
	char host[256];              /* host.name */
};

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

#endif
