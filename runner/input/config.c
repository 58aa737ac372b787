#include "config.h"

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

/*
 * Strings the config keeps are built with this dying formatter: the runner may die on
 * out-of-memory (rn_x*), and a failed append must never leave a silently shortened value.
 */
static char *xformat(const char *fmt, ...) RN_PRINTF(1, 2);

static char *xformat(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		rn_die("cannot format a config value");
	s = rn_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Key lists derived from the X-macro tables, for validation and did-you-mean. */
#define KEY_NAME(key, type, doc) #key,
static const char *const target_keys[] = { RN_TARGET_KEYS(KEY_NAME) NULL };
static const char *const assertion_keys[] = { RN_ASSERTION_KEYS(KEY_NAME) NULL };
static const char *const golden_keys[] = { RN_GOLDEN_KEYS(KEY_NAME) NULL };
static const char *const report_keys[] = { RN_REPORT_KEYS(KEY_NAME) NULL };
static const char *const otlp_keys[] = { RN_OTLP_KEYS(KEY_NAME) NULL };
static const char *const regression_keys[] = { RN_REGRESSION_KEYS(KEY_NAME) NULL };
static const char *const semantic_keys[] = { RN_SEMANTIC_KEYS(KEY_NAME) NULL };
static const char *const history_keys[] = { RN_HISTORY_KEYS(KEY_NAME) NULL };
static const char *const profile_keys[] = { RN_PROFILE_KEYS(KEY_NAME) NULL };
#undef KEY_NAME

static const char *const top_keys[] = {
	"target",  "assertion", "golden", "report", "otlp", "regression", "semantic_equivalence",
	"history", "profile",   NULL
};

#define ASSERT_TYPE_NAME(id, name) name,
static const char *const assertion_types[] = { RN_ASSERTION_TYPES(ASSERT_TYPE_NAME) NULL };
#undef ASSERT_TYPE_NAME

#define SPAN_STAT_NAME(id, name, doc) name,
static const char *const span_stat_names[] = { RN_SPAN_STATS(SPAN_STAT_NAME) NULL };
#undef SPAN_STAT_NAME

/* Parsing context: the config being filled and where errors go. */
struct ctx {
	struct rn_config *cfg;
	struct rn_diag *d;
	const char *what; /* "[[target]] 'x'" for messages */
	char what_buf[256];
	struct rn_strmap target_names;    /* target name -> index, for duplicates and lookups */
	struct rn_strmap assertion_names; /* assertion name -> index, for duplicates */
};

static int err_at(struct ctx *c, struct rn_toml_pos pos, const char *fmt, ...) RN_PRINTF(3, 4);

static int err_at(struct ctx *c, struct rn_toml_pos pos, const char *fmt, ...)
{
	char msg[RN_DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rn_diag_set(c->d, pos.line, pos.col, "%s", msg);
}

/* "a string", "an integer" ... for type errors. */
static const char *a_type(enum rn_toml_type t)
{
	switch (t) {
	case RN_TOML_STRING:
		return "a string";
	case RN_TOML_INTEGER:
		return "an integer";
	case RN_TOML_FLOAT:
		return "a float";
	case RN_TOML_BOOL:
		return "a boolean";
	case RN_TOML_ARRAY:
		return "an array";
	case RN_TOML_TABLE:
		return "a table";
	default:
		return "a date/time";
	}
}

static int type_err(struct ctx *c, const struct rn_toml_kv *kv, const char *want)
{
	return err_at(c, kv->val->pos, "'%s' in %s must be %s, found %s", kv->key, c->what, want,
		      a_type(kv->val->type));
}

/* Check every key of `tab` against `allowed`; unknown keys are errors with a suggestion. */
static int check_keys(struct ctx *c, const struct rn_toml_value *tab, const char *const *allowed)
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
			return err_at(c, kv->key_pos, "unknown key '%s' in %s (did you mean '%s'?)",
				      kv->key, c->what, hint);
		return err_at(c, kv->key_pos, "unknown key '%s' in %s", kv->key, c->what);
	}
	return 0;
}

static int get_string(struct ctx *c, const struct rn_toml_value *tab, const char *key, char **out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_STRING)
		return type_err(c, kv, "a string");
	if (strlen(kv->val->u.str.ptr) != kv->val->u.str.len)
		return err_at(c, kv->val->pos, "'%s' in %s must not contain NUL characters", key,
			      c->what);
	free(*out);
	*out = rn_xstrdup(kv->val->u.str.ptr);
	return 0;
}

static int get_bool(struct ctx *c, const struct rn_toml_value *tab, const char *key, bool *out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_BOOL)
		return type_err(c, kv, "a boolean");
	*out = kv->val->u.boolean;
	return 0;
}

/* An integer in [min, max]. */
static int get_int(struct ctx *c, const struct rn_toml_value *tab, const char *key, int64_t min,
		   int64_t max, int64_t *out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_INTEGER)
		return type_err(c, kv, "an integer");
	if (kv->val->u.integer < min || kv->val->u.integer > max)
		return err_at(c, kv->val->pos,
			      "'%s' in %s must be between %lld and %lld, found %lld", key, c->what,
			      (long long)min, (long long)max, (long long)kv->val->u.integer);
	*out = kv->val->u.integer;
	return 0;
}

/* A number (integer or float) in [min, max]. */
static int get_num(struct ctx *c, const struct rn_toml_value *tab, const char *key, double min,
		   double max, double *out)
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
		return type_err(c, kv, "a number");
	if (!(v >= min && v <= max))
		return err_at(c, kv->val->pos, "'%s' in %s must be between %g and %g, found %g",
			      key, c->what, min, max, v);
	*out = v;
	return 0;
}

/* An array of strings, copied into a NULL-terminated list. */
static int get_strings(struct ctx *c, const struct rn_toml_value *tab, const char *key, char ***out,
		       size_t *n_out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);
	char **list;
	size_t i, n;

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_ARRAY)
		return type_err(c, kv, "an array of strings");
	n = kv->val->u.array.n;
	for (i = 0; i < n; i++) {
		const struct rn_toml_value *e = kv->val->u.array.items[i];

		if (e->type != RN_TOML_STRING)
			return err_at(c, e->pos, "'%s' in %s must be an array of strings, found %s",
				      key, c->what, a_type(e->type));
		if (strlen(e->u.str.ptr) != e->u.str.len)
			return err_at(c, e->pos, "'%s' in %s must not contain NUL characters", key,
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

static void free_strings(char **list)
{
	char **p;

	if (!list)
		return;
	for (p = list; *p; p++)
		free(*p);
	free(list);
}

/* One of `choices` (NULL-terminated); returns its index in *out. */
static int get_choice(struct ctx *c, const struct rn_toml_value *tab, const char *key,
		      const char *const *choices, int *out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);
	struct rn_buf list;
	const char *hint;
	int i;

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_STRING)
		return type_err(c, kv, "a string");
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
		err_at(c, kv->val->pos,
		       "'%s' in %s must be one of %s, found \"%s\" (did you mean \"%s\"?)", key,
		       c->what, list.buf, kv->val->u.str.ptr, hint);
	else
		err_at(c, kv->val->pos, "'%s' in %s must be one of %s, found \"%s\"", key, c->what,
		       list.buf, kv->val->u.str.ptr);
	rn_buf_release(&list);
	return -1;
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

static void regex_pool_release(struct rn_regex_pool *pool)
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

/* Compile `pat` (a full-match pattern, rn_regex.h) once per config; -1 with the error at
 * the value's position and the byte of the pattern PCRE2 stopped at. */
static int pool_compile(struct ctx *c, struct rn_toml_pos pos, const char *key, const char *pat,
			const struct rn_regex **re_out)
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
		return err_at(c, pos,
			      "'%s' in %s is not a valid pattern: %s (at byte %zu of the pattern)",
			      key, c->what, why.message, why.offset + 1);
	*re_out = regex_pool_add(&c->cfg->regexes, pat, re);
	return 0;
}

static int get_regex(struct ctx *c, const struct rn_toml_value *tab, const char *key, char **pat,
		     const struct rn_regex **re_out)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, key);

	if (!kv)
		return 0;
	if (get_string(c, tab, key, pat))
		return -1;
	return pool_compile(c, kv->val->pos, key, *pat, re_out);
}

