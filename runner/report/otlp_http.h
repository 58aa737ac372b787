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

#endif
