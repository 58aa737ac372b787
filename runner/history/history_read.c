/*
 * history_read.c - the queries of `renacer history list`, `export`, `prune` and `quality`
 * (history.h, "reads").
 */
#include "history.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

struct list_ctx {
	rn_history_run_fn fn;
	void *ctx;
};

static int list_row(void *ctx, size_t ncols, const char *const *v)
{
	const struct list_ctx *lc = ctx;
	struct rn_history_run_summary r;

	if (ncols < 8)
		return 0;
	r.id = strtoll(v[0] ? v[0] : "0", NULL, 10);
	r.created_ns = strtoll(v[1] ? v[1] : "0", NULL, 10);
	r.commit = v[2] ? v[2] : "";
	r.branch = v[3] ? v[3] : "";
	r.machine = v[4] ? v[4] : "";
	r.source = v[5] ? v[5] : "";
	r.exit_code = (int)strtol(v[6] ? v[6] : "0", NULL, 10);
	r.failing = strtoll(v[7] ? v[7] : "0", NULL, 10);
	return lc->fn(lc->ctx, &r);
}

int rn_history_list_runs(struct rn_history *h, long limit, rn_history_run_fn fn, void *ctx)
{
	struct list_ctx lc = { fn, ctx };
	char sql[1024];

	snprintf(
		sql, sizeof(sql),
		"SELECT r.id, r.created_ns, r.commit_sha, r.branch, r.machine, r.source, "
		"r.exit_code, (SELECT count(*) FROM verdicts v WHERE v.run_id = r.id AND "
		"v.verdict IN ('FAIL', 'ERROR', 'NO DATA')) FROM runs r ORDER BY r.id DESC LIMIT %ld",
		limit);
	return rn_history_query(h, sql, NULL, 0, list_row, &lc);
}

int rn_history_export_results(struct rn_history *h, const struct rn_history_filter *f,
			      rn_history_row_fn fn, void *ctx)
{
	struct rn_buf sql;
	const char *params[4];
	size_t np;
	int rc;

	rn_buf_init(&sql, 0);
	rn_buf_adds(&sql,
		    "SELECT r.id, r.created_ns, r.commit_sha, r.branch, r.machine, r.source, "
		    "s.target, s.metric, s.unit, s.nsamples, s.median, s.min_value, "
		    "s.max_value, s.samples FROM results s JOIN runs r ON r.id = s.run_id "
		    "WHERE 1 = 1");
	np = rn_history_where(&sql, f, params);
	rn_buf_adds(&sql, " ORDER BY r.id, s.id");
	rc = rn_history_query(h, sql.buf, params, np, fn, ctx);
	rn_buf_release(&sql);
	return rc;
}

int rn_history_prune(struct rn_history *h, int64_t cutoff_ns, int64_t *removed)
{
	static const char *const deletes[] = {
		"DELETE FROM critical_path WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM explanations WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM syscalls WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM verdicts WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM results WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM runs WHERE created_ns < ?",
	};
	char cutoff[32];
	const char *params[] = { cutoff };
	size_t i;
	int rc;

	*removed = 0;
	snprintf(cutoff, sizeof(cutoff), "%lld", (long long)cutoff_ns);
	rc = h->ops->exec(h, h->ops->begin_sql);
	if (!rc)
		rc = rn_history_query(h, "SELECT count(*) FROM runs WHERE created_ns < ?", params,
				      1, rn_history_int64_row, removed);
	for (i = 0; i < sizeof(deletes) / sizeof(deletes[0]) && !rc; i++)
		rc = rn_history_query(h, deletes[i], params, 1, NULL, NULL);
	return rn_history_finish(h, rc);
}

static int first_col(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols >= 1 && v[0])
		snprintf(ctx, 24, "%s", v[0]);
	return 0;
}

int rn_history_first_of_last(struct rn_history *h, long n, char id[24])
{
	char sql[160];

	id[0] = '\0';
	snprintf(sql, sizeof(sql),
		 "SELECT min(id) FROM (SELECT id FROM runs ORDER BY id DESC LIMIT %ld) AS last", n);
	return rn_history_query(h, sql, NULL, 0, first_col, id);
}
