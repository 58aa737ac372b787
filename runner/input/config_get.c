/*
 * config_get.c - typed reads of TOML values into config fields, each failure located at its
 * value (internal.h).
 */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "driver.h"
#include "equivalence.h"
#include "log.h"
#include "inject_rules.h"
#include "original.h"
#include "rn_regex.h"
#include "strmap.h"
#include "syscall_names.h"
#include "xalloc.h"

int rn_cfg_err_at(struct rn_cfg_ctx *c, struct rn_toml_pos pos, const char *fmt, ...)
{
	char msg[RN_DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rn_diag_set(c->d, pos.line, pos.col, "%s", msg);
	return -EINVAL;
}

int rn_cfg_type_err(struct rn_cfg_ctx *c, const struct rn_toml_kv *kv, const char *want)
{
	return rn_cfg_err_at(c, kv->val->pos, "'%s' in %s must be %s, found %s", kv->key, c->what,
			     want, rn_toml_type_phrase(kv->val->type));
}

/* Check every key of `tab` against `allowed`; unknown keys are errors with a suggestion. */
int rn_cfg_check_keys(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
		      const char *const *allowed)
{
	size_t i;

	for (i = 0; i < tab->u.table->n; i++) {
		const struct rn_toml_kv *kv = &tab->u.table->kv[i];
		const char *const *k;
		const char *hint;

		for (k = allowed; *k; k++)
			if (!strcmp(*k, kv->key))
				break;
		if (*k)
			continue;
		hint = rn_suggest(kv->key, allowed);
		if (hint)
			return rn_cfg_err_at(c, kv->key_pos,
					     "unknown key '%s' in %s (did you mean '%s'?)", kv->key,
					     c->what, hint);
		return rn_cfg_err_at(c, kv->key_pos, "unknown key '%s' in %s", kv->key, c->what);
	}
	return 0;
}

int rn_cfg_get_string(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		      char **out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_STRING)
		return rn_cfg_type_err(c, kv, "a string");
	if (strlen(kv->val->u.str.ptr) != kv->val->u.str.len)
		return rn_cfg_err_at(c, kv->val->pos, "'%s' in %s must not contain NUL characters",
				     key, c->what);
	free(*out);
	*out = rn_xstrdup(kv->val->u.str.ptr);
	return 0;
}

int rn_cfg_get_bool(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		    bool *out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_BOOL)
		return rn_cfg_type_err(c, kv, "a boolean");
	*out = kv->val->u.boolean;
	return 0;
}

/* An integer in [min, max]. */
int rn_cfg_get_int(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		   int64_t min, int64_t max, int64_t *out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_INTEGER)
		return rn_cfg_type_err(c, kv, "an integer");
	if (kv->val->u.integer < min || kv->val->u.integer > max)
		return rn_cfg_err_at(c, kv->val->pos,
				     "'%s' in %s must be between %lld and %lld, found %lld", key,
				     c->what, (long long)min, (long long)max,
				     (long long)kv->val->u.integer);
	*out = kv->val->u.integer;
	return 0;
}

/* A number (integer or float) in [min, max]. */
int rn_cfg_get_num(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		   double min, double max, double *out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);
	double v;

	if (!kv)
		return 0;
	if (kv->val->type == RN_TOML_INTEGER)
		v = (double)kv->val->u.integer;
	else if (kv->val->type == RN_TOML_FLOAT)
		v = kv->val->u.fp;
	else
		return rn_cfg_type_err(c, kv, "a number");
	if (!(v >= min && v <= max))
		return rn_cfg_err_at(c, kv->val->pos,
				     "'%s' in %s must be between %g and %g, found %g", key, c->what,
				     min, max, v);
	*out = v;
	return 0;
}

/* An array of strings, copied into a NULL-terminated list. */
int rn_cfg_get_strings(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		       char ***out, size_t *n_out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);
	char **list;
	size_t i, n;

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_ARRAY)
		return rn_cfg_type_err(c, kv, "an array of strings");
	n = kv->val->u.array.n;
	for (i = 0; i < n; i++) {
		const struct rn_toml_value *e = kv->val->u.array.items[i];

		if (e->type != RN_TOML_STRING)
			return rn_cfg_err_at(c, e->pos,
					     "'%s' in %s must be an array of strings, found %s",
					     key, c->what, rn_toml_type_phrase(e->type));
		if (strlen(e->u.str.ptr) != e->u.str.len)
			return rn_cfg_err_at(c, e->pos,
					     "'%s' in %s must not contain NUL characters", key,
					     c->what);
	}
	list = rn_xcalloc(n + 1, sizeof(*list));
	for (i = 0; i < n; i++)
		list[i] = rn_xstrdup(kv->val->u.array.items[i]->u.str.ptr);
	*out = list;
	if (n_out)
		*n_out = n;
	return 0;
}

void rn_cfg_free_strings(char **list)
{
	char **p;

	if (!list)
		return;
	for (p = list; *p; p++)
		free(*p);
	free(list);
}

