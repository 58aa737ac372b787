/*
 * config_target.c - one [[target]] table into a struct rn_target_cfg (internal.h).
 */
#include "internal.h"

#include <dirent.h>
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
static const char *const target_keys[] = { RN_TARGET_KEYS(KEY_NAME) NULL };

#undef KEY_NAME

const char *const rn_harness_names[] = {
#define HARNESS_NAME(id, name, suite, doc) name,
	RN_HARNESSES(HARNESS_NAME)
#undef HARNESS_NAME
		NULL
};

bool rn_harness_is_suite(enum rn_harness h)
{
	static const bool suite[] = {
#define HARNESS_SUITE(id, name, suite, doc) suite,
		RN_HARNESSES(HARNESS_SUITE)
#undef HARNESS_SUITE
	};

	return h < RN_HARNESS_COUNT && suite[h];
}

void rn_cfg_target_defaults(struct rn_target_cfg *t, const struct rn_config *cfg)
{
	memset(t, 0, sizeof(*t));
	t->cwd = rn_xstrdup(cfg->dir);
	t->timeout_ns = RN_TARGET_TIMEOUT_S * 1000000000ull;
	t->runs = RN_TARGET_RUNS;
	t->counting_runs = RN_TARGET_COUNTING_RUNS;
	t->collectors = RN_COLLECT_PTRACE;
	t->clean_timing = true;
	t->time_budget_s = -1; /* [regression]'s */
	t->gpu_mode = RN_GPU_MODE_CMDBUF;
	t->out = RN_STDIO_NULL;
	t->err = RN_STDIO_INHERIT;
	t->max_procs = RN_TARGET_MAX_PROCESSES;
	t->instructions = -1;
	t->profile = -1;
	t->pairs = -1;
}

void rn_cfg_target_release(struct rn_target_cfg *t)
{
	free(t->name);
	rn_cfg_free_strings(t->argv);
	free(t->cwd);
	free(t->build);
	rn_cfg_free_strings(t->env);
	for (size_t i = 0; i < t->ninject; i++)
		rn_inject_release(&t->inject[i]);
	free(t->inject);
	rn_cfg_free_strings(t->benchmarks);
	free(t->pattern);
	free(t->bench);
	free(t->bench_out);
	free(t->parent);
	if (t->group && !t->group_member)
		rn_harness_group_free(t->group);
	memset(t, 0, sizeof(*t));
}

void rn_cfg_remove_files(const char *dir, const char *prefix)
{
	DIR *d = dir ? opendir(dir) : NULL;
	size_t n = strlen(prefix);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !strncmp(e->d_name, prefix, n))
			(void)unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
}

void rn_harness_group_free(struct rn_harness_group *g)
{
	char prefix[64];
	size_t i;

	if (!g)
		return;
	snprintf(prefix, sizeof(prefix), "s.%zu.", g->id);
	rn_cfg_remove_files(g->dir, prefix);
	for (i = 0; i < g->n; i++)
		free(g->names[i]);
	free(g->names);
	free(g->done);
	free(g->dir);
	free(g);
}

void rn_config_target_release(struct rn_target_cfg *t)
{
	rn_cfg_target_release(t);
}

static const char *const stdio_names[] = { "inherit", "null", "capture", NULL };
static const char *const gpu_mode_names[] = { "cmdbuf", "submit", "dispatch", NULL };
static const char *const region_scope_names[] = { "process", "thread", NULL };

/* `command`, run directly or (`shell = true`, the only way a shell is involved: argv as given
 * otherwise) through /bin/sh -c with its words joined by spaces. */
static int parse_command(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			 struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "command");
	char **cmd = NULL;
	size_t ncmd = 0, len = 1, i;
	bool shell = false;
	char *line;

	if (!kv)
		return rn_cfg_err_at(c, tab->pos, "%s needs a 'command' (an array of strings)",
				     c->what);
	if (rn_cfg_get_strings(c, tab, "command", &cmd, &ncmd))
		return -EINVAL;
	if (!ncmd) {
		rn_cfg_free_strings(cmd);
		return rn_cfg_err_at(c, kv->val->pos, "'command' in %s must not be empty", c->what);
	}
	if (rn_cfg_get_bool(c, tab, "shell", &shell)) {
		rn_cfg_free_strings(cmd);
		return -EINVAL;
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
	rn_cfg_free_strings(cmd);
	return 0;
}