/* Resolve `p` against the config directory unless it is absolute. Caller frees. */
static char *resolve_path(const struct rn_config *cfg, const char *p)
{
	if (p[0] == '/')
		return rn_xstrdup(p);
	return xformat("%s/%s", cfg->dir, p);
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

static void target_defaults(struct rn_target_cfg *t, const struct rn_config *cfg)
{
	memset(t, 0, sizeof(*t));
	t->cwd = rn_xstrdup(cfg->dir);
	t->timeout_ns = 300ull * 1000000000ull;
	t->runs = 1;
	t->counting_runs = 1;
	t->collectors = RN_COLLECT_PTRACE;
	t->gpu_mode = RN_GPU_MODE_CMDBUF;
	t->out = RN_STDIO_NULL;
	t->err = RN_STDIO_INHERIT;
	t->max_procs = 10000;
	t->instructions = -1;
	t->profile = -1;
}

static void target_release(struct rn_target_cfg *t)
{
	free(t->name);
	free_strings(t->argv);
	free(t->cwd);
	free(t->build);
	free_strings(t->env);
	for (size_t i = 0; i < t->ninject; i++)
		rn_inject_release(&t->inject[i]);
	free(t->inject);
	memset(t, 0, sizeof(*t));
}

static const char *const stdio_names[] = { "inherit", "null", "capture", NULL };
static const char *const gpu_mode_names[] = { "cmdbuf", "submit", "dispatch", NULL };
static const char *const region_scope_names[] = { "process", "thread", NULL };

/* `command`, run directly or (`shell = true`, the only way a shell is involved: argv as given
 * otherwise) through /bin/sh -c with its words joined by spaces. */
static int parse_command(struct ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "command");
	char **cmd = NULL;
	size_t ncmd = 0, len = 1, i;
	bool shell = false;
	char *line;

	if (!kv)
		return err_at(c, tab->pos, "%s needs a 'command' (an array of strings)", c->what);
	if (get_strings(c, tab, "command", &cmd, &ncmd))
		return -1;
	if (!ncmd) {
		free_strings(cmd);
		return err_at(c, kv->val->pos, "'command' in %s must not be empty", c->what);
	}
	if (get_bool(c, tab, "shell", &shell)) {
		free_strings(cmd);
		return -1;
	}
	if (!shell) {
		t->argv = cmd;
		return 0;
	}
	for (i = 0; i < ncmd; i++)
		len += strlen(cmd[i]) + 1;
	line = rn_xcalloc(len, 1);
	for (i = 0; i < ncmd; i++) {
		if (i)
			strncat(line, " ", len - strlen(line) - 1);
		strncat(line, cmd[i], len - strlen(line) - 1);
	}
	t->argv = rn_xcalloc(4, sizeof(*t->argv));
	t->argv[0] = rn_xstrdup("/bin/sh");
	t->argv[1] = rn_xstrdup("-c");
	t->argv[2] = line;
	free_strings(cmd);
	return 0;
}

/* `env`: a table of strings, kept as "NAME=value". */
static int parse_env(struct ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "env");
	const struct rn_toml_table *et;
	size_t i;

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_TABLE)
		return type_err(c, kv, "a table of strings");
	et = kv->val->u.table;
	t->env = rn_xcalloc(et->n + 1, sizeof(*t->env));
	for (i = 0; i < et->n; i++) {
		const struct rn_toml_kv *e = &et->kv[i];
		const struct rn_toml_value *v = e->val;

		if (v->type != RN_TOML_STRING)
			return err_at(c, v->pos, "env value '%s' in %s must be a string, found %s",
				      e->key, c->what, a_type(v->type));
		if (strlen(v->u.str.ptr) != v->u.str.len)
			return err_at(c, v->pos,
				      "env value '%s' in %s must not contain NUL characters",
				      e->key, c->what);
		if (!e->key[0] || strchr(e->key, '=') || strlen(e->key) != e->key_len)
			return err_at(
				c, e->key_pos,
				"env name '%s' in %s must be non-empty and contain no '=' or NUL",
				e->key, c->what);
		t->env[i] = xformat("%s=%s", e->key, v->u.str.ptr);
	}
	return 0;
}

/* `"ptrace", "vulkan" or "cuda"`: the names of RN_TARGET_COLLECTORS for messages. */
static void collector_alternatives(char *buf, size_t cap)
{
	size_t i, n = 0, len = 0;

	while (rn_target_collector_names[n])
		n++;
	buf[0] = '\0';
	for (i = 0; i < n && len < cap; i++) {
		const char *sep = !i ? "" : i + 1 == n ? " or " : ", ";
		int w = snprintf(buf + len, cap - len, "%s\"%s\"", sep,
				 rn_target_collector_names[i]);

		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* `collectors`: names from RN_TARGET_COLLECTORS (collectors/collector.h). */
static int parse_collectors(struct ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "collectors");
	char **colls = NULL;
	size_t ncolls = 0, i, k;
	int rc = 0;

	if (!kv)
		return 0;
	if (get_strings(c, tab, "collectors", &colls, &ncolls))
		return -1;
	t->collectors = 0;
	for (i = 0; i < ncolls && !rc; i++) {
		char expected[128];
		const char *hint;

		for (k = 0; rn_target_collector_names[k]; k++)
			if (!strcmp(colls[i], rn_target_collector_names[k]))
				break;
		if (rn_target_collector_names[k]) {
			t->collectors |= rn_collector_mask_of(colls[i]);
			continue;
		}
		collector_alternatives(expected, sizeof(expected));
		hint = rn_suggest(colls[i], rn_target_collector_names);
		rc = err_at(c, kv->val->u.array.items[i]->pos,
			    "unknown collector \"%s\" in %s (expected %s%s%s%s)", colls[i], c->what,
			    expected, hint ? "; did you mean \"" : "", hint ? hint : "",
			    hint ? "\"?" : "");
	}
	free_strings(colls);
	return rc;
}

/* `cwd`, resolved against the config's directory. */
static int parse_cwd(struct ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	char *cwd = NULL;

	if (!rn_toml_get_kv(tab, "cwd"))
		return 0;
	if (get_string(c, tab, "cwd", &cwd))
		return -1;
	free(t->cwd);
	t->cwd = resolve_path(c->cfg, cwd);
	free(cwd);
	return 0;
}

/* The numeric keys of a [[target]]: limits and run counts. */
static int parse_target_numbers(struct ctx *c, const struct rn_toml_value *tab,
				struct rn_target_cfg *t)
{
	double timeout_s = -1, weight = 0;
	int64_t expect = 0, runs = 1, counting = 1, warmup = 0;

	if (get_num(c, tab, "timeout_s", 0.001, 86400.0 * 7, &timeout_s) ||
	    get_int(c, tab, "expect_exit", -1, 255, &expect) ||
	    get_int(c, tab, "runs", 1, 1000, &runs) ||
	    get_int(c, tab, "counting_runs", 1, 100, &counting) ||
	    get_int(c, tab, "warmup", 0, 100, &warmup) ||
	    get_num(c, tab, "shard_weight", 1e-6, 1e12, &weight))
		return -1;
	if (timeout_s > 0)
		t->timeout_ns = (uint64_t)(timeout_s * 1e9);
	t->expect_exit = (int)expect;
	t->runs = (unsigned)runs;
	t->counting_runs = (unsigned)counting;
	t->warmup = (unsigned)warmup;
	t->shard_weight = weight;
	return get_string(c, tab, "build", &t->build);
}

/* The process limits of a [[target]]. */
static int parse_target_limits(struct ctx *c, const struct rn_toml_value *tab,
			       struct rn_target_cfg *t)
{
	int64_t procs = (int64_t)t->max_procs, as_bytes = 0;

	if (get_int(c, tab, "max_processes", 1, 10000000, &procs) ||
	    get_int(c, tab, "max_memory_bytes", 1 << 20, INT64_MAX, &as_bytes))
		return -1;
	t->max_procs = (uint64_t)procs;
	t->max_as_bytes = (uint64_t)as_bytes;
	return 0;
}

/* The keys of a [[target]] that choose among names, then its limits and `instructions`, in
 * the order of the reference. */
static int parse_target_choices(struct ctx *c, const struct rn_toml_value *tab,
				struct rn_target_cfg *t)
{
	int gpu = (int)t->gpu_mode, out = (int)t->out, err = (int)t->err, driver = 0, scope = 0;

	if (get_choice(c, tab, "gpu_timing", gpu_mode_names, &gpu) ||
	    get_choice(c, tab, "region_scope", region_scope_names, &scope) ||
	    get_choice(c, tab, "stdout", stdio_names, &out) ||
	    get_choice(c, tab, "stderr", stdio_names, &err))
		return -1;
	t->gpu_mode = (enum rn_gpu_mode)gpu;
	t->region_thread_scope = scope == 1;
	t->out = (enum rn_stdio)out;
	t->err = (enum rn_stdio)err;
	if (parse_target_limits(c, tab, t) ||
	    get_choice(c, tab, "driver", rn_driver_pref_names, &driver))
		return -1;
	t->driver = driver;
	if (rn_toml_get_kv(tab, "instructions")) {
		bool on = false;

		if (get_bool(c, tab, "instructions", &on))
			return -1;
		t->instructions = on;
	}
	if (rn_toml_get_kv(tab, "profile")) {
		bool on = false;

		if (get_bool(c, tab, "profile", &on))
			return -1;
		t->profile = on;
	}
	return 0;
}

/* `inject`: strace --inject rules (collectors/inject_rules.h), applied by the ptrace driver
 * in every run of the target. */
static int parse_inject(struct ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "inject");
	char **rules = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (!kv)
		return 0;
	if (get_strings(c, tab, "inject", &rules, &n))
		return -1;
	t->inject = rn_xcalloc(n ? n : 1, sizeof(*t->inject));
	for (i = 0; i < n && !rc; i++) {
		struct rn_diag d;

		rn_diag_init(&d, NULL, NULL, 0);
		if (rn_inject_parse(&t->inject[i], rules[i], &d))
			rc = err_at(c, kv->val->u.array.items[i]->pos, "%s in %s", d.msg, c->what);
		else
			t->ninject++;
	}
	if (!rc && n && t->driver == RN_DRIVER_PREF_EBPF)
		rc = err_at(c, kv->val->pos,
			    "'inject' in %s needs the ptrace driver (driver = \"ebpf\" only counts)",
			    c->what);
	free_strings(rules);
	return rc;
}

