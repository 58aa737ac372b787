/*
 * check.c - the check engine: plan -> run -> judge -> report (check.h). The run stage is
 * check_run.c; the commands are cmd_check.c, cmd_calibrate.c, cmd_validate.c, cmd_golden.c.
 */
#include "check.h"
#include "drivers_instructions.h"
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "assertion.h"
#include "baseline.h"
#include "calibrate_write.h"
#include "ratchet.h"
#include "buf.h"
#include "collector.h"
#include "config.h"
#include "github.h"
#include "golden.h"
#include "harness.h"
#include "now.h"
#include "preflight.h"
#include "profile_check.h"
#include "conditions.h"
#include "log.h"
#include "otlp.h"
#include "console.h"
#include "verdict.h"
#include "reporter.h"
#include "shard.h"
#include "xalloc.h"

void rn_check_opts_init(struct rn_check_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->config = "renacer.toml";
	o->cal.pairs = RN_CALIBRATE_PAIRS;
	o->pin_cpu = -1;
	o->pairs = -1;
	o->cal.effect = RN_CALIBRATE_EFFECT;
	rn_report_opts_init(&o->rep);
}

void rn_check_opts_release(struct rn_check_opts *o)
{
	free(o->only);
	free(o->shard_names);
	o->only = NULL;
	o->shard_names = NULL;
}

/* Load the config; prints the diagnostic (and annotates it in GitHub mode). Returns 0 or
 * RN_EXIT_CONFIG. */
int rn_check_load_config(struct rn_config *cfg, const char *path, bool color, bool quiet,
			 bool github)
{
	struct rn_diag d;

	if (rn_config_load(cfg, path, quiet, &d)) {
		rn_diag_print(&d, color);
		if (github)
			rn_github_report_diag(&d, RN_EXIT_CONFIG);
		rn_config_release(cfg);
		return RN_EXIT_CONFIG;
	}
	rn_preflight_assertions(cfg);
	return 0;
}

bool rn_check_selected(const struct rn_check_opts *o, const char *name)
{
	size_t i;

	if (o->shard.count && !rn_shard_list_has(o->shard_names, name))
		return false;
	if (!o->nonly)
		return true;
	for (i = 0; i < o->nonly; i++)
		if (!strcmp(o->only[i], name))
			return true;
	return false;
}

/* Every --target must name a configured target. */
static int check_selection(const struct rn_check_opts *o, const struct rn_config *cfg)
{
	size_t i, k;

	for (i = 0; i < o->nonly; i++) {
		for (k = 0; k < cfg->ntargets; k++)
			if (!strcmp(cfg->targets[k].name, o->only[i]))
				break;
		if (k == cfg->ntargets) {
			rn_error("--target '%s': no such target in '%s'", o->only[i], cfg->path);
			return RN_EXIT_USAGE;
		}
	}
	return 0;
}

/* RENACER_DISABLE_COLLECTORS="a,b" makes those collectors unavailable (to test how CI
 * behaves on a machine without them, e.g. without ptrace permission or a GPU). */
static bool disabled_by_env(const char *name)
{
	const char *list = getenv("RENACER_DISABLE_COLLECTORS");
	size_t n = strlen(name);

	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);

		if (len == n && !strncmp(list, name, n))
			return true;
		list = comma ? comma + 1 : NULL;
	}
	return false;
}

/* Resolve the drivers, then: are all collectors a target asks for usable here? Prints why
 * not. */
static int check_collectors(struct rn_config *cfg, const struct rn_check_opts *o)
{
	size_t i;
	int k;

	k = rn_check_drivers(cfg, o->driver, o->trace_out || cfg->trace_out);
	if (k)
		return k;

	for (i = 0; i < cfg->ntargets; i++) {
		if (!rn_check_selected(o, cfg->targets[i].name))
			continue;
		for (k = 0; rn_collectors[k]; k++) {
			uint32_t bit = rn_collector_mask_of(rn_collectors[k]->name);
			const char *why;

			if (!(cfg->targets[i].collectors & bit))
				continue;
			why = rn_collectors[k]->unavailable ? rn_collectors[k]->unavailable() :
							      NULL;
			if (disabled_by_env(rn_collectors[k]->name))
				why = "disabled by RENACER_DISABLE_COLLECTORS";
			if (why) {
				rn_error("target '%s': collector '%s' is unavailable: %s",
					 cfg->targets[i].name, rn_collectors[k]->name, why);
				return RN_EXIT_COLLECTOR;
			}
		}
	}
	return 0;
}

