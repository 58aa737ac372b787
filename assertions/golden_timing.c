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
	T_PASS,  /* no slowdown beyond the tolerance at significance */
	T_FAIL,  /* a regression */
	T_NOISE, /* slower beyond the tolerance, but within the golden trace's own noise */
	T_LOAD,  /* slower beyond the tolerance, but within the loaded machine's allowance */
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
			snprintf(e->why, sizeof(e->why),
				 "cpu_time did not regress and the machine "
				 "was loaded (CPU pressure %.0f%% of the runs' time >= %.0f%%)",
				 c->r->cpu_pressure * 100.0, RN_LOAD_PRESSURE_BUSY * 100.0);
		else
			snprintf(e->why, sizeof(e->why),
				 "cpu_time did not regress for this "
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

/* One timing judgement: the samples, the numbers for people, and the texts being built. */
struct timing_job {
	const char *name;      /* the metric's name */
	const char *tname;     /* the target's name, for fixes */
	const double *a;       /* golden samples [na], ns */
	double *b;             /* observed samples [nb], ns, owned */
	size_t na, nb, fewest; /* sample counts and the smaller of the two */
	double gold, obs;      /* medians, ns */
	double tol, limit;     /* tolerance and tol * gold, ns */
	double noise;          /* RN_GOLDEN_NOISE_SIGMAS * 1.4826 * golden MAD, ns */
	char o[64], g[64], d[64], t[64], conf[64], al[32]; /* obs, gold, delta, tol, level, alpha */
	char p[64], lo[64], sh[64], lim[64];               /* p-value, lower bound, shift, limit */
	char head[256];       /* "<metric> <obs> vs golden <gold> (<delta>)" */
	struct timing_eval e; /* the rule's inputs and bounds */
	struct rn_buf m, det; /* message and detail being built */
};

/* NOT JUDGED for too few runs on either side, saying which side to give more runs. */
static void timing_too_few(const struct rn_golden_cmp *c, struct rn_verdict_result *v,
			   struct timing_job *tj)
{
	size_t want = c->cfg->min_runs_for_timing;
	char reason[200], fix[400];

	snprintf(reason, sizeof(reason), "%zu %s run%s < min_runs_for_timing %zu", tj->fewest,
		 tj->nb <= tj->na ? "measured" : "golden", tj->fewest == 1 ? "" : "s", want);
	if (tj->nb < want && tj->na < want)
		snprintf(fix, sizeof(fix),
			 "runs >= %zu in [[target]] '%s' (or --runs %zu), "
			 "and a golden trace of >= %zu runs ([golden] runs, then renacer "
			 "golden update)",
			 want, tj->tname, want, want);
	else if (tj->nb < want)
		snprintf(fix, sizeof(fix), "runs >= %zu in [[target]] '%s' (or --runs %zu)", want,
			 tj->tname, want);
	else
		snprintf(fix, sizeof(fix),
			 "re-record the golden trace with >= %zu runs "
			 "([golden] runs, then renacer golden update)",
			 want);
	not_judged(v, &tj->m, &tj->det, tj->head, reason, fix);
}

/* NOT JUDGED where the run counts can never reach alpha. */
static void timing_infeasible(const struct rn_golden_cmp *c, struct rn_verdict_result *v,
			      struct timing_job *tj)
{
	size_t need = rn_golden_timing_min_runs(tj->na, tj->nb, c->cfg->alpha);
	char reason[200], fix[400];

	snprintf(reason, sizeof(reason),
		 "%zu runs vs %zu golden runs can never reach "
		 "alpha %s (smallest p %.4f)",
		 tj->nb, tj->na, tj->al, rn_golden_min_p(tj->na, tj->nb));
	if (need)
		snprintf(fix, sizeof(fix),
			 "runs >= %zu in [[target]] '%s' against this "
			 "%zu-run golden trace, or a golden trace of more runs",
			 need, tj->tname, tj->na);
	else
		snprintf(fix, sizeof(fix), "a golden trace of more runs");
	not_judged(v, &tj->m, &tj->det, tj->head, reason, fix);
}

/* The verdicts decided before any test: no data, nothing to compare with, timing off, too
 * few runs, infeasible alpha. True when one of them was written. */
static bool timing_settled_early(const struct rn_golden_cmp *c, struct rn_verdict_result *v,
				 struct timing_job *tj)
{
	char reason[200];

	if (!(tj->obs > 0.0) && tj->gold > 0.0) {
		v->verdict = RN_VERDICT_NO_DATA;
		rn_buf_addf(&tj->m, "%s: no data in this run (golden %s)", tj->name, tj->g);
		return true;
	}
	if (!(tj->gold > 0.0)) {
		/* A zero median is a metric the golden run did not measure: any time would look
		 * like an infinite slowdown. */
		snprintf(tj->head, sizeof(tj->head), "%s %s", tj->name, tj->o);
		snprintf(reason, sizeof(reason), "the golden trace has no %s data", tj->name);
		not_judged(v, &tj->m, &tj->det, tj->head, reason,
			   "re-record it with renacer golden update");
		return true;
	}
	if (!c->cfg->timing) {
		v->verdict = RN_VERDICT_SKIP;
		rn_golden_set_reason(v, "timing = false");
		rn_buf_addf(&tj->m, "%s; not judged: timing is off ([regression] timing = false)",
			    tj->head);
		return true;
	}
	if (tj->fewest < c->cfg->min_runs_for_timing) {
		timing_too_few(c, v, tj);
		return true;
	}
	if (!rn_golden_timing_feasible(tj->na, tj->nb, c->cfg->alpha)) {
		timing_infeasible(c, v, tj);
		return true;
	}
	return false;
}

/* The golden trace's own runs differ by more than this shift: it cannot tell the program from
 * the noise it was recorded in. */
static void timing_noise(struct rn_verdict_result *v, struct timing_job *tj)
{
	char nz[64];

	rn_golden_fmt_signed(nz, sizeof(nz), "ns", tj->noise);
	v->verdict = RN_VERDICT_WARN;
	rn_golden_set_reason(v, "inconclusive: shift %s within golden noise %s", tj->lo, nz);
	rn_buf_addf(&tj->m,
		    ": INCONCLUSIVE (WARN): slower by at least %s (%s), but the golden "
		    "trace's own runs spread by %s (%.0f x 1.4826 MAD); re-record it on a "
		    "quieter machine with more runs, or raise the tolerance",
		    tj->lo + 1, tj->p, nz + 1, RN_GOLDEN_NOISE_SIGMAS);
	rn_buf_addf(&tj->det,
		    "inconclusive: the lower bound %s does not exceed the golden "
		    "noise %s\n",
		    tj->lo, nz);
}

static void timing_load(const struct rn_golden_cmp *c, const struct rn_golden_step *s,
			struct rn_verdict_result *v, struct timing_job *tj)
{
	char al2[64];

	rn_golden_fmt_signed(al2, sizeof(al2), "ns", tj->e.limit + tj->e.allowance);
	v->verdict = RN_VERDICT_WARN;
	rn_golden_set_reason(v, "inconclusive: machine loaded (CPU pressure %.0f%%)",
			     c->r->cpu_pressure * 100.0);
	rn_buf_addf(&tj->m,
		    ": INCONCLUSIVE (WARN): slower by at least %s (%s), but the machine "
		    "was loaded (CPU pressure %.0f%% of the runs' time) and the shift stays "
		    "within tolerance plus the load allowance (%s); run the check on a "
		    "quieter machine to decide",
		    tj->lo + 1, tj->p, c->r->cpu_pressure * 100.0, al2 + 1);
	rn_buf_addf(&tj->det,
		    "inconclusive: the lower bound %s does not exceed the limit plus "
		    "the load allowance, %s (%.2f x pressure x golden%s)\n",
		    tj->lo, al2, RN_LOAD_ALLOWANCE,
		    s->metric == RN_METRIC_CPU_TIME ? " x the syscall stops' share" : "");
}

/* The verdict, reason and message of the rule's outcome. */
static void timing_verdict(const struct rn_golden_cmp *c, const struct rn_golden_step *s,
			   struct rn_verdict_result *v, struct timing_job *tj,
			   enum timing_outcome outcome)
{
	switch (outcome) {
	case T_NOISE:
		timing_noise(v, tj);
		break;
	case T_LOAD:
		timing_load(c, s, v, tj);
		break;
	case T_GUARD:
		v->verdict = RN_VERDICT_WARN;
		rn_golden_set_reason(v, "inconclusive: %s",
				     rn_golden_loaded(c) ? "machine loaded, cpu_time same" :
							   "cpu_time same (CPU-bound)");
		rn_buf_addf(&tj->m,
			    ": INCONCLUSIVE (WARN), not FAIL: slower by at least %s (%s), but %s "
			    "([regression] load_guard)",
			    tj->lo + 1, tj->p, tj->e.why);
		rn_buf_addf(&tj->det, "load guard: %s\n", tj->e.why);
		break;
	case T_FAIL:
		v->verdict = RN_VERDICT_FAIL;
		rn_golden_set_reason(v, "slower by >= %s (%s)", tj->lo + 1, tj->p);
		rn_buf_addf(&tj->m, ": slower by at least %s at %s%% confidence (%s)", tj->lo + 1,
			    tj->conf, tj->p);
		break;
	case T_PASS:
		v->verdict = RN_VERDICT_PASS;
		if (tj->e.mw.p < c->cfg->alpha) {
			rn_golden_set_reason(v, "significant (%s) but within %s", tj->p, tj->t);
			rn_buf_addf(&tj->m, ": significant slowdown (%s) of at least %s, within %s",
				    tj->p,
				    isfinite(tj->e.hl.lower) && tj->e.hl.lower > 0 ? tj->lo + 1 :
										     "0 ms",
				    tj->lim + 1);
		} else {
			rn_golden_set_reason(v, "no significant slowdown (%s)", tj->p);
			rn_buf_addf(&tj->m, ": no significant slowdown (%s)", tj->p);
		}
		break;
	}
}

/* The detail lines of a judged timing comparison: bounds, limit, noise, test, rule. */
static void timing_details(struct timing_job *tj)
{
	char label[96], nz[64], u[64];

	rn_buf_addf(&tj->det, "%-28s %14s\n", "shift (Hodges-Lehmann)", tj->sh);
	snprintf(label, sizeof(label), "lower bound (%s%%)", tj->conf);
	rn_buf_addf(&tj->det, "%-28s %14s\n", label, tj->lo);
	snprintf(label, sizeof(label), "limit (tolerance %s)", tj->t);
	rn_buf_addf(&tj->det, "%-28s %14s\n", label, tj->lim);
	rn_golden_fmt_signed(nz, sizeof(nz), "ns", tj->noise);
	rn_buf_addf(&tj->det, "%-28s %14s\n", "golden noise (2 x 1.48 MAD)", nz);
	if (tj->e.allowance > 0.0) {
		rn_golden_fmt_signed(nz, sizeof(nz), "ns", tj->e.allowance);
		rn_buf_addf(&tj->det, "%-28s %14s\n", "load allowance", nz);
	}
	rn_golden_fixed(u, sizeof(u), tj->e.mw.u, 1);
	rn_buf_addf(&tj->det, "Mann-Whitney U = %s of %zu pairs, one-sided %s (%s), alpha %s\n", u,
		    tj->na * tj->nb, tj->p, tj->e.mw.exact ? "exact" : "normal approximation",
		    tj->al);
	rn_buf_addf(&tj->det,
		    "rule: fails when p < alpha and the lower bound exceeds the limit, "
		    "the golden noise and (loaded machine) the limit plus the load "
		    "allowance; inconclusive (WARN) when it exceeds only some, or when "
		    "the load guard applies\n");
}

/* Run the rule and write the verdict of a comparison that passed timing_settled_early(). */
static void timing_judge(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			 struct rn_verdict_result *v, struct timing_job *tj)
{
	enum timing_outcome outcome = timing_rule(c, s, &tj->e);

	rn_golden_fmt_p(tj->p, sizeof(tj->p), tj->e.mw.p);
	rn_golden_fmt_signed(tj->sh, sizeof(tj->sh), "ns", tj->e.hl.shift);
	rn_golden_fmt_signed(tj->lim, sizeof(tj->lim), "ns", tj->limit);
	if (isfinite(tj->e.hl.lower))
		rn_golden_fmt_signed(tj->lo, sizeof(tj->lo), "ns", tj->e.hl.lower);
	else
		snprintf(tj->lo, sizeof(tj->lo), "none (too few runs)");
	rn_buf_addf(&tj->m, "%s %s vs golden %s (%s, tolerance %s)", tj->name, tj->o, tj->g, tj->d,
		    tj->t);
	timing_verdict(c, s, v, tj, outcome);
	rn_golden_maybe_downgrade(c, v, &tj->m);
	if (c->r->has_cpu_pressure)
		rn_buf_addf(&tj->det, "%-28s %13.0f%%\n", "CPU pressure during runs",
			    c->r->cpu_pressure * 100.0);
	if (c->g->timing_under_tracer) {
		/* WARN at most until the golden trace is regenerated with timing runs */
		if (v->verdict == RN_VERDICT_FAIL)
			v->verdict = RN_VERDICT_WARN;
		rn_buf_adds(&tj->m, "; " RN_GOLDEN_UNDER_TRACER_HINT);
	}
	timing_details(tj);
}

void rn_golden_judge_timing(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			    struct rn_verdict_result *v)
{
	const struct rn_regression_cfg *cfg = c->cfg;
	struct timing_job tj;

	memset(&tj, 0, sizeof(tj));
	tj.name = rn_metric_info(s->metric)->name;
	tj.tname = c->r->name ? c->r->name : "?";
	tj.a = c->g->samples[s->metric];
	tj.na = rn_golden_golden_n(c->g, s->metric);
	tj.nb = rn_golden_observed_n(c->r, s->metric);
	tj.fewest = tj.na < tj.nb ? tj.na : tj.nb;
	tj.b = rn_golden_observed(c->r, s->metric);
	tj.gold = rn_golden_median_of(tj.a, tj.na);
	tj.obs = rn_golden_median_of(tj.b, tj.nb);
	tj.tol = rn_golden_tol_of(c, s, cfg->timing_tolerance);
	tj.limit = tj.tol * tj.gold;
	tj.noise = RN_GOLDEN_NOISE_SIGMAS * 1.4826 * (tj.na ? rn_stats_mad(tj.a, tj.na) : 0.0);

	rn_golden_set_values(v, s, tj.obs, tj.gold, tj.gold + tj.limit);
	rn_golden_fmt_value(tj.o, sizeof(tj.o), "ns", tj.obs);
	rn_golden_fmt_value(tj.g, sizeof(tj.g), "ns", tj.gold);
	rn_golden_fmt_pct(tj.d, sizeof(tj.d), v->delta_pct);
	rn_golden_fmt_tol(tj.t, sizeof(tj.t), tj.tol);
	rn_golden_fmt_trim(tj.al, sizeof(tj.al), cfg->alpha);
	rn_golden_fmt_num(tj.conf, sizeof(tj.conf),
			  floor((1.0 - cfg->alpha) * 1000.0 + 0.5) / 10.0);
	snprintf(tj.head, sizeof(tj.head), "%s %s vs golden %s (%s)", tj.name, tj.o, tj.g, tj.d);
	rn_buf_init(&tj.m, 0);
	rn_buf_init(&tj.det, 0);
	rn_golden_add_sample_table(&tj.det, "ns", tj.a, tj.na, tj.b, tj.nb);

	if (!timing_settled_early(c, v, &tj))
		timing_judge(c, s, v, &tj);
	free(tj.b);
	rn_golden_set_message(v, &tj.m);
	rn_golden_add_golden_line(c, &tj.det);
	v->detail = rn_buf_detach(&tj.det, NULL);
}
