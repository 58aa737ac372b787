/*
 * cmd_golden.c - `renacer golden update`: run the targets and write their golden traces.
 */
#include "cmd_golden.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cmd_check.h"
#include "exitcode.h"
#include "log.h"
#include <sys/stat.h>

#include "assertion.h"
#include "config.h"
#include "golden_equiv.h"
#include "profile_check.h"
#include "reporter.h"
#include "report_opts.h"

static const struct rn_option golden_options[] = {
	{ RN_CO_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ RN_CO_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "update only this target (repeatable)" },
	{ RN_CO_RUNS, "runs", 0, RN_OPT_REQUIRED, "N", "override every target's timing runs" },
	{ RN_RO_HISTORY, "history", 0, RN_OPT_NONE, NULL,
	  "record the runs in the history store even without [history]" },
	{ RN_RO_NO_COLOR, "no-color", 0, RN_OPT_NONE, NULL, "no colors (also NO_COLOR=1)" },
	{ RN_CO_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no progress lines" },
	{ RN_CO_SHARD, "shard", 0, RN_OPT_REQUIRED, "K/N",
	  "update only the golden traces of shard K of N (as check --shard)" },
	{ RN_CO_SHARD_BALANCE, "shard-balance", 0, RN_OPT_REQUIRED, "HOW",
	  "name or golden, as check --shard-balance" },
	{ RN_CO_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_golden_def = {
	"golden",
	"renacer golden update [--config FILE] [--target NAME]",
	"run the targets and write golden_traces/<target>.json (atomically)",
	"Golden traces record provenance (renacer version, date, kernel, CPU model, build-id),\n"
	"per-run samples of every metric and per-syscall statistics; for a target with an\n"
	"equivalence assertion, also the behaviour trace it compares with (its `golden` file or\n"
	"[semantic_equivalence] baseline_dir/<target>.jsonl). Review the change with\n"
	"share/renacer/regenerate-golden.sh (installed with renacer), which prints what moved,\n"
	"and commit the files.",
	golden_options,
};

/*
 * The budgets of renacer.toml that the runs just recorded no longer hold: a budget is a number
 * kept by hand in the config (`renacer init` wrote it from the first golden trace), so a new
 * golden trace does not move it. Each budget assertion of target `tc` is judged on `r` and
 * one note per budget it would not pass names its config line, what it measured and how to
 * update it. Returns the number of notes.
 */
static size_t budget_notes(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			   struct rn_target_result *r)
{
	size_t k, n = 0;

	for (k = 0; k < cfg->nassertions; k++) {
		const struct rn_assertion_spec *a = &cfg->assertions[k];
		struct rn_verdict_result v;

		if (!a->enabled || !rn_assertion_applies(a, tc->name) ||
		    (a->type != RN_ASSERT_CRITICAL_PATH && a->type != RN_ASSERT_SPAN_COUNT &&
		     a->type != RN_ASSERT_MEMORY_USAGE))
			continue;
		rn_assertion_evaluate(a, r, &v);
		if (v.verdict == RN_VERDICT_FAIL ||
		    (v.verdict == RN_VERDICT_WARN && v.has_observed && v.has_budget &&
		     v.observed > v.budget)) {
			rn_warn("%s:%d: budget '%s' does not hold for the runs just recorded: %s; "
				"budgets are kept by hand in the config: raise it if the change "
				"is intended",
				cfg->path ? cfg->path : "renacer.toml", a->line, a->name,
				v.message ? v.message : "over its budget");
			n++;
		}
		rn_verdict_result_release(&v);
	}
	return n;
}

/*
 * Run target `tc` (the index-th of count) and write its golden trace through the golden-files
 * reporter (out, oc), then its profile and behaviour traces. `rc` is the exit code so far;
 * returns it, or the first failure's when it was 0 (a failed target's is RN_EXIT_TARGET,
 * whatever came before), or -ECANCELED when a signal interrupted the runs.
 */
static int update_target(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			 const struct rn_check_opts *o, size_t index, size_t count,
			 const struct rn_report_outputs *out, struct rn_outcome *oc, int rc)
{
	const char *const *cmd = (const char *const *)tc->argv;
	struct rn_target_result r;
	int prc, erc;

	rn_target_result_init(&r, tc->name);
	if (rn_check_run_target(cfg, tc, o, index, count, NULL, true, NULL, &r) == -ECANCELED) {
		rn_target_result_release(&r);
		return -ECANCELED;
	}
	if (r.status != RN_RUN_OK || !r.nruns) {
		rn_error("target '%s': %s; golden trace not written", tc->name,
			 r.error ? r.error : "no measured run");
		rn_target_result_release(&r);
		return RN_EXIT_TARGET;
	}
	/* the golden-files reporter, for this one target */
	oc->targets = &r;
	oc->argv = &cmd;
	if (rn_golden_reporter.write(out, oc))
		rc = RN_EXIT_OUTPUT;
	budget_notes(cfg, tc, &r);
	rn_target_result_release(&r);
	oc->targets = NULL;
	oc->argv = NULL;
	/* the golden side's profile ([profile]) */
	prc = rn_profile_check_record_golden(cfg, tc, o->quiet);
	if (prc && !rc)
		rc = prc;
	/* the behaviour traces its equivalence assertions compare with */
	erc = rn_golden_record_behaviour(cfg, tc, o->quiet);
	if (erc && !rc)
		rc = erc;
	return rc;
}

int rn_cmd_golden(int argc, char **argv)
{
	struct rn_check_opts o;
	struct rn_config cfg;
	struct rn_report_outputs out;
	struct rn_outcome oc;
	size_t i, idx = 0, nsel = 0;
	bool made_dir = false;
	int first, rc;

	rn_check_opts_init(&o);
	if (argc < 2 || strcmp(argv[1], "update")) {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			rn_cli_help(&rn_cmd_golden_def, stdout);
			return RN_EXIT_OK;
		}
		rn_error("usage: %s", rn_cmd_golden_def.usage);
		return RN_EXIT_USAGE;
	}
	if (rn_cli_parse(&rn_cmd_golden_def, argc - 1, argv + 1, rn_check_on_option, &o, &first))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_golden_def, stdout);
		rn_check_opts_release(&o);
		return RN_EXIT_OK;
	}
	/* the first SIGINT/SIGTERM ends the update with its exit code, wherever it lands */
	rn_run_catch_signals();
	rc = rn_check_load_config(&cfg, o.config, o.rep.color, false, false);
	if (rc) {
		rn_check_opts_release(&o);
		return rn_run_interrupted() ? rn_exit_for_signal(rn_run_interrupted()) : rc;
	}
	rc = rn_check_select(&o, &cfg);
	if (rc)
		goto out;
	if (!mkdir(cfg.golden_dir, 0755)) {
		made_dir = true;
	} else if (errno != EEXIST) {
		rn_error("cannot create golden trace directory '%s': %s", cfg.golden_dir,
			 strerror(errno));
		rc = RN_EXIT_OUTPUT;
		goto out;
	}
	for (i = 0; i < cfg.ntargets; i++)
		nsel += rn_check_selected(&o, cfg.targets[i].name);
	o.min_runs = cfg.golden_runs;
	memset(&out, 0, sizeof(out));
	out.golden_dir = cfg.golden_dir;
	out.history = o.rep.history;
	out.color = o.rep.color;
	out.quiet = o.quiet;
	memset(&oc, 0, sizeof(oc));
	oc.cfg = &cfg;
	oc.config_path = cfg.path;
	oc.ntargets = 1;
	for (i = 0; i < cfg.ntargets; i++) {
		if (!rn_check_selected(&o, cfg.targets[i].name))
			continue;
		rc = update_target(&cfg, &cfg.targets[i], &o, idx++, nsel, &out, &oc, rc);
		if (rc < 0) {
			rc = rn_exit_for_signal(rn_run_interrupted());
			goto out;
		}
	}
out:
	/* Each file is written through a temporary and renamed (safefile.h), so an update that
	 * fails or is interrupted leaves the previous golden traces as they were; a directory
	 * it created and left empty goes too (rmdir removes only an empty one). */
	if (made_dir && (rc || rn_run_interrupted()) && rmdir(cfg.golden_dir) &&
	    errno != ENOTEMPTY && errno != EEXIST)
		rn_warn("cannot remove empty golden trace directory '%s': %s", cfg.golden_dir,
			strerror(errno));
	rn_config_release(&cfg);
	rn_check_opts_release(&o);
	if (rn_run_interrupted())
		rc = rn_exit_for_signal(rn_run_interrupted());
	return rc;
}