/* Whether `name` is a harness table or suite that expanded into targets. */
static bool is_parent(const struct rn_config *cfg, const char *name)
{
	size_t k;

	for (k = 0; k < cfg->ntargets; k++)
		if (cfg->targets[k].parent && !strcmp(cfg->targets[k].parent, name))
			return true;
	return false;
}

/* --target naming a harness table or suite selects each target it expanded into (their
 * names live as long as the config). */
static void select_expanded(struct rn_check_opts *o, const struct rn_config *cfg)
{
	size_t i, k, n = o->nonly;

	for (i = 0; i < n; i++) {
		for (k = 0; k < cfg->ntargets; k++)
			if (!strcmp(cfg->targets[k].name, o->only[i]))
				break;
		if (k < cfg->ntargets)
			continue;
		for (k = 0; k < cfg->ntargets; k++) {
			if (!cfg->targets[k].parent || strcmp(cfg->targets[k].parent, o->only[i]))
				continue;
			o->only = rn_xrealloc(o->only, (o->nonly + 2) * sizeof(*o->only));
			o->only[o->nonly++] = cfg->targets[k].name;
			o->only[o->nonly] = NULL;
		}
	}
	/* the tables' own names are gone: drop them (check_selection would call them unknown) */
	for (i = 0, k = 0; i < o->nonly; i++) {
		size_t j;

		for (j = 0; j < cfg->ntargets && strcmp(cfg->targets[j].name, o->only[i]); j++)
			;
		if (j < cfg->ntargets || !is_parent(cfg, o->only[i]))
			o->only[k++] = o->only[i];
	}
	o->nonly = k;
	if (o->only)
		o->only[k] = NULL;
}

int rn_check_select(struct rn_check_opts *o, struct rn_config *cfg)
{
	int rc = rn_harness_expand(cfg, o->build, o->quiet);

	if (!rc)
		select_expanded(o, cfg);

	if (!rc)
		rc = check_selection(o, cfg);

	if (!rc && o->shard.count)
		o->shard_names = rn_shard_targets(cfg, o->only, &o->shard, o->shard_balance);
	if (!rc)
		rc = check_collectors(cfg, o);
	return rc;
}

/* Both sides of --baseline run the head's config, so a command changed in renacer.toml alone
 * is not measured: note each selected target whose command in the base tree's own copy of the
 * config (its path re-rooted) differs from what the base side runs. Nothing when that file is
 * missing or invalid. */
static void note_base_config(const struct rn_check_opts *o, const struct rn_config *cfg,
			     const struct rn_baseline *bl, const struct rn_target_cfg *base_tcs)
{
	char abs[4096], *path;
	struct rn_config bc;
	struct rn_diag d;
	size_t i, j, idx = 0;

	if (!cfg->path || !realpath(cfg->path, abs))
		return;
	path = rn_baseline_reroot(bl, abs);
	memset(&bc, 0, sizeof(bc));
	if (strcmp(path, abs) && !access(path, R_OK) && !rn_config_load(&bc, path, true, &d)) {
		for (i = 0; i < cfg->ntargets; i++) {
			if (!rn_check_selected(o, cfg->targets[i].name))
				continue;
			for (j = 0; j < bc.ntargets; j++) {
				char *const *a = bc.targets[j].argv, *const *b = base_tcs[idx].argv;
				size_t k;

				if (strcmp(bc.targets[j].name, cfg->targets[i].name))
					continue;
				for (k = 0; a[k] && b[k] && !strcmp(a[k], b[k]); k++)
					;
				if (a[k] || b[k])
					rn_note("--baseline: the base tree's %s runs another command for "
						"'%s'; both sides run the head's (the config comes from "
						"the head: a change made in it alone is not measured)",
						path, cfg->targets[i].name);
			}
			idx++;
		}
	}
	rn_config_release(&bc);
	free(path);
}

/* --baseline: set up the base tree and check that every selected target is built there.
 * Returns 0, RN_EXIT_USAGE (no such tree) or RN_EXIT_TARGET (not built). */
static int baseline_setup(const struct rn_check_opts *o, const struct rn_config *cfg,
			  struct rn_baseline *bl, struct rn_target_cfg *base_tcs)
{
	size_t i, idx = 0;
	int rc = 0;

