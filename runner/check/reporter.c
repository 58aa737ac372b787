/*
 * reporter.c - the reporter table shared by `renacer check` and `renacer merge`.
 */
#include "reporter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline.h"
#include "bench_json.h"
#include "buf.h"
#include "conditions.h"
#include "config.h"
#include "console.h"
#include "diag.h"
#include "golden.h"
#include "exitcode.h"
#include "github.h"
#include "history.h"
#include "internal.h"
#include "junit.h"
#include "log.h"
#include "otlp.h"
#include "perfetto.h"
#include "results.h"
#include "xalloc.h"

void rn_report_mask_bench_dir(char *word)
{
	static const char mark[] = "/renacer-bench-";
	char *p = word;

	while ((p = strstr(p, mark))) {
		p += sizeof(mark) - 1;
		for (int k = 0; k < 6 && *p && *p != '/'; k++)
			*p++ = 'X';
	}
}

char **rn_report_golden_argv(const struct rn_config *cfg, char *const *argv)
{
	size_t n = 0, i, dl = strlen(cfg->dir);
	char **rel, **out;

	while (argv[n])
		n++;
	rel = rn_xcalloc(n + 1, sizeof(*rel));
	for (i = 0; i < n; i++) {
		if (!strncmp(argv[i], cfg->dir, dl) && argv[i][dl] == '/')
			rel[i] = rn_xstrdup(argv[i] + dl + 1);
		else
			rel[i] = rn_xstrdup(argv[i]);
		rn_report_mask_bench_dir(rel[i]);
	}
	out = rn_redact_argv((const char *const *)rel, (const char *const *)cfg->redact);
	rn_otlp_argv_free(rel);
	return out;
}

/* One target's golden trace and its history entry. Returns 0 or RN_EXIT_OUTPUT. */
static int write_golden_of(const struct rn_report_outputs *out, const struct rn_outcome *oc,
			   size_t i)
{
	const struct rn_target_result *r = &oc->targets[i];
	struct rn_target_report tr = { .result = (struct rn_target_result *)r };
	char **rel = rn_report_golden_argv(oc->cfg, (char *const *)oc->argv[i]);
	struct rn_diag d;
	struct rn_buf b;
	char *path;
	int rc = 0;

	rn_golden_noise_report(r, &oc->cfg->regression);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s.json", out->golden_dir, r->name);
	path = rn_buf_detach(&b, NULL);
	rn_diag_init(&d, path, NULL, 0);
	if (rn_golden_write(path, r, (const char *const *)rel, &d)) {
		rn_diag_print(&d, out->color);
		rc = RN_EXIT_OUTPUT;
	} else {
		if (!out->quiet)
			fprintf(stderr, "wrote %s (%zu timing run%s, %zu counting run%s)\n", path,
				r->nruns, r->nruns == 1 ? "" : "s", r->ncounts,
				r->ncounts == 1 ? "" : "s");
		rn_history_record(oc->cfg, out->history, "golden", &tr, 1, 0, out->quiet, NULL);
	}
	rn_otlp_argv_free(rel);
	free(path);
	return rc;
}

static int write_golden(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	size_t i;
	int rc = 0;

	if (!out->golden_dir || !oc->cfg)
		return 0;
	for (i = 0; i < oc->ntargets; i++)
		if (write_golden_of(out, oc, i))
			rc = RN_EXIT_OUTPUT;
	return rc;
}

static int write_junit(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (!out->junit)
		return 0;
	return rn_junit_write(out->junit, oc) ? RN_EXIT_OUTPUT : 0;
}

static int write_timeline(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	size_t i;

	if (!out->trace_out)
		return 0;
	if (rn_perfetto_write(out->trace_out, oc))
		return RN_EXIT_OUTPUT;
	for (i = 0; !out->quiet && i < oc->ntargets; i++)
		if (oc->targets[i].nruns > 1) {
			rn_note("%s holds the last of the %zu measured runs of each target "
				"(spans of earlier runs are not kept)",
				out->trace_out, oc->targets[i].nruns);
			break;
		}
	return 0;
}

