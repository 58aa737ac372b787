/*
 * page_model.c - the model of the report page (`renacer report --html`) read from the store:
 * the JSON runner/report/report_html.c draws (history.h, rn_history_page_model).
 */
#include "history.h"
#include "internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assertion.h"
#include "config.h"
#include "golden.h"
#include "json_text.h"
#include "ledger.h"
#include "log.h"

static const char *str_of_json(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

struct last_run {
	json_t *run;
	char id[24];
	char machine[256];
};

static int last_run_row(void *ctx, size_t ncols, const char *const *v)
{
	struct last_run *lr = ctx;
	char when[32];

	if (ncols < 8)
		return 0;
	rn_history_fmt_time(when, sizeof(when), v[1]);
	/* Stored text as JSON strings through rn_json_text: a store written before names were
	 * repaired may hold invalid UTF-8, which json_pack's "s" refuses (the run was lost). */
	lr->run = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:I, s:o}", "id",
			    (json_int_t)strtoll(v[0], NULL, 10), "time", when, "commit",
			    rn_json_text(v[2]), "branch", rn_json_text(v[3]), "machine",
			    rn_json_text(v[4]), "machine_desc", rn_json_text(v[5]), "exit_code",
			    (json_int_t)strtoll(v[6] ? v[6] : "0", NULL, 10), "config",
			    rn_json_text(v[7]));
	snprintf(lr->id, sizeof(lr->id), "%s", v[0]);
	snprintf(lr->machine, sizeof(lr->machine), "%s", v[4] ? v[4] : "");
	return 1;
}

static json_t *num_or_null(const char *s)
{
	return s ? json_real(strtod(s, NULL)) : json_null();
}

static int verdict_row(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols < 9)
		return 0;
	json_array_append_new(ctx,
			      json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "target",
					rn_json_text(v[0]), "assertion", rn_json_text(v[1]), "type",
					rn_json_text(v[2]), "verdict", rn_json_text(v[3]),
					"observed", num_or_null(v[4]), "budget", num_or_null(v[5]),
					"golden", num_or_null(v[6]), "unit", rn_json_text(v[7]),
					"message", rn_json_text(v[8])));
	return 0;
}

static int cp_row(void *ctx, size_t ncols, const char *const *v)
{
	json_t *list = ctx, *last;
	size_t n = json_array_size(list);

	if (ncols < 5)
		return 0;
	last = n ? json_array_get(list, n - 1) : NULL;
	if (!last || strcmp(str_of_json(last, "target"), v[0] ? v[0] : "")) {
		last = json_pack("{s:o, s:[]}", "target", rn_json_text(v[0]), "segments");
		json_array_append_new(list, last);
	}
	json_array_append_new(json_object_get(last, "segments"),
			      json_pack("{s:o, s:I, s:f, s:f}", "process",
					rn_json_text(v[1] ? v[1] : "?"), "pid",
					(json_int_t)strtoll(v[2] ? v[2] : "0", NULL, 10),
					"start_ms", strtod(v[3] ? v[3] : "0", NULL) / 1e6, "end_ms",
					strtod(v[4] ? v[4] : "0", NULL) / 1e6));
	return 0;
}

static void add_change(void *ctx, const struct rn_history_change *c)
{
	json_t *j = rn_history_change_json(c);

	/* The page draws in the unit shown. */
	json_object_set_new(j, "before", json_real(rn_history_shown(c->before, c->unit)));
	json_object_set_new(j, "after", json_real(rn_history_shown(c->after, c->unit)));
	json_array_append_new(ctx, j);
}

/* The golden trace's range of `metric` for `target`, in the unit shown; NULL when none. */
static json_t *golden_band(const struct rn_config *cfg, const char *target, const char *metric)
{
	char *path;
	struct rn_golden g;
	struct rn_diag d;
	json_t *band = NULL;
	int m = rn_metric_lookup(metric);

	if (!cfg || m < 0)
		return NULL;
	path = rn_golden_path(cfg->golden_dir, target);
	if (!path || access(path, F_OK) || rn_golden_read(path, &g, &d)) {
		free(path);
		return NULL;
	}
	if (g.samples[m] && g.nsamples[m]) {
		const char *unit = rn_metric_info((enum rn_metric)m)->unit;
		double lo = g.samples[m][0], hi = lo;
		size_t i;

		for (i = 1; i < g.nsamples[m]; i++) {
			lo = fmin(lo, g.samples[m][i]);
			hi = fmax(hi, g.samples[m][i]);
		}
		band = json_pack("{s:f, s:f, s:f}", "lo", rn_history_shown(lo, unit), "hi",
				 rn_history_shown(hi, unit), "median",
				 rn_history_shown(rn_aggregate(g.samples[m], g.nsamples[m],
							       RN_AGG_MEDIAN),
						  unit));
	}
	rn_golden_release(&g);
	free(path);
	return band;
}

