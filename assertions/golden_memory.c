/*
 * golden_memory.c - judging memory against a golden trace: the observed median against the
 * golden median times (1 + tolerance).
 * Shared declarations: golden_internal.h; the API: golden.h.
 */
#include "golden_internal.h"

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
	} else {
		/* what varies from run to run (a parallel build's overlap) is no growth: the
		 * observed fewest against what the golden's most allows */
		double fewest = b[0], most = a[0];
		size_t i;

		for (i = 1; i < nb; i++)
			fewest = fmin(fewest, b[i]);
		for (i = 1; i < na; i++)
			most = fmax(most, a[i]);
		most = fmax(most * (1.0 + tol), most + (double)c->cfg->memory_floor_bytes);
		v->verdict = fewest > most ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
		rn_golden_set_reason(v, "%s vs golden %s, allowed %s", d, g, al);
		rn_buf_addf(&m, "%s %s vs golden %s (%s, tolerance %s)", name, o, g, d, t);
		rn_golden_maybe_downgrade(c, v, &m);
	}
	rn_buf_addf(&det, "%-28s %14s\n", "allowed (median)", al);
	rn_buf_addf(&det,
		    "rule: fails when the fewest observed exceeds the golden's most * (1 + %s) "
		    "and the golden's most + %llu bytes (one run each: the medians)\n",
		    t + 1, (unsigned long long)c->cfg->memory_floor_bytes);
	free(b);
	rn_golden_set_message(v, &m);
	rn_golden_add_golden_line(c, &det);
	v->detail = rn_buf_detach(&det, NULL);
}
