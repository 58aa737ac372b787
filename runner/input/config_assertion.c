/*
 * config_assertion.c - one [[assertion]] table into a struct rn_assertion_spec: the keys of
 * each type, patterns, syscall names checked against the table (internal.h).
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

#define KEY_NAME(key, type, doc) #key,

static const char *const assertion_keys[] = { RN_ASSERTION_KEYS(KEY_NAME) NULL };

#undef KEY_NAME

#define ASSERT_TYPE_NAME(id, name, evaluate, gaps, keys, help) name,
static const char *const assertion_types[] = { RN_ASSERTION_TYPES(ASSERT_TYPE_NAME) NULL };
#undef ASSERT_TYPE_NAME

#define SPAN_STAT_NAME(id, name, doc) name,
static const char *const span_stat_names[] = { RN_SPAN_STATS(SPAN_STAT_NAME) NULL };
#undef SPAN_STAT_NAME

void rn_cfg_assertion_release(struct rn_assertion_spec *a)
{
	free(a->name);
	rn_cfg_free_strings(a->targets);
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

/* Whether `key` applies to `type`: a key every type accepts, or one of the type's own keys
 * (the keys column of RN_ASSERTION_TYPES, assertions/assertion.h). */
static bool key_belongs(enum rn_assertion_type type, const char *key)
{
	return !rn_assertion_key_is_specific(key) || rn_assertion_type_has_key(type, key);
}

/* The error of an [[assertion]] without a type, naming every type of the table. */
static int no_type(struct rn_cfg_ctx *c, const struct rn_toml_value *tab)
{
	struct rn_buf b;
	size_t i;
	int rc;

	rn_buf_init(&b, 0);
	for (i = 0; i < RN_ASSERT_COUNT; i++)
		rn_buf_addf(&b, "%s%s",
			    !i                              ? "" :
				    i + 1 < RN_ASSERT_COUNT ? ", " :
							      " or ",
			    assertion_types[i]);
	rc = rn_cfg_err_at(c, tab->pos, "%s needs a 'type' (%s)", c->what, b.buf);
	rn_buf_release(&b);
	return rc;
}

static const char *const aggregate_names[] = { "median", "min", "p95", "max", NULL };
static const char *const tracking_names[] = { "rss", "allocations", NULL };

static int require(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		   const char *type_name, const char *what_type)
{
	if (rn_toml_get_kv(tab, key))
		return 0;
	return rn_cfg_err_at(c, tab->pos, "%s of type %s needs '%s' (%s)", c->what, what_type, key,
			     type_name);
}

/* span_count without span_name_pattern counts every span, as in the original format. */
static int compile_all_spans(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			     struct rn_assertion_spec *a)
{
	a->span_name_pattern = rn_xstrdup(".*");
	return rn_cfg_pool_compile(c, tab->pos, "span_name_pattern", ".*", &a->span_re);
}

/* `type = "custom"` with an `expression`: the original format's user-defined assertion. */
static bool is_custom_type(const struct rn_toml_value *tab)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "type");

	return kv && kv->val->type == RN_TOML_STRING && !strcmp(kv->val->u.str.ptr, "custom");
}

