/*
 * internal.h - what the modules of runner/report share and no other folder calls: the verdict
 * count of the console and GitHub reports, and the helpers of the OTLP modules (otlp*.c).
 * Not thread safe.
 */
#ifndef RN_REPORT_INTERNAL_H
#define RN_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "otlp_context.h"
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

#endif
