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

#endif
