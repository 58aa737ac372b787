/*
 * history_redact.c - a store's location fit to print (rn_history_redact, history.h): every
 * credential form libpq accepts masked as "***", and the masked values kept so messages that
 * quote them can be scrubbed.
 */
#include "history.h"
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

/* Secret values found by rn_history_redact, to scrub from messages. */
struct secrets {
	char **v;
	size_t n, cap;
};

static void secret_add(struct secrets *sc, const char *s, size_t n)
{
	if (!sc || !n)
		return;
	sc->v = rn_xgrow(sc->v, &sc->cap, sc->n + 2, sizeof(*sc->v));
	sc->v[sc->n] = rn_xmalloc(n + 1);
	memcpy(sc->v[sc->n], s, n);
	sc->v[sc->n][n] = '\0';
	sc->v[++sc->n] = NULL;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'  ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 :
				       -1;
}

/* Percent-decode s[0..n) into `out` (as libpq decodes URI parts). */
static void pct_decode(struct rn_buf *out, const char *s, size_t n)
{
	size_t i;

	rn_buf_reset(out);
	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			rn_buf_addc(out, (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2])));
			i += 2;
		} else {
			rn_buf_addc(out, s[i]);
		}
	}
}

/* Is the connection keyword k[0..n) (decoded) a credential? libpq's "password" and
 * "sslpassword" (https://www.postgresql.org/docs/current/libpq-connect.html). */
static bool secret_key(const char *k, size_t n)
{
	return (n == 8 && !memcmp(k, "password", 8)) || (n == 11 && !memcmp(k, "sslpassword", 11));
}

/* The value of a key=value connection string at `p`: single-quoted with backslash escapes,
 * or up to white space. Returns its end. */
static const char *kv_value_end(const char *p)
{
	if (*p == '\'') {
		for (p++; *p && *p != '\''; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : p;
	}
	while (*p && !strchr(" \t\n\r\f\v", *p))
		p++;
	return p;
}

/* key=value form ("host=db password='s e c' dbname=x"): every credential's value masked. */
static void redact_kv(struct rn_buf *out, const char *s, struct secrets *sc)
{
	const char *p = s;

	while (*p) {
		const char *k = p, *e, *v;

		while (*p && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		e = p;
		while (*p == ' ' || *p == '\t')
			p++;
		if (e == k) { /* not a keyword: copy one byte */
			p = k + 1;
			rn_buf_add(out, k, 1);
			continue;
		}
		if (*p != '=') {
			rn_buf_add(out, k, (size_t)(p - k));
			continue;
		}
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		v = p;
		p = kv_value_end(p);
		rn_buf_add(out, k, (size_t)(v - k));
		if (secret_key(k, (size_t)(e - k))) {
			rn_buf_adds(out, "***");
			secret_add(sc, v, (size_t)(p - v));
			if (*v == '\'' && p - v >= 2)
				secret_add(sc, v + 1, (size_t)(p - v) - 2);
		} else {
			rn_buf_add(out, v, (size_t)(p - v));
		}
	}
}

char *rn_history_redact(const char *location, char ***secrets_out)
{
	const char *scheme = strstr(location, "://"), *auth, *slash, *at = NULL, *q, *p;
	struct secrets sc = { NULL, 0, 0 };
	struct rn_buf b, key;

	rn_buf_init(&b, 0);
	if (!scheme) {
		redact_kv(&b, location, &sc);
		goto out;
	}
	/* userinfo: up to the last '@' before the path (libpq takes the first, so an unencoded
	 * '@' in a password would otherwise leave its tail) */
	auth = scheme + 3;
	slash = auth + strcspn(auth, "/");
	for (p = auth; p < slash; p++)
		if (*p == '@')
			at = p;
	rn_buf_add(&b, location, (size_t)(auth - location));
	if (at) {
		const char *colon = memchr(auth, ':', (size_t)(at - auth));

		if (colon) {
			rn_buf_add(&b, auth, (size_t)(colon - auth) + 1);
			rn_buf_adds(&b, "***");
			secret_add(&sc, colon + 1, (size_t)(at - colon - 1));
			for (p = colon + 1; p < at;) {
				const char *piece = memchr(p, '@', (size_t)(at - p));
				size_t n = piece ? (size_t)(piece - p) : (size_t)(at - p);

				if (piece)
					secret_add(&sc, p, n);
				else if (p != colon + 1)
					secret_add(&sc, p, n);
				p += n + 1;
			}
			rn_buf_init(&key, 0);
			pct_decode(&key, colon + 1, (size_t)(at - colon - 1));
			secret_add(&sc, key.buf, key.len);
			rn_buf_release(&key);
		} else {
			rn_buf_add(&b, auth, (size_t)(at - auth));
		}
		auth = at;
	}
	/* the query: key=value&...; keys and values are percent-decoded by libpq */
	q = strchr(auth, '?');
	rn_buf_add(&b, auth, q ? (size_t)(q - auth) : strlen(auth));
	if (q) {
		rn_buf_init(&key, 0);
		for (p = q; *p;) {
			const char *k = p + 1, *eq, *end = k + strcspn(k, "&");

			rn_buf_addc(&b, *p);
			eq = memchr(k, '=', (size_t)(end - k));
			pct_decode(&key, k, eq ? (size_t)(eq - k) : 0);
			if (eq && secret_key(key.buf, key.len)) {
				rn_buf_add(&b, k, (size_t)(eq - k) + 1);
				rn_buf_adds(&b, "***");
				secret_add(&sc, eq + 1, (size_t)(end - eq - 1));
				pct_decode(&key, eq + 1, (size_t)(end - eq - 1));
				secret_add(&sc, key.buf, key.len);
			} else {
				rn_buf_add(&b, k, (size_t)(end - k));
			}
			p = end;
		}
		rn_buf_release(&key);
	}
out:
	if (secrets_out)
		*secrets_out = sc.v;
	else
		rn_history_secrets_free(sc.v);
	return rn_buf_detach(&b, NULL);
}

void rn_history_secrets_free(char **secrets)
{
	size_t i;

	for (i = 0; secrets && secrets[i]; i++)
		free(secrets[i]);
	free(secrets);
}
