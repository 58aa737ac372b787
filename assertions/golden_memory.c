/*
 * golden_memory.c - judging memory against a golden trace: the observed median against the
 * golden median times (1 + tolerance).
 * Shared declarations: internal.h; the API: golden.h.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "stats.h"
#include "xalloc.h"

/* Fewest and most of x[n] into lh[2]; whether they differ beyond tol and floor_. */
static bool spread(const double *x, size_t n, double tol, double floor_, double lh[2])
{
	size_t i;

	lh[0] = lh[1] = n ? x[0] : 0.0;
	for (i = 1; i < n; i++) {
		lh[0] = fmin(lh[0], x[i]);
		lh[1] = fmax(lh[1], x[i]);
	}
	return lh[1] - lh[0] > tol * lh[0] && lh[1] - lh[0] > floor_;
}

static bool any_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; x && i < n; i++)
		if (x[i] > 0.0)
			return true;
	return false;
}

void rn_alloc_peak_judge(const double *tree_ref, size_t na, const double *tree_obs, size_t nb,
			 const double *proc_ref, size_t npa, const double *proc_obs, size_t npb,
			 double tol, double floor_, struct rn_alloc_judgement *out)
{
	double pr[2], po[2];

	memset(out, 0, sizeof(*out));
	/* | and not ||: both calls fill their range */
	out->overlap = spread(tree_ref, na, tol, floor_, out->tree_lo) |
		spread(tree_obs, nb, tol, floor_, out->tree_hi);
	out->per_process =
		out->overlap && any_positive(proc_ref, npa) && any_positive(proc_obs, npb);
	if (out->per_process) {
		spread(proc_ref, npa, tol, floor_, pr);
		spread(proc_obs, npb, tol, floor_, po);
		out->obs_fewest = po[0];
		out->ref_most = pr[1];
	} else {
		out->obs_fewest = out->tree_hi[0];
		out->ref_most = out->tree_lo[1];
	}
	out->allowed = rn_memory_limit(out->ref_most, tol, floor_);
	out->grew = out->obs_fewest > out->allowed;
	/* whatever the overlap, a tree that needs twice the most it ever needed grew */
	out->beyond_limit = out->overlap &&
		out->tree_hi[0] > RN_ALLOC_OVERLAP_LIMIT * out->tree_lo[1] &&
		out->tree_hi[0] - out->tree_lo[1] > floor_;
	if (out->beyond_limit)
		out->grew = true;
	else if (out->overlap && !out->per_process)
		out->grew = false;
	out->shown_obs = out->obs_fewest;
	out->shown_ref = out->ref_most;
	out->shown_limit = out->allowed;
	if (out->beyond_limit && !(out->obs_fewest > out->allowed)) {
		out->shown_obs = out->tree_hi[0];
		out->shown_ref = out->tree_lo[1];
		out->shown_limit =
			fmax(RN_ALLOC_OVERLAP_LIMIT * out->tree_lo[1], out->tree_lo[1] + floor_);
	}
}

double rn_memory_limit(double ref, double tol, double floor_)
{
	return fmax(ref * (1.0 + tol), ref + floor_);
}

/* golden:alloc_peak (rn_alloc_peak_judge): the tree's peak, or its largest process's when
 * the tree's moves with the overlap of its processes. Fills v's verdict, values and reason, the
 * message m and the per-process sample table of det. */
