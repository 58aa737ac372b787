/*
 * history_series.c - reading a recorded series: its points (typed or as rows), the series the
 * store holds, their change points, and the display helpers the history commands and the
 * report page share (history.h, "reads").
 */
#include "history.h"
#include "internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "changepoint.h"
#include "json_text.h"
#include "xalloc.h"

void rn_history_fmt_time(char *dst, size_t cap, const char *ns_text)
{
	time_t t = (time_t)(strtoll(ns_text ? ns_text : "0", NULL, 10) / 1000000000ll);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(dst, cap, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(dst, cap, "?");
}

double rn_history_shown(double v, const char *unit)
{
	return unit && !strcmp(unit, "ns") ? v / 1e6 : v;
}

const char *rn_history_shown_unit(const char *unit)
{
	return unit && !strcmp(unit, "ns") ? "ms" : unit ? unit : "";
}

int rn_history_series_read(struct rn_history *h, const struct rn_history_series_query *q,
			   rn_history_row_fn fn, void *ctx)
{
	const struct rn_history_filter f = { q->target, q->metric, q->machine, q->branch };
	struct rn_buf sql;
	const char *params[4];
	size_t np;
	int rc;

	rn_buf_init(&sql, 0);
	/* Oldest first; the last `limit` runs come from the newest end of the index. */
	if (q->limit)
		rn_buf_adds(&sql, "SELECT * FROM (");
	rn_buf_adds(&sql,
		    "SELECT r.id, r.created_ns, r.commit_sha, r.branch, r.machine, "
		    "s.nsamples, ");
	if (q->rounded)
		rn_buf_adds(&sql,
			    "CAST(ROUND(s.median) AS BIGINT), CAST(ROUND(s.min_value) AS "
			    "BIGINT), CAST(ROUND(s.max_value) AS BIGINT)");
	else
		rn_buf_adds(&sql, "s.median, s.min_value, s.max_value");
	rn_buf_adds(&sql, ", s.unit");
	if (q->with_samples)
		rn_buf_adds(&sql, ", s.samples");
	/* CROSS JOIN: SQLite keeps the order written (the series' index first, so --last N
	 * reads N rows from its newest end even with a machine filter, instead of scanning every
	 * run); PostgreSQL plans it as the inner join it is. */
	rn_buf_adds(&sql, " FROM results s CROSS JOIN runs r WHERE r.id = s.run_id");
	np = rn_history_where(&sql, &f, params);
	if (q->limit)
		rn_buf_addf(&sql, " ORDER BY s.run_id DESC LIMIT %ld) AS last ORDER BY 1",
			    q->limit);
	else
		rn_buf_adds(&sql, " ORDER BY s.run_id");
	rc = rn_history_query(h, sql.buf, params, np, fn, ctx);
	rn_buf_release(&sql);
	return rc;
}

static int series_row(void *ctx, size_t ncols, const char *const *v)
{
	struct rn_history_series *s = ctx;
	struct rn_history_point *p;

	if (ncols < 10)
		return 0;
	s->p = rn_xgrow(s->p, &s->cap, s->n + 1, sizeof(*s->p));
	p = &s->p[s->n++];
	memset(p, 0, sizeof(*p));
	p->run_id = strtoll(v[0], NULL, 10);
	p->created_ns = rn_xstrdup(v[1] ? v[1] : "0");
	p->commit = rn_xstrdup(v[2] ? v[2] : "");
	p->branch = rn_xstrdup(v[3] ? v[3] : "");
	p->machine = rn_xstrdup(v[4] ? v[4] : "");
	p->nsamples = strtol(v[5] ? v[5] : "0", NULL, 10);
	p->median = strtod(v[6] ? v[6] : "0", NULL);
	p->min = strtod(v[7] ? v[7] : "0", NULL);
	p->max = strtod(v[8] ? v[8] : "0", NULL);
	snprintf(s->unit, sizeof(s->unit), "%s", v[9] ? v[9] : "");
	if (ncols > 10)
		p->samples = rn_xstrdup(v[10] ? v[10] : "[]");
	return 0;
}

int rn_history_series_load(struct rn_history *h, const struct rn_history_series_query *q,
			   struct rn_history_series *s)
{
	memset(s, 0, sizeof(*s));
	return rn_history_series_read(h, q, series_row, s);
}

void rn_history_series_release(struct rn_history_series *s)
{
	size_t i;

	for (i = 0; s->p && i < s->n; i++) {
		free(s->p[i].created_ns);
		free(s->p[i].commit);
		free(s->p[i].branch);
		free(s->p[i].machine);
		free(s->p[i].samples);
	}
	free(s->p);
	memset(s, 0, sizeof(*s));
}

static int key_row(void *ctx, size_t ncols, const char *const *v)
{
	struct rn_history_series_keys *ks = ctx;

	if (ncols < 3)
		return 0;
	ks->k = rn_xgrow(ks->k, &ks->cap, ks->n + 1, sizeof(*ks->k));
	ks->k[ks->n].target = rn_xstrdup(v[0] ? v[0] : "");
	ks->k[ks->n].metric = rn_xstrdup(v[1] ? v[1] : "");
	ks->k[ks->n].machine = rn_xstrdup(v[2] ? v[2] : "");
	ks->n++;
	return 0;
}

void rn_history_series_keys_release(struct rn_history_series_keys *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++) {
		free(ks->k[i].target);
		free(ks->k[i].metric);
		free(ks->k[i].machine);
	}
	free(ks->k);
}

/* The search the store keeps up to date: default settings, one machine, every branch, the
 * last RN_HISTORY_CHANGES_RUNS runs. */