	if (rn_baseline_init(bl, o->baseline, cfg->dir))
		return RN_EXIT_USAGE;
	if (o->baseline_tolerance > 0)
		bl->tolerance = o->baseline_tolerance;
	bl->confirm = o->confirm;
	for (i = 0; i < cfg->ntargets; i++) {
		if (!rn_check_selected(o, cfg->targets[i].name))
			continue;
		rn_baseline_target(bl, &cfg->targets[i], &base_tcs[idx]);
		if (!rc && rn_baseline_check_built(bl, &cfg->targets[i], &base_tcs[idx]))
			rc = RN_EXIT_TARGET;
		idx++;
	}
	note_base_config(o, cfg, bl, base_tcs);
	return rc;
}

static char *path_join(const char *dir, const char *name, const char *ext)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s%s", dir, name, ext);
	return rn_buf_detach(&b, NULL);
}

/* Golden comparison of one target against `kept` (its golden trace as the preflight read it),
 * or, when none was kept, the file read now: appends verdicts. Returns RN_EXIT_CONFIG when the
 * golden file is unusable (reported as ERROR verdict too), else 0. */
static int compare_golden(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			  const struct rn_golden *kept, struct rn_target_result *r,
			  struct rn_target_report *tv)
{
	char *path = path_join(cfg->golden_dir, r->name, ".json");
	struct rn_golden read;
	const struct rn_golden *g = kept;
	struct rn_diag d;
	struct rn_verdict_result *out = NULL;
	const char *rel;
	size_t nout = 0, i;
	int rc = 0;

	/* Only a path that does not exist means "no golden trace": a dangling or looping link,
	 * a FIFO or a device is an unusable golden trace (rn_golden_read says why). */
	if (!kept) {
		struct stat st;

		if (lstat(path, &st) && errno == ENOENT) {
			free(path);
			return 0;
		}
	}
	/* Reports name the golden relative to the config, as it is committed. */
	{
		size_t dl = strlen(cfg->dir);

		rel = !strncmp(path, cfg->dir, dl) && path[dl] == '/' ? path + dl + 1 : path;
	}
	tv->golden_file = rn_xstrdup(rel);
	if (!kept && rn_golden_read(path, &read, &d)) {
		struct rn_verdict_result *v = rn_target_report_push(tv);
		char *line = rn_diag_oneline(&d);

		rn_diag_print(&d, false);
		v->assertion = rn_xstrdup("golden");
		v->type = rn_xstrdup("regression");
		v->target = rn_xstrdup(r->name);
		v->verdict = RN_VERDICT_ERROR;
		v->message = line;
		free(path);
		return RN_EXIT_CONFIG;
	}
	if (!kept)
		g = &read;
	{
		char **argv_rel = rn_report_golden_argv(cfg, tc->argv);

		rn_golden_identity_warn(g, rel, r->name, (const char *const *)argv_rel);
		rn_otlp_argv_free(argv_rel);
	}
	if (rn_target_result_measured(r) && r->status == RN_RUN_OK &&
	    !rn_golden_compare(g, rel, r, &cfg->regression, &out, &nout)) {
		for (i = 0; i < nout; i++)
			*rn_target_report_push(tv) = out[i];
		free(out);
	}
	if (!kept)
		rn_golden_release(&read);
	free(path);
	return rc;
}

/* Exit code of the whole check from its verdicts (priority documented in --help). */
static int exit_code_of(const struct rn_target_report *tvs, size_t n, int worst_other,
			bool not_judged_fails)
{
	bool fail = false, error = false;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < tvs[i].nverdicts; k++) {
			enum rn_verdict v = tvs[i].verdicts[k].verdict;

			if (v == RN_VERDICT_FAIL || v == RN_VERDICT_NO_DATA ||
			    (v == RN_VERDICT_NOT_JUDGED && not_judged_fails))
				fail = true;
			if (v == RN_VERDICT_ERROR)
				error = true;
		}
	}
	if (worst_other)
		return worst_other;
	if (error)
		return RN_EXIT_TARGET;
	return fail ? RN_EXIT_FAIL : RN_EXIT_OK;
}

int rn_check_exit_code(const struct rn_target_report *tvs, size_t n, int worst_other,
		       bool not_judged_fails)
{
	return exit_code_of(tvs, n, worst_other, not_judged_fails);
}

