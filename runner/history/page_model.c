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
#include "buf.h"
#include "config.h"
#include "fingerprint.h"
#include "golden.h"
#include "json_text.h"
#include "ledger.h"
#include "log.h"
#include "textfit.h"
#include "units.h"
#include "xalloc.h"

static const char *str_of_json(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The last check: its run, verdicts, critical path and explanations. */
struct last_run {
	json_t *run;      /* {id, time, commit, branch, machine, machine_desc, exit_code, config} */
	json_t *verdicts; /* [{target, assertion, type, verdict, observed, ..., message, short}] */
	json_t *cps;      /* [{target, segments: [...]}] */
	json_t *explain;  /* {RUN: [{target, assertion, text, svg}]} of this run only */
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

/* The first clause of a verdict's message (up to ';', a newline or ". ") in at most
 * RN_HISTORY_PAGE_SHORT columns: what the page's tables and marks show. */
static json_t *short_message(const char *msg)
{
	struct rn_buf clause, b;
	const char *dot;
	size_t n;
	json_t *j;

	if (!msg)
		return json_string("");
	n = strcspn(msg, ";\n");
	dot = strstr(msg, ". ");
	if (dot && (size_t)(dot - msg) < n)
		n = (size_t)(dot - msg);
	rn_buf_init(&clause, 0);
	rn_buf_add(&clause, msg, n);
	rn_buf_init(&b, 0);
	rn_text_shorten(&b, clause.buf, RN_HISTORY_PAGE_SHORT);
	j = rn_json_text(b.buf);
	rn_buf_release(&clause);
	rn_buf_release(&b);
	return j;
}

static int verdict_row(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols < 9)
		return 0;
	json_array_append_new(ctx,
			      json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
					"target", rn_json_text(v[0]), "assertion",
					rn_json_text(v[1]), "type", rn_json_text(v[2]), "verdict",
					rn_json_text(v[3]), "observed", num_or_null(v[4]), "budget",
					num_or_null(v[5]), "golden", num_or_null(v[6]), "unit",
					rn_json_text(v[7]), "message", rn_json_text(v[8]), "short",
					short_message(v[8])));
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
	json_t *runs;     /* [{id, time, commit, subject, date, branch, machine, exit_code,
			   * env_change}] oldest first */
	json_t *by_id;    /* {RUN: the run of runs} (borrowed entries) */
	json_t *charts;   /* [{target, metric, unit, points: [[run, median, min, max]], ...}] */
	json_t *verdicts; /* {run: [{target, assertion, type, verdict, observed, budget, ...}]} */
	json_t *cps;      /* {run: [{target, segments: [{process, pid, start_ms, end_ms}]}]} */
	json_t *syscalls; /* {run: {target: {syscall: calls}}} */
	json_t *explain;  /* {run: [{target, assertion, text, svg}]} */
	json_t *quality;  /* the ledger over the page's runs */
	json_t *changed;  /* what changed, newest first */
	const char *machine; /* the machine of the change points */
	char min_id[24];     /* the oldest run of the page */
};

static int page_run_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;
	char when[32], date[32] = "";
	json_t *r;

	if (ncols < 9)
		return 0;
	rn_history_fmt_time(when, sizeof(when), v[1]);
	if (v[6])
		rn_history_fmt_time(date, sizeof(date), v[6]);
	r = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:s, s:I, s:o}", "id",
		      (json_int_t)strtoll(v[0], NULL, 10), "time", when, "commit",
		      rn_json_text(v[2]), "branch", rn_json_text(v[3]), "machine",
		      rn_json_text(v[4]), "subject", rn_json_text(v[5]), "date", date, "exit_code",
		      (json_int_t)strtoll(v[7] ? v[7] : "0", NULL, 10), "fingerprint",
		      v[8] ? rn_json_text(v[8]) : json_null());
	json_array_insert_new(pg->runs, 0, r);
	json_object_set(pg->by_id, v[0], r);
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

/* ---- environment changes -------------------------------------------------------------- */

