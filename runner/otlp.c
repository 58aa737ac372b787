#include "otlp.h"

#include "curl_dl.h"
#include "utf8.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "config.h"
#include "buf.h"
#include "log.h"
#include "safefile.h"
#include "srcloc.h"
#include "symbolize.h"
#include "xalloc.h"

extern char **environ;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Name tables ------------------------------------------------------------------------- */

const char *const rn_otlp_protocol_names[] = {
#define NAME(id, name) name,
	RN_OTLP_PROTOCOLS(NAME)
#undef NAME
	NULL,
};

const char *const rn_otlp_compression_names[] = {
#define NAME(id, name) name,
	RN_OTLP_COMPRESSIONS(NAME)
#undef NAME
	NULL,
};

const char *const rn_otlp_syscall_mode_names[] = {
#define NAME(id, name) name,
	RN_OTLP_SYSCALL_MODES(NAME)
#undef NAME
	NULL,
};

static int lookup(const char *const *names, const char *name)
{
	int i;

	for (i = 0; name && names[i]; i++)
		if (!strcmp(names[i], name))
			return i;
	return -EINVAL;
}

int rn_otlp_protocol_parse(const char *name, enum rn_otlp_protocol *out)
{
	int i = lookup(rn_otlp_protocol_names, name);

	if (i < 0)
		return i;
	*out = (enum rn_otlp_protocol)i;
	return 0;
}

int rn_otlp_compression_parse(const char *name, enum rn_otlp_compression *out)
{
	int i = lookup(rn_otlp_compression_names, name);

	if (i < 0)
		return i;
	*out = (enum rn_otlp_compression)i;
	return 0;
}

int rn_otlp_syscall_mode_parse(const char *name, enum rn_otlp_syscall_spans *out)
{
	int i = lookup(rn_otlp_syscall_mode_names, name);

	if (i < 0)
		return i;
	*out = (enum rn_otlp_syscall_spans)i;
	return 0;
}

/* ---- Configuration ----------------------------------------------------------------------- */

void rn_otlp_cfg_init(struct rn_otlp_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->protocol = RN_OTLP_HTTP_PROTOBUF;
	cfg->compression = RN_OTLP_COMPRESSION_NONE;
	cfg->timeout_ms = RN_OTLP_DEFAULT_TIMEOUT_MS;
	cfg->syscall_spans = RN_OTLP_SYSCALLS_AGGREGATE;
	cfg->syscall_threshold_ns = RN_OTLP_DEFAULT_THRESHOLD_NS;
	cfg->max_request_bytes = RN_OTLP_DEFAULT_MAX_REQUEST_BYTES;
}

static void pairs_free(struct rn_otlp_pair *p, size_t n, bool secret)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].key);
		if (secret && p[i].value) /* do not leave credentials in freed heap memory */
			memset(p[i].value, 0, strlen(p[i].value));
		free(p[i].value);
	}
	free(p);
}

void rn_otlp_cfg_release(struct rn_otlp_cfg *cfg)
{
	if (cfg->redact_words) {
		char **w;

		for (w = cfg->redact_words; *w; w++)
			free(*w);
		free(cfg->redact_words);
		cfg->redact_words = NULL;
	}
	free(cfg->endpoint);
	free(cfg->service_name);
	pairs_free(cfg->headers, cfg->nheaders, true);
	pairs_free(cfg->resource, cfg->nresource, false);
	rn_otlp_cfg_init(cfg);
}

/* Replace or append key=value in a pair list; `icase` compares keys case-insensitively. */
static void pairs_set(struct rn_otlp_pair **v, size_t *n, const char *key, const char *value,
		      bool icase)
{
	size_t i, cap = *n;

	for (i = 0; i < *n; i++) {
		if (icase ? !strcasecmp((*v)[i].key, key) : !strcmp((*v)[i].key, key)) {
			free((*v)[i].value);
			(*v)[i].value = rn_xstrdup(value);
			return;
		}
	}
	*v = rn_xrealloc(*v, (cap + 1) * sizeof(**v));
	(*v)[*n].key = rn_xstrdup(key);
	(*v)[*n].value = rn_xstrdup(value);
	(*n)++;
}

static bool url_valid(const char *url, size_t *path_off)
{
	const char *host;

	if (!strncasecmp(url, "http://", 7))
		host = url + 7;
	else if (!strncasecmp(url, "https://", 8))
		host = url + 8;
	else
		return false;
	if (!*host || *host == '/' || *host == '?' || *host == '#')
		return false;
	if (path_off)
		*path_off = (size_t)(host - url) + strcspn(host, "/?#");
	return true;
}

/* Endpoint from a base URL: OTLP Exporter Configuration, "Endpoint URLs for OTLP/HTTP": the
 * signal path is appended to the base's path, with exactly one '/' between them. */
static char *endpoint_from_base(const char *base)
{
	size_t len = strlen(base);
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_adds(&b, base);
	if (!len || base[len - 1] != '/')
		rn_buf_addc(&b, '/');
	rn_buf_adds(&b, "v1/traces");
	if (rn_buf_failed(&b))
		rn_die("out of memory");
	return rn_buf_detach(&b, NULL);
}

int rn_otlp_cfg_set_endpoint(struct rn_otlp_cfg *cfg, const char *url)
{
	static const char suffix[] = "/v1/traces";
	size_t path, len;
	char *e;

	if (!url || !url_valid(url, &path))
		return -EINVAL;
	len = strlen(url);
	/* A base URL, like OTEL_EXPORTER_OTLP_ENDPOINT; one that already names the traces path
	 * (and has no query) is taken as it is. */
	if (!strpbrk(url + path, "?#") && len - path >= sizeof(suffix) - 1 &&
	    !strcmp(url + len - (sizeof(suffix) - 1), suffix))
		e = rn_xstrdup(url);
	else
		e = endpoint_from_base(url);
	free(cfg->endpoint);
	cfg->endpoint = e;
	cfg->enabled = true;
	return 0;
}

int rn_otlp_cfg_set_protocol(struct rn_otlp_cfg *cfg, const char *name)
{
	if (rn_otlp_protocol_parse(name, &cfg->protocol)) {
		rn_error("unknown OTLP protocol '%s' (expected http/protobuf or http/json)", name);
		return -EINVAL;
	}
	return 0;
}

int rn_otlp_cfg_set_compression(struct rn_otlp_cfg *cfg, const char *name)
{
	if (rn_otlp_compression_parse(name, &cfg->compression)) {
		rn_error("unknown OTLP compression '%s' (expected gzip or none)", name);
		return -EINVAL;
	}
	return 0;
}

/* RFC 9110, section 5.6.2: token = 1*tchar. */
static bool http_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
			return false;
	return true;
}

int rn_otlp_cfg_set_header(struct rn_otlp_cfg *cfg, const char *name, const char *value)
{
	if (!name || !value || !http_token(name) || strpbrk(value, "\r\n"))
		return -EINVAL;
	pairs_set(&cfg->headers, &cfg->nheaders, name, value, true);
	return 0;
}

int rn_otlp_cfg_set_service_name(struct rn_otlp_cfg *cfg, const char *name)
{
	if (!name || !*name)
		return -EINVAL;
	free(cfg->service_name);
	cfg->service_name = rn_xstrdup(name);
	return 0;
}

int rn_otlp_cfg_set_resource_attr(struct rn_otlp_cfg *cfg, const char *key, const char *value)
{
	if (!key || !*key || !value)
		return -EINVAL;
	pairs_set(&cfg->resource, &cfg->nresource, key, value, false);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rn_otlp_percent_decode(const char *s, size_t len, struct rn_buf *out)
{
	size_t i;

	for (i = 0; i < len; i++) {
		int hi, lo;

		if (s[i] != '%') {
			rn_buf_addc(out, s[i]);
			continue;
		}
		if (len - i < 3)
			return -EINVAL;
		hi = hexval((unsigned char)s[i + 1]);
		lo = hexval((unsigned char)s[i + 2]);
		if (hi < 0 || lo < 0 || (!hi && !lo))
			return -EINVAL;
		rn_buf_addc(out, (char)(hi << 4 | lo));
		i += 2;
	}
	return rn_buf_failed(out) ? -ENOMEM : 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

int rn_otlp_parse_list(const char *list, void (*fn)(void *ctx, const char *key, const char *value),
		       void *ctx)
{
	const char *p = list;
	int skipped = 0;
	struct rn_buf key, val;

	rn_buf_init(&key, 0);
	rn_buf_init(&val, 0);
	while (p && *p) {
		const char *end = p + strcspn(p, ","), *eq, *ks, *ke, *vs, *ve;

		ks = p;
		ke = end;
		while (ks < ke && is_blank(*ks))
			ks++;
		while (ke > ks && is_blank(ke[-1]))
			ke--;
		if (ks == ke)
			goto next; /* empty entry ("a=b,,c=d" or a trailing comma) */
		eq = memchr(ks, '=', (size_t)(ke - ks));
		if (!eq) {
			skipped++;
			goto next;
		}
		vs = eq + 1;
		ve = ke;
		while (vs < ve && is_blank(*vs))
			vs++;
		while (eq > ks && is_blank(eq[-1]))
			eq--;
		rn_buf_reset(&key);
		rn_buf_reset(&val);
		if (eq == ks) {
			skipped++;
			goto next;
		}
		rn_buf_add(&key, ks, (size_t)(eq - ks));
		if (rn_otlp_percent_decode(vs, (size_t)(ve - vs), &val) || rn_buf_failed(&key) ||
		    strlen(val.buf) != val.len) {
			skipped++;
			goto next;
		}
		fn(ctx, key.buf, val.buf);
next:
		p = *end ? end + 1 : end;
	}
	if (val.cap)
		memset(val.buf, 0, val.cap); /* values may be credentials */
	rn_buf_release(&key);
	rn_buf_release(&val);
	return skipped;
}

/* Value of NAME in envp; an empty value counts as unset (SDK Configuration: "empty value ...
 * MUST be interpreted as if the variable were unset"). */
static const char *env_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);
	const char *const *e;

	if (!envp)
		envp = (const char *const *)environ;
	for (e = envp; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return (*e)[n + 1] ? *e + n + 1 : NULL;
	return NULL;
}

/* The signal-specific variable if set, else the generic one; *which names the one used. */
static const char *env_pair(const char *const *envp, const char *traces, const char *generic,
			    const char **which)
{
	const char *v = env_get(envp, traces);

	*which = traces;
	if (v)
		return v;
	*which = generic;
	return env_get(envp, generic);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

struct header_ctx {
	struct rn_otlp_cfg *cfg;
	int bad;
};

static void env_header(void *vctx, const char *key, const char *value)
{
	struct header_ctx *h = vctx;

	if (rn_otlp_cfg_set_header(h->cfg, key, value))
		h->bad++;
}

static void env_resource(void *vctx, const char *key, const char *value)
{
	rn_otlp_cfg_set_resource_attr(vctx, key, value);
}

/* CI/VCS resource attributes of a GitHub Actions run (semconv cicd.* and vcs.*). */
static void detect_ci(struct rn_otlp_cfg *cfg, const char *const *envp)
{
	static const struct {
		const char *var, *key;
	} gh[] = {
		{ "GITHUB_WORKFLOW", "cicd.pipeline.name" },
		{ "GITHUB_RUN_ID", "cicd.pipeline.run.id" },
		{ "GITHUB_SHA", "vcs.ref.head.revision" },
		{ "GITHUB_REF_NAME", "vcs.ref.head.name" },
	};
	const char *server = env_get(envp, "GITHUB_SERVER_URL"), *repo;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gh); i++) {
		const char *v = env_get(envp, gh[i].var);

		if (v)
			rn_otlp_cfg_set_resource_attr(cfg, gh[i].key, v);
	}
	repo = env_get(envp, "GITHUB_REPOSITORY");
	if (repo) {
		struct rn_buf url;

		rn_buf_init(&url, 0);
		rn_buf_adds(&url, server ? server : "https://github.com");
		if (url.len && url.buf[url.len - 1] != '/')
			rn_buf_addc(&url, '/');
		rn_buf_adds(&url, repo);
		if (!rn_buf_failed(&url))
			rn_otlp_cfg_set_resource_attr(cfg, "vcs.repository.url.full", url.buf);
		rn_buf_release(&url);
	}
}