static int parse_target(struct ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv;

	target_defaults(t, c->cfg);
	t->line = tab->pos.line;
	c->what = "[[target]]";
	kv = rn_toml_get_kv(tab, "name");
	if (!kv)
		return err_at(c, tab->pos, "[[target]] needs a 'name'");
	if (get_string(c, tab, "name", &t->name))
		return -1;
	if (!rn_config_name_valid(t->name))
		return err_at(c, kv->val->pos, "target name \"%s\" must match [A-Za-z0-9_.-]+",
			      t->name);
	snprintf(c->what_buf, sizeof(c->what_buf), "[[target]] '%s'", t->name);
	c->what = c->what_buf;
	if (check_keys(c, tab, target_keys) || parse_command(c, tab, t) || parse_cwd(c, tab, t) ||
	    parse_env(c, tab, t) || parse_target_numbers(c, tab, t) ||
	    parse_collectors(c, tab, t) || parse_target_choices(c, tab, t) ||
	    parse_inject(c, tab, t))
		return -1;
	return 0;
}

static void assertion_release(struct rn_assertion_spec *a)
{
	free(a->name);
	free_strings(a->targets);
	free(a->trace_name_pattern);
	free(a->span_name_pattern);
	free(a->region_pattern);
	free(a->pattern);
	free(a->process_name_pattern);
	free(a->golden);
	free(a->golden_dir);
	free(a->witness_pattern);
	memset(a, 0, sizeof(*a));
}

/* The keys each assertion type needs or allows beyond the common ones. */
static bool key_belongs(enum rn_assertion_type type, const char *key)
{
	static const char *const per_type[RN_ASSERT_COUNT][10] = {
		[RN_ASSERT_CRITICAL_PATH] = { "max_duration_ms", "trace_name_pattern", NULL },
		[RN_ASSERT_SPAN_COUNT] = { "max_spans", "span_name_pattern", "region_pattern",
					   NULL },
		[RN_ASSERT_MEMORY_USAGE] = { "max_bytes", "tracking_mode", NULL },
		[RN_ASSERT_ANTI_PATTERN] = { "pattern", "threshold", "process_name_pattern",
					     "region_pattern", NULL },
		[RN_ASSERT_EQUIVALENCE] = { "golden", NULL },
		[RN_ASSERT_INSTRUCTIONS] = { "max_instructions", "tolerance", NULL },
		[RN_ASSERT_WITNESS] = { "span_name_pattern", "witness_pattern", "tolerance", NULL },
		[RN_ASSERT_SPAN_TIME] = { "span_name_pattern", "region_pattern", "stat", "max_ms",
					  "min_ms", "threshold_ms", "max_spans", "max_time_ms",
					  "min_time_ms", NULL },
	};
	static const char *const specific[] = { "max_duration_ms",
						"trace_name_pattern",
						"max_spans",
						"span_name_pattern",
						"max_bytes",
						"tracking_mode",
						"pattern",
						"threshold",
						"process_name_pattern",
						"golden",
						"max_instructions",
						"tolerance",
						"region_pattern",
						"stat",
						"max_ms",
						"min_ms",
						"threshold_ms",
						"max_time_ms",
						"min_time_ms",
						"witness_pattern",
						NULL };
	const char *const *k;

	for (k = specific; *k; k++)
		if (!strcmp(*k, key))
			break;
	if (!*k)
		return true; /* a common key */
	for (k = per_type[type]; *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

static const char *const aggregate_names[] = { "median", "min", "p95", "max", NULL };
static const char *const tracking_names[] = { "rss", "allocations", NULL };

static int require(struct ctx *c, const struct rn_toml_value *tab, const char *key,
		   const char *type_name, const char *what_type)
{
	if (rn_toml_get_kv(tab, key))
		return 0;
	return err_at(c, tab->pos, "%s of type %s needs '%s' (%s)", c->what, what_type, key,
		      type_name);
}

/* span_count without span_name_pattern counts every span, as in the original format. */
static int compile_all_spans(struct ctx *c, const struct rn_toml_value *tab,
			     struct rn_assertion_spec *a)
{
	a->span_name_pattern = rn_xstrdup(".*");
	return pool_compile(c, tab->pos, "span_name_pattern", ".*", &a->span_re);
}

/* `type = "custom"` with an `expression`: the original format's user-defined assertion. */
static bool is_custom_type(const struct rn_toml_value *tab)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "type");

	return kv && kv->val->type == RN_TOML_STRING && !strcmp(kv->val->u.str.ptr, "custom");
}

static int parse_critical_path(struct ctx *c, const struct rn_toml_value *tab,
			       struct rn_assertion_spec *a)
{
	double dv;

	if (require(c, tab, "max_duration_ms", "milliseconds", "critical_path"))
		return -1;
	dv = 0;
	if (get_num(c, tab, "max_duration_ms", 0, 1e12, &dv))
		return -1;
	a->max_duration_ns = (uint64_t)llround(dv * 1e6);
	if (get_regex(c, tab, "trace_name_pattern", &a->trace_name_pattern, &a->trace_re))
		return -1;
	return 0;
}

/* The architecture whose syscall table the build generated (collectors/syscall_names.h). */
#if defined(__x86_64__)
#define RN_ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define RN_ARCH_NAME "aarch64"
#elif defined(__i386__)
#define RN_ARCH_NAME "i386"
#elif defined(__riscv)
#define RN_ARCH_NAME "riscv64"
#else
#define RN_ARCH_NAME "this architecture"
#endif

/*
 * Syscalls that the C library's function of the same name no longer makes on Linux (glibc >=
 * 2.33, musl), with the one it makes instead: a pattern naming only these counts calls that a
 * program made by hand. Where the old syscall does not exist at all (aarch64 has no open, stat,
 * fork), the name also serves as the suggestion of the "names no syscall" error.
 */
static const struct {
	const char *name;    /* the function's and old syscall's name */
	const char *instead; /* what libc calls */
} libc_instead[] = {
	{ "open", "openat" },
	{ "creat", "openat" },
	{ "stat", "newfstatat (or statx)" },
	{ "lstat", "newfstatat (or statx)" },
	{ "fstat", "newfstatat (or statx)" },
	{ "fork", "clone" },
	{ "getdents", "getdents64" },
	{ "wait", "wait4" },
	{ "waitpid", "wait4" },
	{ "signal", "rt_sigaction" },
	{ "sigaction", "rt_sigaction" },
	{ "sigprocmask", "rt_sigprocmask" },
};

static const char *libc_instead_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(libc_instead) / sizeof(libc_instead[0]); i++)
		if (!strcmp(libc_instead[i].name, name))
			return libc_instead[i].instead;
	return NULL;
}

/*
 * Resolve a span_name_pattern against this architecture's syscall table: a pattern that
 * matches no syscall name and is no pattern of another span kind (their names have a prefix
 * with ':', "gpu:", "region:", "graph:", "app:"; no syscall's name has one) would count 0 and
 * pass, or be NO DATA at check time: an error at its position. A pattern that matches only
 * syscalls libc no longer calls gets a note naming the one it does.
 */
static int check_syscall_pattern(struct ctx *c, const struct rn_toml_value *tab,
				 const struct rn_assertion_spec *a)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "span_name_pattern");
	int nr, n = rn_syscall_table_size(), matched = 0, legacy = 0;
	const char *hint, *instead, **names;
	size_t k = 0;

	if (!kv || !a->span_re || strchr(a->span_name_pattern, ':'))
		return 0;
	for (nr = 0; nr < n; nr++) {
		const char *name;

		if (!rn_syscall_has_name(nr))
			continue;
		name = rn_syscall_name(nr);
		if (!rn_regex_match(a->span_re, name)) {
			/* a pattern whose matching gives up at PCRE2's limits cannot be resolved
			 * against the table (the assertion says so when it is judged); one such
			 * match is enough, not one per syscall name */
			if (rn_regex_limit_hits(a->span_re))
				return 0;
			continue;
		}
		matched++;
		legacy += libc_instead_of(name) != NULL;
	}
	if (matched && legacy == matched) {
		struct rn_buf list;

		rn_buf_init(&list, 0);
		for (nr = 0; nr < n; nr++) {
			const char *name;

			if (!rn_syscall_has_name(nr))
				continue;
			name = rn_syscall_name(nr);
			if (!rn_regex_match(a->span_re, name))
				continue;
			rn_buf_addf(&list, "%s%s() calls %s", list.len ? ", " : "", name,
				    libc_instead_of(name));
		}
		rn_config_add_note(c->cfg, kv->val->pos,
				   "span_name_pattern \"%s\" in %s matches only syscalls the C "
				   "library does not make on " RN_ARCH_NAME " (%s): it counts only "
				   "direct calls; name the syscall libc makes",
				   a->span_name_pattern, c->what, list.buf);
		rn_buf_release(&list);
		return 0;
	}
	if (matched)
		return 0;
	instead = libc_instead_of(a->span_name_pattern);
	if (instead)
		return err_at(c, kv->val->pos,
			      "span_name_pattern \"%s\" in %s matches no syscall of " RN_ARCH_NAME
			      ": libc's %s() calls %s",
			      a->span_name_pattern, c->what, a->span_name_pattern, instead);
	names = rn_xcalloc((size_t)n + 1, sizeof(*names));
	for (nr = 0; nr < n; nr++)
		if (rn_syscall_has_name(nr))
			names[k++] = rn_syscall_name(nr);
	{
		/* The suggestion compares the pattern's letters: "opne.*" -> "opne" -> "open". */
		char *word = rn_xstrdup(a->span_name_pattern), *w = word;
		const char *p;

		for (p = a->span_name_pattern; *p; p++)
			if (!strchr(".*+?()[]{}|^$\\", *p))
				*w++ = *p;
		*w = '\0';
		hint = *word ? rn_suggest(word, names) : NULL;
		free(word);
	}
	nr = err_at(c, kv->val->pos,
		    "span_name_pattern \"%s\" in %s matches no syscall of " RN_ARCH_NAME
		    " and no span of another kind (gpu:, region:, graph:, app:)%s%s%s",
		    a->span_name_pattern, c->what, hint ? " (did you mean \"" : "",
		    hint ? hint : "", hint ? "\"?)" : "");
	free(names);
	return nr;
}