/* `env`: a table of strings, kept as "NAME=value". */
static int parse_env(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "env");
	const struct rn_toml_table *et;
	size_t i;

	if (!kv)
		return 0;
	if (kv->val->type != RN_TOML_TABLE)
		return rn_cfg_type_err(c, kv, "a table of strings");
	et = kv->val->u.table;
	t->env = rn_xcalloc(et->n + 1, sizeof(*t->env));
	for (i = 0; i < et->n; i++) {
		const struct rn_toml_kv *e = &et->kv[i];
		const struct rn_toml_value *v = e->val;

		if (v->type != RN_TOML_STRING)
			return rn_cfg_err_at(c, v->pos,
					     "env value '%s' in %s must be a string, found %s",
					     e->key, c->what, rn_toml_type_phrase(v->type));
		if (strlen(v->u.str.ptr) != v->u.str.len)
			return rn_cfg_err_at(c, v->pos,
					     "env value '%s' in %s must not contain NUL characters",
					     e->key, c->what);
		if (!e->key[0] || strchr(e->key, '=') || strlen(e->key) != e->key_len)
			return rn_cfg_err_at(
				c, e->key_pos,
				"env name '%s' in %s must be non-empty and contain no '=' or NUL",
				e->key, c->what);
		t->env[i] = rn_xstrfmt("%s=%s", e->key, v->u.str.ptr);
	}
	return 0;
}

/* The interpreter hash seeds `fixed_hash_seed` holds equal in every run, both sides of a
 * baseline and the golden's runs alike: Python's and Perl's hash order (and so their dict and
 * hash layouts) change from run to run otherwise. On the quiet 16-core machine a Python
 * dict/set workload's run-to-run spread fell from 16.1% to 9.0% with it, a Perl hash
 * workload's from 6.7% to 6.0%, gzip's did not move (tests/bench/timing/noise_sources.py). */
static const char *const hash_seed_env[] = { "PYTHONHASHSEED=0", "PERL_HASH_SEED=0",
					     "PERL_PERTURB_KEYS=0" };

/* `fixed_hash_seed` (default true): add hash_seed_env's variables that `env` does not set. */
static int parse_hash_seed(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			   struct rn_target_cfg *t)
{
	bool on = true;
	size_t n = 0, i, k;

	if (rn_cfg_get_bool(c, tab, "fixed_hash_seed", &on))
		return -EINVAL;
	if (!on)
		return 0;
	while (t->env && t->env[n])
		n++;
	t->env = rn_xrealloc(t->env, (n + 4) * sizeof(*t->env));
	for (i = 0; i < sizeof(hash_seed_env) / sizeof(hash_seed_env[0]); i++) {
		size_t klen = strchr(hash_seed_env[i], '=') - hash_seed_env[i] + 1;
		bool set = false;

		for (k = 0; k < n; k++)
			set |= !strncmp(t->env[k], hash_seed_env[i], klen);
		if (!set)
			t->env[n++] = rn_xstrdup(hash_seed_env[i]);
	}
	t->env[n] = NULL;
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
static int parse_collectors(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			    struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "collectors");
	char **colls = NULL;
	size_t ncolls = 0, i, k;
	int rc = 0;

	if (!kv)
		return 0;
	if (rn_cfg_get_strings(c, tab, "collectors", &colls, &ncolls))
		return -EINVAL;
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
		rc = rn_cfg_err_at(c, kv->val->u.array.items[i]->pos,
				   "unknown collector \"%s\" in %s (expected %s%s%s%s)", colls[i],
				   c->what, expected, hint ? "; did you mean \"" : "",
				   hint ? hint : "", hint ? "\"?" : "");
	}
	rn_cfg_free_strings(colls);
	return rc;
}

/* `cwd`, resolved against the config's directory. */
static int parse_cwd(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, struct rn_target_cfg *t)
{
	char *cwd = NULL;

	if (!rn_toml_get_kv(tab, "cwd"))
		return 0;
	if (rn_cfg_get_string(c, tab, "cwd", &cwd))
		return -EINVAL;
	free(t->cwd);
	t->cwd = rn_cfg_resolve_path(c->cfg, cwd);
	free(cwd);
	return 0;
}

/* The numeric keys of a [[target]]: limits and run counts. */
static int parse_target_numbers(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
				struct rn_target_cfg *t)
{
	double timeout_s = -1, weight = 0, tolerance = 0, budget = -1;
	int64_t expect = 0, runs = RN_TARGET_RUNS, counting = RN_TARGET_COUNTING_RUNS, warmup = 0;