int rn_otlp_cfg_apply_env(struct rn_otlp_cfg *cfg, const char *const *envp)
{
	const char *v, *which;

	v = env_get(envp, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
	if (v) {
		if (url_valid(v, NULL)) {
			free(cfg->endpoint);
			cfg->endpoint = rn_xstrdup(v); /* signal-specific: used as is */
			cfg->enabled = true;
		} else {
			rn_warn("ignoring OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: not an http:// or "
				"https:// URL");
		}
	} else if ((v = env_get(envp, "OTEL_EXPORTER_OTLP_ENDPOINT"))) {
		if (url_valid(v, NULL)) {
			free(cfg->endpoint);
			cfg->endpoint = endpoint_from_base(v);
			cfg->enabled = true;
		} else {
			rn_warn("ignoring OTEL_EXPORTER_OTLP_ENDPOINT: not an http:// or https:// "
				"URL");
		}
	}

	v = env_pair(envp, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS",
		     &which);
	if (v) {
		struct header_ctx h = { cfg, 0 };
		int skipped = rn_otlp_parse_list(v, env_header, &h) + h.bad;

		/* Count only: the entries may hold credentials. */
		if (skipped)
			rn_warn("ignoring %d malformed %s of %s", skipped,
				skipped == 1 ? "entry" : "entries", which);
	}

	v = env_pair(envp, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL",
		     &which);
	if (v && rn_otlp_protocol_parse(v, &cfg->protocol))
		rn_warn("ignoring %s '%s': expected http/protobuf or http/json", which, v);

	v = env_pair(envp, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT",
		     &which);
	if (v) {
		uint64_t ms;

		if (parse_u64(v, &ms) && ms > 0 && ms <= UINT32_MAX)
			cfg->timeout_ms = (uint32_t)ms;
		else
			rn_warn("ignoring %s '%s': expected a positive number of milliseconds",
				which, v);
	}

	v = env_pair(envp, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
		     "OTEL_EXPORTER_OTLP_COMPRESSION", &which);
	if (v && rn_otlp_compression_parse(v, &cfg->compression))
		rn_warn("ignoring %s '%s': expected gzip or none", which, v);

	v = env_get(envp, "OTEL_SERVICE_NAME");
	if (v)
		rn_otlp_cfg_set_service_name(cfg, v);

	detect_ci(cfg, envp);
	v = env_get(envp, "OTEL_RESOURCE_ATTRIBUTES");
	if (v) {
		int skipped = rn_otlp_parse_list(v, env_resource, cfg);

		if (skipped)
			rn_warn("ignoring %d malformed %s of OTEL_RESOURCE_ATTRIBUTES", skipped,
				skipped == 1 ? "entry" : "entries");
	}

	v = env_get(envp, "OTEL_SDK_DISABLED");
	if (v && !strcasecmp(v, "true"))
		cfg->disabled_by_env = true;
	v = env_get(envp, "OTEL_TRACES_EXPORTER");
	if (v && !strcasecmp(v, "none"))
		cfg->disabled_by_env = true;
	return 0;
}

int rn_otlp_cfg_from_env(struct rn_otlp_cfg *cfg)
{
	return rn_otlp_cfg_apply_env(cfg, NULL);
}

int rn_otlp_cfg_apply_file(struct rn_otlp_cfg *cfg, const struct rn_otlp_file_cfg *f)
{
	size_t i;

	if (f->endpoint && rn_otlp_cfg_set_endpoint(cfg, f->endpoint)) {
		rn_error("invalid [otlp] endpoint '%s': expected an http:// or https:// URL",
			 f->endpoint);
		return -EINVAL;
	}
	if (f->set_enabled)
		cfg->enabled = f->enabled;
	if (f->protocol && rn_otlp_cfg_set_protocol(cfg, f->protocol))
		return -EINVAL;
	if (f->compression && rn_otlp_cfg_set_compression(cfg, f->compression))
		return -EINVAL;
	if (f->syscall_spans && rn_otlp_syscall_mode_parse(f->syscall_spans, &cfg->syscall_spans)) {
		rn_error("unknown [otlp] syscall_spans '%s' (expected aggregate, all or threshold)",
			 f->syscall_spans);
		return -EINVAL;
	}
	if (f->service_name && rn_otlp_cfg_set_service_name(cfg, f->service_name)) {
		rn_error("[otlp] service_name must not be empty");
		return -EINVAL;
	}
	if (f->timeout_ms > 0)
		cfg->timeout_ms = f->timeout_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)f->timeout_ms;
	if (f->syscall_threshold_us >= 0)
		cfg->syscall_threshold_ns = (uint64_t)f->syscall_threshold_us * 1000u;
	if (f->required)
		cfg->required = true;
	for (i = 0; f->headers && f->headers[i]; i++) {
		const char *line = f->headers[i], *colon = strchr(line, ':');
		char *name;
		int rc;

		if (!colon) {
			rn_error("invalid [otlp] header #%zu: expected 'Name: value'", i + 1);
			return -EINVAL;
		}
		name = rn_xstrndup(line, (size_t)(colon - line));
		colon++;
		while (is_blank(*colon))
			colon++;
		rc = rn_otlp_cfg_set_header(cfg, name, colon);
		if (rc)
			/* The value may be a credential: only the name is quoted. */
			rn_error("invalid [otlp] header '%s': the name must be an HTTP token and the "
				 "value must not contain line breaks",
				 name);
		free(name);
		if (rc)
			return -EINVAL;
	}
	return 0;
}

int rn_otlp_cfg_finish(struct rn_otlp_cfg *cfg)
{
	if (cfg->disabled_by_env)
		cfg->enabled = false;
	if (!cfg->enabled)
		return 0;
	if (cfg->protocol == RN_OTLP_GRPC) {
		rn_error("OTLP protocol 'grpc' is not supported: renacer exports over OTLP/HTTP "
			 "only; use 'http/protobuf' (the default, port 4318) or 'http/json'");
		return -EINVAL;
	}
	if (!cfg->endpoint)
		cfg->endpoint = rn_xstrdup(RN_OTLP_DEFAULT_ENDPOINT);
	return 0;
}

bool rn_otlp_cfg_needs_spool(const struct rn_otlp_cfg *cfg)
{
	return cfg->syscall_spans != RN_OTLP_SYSCALLS_AGGREGATE;
}

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
		out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
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

static void random_bytes(void *out, size_t n)
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
		struct timespec ts;
		uint64_t x;

		rn_warn("getrandom failed (%s): trace ids are derived from the clock",
			strerror(errno));
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)getpid() << 32);
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

/* Roles of derived span ids (the first input of the derivation). */
enum span_role {
	ROLE_TARGET = 1,
	ROLE_RUN,
	ROLE_PROCESS,
	ROLE_SYSCALL_AGG,
	ROLE_SYSCALL,
	ROLE_GPU,
	ROLE_VERDICT,
};

/* Span id of (role, a, b, c): deterministic per context, so the traceparent handed to a run
 * before it starts names the span the export writes afterwards. Never all zeros. */
static void derive_id(const struct rn_otlp_context *ctx, enum span_role role, uint64_t a,
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
	struct timespec rt, mono;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &rt);
	return ((int64_t)rt.tv_sec - (int64_t)mono.tv_sec) * 1000000000 +
	       ((int64_t)rt.tv_nsec - (int64_t)mono.tv_nsec);
}

int rn_otlp_context_init(struct rn_otlp_context *ctx)
{
	return rn_otlp_context_init_env(ctx, NULL);
}

int rn_otlp_context_init_env(struct rn_otlp_context *ctx, const char *const *envp)
{
	const char *tp = env_get(envp, "TRACEPARENT");
	const char *ts = env_get(envp, "TRACESTATE");

	memset(ctx, 0, sizeof(*ctx));
	random_bytes(&ctx->salt, sizeof(ctx->salt));
	random_bytes(ctx->root_span_id, sizeof(ctx->root_span_id));
	if (all_zero(ctx->root_span_id, sizeof(ctx->root_span_id)))
		ctx->root_span_id[7] = 1;
	ctx->trace_flags = 0x01;
	ctx->mono_to_unix_ns = mono_to_unix_offset();
	if (tp && rn_otlp_traceparent_parse(tp, ctx->trace_id, ctx->parent_span_id,
					    &ctx->trace_flags)) {
		ctx->has_parent = true;
		/* Section 3.3: tracestate is only meaningful with a valid traceparent. */
		if (ts && rn_otlp_tracestate_valid(ts))
			memcpy(ctx->trace_state, ts, strlen(ts) + 1);
		return 0;
	}
	if (tp)
		rn_warn("ignoring TRACEPARENT: not a valid W3C traceparent; starting a new trace");
	random_bytes(ctx->trace_id, sizeof(ctx->trace_id));
	if (all_zero(ctx->trace_id, sizeof(ctx->trace_id)))
		ctx->trace_id[15] = 1;
	return 0;
}