static int parse_span_count(struct ctx *c, const struct rn_toml_value *tab,
			    struct rn_assertion_spec *a)
{
	int64_t iv;

	if (require(c, tab, "max_spans", "an integer", "span_count"))
		return -1;
	iv = 0;
	if (get_int(c, tab, "max_spans", 0, INT64_MAX, &iv))
		return -1;
	a->max_spans = (uint64_t)iv;
	if (get_regex(c, tab, "span_name_pattern", &a->span_name_pattern, &a->span_re))
		return -1;
	if (check_syscall_pattern(c, tab, a))
		return -1;
	if (!a->span_name_pattern && compile_all_spans(c, tab, a))
		return -1;
	if (get_regex(c, tab, "region_pattern", &a->region_pattern, &a->region_re))
		return -1;
	return 0;
}

static int parse_memory_usage(struct ctx *c, const struct rn_toml_value *tab,
			      struct rn_assertion_spec *a)
{
	int64_t iv;
	int choice;

	if (require(c, tab, "max_bytes", "bytes", "memory_usage"))
		return -1;
	iv = 0;
	if (get_int(c, tab, "max_bytes", 0, INT64_MAX, &iv))
		return -1;
	a->max_bytes = (uint64_t)iv;
	choice = 0;
	if (get_choice(c, tab, "tracking_mode", tracking_names, &choice))
		return -1;
	a->tracking_mode = (enum rn_tracking_mode)choice;
	/* A file without [[target]] is in the original format (its targets come from the
	 * command line), whose default mode was allocations: say which one is measured. */
	if (!rn_toml_get_kv(tab, "tracking_mode") && !c->cfg->ntargets)
		rn_config_add_note(c->cfg, tab->pos,
				   "%s has no tracking_mode: it measures \"rss\" (peak "
				   "resident set); the original renacer measured "
				   "\"allocations\" here; set tracking_mode to choose",
				   c->what);
	return 0;
}

static int parse_anti_pattern(struct ctx *c, const struct rn_toml_value *tab,
			      struct rn_assertion_spec *a)
{
	char *p = NULL;
	const char *canon;
	const struct rn_toml_kv *kv;

	if (require(c, tab, "pattern", "a detector name", "anti_pattern"))
		return -1;
	if (get_string(c, tab, "pattern", &p))
		return -1;
	canon = rn_antipattern_canonical(p);
	if (!canon) {
		const char *hint = rn_suggest(p, rn_antipattern_names);

		kv = rn_toml_get_kv(tab, "pattern");
		err_at(c, kv->val->pos, "unknown anti-pattern \"%s\" in %s%s%s%s", p, c->what,
		       hint ? " (did you mean \"" : "", hint ? hint : "", hint ? "\"?)" : "");
		free(p);
		return -1;
	}
	a->pattern = rn_xstrdup(canon);
	free(p);
	if (get_num(c, tab, "threshold", 0.0, 1.0, &a->threshold))
		return -1;
	if (get_regex(c, tab, "process_name_pattern", &a->process_name_pattern, &a->process_re))
		return -1;
	if (get_regex(c, tab, "region_pattern", &a->region_pattern, &a->region_re))
		return -1;
	return 0;
}

static int parse_equivalence(struct ctx *c, const struct rn_toml_value *tab,
			     struct rn_assertion_spec *a)
{
	char *g = NULL;

	if (get_string(c, tab, "golden", &g))
		return -1;
	if (g) {
		a->golden = resolve_path(c->cfg, g);
		free(g);
	}
	return 0;
}

static int parse_instructions(struct ctx *c, const struct rn_toml_value *tab,
			      struct rn_assertion_spec *a)
{
	int64_t iv;

	if (require(c, tab, "max_instructions", "an integer", "instructions"))
		return -1;
	iv = 0;
	if (get_int(c, tab, "max_instructions", 0, INT64_MAX, &iv))
		return -1;
	a->max_instructions = (uint64_t)iv;
	if (get_num(c, tab, "tolerance", 0.0, 0.05, &a->tolerance))
		return -1;
	return 0;
}

/* A span_time key in milliseconds into ns; *has set when present. 0 or -1. */
static int get_ms(struct ctx *c, const struct rn_toml_value *tab, const char *key, bool *has,
		  uint64_t *ns)
{
	double dv = 0;

	if (!rn_toml_get_kv(tab, key))
		return 0;
	if (get_num(c, tab, key, 0, 1e12, &dv))
		return -1;
	*has = true;
	*ns = (uint64_t)llround(dv * 1e6);
	return 0;
}

/*
 * span_time: `stat` of the matching spans' durations against max_ms and/or min_ms, or with
 * stat count_above the spans longer than threshold_ms against max_spans (default 0). The
 * original format's per-name budgets map onto it: max_time_ms is stat max with max_ms,
 * min_time_ms a floor on the shortest span.
 */
static int parse_span_time(struct ctx *c, const struct rn_toml_value *tab,
			   struct rn_assertion_spec *a)
{
	const struct rn_toml_kv *kv;
	bool has_threshold = false, has_max_time = false;
	uint64_t max_time = 0;
	int64_t iv = 0;
	int choice = RN_SPAN_STAT_MAX;

	if (get_regex(c, tab, "span_name_pattern", &a->span_name_pattern, &a->span_re))
		return -1;
	if (!a->span_name_pattern && compile_all_spans(c, tab, a))
		return -1;
	if (get_regex(c, tab, "region_pattern", &a->region_pattern, &a->region_re))
		return -1;
	if (get_choice(c, tab, "stat", span_stat_names, &choice))
		return -1;
	a->span_stat = (enum rn_span_stat)choice;
	if (get_ms(c, tab, "max_ms", &a->has_max_span, &a->max_span_ns) ||
	    get_ms(c, tab, "min_ms", &a->has_min_span, &a->min_span_ns) ||
	    get_ms(c, tab, "threshold_ms", &has_threshold, &a->threshold_ns) ||
	    get_ms(c, tab, "max_time_ms", &has_max_time, &max_time) ||
	    get_ms(c, tab, "min_time_ms", &a->has_min_each, &a->min_each_ns))
		return -1;
	if (has_max_time) {
		kv = rn_toml_get_kv(tab, "max_time_ms");
		if (a->has_max_span || (rn_toml_get_kv(tab, "stat") && choice != RN_SPAN_STAT_MAX))
			return err_at(c, kv->key_pos,
				      "%s: max_time_ms is the longest span's budget (stat \"max\" "
				      "with max_ms); give one of them",
				      c->what);
		a->has_max_span = true;
		a->max_span_ns = max_time;
	}
	if (a->span_stat == RN_SPAN_STAT_COUNT_ABOVE) {
		if (!has_threshold)
			return err_at(c, tab->pos,
				      "%s of type span_time with stat \"count_above\" needs "
				      "'threshold_ms' (milliseconds)",
				      c->what);
		if (a->has_max_span || a->has_min_span)
			return err_at(
				c,
				rn_toml_get_kv(tab, a->has_max_span ? "max_ms" : "min_ms")->key_pos,
				"%s: stat \"count_above\" is judged against max_spans (a "
				"count), not %s",
				c->what, a->has_max_span ? "max_ms" : "min_ms");
		if (get_int(c, tab, "max_spans", 0, INT64_MAX, &iv))
			return -1;
		a->max_spans = (uint64_t)iv;
		return 0;
	}
	if ((kv = rn_toml_get_kv(tab, "threshold_ms")) || (kv = rn_toml_get_kv(tab, "max_spans")))
		return err_at(c, kv->key_pos, "%s: '%s' applies only with stat \"count_above\"",
			      c->what, kv->key);
	if (!a->has_max_span && !a->has_min_span && !a->has_min_each)
		return err_at(c, tab->pos,
			      "%s of type span_time needs 'max_ms' or 'min_ms' (milliseconds), or "
			      "the original format's 'max_time_ms' / 'min_time_ms'",
			      c->what);
	return 0;
}

/* witness: app spans against the syscalls that end their work (assertion.h). */
static int parse_witness(struct ctx *c, const struct rn_toml_value *tab,
			 struct rn_assertion_spec *a)
{
	static const char default_witness[] =
		"write|writev|pwrite64|pwritev|pwritev2|send|sendto|sendmsg|sendmmsg|sendfile";