/* The runs of the page: the last N of the store, every machine and branch. */
struct page {
	json_t *runs;     /* [{id, time, commit, subject, date, branch, machine, exit_code}] */
	json_t *charts;   /* [{target, metric, unit, points: [[run, median, min, max]], ...}] */
	json_t *verdicts; /* {run: [{target, assertion, type, verdict, observed, budget, ...}]} */
	json_t *cps;      /* {run: [{target, segments: [{process, pid, start_ms, end_ms}]}]} */
	json_t *syscalls; /* {run: {target: {syscall: calls}}} */
	char min_id[24];  /* the oldest run of the page */
};

static int page_run_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;
	char when[32], date[32] = "";

	if (ncols < 8)
		return 0;
	rn_history_fmt_time(when, sizeof(when), v[1]);
	if (v[6])
		rn_history_fmt_time(date, sizeof(date), v[6]);
	json_array_insert_new(pg->runs, 0,
			      json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:s, s:I}", "id",
					(json_int_t)strtoll(v[0], NULL, 10), "time", when, "commit",
					rn_json_text(v[2]), "branch", rn_json_text(v[3]), "machine",
					rn_json_text(v[4]), "subject", rn_json_text(v[5]), "date",
					date, "exit_code",
					(json_int_t)strtoll(v[7] ? v[7] : "0", NULL, 10)));
	snprintf(pg->min_id, sizeof(pg->min_id), "%s", v[0]);
	return 0;
}

static int page_result_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;
	size_t n = json_array_size(pg->charts);
	json_t *last = n ? json_array_get(pg->charts, n - 1) : NULL;
	const char *unit = v[3] ? v[3] : "";

	if (ncols < 7)
		return 0;
	if (!last || strcmp(str_of_json(last, "target"), v[1] ? v[1] : "") ||
	    strcmp(str_of_json(last, "metric"), v[2] ? v[2] : "")) {
		last = json_pack("{s:o, s:o, s:s, s:s, s:[]}", "target", rn_json_text(v[1]),
				 "metric", rn_json_text(v[2]), "unit", rn_history_shown_unit(unit),
				 "stored_unit", unit, "points");
		json_array_append_new(pg->charts, last);
	}
	json_array_append_new(json_object_get(last, "points"),
			      json_pack("[I, f, f, f]", (json_int_t)strtoll(v[0], NULL, 10),
					rn_history_shown(strtod(v[4] ? v[4] : "0", NULL), unit),
					rn_history_shown(strtod(v[5] ? v[5] : "0", NULL), unit),
					rn_history_shown(strtod(v[6] ? v[6] : "0", NULL), unit)));
	return 0;
}

/* The array of key `run` in the object `map` (created empty). */
static json_t *per_run(json_t *map, const char *run, bool object)
{
	json_t *a = json_object_get(map, run);

	if (!a) {
		a = object ? json_object() : json_array();
		json_object_set_new(map, run, a);
	}
	return a;
}

static int page_verdict_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;

	if (ncols < 10 || !v[0])
		return 0;
	return verdict_row(per_run(pg->verdicts, v[0], false), ncols - 1, v + 1);
}

static int page_cp_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;

	if (ncols < 6 || !v[0])
		return 0;
	return cp_row(per_run(pg->cps, v[0], false), ncols - 1, v + 1);
}

static int page_syscall_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;
	json_t *t;

	if (ncols < 4 || !v[0] || !v[1] || !v[2])
		return 0;
	t = per_run(per_run(pg->syscalls, v[0], true), v[1], true);
	json_object_set_new(t, v[2], json_real(strtod(v[3] ? v[3] : "0", NULL)));
	return 0;
}