/* A fingerprint from the store's text ("name=value; ...", util/fingerprint.h). */
static void parse_fingerprint(struct rn_fingerprint *fp, const char *text)
{
	memset(fp, 0, sizeof(*fp));
	while (text && *text) {
		size_t len = strcspn(text, ";");
		const char *eq = memchr(text, '=', len);

		if (eq) {
			char name[32], value[RN_FINGERPRINT_FIELD_MAX];
			int f;

			snprintf(name, sizeof(name), "%.*s", (int)(eq - text), text);
			snprintf(value, sizeof(value), "%.*s", (int)(len - (size_t)(eq + 1 - text)),
				 eq + 1);
			f = rn_fingerprint_field_lookup(name);
			if (f >= 0)
				rn_fingerprint_set(fp, (enum rn_fingerprint_field)f, value);
		}
		text += len;
		text += strspn(text, "; ");
	}
}

/* Each run whose fingerprint differs from the one of the run before it on its machine gets
 * env_change: the fields that differ ("kernel '6.1.0', now '6.8.0'"). The fingerprints
 * themselves leave the model. */
static void env_changes(struct page *pg)
{
	json_t *last = json_object(), *r;
	struct rn_fingerprint *a = rn_xmalloc(sizeof(*a)), *b = rn_xmalloc(sizeof(*b));
	size_t i;

	json_array_foreach(pg->runs, i, r)
	{
		const char *fp = json_string_value(json_object_get(r, "fingerprint"));
		const json_t *prev = json_object_get(last, str_of_json(r, "machine"));
		unsigned mask;

		if (!fp)
			continue;
		if (prev) {
			parse_fingerprint(a, str_of_json(prev, "fingerprint"));
			parse_fingerprint(b, fp);
			mask = rn_fingerprint_diff(a, b);
			if (mask) {
				struct rn_buf d;

				rn_buf_init(&d, 0);
				rn_fingerprint_describe_diff(&d, a, b, mask, "now");
				json_object_set_new(r, "env_change", rn_json_text(d.buf));
				rn_buf_release(&d);
			}
		}
		json_object_set(last, str_of_json(r, "machine"), r);
	}
	json_array_foreach(pg->runs, i, r) json_object_del(r, "fingerprint");
	json_decref(last);
	free(a);
	free(b);
}

/* ---- marks and change points of a chart ----------------------------------------------- */

/* The metric a verdict judges: "golden:wall_time" and "baseline:cpu_time" name it; a
 * critical_path, memory_usage or instructions assertion judges that metric; NULL when it is
 * not known (its marks go on every chart of the target). */
static const char *verdict_metric(const json_t *v)
{
	const char *a = str_of_json(v, "assertion"), *type = str_of_json(v, "type");
	const char *colon = strchr(a, ':');

	if (colon && rn_metric_lookup(colon + 1) >= 0)
		return colon + 1;
	if (!strcmp(type, "critical_path") || !strcmp(type, "instructions"))
		return type;
	if (!strcmp(type, "memory_usage"))
		return "peak_rss";
	return NULL;
}

/* Whether a verdict is marked on the trends: FAIL (ERROR, NO DATA) red, WARN amber. */
static bool marked(const char *verdict)
{
	return !strcmp(verdict, "FAIL") || !strcmp(verdict, "WARN") || !strcmp(verdict, "ERROR") ||
		!strcmp(verdict, "NO DATA");
}

/* Whether the page has a chart of target/metric. */
static bool has_chart(const struct page *pg, const char *target, const char *metric)
{
	const json_t *c;
	size_t i;

	json_array_foreach(pg->charts, i, c)
	{
		if (!strcmp(str_of_json(c, "target"), target) &&
		    !strcmp(str_of_json(c, "metric"), metric))
			return true;
	}
	return false;
}

/* marks: [{run, verdict, assertion, short}] of every point whose run had a verdict of the
 * chart's target FAIL or WARN: of its metric, or of a metric without a chart of its own. */
static void chart_marks(const struct page *pg, json_t *chart)
{
	const char *target = str_of_json(chart, "target"), *metric = str_of_json(chart, "metric");
	json_t *marks = json_array(), *p, *v;
	size_t i, k;

	json_array_foreach(json_object_get(chart, "points"), i, p)
	{
		json_int_t run = json_integer_value(json_array_get(p, 0));
		char id[24];

		snprintf(id, sizeof(id), "%lld", (long long)run);
		json_array_foreach(json_object_get(pg->verdicts, id), k, v)
		{
			const char *m = verdict_metric(v);

			if (strcmp(str_of_json(v, "target"), target) ||
			    !marked(str_of_json(v, "verdict")) ||
			    (m && strcmp(m, metric) && has_chart(pg, target, m)))
				continue;
			json_array_append_new(marks,
					      json_pack("{s:I, s:O, s:O, s:O}", "run", run,
							"verdict", json_object_get(v, "verdict"),
							"assertion",
							json_object_get(v, "assertion"), "short",
							json_object_get(v, "short")));
		}
	}
	json_object_set_new(chart, "marks", marks);
}