	if (require(c, tab, "span_name_pattern", "a pattern over app:<name> spans", "witness"))
		return -1;
	if (get_regex(c, tab, "span_name_pattern", &a->span_name_pattern, &a->span_re) ||
	    get_regex(c, tab, "witness_pattern", &a->witness_pattern, &a->witness_re))
		return -1;
	if (!a->witness_pattern &&
	    pool_compile(c, tab->pos, "witness_pattern", default_witness, &a->witness_re))
		return -1;
	if (!a->witness_pattern)
		a->witness_pattern = rn_xstrdup(default_witness);
	a->tolerance = 0.2;
	if (get_num(c, tab, "tolerance", 0.0, 10.0, &a->tolerance))
		return -1;
	return 0;
}

/* The keys of the assertion's type. 0 or -1 (error in c->d). */
static int parse_type_keys(struct ctx *c, const struct rn_toml_value *tab,
			   struct rn_assertion_spec *a)
{
	static int (*const parsers[RN_ASSERT_COUNT])(struct ctx *, const struct rn_toml_value *,
						     struct rn_assertion_spec *) = {
		[RN_ASSERT_CRITICAL_PATH] = parse_critical_path,
		[RN_ASSERT_SPAN_COUNT] = parse_span_count,
		[RN_ASSERT_MEMORY_USAGE] = parse_memory_usage,
		[RN_ASSERT_ANTI_PATTERN] = parse_anti_pattern,
		[RN_ASSERT_EQUIVALENCE] = parse_equivalence,
		[RN_ASSERT_INSTRUCTIONS] = parse_instructions,
		[RN_ASSERT_SPAN_TIME] = parse_span_time,
		[RN_ASSERT_WITNESS] = parse_witness,
	};

	return parsers[a->type] ? parsers[a->type](c, tab, a) : 0;
}

/* Returns 0, -1 (error in c->d) or 1: an assertion of the original format that is accepted
 * with a note and left out (type custom). */
static int parse_assertion(struct ctx *c, const struct rn_toml_value *tab,
			   struct rn_assertion_spec *a)
{
	const struct rn_toml_kv *kv;
	int choice = 0;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->enabled = true;
	a->fail_on_violation = true;
	a->threshold = 0.8;
	a->line = tab->pos.line;
	a->col = tab->pos.col;
	c->what = "[[assertion]]";
	if (!rn_toml_get_kv(tab, "name"))
		return err_at(c, tab->pos, "[[assertion]] needs a 'name'");
	if (get_string(c, tab, "name", &a->name))
		return -1;
	if (!*a->name)
		return err_at(
			c, rn_toml_get_kv(tab, "name")->val->pos,
			"[[assertion]] 'name' must not be empty (it names the verdict row, the "
			"JUnit testcase and the OTLP span)");
	snprintf(c->what_buf, sizeof(c->what_buf), "[[assertion]] '%s'", a->name);
	c->what = c->what_buf;
	if (is_custom_type(tab)) {
		/* the original format's Rust-expression assertion: nothing here evaluates it */
		rn_config_add_note(
			c->cfg, rn_toml_get_kv(tab, "type")->val->pos,
			"%s of type custom (a Rust expression in the original renacer) is "
			"not evaluated by this renacer and is left out of the report",
			c->what);
		return 1;
	}
	if (check_keys(c, tab, assertion_keys))
		return -1;
	if (!rn_toml_get_kv(tab, "type"))
		return err_at(c, tab->pos,
			      "%s needs a 'type' (critical_path, span_count, "
			      "memory_usage, anti_pattern, equivalence, instructions, span_time or "
			      "witness)",
			      c->what);
	if (get_choice(c, tab, "type", assertion_types, &choice))
		return -1;
	a->type = (enum rn_assertion_type)choice;
	for (i = 0; i < tab->u.table->n; i++) {
		kv = &tab->u.table->kv[i];
		if (!key_belongs(a->type, kv->key))
			return err_at(c, kv->key_pos, "key '%s' does not apply to %s of type %s",
				      kv->key, c->what, assertion_types[a->type]);
	}
	if (get_bool(c, tab, "enabled", &a->enabled) ||
	    get_bool(c, tab, "fail_on_violation", &a->fail_on_violation))
		return -1;
	choice = 0;
	if (get_choice(c, tab, "aggregate", aggregate_names, &choice))
		return -1;
	a->aggregate = (enum rn_aggregate)choice;
	if (get_strings(c, tab, "targets", &a->targets, NULL))
		return -1;
	return parse_type_keys(c, tab, a);
}

/* A top-level key that must be a table; returns it or NULL (absent). Sets *err on error. */
/* [golden] runs, metrics and tolerances: which golden comparisons are made and how loosely. */
static int golden_judging(struct ctx *c, const struct rn_toml_value *v, struct rn_config *cfg)
{
	struct rn_regression_cfg *r = &cfg->regression;
	const struct rn_toml_kv *kv;
	int64_t iv = cfg->golden_runs;
	size_t i;

	if (get_int(c, v, "runs", 1, 1000, &iv))
		return -1;
	cfg->golden_runs = (unsigned)iv;
	kv = rn_toml_get_kv(v, "metrics");
	if (kv) {
		char **names = NULL;
		size_t n = 0;

		if (get_strings(c, v, "metrics", &names, &n))
			return -1;
		for (i = 0; i < RN_GOLDEN_CHECK_COUNT; i++)
			r->judged[i] = false;
		for (i = 0; i < n; i++) {
			int k = rn_golden_check_lookup(names[i]);

			if (k < 0) {
				const char *known[RN_GOLDEN_CHECK_COUNT + 1];
				const char *hint;
				int j;

				for (j = 0; j < RN_GOLDEN_CHECK_COUNT; j++)
					known[j] = rn_golden_check_name((enum rn_golden_check)j);
				known[j] = NULL;
				hint = rn_suggest(names[i], known);
				err_at(c, kv->val->u.array.items[i]->pos,
				       "unknown golden metric \"%s\" in [golden] metrics%s%s%s (known: "
				       "syscalls, syscall_counts, processes, cpu_time, wall_time, "
				       "critical_path, peak_rss, alloc_peak, gpu_busy, gpu_dispatches, "
				       "gpu_copy_bytes, instructions)",
				       names[i], hint ? " (did you mean \"" : "", hint ? hint : "",
				       hint ? "\"?)" : "");
				free_strings(names);
				return -1;
			}
			r->judged[k] = true;
		}
		free_strings(names);
	}
	kv = rn_toml_get_kv(v, "tolerances");
	if (kv) {
		const struct rn_toml_table *t;

		if (kv->val->type != RN_TOML_TABLE)
			return type_err(c, kv, "a table of numbers ([golden.tolerances])");
		t = kv->val->u.table;
		for (i = 0; i < t->n; i++) {
			const struct rn_toml_value *e = t->kv[i].val;
			int k = rn_golden_check_lookup(t->kv[i].key);
			double x;

			if (k < 0)
				return err_at(c, t->kv[i].key_pos,
					      "unknown golden metric '%s' in [golden.tolerances]",
					      t->kv[i].key);
			if (e->type == RN_TOML_INTEGER)
				x = (double)e->u.integer;
			else if (e->type == RN_TOML_FLOAT)
				x = e->u.fp;
			else
				return err_at(c, e->pos,
					      "'%s' in [golden.tolerances] must be a number "
					      "(a fraction: 0.25 allows +25%%), found %s",
					      t->kv[i].key, a_type(e->type));
			if (!(x >= 0.0 && x <= 100.0))
				return err_at(c, e->pos,
					      "'%s' in [golden.tolerances] must be between 0 "
					      "and 100, found %g",
					      t->kv[i].key, x);
			r->tolerance[k] = x;
		}
	}
	return 0;
}

static const struct rn_toml_value *get_table(struct ctx *c, const struct rn_toml_value *root,
					     const char *key, const char *const *keys, int *err)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(root, key);

	*err = 0;
	if (!kv)
		return NULL;
	if (kv->val->type != RN_TOML_TABLE) {
		*err = err_at(c, kv->val->pos, "'%s' must be a table ([%s]), found %s", key, key,
			      a_type(kv->val->type));
		return NULL;
	}
	snprintf(c->what_buf, sizeof(c->what_buf), "[%s]", key);
	c->what = c->what_buf;
	if (check_keys(c, kv->val, keys)) {
		*err = -1;
		return NULL;
	}
	return kv->val;
}

/* The array of tables `key` ([[key]]); NULL when absent. */
static const struct rn_toml_value *get_aot(struct ctx *c, const struct rn_toml_value *root,
					   const char *key, int *err)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(root, key);
	size_t i;

	*err = 0;
	if (!kv)
		return NULL;
	if (kv->val->type != RN_TOML_ARRAY) {
		*err = err_at(c, kv->val->pos, "'%s' must be an array of tables ([[%s]]), found %s",
			      key, key, a_type(kv->val->type));
		return NULL;
	}
	for (i = 0; i < kv->val->u.array.n; i++) {
		if (kv->val->u.array.items[i]->type != RN_TOML_TABLE) {
			*err = err_at(c, kv->val->u.array.items[i]->pos,
				      "'%s' must be an array of tables ([[%s]]), found %s", key,
				      key, a_type(kv->val->u.array.items[i]->type));
			return NULL;
		}
	}
	return kv->val;
}

