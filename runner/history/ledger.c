/*
 * ledger.c - the gate-quality ledger (see ledger.h).
 */
#include "ledger.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assertion.h"
#include "buf.h"
#include "json_text.h"
#include "xalloc.h"

static double median_copy(const double *x, size_t n)
{
	double *t, m;

	if (!n)
		return 0;
	t = rn_xmalloc(n * sizeof(*t));
	memcpy(t, x, n * sizeof(*t));
	m = rn_aggregate(t, n, RN_AGG_MEDIAN);
	free(t);
	return m;
}

static void push(double **a, size_t *n, size_t *cap, double v)
{
	*a = rn_xgrow(*a, cap, *n + 1, sizeof(**a));
	(*a)[(*n)++] = v;
}

/* The commit just read is complete: fold it into its assertion's ledger. */
static void ledger_close_commit(struct rn_ledger_set *lr)
{
	struct rn_ledger *l = lr->n ? &lr->l[lr->n - 1] : NULL;
	size_t i;

	if (!l || !lr->g_n)
		return;
	if (lr->g_n >= 2) {
		l->rerun_commits++;
		l->flips += lr->g_flips;
		l->overridden += lr->g_over;
		if (lr->g_pass > lr->g_fail) {
			l->false_alarms += lr->g_fail;
			l->pool += lr->g_n;
			for (i = 0; i < lr->g_nobs; i++)
				push(&l->obs, &l->nobs, &l->capobs, lr->g_obs[i]);
		}
		if (lr->g_nobs >= 2) {
			double m = median_copy(lr->g_obs, lr->g_nobs);

			for (i = 0; m != 0 && i < lr->g_nobs; i++)
				push(&l->dev, &l->ndev, &l->capdev, lr->g_obs[i] / m - 1);
		}
	}
	lr->g_n = lr->g_pass = lr->g_fail = lr->g_flips = lr->g_over = lr->g_pending_fails = 0;
	lr->g_nobs = 0;
	lr->g_last[0] = '\0';
}

static int ledger_row(void *ctx, size_t ncols, const char *const *v)
{
	struct rn_ledger_set *lr = ctx;
	struct rn_ledger *l = lr->n ? &lr->l[lr->n - 1] : NULL;
	const char *target = v[0] ? v[0] : "", *assertion = v[1] ? v[1] : "";
	const char *key = v[2] ? v[2] : "", *verdict = v[3] ? v[3] : "";

	if (ncols < 7)
		return 0;
	if (!l || strcmp(l->target, target) || strcmp(l->assertion, assertion)) {
		ledger_close_commit(lr);
		lr->l = rn_xgrow(lr->l, &lr->cap, lr->n + 1, sizeof(*lr->l));
		l = &lr->l[lr->n++];
		memset(l, 0, sizeof(*l));
		l->target = rn_xstrdup(target);
		l->assertion = rn_xstrdup(assertion);
		l->unit = rn_xstrdup(v[6] ? v[6] : "");
		lr->key[0] = '\0';
	} else if (strcmp(lr->key, key)) {
		ledger_close_commit(lr);
	}
	snprintf(lr->key, sizeof(lr->key), "%s", key);
	l->runs++;
	l->fails += !strcmp(verdict, "FAIL");
	if (v[5]) {
		l->budget = strtod(v[5], NULL);
		l->has_budget = true;
	}
	if (v[4]) {
		double o = strtod(v[4], NULL);

		push(&l->all, &l->nall, &l->capall, o);
		push(&lr->g_obs, &lr->g_nobs, &lr->g_capobs, o);
	}
	if (lr->g_n && strcmp(lr->g_last, verdict))
		lr->g_flips++;
	if (!strcmp(verdict, "PASS")) {
		lr->g_pass++;
		lr->g_over += lr->g_pending_fails;
		lr->g_pending_fails = 0;
	} else if (!strcmp(verdict, "FAIL")) {
		lr->g_fail++;
		lr->g_pending_fails++;
	}
	snprintf(lr->g_last, sizeof(lr->g_last), "%s", verdict);
	lr->g_n++;
	return 0;
}