static void judge_alloc_peak(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			     struct rn_verdict_result *v, struct rn_buf *m, struct rn_buf *det,
			     double tol)
{
	const enum rn_metric pm = RN_METRIC_PROCESS_ALLOC_PEAK;
	const double *a = c->g->samples[s->metric], *pa = c->g->samples[pm];
	size_t na = rn_golden_golden_n(c->g, s->metric), nb = rn_golden_observed_n(c->r, s->metric);
	size_t npa = pa ? rn_golden_golden_n(c->g, pm) : 0, npb = rn_golden_observed_n(c->r, pm);
	double *b = rn_golden_observed(c->r, s->metric), *pb = rn_golden_observed(c->r, pm);
	struct rn_alloc_judgement j;
	char o[64], g[64], d[64], t[64], lo[2][64], hi[2][64];

	rn_alloc_peak_judge(a, na, b, nb, pa, npa, pb, npb, tol, (double)c->cfg->memory_floor_bytes,
			    &j);
	rn_golden_fmt_tol(t, sizeof(t), tol);
	rn_golden_fmt_value(lo[0], sizeof(lo[0]), "bytes", j.tree_lo[0]);
	rn_golden_fmt_value(lo[1], sizeof(lo[1]), "bytes", j.tree_lo[1]);
	rn_golden_fmt_value(hi[0], sizeof(hi[0]), "bytes", j.tree_hi[0]);
	rn_golden_fmt_value(hi[1], sizeof(hi[1]), "bytes", j.tree_hi[1]);
	{
		/* the message: the medians of the metric judged, the tree's or its largest
		 * process's */
		const double *ja = j.per_process ? pa : a, *jb = j.per_process ? pb : b;
		size_t jna = j.per_process ? npa : na, jnb = j.per_process ? npb : nb;
		double obs = rn_golden_median_of(jb, jnb), gold = rn_golden_median_of(ja, jna);

		rn_golden_fmt_value(o, sizeof(o), "bytes", obs);
		rn_golden_fmt_value(g, sizeof(g), "bytes", gold);
		rn_golden_fmt_pct(d, sizeof(d), rn_golden_delta_pct(obs, gold));
		rn_buf_addf(m, "alloc_peak%s %s vs golden %s (%s, tolerance %s)",
			    j.per_process ? " of the largest process" : "", o, g, d, t);
	}
	/* the columns: the numbers that decided, the fewest observed against the limit the
	 * golden's most allows; the tree's against twice its golden most when that alone failed
	 * it (the largest process within its limit) */
	rn_golden_set_values(v, s, j.shown_obs, j.shown_ref, j.shown_limit);
	if (j.per_process) {
		rn_buf_addf(det, "the largest process (process_alloc_peak):\n");
		rn_golden_add_sample_table(det, "bytes", pa, npa, pb, npb);
	}
	if (j.overlap)
		rn_buf_addf(m,
			    "; the tree's peak moves with how its processes overlap (golden runs "
			    "%s-%s, these %s-%s)%s",
			    lo[0], lo[1], hi[0], hi[1],
			    j.beyond_limit ? ": the fewest is beyond twice the golden's most" : "");
	if (j.grew) {
		v->verdict = RN_VERDICT_FAIL;
	} else if (j.overlap && !j.per_process) {
		v->verdict = RN_VERDICT_WARN;
		rn_buf_addf(m,
			    "; not gated within 2x: the golden trace has no process_alloc_peak; "
			    "re-record it with renacer golden update");
	} else {
		v->verdict = RN_VERDICT_PASS;
	}
	rn_golden_fmt_value(g, sizeof(g), "bytes", v->golden);
	rn_golden_fmt_pct(d, sizeof(d), v->delta_pct);
	if (j.beyond_limit && !(j.obs_fewest > j.allowed))
		rn_golden_set_reason(v, "%s: the tree's fewest run vs twice its golden most %s", d,
				     g);
	else
		rn_golden_set_reason(v, "%s: fewest run vs golden's most %s%s", d, g,
				     j.per_process ? " (largest process)" : "");
	free(b);
	free(pb);
}