/*
 * [semantic_equivalence] (assertions/equivalence.h): the options of every equivalence
 * assertion; with baseline_dir, an implicit assertion "semantic_equivalence" compares every
 * target with baseline_dir/<target>.jsonl. Runs after [[assertion]] so it can give them the
 * options and the folder.
 */
static int parse_semantic_equivalence(struct ctx *c, const struct rn_toml_value *root)
{
	static const char *const norm_names[] = { "tmp", "pids", "numbers", NULL };
	struct rn_config *cfg = c->cfg;
	const struct rn_toml_value *v;
	const struct rn_toml_kv *kv;
	char *dir = NULL, **norms = NULL, **n;
	bool on = true, have = false;
	size_t i;
	int err;

	cfg->semantic = rn_xcalloc(1, sizeof(*cfg->semantic));
	rn_equiv_opts_init(cfg->semantic);
	v = get_table(c, root, "semantic_equivalence", semantic_keys, &err);
	if (err)
		return -1;
	if (v &&
	    (get_bool(c, v, "enabled", &on) ||
	     get_num(c, v, "min_confidence", 0.0, 1.0, &cfg->semantic->min_confidence) ||
	     get_bool(c, v, "keep_system", &cfg->semantic->keep_system) ||
	     get_strings(c, v, "ignore_paths", &cfg->semantic_ignore, NULL) ||
	     get_strings(c, v, "normalize", &norms, NULL) ||
	     get_string(c, v, "baseline_dir", &dir)))
		goto out_fail;
	cfg->semantic->ignore_paths = cfg->semantic_ignore;
	if (norms) {
		cfg->semantic->normalize = 0;
		for (n = norms; *n; n++) {
			const char *const *k;

			for (k = norm_names; *k && strcmp(*k, *n); k++)
				;
			if (!*k) {
				kv = rn_toml_get_kv(v, "normalize");
				err_at(c, kv->val->pos,
				       "unknown normalisation \"%s\" in "
				       "[semantic_equivalence] (expected \"tmp\", \"pids\" or "
				       "\"numbers\")",
				       *n);
				goto out_fail;
			}
			cfg->semantic->normalize |= 1u << (k - norm_names);
		}
	}
	if (dir) {
		char *abs = resolve_path(cfg, dir);

		free(dir);
		dir = abs;
	}
	for (i = 0; i < cfg->nassertions; i++) {
		struct rn_assertion_spec *a = &cfg->assertions[i];

		if (a->type != RN_ASSERT_EQUIVALENCE)
			continue;
		have = true;
		a->equiv = cfg->semantic;
		if (!on)
			a->enabled = false;
		if (a->golden)
			continue;
		if (!dir) {
			struct rn_toml_pos pos = { a->line, a->col };

			err_at(c, pos,
			       "[[assertion]] '%s' of type equivalence needs 'golden' (a "
			       "recorded trace) or [semantic_equivalence] baseline_dir",
			       a->name);
			goto out_fail;
		}
		a->golden_dir = rn_xstrdup(dir);
	}
	if (dir && !have) {
		struct rn_assertion_spec *a;

		cfg->assertions = rn_xrealloc(cfg->assertions,
					      (cfg->nassertions + 1) * sizeof(*cfg->assertions));
		a = &cfg->assertions[cfg->nassertions++];
		memset(a, 0, sizeof(*a));
		a->name = rn_xstrdup("semantic_equivalence");
		a->type = RN_ASSERT_EQUIVALENCE;
		a->enabled = on;
		a->fail_on_violation = true;
		a->line = v ? v->pos.line : 0;
		a->col = v ? v->pos.col : 0;
		a->golden_dir = rn_xstrdup(dir);
		a->equiv = cfg->semantic;
	}
	free(dir);
	free_strings(norms);
	return 0;
out_fail:
	free(dir);
	free_strings(norms);
	return -1;
}

/* [history]: where checks are remembered (runner/history/history.h). */
static int parse_history(struct ctx *c, const struct rn_toml_value *root)
{
	struct rn_history_file_cfg *h = &c->cfg->history;
	const struct rn_toml_value *v;
	char *url = NULL;
	int err;

	v = get_table(c, root, "history", history_keys, &err);
	if (err)
		return -1;
	h->busy_timeout_ms = -1;
	if (!v)
		return 0;
	h->present = true;
	h->enabled = true;
	if (get_bool(c, v, "enabled", &h->enabled) || get_string(c, v, "url", &url) ||
	    get_string(c, v, "machine", &h->machine) ||
	    get_int(c, v, "busy_timeout_ms", 0, 3600000, &h->busy_timeout_ms)) {
		free(url);
		return -1;
	}
	if (url && !rn_config_is_postgres_url(url)) {
		h->url = resolve_path(c->cfg, url);
		free(url);
	} else {
		h->url = url;
	}
	return 0;
}

/* [profile]: explaining failed timing rows (runner/check/profile_check.h). */
static int parse_profile(struct ctx *c, const struct rn_toml_value *root)
{
	struct rn_profile_cfg *p = &c->cfg->profile;
	const struct rn_toml_value *v;
	int64_t hz = 99, stacks = 5000, top = 5;
	char *dir = NULL;
	int err;

	v = get_table(c, root, "profile", profile_keys, &err);
	if (err)
		return -1;
	p->present = v != NULL;
	p->golden = p->present;
	if (v &&
	    (get_bool(c, v, "on_failure", &p->on_failure) ||
	     get_int(c, v, "frequency_hz", 1, 10000, &hz) ||
	     get_bool(c, v, "syscalls", &p->syscalls) ||
	     get_int(c, v, "max_stacks", 1, 1000000, &stacks) ||
	     get_int(c, v, "top", 1, 50, &top) || get_string(c, v, "dir", &dir) ||
	     get_bool(c, v, "golden", &p->golden))) {
		free(dir);
		return -1;
	}
	p->frequency_hz = (unsigned)hz;
	p->max_stacks = (unsigned)stacks;
	p->top = (unsigned)top;
	if (dir) {
		free(p->dir);
		p->dir = resolve_path(c->cfg, dir);
		free(dir);
	}
	return 0;
}

/* What a section parser returns: the section is fine, it recorded an error and parsing goes
 * on to find the others, or parsing stops (the diagnostic list is full, or an error after
 * which the rest would only repeat it). */
enum section_rc {
	SECTION_OK = 0,
	SECTION_FAILED = 1,
	SECTION_ABORT = -1
};

/* Is `v` a table or an array of tables? */
static bool is_table_like(const struct rn_toml_value *v)
{
	return v->type == RN_TOML_TABLE ||
		(v->type == RN_TOML_ARRAY && v->u.array.n &&
		 v->u.array.items[0]->type == RN_TOML_TABLE);
}

/* Top level: our tables, and unknown tables from other renacer versions (warned). */
static int parse_top_level(struct ctx *c, const struct rn_toml_value *root)
{
	struct rn_config *cfg = c->cfg;
	size_t i, nignored = 0;
	bool failed = false;

	for (i = 0; i < root->u.table->n; i++) {
		const struct rn_toml_kv *kv = &root->u.table->kv[i];
		const char *const *k;
		const char *hint;

		for (k = top_keys; *k; k++)
			if (!strcmp(*k, kv->key))
				break;
		if (*k)
			continue;
		if (kv->val->type == RN_TOML_TABLE && rn_original_is_table(kv->key)) {
			/* a table of the original renacer format: accepted, with notes */
			rn_original_table(cfg, kv->key, kv->val);
			continue;
		}
		hint = rn_suggest(kv->key, top_keys);
		if (is_table_like(kv->val) && !hint) {
			cfg->ignored_tables =
				rn_xrealloc(cfg->ignored_tables, (nignored + 2) * sizeof(char *));
			cfg->ignored_tables[nignored++] = rn_xstrdup(kv->key);
			cfg->ignored_tables[nignored] = NULL;
			continue;
		}
		failed = true;
		if (is_table_like(kv->val))
			err_at(c, kv->key_pos, "unknown table [%s] (did you mean [%s]?)", kv->key,
			       hint);
		else if (hint)
			err_at(c, kv->key_pos, "unknown top-level key '%s' (did you mean '%s'?)",
			       kv->key, hint);
		else
			err_at(c, kv->key_pos,
			       "unknown top-level key '%s' (expected [[target]], [[assertion]], "
			       "[golden], [report], [otlp], [regression], [semantic_equivalence], "
			       "[history] or [profile])",
			       kv->key);
	}
	return failed ? SECTION_FAILED : SECTION_OK;
}

static int parse_targets(struct ctx *c, const struct rn_toml_value *root)
{
	struct rn_config *cfg = c->cfg;
	const struct rn_toml_value *v;
	size_t i, j;
	int err;
	bool failed;

	v = get_aot(c, root, "target", &err);
	failed = err != 0;
	if (!v)
		return failed ? SECTION_FAILED : SECTION_OK;
	cfg->targets = rn_xcalloc(v->u.array.n, sizeof(*cfg->targets));
	for (i = 0; i < v->u.array.n; i++) {
		const struct rn_toml_kv *nk;

		cfg->ntargets = i + 1;
		if (rn_diag_full(c->d))
			return SECTION_ABORT;
		if (parse_target(c, v->u.array.items[i], &cfg->targets[i])) {
			failed = true; /* on to the next [[target]] */
			continue;
		}
		if (!rn_strmap_put(&c->target_names, cfg->targets[i].name, i, &j)) {
			nk = rn_toml_get_kv(v->u.array.items[i], "name");
			err_at(c, nk->val->pos,
			       "duplicate target name \"%s\" (first defined at line %d)",
			       cfg->targets[i].name, cfg->targets[j].line);
			failed = true;
			break;
		}
	}
	return failed ? SECTION_FAILED : SECTION_OK;
}