/* A change point's commits to bisect between and the environment change it meets:
 * good_commit (the last run of the series before the change on its machine), bad_commit (the
 * run where the change is certain), bisect (the command) and env_change when a run in the
 * change's range changed environment. */
static void change_extras(const struct page *pg, const json_t *chart, json_t *c)
{
	json_int_t first = json_integer_value(json_object_get(c, "first_run"));
	json_int_t last = json_integer_value(json_object_get(c, "last_run"));
	const char *machine = str_of_json(c, "machine"), *good = "", *bad;
	const json_t *p, *r;
	size_t i;

	json_array_foreach(json_object_get(chart, "points"), i, p)
	{
		json_int_t run = json_integer_value(json_array_get(p, 0));
		char id[24];

		snprintf(id, sizeof(id), "%lld", (long long)run);
		r = json_object_get(pg->by_id, id);
		if (run < first && r && !strcmp(str_of_json(r, "machine"), machine))
			good = str_of_json(r, "commit");
		if (run >= first && run <= last && r && json_object_get(r, "env_change") &&
		    !json_object_get(c, "env_change"))
			json_object_set(c, "env_change", json_object_get(r, "env_change"));
	}
	bad = str_of_json(c, "last_commit");
	json_object_set_new(c, "good_commit", rn_json_text(good));
	json_object_set_new(c, "bad_commit", rn_json_text(bad));
	if (*good && *bad && strcmp(good, bad)) {
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "renacer bisect %s %s --target %s", good, bad,
			    str_of_json(chart, "target"));
		json_object_set_new(c, "bisect", rn_json_text(b.buf));
		rn_buf_release(&b);
	}
}

/* Change points, golden band and verdict marks of each chart; change points of the page's
 * machine. */
static int chart_extras(struct rn_history *h, const struct rn_config *cfg, struct page *pg,
			long limit)
{
	json_t *c, *ch;
	size_t i, k;
	int rc = 0;

	json_array_foreach(pg->charts, i, c)
	{
		json_t *changes = json_array(), *band;
		const char *target = str_of_json(c, "target"), *metric = str_of_json(c, "metric");

		if (!rc)
			rc = rn_history_changes_of(h, target, metric, pg->machine, NULL, limit,
						   NULL, add_change, changes);
		json_array_foreach(changes, k, ch) change_extras(pg, c, ch);
		band = golden_band(cfg, target, metric);
		json_object_set_new(c, "changes", changes);
		json_object_set_new(c, "band", band ? band : json_null());
		chart_marks(pg, c);
	}
	return rc;
}

/* ---- what changed --------------------------------------------------------------------- */

/* `v` in human units (util/units.h); a count with the metric's words ("6 processes"). */
static void fmt_human(char *out, size_t cap, double v, const char *unit, const char *noun)
{
	if (!strcmp(unit, "count")) {
		char words[64];
		size_t i;

		snprintf(words, sizeof(words), "%s", noun);
		for (i = 0; words[i]; i++)
			if (words[i] == '_')
				words[i] = ' ';
		rn_fmt_count(out, cap, v, words);
	} else {
		rn_fmt_value(out, cap, v, unit);
	}
}

/* " BEFORE -> AFTER (+12.5%)" */
static void add_moved(struct rn_buf *b, double before, double after, const char *unit,
		      const char *noun)
{
	char x[RN_UNITS_MAX], y[RN_UNITS_MAX];

	fmt_human(x, sizeof(x), before, unit, noun);
	fmt_human(y, sizeof(y), after, unit, noun);
	rn_buf_addf(b, ": %s -> %s", x, y);
	if (before != 0)
		rn_buf_addf(b, " (%+.1f%%)", (after - before) / fabs(before) * 100);
	else if (after != 0)
		rn_buf_adds(b, " (new)");
}

/* "TARGET · NAME: " + what + " at COMMIT (run N)" */
static void add_where(struct rn_buf *b, const char *target, const char *name, const char *what,
		      const json_t *run)
{
	const char *commit = str_of_json(run, "commit");

	rn_buf_addf(b, "%s \xc2\xb7 %s: %s at ", target, name, what);
	if (*commit)
		rn_buf_addf(b, "%.8s", commit);
	else
		rn_buf_addf(b, "#%lld", (long long)json_integer_value(json_object_get(run, "id")));
	rn_buf_addf(b, " (run %lld)", (long long)json_integer_value(json_object_get(run, "id")));
}

