/*
 * golden_timing.c - judging timing against a golden trace: a one-sided Mann-Whitney U test, a
 * Hodges-Lehmann bound on the shift, the golden's own noise, the load allowance and guard.
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

/* How the timing rule decided (enum timing_outcome). */
enum timing_outcome {
	T_PASS,	 /* no slowdown beyond the tolerance at significance */
	T_FAIL,	 /* a regression */
	T_NOISE, /* slower beyond the tolerance, but within the golden trace's own noise */
	T_LOAD,	 /* slower beyond the tolerance, but within the loaded machine's allowance */
	T_GUARD, /* wall clock slower, cpu_time not: contention (the load guard) */
};

/* The inputs and bounds of one timing decision. */
struct timing_eval {
	struct rn_mann_whitney mw;
	struct rn_hodges_lehmann hl;
	double gold;      /* golden median, ns */
	double limit;     /* tolerance * gold, ns */
	double noise;     /* RN_GOLDEN_NOISE_SIGMAS * 1.4826 * MAD of the golden samples, ns */
	double allowance; /* RN_LOAD_ALLOWANCE * CPU pressure * gold when loaded, else 0, ns */
	char why[256];    /* the load guard's reason (T_GUARD) */
};

const struct rn_golden_step *rn_golden_step_of(enum rn_metric m);

/*
 * The timing rule for step `s` (samples present on both sides, enough runs): a regression needs
 * a significant shift (p < alpha) whose lower confidence bound exceeds the tolerance, the
 * golden's own noise, and on a loaded machine the load allowance; wall time and critical path
 * also need cpu_time to have regressed when the target is CPU-bound or the machine loaded.
 */
static enum timing_outcome timing_rule(const struct rn_golden_cmp *c,
				       const struct rn_golden_step *s, struct timing_eval *e)
{
	const double *a = c->g->samples[s->metric];
	size_t na = rn_golden_golden_n(c->g, s->metric), nb = rn_golden_observed_n(c->r, s->metric);
	double *b = rn_golden_observed(c->r, s->metric);

	memset(e, 0, sizeof(*e));
	e->gold = rn_golden_median_of(a, na);
	e->limit = rn_golden_tol_of(c, s, c->cfg->timing_tolerance) * e->gold;
	e->noise = RN_GOLDEN_NOISE_SIGMAS * 1.4826 * (na ? rn_stats_mad(a, na) : 0.0);
	e->allowance = rn_golden_loaded(c) ? RN_LOAD_ALLOWANCE * c->r->cpu_pressure * e->gold : 0.0;
	if (e->allowance > 0.0 && s->metric == RN_METRIC_CPU_TIME &&
	    c->g->samples[RN_METRIC_SYSCALLS]) {
		/* Load slows the tracer's stops most: weigh by the share of cpu_time they take. */
		double stops = rn_golden_median_of(c->g->samples[RN_METRIC_SYSCALLS],
						   rn_golden_golden_n(c->g, RN_METRIC_SYSCALLS)) *
			       RN_LOAD_STOP_NS;
		double w = e->gold > 0.0 ? stops / e->gold : 1.0;

		e->allowance *= w < RN_LOAD_CPU_FLOOR ? RN_LOAD_CPU_FLOOR : w > 1.0 ? 1.0 : w;
	}
	rn_stats_mann_whitney(a, na, b, nb, &e->mw);
	rn_stats_hodges_lehmann(a, na, b, nb, c->cfg->alpha, &e->hl);
	free(b);
	if (!(e->mw.p < c->cfg->alpha && e->hl.lower > e->limit))
		return T_PASS;
	if (e->hl.lower <= e->noise)
		return T_NOISE;
	if (e->hl.lower <= e->limit + e->allowance)
		return T_LOAD;
	if (c->cfg->load_guard &&
	    (s->metric == RN_METRIC_WALL || s->metric == RN_METRIC_CRITICAL_PATH)) {
		const double *cpu = c->g->samples[RN_METRIC_CPU_TIME];
		const double *wall = c->g->samples[RN_METRIC_WALL];
		struct timing_eval ce;
		bool cpu_bound;

		size_t ncpu = rn_golden_golden_n(c->g, RN_METRIC_CPU_TIME),
		       nwall = rn_golden_golden_n(c->g, RN_METRIC_WALL);

		if (!cpu || !wall || !(rn_golden_median_of(cpu, ncpu) > 0.0))
			return T_FAIL;
		cpu_bound =
		    rn_golden_median_of(cpu, ncpu) >= 0.5 * rn_golden_median_of(wall, nwall);
		if (!cpu_bound && !rn_golden_loaded(c))
			return T_FAIL; /* an I/O-bound target on a quiet machine: its own time */
		if (timing_rule(c, rn_golden_step_of(RN_METRIC_CPU_TIME), &ce) == T_FAIL)
			return T_FAIL;
		if (rn_golden_loaded(c))
			snprintf(e->why, sizeof(e->why), "cpu_time did not regress and the machine "
				 "was loaded (CPU pressure %.0f%% of the runs' time >= %.0f%%)",
				 c->r->cpu_pressure * 100.0, RN_LOAD_PRESSURE_BUSY * 100.0);
		else
			snprintf(e->why, sizeof(e->why), "cpu_time did not regress for this "
				 "CPU-bound target: the machine was busier, not the program");
		return T_GUARD;
	}
	return T_FAIL;
}