void rn_golden_judge_memory(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			    struct rn_verdict_result *v)
{
	const char *name = rn_metric_info(s->metric)->name;
	const double *a = c->g->samples[s->metric];
	size_t na = rn_golden_golden_n(c->g, s->metric), nb = rn_golden_observed_n(c->r, s->metric);
	double *b = rn_golden_observed(c->r, s->metric);
	double gold = rn_golden_median_of(a, na), obs = rn_golden_median_of(b, nb);
	double tol = rn_golden_tol_of(c, s, c->cfg->memory_tolerance);
	double allowed = gold * (1.0 + tol);
	char o[64], g[64], d[64], t[64], al[64];

	/* Small programs: a few pages of RSS noise must not look like a regression. */
	if (allowed < gold + (double)c->cfg->memory_floor_bytes)
		allowed = gold + (double)c->cfg->memory_floor_bytes;
	struct rn_buf m, det;

	rn_golden_set_values(v, s, obs, gold, allowed);
	rn_golden_fmt_value(o, sizeof(o), "bytes", obs);
	rn_golden_fmt_value(g, sizeof(g), "bytes", gold);
	rn_golden_fmt_value(al, sizeof(al), "bytes", allowed);
	rn_golden_fmt_pct(d, sizeof(d), v->delta_pct);
	rn_golden_fmt_tol(t, sizeof(t), tol);
	rn_buf_init(&m, 0);
	rn_buf_init(&det, 0);
	rn_golden_add_sample_table(&det, "bytes", a, na, b, nb);

	if (!(gold > 0.0) && obs > 0.0) {
		v->verdict = RN_VERDICT_NOT_JUDGED;
		rn_golden_set_reason(v, "golden has no %s data", name);
		rn_buf_addf(&m,
			    "%s %s; not judged: the golden trace has no %s data; to judge it: "
			    "re-record it with renacer golden update",
			    name, o, name);
	} else if (!(obs > 0.0) && !(gold > 0.0)) {
		/* Nothing measured on either side (the eBPF driver sees no allocation sizes, and
		 * no peak RSS below renacer's own): a comparison of 0 with 0 judged nothing. */
		v->verdict = RN_VERDICT_NOT_JUDGED;
		rn_golden_set_reason(v, "no %s data in the golden trace or this run", name);
		rn_buf_addf(&m,
			    "%s: not judged: neither the golden trace nor this run measured it "
			    "(the eBPF driver does not; driver = \"ptrace\" does)",
			    name);
	} else if (!(obs > 0.0) && gold > 0.0) {
		v->verdict = RN_VERDICT_NO_DATA;
		rn_buf_addf(&m, "%s: no data in this run (golden %s)", name, g);
	} else if (s->metric == RN_METRIC_ALLOC_PEAK) {
		judge_alloc_peak(c, s, v, &m, &det, tol);
		rn_golden_maybe_downgrade(c, v, &m);
	} else {
		/* what varies from run to run is no growth: the observed fewest against what the
		 * golden's most allows */
		double fewest = b[0], most = a[0], most_allowed;
		size_t i;

		for (i = 1; i < nb; i++)
			fewest = fmin(fewest, b[i]);
		for (i = 1; i < na; i++)
			most = fmax(most, a[i]);
		most_allowed = rn_memory_limit(most, tol, (double)c->cfg->memory_floor_bytes);
		v->verdict = fewest > most_allowed ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
		/* the message: the medians; the columns and the reason: the numbers that decided
		 * (a PASS never reads over its limit, a FAIL never under it) */
		rn_buf_addf(&m, "%s %s vs golden %s (%s, tolerance %s)", name, o, g, d, t);
		rn_golden_set_values(v, s, fewest, most, most_allowed);
		rn_golden_fmt_value(g, sizeof(g), "bytes", most);
		rn_golden_fmt_value(al, sizeof(al), "bytes", most_allowed);
		rn_golden_fmt_pct(d, sizeof(d), v->delta_pct);
		rn_golden_set_reason(v, "%s: fewest run vs golden's most %s, allowed %s", d, g, al);
		rn_golden_maybe_downgrade(c, v, &m);
	}
	if (s->metric != RN_METRIC_ALLOC_PEAK)
		rn_buf_addf(&det, "%-28s %14s\n", "allowed", al);
	rn_buf_addf(&det,
		    "rule: fails when the fewest observed exceeds the golden's most * (1 + %s) "
		    "and the golden's most + %llu bytes (one run each: the medians)\n",
		    t + 1, (unsigned long long)c->cfg->memory_floor_bytes);
	if (s->metric == RN_METRIC_ALLOC_PEAK)
		rn_buf_addf(&det,
			    "when either side's runs of the tree spread beyond that, its peak "
			    "depends on how its processes overlap: the largest process is judged, "
			    "and the tree fails only beyond %gx the golden's most\n",
			    RN_ALLOC_OVERLAP_LIMIT);
	free(b);
	rn_golden_set_message(v, &m);
	rn_golden_add_golden_line(c, &det);
	v->detail = rn_buf_detach(&det, NULL);
}
