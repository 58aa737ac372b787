#include "otlp_http.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <zlib.h>

#include "log.h"
#include "internal.h"
#include "now.h"
#include "otlp_pb.h"

/* ---- Delivery over HTTP (OTLP 1.x, Specification: OTLP/HTTP) ----------------------------- */

#define RESP_MAX_BYTES (64 * 1024) /* response body kept for messages, bytes */
#define BACKOFF_INITIAL_MS 500u    /* first retry delay before jitter, ms */
#define BACKOFF_MAX_MS 8000u       /* delay cap before jitter, ms */
#define MAX_ATTEMPTS 6             /* per request, first attempt included */
#define MSG_MAX 300                /* bytes of a collector's message quoted in warnings */

static uint64_t now_ms(void)
{
	return rn_mono_ns() / 1000000u;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Copy `len` bytes of untrusted text for a one-line message: printable ASCII kept, anything
 * else '?', cut at MSG_MAX with "...". */
static void printable(const char *s, size_t len, char *out, size_t cap)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 4 < cap && i < MSG_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		out[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : c == '\n' || c == '\t' ? ' ' : '?';
	}
	if (i < len && n + 4 <= cap) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

/* The endpoint as it may appear in messages: userinfo, query and fragment can hold
 * credentials and are dropped. */
static void url_for_log(const char *url, char *out, size_t cap)
{
	const char *host = strstr(url, "://"), *at, *end;

	if (!host) {
		snprintf(out, cap, "%s", "<invalid url>");
		return;
	}
	host += 3;
	end = host + strcspn(host, "?#");
	at = host + strcspn(host, "@/?#");
	if (*at == '@')
		snprintf(out, cap, "%.*s%.*s", (int)(host - url), url, (int)(end - at - 1), at + 1);
	else
		snprintf(out, cap, "%.*s", (int)(end - url), url);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct rn_otlp_http *h = ctx;
	size_t len = size * nmemb;

	if (h->resp.len < RESP_MAX_BYTES)
		rn_buf_add(&h->resp, data,
			   len < RESP_MAX_BYTES - h->resp.len ? len : RESP_MAX_BYTES - h->resp.len);
	return len;
}

/* Retry-After (RFC 9110, section 10.2.3): delay-seconds or an HTTP-date. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct rn_otlp_http *h = ctx;
	size_t len = size * nmemb;
	char val[64];
	uint64_t secs;

	if (len > 12 && !strncasecmp(data, "Retry-After:", 12)) {
		const char *v = data + 12;
		size_t n = len - 12;

		while (n && rn_otlp_is_blank(*v)) {
			v++;
			n--;
		}
		while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || rn_otlp_is_blank(v[n - 1])))
			n--;
		if (n >= sizeof(val))
			return len;
		memcpy(val, v, n);
		val[n] = '\0';
		if (rn_otlp_parse_u64(val, &secs)) {
			h->retry_after_ms = secs > 86400 ? 86400000L : (long)secs * 1000L;
		} else {
			time_t when = curl_getdate(val, NULL), now = time(NULL);

			if (when >= 0)
				h->retry_after_ms = when > now ? (long)(when - now) * 1000L : 0;
		}
	}
	return len;
}

static int gzip_body(const char *in, size_t len, struct rn_buf *out)
{
	z_stream zs;
	uLong bound;
	int rc;

	if (len > UINT32_MAX)
		return -E2BIG;
	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16: a gzip wrapper (RFC 1952), which Content-Encoding: gzip means. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	bound = deflateBound(&zs, (uLong)len);
	rn_buf_reset(out);
	if (rn_buf_grow(out, bound)) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out->buf;
	zs.avail_out = (uInt)bound;
	rc = deflate(&zs, Z_FINISH);
	if (rc == Z_STREAM_END) {
		out->len = zs.total_out;
		out->buf[out->len] = '\0';
	}
	deflateEnd(&zs);
	return rc == Z_STREAM_END ? 0 : -EIO;
}

static bool resp_is(struct rn_otlp_http *h, const char *what)
{
	char *ct = NULL;

	curl_easy_getinfo(h->curl, CURLINFO_CONTENT_TYPE, &ct);
	return ct && strstr(ct, what);
}

/* A message from an error response (google.rpc.Status in protobuf or JSON, else text). */
static void error_message(struct rn_otlp_http *h, char *out, size_t cap)
{
	struct rn_buf msg;
	int32_t code;

	out[0] = '\0';
	if (!h->resp.len)
		return;
	rn_buf_init(&msg, RESP_MAX_BYTES);
	if (resp_is(h, "protobuf")) {
		if (!rn_otlp_pb_parse_status(h->resp.buf, h->resp.len, &code, &msg))
			printable(msg.buf, msg.len, out, cap);
	} else if (resp_is(h, "json")) {
		json_t *j = json_loadb(h->resp.buf, h->resp.len, 0, NULL);
		const char *m = json_string_value(json_object_get(j, "message"));

		if (m)
			printable(m, strlen(m), out, cap);
		json_decref(j);
	}
	if (!out[0])
		printable(h->resp.buf, h->resp.len, out, cap);
	rn_buf_release(&msg);
}

/* OTLP/HTTP "Partial Success": a 2xx whose body rejects some spans is a warning. */
static void partial_success(struct rn_otlp_http *h, size_t nspans)
{
	struct rn_buf msg;
	int64_t rejected = 0;
	char text[MSG_MAX + 8];

	if (!h->resp.len)
		return;
	rn_buf_init(&msg, RESP_MAX_BYTES);
	if (h->cfg->protocol == RN_OTLP_HTTP_JSON || resp_is(h, "json")) {
		json_t *j = json_loadb(h->resp.buf, h->resp.len, 0, NULL);
		json_t *ps = json_object_get(j, "partialSuccess");
		json_t *r = json_object_get(ps, "rejectedSpans");
		const char *m = json_string_value(json_object_get(ps, "errorMessage"));

		if (json_is_integer(r))
			rejected = json_integer_value(r);
		else if (json_is_string(r))
			rejected = strtoll(json_string_value(r), NULL, 10);
		if (m)
			rn_buf_adds(&msg, m);
		json_decref(j);
	} else if (rn_otlp_pb_parse_response(h->resp.buf, h->resp.len, &rejected, &msg)) {
		rn_buf_release(&msg);
		return;
	}
	if (rejected > 0 || msg.len) {
		printable(msg.buf, msg.len, text, sizeof(text));
		rn_warn("otlp collector at '%s' rejected %lld of %zu spans%s%s", h->where,
			(long long)rejected, nspans, text[0] ? ": " : "", text);
	}
	rn_buf_release(&msg);
}

/* OTLP/HTTP "Retryable Response Codes" plus transport failures where nothing was processed. */
static bool retryable_status(long code)
{
	return code == 429 || code == 502 || code == 503 || code == 504;
}

static bool retryable_curl(CURLcode res)
{
	return res == CURLE_COULDNT_CONNECT || res == CURLE_COULDNT_RESOLVE_HOST ||
		res == CURLE_SEND_ERROR || res == CURLE_RECV_ERROR || res == CURLE_GOT_NOTHING ||
		res == CURLE_PARTIAL_FILE;
}

/* Exponential backoff with "equal jitter": half the step fixed, half random. */
static uint64_t backoff_ms(unsigned attempt)
{
	uint64_t step = BACKOFF_INITIAL_MS << (attempt > 5 ? 5 : attempt - 1);
	uint32_t r;

	if (step > BACKOFF_MAX_MS)
		step = BACKOFF_MAX_MS;
	rn_otlp_random_bytes(&r, sizeof(r));
	return step / 2 + r % (step / 2 + 1);
}

/* Send one request body, retrying as the specification allows within cfg->timeout_ms. */
int rn_otlp_http_post(void *ctx, const char *body, size_t len, size_t nspans)
{
	struct rn_otlp_http *h = ctx;
	uint64_t deadline = h->deadline_ms;
	char reason[MSG_MAX + 128], msg[MSG_MAX + 8];
	unsigned attempt;
	int rc = 0;

	if (h->cfg->compression == RN_OTLP_COMPRESSION_GZIP) {
		rc = gzip_body(body, len, &h->gz);
		if (rc) {
			rn_warn("otlp export to '%s' failed: cannot compress the request: %s",
				h->where, strerror(-rc));
			h->warned = true;
			return rc;
		}
		body = h->gz.buf;
		len = h->gz.len;
	}
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
	for (attempt = 1;; attempt++) {
		uint64_t now = now_ms(), delay;
		long code = 0;
		CURLcode res;
		bool retry;

		if (now >= deadline) {
			rc = -ETIMEDOUT;
			snprintf(reason, sizeof(reason), "the %u ms export timeout expired",
				 h->cfg->timeout_ms);
			break;
		}
		curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, (long)(deadline - now));
		curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(deadline - now));
		rn_buf_reset(&h->resp);
		h->retry_after_ms = -1;
		h->errbuf[0] = '\0';
		res = curl_easy_perform(h->curl);
		if (res == CURLE_OK) {
			curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
			if (code >= 200 && code < 300) {
				partial_success(h, nspans);
				h->sent += nspans;
				return 0;
			}
			error_message(h, msg, sizeof(msg));
			snprintf(reason, sizeof(reason), "HTTP %ld%s%s", code, msg[0] ? ": " : "",
				 msg);
			retry = retryable_status(code);
			rc = -EPROTO;
		} else {
			snprintf(reason, sizeof(reason), "%s",
				 h->errbuf[0] ? h->errbuf : curl_easy_strerror(res));
			retry = retryable_curl(res);
			rc = res == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT :
				res == CURLE_COULDNT_CONNECT ? -ECONNREFUSED :
				res == CURLE_OUT_OF_MEMORY   ? -ENOMEM :
							       -EIO;
		}
		if (!retry || attempt >= MAX_ATTEMPTS)
			break;
		delay = h->retry_after_ms >= 0 ? (uint64_t)h->retry_after_ms : backoff_ms(attempt);
		if (now_ms() + delay >= deadline) {
			if (h->retry_after_ms >= 0) {
				size_t n = strlen(reason);

				snprintf(reason + n, sizeof(reason) - n,
					 " (Retry-After of %ld s exceeds the %u ms timeout)",
					 h->retry_after_ms / 1000, h->cfg->timeout_ms);
			}
			break;
		}
		sleep_ms(delay);
	}
	rn_warn("otlp export to '%s' failed after %u attempt%s, %llu ms into the export: %s "
		"(%zu span%s delivered before; export stopped)",
		h->where, attempt, attempt == 1 ? "" : "s",
		(unsigned long long)(now_ms() - h->t0_ms), reason, h->sent,
		h->sent == 1 ? "" : "s");
	h->warned = true;
	return rc;
}