static bool want_target(void *ctx, const char *name)
{
	return rn_check_selected(ctx, name);
}

/* Before the first run: every golden trace the check will read, kept in `goldens` for the
 * runs and the comparison (an unusable one marks its target in bad_golden: it is not run, its
 * golden verdict is ERROR; both cfg->ntargets entries), and the directories of the outputs it
 * will write (created when missing), all reported at once. Returns 0 or RN_EXIT_OUTPUT. */
static int preflight(const struct rn_config *cfg, const struct rn_check_opts *o, bool *bad_golden,
		     struct rn_golden **goldens)
{
	const char *paths[] = { o->rep.junit ? o->rep.junit : cfg->junit,
				o->trace_out ? o->trace_out : cfg->trace_out,
				o->rep.otlp_file ? o->rep.otlp_file : cfg->otlp_file,
				o->rep.bench_json };
	const char *what[] = { "JUnit report", "timeline", "OTLP file", "benchmark JSON" };
	bool out_failed = false;
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (rn_preflight_output(paths[i], what[i]))
			out_failed = true;
	if (!out_failed && !o->no_golden && cfg->regression.enabled)
		rn_preflight_goldens(cfg, want_target, (void *)o, o->rep.color, o->rep.github,
				     RN_DIAG_MAX_ERRORS, bad_golden, goldens);
	return out_failed ? RN_EXIT_OUTPUT : 0;
}

/*
 * `renacer check` is plan -> run -> judge -> report:
 *   plan    the selected targets in config order, each with its base side under --baseline
 *           (check_plan); per target, the runs it needs (plan_runs)
 *   run     each target's runs into its struct rn_target_result (run_target, run_baseline)
 *   judge   the target's verdicts into its struct rn_target_report (judge_target), right
 *           after its runs, so a target interrupted half-way is judged on what it has
 *   report  one struct rn_outcome handed to every reporter of runner/check/reporter.h
 */
struct check {
	struct rn_check_opts *o;
	struct rn_config cfg;
	bool have_cfg; /* cfg is loaded */
	struct rn_otlp_cfg otlp_cfg;
	bool have_otlp; /* otlp_cfg is initialized */
	struct rn_otlp_context otlp_ctx;
	struct rn_baseline bl;      /* --baseline: the base tree */
	struct rn_ratchet ratchet;  /* --baseline with [ratchet]: the reference tree */
	bool *bad_golden;           /* per config target: its golden trace is unusable */
	struct rn_golden **goldens; /* per config target: its golden trace, read once, or NULL */
	/* the plan: selected targets */
	size_t *sel; /* [nsel] indexes into cfg.targets */
	size_t nsel;
	struct rn_target_cfg *base_tcs; /* --baseline: [nsel] base sides, or NULL */
	/* the outcome */
	struct rn_target_result *results; /* [nsel] */
	struct rn_target_result *bases;   /* --baseline: [nsel], or NULL */
	struct rn_target_report *tvs;     /* [nsel] */
	int worst;                        /* first exit code not derived from verdicts */
	int interrupted;                  /* signal that interrupted the check, or 0 */
	uint64_t check_start;             /* Unix ns */
};

/* --build: each selected target's `build` command, /bin/sh -c in its cwd, its output on
 * stderr (stdout would mix with the report's consumers). 0, or RN_EXIT_TARGET at the first
 * that fails (the check stops: a stale binary would be judged). */
static int check_build(const struct check *c)
{
	size_t i;

	for (i = 0; i < c->nsel; i++) {
		const struct rn_target_cfg *tc = &c->cfg.targets[c->sel[i]];
		pid_t pid;
		int status;

		if (!tc->build)
			continue;
		if (!c->o->quiet)
			fprintf(stderr, "renacer check: building '%s': %s\n", tc->name, tc->build);
		pid = fork();
		if (pid < 0) {
			rn_error("cannot fork for the build of '%s': %s", tc->name,
				 strerror(errno));
			return RN_EXIT_TARGET;
		}
		if (!pid) {
			if (tc->cwd && chdir(tc->cwd))
				_exit(126);
			dup2(2, 1);
			execl("/bin/sh", "sh", "-c", tc->build, (char *)NULL);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			rn_error("target '%s': build command failed (%s %d): %s", tc->name,
				 WIFEXITED(status) ? "exit" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				 tc->build);
			return RN_EXIT_TARGET;
		}
	}
	return 0;
}