	if (rn_cfg_get_num(c, tab, "timeout_s", 0.001, 86400.0 * 7, &timeout_s) ||
	    rn_cfg_get_int(c, tab, "expect_exit", -1, 255, &expect) ||
	    rn_cfg_get_int(c, tab, "runs", 1, RN_TARGET_RUNS_MAX, &runs) ||
	    rn_cfg_get_int(c, tab, "counting_runs", 1, RN_TARGET_COUNTING_RUNS_MAX, &counting) ||
	    rn_cfg_get_int(c, tab, "warmup", 0, 100, &warmup) ||
	    rn_cfg_get_num(c, tab, "shard_weight", 1e-6, 1e12, &weight) ||
	    rn_cfg_get_num(c, tab, "baseline_tolerance", 0.0001, RN_BASELINE_TOLERANCE_MAX,
			   &tolerance) ||
	    rn_cfg_get_num(c, tab, "time_budget_s", 0, 86400, &budget))
		return -EINVAL;
	if (timeout_s > 0)
		t->timeout_ns = (uint64_t)(timeout_s * 1e9);
	t->expect_exit = (int)expect;
	t->runs = (unsigned)runs;
	t->counting_runs = (unsigned)counting;
	t->warmup = (unsigned)warmup;
	t->shard_weight = weight;
	t->baseline_tolerance = tolerance;
	t->time_budget_s = budget;
	return rn_cfg_get_string(c, tab, "build", &t->build);
}

/* The process limits of a [[target]]. */
static int parse_target_limits(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			       struct rn_target_cfg *t)
{
	int64_t procs = (int64_t)t->max_procs, as_bytes = 0;

	if (rn_cfg_get_int(c, tab, "max_processes", 1, 10000000, &procs) ||
	    rn_cfg_get_int(c, tab, "max_memory_bytes", 1 << 20, INT64_MAX, &as_bytes))
		return -EINVAL;
	t->max_procs = (uint64_t)procs;
	t->max_as_bytes = (uint64_t)as_bytes;
	return 0;
}

/* The keys of a [[target]] that choose among names, then its limits and `instructions`, in
 * the order of the reference. */
static int parse_target_choices(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
				struct rn_target_cfg *t)
{
	int gpu = (int)t->gpu_mode, out = (int)t->out, err = (int)t->err, driver = 0, scope = 0;

	if (rn_cfg_get_choice(c, tab, "gpu_timing", gpu_mode_names, &gpu) ||
	    rn_cfg_get_choice(c, tab, "region_scope", region_scope_names, &scope) ||
	    rn_cfg_get_choice(c, tab, "stdout", stdio_names, &out) ||
	    rn_cfg_get_choice(c, tab, "stderr", stdio_names, &err))
		return -EINVAL;
	t->gpu_mode = (enum rn_gpu_mode)gpu;
	t->region_thread_scope = scope == 1;
	t->out = (enum rn_stdio)out;
	t->err = (enum rn_stdio)err;
	if (parse_target_limits(c, tab, t) ||
	    rn_cfg_get_choice(c, tab, "driver", rn_driver_pref_names, &driver))
		return -EINVAL;
	t->driver = driver;
	if (rn_cfg_get_bool(c, tab, "clean_timing", &t->clean_timing))
		return -EINVAL;
	if (rn_toml_get_kv(tab, "instructions")) {
		bool on = false;

		if (rn_cfg_get_bool(c, tab, "instructions", &on))
			return -EINVAL;
		t->instructions = on;
	}
	if (rn_cfg_get_choice(c, tab, "pairs", rn_pair_scheme_names, &t->pairs))
		return -EINVAL;
	if (rn_toml_get_kv(tab, "profile")) {
		bool on = false;

		if (rn_cfg_get_bool(c, tab, "profile", &on))
			return -EINVAL;
		t->profile = on;
	}
	return 0;
}

/* `inject`: strace --inject rules (collectors/inject_rules.h), applied by the ptrace driver
 * in every run of the target. */
static int parse_inject(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "inject");
	char **rules = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (!kv)
		return 0;
	if (rn_cfg_get_strings(c, tab, "inject", &rules, &n))
		return -EINVAL;
	t->inject = rn_xcalloc(n ? n : 1, sizeof(*t->inject));
	for (i = 0; i < n && !rc; i++) {
		struct rn_diag d;

		rn_diag_init(&d, NULL, NULL, 0);
		if (rn_inject_parse(&t->inject[i], rules[i], &d))
			rc = rn_cfg_err_at(c, kv->val->u.array.items[i]->pos, "%s in %s", d.msg,
					   c->what);
		else
			t->ninject++;
	}
	if (!rc && n && t->driver == RN_DRIVER_PREF_EBPF)
		rc = rn_cfg_err_at(
			c, kv->val->pos,
			"'inject' in %s needs the ptrace driver (driver = \"ebpf\" only counts)",
			c->what);
	rn_cfg_free_strings(rules);
	return rc;
}