/* Targets named by assertion `a` (table `tab`) must exist when the file declares any (and
 * none is in error: no second error). Returns true when one does not. */
static bool unknown_assertion_targets(struct ctx *c, const struct rn_toml_value *tab,
				      const struct rn_assertion_spec *a)
{
	const struct rn_config *cfg = c->cfg;
	const char *names[257];
	size_t k, n = 0;
	bool failed = false;
	char **t;

	if (!a->targets || !cfg->ntargets)
		return false;
	for (k = 0; k < cfg->ntargets; k++)
		if (!cfg->targets[k].name)
			return false;
	for (k = 0; k < cfg->ntargets && n < 256; k++)
		names[n++] = cfg->targets[k].name;
	names[n] = NULL;
	for (t = a->targets; *t; t++) {
		const struct rn_toml_kv *nk = rn_toml_get_kv(tab, "targets");
		size_t idx = (size_t)(t - a->targets);
		const char *hint;

		if (rn_strmap_get(&c->target_names, *t, NULL))
			continue;
		hint = rn_suggest(*t, names);
		err_at(c, nk->val->u.array.items[idx]->pos,
		       "[[assertion]] '%s' names unknown target \"%s\"%s%s%s", a->name, *t,
		       hint ? " (did you mean \"" : "", hint ? hint : "", hint ? "\"?)" : "");
		failed = true;
	}
	return failed;
}

static int parse_assertions(struct ctx *c, const struct rn_toml_value *root)
{
	struct rn_config *cfg = c->cfg;
	const struct rn_toml_value *v;
	size_t i, j;
	int err;
	bool failed;

	v = get_aot(c, root, "assertion", &err);
	failed = err != 0;
	if (!v)
		return failed ? SECTION_FAILED : SECTION_OK;
	cfg->assertions = rn_xcalloc(v->u.array.n, sizeof(*cfg->assertions));
	for (i = 0; i < v->u.array.n; i++) {
		const struct rn_toml_value *tab = v->u.array.items[i];
		size_t ai = cfg->nassertions++; /* its slot: custom ones are left out */
		int prc;

		if (rn_diag_full(c->d))
			return SECTION_ABORT;
		prc = parse_assertion(c, tab, &cfg->assertions[ai]);
		if (prc < 0) {
			failed = true; /* on to the next [[assertion]] */
			continue;
		}
		if (prc > 0) {
			assertion_release(&cfg->assertions[ai]);
			cfg->nassertions--;
			continue;
		}
		if (!rn_strmap_put(&c->assertion_names, cfg->assertions[ai].name, ai, &j)) {
			const struct rn_toml_kv *nk = rn_toml_get_kv(tab, "name");

			err_at(c, nk->val->pos,
			       "duplicate assertion name \"%s\" (first defined at line %d)",
			       cfg->assertions[ai].name, cfg->assertions[j].line);
			failed = true;
			break;
		}
		if (unknown_assertion_targets(c, tab, &cfg->assertions[ai]))
			failed = true;
	}
	return failed ? SECTION_FAILED : SECTION_OK;
}

static int parse_golden(struct ctx *c, const struct rn_toml_value *root)
{
	struct rn_config *cfg = c->cfg;
	const struct rn_toml_value *v;
	char *dir = NULL;
	int err;

	v = get_table(c, root, "golden", golden_keys, &err);
	if (!v)
		return err ? SECTION_FAILED : SECTION_OK;
	if (get_string(c, v, "dir", &dir))
		return SECTION_ABORT;
	if (dir) {
		free(cfg->golden_dir);
		cfg->golden_dir = resolve_path(cfg, dir);
		free(dir);
	}
	if (golden_judging(c, v, cfg))
		return SECTION_ABORT;
	return err ? SECTION_FAILED : SECTION_OK;
}

static int parse_report(struct ctx *c, const struct rn_toml_value *root)
{
	struct rn_config *cfg = c->cfg;
	const struct rn_toml_value *v;
	char **slots[] = { &cfg->junit, &cfg->trace_out, &cfg->otlp_file };
	const char *keys[] = { "junit", "trace_out", "otlp_file" };
	size_t i;
	int err;

	v = get_table(c, root, "report", report_keys, &err);
	if (!v)
		return err ? SECTION_FAILED : SECTION_OK;
	for (i = 0; i < 3; i++) {
		char *p = NULL;

		if (get_string(c, v, keys[i], &p))
			return SECTION_ABORT;
		if (p) {
			*slots[i] = resolve_path(cfg, p);
			free(p);
		}
	}
	if (get_strings(c, v, "redact", &cfg->redact, NULL))
		return SECTION_ABORT;
	return err ? SECTION_FAILED : SECTION_OK;
}

/* [otlp] headers: a table of strings, kept as "Name: value". */
static int parse_otlp_headers(struct ctx *c, const struct rn_toml_kv *kv,
			      struct rn_otlp_file_cfg *o)
{
	const struct rn_toml_table *ht;
	size_t i;

	if (kv->val->type != RN_TOML_TABLE)
		return type_err(c, kv, "a table of strings");
	ht = kv->val->u.table;
	o->headers = rn_xcalloc(ht->n + 1, sizeof(*o->headers));
	for (i = 0; i < ht->n; i++) {
		if (ht->kv[i].val->type != RN_TOML_STRING)
			return err_at(c, ht->kv[i].val->pos,
				      "header '%s' in [otlp] must be a string", ht->kv[i].key);
		o->headers[i] = xformat("%s: %s", ht->kv[i].key, ht->kv[i].val->u.str.ptr);
	}
	return 0;
}

/* A choice of `names` under `key`, kept as its (owned) name; unset stays NULL. */
static int get_choice_name(struct ctx *c, const struct rn_toml_value *v, const char *key,
			   const char *const *names, char **out)
{
	int ch = -1;

	if (get_choice(c, v, key, names, &ch))
		return -1;
	if (ch >= 0)
		*out = rn_xstrdup(names[ch]);
	return 0;
}

static int parse_otlp(struct ctx *c, const struct rn_toml_value *root)
{
	static const char *const protocols[] = { "http/protobuf", "http/json", "grpc", NULL };
	static const char *const compressions[] = { "gzip", "none", NULL };
	static const char *const modes[] = { "aggregate", "all", "threshold", NULL };
	struct rn_otlp_file_cfg *o = &c->cfg->otlp;
	const struct rn_toml_value *v;
	const struct rn_toml_kv *kv;
	int err;

	v = get_table(c, root, "otlp", otlp_keys, &err);
	if (!v)
		return err ? SECTION_FAILED : SECTION_OK;
	kv = rn_toml_get_kv(v, "headers");
	o->set_enabled = rn_toml_get_kv(v, "enabled") != NULL;
	if (get_bool(c, v, "enabled", &o->enabled) || get_string(c, v, "endpoint", &o->endpoint) ||
	    get_string(c, v, "service_name", &o->service_name) ||
	    get_bool(c, v, "required", &o->required) ||
	    get_int(c, v, "timeout_ms", 1, 600000, &o->timeout_ms) ||
	    get_int(c, v, "syscall_threshold_us", 0, INT64_MAX, &o->syscall_threshold_us) ||
	    get_choice_name(c, v, "protocol", protocols, &o->protocol) ||
	    get_choice_name(c, v, "compression", compressions, &o->compression) ||
	    get_choice_name(c, v, "syscall_spans", modes, &o->syscall_spans) ||
	    (kv && parse_otlp_headers(c, kv, o)))
		return SECTION_ABORT;
	return err ? SECTION_FAILED : SECTION_OK;
}

static int parse_regression(struct ctx *c, const struct rn_toml_value *root)
{
	static const char *const nj[] = { "warn", "fail", NULL };
	struct rn_regression_cfg *r = &c->cfg->regression;
	const struct rn_toml_value *v;
	int64_t iv, runs, floor_bytes;
	int ch = -1, err;

	v = get_table(c, root, "regression", regression_keys, &err);
	if (!v)
		return err ? SECTION_FAILED : SECTION_OK;
	iv = (int64_t)r->count_floor;
	runs = (int64_t)r->min_runs_for_timing;
	floor_bytes = (int64_t)r->memory_floor_bytes;
	if (get_bool(c, v, "enabled", &r->enabled) ||
	    get_num(c, v, "count_tolerance", 0, 100, &r->count_tolerance) ||
	    get_num(c, v, "instructions_tolerance", 0, 1, &r->instructions_tolerance) ||
	    get_int(c, v, "count_floor", 0, INT64_MAX, &iv) ||
	    get_num(c, v, "timing_tolerance", 0, 100, &r->timing_tolerance) ||
	    get_num(c, v, "memory_tolerance", 0, 100, &r->memory_tolerance) ||
	    get_num(c, v, "alpha", 1e-9, 0.5, &r->alpha) || get_bool(c, v, "timing", &r->timing) ||
	    get_bool(c, v, "load_guard", &r->load_guard))
		return SECTION_ABORT;
	r->count_floor = (uint64_t)iv;
	if (get_int(c, v, "min_runs_for_timing", 2, 1000, &runs))
		return SECTION_ABORT;
	r->min_runs_for_timing = (unsigned)runs;
	runs = (int64_t)r->max_runs;
	if (get_int(c, v, "max_runs", 1, 1000, &runs) ||
	    get_num(c, v, "time_budget_s", 0, 86400, &r->time_budget_s) ||
	    get_num(c, v, "drift_limit", 0, 100, &r->drift_limit) ||
	    get_bool(c, v, "pin", &r->pin) || get_bool(c, v, "timing_guard", &r->timing_guard))
		return SECTION_ABORT;
	r->max_runs = (unsigned)runs;
	if (get_int(c, v, "memory_floor_bytes", 0, INT64_MAX, &floor_bytes))
		return SECTION_ABORT;
	r->memory_floor_bytes = (uint64_t)floor_bytes;
	if (get_choice(c, v, "not_judged", nj, &ch))
		return SECTION_ABORT;
	if (ch >= 0)
		r->not_judged_fails = ch == 1;
	return err ? SECTION_FAILED : SECTION_OK;
}

