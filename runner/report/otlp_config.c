#include "otlp_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "config.h"
#include "log.h"
#include "internal.h"
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

/* Parse a name of the lists above into *out. 0, or -EINVAL for an unknown name (nothing
 * printed: the caller has the location for its message). */
static int rn_otlp_protocol_parse(const char *name, enum rn_otlp_protocol *out)
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

/* Set the service name (copied). 0, or -EINVAL when empty. */
static int rn_otlp_cfg_set_service_name(struct rn_otlp_cfg *cfg, const char *name)
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
		hi = rn_otlp_hexval((unsigned char)s[i + 1]);
		lo = rn_otlp_hexval((unsigned char)s[i + 2]);
		if (hi < 0 || lo < 0 || (!hi && !lo))
			return -EINVAL;
		rn_buf_addc(out, (char)(hi << 4 | lo));
		i += 2;
	}
	return rn_buf_failed(out) ? -ENOMEM : 0;
}

/*
 * Parse a W3C Baggage-style list "k1=v1, k2 = v2" (the format of OTEL_EXPORTER_OTLP_HEADERS
 * and OTEL_RESOURCE_ATTRIBUTES): entries split on ',', key and value trimmed of spaces and
 * tabs, the value percent-decoded. Calls `fn(ctx, key, value)` for each valid entry (strings
 * valid during the call). Entries without '=', with an empty key, or with a bad %-escape are
 * skipped and counted in the return value (number of skipped entries, >= 0).
 */
static int rn_otlp_parse_list(const char *list,
			      void (*fn)(void *ctx, const char *key, const char *value), void *ctx)
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
		while (ks < ke && rn_otlp_is_blank(*ks))
			ks++;
		while (ke > ks && rn_otlp_is_blank(ke[-1]))
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
		while (vs < ve && rn_otlp_is_blank(*vs))
			vs++;
		while (eq > ks && rn_otlp_is_blank(eq[-1]))
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

const char *rn_otlp_env_get(const char *const *envp, const char *name)
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
	const char *v = rn_otlp_env_get(envp, traces);

	*which = traces;
	if (v)
		return v;
	*which = generic;
	return rn_otlp_env_get(envp, generic);
}

bool rn_otlp_parse_u64(const char *s, uint64_t *out)
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
		{ "GITHUB_JOB", "cicd.pipeline.task.name" },
	};
	const char *server = rn_otlp_env_get(envp, "GITHUB_SERVER_URL"), *repo;
	size_t i;

	const char *head = rn_otlp_env_get(envp, "GITHUB_HEAD_REF"),
		   *base = rn_otlp_env_get(envp, "GITHUB_BASE_REF"),
		   *ref = rn_otlp_env_get(envp, "GITHUB_REF"),
		   *ref_type = rn_otlp_env_get(envp, "GITHUB_REF_TYPE"),
		   *run_id = rn_otlp_env_get(envp, "GITHUB_RUN_ID");

	for (i = 0; i < ARRAY_SIZE(gh); i++) {
		const char *v = rn_otlp_env_get(envp, gh[i].var);

		if (v)
			rn_otlp_cfg_set_resource_attr(cfg, gh[i].key, v);
	}
	/* In a pull request GITHUB_REF_NAME is "<number>/merge": the head is the PR's branch
	 * (GITHUB_HEAD_REF), the base its target, the change id its number. */
	if (head && *head) {
		rn_otlp_cfg_set_resource_attr(cfg, "vcs.ref.head.name", head);
		rn_otlp_cfg_set_resource_attr(cfg, "vcs.ref.head.type", "branch");
	} else if (ref_type && (!strcmp(ref_type, "branch") || !strcmp(ref_type, "tag"))) {
		rn_otlp_cfg_set_resource_attr(cfg, "vcs.ref.head.type", ref_type);
	}
	if (base && *base) {
		rn_otlp_cfg_set_resource_attr(cfg, "vcs.ref.base.name", base);
		rn_otlp_cfg_set_resource_attr(cfg, "vcs.ref.base.type", "branch");
	}
	if (ref && !strncmp(ref, "refs/pull/", 10)) {
		size_t n = strspn(ref + 10, "0123456789");

		if (n && n < 32) {
			char id[32];

			memcpy(id, ref + 10, n);
			id[n] = '\0';
			rn_otlp_cfg_set_resource_attr(cfg, "vcs.change.id", id);
		}
	}
	repo = rn_otlp_env_get(envp, "GITHUB_REPOSITORY");
	if (repo) {
		struct rn_buf url;
		const char *slash = strrchr(repo, '/');

		rn_buf_init(&url, 0);
		rn_buf_adds(&url, server ? server : "https://github.com");
		if (url.len && url.buf[url.len - 1] != '/')
			rn_buf_addc(&url, '/');
		rn_buf_adds(&url, repo);
		if (!rn_buf_failed(&url))
			rn_otlp_cfg_set_resource_attr(cfg, "vcs.repository.url.full", url.buf);
		rn_otlp_cfg_set_resource_attr(cfg, "vcs.repository.name",
					      slash && slash[1] ? slash + 1 : repo);
		if (run_id) {
			rn_buf_addf(&url, "/actions/runs/%s", run_id);
			if (!rn_buf_failed(&url))
				rn_otlp_cfg_set_resource_attr(cfg, "cicd.pipeline.run.url.full",
							      url.buf);
		}
		rn_buf_release(&url);
	}
}

int rn_otlp_cfg_apply_env(struct rn_otlp_cfg *cfg, const char *const *envp)
{
	const char *v, *which;

	v = rn_otlp_env_get(envp, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
	if (v) {
		if (url_valid(v, NULL)) {
			free(cfg->endpoint);
			cfg->endpoint = rn_xstrdup(v); /* signal-specific: used as is */
			cfg->enabled = true;
		} else {
			rn_warn("ignoring OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: not an http:// or "
				"https:// URL");
		}
	} else if ((v = rn_otlp_env_get(envp, "OTEL_EXPORTER_OTLP_ENDPOINT"))) {
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

		if (rn_otlp_parse_u64(v, &ms) && ms > 0 && ms <= UINT32_MAX)
			cfg->timeout_ms = (uint32_t)ms;
		else
			rn_warn("ignoring %s '%s': expected a positive number of milliseconds",
				which, v);
	}

	v = env_pair(envp, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
		     "OTEL_EXPORTER_OTLP_COMPRESSION", &which);
	if (v && rn_otlp_compression_parse(v, &cfg->compression))
		rn_warn("ignoring %s '%s': expected gzip or none", which, v);

	v = rn_otlp_env_get(envp, "OTEL_SERVICE_NAME");
	if (v)
		rn_otlp_cfg_set_service_name(cfg, v);

	detect_ci(cfg, envp);
	v = rn_otlp_env_get(envp, "OTEL_RESOURCE_ATTRIBUTES");
	if (v) {
		int skipped = rn_otlp_parse_list(v, env_resource, cfg);

		if (skipped)
			rn_warn("ignoring %d malformed %s of OTEL_RESOURCE_ATTRIBUTES", skipped,
				skipped == 1 ? "entry" : "entries");
	}

	v = rn_otlp_env_get(envp, "OTEL_SDK_DISABLED");
	if (v && !strcasecmp(v, "true"))
		cfg->disabled_by_env = true;
	v = rn_otlp_env_get(envp, "OTEL_TRACES_EXPORTER");
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
		while (rn_otlp_is_blank(*colon))
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
