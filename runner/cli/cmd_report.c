/*
 * cmd_report.c - `renacer report`: --html writes the report page from the history store
 * (its model: rn_history_page_model; its drawing: runner/report/report_html.c); --markdown
 * writes the job summary's Markdown from results files.
 */
#include "cmd_report.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_history.h"
#include "config.h"
#include "exitcode.h"
#include "github.h"
#include "history.h"
#include "log.h"
#include "cmd_merge.h"
#include "profile_check.h"
#include "report_html.h"
#include "safefile.h"

/* Runs per trend chart when --limit is not given. */
#define RN_REPORT_TREND_RUNS 200

static const struct rn_option report_options[] = {
	{ RN_HO_HTML, "html", 0, RN_OPT_REQUIRED, "FILE",
	  "write the report page to FILE (atomically)" },
	{ RN_HO_MARKDOWN, "markdown", 0, RN_OPT_REQUIRED, "FILE",
	  "write the Markdown report of the RESULTS files (check --results, the shards) to FILE, for a pull-request comment" },
	{ RN_HO_DB, "db", 0, RN_OPT_REQUIRED, "URL", "history store (default as renacer history)" },
	{ RN_HO_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config: golden traces for the bands (default renacer.toml when present)" },
	{ RN_HO_LIMIT, "last", 'n', RN_OPT_REQUIRED, "N",
	  "runs per trend chart (default " RN_CFG_STR(RN_REPORT_TREND_RUNS) ", at most " RN_CFG_STR(
		  RN_REPORT_HTML_MAX_RUNS) ")" },
	{ RN_HO_MACHINE, "machine", 0, RN_OPT_REQUIRED, "M",
	  "trends of this machine (default: the last run's)" },
	{ RN_HO_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_report_def = {
	"report",
	"renacer report --html FILE [--db URL] [--config FILE] | --markdown FILE RESULTS...",
	"write one self-contained HTML page from the history: verdicts, trends, change points, critical path",
	"The page shows the verdict table of the last recorded check (failing rows first) with its\n"
	"explanation as the store kept it, what changed (verdicts that moved and change points,\n"
	"newest first, with the `renacer bisect` command of each change point), a trend chart per\n"
	"target and metric (the last N runs of that check's machine) with its change points, FAIL\n"
	"and WARN marks per run, environment changes and the golden trace's band (the range of\n"
	"its runs' samples, when renacer.toml's golden trace exists), and the critical-path\n"
	"timeline of the last run. It needs no network to view: styles, data and the drawing\n"
	"script are inline. Run `renacer check` with history enabled first.\n"
	"--markdown FILE RESULTS... writes the Markdown report of a check from its results files\n"
	"(`renacer check --results FILE`, or every shard's for a sharded suite, merged as `renacer\n"
	"merge` does): the text of the GitHub job summary, for a pull-request comment (`-` writes\n"
	"it to stdout). It exits with the check's exit code, so a script can tell pass from fail.",
	report_options,
};

/* report --markdown FILE RESULTS...: the merged results as the job summary's Markdown. The
 * check's exit code, or RN_EXIT_USAGE / RN_EXIT_CONFIG / RN_EXIT_OUTPUT. */
static int report_markdown(const struct rn_hist_opts *o)
{
	struct rn_merged m;
	char *md;
	size_t len = 0;
	int rc;

	if (!o->noperands) {
		rn_error("renacer report --markdown: no results file (renacer check --results FILE "
			 "writes one)");
		return RN_EXIT_USAGE;
	}
	rc = rn_merged_load(&m, o->operands, o->noperands);
	if (rc) {
		rn_merged_release(&m);
		return rc;
	}
	md = rn_github_markdown(&m.oc, &len);
	if (!md) {
		rn_merged_release(&m);
		rn_error("renacer report --markdown: out of memory");
		return RN_EXIT_INTERNAL;
	}
	if (!strcmp(o->markdown, "-")) {
		if (fwrite(md, 1, len, stdout) != len || fflush(stdout))
			rc = RN_EXIT_OUTPUT;
	} else {
		int err = rn_write_file_atomic(o->markdown, md, len);

		if (err) {
			rn_error("cannot write '%s': %s", o->markdown, strerror(-err));
			rc = RN_EXIT_OUTPUT;
		} else {
			fprintf(stderr, "wrote %s\n", o->markdown);
		}
	}
	if (!rc)
		rc = m.oc.exit_code;
	free(md);
	rn_merged_release(&m);
	return rc;
}

int rn_cmd_report(int argc, char **argv)
{
	struct rn_hist_opts o;
	struct rn_config cfg;
	struct rn_history h;
	bool have_cfg = false;
	int rc;

	memset(&o, 0, sizeof(o));
	if (rn_hist_parse(&rn_cmd_report_def, argc, argv, &o))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_report_def, stdout);
		return RN_EXIT_OK;
	}
	if (o.markdown && !o.html)
		return report_markdown(&o);
	if (!o.html || o.noperands) {
		rn_error("usage: %s", rn_cmd_report_def.usage);
		return RN_EXIT_USAGE;
	}
	if (o.limit > RN_REPORT_HTML_MAX_RUNS) {
		rn_error("renacer report: --last %ld is more than the page shows (at most %d runs "
			 "per chart)",
			 o.limit, RN_REPORT_HTML_MAX_RUNS);
		return RN_EXIT_USAGE;
	}
	rc = rn_hist_load_config(&o, &cfg, &have_cfg);
	if (rc)
		return rc;
	if (!o.limit)
		o.limit = RN_REPORT_TREND_RUNS;
	if (rn_hist_open_store(&o, have_cfg ? &cfg : NULL, false, &h, false)) {
		rc = RN_EXIT_OUTPUT;
	} else {
		json_t *model =
			rn_history_page_model(&h, have_cfg ? &cfg : NULL, o.machine, o.limit, &rc);

		if (model) /* the flame graphs of the explanations, as the page links them */
			rn_profile_check_page(model, o.html);
		if (model)
			rc = rn_report_html_write(o.html, model);
		json_decref(model);
		if (rc == -ENOENT)
			rc = RN_EXIT_USAGE;
		else if (rc)
			rc = RN_EXIT_OUTPUT;
		else
			fprintf(stderr, "wrote %s\n", o.html);
	}
	rn_history_close(&h);
	if (have_cfg)
		rn_config_release(&cfg);
	return rc;
}