/* Everything before the plan: the config (plus a target from the command line), the
 * selection, the collectors, the preflight and the OTLP settings. Returns 0 or an exit code. */
static int check_prepare(struct check *c, int argc, char **argv, int first)
{
	struct rn_check_opts *o = c->o;
	struct rn_config *cfg = &c->cfg;
	int rc;

	rc = rn_check_load_config(cfg, o->config, o->rep.color, false, o->rep.github);
	if (rc)
		return rc;
	c->have_cfg = true;
	if (first < argc) /* renacer check [--config FILE] -- ./app args */
		rn_config_add_cli_target(cfg, argv + first);
	if (!cfg->ntargets) {
		rn_error("'%s' has no [[target]]: add one, or name the program after '--' "
			 "(renacer check -- ./app args)",
			 cfg->path);
		return RN_EXIT_USAGE;
	}
	rc = rn_check_select(o, cfg);
	c->bad_golden = rn_xcalloc(cfg->ntargets, sizeof(*c->bad_golden));
	c->goldens = rn_xcalloc(cfg->ntargets, sizeof(*c->goldens));
	if (!rc)
		rc = preflight(cfg, o, c->bad_golden, c->goldens);
	if (rc)
		return rc;
	rn_otlp_cfg_init(&c->otlp_cfg);
	c->have_otlp = true;
	rc = rn_report_opts_otlp(&o->rep, cfg, &c->otlp_cfg);
	if (rc)
		return rc;
	rn_otlp_context_init(&c->otlp_ctx);
	o->otlp_spool = rn_otlp_cfg_needs_spool(&c->otlp_cfg) &&
		(c->otlp_cfg.enabled || o->rep.otlp_file || cfg->otlp_file);
	return 0;
}

/* The plan: the selected targets, the outcome's storage, the base tree. Returns 0 or an exit
 * code. */
static int check_plan(struct check *c)
{
	size_t i;
	int rc;

	c->sel = rn_xcalloc(c->cfg.ntargets + 1, sizeof(*c->sel));
	for (i = 0; i < c->cfg.ntargets; i++)
		if (rn_check_selected(c->o, c->cfg.targets[i].name))
			c->sel[c->nsel++] = i;
	if (c->o->shard.count && !c->nsel)
		rn_note("shard %u/%u has no targets: its results file lists none",
			c->o->shard.index, c->o->shard.count);
	/* a table's benchmarks share their timing runs (harness.h); calibrate plants its own
	 * argv */
	rn_harness_select(&c->cfg, c->sel, c->nsel, !c->o->calibrate);
	c->results = rn_xcalloc(c->nsel, sizeof(*c->results));
	c->tvs = rn_xcalloc(c->nsel, sizeof(*c->tvs));
	if (!c->o->baseline)
		return 0;
	c->base_tcs = rn_xcalloc(c->nsel, sizeof(*c->base_tcs));
	c->bases = rn_xcalloc(c->nsel, sizeof(*c->bases));
	rc = baseline_setup(c->o, &c->cfg, &c->bl, c->base_tcs);
	if (rc)
		return rc;
	for (i = 0; i < c->nsel; i++)
		rn_target_result_init(&c->bases[i], c->base_tcs[i].name);
	return rn_ratchet_setup(&c->ratchet, &c->cfg, c->o, c->sel, c->nsel);
}