static int write_otlp_file(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (!out->otlp_file || !out->otlp)
		return 0;
	return rn_otlp_write_file(out->otlp_file, out->otlp, out->otlp_ctx, oc) ? RN_EXIT_OUTPUT :
										  0;
}

/* A failed export blocks only when [otlp] required = true. */
static int write_otlp_export(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (!out->otlp || !out->otlp->enabled)
		return 0;
	if (rn_otlp_export(out->otlp, out->otlp_ctx, oc) && out->otlp->required)
		return RN_EXIT_FAIL;
	return 0;
}

static int write_bench_json(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (!out->bench_json)
		return 0;
	return rn_report_bench_json(out->bench_json, oc) ? RN_EXIT_OUTPUT : 0;
}

static int write_results(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (!out->results)
		return 0;
	return rn_results_write(out->results, oc) ? RN_EXIT_OUTPUT : 0;
}

static int write_github(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (out->github)
		rn_github_write(oc, out->junit);
	return 0;
}

/* Advisory: a history write failure is a warning, never the verdict. It runs last, after the
 * console table, so a store that is slow or does not answer never holds back the verdict
 * (a PostgreSQL store is also bounded in time: history_pg.c). The store comes from the
 * config, so an outcome without one records nothing. A shard of a suite (--shard K/N) records
 * nothing either: `renacer merge` of the shards' results records the suite once. */
static int write_history(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (oc->shard.count > 0 && !strcmp(out->history_source, "check")) {
		struct rn_history_cfg hc;

		if (!oc->cfg)
			return 0;
		rn_history_cfg_resolve(&hc, oc->cfg, NULL, out->history);
		if (hc.enabled && !out->quiet)
			rn_note("history: shard %u/%u records nothing; `renacer merge` of the "
				"shards' results records the suite once",
				oc->shard.index, oc->shard.count);
		rn_history_cfg_release(&hc);
		return 0;
	}
	if (oc->cfg && out->history_source)
		rn_history_record(oc->cfg, out->history, out->history_source, oc->reports,
				  oc->ntargets, oc->exit_code, out->quiet, out->rerun_of);
	return 0;
}

static int write_baseline_table(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	if (oc->bases)
		rn_baseline_report_console(out->color, oc);
	return 0;
}

static int write_console(const struct rn_report_outputs *out, const struct rn_outcome *oc)
{
	rn_report_console(out->color, out->wide, out->verbose, oc);
	return 0;
}

const struct rn_reporter_ops rn_golden_reporter = { "golden", write_golden };
static const struct rn_reporter_ops junit_reporter = { "junit", write_junit };
static const struct rn_reporter_ops timeline_reporter = { "timeline", write_timeline };
static const struct rn_reporter_ops otlp_file_reporter = { "otlp-file", write_otlp_file };
static const struct rn_reporter_ops otlp_export_reporter = { "otlp-export", write_otlp_export };
static const struct rn_reporter_ops bench_reporter = { "bench-json", write_bench_json };
static const struct rn_reporter_ops results_reporter = { "results", write_results };
static const struct rn_reporter_ops github_reporter = { "github", write_github };
static const struct rn_reporter_ops history_reporter = { "history", write_history };
static const struct rn_reporter_ops baseline_reporter = { "baseline", write_baseline_table };
static const struct rn_reporter_ops console_reporter = { "console", write_console };

const struct rn_reporter_ops *const rn_reporters[] = {
	&rn_golden_reporter,   &junit_reporter,   &timeline_reporter, &otlp_file_reporter,
	&otlp_export_reporter, &bench_reporter,   &results_reporter,  &github_reporter,
	&baseline_reporter,    &console_reporter, &history_reporter,  NULL,
};

int rn_report_all(const struct rn_report_outputs *out, struct rn_outcome *oc)
{
	size_t i;

	for (i = 0; rn_reporters[i]; i++) {
		int rc = rn_reporters[i]->write(out, oc);

		if (rc && !oc->exit_code)
			oc->exit_code = rc;
	}
	return oc->exit_code;
}
