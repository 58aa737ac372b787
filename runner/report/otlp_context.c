#include "otlp_context.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "internal.h"
#include "now.h"

/* ---- Trace context (W3C Trace Context Level 1) ------------------------------------------- */

void rn_otlp_hex(const uint8_t *id, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Lowercase hex only: section 3.2.2 forbids uppercase in every field. */
static bool lowhex(const char *s, size_t n, uint8_t *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	for (i = 0; out && i < n / 2; i++)
		out[i] = (uint8_t)(rn_otlp_hexval(s[2 * i]) << 4 | rn_otlp_hexval(s[2 * i + 1]));
	return true;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

bool rn_otlp_traceparent_parse(const char *s, uint8_t trace_id[16], uint8_t span_id[8],
			       uint8_t *flags)
{
	uint8_t ver, tid[16], sid[8], fl;
	size_t len;

	if (!s)
		return false;
	len = strlen(s);
	/* version "-" trace-id "-" parent-id "-" trace-flags (section 3.2.2) */
	if (len < RN_OTLP_TRACEPARENT_LEN || !lowhex(s, 2, &ver) || ver == 0xff)
		return false;
	if (ver == 0 && len != RN_OTLP_TRACEPARENT_LEN)
		return false;
	/* Section 3.2.4 (versioning): a higher version may append fields after a '-'. */
	if (len > RN_OTLP_TRACEPARENT_LEN && s[RN_OTLP_TRACEPARENT_LEN] != '-')
		return false;
	if (s[2] != '-' || s[35] != '-' || s[52] != '-')
		return false;
	if (!lowhex(s + 3, 32, tid) || !lowhex(s + 36, 16, sid) || !lowhex(s + 53, 2, &fl))
		return false;
	if (all_zero(tid, sizeof(tid)) || all_zero(sid, sizeof(sid)))
		return false;
	if (trace_id)
		memcpy(trace_id, tid, sizeof(tid));
	if (span_id)
		memcpy(span_id, sid, sizeof(sid));
	if (flags)
		*flags = fl;
	return true;
}

bool rn_otlp_tracestate_valid(const char *s)
{
	size_t len = strlen(s), members = 0;
	const char *p = s;

	if (!len || len > RN_OTLP_TRACESTATE_MAX)
		return false;
	while (*p) {
		size_t n = strcspn(p, ","), i;
		const char *eq = memchr(p, '=', n);

		/* Optional whitespace around members (section 3.3.1.1) and empty members are
		 * allowed; anything else needs key=value with printable ASCII. */
		for (i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] > 0x7e)
				return false;
		if (strspn(p, " \t") < n) {
			if (!eq || eq == p)
				return false;
			if (++members > 32)
				return false;
		}
		p += n;
		if (*p)
			p++;
	}
	return true;
}

void rn_otlp_random_bytes(void *out, size_t n)
{
	uint8_t *p = out;
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(p + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got < n) {
		uint64_t x;

		rn_warn("getrandom failed (%s): trace ids are derived from the clock",
			strerror(errno));
		x = rn_real_ns() ^ ((uint64_t)getpid() << 32);
		for (; got < n; got++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p[got] = (uint8_t)x;
		}
	}
}

/* splitmix64's finalizer: a bijection with good avalanche, so distinct inputs stay distinct. */
static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rn_otlp_derive_id(const struct rn_otlp_context *ctx, enum rn_otlp_span_role role, uint64_t a,
		       uint64_t b, uint64_t c, uint8_t out[8])
{
	uint64_t h = mix64(ctx->salt ^ (uint64_t)role);
	int i;

	h = mix64(h ^ a);
	h = mix64(h ^ b);
	h = mix64(h ^ c);
	if (!h)
		h = 1;
	for (i = 0; i < 8; i++)
		out[i] = (uint8_t)(h >> (56 - 8 * i));
}

static int64_t mono_to_unix_offset(void)
{
	uint64_t mono = rn_mono_ns();

	return (int64_t)(rn_real_ns() - mono);
}

int rn_otlp_context_init(struct rn_otlp_context *ctx)
{
	return rn_otlp_context_init_env(ctx, NULL);
}

int rn_otlp_context_init_env(struct rn_otlp_context *ctx, const char *const *envp)
{
	const char *tp = rn_otlp_env_get(envp, "TRACEPARENT");
	const char *ts = rn_otlp_env_get(envp, "TRACESTATE");

	memset(ctx, 0, sizeof(*ctx));
	rn_otlp_random_bytes(&ctx->salt, sizeof(ctx->salt));
	rn_otlp_random_bytes(ctx->root_span_id, sizeof(ctx->root_span_id));
	if (all_zero(ctx->root_span_id, sizeof(ctx->root_span_id)))
		ctx->root_span_id[7] = 1;
	ctx->trace_flags = 0x01;
	ctx->mono_to_unix_ns = mono_to_unix_offset();
	if (tp &&
	    rn_otlp_traceparent_parse(tp, ctx->trace_id, ctx->parent_span_id, &ctx->trace_flags)) {
		ctx->has_parent = true;
		/* Section 3.3: tracestate is only meaningful with a valid traceparent. */
		if (ts && rn_otlp_tracestate_valid(ts))
			memcpy(ctx->trace_state, ts, strlen(ts) + 1);
		return 0;
	}
	if (tp)
		rn_warn("ignoring TRACEPARENT: not a valid W3C traceparent; starting a new trace");
	rn_otlp_random_bytes(ctx->trace_id, sizeof(ctx->trace_id));
	if (all_zero(ctx->trace_id, sizeof(ctx->trace_id)))
		ctx->trace_id[15] = 1;
	return 0;
}

void rn_otlp_run_span_id(const struct rn_otlp_context *ctx, size_t target, size_t run,
			 uint8_t out[8])
{
	if (run == RN_OTLP_RUN_NONE)
		rn_otlp_derive_id(ctx, RN_OTLP_ROLE_TARGET, target, 0, 0, out);
	else
		rn_otlp_derive_id(ctx, RN_OTLP_ROLE_RUN, target, run, 0, out);
}

int rn_otlp_traceparent(const struct rn_otlp_context *ctx, size_t target, size_t run, char *out,
			size_t cap)
{
	uint8_t sid[8];

	if (cap < RN_OTLP_TRACEPARENT_LEN + 1)
		return -ENOSPC;
	rn_otlp_run_span_id(ctx, target, run, sid);
	memcpy(out, "00-", 3);
	rn_otlp_hex(ctx->trace_id, 16, out + 3);
	out[35] = '-';
	rn_otlp_hex(sid, 8, out + 36);
	out[52] = '-';
	rn_otlp_hex(&ctx->trace_flags, 1, out + 53);
	return 0;
}