/* `harness`, `benchmarks`, `pattern`: a [[target]] names a benchmark harness, a [[suite]] a
 * test runner (it must); the names are kept for check to expand (runner/check/harness.h). */
static int parse_harness(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			 struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(tab, "harness");
	int h = RN_HARNESS_NONE;

	if (rn_cfg_get_choice(c, tab, "harness", rn_harness_names, &h))
		return -EINVAL;
	if (t->suite && (!kv || !rn_harness_is_suite((enum rn_harness)h)))
		return rn_cfg_err_at(c, kv ? kv->val->pos : tab->pos,
				     "%s needs 'harness' = \"ctest\", \"pytest\" or \"go-test\"",
				     c->what);
	if (!t->suite && rn_harness_is_suite((enum rn_harness)h))
		return rn_cfg_err_at(c, kv->val->pos,
				     "harness \"%s\" in %s is a test runner: write it as [[suite]]",
				     rn_harness_names[h], c->what);
	t->harness = h;
	if (rn_cfg_get_strings(c, tab, "benchmarks", &t->benchmarks, NULL) ||
	    rn_cfg_get_regex(c, tab, "pattern", &t->pattern, &t->pattern_re))
		return -EINVAL;
	if (h == RN_HARNESS_NONE && (t->benchmarks || t->pattern))
		return rn_cfg_err_at(c, tab->pos, "'%s' in %s needs a 'harness'",
				     t->benchmarks ? "benchmarks" : "pattern", c->what);
	if (h != RN_HARNESS_NONE && t->argv && t->argv[0] && t->argv[1] &&
	    !strcmp(t->argv[0], "/bin/sh") && !strcmp(t->argv[1], "-c") &&
	    rn_toml_get_kv(tab, "shell"))
		return rn_cfg_err_at(
			c, kv->val->pos,
			"'harness' in %s adds its own arguments to 'command': it cannot "
			"go with 'shell = true'",
			c->what);
	if (h != RN_HARNESS_NONE && t->ninject)
		return rn_cfg_err_at(c, kv->val->pos,
				     "'inject' in %s applies to one program: it cannot go with "
				     "'harness'",
				     c->what);
	if (h == RN_HARNESS_HYPERFINE && (!t->benchmarks || !t->benchmarks[0]))
		return rn_cfg_err_at(c, kv->val->pos,
				     "harness \"hyperfine\" in %s needs 'benchmarks': the commands "
				     "it times",
				     c->what);
	return 0;
}

int rn_cfg_parse_target(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			struct rn_target_cfg *t)
{
	const struct rn_toml_kv *kv;
	bool suite = t->suite; /* a [[suite]]: said by the caller */

	rn_cfg_target_defaults(t, c->cfg);
	t->suite = suite;
	t->line = tab->pos.line;
	c->what = t->suite ? "[[suite]]" : "[[target]]";
	kv = rn_toml_get_kv(tab, "name");
	if (!kv)
		return rn_cfg_err_at(c, tab->pos, "%s needs a 'name'", c->what);
	if (rn_cfg_get_string(c, tab, "name", &t->name))
		return -EINVAL;
	if (!rn_config_name_valid(t->name))
		return rn_cfg_err_at(c, kv->val->pos,
				     "target name \"%s\" must match [A-Za-z0-9_.-]+", t->name);
	snprintf(c->what_buf, sizeof(c->what_buf), "%s '%s'", t->suite ? "[[suite]]" : "[[target]]",
		 t->name);
	c->what = c->what_buf;
	if (rn_cfg_check_keys(c, tab, target_keys) || parse_command(c, tab, t) ||
	    parse_cwd(c, tab, t) || parse_env(c, tab, t) || parse_hash_seed(c, tab, t) ||
	    parse_target_numbers(c, tab, t) || parse_collectors(c, tab, t) ||
	    parse_target_choices(c, tab, t) || parse_inject(c, tab, t) || parse_harness(c, tab, t))
		return -EINVAL;
	return 0;
}

uint64_t rn_target_time_budget_ns(const struct rn_config *cfg, const struct rn_target_cfg *t)
{
	double s = t->time_budget_s >= 0 ? t->time_budget_s : cfg->regression.time_budget_s;

	return (uint64_t)(s * 1e9);
}