/* Write a NOT JUDGED timing verdict: `reason` for the table, `fix` says what to change. */
static void not_judged(struct rn_verdict_result *v, struct rn_buf *m, struct rn_buf *det,
		       const char *head, const char *reason, const char *fix)
{
	v->verdict = RN_VERDICT_NOT_JUDGED;
	rn_golden_set_reason(v, "%s", reason);
	rn_buf_addf(m, "%s; not judged: %s; to judge it: %s", head, reason, fix);
	rn_buf_addf(det, "not judged: %s\nto judge it: %s\n", reason, fix);
}

void rn_golden_judge_timing(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			    struct rn_verdict_result *v)
{
	const struct rn_regression_cfg *cfg = c->cfg;
	const char *name = rn_metric_info(s->metric)->name;
	const char *tname = c->r->name ? c->r->name : "?";
	const double *a = c->g->samples[s->metric];
	size_t na = rn_golden_golden_n(c->g, s->metric), nb = rn_golden_observed_n(c->r, s->metric);
	size_t fewest = na < nb ? na : nb;
	double *b = rn_golden_observed(c->r, s->metric);
	double gold = rn_golden_median_of(a, na), obs = rn_golden_median_of(b, nb);
	double tol = rn_golden_tol_of(c, s, cfg->timing_tolerance);
	double limit = tol * gold;
	double noise = RN_GOLDEN_NOISE_SIGMAS * 1.4826 * (na ? rn_stats_mad(a, na) : 0.0);
	char o[64], g[64], d[64], t[64], conf[64], p[64], lo[64], sh[64], lim[64], al[32];
	char head[256], reason[200], fix[400];
	struct timing_eval e;
	enum timing_outcome outcome;
	struct rn_buf m, det;

	rn_golden_set_values(v, s, obs, gold, gold + limit);
	rn_golden_fmt_value(o, sizeof(o), "ns", obs);
	rn_golden_fmt_value(g, sizeof(g), "ns", gold);
	rn_golden_fmt_pct(d, sizeof(d), v->delta_pct);
	rn_golden_fmt_tol(t, sizeof(t), tol);
	rn_golden_fmt_trim(al, sizeof(al), cfg->alpha);
	rn_golden_fmt_num(conf, sizeof(conf), floor((1.0 - cfg->alpha) * 1000.0 + 0.5) / 10.0);
	snprintf(head, sizeof(head), "%s %s vs golden %s (%s)", name, o, g, d);
	rn_buf_init(&m, 0);
	rn_buf_init(&det, 0);
	rn_golden_add_sample_table(&det, "ns", a, na, b, nb);

	if (!(obs > 0.0) && gold > 0.0) {
		v->verdict = RN_VERDICT_NO_DATA;
		rn_buf_addf(&m, "%s: no data in this run (golden %s)", name, g);
		goto out;
	}
	if (!(gold > 0.0)) {
		/* A zero median is a metric the golden run did not measure: any time would look
		 * like an infinite slowdown. */
		snprintf(head, sizeof(head), "%s %s", name, o);
		snprintf(reason, sizeof(reason), "the golden trace has no %s data", name);
		not_judged(v, &m, &det, head, reason, "re-record it with renacer golden update");
		goto out;
	}
	if (!cfg->timing) {
		v->verdict = RN_VERDICT_SKIP;
		rn_golden_set_reason(v, "timing = false");
		rn_buf_addf(&m, "%s; not judged: timing is off ([regression] timing = false)",
			    head);
		goto out;
	}
	if (fewest < cfg->min_runs_for_timing) {
		size_t want = cfg->min_runs_for_timing;

		snprintf(reason, sizeof(reason), "%zu %s run%s < min_runs_for_timing %zu",
			 fewest, nb <= na ? "measured" : "golden", fewest == 1 ? "" : "s", want);
		if (nb < want && na < want)
			snprintf(fix, sizeof(fix),
				 "runs >= %zu in [[target]] '%s' (or --runs %zu), "
				 "and a golden trace of >= %zu runs ([golden] runs, then renacer "
				 "golden update)",
				 want, tname, want, want);
		else if (nb < want)
			snprintf(fix, sizeof(fix), "runs >= %zu in [[target]] '%s' (or --runs %zu)",
				 want, tname, want);
		else
			snprintf(fix, sizeof(fix), "re-record the golden trace with >= %zu runs "
				 "([golden] runs, then renacer golden update)", want);
		not_judged(v, &m, &det, head, reason, fix);
		goto out;
	}
	if (!rn_golden_timing_feasible(na, nb, cfg->alpha)) {
		size_t need = rn_golden_timing_min_runs(na, nb, cfg->alpha);

		snprintf(reason, sizeof(reason), "%zu runs vs %zu golden runs can never reach "
			 "alpha %s (smallest p %.4f)", nb, na, al, rn_golden_min_p(na, nb));
		if (need)
			snprintf(fix, sizeof(fix),
				 "runs >= %zu in [[target]] '%s' against this "
				 "%zu-run golden trace, or a golden trace of more runs",
				 need, tname, na);
		else
			snprintf(fix, sizeof(fix), "a golden trace of more runs");
		not_judged(v, &m, &det, head, reason, fix);
		goto out;
	}

	outcome = timing_rule(c, s, &e);
	rn_golden_fmt_p(p, sizeof(p), e.mw.p);
	rn_golden_fmt_signed(sh, sizeof(sh), "ns", e.hl.shift);
	rn_golden_fmt_signed(lim, sizeof(lim), "ns", limit);
	if (isfinite(e.hl.lower))
		rn_golden_fmt_signed(lo, sizeof(lo), "ns", e.hl.lower);
	else
		snprintf(lo, sizeof(lo), "none (too few runs)");
	rn_buf_addf(&m, "%s %s vs golden %s (%s, tolerance %s)", name, o, g, d, t);
	switch (outcome) {
	case T_NOISE: {
		char nz[64];

		/* The golden trace's own runs differ by more than this shift: it cannot tell the
		 * program from the noise it was recorded in. */
		rn_golden_fmt_signed(nz, sizeof(nz), "ns", noise);
		v->verdict = RN_VERDICT_WARN;
		rn_golden_set_reason(v, "inconclusive: shift %s within golden noise %s", lo, nz);
		rn_buf_addf(&m, ": INCONCLUSIVE (WARN): slower by at least %s (%s), but the golden "
			    "trace's own runs spread by %s (%.0f x 1.4826 MAD); re-record it on a "
			    "quieter machine with more runs, or raise the tolerance", lo + 1, p,
			    nz + 1, RN_GOLDEN_NOISE_SIGMAS);
		rn_buf_addf(&det, "inconclusive: the lower bound %s does not exceed the golden "
			    "noise %s\n", lo, nz);
		break;
	}
	case T_LOAD: {
		char al2[64];

		rn_golden_fmt_signed(al2, sizeof(al2), "ns", e.limit + e.allowance);
		v->verdict = RN_VERDICT_WARN;
		rn_golden_set_reason(v, "inconclusive: machine loaded (CPU pressure %.0f%%)",
			   c->r->cpu_pressure * 100.0);
		rn_buf_addf(
		    &m,
		    ": INCONCLUSIVE (WARN): slower by at least %s (%s), but the machine "
		    "was loaded (CPU pressure %.0f%% of the runs' time) and the shift stays "
		    "within tolerance plus the load allowance (%s); run the check on a "
		    "quieter machine to decide",
		    lo + 1, p, c->r->cpu_pressure * 100.0, al2 + 1);
		rn_buf_addf(&det, "inconclusive: the lower bound %s does not exceed the limit plus "
			    "the load allowance, %s (%.2f x pressure x golden%s)\n", lo, al2,
			    RN_LOAD_ALLOWANCE, s->metric == RN_METRIC_CPU_TIME
						       ? " x the syscall stops' share" : "");
		break;
	}
	case T_GUARD:
		v->verdict = RN_VERDICT_WARN;
		rn_golden_set_reason(v, "inconclusive: %s",
				     rn_golden_loaded(c) ? "machine loaded, cpu_time same"
							 : "cpu_time same (CPU-bound)");
		rn_buf_addf(&m,
			    ": INCONCLUSIVE (WARN), not FAIL: slower by at least %s (%s), but %s "
			    "([regression] load_guard)",
			    lo + 1, p, e.why);
		rn_buf_addf(&det, "load guard: %s\n", e.why);
		break;
	case T_FAIL:
		v->verdict = RN_VERDICT_FAIL;
		rn_golden_set_reason(v, "slower by >= %s (%s)", lo + 1, p);
		rn_buf_addf(&m, ": slower by at least %s at %s%% confidence (%s)", lo + 1, conf, p);
		break;
	case T_PASS:
		v->verdict = RN_VERDICT_PASS;
		if (e.mw.p < cfg->alpha) {
			rn_golden_set_reason(v, "significant (%s) but within %s", p, t);
			rn_buf_addf(&m, ": significant slowdown (%s) of at least %s, within %s", p,
				    isfinite(e.hl.lower) && e.hl.lower > 0 ? lo + 1 : "0 ms",
				    lim + 1);
		} else {
			rn_golden_set_reason(v, "no significant slowdown (%s)", p);
			rn_buf_addf(&m, ": no significant slowdown (%s)", p);
		}
		break;
	}
	rn_golden_maybe_downgrade(c, v, &m);
	if (c->r->has_cpu_pressure)
		rn_buf_addf(&det, "%-28s %13.0f%%\n", "CPU pressure during runs",
			    c->r->cpu_pressure * 100.0);
	if (c->g->timing_under_tracer) {
		/* WARN at most until the golden trace is regenerated with timing runs */
		if (v->verdict == RN_VERDICT_FAIL)
			v->verdict = RN_VERDICT_WARN;
		rn_buf_adds(&m, "; " RN_GOLDEN_UNDER_TRACER_HINT);
	}

	rn_buf_addf(&det, "%-28s %14s\n", "shift (Hodges-Lehmann)", sh);
	{
		char label[96], nz[64];

		snprintf(label, sizeof(label), "lower bound (%s%%)", conf);
		rn_buf_addf(&det, "%-28s %14s\n", label, lo);
		snprintf(label, sizeof(label), "limit (tolerance %s)", t);
		rn_buf_addf(&det, "%-28s %14s\n", label, lim);
		rn_golden_fmt_signed(nz, sizeof(nz), "ns", noise);
		rn_buf_addf(&det, "%-28s %14s\n", "golden noise (2 x 1.48 MAD)", nz);
		if (e.allowance > 0.0) {
			rn_golden_fmt_signed(nz, sizeof(nz), "ns", e.allowance);
			rn_buf_addf(&det, "%-28s %14s\n", "load allowance", nz);
		}
	}
	{
		char u[64];

		rn_golden_fixed(u, sizeof(u), e.mw.u, 1);
		rn_buf_addf(&det, "Mann-Whitney U = %s of %zu pairs, one-sided %s (%s), alpha %s\n",
			    u, na * nb, p, e.mw.exact ? "exact" : "normal approximation", al);
	}
	rn_buf_addf(&det, "rule: fails when p < alpha and the lower bound exceeds the limit, the "
			  "golden noise and (loaded machine) the limit plus the load allowance; "
			  "inconclusive (WARN) when it exceeds only some, or when the load guard "
			  "applies\n");
out:
	free(b);
	rn_golden_set_message(v, &m);
	rn_golden_add_golden_line(c, &det);
	v->detail = rn_buf_detach(&det, NULL);
}
