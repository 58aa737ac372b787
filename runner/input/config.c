#include "config.h"
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

/* Key lists derived from the X-macro tables, for validation and did-you-mean. */
#define KEY_NAME(key, type, doc) #key,

static const char *const golden_keys[] = { RN_GOLDEN_KEYS(KEY_NAME) NULL };
static const char *const report_keys[] = { RN_REPORT_KEYS(KEY_NAME) NULL };
static const char *const otlp_keys[] = { RN_OTLP_KEYS(KEY_NAME) NULL };
static const char *const regression_keys[] = { RN_REGRESSION_KEYS(KEY_NAME) NULL };
static const char *const semantic_keys[] = { RN_SEMANTIC_KEYS(KEY_NAME) NULL };
static const char *const history_keys[] = { RN_HISTORY_KEYS(KEY_NAME) NULL };
static const char *const profile_keys[] = { RN_PROFILE_KEYS(KEY_NAME) NULL };
static const char *const ratchet_keys[] = { RN_RATCHET_KEYS(KEY_NAME) NULL };
#undef KEY_NAME

static const char *const top_keys[] = {
	"target",  "assertion", "golden", "report",  "otlp", "regression", "semantic_equivalence",
	"history", "profile",   "suite",  "ratchet", NULL
};

static int golden_judging(struct rn_cfg_ctx *c, const struct rn_toml_value *v,
			  struct rn_config *cfg)
{
	struct rn_regression_cfg *r = &cfg->regression;
	const struct rn_toml_kv *kv;
	int64_t iv = cfg->golden_runs;
	size_t i;

	if (rn_cfg_get_int(c, v, "runs", 1, 1000, &iv))
		return -EINVAL;
	cfg->golden_runs = (unsigned)iv;
	kv = rn_toml_get_kv(v, "metrics");
	if (kv) {
		char **names = NULL;
		size_t n = 0;

		if (rn_cfg_get_strings(c, v, "metrics", &names, &n))
			return -EINVAL;
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
				rn_cfg_err_at(
					c, kv->val->u.array.items[i]->pos,
					"unknown golden metric \"%s\" in [golden] metrics%s%s%s (known: "
					"syscalls, syscall_counts, processes, cpu_time, wall_time, "
					"critical_path, peak_rss, alloc_peak, gpu_busy, gpu_dispatches, "
					"gpu_copy_bytes, instructions, span_time)",
					names[i], hint ? " (did you mean \"" : "", hint ? hint : "",
					hint ? "\"?)" : "");
				rn_cfg_free_strings(names);
				return -EINVAL;
			}
			r->judged[k] = true;
		}
		rn_cfg_free_strings(names);
	}
	kv = rn_toml_get_kv(v, "tolerances");
	if (kv) {
		const struct rn_toml_table *t;

		if (kv->val->type != RN_TOML_TABLE)
			return rn_cfg_type_err(c, kv, "a table of numbers ([golden.tolerances])");
		t = kv->val->u.table;
		for (i = 0; i < t->n; i++) {
			const struct rn_toml_value *e = t->kv[i].val;
			int k = rn_golden_check_lookup(t->kv[i].key);
			double x;

			if (k < 0)
				return rn_cfg_err_at(
					c, t->kv[i].key_pos,
					"unknown golden metric '%s' in [golden.tolerances]",
					t->kv[i].key);
			if (e->type == RN_TOML_INTEGER)
				x = (double)e->u.integer;
			else if (e->type == RN_TOML_FLOAT)
				x = e->u.fp;
			else
				return rn_cfg_err_at(c, e->pos,
						     "'%s' in [golden.tolerances] must be a number "
						     "(a fraction: 0.25 allows +25%%), found %s",
						     t->kv[i].key, rn_toml_type_phrase(e->type));
			if (!(x >= 0.0 && x <= 100.0))
				return rn_cfg_err_at(c, e->pos,
						     "'%s' in [golden.tolerances] must be between 0 "
						     "and 100, found %g",
						     t->kv[i].key, x);
			r->tolerance[k] = x;
		}
	}
	return 0;
}

