/*
 * otlp_context.h - the W3C trace context of one `renacer check` (W3C Trace Context Level 1):
 * the trace id (joined from TRACEPARENT or random), the root span id, the traceparent handed
 * to each run, and the hex form of ids.
 *
 * Part of the OTLP exporter (runner/report/otlp.h is its public header and includes this one). Not
 * thread safe.
 */
#ifndef RN_OTLP_CONTEXT_H
#define RN_OTLP_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Characters of a version-00 traceparent ("00-<32 hex>-<16 hex>-<2 hex>"). */
#define RN_OTLP_TRACEPARENT_LEN 55
/* Longest tracestate kept, characters (W3C Trace Context, section 3.3.1.5). */
#define RN_OTLP_TRACESTATE_MAX 512
/* `run` value of rn_otlp_traceparent() naming the target span instead of a run (warmups). */
#define RN_OTLP_RUN_NONE SIZE_MAX

/*
 * Trace context of one `renacer check`. Plain data, owns nothing (no release needed).
 */
struct rn_otlp_context {
	uint8_t trace_id[16];      /* the trace of the check */
	uint8_t root_span_id[8];   /* span of the `renacer check` invocation (random) */
	uint8_t parent_span_id[8]; /* span of a valid TRACEPARENT, meaningful if has_parent */
	bool has_parent;           /* a valid TRACEPARENT was found in the environment */
	uint8_t trace_flags;       /* W3C trace-flags: the parent's, else 0x01 (sampled) */
	char trace_state[RN_OTLP_TRACESTATE_MAX + 1]; /* TRACESTATE accompanying a valid
						       * TRACEPARENT, "" if none or invalid */
	uint64_t salt;                                /* random key of the span id derivation */
	int64_t mono_to_unix_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC sampled at init, ns */
};

/*
 * Start the trace context of a check. With a valid TRACEPARENT in the environment the check
 * joins that trace as a child of its span and keeps a valid TRACESTATE; otherwise trace and
 * span ids are random (getrandom(2); a time-and-pid fallback with a warning if it fails). An
 * invalid TRACEPARENT is ignored with a warning. Samples the clock offset. Returns 0.
 */
int rn_otlp_context_init(struct rn_otlp_context *ctx);
/* The same reading `envp` ("NAME=VALUE", NULL-terminated; NULL = the process environment). */
int rn_otlp_context_init_env(struct rn_otlp_context *ctx, const char *const *envp);

/*
 * Write the traceparent of the span of measured run `run` (0-based index into
 * rn_target_result.runs) of target `target` (0-based, the order of rn_outcome_side)
 * into `out` ("00-<trace>-<span>-<flags>", RN_OTLP_TRACEPARENT_LEN characters plus NUL;
 * W3C Trace Context, section 3.2). The span id is derived deterministically from ctx->salt,
 * so rn_otlp_export() later gives the run's span the same id and the target's own spans (if
 * instrumented) become its children. `run` == RN_OTLP_RUN_NONE names the target span (for
 * warmup runs, which have no span of their own). 0, or -ENOSPC when `cap` < 56.
 */
int rn_otlp_traceparent(const struct rn_otlp_context *ctx, size_t target, size_t run, char *out,
			size_t cap);

#endif