/* An item of the list: {run, commit, kind, target, name, text} and `extra`'s members. */
static void add_item(json_t *out, const json_t *run, const char *kind, const char *target,
		     const char *name, const char *text, json_t *extra)
{
	json_t *it = json_pack("{s:O, s:O, s:s, s:o, s:o, s:o}", "run", json_object_get(run, "id"),
			       "commit", json_object_get(run, "commit"), "kind", kind, "target",
			       rn_json_text(target), "name", rn_json_text(name), "text",
			       rn_json_text(text));

	if (extra)
		json_object_update(it, extra);
	json_decref(extra);
	json_array_append_new(out, it);
}

/* Whether an assertion's verdict moved from `a` to `b`: PASS to FAIL or WARN, and back. */
static bool verdict_moved(const char *a, const char *b)
{
	return (!strcmp(a, "PASS") && marked(b)) || (marked(a) && !strcmp(b, "PASS"));
}

static void verdict_move(json_t *out, const json_t *run, const json_t *prev, const json_t *v)
{
	const char *from = str_of_json(prev, "verdict"), *to = str_of_json(v, "verdict");
	const json_t *x = json_object_get(prev, "observed"), *y = json_object_get(v, "observed");
	struct rn_buf b, what;

	rn_buf_init(&what, 0);
	rn_buf_addf(&what, "%s -> %s", from, to);
	rn_buf_init(&b, 0);
	add_where(&b, str_of_json(v, "target"), str_of_json(v, "assertion"), what.buf, run);
	if (json_is_number(x) && json_is_number(y))
		add_moved(&b, json_number_value(x), json_number_value(y), str_of_json(v, "unit"),
			  "");
	add_item(out, run, "verdict", str_of_json(v, "target"), str_of_json(v, "assertion"), b.buf,
		 json_pack("{s:s, s:s, s:O}", "from", from, "to", to, "short",
			   json_object_get(v, "short")));
	rn_buf_release(&b);
	rn_buf_release(&what);
}

/* Every PASS -> FAIL/WARN and back of an assertion between consecutive runs of the page's
 * machine. */
static void verdict_moves(const struct page *pg, json_t *out)
{
	json_t *last = json_object(), *r, *v;
	size_t i, k;

	json_array_foreach(pg->runs, i, r)
	{
		char id[24];

		if (strcmp(str_of_json(r, "machine"), pg->machine))
			continue;
		snprintf(id, sizeof(id), "%lld",
			 (long long)json_integer_value(json_object_get(r, "id")));
		json_array_foreach(json_object_get(pg->verdicts, id), k, v)
		{
			struct rn_buf key;
			const json_t *prev;

			rn_buf_init(&key, 0);
			rn_buf_addf(&key, "%s\x1f%s", str_of_json(v, "target"),
				    str_of_json(v, "assertion"));
			prev = json_object_get(last, key.buf);
			if (prev &&
			    verdict_moved(str_of_json(prev, "verdict"), str_of_json(v, "verdict")))
				verdict_move(out, r, prev, v);
			json_object_set(last, key.buf, v);
			rn_buf_release(&key);
		}
	}
	json_decref(last);
}

/* The change points of every chart as items. */
static void change_moves(const struct page *pg, json_t *out)
{
	const json_t *c, *ch;
	size_t i, k;

	json_array_foreach(pg->charts, i, c)
	{
		json_array_foreach(json_object_get(c, "changes"), k, ch)
		{
			char id[24];
			const json_t *run;
			struct rn_buf b;

			snprintf(id, sizeof(id), "%lld",
				 (long long)json_integer_value(json_object_get(ch, "run")));
			run = json_object_get(pg->by_id, id);
			if (!run)
				continue;
			rn_buf_init(&b, 0);
			add_where(&b, str_of_json(c, "target"), str_of_json(c, "metric"),
				  "change point", run);
			add_moved(&b, json_number_value(json_object_get(ch, "before")),
				  json_number_value(json_object_get(ch, "after")),
				  str_of_json(c, "unit"), str_of_json(c, "metric"));
			if (json_object_get(ch, "env_change"))
				rn_buf_addf(&b, "; at an environment change: %s",
					    str_of_json(ch, "env_change"));
			add_item(out, run, "change", str_of_json(c, "target"),
				 str_of_json(c, "metric"), b.buf,
				 json_pack("{s:O, s:O, s:O}", "rel_change",
					   json_object_get(ch, "rel_change"), "bisect",
					   json_object_get(ch, "bisect") ?
						   json_object_get(ch, "bisect") :
						   json_null(),
					   "env_change",
					   json_object_get(ch, "env_change") ?
						   json_object_get(ch, "env_change") :
						   json_null()));
			rn_buf_release(&b);
		}
	}
}