/* Run selected target `idx` (or mark why it is not run). */
static void check_run(struct check *c, size_t idx)
{
	const struct rn_target_cfg *tc = &c->cfg.targets[c->sel[idx]];
	struct rn_target_result *r = &c->results[idx];
	int rc = 0;

	rn_target_result_init(r, tc->name);
	c->tvs[idx].result = r;
	if (c->bad_golden[c->sel[idx]]) {
		/* its golden trace is unusable (reported before the first run): the runs could
		 * not be judged against it */
		r->status = RN_RUN_ERROR;
		r->error = rn_xstrdup("not run: its golden trace is unusable");
	} else if (c->interrupted) {
		r->status = RN_RUN_INTERRUPTED;
		r->error = rn_xstrdup("not run: renacer was interrupted");
	} else if (c->o->calibrate) {
		rc = rn_check_run_calibrate(&c->cfg, tc, c->o, idx, c->nsel, &c->otlp_ctx, r,
					    &c->tvs[idx]);
	} else if (c->o->baseline) {
		/* the target's own tolerance (calibrate --write), unless the command line's */
		struct rn_baseline tbl = c->bl;

		if (tc->baseline_tolerance > 0 && !(c->o->baseline_tolerance > 0))
			tbl.tolerance = tc->baseline_tolerance;
		rc = rn_check_run_baseline(&c->cfg, tc, &c->base_tcs[idx], c->o, &tbl, idx, c->nsel,
					   &c->otlp_ctx, NULL, r, &c->bases[idx], &c->tvs[idx]);
		if (!rc && r->status == RN_RUN_OK)
			rc = rn_ratchet_run_target(&c->ratchet, &c->cfg, tc, idx, c->nsel, c->o,
						   &c->otlp_ctx, r, &c->tvs[idx]);
	} else {
		rc = rn_check_run_target(&c->cfg, tc, c->o, idx, c->nsel, &c->otlp_ctx, false,
					 c->goldens[c->sel[idx]], r);
	}
	rn_harness_done(tc);
	if (rc == -ECANCELED) {
		c->interrupted = rn_run_interrupted();
		/* the run that was cut may be the other side's (baseline, calibrate): the
		 * target's own result says it too, so its report is marked partial */
		if (r->status == RN_RUN_OK) {
			r->status = RN_RUN_INTERRUPTED;
			if (!r->error)
				r->error = rn_xstrdup("renacer was interrupted");
		}
	}
}

/* Known data loss against a golden comparison: the GPU metrics read GPU spans; the span and
 * copy counts can only have been lowered by lost spans. */
static void golden_gaps(const struct rn_target_result *r, struct rn_verdict_result *v)
{
	static const struct {
		const char *name;
		bool count;
	} gpu[] = { { "golden:gpu_busy", false },
		    { "golden:gpu_dispatches", true },
		    { "golden:gpu_copy_bytes", true } };
	size_t i;

	for (i = 0; i < sizeof(gpu) / sizeof(gpu[0]); i++)
		if (v->assertion && !strcmp(v->assertion, gpu[i].name))
			rn_verdict_apply_gaps(r, RN_GAP_GPU_SPANS, gpu[i].count, v);
}

/* The verdicts of selected target `idx`: its assertions, its golden trace, and ERROR for a
 * target that failed to run and has no other verdict. */
static void judge_target(struct check *c, size_t idx)
{
	const struct rn_config *cfg = &c->cfg;
	const struct rn_target_cfg *tc = &cfg->targets[c->sel[idx]];
	struct rn_target_result *r = &c->results[idx];
	struct rn_target_report *tv = &c->tvs[idx];
	size_t k;

	/* span_time compares the head's spans with the base side's */
	r->base = c->bases ? &c->bases[idx] : NULL;
	for (k = 0; k < cfg->nassertions && !c->o->calibrate; k++)
		if (rn_assertion_applies(&cfg->assertions[k], tc->name))
			rn_assertion_evaluate(&cfg->assertions[k], r, rn_target_report_push(tv));
	if (!c->o->no_golden && cfg->regression.enabled && !c->interrupted) {
		size_t first = tv->nverdicts;
		int rc = compare_golden(cfg, tc, c->goldens[c->sel[idx]], r, tv);

		if (rc && !c->worst)
			c->worst = rc;
		for (k = first; k < tv->nverdicts; k++)
			golden_gaps(r, &tv->verdicts[k]);
	}
	if (!c->o->calibrate && !c->interrupted) /* a failed timing row: where the time went */
		rn_profile_check_explain(cfg, tc, c->base_tcs ? &c->base_tcs[idx] : NULL, tv,
					 c->o->quiet);
	if (r->status != RN_RUN_OK && !tv->nverdicts) {
		/* A target with no assertion that failed to run still shows up as ERROR. */
		struct rn_verdict_result *v = rn_target_report_push(tv);

		v->assertion = rn_xstrdup("run");
		v->type = rn_xstrdup("run");
		v->target = rn_xstrdup(tc->name);
		v->verdict = RN_VERDICT_ERROR;
		v->message = rn_xstrdup(r->error ? r->error : "target failed");
	}
}