static const struct rn_toml_value *get_table(struct rn_cfg_ctx *c, const struct rn_toml_value *root,
					     const char *key, const char *const *keys, int *err)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(root, key);

	*err = 0;
	if (!kv)
		return NULL;
	if (kv->val->type != RN_TOML_TABLE) {
		*err = rn_cfg_err_at(c, kv->val->pos, "'%s' must be a table ([%s]), found %s", key,
				     key, rn_toml_type_phrase(kv->val->type));
		return NULL;
	}
	snprintf(c->what_buf, sizeof(c->what_buf), "[%s]", key);
	c->what = c->what_buf;
	if (rn_cfg_check_keys(c, kv->val, keys)) {
		*err = -EINVAL;
		return NULL;
	}
	return kv->val;
}

/* The array of tables `key` ([[key]]); NULL when absent. */
static const struct rn_toml_value *get_aot(struct rn_cfg_ctx *c, const struct rn_toml_value *root,
					   const char *key, int *err)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(root, key);
	size_t i;

	*err = 0;
	if (!kv)
		return NULL;
	if (kv->val->type != RN_TOML_ARRAY) {
		*err = rn_cfg_err_at(c, kv->val->pos,
				     "'%s' must be an array of tables ([[%s]]), found %s", key, key,
				     rn_toml_type_phrase(kv->val->type));
		return NULL;
	}
	for (i = 0; i < kv->val->u.array.n; i++) {
		if (kv->val->u.array.items[i]->type != RN_TOML_TABLE) {
			*err = rn_cfg_err_at(c, kv->val->u.array.items[i]->pos,
					     "'%s' must be an array of tables ([[%s]]), found %s",
					     key, key,
					     rn_toml_type_phrase(kv->val->u.array.items[i]->type));
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
static int parse_semantic_equivalence(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
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
		return -EINVAL;
	if (v &&
	    (rn_cfg_get_bool(c, v, "enabled", &on) ||
	     rn_cfg_get_num(c, v, "min_confidence", 0.0, 1.0, &cfg->semantic->min_confidence) ||
	     rn_cfg_get_bool(c, v, "keep_system", &cfg->semantic->keep_system) ||
	     rn_cfg_get_strings(c, v, "ignore_paths", &cfg->semantic_ignore, NULL) ||
	     rn_cfg_get_strings(c, v, "normalize", &norms, NULL) ||
	     rn_cfg_get_string(c, v, "baseline_dir", &dir)))
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
				rn_cfg_err_at(
					c, kv->val->pos,
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
		char *abs = rn_cfg_resolve_path(cfg, dir);

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

			rn_cfg_err_at(c, pos,
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
	rn_cfg_free_strings(norms);
	return 0;
out_fail:
	free(dir);
	rn_cfg_free_strings(norms);
	return -EINVAL;
}

/* [history]: where checks are remembered (runner/history/history.h). */
static int parse_history(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	struct rn_history_file_cfg *h = &c->cfg->history;
	const struct rn_toml_value *v;
	char *url = NULL;
	int err;

	v = get_table(c, root, "history", history_keys, &err);
	if (err)
		return -EINVAL;
	h->busy_timeout_ms = -1;
	if (!v)
		return 0;
	h->present = true;
	h->enabled = true;
	if (rn_cfg_get_bool(c, v, "enabled", &h->enabled) || rn_cfg_get_string(c, v, "url", &url) ||
	    rn_cfg_get_string(c, v, "machine", &h->machine) ||
	    rn_cfg_get_int(c, v, "busy_timeout_ms", 0, 3600000, &h->busy_timeout_ms)) {
		free(url);
		return -EINVAL;
	}
	if (url && !rn_config_is_postgres_url(url)) {
		h->url = rn_cfg_resolve_path(c->cfg, url);
		free(url);
	} else {
		h->url = url;
	}
	return 0;
}

/* [profile]: explaining failed timing rows (runner/check/profile_check.h). */
static int parse_profile(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	struct rn_profile_cfg *p = &c->cfg->profile;
	const struct rn_toml_value *v;
	int64_t hz = RN_PROFILE_FREQUENCY_HZ, stacks = RN_PROFILE_MAX_STACKS, top = RN_PROFILE_TOP,
		runs = RN_PROFILE_RUNS;
	char *dir = NULL;
	int err;

	v = get_table(c, root, "profile", profile_keys, &err);
	if (err)
		return -EINVAL;
	p->present = v != NULL;
	p->golden = p->present;
	if (v &&
	    (rn_cfg_get_bool(c, v, "on_failure", &p->on_failure) ||
	     rn_cfg_get_int(c, v, "frequency_hz", 1, 10000, &hz) ||
	     rn_cfg_get_bool(c, v, "syscalls", &p->syscalls) ||
	     rn_cfg_get_int(c, v, "max_stacks", 1, 1000000, &stacks) ||
	     rn_cfg_get_int(c, v, "top", 1, 50, &top) ||
	     rn_cfg_get_int(c, v, "runs", 2, 10, &runs) || rn_cfg_get_string(c, v, "dir", &dir) ||
	     rn_cfg_get_bool(c, v, "golden", &p->golden))) {
		free(dir);
		return -EINVAL;
	}
	p->frequency_hz = (unsigned)hz;
	p->max_stacks = (unsigned)stacks;
	p->top = (unsigned)top;
	p->runs = (unsigned)runs;
	if (dir) {
		free(p->dir);
		p->dir = rn_cfg_resolve_path(c->cfg, dir);
		free(dir);
	}
	return 0;
}

/* [ratchet]: head against a release, cumulatively (runner/check/ratchet.h). */
static int parse_ratchet(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	struct rn_ratchet_cfg *r = &c->cfg->ratchet;
	const struct rn_toml_value *v;
	double budget = RN_RATCHET_BUDGET_PCT;
	int err;

	v = get_table(c, root, "ratchet", ratchet_keys, &err);
	if (err)
		return -EINVAL;
	r->budget = budget / 100.0;
	if (!v)
		return 0;
	r->present = true;
	if (rn_cfg_get_string(c, v, "reference", &r->reference) ||
	    rn_cfg_get_num(c, v, "budget", 0.0, 1000.0, &budget))
		return -EINVAL;
	if (!r->reference) {
		rn_cfg_err_at(c, v->pos,
			      "[ratchet] needs `reference`: a built checkout's directory or a git "
			      "ref");
		return -EINVAL;
	}
	r->budget = budget / 100.0;
	r->reference_path = rn_cfg_resolve_path(c->cfg, r->reference);
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
static int parse_top_level(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
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
			rn_cfg_err_at(c, kv->key_pos, "unknown table [%s] (did you mean [%s]?)",
				      kv->key, hint);
		else if (hint)
			rn_cfg_err_at(c, kv->key_pos,
				      "unknown top-level key '%s' (did you mean '%s'?)", kv->key,
				      hint);
		else
			rn_cfg_err_at(
				c, kv->key_pos,
				"unknown top-level key '%s' (expected [[target]], [[assertion]], "
				"[golden], [report], [otlp], [regression], [semantic_equivalence], "
				"[history], [profile] or [ratchet])",
				kv->key);
	}
	return failed ? SECTION_FAILED : SECTION_OK;
}

/* [[target]] tables, then [[suite]] tables (runner/check/harness.h expands them), into
 * cfg->targets: one namespace of names. */
static int parse_targets(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	struct rn_config *cfg = c->cfg;
	const struct rn_toml_value *v, *sv;
	size_t i, j, nt, ns;
	int err, serr;
	bool failed;

	v = get_aot(c, root, "target", &err);
	sv = get_aot(c, root, "suite", &serr);
	failed = err != 0 || serr != 0;
	nt = v ? v->u.array.n : 0;
	ns = sv ? sv->u.array.n : 0;
	if (!nt && !ns)
		return failed ? SECTION_FAILED : SECTION_OK;
	cfg->targets = rn_xcalloc(nt + ns, sizeof(*cfg->targets));
	for (i = 0; i < nt + ns; i++) {
		const struct rn_toml_value *tab =
			i < nt ? v->u.array.items[i] : sv->u.array.items[i - nt];
		const struct rn_toml_kv *nk;

		cfg->ntargets = i + 1;
		if (rn_diag_full(c->d))
			return SECTION_ABORT;
		cfg->targets[i].suite = i >= nt;
		if (rn_cfg_parse_target(c, tab, &cfg->targets[i])) {
			failed = true; /* on to the next [[target]] */
			continue;
		}
		if (!rn_strmap_put(&c->target_names, cfg->targets[i].name, i, &j)) {
			nk = rn_toml_get_kv(tab, "name");
			rn_cfg_err_at(c, nk->val->pos,
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
static bool unknown_assertion_targets(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
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
		rn_cfg_err_at(c, nk->val->u.array.items[idx]->pos,
			      "[[assertion]] '%s' names unknown target \"%s\"%s%s%s", a->name, *t,
			      hint ? " (did you mean \"" : "", hint ? hint : "",
			      hint ? "\"?)" : "");
		failed = true;
	}
	return failed;
}

static int parse_assertions(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
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
		prc = rn_cfg_parse_assertion(c, tab, &cfg->assertions[ai]);
		if (prc < 0) {
			failed = true; /* on to the next [[assertion]] */
			continue;
		}
		if (prc > 0) {
			rn_cfg_assertion_release(&cfg->assertions[ai]);
			cfg->nassertions--;
			continue;
		}
		if (!rn_strmap_put(&c->assertion_names, cfg->assertions[ai].name, ai, &j)) {
			const struct rn_toml_kv *nk = rn_toml_get_kv(tab, "name");

			rn_cfg_err_at(c, nk->val->pos,
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

static int parse_golden(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	struct rn_config *cfg = c->cfg;
	const struct rn_toml_value *v;
	char *dir = NULL;
	int err;

	v = get_table(c, root, "golden", golden_keys, &err);
	if (!v)
		return err ? SECTION_FAILED : SECTION_OK;
	if (rn_cfg_get_string(c, v, "dir", &dir))
		return SECTION_ABORT;
	if (dir) {
		free(cfg->golden_dir);
		cfg->golden_dir = rn_cfg_resolve_path(cfg, dir);
		free(dir);
	}
	if (golden_judging(c, v, cfg))
		return SECTION_ABORT;
	return err ? SECTION_FAILED : SECTION_OK;
}

static int parse_report(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
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

		if (rn_cfg_get_string(c, v, keys[i], &p))
			return SECTION_ABORT;
		if (p) {
			*slots[i] = rn_cfg_resolve_path(cfg, p);
			free(p);
		}
	}
	if (rn_cfg_get_strings(c, v, "redact", &cfg->redact, NULL))
		return SECTION_ABORT;
	return err ? SECTION_FAILED : SECTION_OK;
}

/* [otlp] headers: a table of strings, kept as "Name: value". */
static int parse_otlp_headers(struct rn_cfg_ctx *c, const struct rn_toml_kv *kv,
			      struct rn_otlp_file_cfg *o)
{
	const struct rn_toml_table *ht;
	size_t i;

	if (kv->val->type != RN_TOML_TABLE)
		return rn_cfg_type_err(c, kv, "a table of strings");
	ht = kv->val->u.table;
	o->headers = rn_xcalloc(ht->n + 1, sizeof(*o->headers));
	for (i = 0; i < ht->n; i++) {
		if (ht->kv[i].val->type != RN_TOML_STRING)
			return rn_cfg_err_at(c, ht->kv[i].val->pos,
					     "header '%s' in [otlp] must be a string",
					     ht->kv[i].key);
		o->headers[i] = rn_xstrfmt("%s: %s", ht->kv[i].key, ht->kv[i].val->u.str.ptr);
	}
	return 0;
}

/* A choice of `names` under `key`, kept as its (owned) name; unset stays NULL. */
static int get_choice_name(struct rn_cfg_ctx *c, const struct rn_toml_value *v, const char *key,
			   const char *const *names, char **out)
{
	int ch = -1;

	if (rn_cfg_get_choice(c, v, key, names, &ch))
		return -EINVAL;
	if (ch >= 0)
		*out = rn_xstrdup(names[ch]);
	return 0;
}

static int parse_otlp(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
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
	if (rn_cfg_get_bool(c, v, "enabled", &o->enabled) ||
	    rn_cfg_get_string(c, v, "endpoint", &o->endpoint) ||
	    rn_cfg_get_string(c, v, "service_name", &o->service_name) ||
	    rn_cfg_get_bool(c, v, "required", &o->required) ||
	    rn_cfg_get_int(c, v, "timeout_ms", 1, 600000, &o->timeout_ms) ||
	    rn_cfg_get_int(c, v, "syscall_threshold_us", 0, INT64_MAX, &o->syscall_threshold_us) ||
	    get_choice_name(c, v, "protocol", protocols, &o->protocol) ||
	    get_choice_name(c, v, "compression", compressions, &o->compression) ||
	    get_choice_name(c, v, "syscall_spans", modes, &o->syscall_spans) ||
	    (kv && parse_otlp_headers(c, kv, o)))
		return SECTION_ABORT;
	return err ? SECTION_FAILED : SECTION_OK;
}

static int parse_regression(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
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
	if (rn_cfg_get_bool(c, v, "enabled", &r->enabled) ||
	    rn_cfg_get_num(c, v, "count_tolerance", 0, 100, &r->count_tolerance) ||
	    rn_cfg_get_num(c, v, "instructions_tolerance", 0, 1, &r->instructions_tolerance) ||
	    rn_cfg_get_int(c, v, "count_floor", 0, INT64_MAX, &iv) ||
	    rn_cfg_get_num(c, v, "timing_tolerance", 0, 100, &r->timing_tolerance) ||
	    rn_cfg_get_num(c, v, "memory_tolerance", 0, 100, &r->memory_tolerance) ||
	    rn_cfg_get_num(c, v, "alpha", 1e-9, 0.5, &r->alpha) ||
	    rn_cfg_get_bool(c, v, "timing", &r->timing) ||
	    rn_cfg_get_bool(c, v, "load_guard", &r->load_guard))
		return SECTION_ABORT;
	r->count_floor = (uint64_t)iv;
	if (rn_cfg_get_int(c, v, "min_runs_for_timing", 2, 1000, &runs))
		return SECTION_ABORT;
	r->min_runs_for_timing = (unsigned)runs;
	runs = (int64_t)r->max_runs;
	if (rn_cfg_get_int(c, v, "max_runs", 1, 1000, &runs) ||
	    rn_cfg_get_num(c, v, "time_budget_s", 0, 86400, &r->time_budget_s) ||
	    rn_cfg_get_num(c, v, "drift_limit", 0, 100, &r->drift_limit) ||
	    rn_cfg_get_bool(c, v, "pin", &r->pin) ||
	    rn_cfg_get_bool(c, v, "timing_guard", &r->timing_guard))
		return SECTION_ABORT;
	r->max_runs = (unsigned)runs;
	if (rn_cfg_get_int(c, v, "memory_floor_bytes", 0, INT64_MAX, &floor_bytes))
		return SECTION_ABORT;
	r->memory_floor_bytes = (uint64_t)floor_bytes;
	if (rn_cfg_get_choice(c, v, "not_judged", nj, &ch) ||
	    rn_cfg_get_choice(c, v, "pairs", rn_pair_scheme_names, &r->pairs))
		return SECTION_ABORT;
	if (ch >= 0)
		r->not_judged_fails = ch == 1;
	return err ? SECTION_FAILED : SECTION_OK;
}

static int parse_semantic_section(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	return parse_semantic_equivalence(c, root) ? SECTION_FAILED : SECTION_OK;
}

static int parse_history_section(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	return parse_history(c, root) ? SECTION_FAILED : SECTION_OK;
}

static int parse_profile_section(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	return parse_profile(c, root) ? SECTION_FAILED : SECTION_OK;
}

static int parse_ratchet_section(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	return parse_ratchet(c, root) ? SECTION_FAILED : SECTION_OK;
}

/* Every section in file order of the reference; an error in one does not stop the others
 * (up to RN_DIAG_MAX_ERRORS), except where a section says SECTION_ABORT. */
static int parse_sections(struct rn_cfg_ctx *c, const struct rn_toml_value *root)
{
	static int (*const sections[])(struct rn_cfg_ctx *, const struct rn_toml_value *) = {
		parse_top_level,       parse_targets,          parse_assertions,
		parse_golden,          parse_report,           parse_otlp,
		parse_regression,      parse_semantic_section, parse_history_section,
		parse_profile_section, parse_ratchet_section,
	};
	bool failed = false;
	size_t i;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		int rc = sections[i](c, root);

		if (rc == SECTION_ABORT)
			return -EINVAL;
		if (rc)
			failed = true;
	}
	return failed ? -EINVAL : 0;
}

int rn_config_parse(struct rn_config *cfg, const char *path, const char *src, size_t len,
		    bool quiet, struct rn_diag *d)
{
	struct rn_toml_value *root = NULL;
	struct rn_cfg_ctx c;
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
	cfg->golden_dir = rn_cfg_resolve_path(cfg, "golden_traces");
	rn_regression_cfg_init(&cfg->regression);
	cfg->golden_runs = RN_GOLDEN_RUNS_DEFAULT;
	cfg->profile = (struct rn_profile_cfg){
		.on_failure = true,
		.frequency_hz = RN_PROFILE_FREQUENCY_HZ,
		.syscalls = true,
		.max_stacks = RN_PROFILE_MAX_STACKS,
		.top = RN_PROFILE_TOP,
		.runs = RN_PROFILE_RUNS,
		.dir = rn_cfg_resolve_path(cfg, ".renacer/explain"),
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
	/* [regression] may follow the assertions in the file: give them its drift limit now */
	for (size_t i = 0; i < cfg->nassertions; i++) {
		cfg->assertions[i].has_drift_limit = true;
		cfg->assertions[i].drift_limit = cfg->regression.drift_limit;
	}
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
	return -EINVAL;
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
		return rc;
	}
	rc = rn_config_parse(cfg, path, b.buf, b.len, quiet, d);
	rn_buf_release(&b);
	return rc;
}

/* Remove the files of folder `path` (no deeper), then the folder. */
static void remove_flat_dir(const char *path)
{
	rn_cfg_remove_files(path, "");
	(void)rmdir(path);
}

/* Remove the pytest plugin's folder of results folder `dir` and the bytecode Python cached
 * beside the plugin. */
static void remove_pytest_plugin(const char *dir)
{
	char *pd = rn_xstrfmt("%s/" RN_HARNESS_PYTEST_DIR, dir);
	char *cache = rn_xstrfmt("%s/__pycache__", pd);

	remove_flat_dir(cache);
	remove_flat_dir(pd);
	free(cache);
	free(pd);
}

void rn_config_release(struct rn_config *cfg)
{
	size_t i, dl = cfg->bench_dir ? strlen(cfg->bench_dir) : 0;

	for (i = 0; i < cfg->ntargets; i++) {
		const char *out = cfg->targets[i].bench_out;

		/* the last run's results (a counting run's are not read) */
		if (dl && out && !strncmp(out, cfg->bench_dir, dl) && out[dl] == '/')
			(void)unlink(out);
		rn_cfg_target_release(&cfg->targets[i]);
	}
	free(cfg->targets);
	for (i = 0; i < cfg->nassertions; i++)
		rn_cfg_assertion_release(&cfg->assertions[i]);
	free(cfg->assertions);
	free(cfg->path);
	free(cfg->dir);
	free(cfg->src);
	free(cfg->golden_dir);
	free(cfg->junit);
	free(cfg->trace_out);
	free(cfg->otlp_file);
	rn_cfg_free_strings(cfg->redact);
	free(cfg->otlp.endpoint);
	free(cfg->otlp.protocol);
	free(cfg->otlp.service_name);
	rn_cfg_free_strings(cfg->otlp.headers);
	free(cfg->otlp.compression);
	free(cfg->otlp.syscall_spans);
	rn_cfg_free_strings(cfg->ignored_tables);
	if (cfg->bench_dir) {
		remove_pytest_plugin(cfg->bench_dir);
		(void)rmdir(cfg->bench_dir); /* its files were removed with their targets */
	}
	free(cfg->bench_dir);
	free(cfg->semantic);
	rn_cfg_free_strings(cfg->semantic_ignore);
	rn_cfg_free_strings(cfg->notes);
	rn_cfg_regex_pool_release(&cfg->regexes);
	free(cfg->history.url);
	free(cfg->history.machine);
	free(cfg->profile.dir);
	free(cfg->ratchet.reference);
	free(cfg->ratchet.reference_path);
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
	rn_cfg_target_defaults(t, cfg);
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
	fputs("\n### [ratchet]\n\n| key | type | meaning |\n|---|---|---|\n", out);
	RN_RATCHET_KEYS(DOC_ROW)
}
#undef ORIGINAL_DOC_ROW
#undef DOC_ROW