/* Newest first; items of one run in the order found. */
static int item_cmp(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t rx = json_integer_value(json_object_get(x, "run"));
	json_int_t ry = json_integer_value(json_object_get(y, "run"));
	json_int_t sx = json_integer_value(json_object_get(x, "seq"));
	json_int_t sy = json_integer_value(json_object_get(y, "seq"));

	return rx != ry ? (rx < ry ? 1 : -1) : (sx > sy) - (sx < sy);
}

/* What changed over the page's runs: verdict moves and change points, newest first. */
static json_t *what_changed(const struct page *pg)
{
	json_t *items = json_array(), *sorted = json_array(), *it, **v;
	size_t i, n;

	verdict_moves(pg, items);
	change_moves(pg, items);
	n = json_array_size(items);
	v = rn_xcalloc(n ? n : 1, sizeof(*v));
	json_array_foreach(items, i, it)
	{
		json_object_set_new(it, "seq", json_integer((json_int_t)i));
		v[i] = it;
	}
	qsort(v, n, sizeof(*v), item_cmp);
	for (i = 0; i < n; i++) {
		json_object_del(v[i], "seq");
		json_array_append(sorted, v[i]);
	}
	free(v);
	json_decref(items);
	return sorted;
}

/* ---- the reads ------------------------------------------------------------------------ */

/* The last check (a walk back along the primary key), else the last run of any kind:
 * -ENOENT (printed) when the store has none. */
static int read_last_run(struct rn_history *h, struct last_run *lr)
{
	int rc;

	rc = rn_history_query(h,
			      "SELECT id, created_ns, commit_sha, branch, machine, machine_desc, "
			      "exit_code, config FROM runs WHERE source = 'check' ORDER BY id DESC "
			      "LIMIT 1",
			      NULL, 0, last_run_row, lr);
	if (rc >= 0 && !lr->run)
		rc = rn_history_query(h,
				      "SELECT id, created_ns, commit_sha, branch, machine, "
				      "machine_desc, exit_code, config FROM runs ORDER BY id DESC "
				      "LIMIT 1",
				      NULL, 0, last_run_row, lr);
	if (rc < 0) {
		rn_error("history '%s': %s", h->location, h->err);
		return rc;
	}
	if (!lr->run) {
		rn_error("history '%s' has no recorded run: run 'renacer check --history' first",
			 h->location);
		return -ENOENT;
	}
	return 0;
}

/* The last check's verdicts, critical path and explanations. */
static int read_last_check(struct rn_history *h, struct last_run *lr)
{
	const char *params[1] = { lr->id };
	int rc;

	rc = rn_history_query(h,
			      "SELECT target, assertion, type, verdict, observed, budget, golden, "
			      "unit, message FROM verdicts WHERE run_id = ? ORDER BY id",
			      params, 1, verdict_row, lr->verdicts);
	if (!rc)
		rc = rn_history_query(h,
				      "SELECT target, process, pid, start_ns, end_ns FROM "
				      "critical_path WHERE run_id = ? ORDER BY target, seq",
				      params, 1, cp_row, lr->cps);
	if (!rc)
		rc = rn_history_query(h,
				      "SELECT run_id, target, assertion, text, svg_path, svg_hash "
				      "FROM explanations WHERE run_id = ? ORDER BY id",
				      params, 1, rn_history_explain_row, lr->explain);
	return rc;
}

/* The page's window: the last N runs of the store (the page's size is bounded by N, whatever
 * the store holds), with their results, verdicts, critical paths, syscalls and explanations. */