/* Hand the outcome to every reporter. Returns the check's exit code. */
static int check_report(struct check *c)
{
	const struct rn_check_opts *o = c->o;
	const struct rn_config *cfg = &c->cfg;
	struct rn_report_outputs out;
	struct rn_outcome oc = {
		.cfg = cfg,
		.config_path = cfg->path,
		.targets = c->results,
		.reports = c->tvs,
		.ntargets = c->nsel,
		.bases = c->bases,
		.shard = o->shard,
		.start_unix_ns = c->check_start,
		.worst_other = c->worst,
		.interrupted = c->interrupted,
		.not_judged_fails = cfg->regression.not_judged_fails,
	};
	const char *const **argvs = rn_xcalloc(2 * c->nsel + 1, sizeof(*argvs));
	size_t i, k = 0;
	int rc;

	rn_report_opts_outputs(&o->rep, cfg, &out);
	out.trace_out = o->trace_out ? o->trace_out : cfg->trace_out;
	out.otlp = &c->otlp_cfg;
	out.otlp_ctx = &c->otlp_ctx;
	out.history_source = "check";
	out.rerun_of = o->rerun_of;
	out.quiet = o->quiet;
	out.wide = o->wide;
	out.verbose = o->verbose;
	oc.exit_code = exit_code_of(c->tvs, c->nsel, c->worst, cfg->regression.not_judged_fails);
	if (c->interrupted)
		oc.exit_code = rn_exit_for_signal(c->interrupted);
	for (i = 0; i < c->nsel; i++)
		argvs[k++] = (const char *const *)cfg->targets[c->sel[i]].argv;
	for (i = 0; c->base_tcs && i < c->nsel; i++)
		argvs[k++] = (const char *const *)c->base_tcs[i].argv;
	oc.argv = argvs;
	if (o->rep.results)
		oc.suite = rn_shard_suite(cfg, o->only, &oc.nsuite);
	rc = rn_report_all(&out, &oc);
	free((void *)oc.suite);
	free(argvs);
	return rc;
}

static void check_release(struct check *c)
{
	size_t i;

	for (i = 0; c->tvs && i < c->nsel; i++) {
		rn_target_report_release(&c->tvs[i]);
		rn_target_result_release(&c->results[i]);
		if (c->bases)
			rn_target_result_release(&c->bases[i]);
		if (c->base_tcs)
			rn_baseline_target_release(&c->base_tcs[i]);
	}
	free(c->tvs);
	free(c->results);
	free(c->bases);
	free(c->base_tcs);
	free(c->sel);
	rn_baseline_release(&c->bl);
	rn_ratchet_release(&c->ratchet);
	if (c->have_otlp)
		rn_otlp_cfg_release(&c->otlp_cfg);
	free(c->bad_golden);
	for (i = 0; c->goldens && i < c->cfg.ntargets; i++)
		if (c->goldens[i]) {
			rn_golden_release(c->goldens[i]);
			free(c->goldens[i]);
		}
	free(c->goldens);
	if (c->have_cfg)
		rn_config_release(&c->cfg);
}

int rn_check_execute(struct rn_check_opts *o, int argc, char **argv, int first)
{
	struct check c;
	size_t i;
	int rc;

	/* from here on the first SIGINT/SIGTERM ends the check with its exit code, wherever it
	 * lands (a run, a build, the judging, calibrate's own measurements) */
	rn_run_catch_signals();
	memset(&c, 0, sizeof(c));
	c.check_start = rn_real_ns();
	c.o = o;
	rc = check_prepare(&c, argc, argv, first);
	if (!rc)
		rc = check_plan(&c);
	if (!rc && o->build)
		rc = check_build(&c);
	if (!rc) {
		if (!o->quiet)
			rn_report_header(o->rep.color, c.cfg.path, c.nsel,
					 o->calibrate ? 0 : c.cfg.nassertions);
		for (i = 0; i < c.nsel; i++) {
			check_run(&c, i);
			judge_target(&c, i);
		}
		/* a signal after the last run (the run itself ended well) is still the end */
		if (!c.interrupted)
			c.interrupted = rn_run_interrupted();
		if (o->calibrate && o->cal.write && !c.interrupted &&
		    rn_calibrate_write_config(&c.cfg, c.tvs, c.nsel, o->quiet) && !c.worst)
			c.worst = RN_EXIT_OUTPUT;
		rc = check_report(&c);
	}
	check_release(&c);
	if (rn_run_interrupted())
		rc = rn_exit_for_signal(rn_run_interrupted());
	return rc;
}
