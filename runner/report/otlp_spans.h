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
#include "outcome.h"

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