static int read_window(struct rn_history *h, struct page *pg, long limit, const char *last_id)
{
	static const struct {
		const char *sql;
		rn_history_row_fn fn;
	} reads[] = {
		{ "SELECT s.run_id, s.target, s.metric, s.unit, s.median, s.min_value, s.max_value "
		  "FROM results s JOIN runs r ON r.id = s.run_id WHERE s.run_id >= ? AND r.source "
		  "<> 'golden' ORDER BY s.target, s.metric, s.run_id",
		  page_result_row },
		{ "SELECT run_id, target, assertion, type, verdict, observed, budget, golden, unit, "
		  "message FROM verdicts WHERE run_id >= ? ORDER BY run_id, id",
		  page_verdict_row },
		{ "SELECT run_id, target, process, pid, start_ns, end_ns FROM critical_path WHERE "
		  "run_id >= ? ORDER BY run_id, target, seq",
		  page_cp_row },
		{ "SELECT run_id, target, syscall, calls FROM syscalls WHERE run_id >= ? ORDER BY "
		  "run_id, target, syscall",
		  page_syscall_row },
	};
	const char *params[1];
	char sql[512];
	size_t i;
	int rc;

	snprintf(sql, sizeof(sql),
		 "SELECT id, created_ns, commit_sha, branch, machine, subject, author_ns, exit_code, "
		 "fingerprint FROM runs WHERE source <> 'golden' ORDER BY id DESC LIMIT %ld",
		 limit);
	rc = rn_history_query(h, sql, NULL, 0, page_run_row, pg);
	params[0] = pg->min_id[0] ? pg->min_id : last_id;
	for (i = 0; !rc && i < sizeof(reads) / sizeof(reads[0]); i++)
		rc = rn_history_query(h, reads[i].sql, params, 1, reads[i].fn, pg);
	if (!rc)
		rc = rn_history_query(h,
				      "SELECT run_id, target, assertion, text, svg_path, svg_hash "
				      "FROM explanations WHERE run_id >= ? ORDER BY run_id, id",
				      params, 1, rn_history_explain_row, pg->explain);
	return rc;
}

/* The gate-quality ledger over the runs of the page: its time stays bounded by --last. */
static int read_quality(struct rn_history *h, struct page *pg)
{
	struct rn_ledger_set led;
	size_t i;
	int rc;

	rc = rn_ledger_read(h, NULL, NULL, pg->min_id[0] ? pg->min_id : NULL, &led);
	for (i = 0; !rc && i < led.n; i++)
		json_array_append_new(pg->quality, rn_ledger_json(&led.l[i]));
	rn_ledger_release(&led);
	return rc;
}

static void page_init(struct page *pg, struct last_run *lr, const char *machine)
{
	memset(pg, 0, sizeof(*pg));
	pg->runs = json_array();
	pg->by_id = json_object();
	pg->charts = json_array();
	pg->verdicts = json_object();
	pg->cps = json_object();
	pg->syscalls = json_object();
	pg->explain = json_object();
	pg->quality = json_array();
	pg->machine = machine ? machine : lr->machine;
	lr->verdicts = json_array();
	lr->cps = json_array();
	lr->explain = json_object();
}

json_t *rn_history_page_model(struct rn_history *h, const struct rn_config *cfg,
			      const char *machine, long limit, int *rc)
{
	struct last_run lr;
	struct page pg;
	json_t *model, *explain;

	memset(&lr, 0, sizeof(lr));
	*rc = read_last_run(h, &lr);
	if (*rc)
		return NULL;
	page_init(&pg, &lr, machine);
	*rc = read_last_check(h, &lr);
	if (!*rc)
		*rc = read_window(h, &pg, limit, lr.id);
	env_changes(&pg);
	if (!*rc)
		*rc = chart_extras(h, cfg, &pg, limit);
	if (!*rc)
		*rc = read_quality(h, &pg);
	pg.changed = what_changed(&pg);
	explain = json_object_get(lr.explain, lr.id);
	explain = explain ? json_incref(explain) : json_array();
	model = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			  "run", lr.run, "verdicts", lr.verdicts, "critical_path", lr.cps,
			  "explain", explain, "runs", pg.runs, "charts", pg.charts, "run_verdicts",
			  pg.verdicts, "run_critical_paths", pg.cps, "run_syscalls", pg.syscalls,
			  "run_explain", pg.explain, "quality", pg.quality, "changed", pg.changed,
			  "machine", rn_json_text(pg.machine));
	json_decref(lr.explain);
	json_decref(pg.by_id);
	if (*rc) {
		rn_error("history '%s': %s", h->location, h->err);
		json_decref(model);
		return NULL;
	}
	return model;
}