/* Noise, suggestion and rates once every row is read. */
static void ledger_finish(struct rn_ledger *l)
{
	size_t i;

	l->noise = -1;
	if (l->ndev >= 3) {
		double *a = rn_xmalloc(l->ndev * sizeof(*a));

		for (i = 0; i < l->ndev; i++)
			a[i] = fabs(l->dev[i]);
		l->noise = 1.4826 * median_copy(a, l->ndev);
		free(a);
	} else if (l->nall >= 4) {
		double *a = rn_xmalloc(l->nall * sizeof(*a)), m = median_copy(l->all, l->nall);

		for (i = 0; i + 1 < l->nall; i++)
			a[i] = fabs(l->all[i + 1] - l->all[i]);
		if (m != 0)
			l->noise = 1.4826 * median_copy(a, l->nall - 1) / sqrt(2.0) / fabs(m);
		free(a);
	}
	l->median = l->nobs ? median_copy(l->obs, l->nobs) : median_copy(l->all, l->nall);
	l->suggested = -1;
	l->suggested_rate = -1;
	if (l->noise >= 0 && l->nall) {
		l->suggested = l->median * (1 + 3 * l->noise);
		if (l->pool) {
			size_t over = 0;

			for (i = 0; i < l->nobs; i++)
				over += l->obs[i] > l->suggested;
			l->suggested_rate = (double)over / (double)l->pool;
		}
	}
}

void rn_ledger_release(struct rn_ledger_set *lr)
{
	size_t i;

	for (i = 0; i < lr->n; i++) {
		free(lr->l[i].target);
		free(lr->l[i].assertion);
		free(lr->l[i].unit);
		free(lr->l[i].obs);
		free(lr->l[i].dev);
		free(lr->l[i].all);
	}
	free(lr->l);
	free(lr->g_obs);
}

/* Read the ledger of every assertion (of `machine`, `target` when not NULL; of the runs from
 * id `min_run` on when not NULL). */
int rn_ledger_read(struct rn_history *h, const char *machine, const char *target,
		   const char *min_run, struct rn_ledger_set *lr)
{
	struct rn_buf sql;
	const char *params[3];
	size_t np = 0, i;
	int rc;

	memset(lr, 0, sizeof(*lr));
	rn_buf_init(&sql, 0);
	rn_buf_adds(&sql,
		    "SELECT v.target, v.assertion, CASE WHEN r.rerun_of IS NOT NULL AND "
		    "r.rerun_of <> '' THEN r.rerun_of ELSE r.commit_sha END, v.verdict, "
		    "v.observed, v.budget, v.unit FROM verdicts v JOIN runs r ON r.id = v.run_id "
		    "WHERE r.source <> 'golden'");
	if (machine) {
		rn_buf_adds(&sql, " AND r.machine = ?");
		params[np++] = machine;
	}
	if (target) {
		rn_buf_adds(&sql, " AND v.target = ?");
		params[np++] = target;
	}
	if (min_run) {
		rn_buf_adds(&sql, " AND v.run_id >= ?");
		params[np++] = min_run;
	}
	rn_buf_adds(&sql, " ORDER BY 1, 2, 3, r.id");
	rc = rn_history_query(h, sql.buf, params, np, ledger_row, lr);
	rn_buf_release(&sql);
	ledger_close_commit(lr);
	for (i = 0; !rc && i < lr->n; i++)
		ledger_finish(&lr->l[i]);
	return rc;
}

static json_t *num_or_null_d(double v, bool has)
{
	return has ? json_real(v) : json_null();
}

/* One assertion's ledger as JSON (the page and `history quality --format json`). */
json_t *rn_ledger_json(const struct rn_ledger *l)
{
	return json_pack(
		"{s:o, s:o, s:o, s:I, s:I, s:f, s:I, s:I, s:I, s:o, s:I, s:o, s:o, s:o, s:o}",
		"target", rn_json_text(l->target), "assertion", rn_json_text(l->assertion), "unit",
		rn_json_text(l->unit), "runs", (json_int_t)l->runs, "fails", (json_int_t)l->fails,
		"fail_rate", l->runs ? (double)l->fails / (double)l->runs : 0.0, "rerun_commits",
		(json_int_t)l->rerun_commits, "flips", (json_int_t)l->flips, "false_alarms",
		(json_int_t)l->false_alarms, "false_alarm_rate",
		num_or_null_d(l->pool ? (double)l->false_alarms / (double)l->pool : 0, l->pool > 0),
		"overridden", (json_int_t)l->overridden, "noise",
		num_or_null_d(l->noise, l->noise >= 0), "budget",
		num_or_null_d(l->budget, l->has_budget), "suggested",
		num_or_null_d(l->suggested, l->suggested >= 0), "suggested_false_alarm_rate",
		num_or_null_d(l->suggested_rate, l->suggested_rate >= 0));
}