json_t *rn_history_page_model(struct rn_history *h, const struct rn_config *cfg,
			      const char *machine, long limit, int *rc)
{
	struct last_run lr;
	struct page pg;
	struct rn_ledger_set led;
	json_t *model, *verdicts, *cps, *quality, *c;
	const char *params[1];
	char sql[512];
	size_t i;

	memset(&lr, 0, sizeof(lr));
	/* The last check (a walk back along the primary key), else the last run of any kind. */
	*rc = rn_history_query(h,
			       "SELECT id, created_ns, commit_sha, branch, machine, machine_desc, "
			       "exit_code, config FROM runs WHERE source = 'check' ORDER BY id DESC "
			       "LIMIT 1",
			       NULL, 0, last_run_row, &lr);
	if (*rc >= 0 && !lr.run)
		*rc = rn_history_query(h,
				       "SELECT id, created_ns, commit_sha, branch, machine, "
				       "machine_desc, exit_code, config FROM runs ORDER BY id DESC "
				       "LIMIT 1",
				       NULL, 0, last_run_row, &lr);
	if (*rc < 0)
		return NULL;
	*rc = 0;
	if (!lr.run) {
		rn_error("history '%s' has no recorded run: run 'renacer check --history' first",
			 h->location);
		*rc = -ENOENT;
		return NULL;
	}
	memset(&pg, 0, sizeof(pg));
	pg.runs = json_array();
	pg.charts = json_array();
	pg.verdicts = json_object();
	pg.cps = json_object();
	pg.syscalls = json_object();
	verdicts = json_array();
	cps = json_array();
	quality = json_array();
	params[0] = lr.id;
	*rc = rn_history_query(h,
			       "SELECT target, assertion, type, verdict, observed, budget, golden, "
			       "unit, message FROM verdicts WHERE run_id = ? ORDER BY id",
			       params, 1, verdict_row, verdicts);
	if (!*rc)
		*rc = rn_history_query(h,
				       "SELECT target, process, pid, start_ns, end_ns FROM "
				       "critical_path WHERE run_id = ? ORDER BY target, seq",
				       params, 1, cp_row, cps);
	/* The page's window: the last N runs of the store (the page's size is bounded by N,
	 * whatever the store holds). */
	snprintf(sql, sizeof(sql),
		 "SELECT id, created_ns, commit_sha, branch, machine, subject, author_ns, exit_code "
		 "FROM runs WHERE source <> 'golden' ORDER BY id DESC LIMIT %ld",
		 limit);
	if (!*rc)
		*rc = rn_history_query(h, sql, NULL, 0, page_run_row, &pg);
	params[0] = pg.min_id[0] ? pg.min_id : lr.id;
	if (!*rc)
		*rc = rn_history_query(
			h,
			"SELECT s.run_id, s.target, s.metric, s.unit, s.median, "
			"s.min_value, s.max_value FROM results s JOIN runs r ON r.id = "
			"s.run_id WHERE s.run_id >= ? AND r.source <> 'golden' ORDER BY "
			"s.target, s.metric, s.run_id",
			params, 1, page_result_row, &pg);
	if (!*rc)
		*rc = rn_history_query(
			h,
			"SELECT run_id, target, assertion, type, verdict, observed, "
			"budget, golden, unit, message FROM verdicts WHERE run_id >= ? "
			"ORDER BY run_id, id",
			params, 1, page_verdict_row, &pg);
	if (!*rc)
		*rc = rn_history_query(
			h,
			"SELECT run_id, target, process, pid, start_ns, end_ns FROM "
			"critical_path WHERE run_id >= ? ORDER BY run_id, target, seq",
			params, 1, page_cp_row, &pg);
	if (!*rc)
		*rc = rn_history_query(h,
				       "SELECT run_id, target, syscall, calls FROM syscalls WHERE "
				       "run_id >= ? ORDER BY run_id, target, syscall",
				       params, 1, page_syscall_row, &pg);
	/* Change points and the golden band of each chart, on the last run's machine. */
	json_array_foreach(pg.charts, i, c)
	{
		json_t *changes = json_array(), *band;
		const char *target = str_of_json(c, "target"), *metric = str_of_json(c, "metric");

		if (!*rc)
			*rc = rn_history_changes_of(h, target, metric,
						    machine ? machine : lr.machine, NULL, limit,
						    NULL, add_change, changes);
		band = golden_band(cfg, target, metric);
		json_object_set_new(c, "changes", changes);
		json_object_set_new(c, "band", band ? band : json_null());
	}
	if (!*rc) {
		/* Over the runs of the page: its time stays bounded by --last. */
		*rc = rn_ledger_read(h, NULL, NULL, pg.min_id[0] ? pg.min_id : NULL, &led);
		for (i = 0; !*rc && i < led.n; i++)
			json_array_append_new(quality, rn_ledger_json(&led.l[i]));
		rn_ledger_release(&led);
	}
	model = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "run", lr.run,
			  "verdicts", verdicts, "critical_path", cps, "runs", pg.runs, "charts",
			  pg.charts, "run_verdicts", pg.verdicts, "run_critical_paths", pg.cps,
			  "run_syscalls", pg.syscalls, "quality", quality, "machine",
			  rn_json_text(machine ? machine : lr.machine));
	if (*rc) {
		rn_error("history '%s': %s", h->location, h->err);
		json_decref(model);
		return NULL;
	}
	return model;
}