/* One of `choices` (NULL-terminated); returns its index in *out. */
int rn_cfg_get_choice(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		      const char *const *choices, int *out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);
	struct rn_buf list;
	const char *hint;
	int i;

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_STRING)
		return rn_cfg_type_err(c, kv, "a string");
	for (i = 0; choices[i]; i++) {
		if (!strcmp(choices[i], kv->val->u.str.ptr)) {
			*out = i;
			return 0;
		}
	}
	rn_buf_init(&list, 0);
	for (i = 0; choices[i]; i++)
		rn_buf_addf(&list, "%s\"%s\"", i ? ", " : "", choices[i]);
	hint = rn_suggest(kv->val->u.str.ptr, choices);
	if (hint)
		rn_cfg_err_at(c, kv->val->pos,
			      "'%s' in %s must be one of %s, found \"%s\" (did you mean \"%s\"?)",
			      key, c->what, list.buf, kv->val->u.str.ptr, hint);
	else
		rn_cfg_err_at(c, kv->val->pos, "'%s' in %s must be one of %s, found \"%s\"", key,
			      c->what, list.buf, kv->val->u.str.ptr);
	rn_buf_release(&list);
	return -EINVAL;
}

/* The compiled form of `pattern` in the pool, or NULL. */
static struct rn_regex *regex_pool_get(const struct rn_regex_pool *pool, const char *pattern)
{
	size_t i;

	return rn_strmap_get(&pool->index, pattern, &i) ? pool->compiled[i] : NULL;
}

/* Store `pattern` (copied) and its compiled `re` (owned from now on). Returns `re`. */
static struct rn_regex *regex_pool_add(struct rn_regex_pool *pool, const char *pattern,
				       struct rn_regex *re)
{
	if (pool->n == pool->cap) {
		pool->cap = pool->cap ? 2 * pool->cap : 16;
		pool->patterns = rn_xrealloc(pool->patterns, pool->cap * sizeof(*pool->patterns));
		pool->compiled = rn_xrealloc(pool->compiled, pool->cap * sizeof(*pool->compiled));
	}
	pool->patterns[pool->n] = rn_xstrdup(pattern);
	pool->compiled[pool->n] = re;
	rn_strmap_put(&pool->index, pool->patterns[pool->n], pool->n, NULL);
	pool->n++;
	return re;
}

void rn_cfg_regex_pool_release(struct rn_regex_pool *pool)
{
	size_t i;

	for (i = 0; i < pool->n; i++) {
		rn_regex_free(pool->compiled[i]);
		free(pool->patterns[i]);
	}
	free(pool->patterns);
	free(pool->compiled);
	rn_strmap_release(&pool->index);
	memset(pool, 0, sizeof(*pool));
}

/* Compile `pat` (a full-match pattern, rn_regex.h) once per config; -EINVAL with the error at
 * the value's position and the byte of the pattern PCRE2 stopped at. */
int rn_cfg_pool_compile(struct rn_cfg_ctx *c, struct rn_toml_pos pos, const char *key,
			const char *pat, const struct rn_regex **re_out)
{
	struct rn_regex_error why;
	struct rn_regex *re = regex_pool_get(&c->cfg->regexes, pat);
	int rc;

	if (re) {
		*re_out = re;
		return 0;
	}
	rc = rn_regex_compile(pat, &re, &why);
	if (rc == -ENOMEM)
		rn_die("out of memory compiling '%s' in %s", key, c->what);
	if (rc)
		return rn_cfg_err_at(
			c, pos,
			"'%s' in %s is not a valid pattern: %s (at byte %zu of the pattern)", key,
			c->what, why.message, why.offset + 1);
	*re_out = regex_pool_add(&c->cfg->regexes, pat, re);
	return 0;
}

int rn_cfg_get_regex(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		     char **pat, const struct rn_regex **re_out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (rn_cfg_get_string(c, tab, key, pat))
		return -EINVAL;
	return rn_cfg_pool_compile(c, kv->val->pos, key, *pat, re_out);
}

/* Resolve `p` against the config directory unless it is absolute. Caller frees. */
char *rn_cfg_resolve_path(const struct rn_config *cfg, const char *p)
{
	if (p[0] == '/')
		return rn_xstrdup(p);
	return rn_xstrfmt("%s/%s", cfg->dir, p);
}

bool rn_config_is_postgres_url(const char *url)
{
	/* libpq's key=value form starts with one of its connection keywords */
	static const char *const keywords[] = { "host",     "hostaddr", "port",    "dbname",
						"user",     "password", "service", "sslmode",
						"passfile", NULL };
	size_t i;

	if (!url)
		return false;
	if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11))
		return true;
	for (i = 0; keywords[i]; i++) {
		size_t n = strlen(keywords[i]);
		const char *p = url + n;

		if (strncmp(url, keywords[i], n))
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '=')
			return true;
	}
	return false;
}

bool rn_config_name_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}