static bool default_search(const struct rn_edivisive_cfg *cfg, const char *machine,
			   const char *branch, long last)
{
	struct rn_edivisive_cfg d;

	rn_edivisive_cfg_init(&d);
	return machine && !branch && last == RN_HISTORY_CHANGES_RUNS && d.alpha == cfg->alpha &&
		d.min_rel_change == cfg->min_rel_change && d.min_size == cfg->min_size &&
		d.exponent == cfg->exponent && d.max_changes == cfg->max_changes &&
		d.refine == cfg->refine && d.trim == cfg->trim;
}

int rn_history_series_keys(struct rn_history *h, const struct rn_history_filter *f,
			   struct rn_history_series_keys *ks)
{
	struct rn_buf sql;
	const char *params[4];
	size_t np;
	int rc;

	memset(ks, 0, sizeof(*ks));
	rn_buf_init(&sql, 0);
	rn_buf_adds(&sql,
		    "SELECT DISTINCT s.target, s.metric, r.machine FROM results s JOIN runs "
		    "r ON r.id = s.run_id WHERE 1 = 1");
	np = rn_history_where(&sql, f, params);
	rn_buf_adds(&sql, " ORDER BY 1, 2, 3");
	rc = rn_history_query(h, sql.buf, params, np, key_row, ks);
	rn_buf_release(&sql);
	return rc;
}

int rn_history_changes_of(struct rn_history *h, const char *target, const char *metric,
			  const char *machine, const char *branch, long last,
			  const struct rn_edivisive_cfg *ecfg,
			  void (*fn)(void *ctx, const struct rn_history_change *c), void *ctx)
{
	struct rn_history_series s;
	struct rn_history_series_query q = { target, metric, machine, branch, 0, false, false };
	struct rn_edivisive_cfg cfg;
	struct rn_changepoint *cp = NULL;
	double *x;
	size_t ncp = 0, i;
	int rc;

	if (last <= 0 || last > RN_EDIVISIVE_MAX_POINTS)
		last = last <= 0 ? RN_HISTORY_CHANGES_RUNS : RN_EDIVISIVE_MAX_POINTS;
	q.limit = last;
	rc = rn_history_series_load(h, &q, &s);
	if (rc) {
		rn_history_series_release(&s);
		return rc;
	}
	x = rn_xcalloc(s.n + 1, sizeof(*x));
	for (i = 0; i < s.n; i++)
		x[i] = s.p[i].median;
	if (ecfg)
		cfg = *ecfg;
	else
		rn_edivisive_cfg_init(&cfg);
	if (default_search(&cfg, machine, branch, last)) {
		/* Incremental: from the cuts kept at the last check (rn_history_series_changes
		 * reads the same runs); their indices map to this series by run id. */
		int64_t *run = NULL;
		double *y = NULL;
		size_t n = 0, j, k = 0;

		rc = rn_history_series_changes(h, target, metric, machine, &run, &y, &n, &cp, &ncp,
					       false);
		for (j = 0; !rc && j < ncp; j++) {
			while (k < s.n && s.p[k].run_id != run[cp[j].index])
				k++;
			if (k == s.n || n != s.n) {
				/* The store changed between the two reads: search this series. */
				free(cp);
				cp = NULL;
				rn_edivisive(x, s.n, &cfg, &cp, &ncp);
				break;
			}
		}
		free(run);
		free(y);
		if (rc) {
			free(x);
			rn_history_series_release(&s);
			return rc;
		}
	} else {
		rn_edivisive(x, s.n, &cfg, &cp, &ncp);
	}
	for (i = 0; i < ncp; i++) {
		const struct rn_history_point *p = &s.p[cp[i].index];
		struct rn_history_change c;

		c.target = target;
		c.metric = metric;
		c.machine = machine;
		c.unit = s.unit;
		c.run_id = p->run_id;
		c.index = cp[i].index;
		c.commit = p->commit;
		c.created_ns = strtoll(p->created_ns, NULL, 10);
		c.before = cp[i].median_before;
		c.after = cp[i].median_after;
		c.ratio = cp[i].ratio;
		c.rel_change = cp[i].rel_change;
		c.p_value = cp[i].p_value;
		c.first_commit = s.p[cp[i].first].commit;
		c.last_commit = s.p[cp[i].last].commit;
		c.first_run = s.p[cp[i].first].run_id;
		c.last_run = s.p[cp[i].last].run_id;
		fn(ctx, &c);
	}
	free(cp);
	free(x);
	rn_history_series_release(&s);
	return 0;
}

/* One change as JSON (`history changes --format json`, the report page): values in the
 * metric's unit as stored. */
json_t *rn_history_change_json(const struct rn_history_change *c)
{
	return json_pack("{s:o, s:o, s:o, s:s, s:I, s:I, s:o, s:I, s:f, s:f, s:f, s:f, s:f, "
			 "s:I, s:o, s:I, s:o}",
			 "target", rn_json_text(c->target), "metric", rn_json_text(c->metric),
			 "machine", rn_json_text(c->machine), "unit", c->unit, "run",
			 (json_int_t)c->run_id, "index", (json_int_t)c->index, "commit",
			 rn_json_text(c->commit), "created_ns", (json_int_t)c->created_ns, "before",
			 c->before, "after", c->after, "ratio", c->ratio, "rel_change",
			 c->rel_change, "p_value", c->p_value, "first_run",
			 (json_int_t)c->first_run, "first_commit", rn_json_text(c->first_commit),
			 "last_run", (json_int_t)c->last_run, "last_commit",
			 rn_json_text(c->last_commit));
}