/* Reserved headers are set by the exporter; a configured one of these names is dropped. */
static bool reserved_header(const char *name)
{
	return !strcasecmp(name, "Content-Type") || !strcasecmp(name, "Content-Encoding") ||
		!strcasecmp(name, "Content-Length") || !strcasecmp(name, "Expect");
}

int rn_otlp_http_init(struct rn_otlp_http *h, const struct rn_otlp_cfg *cfg)
{
	struct rn_buf line;
	size_t i;

	memset(h, 0, sizeof(*h));
	h->cfg = cfg;
	rn_buf_init(&h->resp, 0);
	rn_buf_init(&h->gz, 0);
	url_for_log(cfg->endpoint, h->where, sizeof(h->where));
	h->t0_ms = now_ms();
	h->deadline_ms = h->t0_ms + cfg->timeout_ms;
	if (rn_curl_load())
		return -ENOENT;
	h->curl_loaded = true;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return -ENOMEM;
	h->curl = curl_easy_init();
	if (!h->curl)
		return -ENOMEM;
	h->hdrs = curl_slist_append(h->hdrs,
				    cfg->protocol == RN_OTLP_HTTP_JSON ?
					    "Content-Type: application/json" :
					    "Content-Type: application/x-protobuf");
	if (cfg->compression == RN_OTLP_COMPRESSION_GZIP)
		h->hdrs = curl_slist_append(h->hdrs, "Content-Encoding: gzip");
	/* No "Expect: 100-continue" round trip (libcurl waits up to 1 s for it on large bodies). */
	h->hdrs = curl_slist_append(h->hdrs, "Expect:");
	rn_buf_init(&line, 0);
	for (i = 0; i < cfg->nheaders; i++) {
		if (reserved_header(cfg->headers[i].key)) {
			rn_warn("otlp: ignoring configured header '%s': set by the exporter",
				cfg->headers[i].key);
			continue;
		}
		rn_buf_reset(&line);
		rn_buf_adds(&line, cfg->headers[i].key);
		rn_buf_adds(&line, ": ");
		rn_buf_adds(&line, cfg->headers[i].value);
		if (!rn_buf_failed(&line))
			h->hdrs = curl_slist_append(h->hdrs, line.buf);
	}
	if (line.cap)
		memset(line.buf, 0, line.cap); /* held a credential */
	rn_buf_release(&line);
	if (!h->hdrs)
		return -ENOMEM;
	curl_easy_setopt(h->curl, CURLOPT_URL, cfg->endpoint);
	curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->hdrs);
	curl_easy_setopt(h->curl, CURLOPT_USERAGENT, "renacer/" RN_VERSION);
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->errbuf);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, h);
	return 0;
}

void rn_otlp_http_release(struct rn_otlp_http *h)
{
	if (h->curl_loaded) {
		if (h->curl)
			curl_easy_cleanup(h->curl);
		curl_slist_free_all(h->hdrs);
		curl_global_cleanup();
	}
	rn_buf_release(&h->resp);
	rn_buf_release(&h->gz);
}
