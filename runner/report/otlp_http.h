/*
 * otlp_http.h - delivery of OTLP request bodies over HTTP (OTLP 1.x, Specification:
 * OTLP/HTTP) through libcurl, which curl_dl.h loads on first use: one connection reused across
 * requests, gzip when configured, retries on the retryable responses with exponential backoff
 * or Retry-After, all within one deadline for the whole export.
 *
 * Part of the OTLP exporter (runner/report/otlp.h is its public header); used by rn_otlp_export().
 * Not thread safe. Header values are secrets: never printed or logged.
 */
#ifndef RN_OTLP_HTTP_H
#define RN_OTLP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "curl_dl.h"
#include "otlp_config.h"

/* One export's HTTP state. Fields are private to otlp_http.c but for `where` (the endpoint as
 * messages may show it) and `warned` (a failure was already reported). */
struct rn_otlp_http {
	const struct rn_otlp_cfg *cfg; /* settings */
	CURL *curl;                    /* one handle: connections are reused across batches */
	struct curl_slist *hdrs;       /* request headers (secret) */
	bool curl_loaded;              /* libcurl was loaded: the curl_* calls are usable */
	char where[512];               /* endpoint without userinfo, query or fragment */
	char errbuf[CURL_ERROR_SIZE];  /* libcurl's message of the last failure */
	struct rn_buf resp;            /* response body, first RESP_MAX_BYTES */
	struct rn_buf gz;              /* compressed request */
	long retry_after_ms;           /* Retry-After of the last response, -1 if none */
	uint64_t t0_ms;                /* start of the export, CLOCK_MONOTONIC ms */
	uint64_t deadline_ms;          /* t0_ms + timeout: nothing is sent or awaited after it */
	size_t sent;                   /* spans delivered so far */
	bool warned;                   /* a failure was reported */
};

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

#endif