static int parse_critical_path(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			       struct rn_assertion_spec *a)
{
	double dv;

	if (require(c, tab, "max_duration_ms", "milliseconds", "critical_path"))
		return -EINVAL;
	dv = 0;
	if (rn_cfg_get_num(c, tab, "max_duration_ms", 0, 1e12, &dv))
		return -EINVAL;
	a->max_duration_ns = (uint64_t)llround(dv * 1e6);
	if (rn_cfg_get_regex(c, tab, "trace_name_pattern", &a->trace_name_pattern, &a->trace_re))
		return -EINVAL;
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
static int check_syscall_pattern(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
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
		return rn_cfg_err_at(
			c, kv->val->pos,
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
	nr = rn_cfg_err_at(c, kv->val->pos,
			   "span_name_pattern \"%s\" in %s matches no syscall of " RN_ARCH_NAME
			   " and no span of another kind (gpu:, region:, graph:, app:)%s%s%s",
			   a->span_name_pattern, c->what, hint ? " (did you mean \"" : "",
			   hint ? hint : "", hint ? "\"?)" : "");
	free(names);
	return nr;
}

static int parse_span_count(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			    struct rn_assertion_spec *a)
{
	int64_t iv;

	if (require(c, tab, "max_spans", "an integer", "span_count"))
		return -EINVAL;
	iv = 0;
	if (rn_cfg_get_int(c, tab, "max_spans", 0, INT64_MAX, &iv))
		return -EINVAL;
	a->max_spans = (uint64_t)iv;
	if (rn_cfg_get_regex(c, tab, "span_name_pattern", &a->span_name_pattern, &a->span_re))
		return -EINVAL;
	if (check_syscall_pattern(c, tab, a))
		return -EINVAL;
	if (!a->span_name_pattern && compile_all_spans(c, tab, a))
		return -EINVAL;
	if (rn_cfg_get_regex(c, tab, "region_pattern", &a->region_pattern, &a->region_re))
		return -EINVAL;
	return 0;
}

static int parse_memory_usage(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			      struct rn_assertion_spec *a)
{
	int64_t iv;
	int choice;

	if (require(c, tab, "max_bytes", "bytes", "memory_usage"))
		return -EINVAL;
	iv = 0;
	if (rn_cfg_get_int(c, tab, "max_bytes", 0, INT64_MAX, &iv))
		return -EINVAL;
	a->max_bytes = (uint64_t)iv;
	choice = 0;
	if (rn_cfg_get_choice(c, tab, "tracking_mode", tracking_names, &choice))
		return -EINVAL;
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

static int parse_anti_pattern(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			      struct rn_assertion_spec *a)
{
	char *p = NULL;
	const char *canon;
	const struct rn_toml_kv *kv;

	if (require(c, tab, "pattern", "a detector name", "anti_pattern"))
		return -EINVAL;
	if (rn_cfg_get_string(c, tab, "pattern", &p))
		return -EINVAL;
	canon = rn_antipattern_canonical(p);
	if (!canon) {
		const char *hint = rn_suggest(p, rn_antipattern_names);

		kv = rn_toml_get_kv(tab, "pattern");
		rn_cfg_err_at(c, kv->val->pos, "unknown anti-pattern \"%s\" in %s%s%s%s", p,
			      c->what, hint ? " (did you mean \"" : "", hint ? hint : "",
			      hint ? "\"?)" : "");
		free(p);
		return -EINVAL;
	}
	a->pattern = rn_xstrdup(canon);
	free(p);
	if (rn_cfg_get_num(c, tab, "threshold", 0.0, 1.0, &a->threshold))
		return -EINVAL;
	if (rn_cfg_get_regex(c, tab, "process_name_pattern", &a->process_name_pattern,
			     &a->process_re))
		return -EINVAL;
	if (rn_cfg_get_regex(c, tab, "region_pattern", &a->region_pattern, &a->region_re))
		return -EINVAL;
	return 0;
}

static int parse_equivalence(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			     struct rn_assertion_spec *a)
{
	char *g = NULL;

	if (rn_cfg_get_string(c, tab, "golden", &g))
		return -EINVAL;
	if (g) {
		a->golden = rn_cfg_resolve_path(c->cfg, g);
		free(g);
	}
	return 0;
}

static int parse_instructions(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			      struct rn_assertion_spec *a)
{
	int64_t iv;

	if (require(c, tab, "max_instructions", "an integer", "instructions"))
		return -EINVAL;
	iv = 0;
	if (rn_cfg_get_int(c, tab, "max_instructions", 0, INT64_MAX, &iv))
		return -EINVAL;
	a->max_instructions = (uint64_t)iv;
	if (rn_cfg_get_num(c, tab, "tolerance", 0.0, 0.05, &a->tolerance))
		return -EINVAL;
	return 0;
}

/* A span_time key in milliseconds into ns; *has set when present. 0 or -EINVAL. */
static int get_ms(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key, bool *has,
		  uint64_t *ns)
{
	double dv = 0;

	if (!rn_toml_get_kv(tab, key))
		return 0;
	if (rn_cfg_get_num(c, tab, key, 0, 1e12, &dv))
		return -EINVAL;
	*has = true;
	*ns = (uint64_t)llround(dv * 1e6);
	return 0;
}

/*
 * A span_time that no run can pass is an error: a floor on the stat above its budget, or a
 * floor on every span (min_time_ms) above the stat's budget (every stat, the total included,
 * is at least the shortest span; without spans the verdict is NO DATA). `max_key` names the
 * budget's key as written. 0 or -EINVAL.
 */
static int span_time_possible(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			      const struct rn_assertion_spec *a, const char *max_key)
{
	const char *min_key = NULL;
	uint64_t floor_ns = 0;

	if (!a->has_max_span)
		return 0;
	if (a->has_min_span && a->min_span_ns > a->max_span_ns) {
		min_key = "min_ms";
		floor_ns = a->min_span_ns;
	} else if (a->has_min_each && a->min_each_ns > a->max_span_ns) {
		min_key = "min_time_ms";
		floor_ns = a->min_each_ns;
	}
	if (!min_key)
		return 0;
	return rn_cfg_err_at(c, rn_toml_get_kv(tab, min_key)->val->pos,
			     "%s: %s = %g is above %s = %g: no run can pass it", c->what, min_key,
			     (double)floor_ns / 1e6, max_key, (double)a->max_span_ns / 1e6);
}

/*
 * span_time: `stat` of the matching spans' durations against max_ms and/or min_ms, or with
 * stat count_above the spans longer than threshold_ms against max_spans (default 0). The
 * original format's per-name budgets map onto it: max_time_ms is stat max with max_ms,
 * min_time_ms a floor on the shortest span.
 */
static int parse_span_time(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			   struct rn_assertion_spec *a)
{
	const struct rn_toml_kv *kv;
	bool has_threshold = false, has_max_time = false;
	uint64_t max_time = 0;
	int64_t iv = 0;
	int choice = RN_SPAN_STAT_MAX;

	if (rn_cfg_get_regex(c, tab, "span_name_pattern", &a->span_name_pattern, &a->span_re))
		return -EINVAL;
	if (!a->span_name_pattern && compile_all_spans(c, tab, a))
		return -EINVAL;
	if (rn_cfg_get_regex(c, tab, "region_pattern", &a->region_pattern, &a->region_re))
		return -EINVAL;
	if (rn_cfg_get_choice(c, tab, "stat", span_stat_names, &choice))
		return -EINVAL;
	a->span_stat = (enum rn_span_stat)choice;
	/* against a base or golden reference: the growth that fails, a fraction */
	a->tolerance = RN_ASSERT_SPAN_TIME_TOLERANCE;
	if (rn_cfg_get_num(c, tab, "tolerance", 0.0, 10.0, &a->tolerance))
		return -EINVAL;
	if (get_ms(c, tab, "max_ms", &a->has_max_span, &a->max_span_ns) ||
	    get_ms(c, tab, "min_ms", &a->has_min_span, &a->min_span_ns) ||
	    get_ms(c, tab, "threshold_ms", &has_threshold, &a->threshold_ns) ||
	    get_ms(c, tab, "max_time_ms", &has_max_time, &max_time) ||
	    get_ms(c, tab, "min_time_ms", &a->has_min_each, &a->min_each_ns))
		return -EINVAL;
	if (has_max_time) {
		kv = rn_toml_get_kv(tab, "max_time_ms");
		if (a->has_max_span || (rn_toml_get_kv(tab, "stat") && choice != RN_SPAN_STAT_MAX))
			return rn_cfg_err_at(
				c, kv->key_pos,
				"%s: max_time_ms is the longest span's budget (stat \"max\" "
				"with max_ms); give one of them",
				c->what);
		a->has_max_span = true;
		a->max_span_ns = max_time;
	}
	if (a->span_stat == RN_SPAN_STAT_COUNT_ABOVE) {
		if (!has_threshold)
			return rn_cfg_err_at(c, tab->pos,
					     "%s of type span_time with stat \"count_above\" needs "
					     "'threshold_ms' (milliseconds)",
					     c->what);
		if (a->has_max_span || a->has_min_span)
			return rn_cfg_err_at(
				c,
				rn_toml_get_kv(tab, a->has_max_span ? "max_ms" : "min_ms")->key_pos,
				"%s: stat \"count_above\" is judged against max_spans (a "
				"count), not %s",
				c->what, a->has_max_span ? "max_ms" : "min_ms");
		if (rn_cfg_get_int(c, tab, "max_spans", 0, INT64_MAX, &iv))
			return -EINVAL;
		a->max_spans = (uint64_t)iv;
		return 0;
	}
	if ((kv = rn_toml_get_kv(tab, "threshold_ms")) || (kv = rn_toml_get_kv(tab, "max_spans")))
		return rn_cfg_err_at(c, kv->key_pos,
				     "%s: '%s' applies only with stat \"count_above\"", c->what,
				     kv->key);
	if (!a->has_max_span && !a->has_min_span && !a->has_min_each)
		return rn_cfg_err_at(
			c, tab->pos,
			"%s of type span_time needs 'max_ms' or 'min_ms' (milliseconds), or "
			"the original format's 'max_time_ms' / 'min_time_ms'",
			c->what);
	return span_time_possible(c, tab, a, has_max_time ? "max_time_ms" : "max_ms");
}

/* witness: app spans against the syscalls that end their work (assertion.h). */
static int parse_witness(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			 struct rn_assertion_spec *a)
{
	static const char default_witness[] =
		"write|writev|pwrite64|pwritev|pwritev2|send|sendto|sendmsg|sendmmsg|sendfile";

	if (require(c, tab, "span_name_pattern", "a pattern over app:<name> spans", "witness"))
		return -EINVAL;
	if (rn_cfg_get_regex(c, tab, "span_name_pattern", &a->span_name_pattern, &a->span_re) ||
	    rn_cfg_get_regex(c, tab, "witness_pattern", &a->witness_pattern, &a->witness_re))
		return -EINVAL;
	if (!a->witness_pattern &&
	    rn_cfg_pool_compile(c, tab->pos, "witness_pattern", default_witness, &a->witness_re))
		return -EINVAL;
	if (!a->witness_pattern)
		a->witness_pattern = rn_xstrdup(default_witness);
	a->tolerance = RN_ASSERT_WITNESS_TOLERANCE;
	if (rn_cfg_get_num(c, tab, "tolerance", 0.0, 10.0, &a->tolerance))
		return -EINVAL;
	return 0;
}

/* The keys of the assertion's type. 0 or -EINVAL (error in c->d). */
static int parse_type_keys(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			   struct rn_assertion_spec *a)
{
	static int (*const parsers[RN_ASSERT_COUNT])(struct rn_cfg_ctx *,
						     const struct rn_toml_value *,
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

/* Returns 0, -EINVAL (error in c->d) or 1: an assertion of the original format that is accepted
 * with a note and left out (type custom). */
int rn_cfg_parse_assertion(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			   struct rn_assertion_spec *a)
{
	const struct rn_toml_kv *kv;
	int choice = 0;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->enabled = true;
	a->fail_on_violation = true;
	a->threshold = RN_ASSERT_THRESHOLD;
	a->line = tab->pos.line;
	a->col = tab->pos.col;
	c->what = "[[assertion]]";
	if (!rn_toml_get_kv(tab, "name"))
		return rn_cfg_err_at(c, tab->pos, "[[assertion]] needs a 'name'");
	if (rn_cfg_get_string(c, tab, "name", &a->name))
		return -EINVAL;
	if (!*a->name)
		return rn_cfg_err_at(
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
	if (rn_cfg_check_keys(c, tab, assertion_keys))
		return -EINVAL;
	if (!rn_toml_get_kv(tab, "type"))
		return no_type(c, tab);
	if (rn_cfg_get_choice(c, tab, "type", assertion_types, &choice))
		return -EINVAL;
	a->type = (enum rn_assertion_type)choice;
	for (i = 0; i < tab->u.table->n; i++) {
		kv = &tab->u.table->kv[i];
		if (!key_belongs(a->type, kv->key))
			return rn_cfg_err_at(c, kv->key_pos,
					     "key '%s' does not apply to %s of type %s", kv->key,
					     c->what, assertion_types[a->type]);
	}
	if (rn_cfg_get_bool(c, tab, "enabled", &a->enabled) ||
	    rn_cfg_get_bool(c, tab, "fail_on_violation", &a->fail_on_violation))
		return -EINVAL;
	choice = 0;
	if (rn_cfg_get_choice(c, tab, "aggregate", aggregate_names, &choice))
		return -EINVAL;
	a->aggregate = (enum rn_aggregate)choice;
	if (rn_cfg_get_strings(c, tab, "targets", &a->targets, NULL))
		return -EINVAL;
	if (a->targets && !a->targets[0])
		return rn_cfg_err_at(c, rn_toml_get_kv(tab, "targets")->val->pos,
				     "%s: targets = [] applies it to no target, so it is never "
				     "judged; leave 'targets' out to apply it to all",
				     c->what);
	return parse_type_keys(c, tab, a);
}

/* A top-level key that must be a table; returns it or NULL (absent). Sets *err on error. */
/* [golden] runs, metrics and tolerances: which golden comparisons are made and how loosely. */