static int parse_semantic_section(struct ctx *c, const struct rn_toml_value *root)
{
	return parse_semantic_equivalence(c, root) ? SECTION_FAILED : SECTION_OK;
}

static int parse_history_section(struct ctx *c, const struct rn_toml_value *root)
{
	return parse_history(c, root) ? SECTION_FAILED : SECTION_OK;
}

static int parse_profile_section(struct ctx *c, const struct rn_toml_value *root)
{
	return parse_profile(c, root) ? SECTION_FAILED : SECTION_OK;
}

/* Every section in file order of the reference; an error in one does not stop the others
 * (up to RN_DIAG_MAX_ERRORS), except where a section says SECTION_ABORT. */
static int parse_sections(struct ctx *c, const struct rn_toml_value *root)
{
	static int (*const sections[])(struct ctx *, const struct rn_toml_value *) = {
		parse_top_level,       parse_targets,          parse_assertions,
		parse_golden,          parse_report,           parse_otlp,
		parse_regression,      parse_semantic_section, parse_history_section,
		parse_profile_section,
	};
	bool failed = false;
	size_t i;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		int rc = sections[i](c, root);

		if (rc == SECTION_ABORT)
			return -1;
		if (rc)
			failed = true;
	}
	return failed ? -1 : 0;
}

int rn_config_parse(struct rn_config *cfg, const char *path, const char *src, size_t len,
		    bool quiet, struct rn_diag *d)
{
	struct rn_toml_value *root = NULL;
	struct ctx c;
	char *abs, *slash;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->path = rn_xstrdup(path);
	cfg->src = rn_xmalloc(len + 1);
	memcpy(cfg->src, src, len);
	cfg->src[len] = '\0';
	cfg->src_len = len;
	rn_diag_init(d, cfg->path, cfg->src, cfg->src_len);
	abs = realpath(path, NULL);
	if (!abs) {
		char cwd[PATH_MAX];

		abs = rn_xstrdup(getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	} else {
		slash = strrchr(abs, '/');
		if (slash == abs)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
	}
	cfg->dir = abs;
	cfg->golden_dir = resolve_path(cfg, "golden_traces");
	rn_regression_cfg_init(&cfg->regression);
	cfg->golden_runs = RN_GOLDEN_RUNS_DEFAULT;
	cfg->profile = (struct rn_profile_cfg){
		false, true, 99, true, 5000, 5, resolve_path(cfg, ".renacer/explain"), false
	};
	cfg->otlp.timeout_ms = -1;
	cfg->otlp.syscall_threshold_us = -1;

	if (rn_toml_parse(cfg->src, cfg->src_len, &root, d)) {
		/* keep d pointing at our copy of the text, which must outlive the caller's use */
		goto fail;
	}
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.d = d;
	/* the TOML is well formed: find every schema error in one pass */
	rn_diag_collect(d, RN_DIAG_MAX_ERRORS);
	rc = parse_sections(&c, root);
	rn_strmap_release(&c.target_names);
	rn_strmap_release(&c.assertion_names);
	rn_toml_free(root);
	if (rc)
		goto fail;
	if (!quiet && cfg->ignored_tables) {
		char **t;

		for (t = cfg->ignored_tables; *t; t++)
			rn_warn("%s: ignoring table [%s]: not used by this renacer version",
				cfg->path, *t);
	}
	if (!quiet && cfg->notes) {
		char **t;

		for (t = cfg->notes; *t; t++)
			rn_note("%s", *t);
	}
	return 0;

fail:
	/* The diag borrows cfg->src and cfg->path: keep them until rn_config_release(). */
	{
		char *kept_src = cfg->src, *kept_path = cfg->path;

		cfg->src = NULL;
		cfg->path = NULL;
		rn_config_release(cfg);
		cfg->src = kept_src;
		cfg->path = kept_path;
	}
	return -1;
}

int rn_config_load(struct rn_config *cfg, const char *path, bool quiet, struct rn_diag *d)
{
	struct rn_buf b;
	int rc;

	rn_buf_init(&b, 64u << 20);
	rc = rn_buf_read_file(&b, path);
	if (rc) {
		memset(cfg, 0, sizeof(*cfg));
		cfg->path = rn_xstrdup(path);
		rn_diag_init(d, cfg->path, NULL, 0);
		rn_diag_set(d, 0, 0, "cannot read config: %s", strerror(-rc));
		rn_buf_release(&b);
		return -1;
	}
	rc = rn_config_parse(cfg, path, b.buf, b.len, quiet, d);
	rn_buf_release(&b);
	return rc;
}

void rn_config_release(struct rn_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->ntargets; i++)
		target_release(&cfg->targets[i]);
	free(cfg->targets);
	for (i = 0; i < cfg->nassertions; i++)
		assertion_release(&cfg->assertions[i]);
	free(cfg->assertions);
	free(cfg->path);
	free(cfg->dir);
	free(cfg->src);
	free(cfg->golden_dir);
	free(cfg->junit);
	free(cfg->trace_out);
	free(cfg->otlp_file);
	free_strings(cfg->redact);
	free(cfg->otlp.endpoint);
	free(cfg->otlp.protocol);
	free(cfg->otlp.service_name);
	free_strings(cfg->otlp.headers);
	free(cfg->otlp.compression);
	free(cfg->otlp.syscall_spans);
	free_strings(cfg->ignored_tables);
	free(cfg->semantic);
	free_strings(cfg->semantic_ignore);
	free_strings(cfg->notes);
	regex_pool_release(&cfg->regexes);
	free(cfg->history.url);
	free(cfg->history.machine);
	free(cfg->profile.dir);
	memset(cfg, 0, sizeof(*cfg));
}

struct rn_target_cfg *rn_config_add_cli_target(struct rn_config *cfg, char *const *argv)
{
	struct rn_target_cfg *t;
	const char *base;
	char cwd[PATH_MAX];
	size_t n = 0, i;

	while (argv[n])
		n++;
	cfg->targets = rn_xrealloc(cfg->targets, (cfg->ntargets + 1) * sizeof(*cfg->targets));
	t = &cfg->targets[cfg->ntargets++];
	target_defaults(t, cfg);
	base = strrchr(argv[0], '/');
	t->name = rn_xstrdup(base ? base + 1 : argv[0]);
	t->argv = rn_xcalloc(n + 1, sizeof(*t->argv));
	for (i = 0; i < n; i++)
		t->argv[i] = rn_xstrdup(argv[i]);
	/* A command-line target runs where the user is, not where the config is. Its stdout
	 * keeps the documented default, null: renacer's stdout carries the report (a target's
	 * output, binary data included, would interleave with the verdict table); stderr stays
	 * inherited, as for every target, so failures remain visible. */
	free(t->cwd);
	t->cwd = rn_xstrdup(getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	return t;
}

/* Markdown row of a key of the original format. */
#define ORIGINAL_DOC_ROW(table, key, action, note)                                                 \
	fprintf(out, "| `[%s]` | `%s` | %s |\n", table, key, note);

/* Markdown table of one key list. */
#define DOC_ROW(key, type, doc) fprintf(out, "| `%s` | %s | %s |\n", #key, type, doc);

void rn_config_write_docs(FILE *out)
{
	fputs("### [[target]]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_TARGET_KEYS(DOC_ROW)
	fputs("\n### [[assertion]]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_ASSERTION_KEYS(DOC_ROW)
	fputs("\n### [golden]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_GOLDEN_KEYS(DOC_ROW)
	fputs("\n### [report]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_REPORT_KEYS(DOC_ROW)
	fputs("\n### [otlp]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_OTLP_KEYS(DOC_ROW)
	fputs("\n### [regression]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_REGRESSION_KEYS(DOC_ROW)
	fputs("\n### [semantic_equivalence]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_SEMANTIC_KEYS(DOC_ROW)
	fputs("\n### Tables of the original renacer format\n\nAccepted with a note per key "
	      "(validate and check print them):\n\n| table | key | what renacer does |\n"
	      "|---|---|---|\n",
	      out);
	RN_ORIGINAL_KEYS(ORIGINAL_DOC_ROW)
	fputs("\n### [history]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_HISTORY_KEYS(DOC_ROW)
	fputs("\n### [profile]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_PROFILE_KEYS(DOC_ROW)
}
#undef ORIGINAL_DOC_ROW
#undef DOC_ROW