static void run_span_id(const struct rn_otlp_context *ctx, size_t target, size_t run,
			uint8_t out[8])
{
	if (run == RN_OTLP_RUN_NONE)
		derive_id(ctx, ROLE_TARGET, target, 0, 0, out);
	else
		derive_id(ctx, ROLE_RUN, target, run, 0, out);
}

int rn_otlp_traceparent(const struct rn_otlp_context *ctx, size_t target, size_t run, char *out,
			size_t cap)
{
	uint8_t sid[8];

	if (cap < RN_OTLP_TRACEPARENT_LEN + 1)
		return -ENOSPC;
	run_span_id(ctx, target, run, sid);
	memcpy(out, "00-", 3);
	rn_otlp_hex(ctx->trace_id, 16, out + 3);
	out[35] = '-';
	rn_otlp_hex(sid, 8, out + 36);
	out[52] = '-';
	rn_otlp_hex(&ctx->trace_flags, 1, out + 53);
	return 0;
}

/* ---- Redaction of command lines ---------------------------------------------------------- */

static const char redacted[] = "[REDACTED]";

const char *const rn_redact_default_words[] = { "token", "secret", "password", "passwd", "key",
						NULL };

/* Does the name s[0..n) contain one of `words` (case-insensitive)? */
static bool secret_word(const char *s, size_t n, const char *const *words)
{
	size_t i, j;

	for (i = 0; words[i]; i++) {
		size_t w = strlen(words[i]);

		if (!w)
			continue;
		for (j = 0; j + w <= n; j++)
			if (!strncasecmp(s + j, words[i], w))
				return true;
	}
	return false;
}

/* "KEY=VALUE" where KEY could be an environment variable name ([A-Za-z_][A-Za-z0-9_]*). */
static bool env_assignment(const char *s, size_t *keylen)
{
	size_t i;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; s[i] && s[i] != '='; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	if (s[i] != '=')
		return false;
	*keylen = i;
	return true;
}

static char *join(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	char *s = rn_xmalloc(alen + blen + 1);

	memcpy(s, a, alen);
	memcpy(s + alen, b, blen + 1);
	return s;
}

/* Redact the password of "scheme://user:password@host..." inside `arg`, or NULL if none. */
static char *redact_url(const char *arg)
{
	const char *sep = strstr(arg, "://"), *auth, *at, *colon;

	if (!sep)
		return NULL;
	auth = sep + 3;
	at = auth + strcspn(auth, "@/?#");
	if (*at != '@')
		return NULL;
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (!colon)
		return NULL;
	{
		char *head = join(arg, (size_t)(colon + 1 - arg), redacted);
		char *s = join(head, strlen(head), at);

		free(head);
		return s;
	}
}

/* Is c a shell word separator (outside quotes)? */
static bool shell_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
	       c == ')' || c == '`';
}

/* End of the shell word starting at s (quotes and backslashes kept inside the word). */
static const char *shell_word_end(const char *s)
{
	char q = 0;

	for (; *s; s++) {
		if (q) {
			if (*s == q)
				q = 0;
			else if (q == '"' && *s == '\\' && s[1])
				s++;
		} else if (*s == '\'' || *s == '"') {
			q = *s;
		} else if (*s == '\\' && s[1]) {
			s++;
		} else if (shell_sep(*s)) {
			break;
		}
	}
	return s;
}

/* Secrets inside a shell command string ("sh -c '...'", `shell = true`): each shell word gets
 * the rules of rn_redact_argv (--flag=VALUE, --flag VALUE, KEY=VALUE, URL passwords), the text
 * between words is kept. A word in matching quotes is judged by what is inside them. Returns
 * the redacted string, or NULL when nothing was redacted. */
static char *redact_shell(const char *a, const char *const *words)
{
	struct rn_buf b;
	const char *p = a;
	bool next_secret = false, changed = false;

	rn_buf_init(&b, 0);
	while (*p) {
		const char *ws = p, *we, *in, *ie, *val = NULL;
		char *word, *url;
		size_t klen;

		if (shell_sep(*p)) {
			rn_buf_addc(&b, *p++);
			continue;
		}
		we = shell_word_end(p);
		p = we;
		in = ws;
		ie = we;
		if (ie - in >= 2 && (*in == '\'' || *in == '"') && ie[-1] == *in) {
			in++;
			ie--;
		}
		word = rn_xstrndup(in, (size_t)(ie - in));
		if (next_secret) {
			val = in;
			next_secret = false;
		} else if (word[0] == '-' && word[1] && strcmp(word, "--")) {
			const char *name = word + strspn(word, "-");
			const char *eq = strchr(name, '=');
			size_t nlen = eq ? (size_t)(eq - name) : strlen(name);

			if (secret_word(name, nlen, words)) {
				if (eq)
					val = in + (eq + 1 - word);
				else
					next_secret = true;
			}
		} else if (env_assignment(word, &klen) && secret_word(word, klen, words)) {
			val = in + klen + 1;
		}
		if (val) {
			rn_buf_add(&b, ws, (size_t)(val - ws));
			rn_buf_adds(&b, redacted);
			rn_buf_add(&b, ie, (size_t)(we - ie));
			changed = true;
		} else if ((url = redact_url(word))) {
			rn_buf_add(&b, ws, (size_t)(in - ws));
			rn_buf_adds(&b, url);
			rn_buf_add(&b, ie, (size_t)(we - ie));
			free(url);
			changed = true;
		} else {
			rn_buf_add(&b, ws, (size_t)(we - ws));
		}
		free(word);
	}
	if (rn_buf_failed(&b))
		rn_die("out of memory");
	if (!changed) {
		rn_buf_release(&b);
		return NULL;
	}
	return rn_buf_detach(&b, NULL);
}

char **rn_otlp_redact_argv(const char *const *argv)
{
	return rn_redact_argv(argv, NULL);
}

char **rn_redact_argv(const char *const *argv, const char *const *words)
{
	size_t n = 0, i;
	bool next_secret = false;
	char **out;

	if (!argv)
		return NULL;
	if (!words)
		words = rn_redact_default_words;
	while (argv[n])
		n++;
	out = rn_xcalloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++) {
		const char *a = argv[i];
		size_t klen;

		if (next_secret) {
			out[i] = rn_xstrdup(redacted);
			next_secret = false;
			continue;
		}
		if (a[0] == '-' && a[1] && strcmp(a, "--")) {
			const char *name = a + strspn(a, "-");
			const char *eq = strchr(name, '=');
			size_t nlen = eq ? (size_t)(eq - name) : strlen(name);

			if (secret_word(name, nlen, words)) {
				if (eq)
					out[i] = join(a, (size_t)(eq + 1 - a), redacted);
				else
					next_secret = true;
			}
		} else if (env_assignment(a, &klen) && secret_word(a, klen, words)) {
			out[i] = join(a, klen + 1, redacted);
		}
		if (!out[i] && a[strcspn(a, " \t\n;&|()`")])
			out[i] = redact_shell(a, words);
		if (!out[i])
			out[i] = redact_url(a);
		if (!out[i])
			out[i] = rn_xstrdup(a);
	}
	return out;
}

void rn_otlp_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* ---- UTF-8 hygiene ------------------------------------------------------------------------ */

/* ---- OTLP/JSON encoding (OTLP 1.x, Specification: "JSON Protobuf Encoding") ---------------- */

static json_t *jstr(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *fixed;

	if (j)
		return j;
	fixed = rn_utf8_fix(s);
	j = json_string(fixed);
	free(fixed);
	return j;
}

/* 64-bit integers are decimal strings in the proto3 JSON mapping. */
static json_t *jint64(int64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
	return json_string(tmp);
}

static json_t *juint64(uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	return json_string(tmp);
}

/* Doubles are numbers, except the non-finite ones, which are the strings of the mapping. */
static json_t *jdouble(double d)
{
	if (isnan(d))
		return json_string("NaN");
	if (isinf(d))
		return json_string(d > 0 ? "Infinity" : "-Infinity");
	return json_real(d);
}

static json_t *jhex(const uint8_t *id, size_t n)
{
	char tmp[33];

	rn_otlp_hex(id, n, tmp);
	return json_string(tmp);
}

/* Set o[k] = v, remembering a failure (v NULL or out of memory) in *ok. */
static void jset(json_t *o, const char *k, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, k, v))
		*ok = false;
}

static void jpush(json_t *a, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(a, v))
		*ok = false;
}

static json_t *anyvalue_json(const struct rn_otlp_attr *a, bool *ok)
{
	json_t *v = json_object(), *arr, *values;
	size_t i;

	if (!v) {
		*ok = false;
		return NULL;
	}
	switch (a->type) {
	case RN_OTLP_VAL_STRING:
		jset(v, "stringValue", jstr(a->u.s), ok);
		break;
	case RN_OTLP_VAL_BOOL:
		jset(v, "boolValue", json_boolean(a->u.b), ok);
		break;
	case RN_OTLP_VAL_INT:
		jset(v, "intValue", jint64(a->u.i), ok);
		break;
	case RN_OTLP_VAL_DOUBLE:
		jset(v, "doubleValue", jdouble(a->u.d), ok);
		break;
	case RN_OTLP_VAL_STRINGS:
	case RN_OTLP_VAL_INTS:
		arr = json_object();
		values = json_array();
		jset(arr, "values", values, ok);
		jset(v, "arrayValue", arr, ok);
		if (!values)
			break;
		for (i = 0; a->type == RN_OTLP_VAL_STRINGS && i < a->u.strs.n; i++) {
			json_t *e = json_object();

			jset(e, "stringValue", jstr(a->u.strs.v[i]), ok);
			jpush(values, e, ok);
		}
		for (i = 0; a->type == RN_OTLP_VAL_INTS && i < a->u.ints.n; i++) {
			json_t *e = json_object();

			jset(e, "intValue", jint64(a->u.ints.v[i]), ok);
			jpush(values, e, ok);
		}
		break;
	}
	return v;
}

static json_t *attrs_json(const struct rn_otlp_attr *a, size_t n, bool *ok)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && i < n; i++) {
		json_t *kv = json_object();

		if (kv) {
			jset(kv, "key", jstr(a[i].key), ok);
			jset(kv, "value", anyvalue_json(&a[i], ok), ok);
		}
		jpush(arr, kv, ok);
	}
	if (!arr)
		*ok = false;
	return arr;
}

/* One Span object; NULL on out-of-memory. Empty repeated fields and defaults are omitted. */
static json_t *span_json(const struct rn_otlp_span *s)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	size_t i;

	if (!o)
		return NULL;
	jset(o, "traceId", jhex(s->trace_id, 16), &ok);
	jset(o, "spanId", jhex(s->span_id, 8), &ok);
	if (s->trace_state && *s->trace_state)
		jset(o, "traceState", jstr(s->trace_state), &ok);
	if (s->has_parent)
		jset(o, "parentSpanId", jhex(s->parent_span_id, 8), &ok);
	if (s->flags)
		jset(o, "flags", json_integer(s->flags), &ok);
	jset(o, "name", jstr(s->name), &ok);
	if (s->kind)
		jset(o, "kind", json_integer(s->kind), &ok);
	jset(o, "startTimeUnixNano", juint64(s->start_unix_ns), &ok);
	jset(o, "endTimeUnixNano", juint64(s->end_unix_ns), &ok);
	if (s->nattrs)
		jset(o, "attributes", attrs_json(s->attrs, s->nattrs, &ok), &ok);
	if (s->nevents) {
		json_t *evs = json_array();

		for (i = 0; evs && i < s->nevents; i++) {
			const struct rn_otlp_event *e = &s->events[i];
			json_t *ev = json_object();

			if (ev) {
				jset(ev, "timeUnixNano", juint64(e->time_unix_ns), &ok);
				jset(ev, "name", jstr(e->name), &ok);
				if (e->nattrs)
					jset(ev, "attributes", attrs_json(e->attrs, e->nattrs, &ok),
					     &ok);
			}
			jpush(evs, ev, &ok);
		}
		jset(o, "events", evs, &ok);
	}
	if (s->nlinks) {
		json_t *lks = json_array();

		for (i = 0; lks && i < s->nlinks; i++) {
			const struct rn_otlp_link *l = &s->links[i];
			json_t *lk = json_object();

			if (lk) {
				jset(lk, "traceId", jhex(l->trace_id, 16), &ok);
				jset(lk, "spanId", jhex(l->span_id, 8), &ok);
				if (l->trace_state && *l->trace_state)
					jset(lk, "traceState", jstr(l->trace_state), &ok);
				if (l->nattrs)
					jset(lk, "attributes", attrs_json(l->attrs, l->nattrs, &ok),
					     &ok);
				if (l->flags)
					jset(lk, "flags", json_integer(l->flags), &ok);
			}
			jpush(lks, lk, &ok);
		}
		jset(o, "links", lks, &ok);
	}
	if (s->status || (s->status_message && *s->status_message)) {
		json_t *st = json_object();

		if (st) {
			if (s->status_message && *s->status_message)
				jset(st, "message", jstr(s->status_message), &ok);
			if (s->status)
				jset(st, "code", json_integer(s->status), &ok);
		}
		jset(o, "status", st, &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A whole ExportTraceServiceRequest around `spans` (a JSON array, borrowed), dumped compact.
 * Caller frees; NULL on out-of-memory. */
static char *request_json(const struct rn_otlp_resource *res, json_t *spans, size_t *len)
{
	json_t *req = json_object(), *rss = json_array(), *rs = json_object();
	json_t *resource = json_object(), *sss = json_array(), *ss = json_object();
	json_t *scope = json_object();
	bool ok = req && rss && rs && resource && sss && ss && scope;
	char *out = NULL;

	if (ok) {
		jset(resource, "attributes", attrs_json(res->attrs, res->nattrs, &ok), &ok);
		jset(scope, "name", jstr(res->scope_name), &ok);
		if (res->scope_version)
			jset(scope, "version", jstr(res->scope_version), &ok);
		jset(ss, "scope", scope, &ok);
		jset(ss, "spans", json_incref(spans), &ok);
		jpush(sss, ss, &ok);
		jset(rs, "resource", resource, &ok);
		jset(rs, "scopeSpans", sss, &ok);
		jpush(rss, rs, &ok);
		jset(req, "resourceSpans", rss, &ok);
		if (ok)
			out = json_dumps(req, JSON_COMPACT);
		json_decref(req);
	} else {
		json_decref(req);
		json_decref(rss);
		json_decref(rs);
		json_decref(resource);
		json_decref(sss);
		json_decref(ss);
		json_decref(scope);
	}
	if (out && len)
		*len = strlen(out);
	return out;
}

/* ---- Batches: spans are encoded as they are produced and sent when a request is full ------ */

struct batch {
	enum rn_otlp_protocol proto;        /* protobuf or JSON */
	const struct rn_otlp_resource *res; /* resource and scope of every request */
	size_t max_bytes;                   /* request size cap, bytes */
	size_t overhead;                    /* bytes of a request without spans */
	struct rn_buf pb;                   /* protobuf: encoded ScopeSpans.spans fields */
	struct rn_buf tmp;                  /* protobuf: the span being added */
	json_t *jspans;                     /* JSON: the spans of the request */
	size_t jbytes;                      /* JSON: their encoded size, commas included */
	size_t nspans;                      /* spans waiting */
	size_t sent;                        /* spans handed to `flush` successfully */
	int (*flush)(void *ctx, const char *body, size_t len, size_t nspans); /* sink */
	void *ctx;                          /* for flush */
	int err;                            /* sticky first error, negative errno */
};

static void batch_release(struct batch *b)
{
	rn_buf_release(&b->pb);
	rn_buf_release(&b->tmp);
	json_decref(b->jspans);
	b->jspans = NULL;
}

static int batch_init(struct batch *b, enum rn_otlp_protocol proto,
		      const struct rn_otlp_resource *res, size_t max_bytes,
		      int (*flush)(void *, const char *, size_t, size_t), void *ctx)
{
	memset(b, 0, sizeof(*b));
	if (proto != RN_OTLP_HTTP_PROTOBUF && proto != RN_OTLP_HTTP_JSON)
		return -EINVAL;
	b->proto = proto;
	b->res = res;
	b->max_bytes = max_bytes ? max_bytes : RN_OTLP_DEFAULT_MAX_REQUEST_BYTES;
	b->flush = flush;
	b->ctx = ctx;
	rn_buf_init(&b->pb, 0);
	rn_buf_init(&b->tmp, 0);
	if (proto == RN_OTLP_HTTP_PROTOBUF) {
		rn_otlp_pb_request(&b->tmp, res, NULL, 0);
		b->overhead = b->tmp.len + 16; /* room for longer nested length varints */
		if (rn_buf_failed(&b->tmp))
			goto out_nomem;
		rn_buf_reset(&b->tmp);
	} else {
		char *empty;

		b->jspans = json_array();
		empty = b->jspans ? request_json(res, b->jspans, &b->overhead) : NULL;
		if (!empty)
			goto out_nomem;
		free(empty);
	}
	return 0;
out_nomem:
	batch_release(b);
	return -ENOMEM;
}

static int batch_flush(struct batch *b)
{
	int rc;

	if (b->err || !b->nspans)
		return b->err;
	if (b->proto == RN_OTLP_HTTP_PROTOBUF) {
		struct rn_buf body;

		rn_buf_init(&body, 0);
		rn_otlp_pb_request(&body, b->res, b->pb.buf, b->pb.len);
		rc = rn_buf_failed(&body) ? -ENOMEM : b->flush(b->ctx, body.buf, body.len, b->nspans);
		rn_buf_release(&body);
		rn_buf_reset(&b->pb);
	} else {
		size_t len;
		char *body = request_json(b->res, b->jspans, &len);

		rc = body ? b->flush(b->ctx, body, len, b->nspans) : -ENOMEM;
		free(body);
		json_array_clear(b->jspans);
		b->jbytes = 0;
	}
	if (rc < 0)
		b->err = rc;
	else
		b->sent += b->nspans;
	b->nspans = 0;
	return rc < 0 ? rc : 0;
}

static int batch_add(struct batch *b, const struct rn_otlp_span *s)
{
	if (b->err)
		return b->err;
	if (b->proto == RN_OTLP_HTTP_PROTOBUF) {
		rn_buf_reset(&b->tmp);
		rn_otlp_pb_span(&b->tmp, 2, s);
		if (rn_buf_failed(&b->tmp))
			return b->err = -ENOMEM;
		if (b->nspans && b->overhead + b->pb.len + b->tmp.len > b->max_bytes &&
		    batch_flush(b))
			return b->err;
		rn_buf_add(&b->pb, b->tmp.buf, b->tmp.len);
		if (rn_buf_failed(&b->pb))
			return b->err = -ENOMEM;
	} else {
		json_t *j = span_json(s);
		size_t len = j ? json_dumpb(j, NULL, 0, JSON_COMPACT) + 1 : 0;

		if (!j || len == 1) {
			json_decref(j);
			return b->err = -ENOMEM;
		}
		if (b->nspans && b->overhead + b->jbytes + len > b->max_bytes && batch_flush(b)) {
			json_decref(j);
			return b->err;
		}
		if (json_array_append_new(b->jspans, j))
			return b->err = -ENOMEM;
		b->jbytes += len;
	}
	b->nspans++;
	return 0;
}

static int append_body(void *ctx, const char *body, size_t len, size_t nspans)
{
	(void)nspans;
	return rn_buf_add(ctx, body, len);
}

int rn_otlp_encode_request(enum rn_otlp_protocol protocol, const struct rn_otlp_resource *res,
			   const struct rn_otlp_span *spans, size_t n, struct rn_buf *out)
{
	struct batch b;
	size_t i;
	int rc = batch_init(&b, protocol, res, SIZE_MAX, append_body, out);

	for (i = 0; !rc && i < n; i++)
		rc = batch_add(&b, &spans[i]);
	if (!rc && n) {
		rc = batch_flush(&b);
	} else if (!rc && protocol == RN_OTLP_HTTP_PROTOBUF) {
		rn_otlp_pb_request(out, res, NULL, 0); /* an empty request is still a request */
	} else if (!rc) {
		size_t len;
		char *body = request_json(res, b.jspans, &len);

		rc = body ? rn_buf_add(out, body, len) : -ENOMEM;
		free(body);
	}
	batch_release(&b);
	if (!rc && rn_buf_failed(out))
		rc = -ENOMEM;
	return rc;
}

/* ---- From results to spans ---------------------------------------------------------------- */

static const char *const run_status_names[] = {
	[RN_RUN_OK] = "ok",
	[RN_RUN_EXEC_FAILED] = "exec_failed",
	[RN_RUN_CRASHED] = "crashed",
	[RN_RUN_TIMED_OUT] = "timed_out",
	[RN_RUN_INTERRUPTED] = "interrupted",
	[RN_RUN_LIMIT] = "limit",
	[RN_RUN_ERROR] = "error",
};

static const char *const proc_end_names[] = {
	[RN_PROC_RUNNING] = "running",
	[RN_PROC_EXITED] = "exited",
	[RN_PROC_SIGNALED] = "signaled",
	[RN_PROC_LOST] = "lost",
};

static const char *const gpu_dir_names[] = {
	[RN_GPU_DIR_NONE] = "none",
	[RN_GPU_DIR_HTOD] = "host_to_device",
	[RN_GPU_DIR_DTOH] = "device_to_host",
	[RN_GPU_DIR_DTOD] = "device_to_device",
	[RN_GPU_DIR_HTOH] = "host_to_host",
};

static const char *const verdict_labels[] = {
#define LABEL(id, label) label,
	RN_VERDICTS(LABEL)
#undef LABEL
};

/* Root span attribute "renacer.check.verdicts.<label>": counts per verdict. */
static const char *const verdict_count_keys[] = {
	[RN_VERDICT_PASS] = "renacer.check.verdicts.pass",
	[RN_VERDICT_FAIL] = "renacer.check.verdicts.fail",
	[RN_VERDICT_WARN] = "renacer.check.verdicts.warn",
	[RN_VERDICT_SKIP] = "renacer.check.verdicts.skip",
	[RN_VERDICT_NO_DATA] = "renacer.check.verdicts.no_data",
	[RN_VERDICT_ERROR] = "renacer.check.verdicts.error",
	[RN_VERDICT_NOT_JUDGED] = "renacer.check.verdicts.not_judged",
};

/* Run span attribute keys: "renacer.run.<metric>" plus "_ns" or "_bytes" (units in names;
 * counts carry none), derived once from the metric table. */
static const char *metric_key(enum rn_metric m)
{
	static const struct {
		const char *name, *unit;
	} tab[] = {
#define METRIC(id, name, unit, desc) { name, unit },
		RN_METRICS(METRIC)
#undef METRIC
	};
	static char keys[RN_METRIC_COUNT][64];

	if (!keys[m][0]) {
		size_t n = strlen(tab[m].name), u = strlen(tab[m].unit);
		/* "gpu_copy_bytes" already says its unit */
		bool named = n > u && tab[m].name[n - u - 1] == '_' &&
			     !strcmp(tab[m].name + n - u, tab[m].unit);
		bool suffix = strcmp(tab[m].unit, "count") && !named;

		snprintf(keys[m], sizeof(keys[m]), "renacer.run.%s%s%s", tab[m].name,
			 suffix ? "_" : "", suffix ? tab[m].unit : "");
	}
	return keys[m];
}

#define NAME_OF(table, i) ((size_t)(i) < ARRAY_SIZE(table) && (table)[i] ? (table)[i] : "unknown")

#define SB_MAX_ATTRS 40
#define SB_MAX_OWNED 40

/* One span being built: the model plus storage for its attributes and fixed-up strings. */
struct sb {
	struct rn_otlp_span s;                 /* the span */
	struct rn_otlp_attr attrs[SB_MAX_ATTRS]; /* its attributes */
	struct rn_otlp_event events[2];        /* its events */
	struct rn_otlp_attr ev_attrs[2][4];    /* attributes of each event */
	char name[320];                        /* storage of s.name */
	char *owned[SB_MAX_OWNED];             /* UTF-8-fixed copies, freed after emit */
	size_t nowned;                         /* owned used */
};

/* `s` if it is valid UTF-8, else a fixed copy that lives until the span is emitted. */
static const char *sb_keep(struct sb *b, const char *s)
{
	if (!s || rn_utf8_valid(s))
		return s;
	if (b->nowned == SB_MAX_OWNED)
		return "\xef\xbf\xbd";
	b->owned[b->nowned] = rn_utf8_fix(s);
	return b->owned[b->nowned++];
}

static struct rn_otlp_attr *sb_attr(struct sb *b, const char *key, enum rn_otlp_value_type t)
{
	struct rn_otlp_attr *a;

	if (b->s.nattrs == SB_MAX_ATTRS)
		return NULL;
	a = &b->attrs[b->s.nattrs++];
	a->key = key;
	a->type = t;
	return a;
}

static void sb_str(struct sb *b, const char *key, const char *v)
{
	struct rn_otlp_attr *a;

	if (v && (a = sb_attr(b, key, RN_OTLP_VAL_STRING)))
		a->u.s = sb_keep(b, v);
}

static void sb_int(struct sb *b, const char *key, int64_t v)
{
	struct rn_otlp_attr *a = sb_attr(b, key, RN_OTLP_VAL_INT);

	if (a)
		a->u.i = v;
}

static void sb_u64(struct sb *b, const char *key, uint64_t v)
{
	sb_int(b, key, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void sb_bool(struct sb *b, const char *key, bool v)
{
	struct rn_otlp_attr *a = sb_attr(b, key, RN_OTLP_VAL_BOOL);

	if (a)
		a->u.b = v;
}

static void sb_double(struct sb *b, const char *key, double v)
{
	struct rn_otlp_attr *a = sb_attr(b, key, RN_OTLP_VAL_DOUBLE);

	if (a)
		a->u.d = v;
}

/* Attach an event; its attributes are added with sb_event_str. Returns the event or NULL. */
static struct rn_otlp_event *sb_event(struct sb *b, const char *name, uint64_t time_unix_ns)
{
	struct rn_otlp_event *e;

	if (b->s.nevents == ARRAY_SIZE(b->events))
		return NULL;
	e = &b->events[b->s.nevents];
	e->name = name;
	e->time_unix_ns = time_unix_ns;
	e->attrs = b->ev_attrs[b->s.nevents];
	b->s.nevents++;
	return e;
}

static void sb_event_attr(struct sb *b, struct rn_otlp_event *e, const struct rn_otlp_attr *a)
{
	struct rn_otlp_attr *slot;
	size_t idx = (size_t)(e - b->events);

	if (e->nattrs == ARRAY_SIZE(b->ev_attrs[0]))
		return;
	slot = &b->ev_attrs[idx][e->nattrs++];
	*slot = *a;
	if (slot->type == RN_OTLP_VAL_STRING)
		slot->u.s = sb_keep(b, slot->u.s);
}

struct walk {
	const struct rn_otlp_cfg *cfg;      /* export settings */
	const struct rn_otlp_context *ctx;  /* ids and clock offset */
	const struct rn_otlp_input *in;     /* what to export */
	struct batch *batch;                /* where spans go */
	uint32_t span_flags;                /* Span.flags of non-root spans */
	uint64_t root_start, root_end;      /* the root span, Unix ns */
	bool warned_spool;                  /* the no-spool fallback was reported */
};

static uint64_t to_unix(uint64_t mono_ns, int64_t off)
{
	return mono_ns ? (uint64_t)((int64_t)mono_ns + off) : 0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sb_begin(struct walk *w, struct sb *b, const uint8_t id[8], const uint8_t *parent,
		     uint64_t start, uint64_t end)
{
	memset(&b->s, 0, sizeof(b->s));
	b->nowned = 0;
	memcpy(b->s.trace_id, w->ctx->trace_id, 16);
	memcpy(b->s.span_id, id, 8);
	if (parent) {
		memcpy(b->s.parent_span_id, parent, 8);
		b->s.has_parent = true;
	}
	b->s.kind = RN_OTLP_KIND_INTERNAL;
	b->s.flags = w->span_flags;
	b->s.start_unix_ns = start;
	b->s.end_unix_ns = end < start ? start : end;
	b->s.attrs = b->attrs;
	b->s.events = b->events;
	memset(b->events, 0, sizeof(b->events));
}

static void sb_name(struct sb *b, const char *fmt, ...) RN_PRINTF(2, 3);
static void sb_name(struct sb *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->name, sizeof(b->name), fmt, ap);
	va_end(ap);
	b->s.name = sb_keep(b, b->name);
}

static int sb_emit(struct walk *w, struct sb *b)
{
	int rc = batch_add(w->batch, &b->s);
	size_t i;

	for (i = 0; i < b->nowned; i++)
		free(b->owned[i]);
	b->nowned = 0;
	return rc;
}

static void sb_error(struct sb *b, const char *msg)
{
	b->s.status = RN_OTLP_STATUS_ERROR;
	b->s.status_message = sb_keep(b, msg);
}

/* Per-target state of the walk. */
struct twalk {
	size_t j;                         /* index of the target */
	const struct rn_target_result *r; /* the target */
	uint8_t target_id[8];             /* its span */
	uint8_t procs_parent[8];          /* parent of the root process: the last run's span */
	int64_t off;                      /* CLOCK_MONOTONIC -> Unix of the last run, ns */
	uint64_t start, end;              /* the target span, Unix ns */
};

static int emit_root(struct walk *w)
{
	const struct rn_otlp_input *in = w->in;
	size_t counts[RN_VERDICT_COUNT] = { 0 }, i;
	struct sb b;
	char msg[64];

	for (i = 0; i < in->nverdicts; i++)
		if ((size_t)in->verdicts[i].verdict < RN_VERDICT_COUNT)
			counts[in->verdicts[i].verdict]++;
	sb_begin(w, &b, w->ctx->root_span_id, w->ctx->has_parent ? w->ctx->parent_span_id : NULL,
		 w->root_start, w->root_end);
	sb_name(&b, "renacer check");
	b.s.trace_state = w->ctx->trace_state;
	b.s.flags = w->ctx->trace_flags | RN_OTLP_SPAN_FLAGS_HAS_IS_REMOTE |
		    (w->ctx->has_parent ? RN_OTLP_SPAN_FLAGS_IS_REMOTE : 0);
	sb_int(&b, "renacer.check.exit_code", in->exit_code);
	sb_str(&b, "renacer.config.path", in->config_path);
	sb_u64(&b, "renacer.check.targets", in->ntargets);
	for (i = 0; i < RN_VERDICT_COUNT; i++)
		sb_u64(&b, verdict_count_keys[i], counts[i]);
	if (in->exit_code) {
		snprintf(msg, sizeof(msg), "exit code %d", in->exit_code);
		sb_error(&b, msg);
	}
	return sb_emit(w, &b);
}

static int emit_target(struct walk *w, struct twalk *t)
{
	const struct rn_target_result *r = t->r;
	struct sb b;

	sb_begin(w, &b, t->target_id, w->ctx->root_span_id, t->start, t->end);
	sb_name(&b, "target:%s", r->name ? r->name : "");
	sb_str(&b, "renacer.target.name", r->name);
	sb_u64(&b, "renacer.target.runs", r->nruns);
	sb_str(&b, "renacer.target.status", NAME_OF(run_status_names, r->status));
	sb_str(&b, "renacer.target.build_id", r->build_id);
	if (r->status != RN_RUN_OK)
		sb_error(&b, r->error ? r->error : NAME_OF(run_status_names, r->status));
	return sb_emit(w, &b);
}

static uint64_t run_start_unix(const struct walk *w, const struct rn_metrics *m)
{
	return m->start_unix_ns ? m->start_unix_ns : to_unix(m->start_ns, w->ctx->mono_to_unix_ns);
}

static int emit_run(struct walk *w, struct twalk *t, size_t i)
{
	const struct rn_metrics *m = &t->r->runs[i];
	uint64_t start = run_start_unix(w, m);
	uint8_t id[8];
	struct sb b;
	int k;

	run_span_id(w->ctx, t->j, i, id);
	sb_begin(w, &b, id, t->target_id, start, start + m->v[RN_METRIC_WALL]);
	sb_name(&b, "run:%zu", i);
	sb_u64(&b, "renacer.run.index", i);
	sb_str(&b, "renacer.run.status", NAME_OF(run_status_names, m->status));
	for (k = 0; k < RN_METRIC_COUNT; k++) {
		if (!m->has_gpu && (k == RN_METRIC_GPU_BUSY || k == RN_METRIC_GPU_DISPATCHES ||
				    k == RN_METRIC_GPU_COPY_BYTES))
			continue;
		if (k == RN_METRIC_INSTRUCTIONS && !m->v[k])
			continue; /* not counted (no Valgrind run) */
		sb_u64(&b, metric_key((enum rn_metric)k), m->v[k]);
	}
	if (m->status != RN_RUN_OK)
		sb_error(&b, NAME_OF(run_status_names, m->status));
	return sb_emit(w, &b);
}

/* Index of the process that had thread group `pid` at time `ns` (pids can be reused within a
 * run: the newest process born before `ns`), or -1. */
static int proc_at(const struct rn_trace *t, pid_t pid, uint64_t ns)
{
	int i = rn_trace_find_process(t, pid);

	if (i < 0 || t->procs[i].start_ns <= ns)
		return i;
	for (i--; i >= 0; i--)
		if (t->procs[i].pid == pid && t->procs[i].start_ns <= ns)
			return i;
	return -1;
}

/* Span id of process `k` of target t, or the procs_parent when k < 0. */
static void proc_span_id(const struct walk *w, const struct twalk *t, int k, uint8_t out[8])
{
	if (k < 0)
		memcpy(out, t->procs_parent, 8);
	else
		derive_id(w->ctx, ROLE_PROCESS, t->j, (uint64_t)k, 0, out);
}

static int emit_process(struct walk *w, struct twalk *t, size_t k)
{
	const struct rn_trace *tr = &t->r->last;
	const struct rn_process *p = &tr->procs[k];
	uint64_t end_ns = p->end_ns ? p->end_ns : tr->end_ns;
	uint8_t id[8], parent[8];
	char **args = NULL;
	char msg[64];
	struct sb b;
	int rc;

	proc_span_id(w, t, (int)k, id);
	proc_span_id(w, t, p->parent, parent);
	sb_begin(w, &b, id, parent, to_unix(p->start_ns, t->off), to_unix(end_ns, t->off));
	if (p->comm)
		sb_name(&b, "process:%s", p->comm);
	else
		sb_name(&b, "process:%d", (int)p->pid);
	sb_int(&b, "process.pid", p->pid);
	if (p->ppid)
		sb_int(&b, "process.parent_pid", p->ppid);
	sb_str(&b, "process.executable.name", p->comm);
	sb_str(&b, "process.executable.path", p->exe);
	if (k == 0 && w->in->argv && w->in->argv[t->j]) {
		size_t n = 0;

		args = rn_redact_argv(w->in->argv[t->j],
				      (const char *const *)w->cfg->redact_words);
		while (args[n]) {
			if (!rn_utf8_valid(args[n])) {
				char *fixed = rn_utf8_fix(args[n]);

				free(args[n]);
				args[n] = fixed;
			}
			n++;
		}
		{
			struct rn_otlp_attr *a = sb_attr(&b, "process.command_args",
							 RN_OTLP_VAL_STRINGS);

			if (a) {
				a->u.strs.v = (const char *const *)args;
				a->u.strs.n = n;
			}
		}
	}
	if (p->end == RN_PROC_EXITED)
		sb_int(&b, "process.exit.code", p->exit_code);
	if (p->build_id[0])
		sb_str(&b, "renacer.process.build_id", p->build_id);
	sb_str(&b, "renacer.process.end", NAME_OF(proc_end_names, p->end));
	if (p->end == RN_PROC_SIGNALED) {
		sb_int(&b, "renacer.process.signal", p->term_signal);
		sb_bool(&b, "renacer.process.core_dumped", p->core_dumped);
	}
	sb_u64(&b, "renacer.process.threads", p->nthreads);
	sb_u64(&b, "renacer.process.syscalls", p->syscalls);
	sb_u64(&b, "renacer.process.syscall_errors", p->syscall_errors);
	sb_u64(&b, "renacer.process.syscall_time_ns", p->syscall_ns);
	if (p->vm_hwm_bytes)
		sb_u64(&b, "renacer.process.peak_rss_bytes", p->vm_hwm_bytes);
	sb_u64(&b, "renacer.process.alloc_peak_bytes", p->alloc_peak_bytes);
	sb_u64(&b, "renacer.process.alloc_total_bytes", p->alloc_total_bytes);
	if (p->exec_ns) {
		struct rn_otlp_event *e = sb_event(&b, "exec", to_unix(p->exec_ns, t->off));
		struct rn_otlp_attr a = { .key = "process.executable.path",
					  .type = RN_OTLP_VAL_STRING };

		a.u.s = p->exe;
		if (e && p->exe)
			sb_event_attr(&b, e, &a);
	}
	if (p->end == RN_PROC_SIGNALED) {
		snprintf(msg, sizeof(msg), "killed by signal %d%s", p->term_signal,
			 p->core_dumped ? " (core dumped)" : "");
		sb_error(&b, msg);
	} else if (p->end == RN_PROC_LOST) {
		sb_error(&b, "lost: no exit was reported");
	} else if (p->end == RN_PROC_EXITED && p->exit_code) {
		snprintf(msg, sizeof(msg), "exit code %d", p->exit_code);
		sb_error(&b, msg);
	}
	rc = sb_emit(w, &b);
	rn_otlp_argv_free(args);
	return rc;
}

/* aggregate mode: one span per syscall name per process, from the process start for the summed
 * duration (clamped to the process's life; the exact sum is an attribute). */
static int emit_syscall_aggregates(struct walk *w, struct twalk *t, size_t k)
{
	const struct rn_trace *tr = &t->r->last;
	const struct rn_process *p = &tr->procs[k];
	uint64_t start = to_unix(p->start_ns, t->off);
	uint64_t end_ns = p->end_ns ? p->end_ns : tr->end_ns;
	uint64_t life = end_ns > p->start_ns ? end_ns - p->start_ns : 0;
	int nr, n = rn_syscall_table_size(), rc;
	uint8_t parent[8];
	struct sb b;

	if (!p->sc)
		return 0;
	proc_span_id(w, t, (int)k, parent);
	for (nr = 0; nr < n; nr++) {
		const struct rn_syscall_stat *s = &p->sc[nr];
		uint8_t id[8];

		if (!s->calls)
			continue;
		derive_id(w->ctx, ROLE_SYSCALL_AGG, t->j, k, (uint64_t)nr, id);
		sb_begin(w, &b, id, parent, start,
			 start + (life && s->total_ns > life ? life : s->total_ns));
		sb_name(&b, "%s", rn_syscall_name(nr));
		sb_bool(&b, "renacer.syscall.aggregate", true);
		sb_int(&b, "process.pid", p->pid);
		sb_u64(&b, "renacer.syscall.calls", s->calls);
		sb_u64(&b, "renacer.syscall.errors", s->errors);
		sb_u64(&b, "renacer.syscall.total_ns", s->total_ns);
		sb_u64(&b, "renacer.syscall.min_ns", s->min_ns);
		sb_u64(&b, "renacer.syscall.max_ns", s->max_ns);
		rc = sb_emit(w, &b);
		if (rc)
			return rc;
	}
	return 0;
}

struct spool_walk {
	struct walk *w;   /* the walk */
	struct twalk *t;  /* the target */
	uint64_t seq;     /* index of the event in the spool (span id input) */
	uint64_t min_ns;  /* threshold: export spans longer than this; 0 = all */
	bool threshold;   /* threshold mode */
	struct rn_symbolizer *sym; /* callers of the spans (code.* attributes), owned */
	struct rn_srcloc *src;     /* their DWARF lines, owned */
};

/* code.filepath, code.lineno, code.function of the code that made a spooled call (OTel
 * semantic conventions, "code" attributes), from DWARF when its module has debug info. */
static void sb_code(struct sb *b, struct spool_walk *sw, const struct rn_trace *tr,
		    const struct rn_syscall_event *ev)
{
	struct rn_src_frame f[RN_SRC_FRAMES_MAX];
	int pi = ev->nstack ? rn_trace_find_process(tr, ev->pid) : -1;

	if (pi < 0 || rn_srcloc_caller(sw->src, sw->sym, tr->procs[pi].maps, ev->stack,
				       ev->nstack, f, RN_SRC_FRAMES_MAX, NULL, NULL, NULL) < 1 ||
	    !f[0].file)
		return;
	sb_str(b, "code.filepath", f[0].file);
	if (f[0].line)
		sb_int(b, "code.lineno", f[0].line);
	if (f[0].function)
		sb_str(b, "code.function", f[0].function);
}

/* all/threshold modes: one span per spooled syscall. */
static int spool_span(void *vctx, const struct rn_syscall_event *ev)
{
	struct spool_walk *sw = vctx;
	struct walk *w = sw->w;
	struct twalk *t = sw->t;
	uint64_t seq = sw->seq++, start;
	uint8_t id[8], parent[8];
	struct sb b;

	if (sw->threshold &&
	    ((ev->flags & RN_SC_UNFINISHED) || ev->duration_ns <= sw->min_ns))
		return 0;
	start = to_unix(ev->start_ns, t->off);
	derive_id(w->ctx, ROLE_SYSCALL, t->j, seq, 0, id);
	proc_span_id(w, t, proc_at(&t->r->last, ev->pid, ev->start_ns), parent);
	sb_begin(w, &b, id, parent, start,
		 start + ((ev->flags & RN_SC_UNFINISHED) ? 0 : ev->duration_ns));
	sb_name(&b, "%s", rn_syscall_name(ev->nr));
	sb_int(&b, "process.pid", ev->pid);
	sb_int(&b, "thread.id", ev->tid);
	if (!(ev->flags & RN_SC_UNFINISHED))
		sb_int(&b, "renacer.syscall.ret", ev->ret);
	if (ev->err)
		sb_str(&b, "error.type", rn_errno_name(ev->err));
	if (ev->path)
		sb_str(&b, "file.path", ev->path);
	if (ev->flags & RN_SC_PATH_TRUNC)
		sb_bool(&b, "renacer.syscall.path_truncated", true);
	sb_code(&b, sw, &t->r->last, ev);
	if (ev->flags & RN_SC_UNFINISHED)
		sb_bool(&b, "renacer.syscall.unfinished", true);
	if (ev->flags & RN_SC_RESTARTED)
		sb_bool(&b, "renacer.syscall.restarted", true);
	return sb_emit(w, &b);
}

static int emit_syscalls(struct walk *w, struct twalk *t)
{
	const struct rn_trace *tr = &t->r->last;
	enum rn_otlp_syscall_spans mode = w->cfg->syscall_spans;
	size_t k;
	int rc;

	if (mode != RN_OTLP_SYSCALLS_AGGREGATE && tr->spool) {
		struct spool_walk sw = { w, t, 0, w->cfg->syscall_threshold_ns,
					 mode == RN_OTLP_SYSCALLS_THRESHOLD, rn_symbolizer_new(),
					 rn_srcloc_new(NULL) };

		/* Replaying moves the spool's file offset only; the trace is otherwise read-only. */
		rc = rn_trace_spool_foreach((struct rn_trace *)tr, spool_span, &sw);
		rn_srcloc_free(sw.src);
		rn_symbolizer_free(sw.sym);
		if (rc < 0 && rc != w->batch->err)
			rn_warn("cannot read the span spool of target '%s': %s", t->r->name,
				strerror(-rc));
		return rc == w->batch->err ? rc : 0;
	}
	if (mode != RN_OTLP_SYSCALLS_AGGREGATE && !w->warned_spool &&
	    rn_trace_total_syscalls(tr)) {
		rn_warn("otlp: syscall_spans = '%s' needs the span spool, which target '%s' did "
			"not keep; exporting its syscalls as per-process aggregates",
			rn_otlp_syscall_mode_names[mode], t->r->name ? t->r->name : "");
		w->warned_spool = true;
	}
	for (k = 0; k < tr->nprocs; k++) {
		rc = emit_syscall_aggregates(w, t, k);
		if (rc)
			return rc;
	}
	return 0;
}

static int emit_gpu(struct walk *w, struct twalk *t)
{
	const struct rn_trace *tr = &t->r->last;
	size_t i;
	int rc;

	for (i = 0; i < tr->ngpu; i++) {
		const struct rn_gpu_span *g = &tr->gpu[i];
		int64_t groups[3]; /* borrowed by the groups attribute until sb_emit */
		uint8_t id[8], parent[8];
		struct sb b;

		derive_id(w->ctx, ROLE_GPU, t->j, i, 0, id);
		proc_span_id(w, t, proc_at(tr, g->pid, g->start_ns), parent);
		sb_begin(w, &b, id, parent, to_unix(g->start_ns, t->off), to_unix(g->end_ns, t->off));
		sb_name(&b, "gpu:%s", g->name ? g->name : "unnamed");
		sb_str(&b, "renacer.gpu.kind", rn_gpu_kind_name(g->kind));
		sb_int(&b, "process.pid", g->pid);
		sb_u64(&b, "renacer.gpu.queue_family", g->queue_family);
		if (g->kind == RN_GPU_DISPATCH) {
			struct rn_otlp_attr *a;

			if (g->flags & RN_GPU_INDIRECT) {
				sb_bool(&b, "renacer.gpu.indirect", true);
			} else if ((a = sb_attr(&b, "renacer.gpu.groups", RN_OTLP_VAL_INTS))) {
				groups[0] = g->groups[0];
				groups[1] = g->groups[1];
				groups[2] = g->groups[2];
				a->u.ints.v = groups;
				a->u.ints.n = 3;
			}
		}
		if (g->bytes)
			sb_u64(&b, "renacer.gpu.bytes", g->bytes);
		if (g->dir != RN_GPU_DIR_NONE)
			sb_str(&b, "renacer.gpu.direction", NAME_OF(gpu_dir_names, g->dir));
		if (g->flags & RN_GPU_SERIALIZED)
			sb_bool(&b, "renacer.gpu.serialized", true);
		if (g->flags & RN_GPU_WAITED)
			sb_bool(&b, "renacer.gpu.waited", true);
		if (g->region)
			sb_str(&b, "renacer.gpu.region", g->region);
		if (g->graph_id)
			sb_u64(&b, "renacer.gpu.graph_id", g->graph_id);
		sb_u64(&b, "renacer.gpu.uncertainty_ns", g->uncertainty_ns);
		if (g->submit_ns)
			sb_event(&b, "submit", to_unix(g->submit_ns, t->off));
		rc = sb_emit(w, &b);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * One span per verdict, with the OpenTelemetry test semantic conventions (test.case.name,
 * test.case.result.status = pass|fail, test.suite.name). Verdicts carry a duration but no
 * start: they are placed after the target's runs, when evaluation happens.
 */
static int emit_verdict(struct walk *w, size_t vi, const uint8_t parent[8], uint64_t start)
{
	const struct rn_verdict_result *v = &w->in->verdicts[vi];
	uint64_t end = start + v->time_ns;
	uint8_t id[8];
	struct sb b;
	bool failed = v->verdict == RN_VERDICT_FAIL || v->verdict == RN_VERDICT_ERROR ||
		      v->verdict == RN_VERDICT_NO_DATA;

	if (w->root_end >= start && end > w->root_end)
		end = w->root_end;
	derive_id(w->ctx, ROLE_VERDICT, vi, 0, 0, id);
	sb_begin(w, &b, id, parent, start, end);
	sb_name(&b, "assertion:%s", v->assertion ? v->assertion : "");
	sb_str(&b, "test.case.name", v->assertion);
	if (v->verdict != RN_VERDICT_SKIP && v->verdict != RN_VERDICT_NOT_JUDGED)
		sb_str(&b, "test.case.result.status", failed ? "fail" : "pass");
	sb_str(&b, "test.suite.name", v->target);
	sb_str(&b, "renacer.assertion.type", v->type);
	sb_str(&b, "renacer.assertion.verdict", NAME_OF(verdict_labels, v->verdict));
	if (v->has_observed)
		sb_double(&b, "renacer.assertion.observed", v->observed);
	if (v->has_budget)
		sb_double(&b, "renacer.assertion.budget", v->budget);
	if (v->has_golden)
		sb_double(&b, "renacer.assertion.golden", v->golden);
	if (v->has_observed && (v->has_budget || v->has_golden))
		sb_double(&b, "renacer.assertion.delta_pct", v->delta_pct);
	sb_str(&b, "renacer.assertion.unit", v->unit);
	sb_str(&b, "renacer.assertion.message", v->message);
	sb_str(&b, "renacer.assertion.aggregate", v->aggregate);
	if (v->config_line > 0)
		sb_int(&b, "renacer.assertion.config_line", v->config_line);
	if (v->type && !strcmp(v->type, "anti_pattern"))
		sb_double(&b, "renacer.assertion.confidence", v->confidence);
	if (failed)
		sb_error(&b, v->message ? v->message : NAME_OF(verdict_labels, v->verdict));
	return sb_emit(w, &b);
}

static void twalk_init(struct walk *w, struct twalk *t, size_t j)
{
	const struct rn_target_result *r = &w->in->targets[j];
	size_t i;

	memset(t, 0, sizeof(*t));
	t->j = j;
	t->r = r;
	derive_id(w->ctx, ROLE_TARGET, j, 0, 0, t->target_id);
	t->off = w->ctx->mono_to_unix_ns;
	if (r->nruns) {
		const struct rn_metrics *last = &r->runs[r->nruns - 1];

		run_span_id(w->ctx, j, r->nruns - 1, t->procs_parent);
		/* The last run recorded both clocks at its start: that offset lines its
		 * processes up with its span exactly. */
		if (last->start_unix_ns && last->start_ns)
			t->off = (int64_t)last->start_unix_ns - (int64_t)last->start_ns;
	} else {
		memcpy(t->procs_parent, t->target_id, 8);
	}
	t->start = r->start_unix_ns;
	if (!t->start && r->nruns)
		t->start = run_start_unix(w, &r->runs[0]);
	if (!t->start && r->last.start_ns)
		t->start = to_unix(r->last.start_ns, t->off);
	if (!t->start)
		t->start = w->root_start;
	t->end = t->start + r->duration_ns;
	for (i = 0; i < r->nruns; i++) {
		uint64_t e = run_start_unix(w, &r->runs[i]) + r->runs[i].v[RN_METRIC_WALL];

		if (e > t->end)
			t->end = e;
	}
	if (r->last.end_ns && to_unix(r->last.end_ns, t->off) > t->end)
		t->end = to_unix(r->last.end_ns, t->off);
}

static int walk_target(struct walk *w, size_t j)
{
	const struct rn_otlp_input *in = w->in;
	struct twalk t;
	size_t i;
	int rc;

	twalk_init(w, &t, j);
	rc = emit_target(w, &t);
	for (i = 0; !rc && i < t.r->nruns; i++)
		rc = emit_run(w, &t, i);
	for (i = 0; !rc && i < t.r->last.nprocs; i++)
		rc = emit_process(w, &t, i);
	if (!rc)
		rc = emit_syscalls(w, &t);
	if (!rc)
		rc = emit_gpu(w, &t);
	for (i = 0; !rc && i < in->nverdicts; i++)
		if (in->verdicts[i].target && t.r->name &&
		    !strcmp(in->verdicts[i].target, t.r->name))
			rc = emit_verdict(w, i, t.target_id, t.end);
	return rc;
}

static bool verdict_has_target(const struct rn_otlp_input *in, const struct rn_verdict_result *v)
{
	size_t j;

	for (j = 0; v->target && j < in->ntargets; j++)
		if (in->targets[j].name && !strcmp(in->targets[j].name, v->target))
			return true;
	return false;
}

/* Produce every span of the check into `batch`, parents before children. */
static int walk_all(const struct rn_otlp_cfg *cfg, const struct rn_otlp_context *ctx,
		    const struct rn_otlp_input *in, struct batch *batch)
{
	struct walk w;
	size_t j;
	int rc;

	memset(&w, 0, sizeof(w));
	w.cfg = cfg;
	w.ctx = ctx;
	w.in = in;
	w.batch = batch;
	w.span_flags = ctx->trace_flags | RN_OTLP_SPAN_FLAGS_HAS_IS_REMOTE;
	w.root_start = in->start_unix_ns;
	w.root_end = in->end_unix_ns ? in->end_unix_ns : realtime_ns();
	if (!w.root_start) {
		w.root_start = w.root_end;
		for (j = 0; j < in->ntargets; j++)
			if (in->targets[j].start_unix_ns &&
			    in->targets[j].start_unix_ns < w.root_start)
				w.root_start = in->targets[j].start_unix_ns;
	}
	rc = emit_root(&w);
	for (j = 0; !rc && j < in->ntargets; j++)
		rc = walk_target(&w, j);
	for (j = 0; !rc && j < in->nverdicts; j++)
		if (!verdict_has_target(in, &in->verdicts[j]))
			rc = emit_verdict(&w, j, ctx->root_span_id, w.root_end);
	if (!rc)
		rc = batch_flush(batch);
	return rc;
}

/* ---- Resource ---------------------------------------------------------------------------- */

struct res_store {
	struct rn_otlp_attr *attrs;   /* attributes */
	size_t n;                     /* used */
	char **owned;                 /* UTF-8-fixed copies */
	size_t nowned;                /* used */
	struct rn_otlp_resource res;  /* what the encoders read */
	struct utsname uts;           /* host facts */
	char host[256];               /* host.name */
};

static void res_set(struct res_store *r, const char *key, const char *value)
{
	size_t i;

	if (!rn_utf8_valid(value)) {
		r->owned = rn_xrealloc(r->owned, (r->nowned + 1) * sizeof(*r->owned));
		r->owned[r->nowned] = rn_utf8_fix(value);
		value = r->owned[r->nowned++];
	}
	for (i = 0; i < r->n; i++) {
		if (!strcmp(r->attrs[i].key, key)) {
			r->attrs[i].u.s = value;
			return;
		}
	}
	r->attrs = rn_xrealloc(r->attrs, (r->n + 1) * sizeof(*r->attrs));
	r->attrs[r->n].key = key;
	r->attrs[r->n].type = RN_OTLP_VAL_STRING;
	r->attrs[r->n].u.s = value;
	r->n++;
}

/* semconv host.arch values for uname's machine names. */
static const char *host_arch(const char *machine)
{
	static const struct {
		const char *uname, *arch;
	} map[] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" },   { "arm64", "arm64" },
		{ "i386", "x86" },     { "i686", "x86" },        { "armv7l", "arm32" },
		{ "ppc64", "ppc64" },  { "ppc64le", "ppc64" },   { "s390x", "s390x" },
		{ "ppc", "ppc32" },    { "ia64", "ia64" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(machine, map[i].uname))
			return map[i].arch;
	return machine;
}

/* Resource attributes, later ones overriding earlier ones with the same key: detected facts,
 * then cfg->resource (CI/VCS, then OTEL_RESOURCE_ATTRIBUTES, then the config file), then the
 * service name (config/CLI, OTEL_SERVICE_NAME). */
static void res_build(struct res_store *r, const struct rn_otlp_cfg *cfg)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	res_set(r, "service.name", RN_OTLP_DEFAULT_SERVICE_NAME);
	res_set(r, "service.version", RN_VERSION);
	if (!gethostname(r->host, sizeof(r->host) - 1))
		res_set(r, "host.name", r->host);
	if (!uname(&r->uts)) {
		res_set(r, "host.arch", host_arch(r->uts.machine));
		res_set(r, "os.version", r->uts.release);
	}
	res_set(r, "os.type", "linux");
	for (i = 0; i < cfg->nresource; i++)
		res_set(r, cfg->resource[i].key, cfg->resource[i].value);
	if (cfg->service_name)
		res_set(r, "service.name", cfg->service_name);
	r->res.attrs = r->attrs;
	r->res.nattrs = r->n;
	r->res.scope_name = "renacer";
	r->res.scope_version = RN_VERSION;
}

static void res_release(struct res_store *r)
{
	size_t i;

	for (i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->attrs);
}

/* ---- Delivery over HTTP (OTLP 1.x, Specification: OTLP/HTTP) ----------------------------- */

#define RESP_MAX_BYTES (64 * 1024) /* response body kept for messages, bytes */
#define BACKOFF_INITIAL_MS 500u    /* first retry delay before jitter, ms */
#define BACKOFF_MAX_MS 8000u       /* delay cap before jitter, ms */
#define MAX_ATTEMPTS 6             /* per request, first attempt included */
#define MSG_MAX 300                /* bytes of a collector's message quoted in warnings */

struct http {
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
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
	struct http *h = ctx;
	size_t len = size * nmemb;

	if (h->resp.len < RESP_MAX_BYTES)
		rn_buf_add(&h->resp, data, len < RESP_MAX_BYTES - h->resp.len
						 ? len
						 : RESP_MAX_BYTES - h->resp.len);
	return len;
}

/* Retry-After (RFC 9110, section 10.2.3): delay-seconds or an HTTP-date. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct http *h = ctx;
	size_t len = size * nmemb;
	char val[64];
	uint64_t secs;

	if (len > 12 && !strncasecmp(data, "Retry-After:", 12)) {
		const char *v = data + 12;
		size_t n = len - 12;

		while (n && is_blank(*v)) {
			v++;
			n--;
		}
		while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || is_blank(v[n - 1])))
			n--;
		if (n >= sizeof(val))
			return len;
		memcpy(val, v, n);
		val[n] = '\0';
		if (parse_u64(val, &secs)) {
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
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
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

static bool resp_is(struct http *h, const char *what)
{
	char *ct = NULL;

	curl_easy_getinfo(h->curl, CURLINFO_CONTENT_TYPE, &ct);
	return ct && strstr(ct, what);
}

/* A message from an error response (google.rpc.Status in protobuf or JSON, else text). */
static void error_message(struct http *h, char *out, size_t cap)
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
static void partial_success(struct http *h, size_t nspans)
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
	random_bytes(&r, sizeof(r));
	return step / 2 + r % (step / 2 + 1);
}

/* Send one request body, retrying as the specification allows within cfg->timeout_ms. */
static int post(void *ctx, const char *body, size_t len, size_t nspans)
{
	struct http *h = ctx;
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
			rc = res == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT
			     : res == CURLE_COULDNT_CONNECT  ? -ECONNREFUSED
			     : res == CURLE_OUT_OF_MEMORY    ? -ENOMEM
							     : -EIO;
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
		(unsigned long long)(now_ms() - h->t0_ms), reason, h->sent, h->sent == 1 ? "" : "s");
	h->warned = true;
	return rc;
}

/* Reserved headers are set by the exporter; a configured one of these names is dropped. */
static bool reserved_header(const char *name)
{
	return !strcasecmp(name, "Content-Type") || !strcasecmp(name, "Content-Encoding") ||
	       !strcasecmp(name, "Content-Length") || !strcasecmp(name, "Expect");
}

static int http_init(struct http *h, const struct rn_otlp_cfg *cfg)
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
	h->hdrs = curl_slist_append(h->hdrs, cfg->protocol == RN_OTLP_HTTP_JSON
						     ? "Content-Type: application/json"
						     : "Content-Type: application/x-protobuf");
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

static void http_release(struct http *h)
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

int rn_otlp_export(const struct rn_otlp_cfg *cfg, const struct rn_otlp_context *ctx,
		   const struct rn_otlp_input *in)
{
	struct sigaction ign, old;
	struct res_store res;
	struct batch b;
	struct http h;
	int rc;

	if (!cfg->enabled || cfg->disabled_by_env)
		return 0;
	if (cfg->protocol == RN_OTLP_GRPC) {
		rn_warn("otlp export skipped: protocol 'grpc' is not supported (use http/protobuf "
			"or http/json)");
		return -EINVAL;
	}
	if (!cfg->endpoint) {
		struct rn_otlp_cfg *c = (struct rn_otlp_cfg *)cfg;

		/* Only reached when rn_otlp_cfg_finish() was not called: the spec's default. */
		c->endpoint = rn_xstrdup(RN_OTLP_DEFAULT_ENDPOINT);
	}
	/* A collector closing the connection mid-request must not kill renacer. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	res_build(&res, cfg);
	rc = http_init(&h, cfg);
	if (!rc)
		rc = batch_init(&b, cfg->protocol, &res.res, cfg->max_request_bytes, post, &h);
	if (!rc) {
		rc = walk_all(cfg, ctx, in, &b);
		batch_release(&b);
	}
	if (rc < 0 && !h.warned)
		rn_warn("otlp export to '%s' failed: %s", h.where, strerror(-rc));
	http_release(&h);
	res_release(&res);
	sigaction(SIGPIPE, &old, NULL);
	return rc < 0 ? rc : 0;
}

/* ---- OTLP JSON Lines file ------------------------------------------------------------------ */

static int write_line(void *ctx, const char *body, size_t len, size_t nspans)
{
	FILE *f = ctx;

	(void)nspans;
	if (fwrite(body, 1, len, f) != len || fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

int rn_otlp_write_file(const char *path, const struct rn_otlp_cfg *cfg,
		       const struct rn_otlp_context *ctx, const struct rn_otlp_input *in)
{
	struct res_store res;
	struct rn_safefile sf;
	struct batch b;
	FILE *f = NULL;
	int rc;

	rc = rn_safefile_open(&sf, path);
	if (rc || !(f = rn_safefile_stream(&sf))) {
		if (!rc) {
			rc = -errno;
			rn_safefile_abort(&sf);
		}
		goto out_error;
	}
	res_build(&res, cfg);
	rc = batch_init(&b, RN_OTLP_HTTP_JSON, &res.res, cfg->max_request_bytes, write_line, f);
	if (!rc)
		rc = walk_all(cfg, ctx, in, &b);
	batch_release(&b);
	res_release(&res);
	if (rc)
		rn_safefile_abort(&sf);
	else
		rc = rn_safefile_commit(&sf);
	if (!rc)
		return 0;
out_error:
	rn_error("cannot write OTLP file '%s': %s", path, rn_safefile_strerror(rc));
	return rc;
}
