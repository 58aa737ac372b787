/*
 * golden_timing.c - judging timing against a golden trace: a three-valued decision on the
 * Hodges-Lehmann interval of the shift at the look's alpha share (assertions/sequential.h), the
 * golden's samples scaled by the speed probe, and the recording conditions that decide whether
 * the comparison gates or is advisory. Shared declarations: internal.h; the API:
 * golden.h.
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
#include "sequential.h"
#include "stats.h"
#include "xalloc.h"

/* How the timing rule decided (enum timing_outcome). */
enum timing_outcome {
	T_PASS,      /* the interval's upper bound is within the limit: shown within tolerance */
	T_FAIL,      /* the lower bound is beyond the limit (conditions match), or beyond the
		      * drift limit (they do not) */
	T_UNDECIDED, /* the interval straddles the limit: INCONCLUSIVE (WARN) */
	T_ADVISORY,  /* decided, but the conditions differ from the recording's: WARN, with the
		      * measured shift, never a gate either way */
};

/* The inputs and bounds of one timing decision. */
struct timing_eval {
	struct rn_mann_whitney mw;
	struct rn_hodges_lehmann hl; /* at the look's alpha share */
	double scale;    /* speed ratio now / recording applied to the golden samples (1: none) */
	double gold;     /* scaled golden median, ns */
	double limit;    /* tolerance * gold, ns */
	double gross;    /* drift_limit * gold, ns: what no drift explains */
	double alpha_k;  /* alpha spent at this look */
	double sigma;    /* pooled robust SD of one run (1.4826 MAD about each median), ns */
	double mde;      /* detection limit, ns (sequential.h) */
	bool comparable; /* the recording's conditions match: the comparison gates */
	bool gross_unscaled; /* beyond the drift limit scaled, within it unscaled: advisory */
	bool wall_loaded;    /* a wall metric on a loaded machine (now or when recorded): advisory
			      * at any shift, cpu_time gates */
	bool kernel_bound;   /* cpu_time of a program whose CPU time was mostly the kernel's:
			      * advisory, only its user time beyond the drift limit fails */
	bool user_within;    /* kernel_bound, and the user-time shift within the drift limit */
	bool modes;          /* a different mix of two modes explains the shift (stats.h) */
	char modes_why[200]; /* each side's modes, when `modes` */
	char why[320];       /* why they do not */
};

const struct rn_golden_step *rn_golden_step_of(enum rn_metric m);
static struct rn_seq_design design_of(const struct rn_golden_cmp *c, size_t nb);

/* The alpha spent at the look at `nb` new runs. */
static double look_alpha(const struct rn_golden_cmp *c, size_t nb)
{
	struct rn_seq_design d = design_of(c, nb);

	return rn_seq_alpha(&d, nb);
}

/* The look design of the new runs (assertions/sequential.h): r->look_first/look_max, or one
 * look at the runs there are. */
static struct rn_seq_design design_of(const struct rn_golden_cmp *c, size_t nb)
{
	struct rn_seq_design d = { nb, nb, c->cfg->alpha };

	if (c->r->look_first && c->r->look_max >= c->r->look_first) {
		d.first = c->r->look_first;
		d.max = c->r->look_max;
	}
	if (!d.first)
		d.first = d.max = 1;
	return d;
}

/*
 * Whether the runs were placed on CPUs the golden's were not: a same-job baseline pins the
 * head's timing runs (runner/check/check_run.c) and a golden is recorded unpinned. One CPU of a
 * shared VM can be much slower than another (tcc read 23 ms a run on CPU 0 and 33 ms on CPU 1
 * of the 2-vCPU VM, minutes apart), so placement alone explains any shift: such a row never
 * fails, and the same-job rows gate the time.
 */
static bool runs_placed(const struct rn_golden_cmp *c)
{
	return c->r->pin_cpu >= 0;
}

/*
 * Whether the golden's recording conditions match this run's for metric `m`, and the speed
 * ratio to scale the golden samples by. Another machine never matches, nor a loaded one (CPU
 * pressure >= RN_LOAD_PRESSURE_BUSY now or when recorded). With a speed probe on both sides
 * (runner/check/conditions.h) the machine must run at the recording's speed within
 * RN_GOLDEN_SPEED_MATCH, and the ratio is applied (wall probe for wall metrics, CPU probe for
 * cpu_time).
 */
static bool conditions_match(const struct rn_golden_cmp *c, enum rn_metric m, double *scale,
			     char *why, size_t cap)
{
	const struct rn_golden *g = c->g;
	const struct rn_target_result *r = c->r;
	double ref = m == RN_METRIC_CPU_TIME ? g->probe_cpu_ns : g->probe_wall_ns, ratio = 1.0;

	*scale = 1.0;
	/* the probe ratio scales the golden samples whether or not the comparison gates: what
	 * fails beyond the drift limit is judged against the machine's speed now */
	if (ref > 0.0 && r->nprobes) {
		double now = rn_stats_median(m == RN_METRIC_CPU_TIME ? r->probe_cpu_ns :
								       r->probe_wall_ns,
					     r->nprobes);

		*scale = now > 0.0 ? now / ref : 1.0;
		/* The probe may excuse a slowdown, never make one: a probe faster now than at the
		 * recording scales the golden down, and under load the ~2 ms probe swings 2-5x
		 * (an unchanged run faster than its golden read +46% against the scaled golden).
		 * A machine that is really faster now only makes the row conservative. */
		ratio = *scale;
		if (*scale < 1.0)
			*scale = 1.0;
	}
	/* The environment fingerprint first: it names the field that moved (a governor, a kernel
	 * of the runner image), which "another machine" would not. */
	if (c->fp_mask) {
		struct rn_buf b;

		rn_buf_init(&b, cap ? cap - 1 : 0);
		rn_buf_adds(&b, "the environment differs from the recording's (");
		rn_fingerprint_describe_diff(&b, &g->fingerprint, &r->fingerprint, c->fp_mask,
					     "here");
		rn_buf_adds(&b, "): that alone can move the time");
		snprintf(why, cap, "%s",
			 rn_buf_failed(&b) ? "the environment differs from the recording's" :
					     b.buf);
		rn_buf_release(&b);
		return false;
	}
	if (!c->same_machine) {
		snprintf(why, cap, "recorded on another machine (%.200s)", c->elsewhere);
		return false;
	}
	if (runs_placed(c)) {
		snprintf(why, cap,
			 "these runs were pinned to CPU %d for the same-job pairs and the "
			 "golden's were not: placement alone moves the time",
			 c->r->pin_cpu);
		return false;
	}
	/* A loaded machine's load moves from one moment to the next, and the golden's runs were
	 * another moment: on a shared runner an unchanged program drifted by +38% to +59%. */
	if (rn_golden_loaded(c) ||
	    (g->has_conditions && g->cpu_pressure >= RN_LOAD_PRESSURE_BUSY)) {
		snprintf(why, cap,
			 "the machine was loaded (CPU pressure %.0f%% now, %s when recorded): its "
			 "load drifts between moments",
			 r->has_cpu_pressure ? r->cpu_pressure * 100.0 : 0.0,
			 !g->has_conditions || g->cpu_pressure < 0.0      ? "unknown" :
				 g->cpu_pressure >= RN_LOAD_PRESSURE_BUSY ? "loaded" :
									    "quiet");
		return false;
	}
	/* Time spent waiting on I/O moves with the state of the device and its caches (writeback
	 * of what earlier runs wrote), which no probe measures. */
	if (rn_golden_io_bound(c)) {
		snprintf(why, cap,
			 "the runs waited on I/O (I/O pressure %.0f%% of their time): I/O time "
			 "drifts between moments",
			 r->io_pressure * 100.0);
		return false;
	}
	if (ref > 0.0 && r->nprobes) {
		if (ratio > RN_GOLDEN_SPEED_MATCH || ratio < 1.0 / RN_GOLDEN_SPEED_MATCH) {
			snprintf(why, cap,
				 "the machine ran at %.2fx the recording's speed probe time "
				 "(load or frequency differ)",
				 ratio);
			return false;
		}
		return true;
	}
	return true;
}

/* Robust SD of one run, pooled over both samples (each about its own median). */
static double pooled_sigma(const double *a, size_t na, const double *b, size_t nb)
{
	double *dev = rn_xmalloc((na + nb) * sizeof(*dev)), ma = rn_stats_median(a, na);
	double mb = rn_stats_median(b, nb), s;
	size_t i;

	for (i = 0; i < na; i++)
		dev[i] = fabs(a[i] - ma);
	for (i = 0; i < nb; i++)
		dev[na + i] = fabs(b[i] - mb);
	s = 1.4826 * rn_stats_median(dev, na + nb);
	free(dev);
	return s;
}

static enum timing_outcome timing_rule(const struct rn_golden_cmp *c,
				       const struct rn_golden_step *s, struct timing_eval *e);

/* One side's modes for a message. */
static void add_modes(struct rn_buf *b, const char *side, const struct rn_modality *m)
{
	if (m->two_modes)
		rn_buf_addf(b, "%s two modes (%zu runs near %.3f ms, %zu near %.3f ms)", side,
			    m->below, m->low_mode / 1e6, m->above, m->high_mode / 1e6);
	else
		rn_buf_addf(b, "%s one mode", side);
}

/* Whether a different mix of two modes explains the shift between the golden's samples a[na]
 * (scaled) and the runs' b[nb] (assertions/stats.h); fills e->modes_why when it does. */
static bool modes_explain(const double *a, size_t na, const double *b, size_t nb,
			  struct timing_eval *e)
{
	struct rn_modality ma, mb;
	struct rn_buf why;

	rn_stats_modality(a, na, &ma);
	rn_stats_modality(b, nb, &mb);
	if (!rn_stats_modes_explain(&mb, rn_stats_median(b, nb), &ma, rn_stats_median(a, na),
				    RN_STATS_MODES_MATCH))
		return false;
	rn_buf_init(&why, sizeof(e->modes_why) - 1);
	add_modes(&why, "this check", &mb);
	add_modes(&why, ", the golden", &ma);
	snprintf(e->modes_why, sizeof(e->modes_why), "%s",
		 rn_buf_failed(&why) ? "the sides have different modes" : why.buf);
	rn_buf_release(&why);
	return true;
}

/* Whether cpu_time failed beyond the drift limit: then a wall shift under load is the
 * program's too, and wall metrics gate beyond the drift limit again. */
static bool cpu_beyond_drift(const struct rn_golden_cmp *c)
{
	const struct rn_golden_step *cpu = rn_golden_step_of(RN_METRIC_CPU_TIME);
	struct timing_eval e;

	if (!c->g->samples[RN_METRIC_CPU_TIME] ||
	    rn_golden_golden_n(c->g, RN_METRIC_CPU_TIME) < c->cfg->min_runs_for_timing ||
	    rn_golden_observed_n(c->r, RN_METRIC_CPU_TIME) < c->cfg->min_runs_for_timing ||
	    !(rn_golden_median_of(c->g->samples[RN_METRIC_CPU_TIME],
				  rn_golden_golden_n(c->g, RN_METRIC_CPU_TIME)) > 0.0))
		return false;
	return timing_rule(c, cpu, &e) == T_FAIL;
}

/* A program whose golden CPU time was at least this share the kernel's work (system time) is
 * kernel-bound: file-system and network work, whose cost moves with the machine's state. */
#define RN_GOLDEN_KERNEL_SHARE 0.5
/* ... judged so only where the golden's median CPU time is at least this, ns (50 ms): the
 * kernel splits CPU time into user and system time by tick samples (4 ms at 250 Hz), so the
 * split of a shorter run is mostly chance (a short run's is all one or all the other) */
#define RN_GOLDEN_KERNEL_MIN_CPU_NS 50e6

double rn_golden_user_share(const struct rn_golden *g, const struct rn_regression_cfg *cfg)
{
	size_t nu = rn_golden_golden_n(g, RN_METRIC_USER_TIME),
	       nc = rn_golden_golden_n(g, RN_METRIC_CPU_TIME);
	double cpu;

	if (!g->samples[RN_METRIC_USER_TIME] || !g->samples[RN_METRIC_CPU_TIME] ||
	    nu < cfg->min_runs_for_timing || nu != nc)
		return -1.0;
	cpu = rn_golden_median_of(g->samples[RN_METRIC_CPU_TIME], nc);
	if (!(cpu >= RN_GOLDEN_KERNEL_MIN_CPU_NS))
		return -1.0;
	return rn_golden_median_of(g->samples[RN_METRIC_USER_TIME], nu) / cpu;
}

/* Whether the golden's program was kernel-bound (c->user_share): its wall time, mostly the
 * kernel's work too, is then advisory like a loaded machine's unless cpu_time fails. */
static bool golden_kernel_bound(const struct rn_golden_cmp *c)
{
	return c->user_share >= 0.0 && c->user_share < 1.0 - RN_GOLDEN_KERNEL_SHARE;
}

/*
 * cpu_time of a kernel-bound program (user_share < 1 - RN_GOLDEN_KERNEL_SHARE) is not
 * compared with another moment's: its system time moves with the state of the file system
 * and of the page cache, which no probe measures (cp -r of 500 files: system time 33, 50, then
 * 90 ms over 25 unchanged runs in a row on a 2-vCPU VM; 16 of 20 unchanged golden checks failed
 * on cpu_time). What the program does in user space is judged instead: its user time (the
 * golden's samples scaled by the CPU probe) must grow beyond the drift limit of the whole CPU
 * time to fail. Added kernel work shows in the count rows. Sets e->kernel_bound and
 * e->user_within when the rule applies; else leaves e as it is.
 */
static void kernel_bound_rule(const struct rn_golden_cmp *c, struct timing_eval *e)
{
	size_t na = rn_golden_golden_n(c->g, RN_METRIC_USER_TIME),
	       nb = rn_golden_observed_n(c->r, RN_METRIC_USER_TIME), i;
	double *a, *b;
	struct rn_hodges_lehmann hl;

	if (!golden_kernel_bound(c) || nb < 1)
		return;
	a = rn_xmalloc(na * sizeof(*a));
	for (i = 0; i < na; i++)
		a[i] = c->g->samples[RN_METRIC_USER_TIME][i] * e->scale;
	b = rn_golden_observed(c->r, RN_METRIC_USER_TIME);
	rn_stats_hodges_lehmann(a, na, b, nb, e->alpha_k, &hl);
	free(a);
	free(b);
	e->kernel_bound = true;
	e->user_within = !(hl.k && hl.lower > e->gross);
	e->comparable = false;
	snprintf(e->why, sizeof(e->why),
		 "kernel-bound: %.0f%% of the golden's CPU time was system time, which moves with "
		 "the file system's state; user time %s the drift limit",
		 (1.0 - c->user_share) * 100.0, e->user_within ? "within" : "beyond");
}

/*
 * The statistics of the timing rule for step `s` on the golden's samples a0[na] and the runs'
 * b[nb] (both non-empty): the golden samples scaled by the speed ratio, the Hodges-Lehmann
 * interval of the shift at the look's alpha share, the limits, the noise, the detection limit,
 * and what the conditions and the modes say. Fills *e.
 */
static void timing_bounds(const struct rn_golden_cmp *c, const struct rn_golden_step *s,
			  const double *a0, size_t na, const double *b, size_t nb,
			  struct timing_eval *e)
{
	double *a = rn_xmalloc(na * sizeof(*a));
	struct rn_seq_design d = design_of(c, nb);
	double tol = rn_golden_tol_of(c, s, c->cfg->timing_tolerance), n_eff;
	size_t i;

	memset(e, 0, sizeof(*e));
	e->comparable = conditions_match(c, s->metric, &e->scale, e->why, sizeof(e->why));
	for (i = 0; i < na; i++)
		a[i] = a0[i] * e->scale;
	e->gold = rn_golden_median_of(a, na);
	e->limit = tol * e->gold;
	/* against another moment a slowdown must also exceed the floor: a program of a few
	 * milliseconds moves by a large share of them between moments (an unchanged 5 ms
	 * program read +41% seconds after its golden on a CI runner) */
	if (e->limit < RN_GOLDEN_TIME_FLOOR_NS && !c->r->per_iteration)
		e->limit = RN_GOLDEN_TIME_FLOOR_NS;
	e->gross = (c->cfg->drift_limit > tol ? c->cfg->drift_limit : tol) * e->gold;
	/* scheduling noise under load is absolute: a millisecond program doubles from it alone */
	if (e->gross < RN_GOLDEN_DRIFT_FLOOR_NS && !c->r->per_iteration)
		e->gross = RN_GOLDEN_DRIFT_FLOOR_NS;
	e->alpha_k = rn_seq_alpha(&d, nb);
	rn_stats_mann_whitney(a, na, b, nb, &e->mw);
	rn_stats_hodges_lehmann(a, na, b, nb, e->alpha_k, &e->hl);
	e->sigma = pooled_sigma(a, na, b, nb);
	n_eff = 1.0 / (1.0 / (double)na + 1.0 / (double)nb);
	if (s->check == RN_GOLDEN_CHECK_CPU_TIME) {
		kernel_bound_rule(c, e);
	} else if (e->comparable && golden_kernel_bound(c)) {
		e->comparable = false;
		snprintf(e->why, sizeof(e->why),
			 "kernel-bound: most of the golden's CPU time was system time, which moves "
			 "with the file system's state");
	}
	e->mde = rn_seq_mde(e->comparable ? e->limit : e->gross, e->sigma, n_eff, e->alpha_k,
			    RN_SEQ_POWER);
	if (e->hl.k)
		e->mde = fmax(e->mde,
			      rn_seq_mde_interval(e->comparable ? e->limit : e->gross, e->hl.lower,
						  e->hl.upper, e->alpha_k, RN_SEQ_POWER));
	if (!e->comparable && e->scale != 1.0 && e->hl.k && e->hl.lower > e->gross &&
	    s->metric != RN_METRIC_CPU_TIME) {
		/* Beyond the drift limit under other conditions: the wall probe's ratio fits
		 * CPU-bound work, not every program (an I/O-bound one waits, which the probe does
		 * not), so a wall shift must stand beyond it against the unscaled golden samples
		 * too. cpu_time is what the CPU probe models: its scaled shift decides alone (an
		 * awk script at 1.6x read +54% scaled and within the drift limit unscaled under
		 * load, and a 2x ended green). */
		struct rn_hodges_lehmann raw;

		rn_stats_hodges_lehmann(a0, na, b, nb, e->alpha_k, &raw);
		e->gross_unscaled = !(raw.k && raw.lower > e->gross / e->scale);
	}
	/* the modes of both sides, while their samples are here */
	e->modes = modes_explain(a, na, b, nb, e);
	free(a);
}

/* Whether a wall time of this check is not comparable with the golden's moment at all: the
 * machine loaded now or when recorded, the runs waiting on I/O, or a kernel-bound program. */
static bool wall_drifts(const struct rn_golden_cmp *c)
{
	return rn_golden_loaded(c) || rn_golden_io_bound(c) || golden_kernel_bound(c) ||
		(c->g->has_conditions && c->g->cpu_pressure >= RN_LOAD_PRESSURE_BUSY);
}

/*
 * The timing rule for step `s` on the golden's samples a0[na] and the runs' b[nb] (both
 * present, enough runs; timing_bounds): FAIL when the interval's lower bound is beyond the
 * limit (conditions matching) or beyond the drift limit (any conditions), PASS when its upper
 * bound is within the limit (conditions matching), INCONCLUSIVE when it straddles, ADVISORY
 * when decided under other conditions. Every time row takes this rule: the metrics of the step
 * table and the program's spans (rn_golden_judge_span_time) alike.
 */
static enum timing_outcome timing_rule_of(const struct rn_golden_cmp *c,
					  const struct rn_golden_step *s, const double *a0,
					  size_t na, const double *b, size_t nb,
					  struct timing_eval *e)
{
	timing_bounds(c, s, a0, na, b, nb, e);
	/* Wall time on a loaded machine moves with the share of a CPU the program got: an
	 * unchanged sed script read 200-250 ms against a 65 ms golden (+100% and more after the
	 * probe's scaling) on a loaded 2-vCPU VM, 14 false FAILs in 20. What the program itself
	 * did is its cpu_time, which still gates beyond the drift limit; a slowdown that only
	 * waits longer needs the same-job baseline there. The same for a kernel-bound program,
	 * whose wall time is mostly the kernel's work (golden_kernel_bound). */
	e->wall_loaded = s->metric != RN_METRIC_CPU_TIME && wall_drifts(c) && !cpu_beyond_drift(c);
	/* A different mix of two modes explains a shift that is not shown within the limit */
	if (e->modes && !(e->hl.k && e->hl.upper <= e->limit))
		return T_UNDECIDED;
	e->modes = false;
	/* Another environment (c->fp_mask) explains any shift on its own: a kernel or governor
	 * change moved an unchanged program by more than any drift limit, so nothing fails */
	if (c->fp_mask || runs_placed(c))
		return e->hl.k && (e->hl.lower > e->limit || e->hl.upper <= e->limit) ? T_ADVISORY :
											T_UNDECIDED;
	if (e->hl.k && e->hl.lower > e->gross && !e->gross_unscaled && !e->wall_loaded &&
	    !e->user_within && (!e->comparable || e->hl.lower > e->limit || e->gross < e->limit))
		return T_FAIL; /* beyond any drift, whatever the conditions */
	if (e->hl.k && e->hl.lower > e->limit)
		return e->comparable ? T_FAIL : T_ADVISORY;
	if (e->hl.k && e->hl.upper <= e->limit)
		return e->comparable ? T_PASS : T_ADVISORY;
	return T_UNDECIDED;
}

/* The timing rule for step `s` on its metric's samples: the golden's and the runs'. */
static enum timing_outcome timing_rule(const struct rn_golden_cmp *c,
				       const struct rn_golden_step *s, struct timing_eval *e)
{
	size_t na = rn_golden_golden_n(c->g, s->metric), nb = rn_golden_observed_n(c->r, s->metric);
	double *b = rn_golden_observed(c->r, s->metric);
	enum timing_outcome o = timing_rule_of(c, s, c->g->samples[s->metric], na, b, nb, e);

	free(b);
	return o;
}

bool rn_golden_timing_undecided(const struct rn_golden *g, const struct rn_target_result *r,
				const struct rn_regression_cfg *cfg, bool *futile)
{
	struct rn_golden_cmp c = { .g = g, .r = r, .cfg = cfg };
	static const enum rn_metric ms[] = { RN_METRIC_WALL, RN_METRIC_CRITICAL_PATH,
					     RN_METRIC_CPU_TIME };
	size_t i;
	bool more = false;

	if (!cfg->enabled || !cfg->timing || r->status != RN_RUN_OK)
		return false;
	c.same_machine = rn_golden_same_machine(g);
	c.user_share = rn_golden_user_share(g, cfg);
	c.fp_mask = rn_golden_fp_mask(g, r);
	if (c.fp_mask || runs_placed(&c))
		return false; /* never FAIL, whatever more runs show (timing_rule) */
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		const struct rn_golden_step *s = rn_golden_step_of(ms[i]);
		struct timing_eval e;
		enum timing_outcome o;

		if (!g->samples[ms[i]] || !cfg->judged[s->check] ||
		    !rn_target_result_time_judged(r, ms[i]) ||
		    rn_golden_golden_n(g, ms[i]) < cfg->min_runs_for_timing ||
		    !(rn_golden_median_of(g->samples[ms[i]], rn_golden_golden_n(g, ms[i])) > 0.0))
			continue;
		o = timing_rule(&c, s, &e);
		if (o == T_FAIL)
			return false; /* the check fails: more runs would not change that */
		if (o != T_UNDECIDED || e.wall_loaded || e.modes ||
		    !(ms[i] == RN_METRIC_CPU_TIME || (e.hl.shift > e.limit && e.mw.p < 0.05)))
			continue;
		/* a row that cannot be decided by the last look at this noise is not worth the
		 * runs: a gating one needs its interval off the limit, an advisory one (other
		 * conditions) can only fail beyond the drift limit */
		if (e.hl.k) {
			struct rn_seq_design d = design_of(&c, rn_golden_observed_n(r, ms[i]));

			if (rn_seq_futile(&d, rn_golden_observed_n(r, ms[i]),
					  rn_golden_golden_n(g, ms[i]), e.hl.shift, e.hl.lower,
					  e.hl.upper, e.comparable ? e.limit : e.gross,
					  e.comparable)) {
				if (futile)
					*futile = true;
				continue;
			}
		}
		more = true;
	}
	if (more && futile)
		*futile = false;
	return more;
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
	char o[64], g[64], d[64], t[64], conf[64], al[32]; /* obs, gold, delta, tol, level, alpha */
	char p[64], lo[64], hi[64], sh[64], lim[64];       /* p-value, bounds, shift, limit */
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
	if (!rn_golden_timing_feasible(tj->na, tj->nb, look_alpha(c, tj->nb))) {
		timing_infeasible(c, v, tj);
		return true;
	}
	return false;
}

/* The reason of a timing row across environments: which fingerprint fields differ. */
static void fp_reason(const struct rn_golden_cmp *c, struct rn_verdict_result *v, double lo,
		      double hi)
{
	struct rn_buf names;

	rn_buf_init(&names, 160);
	rn_fingerprint_add_names(&names, c->fp_mask);
	rn_golden_set_reason(v, "inconclusive: %s differs from the golden's: CI [%+.1f%%, %+.1f%%]",
			     rn_buf_failed(&names) ? "the environment" : names.buf, lo, hi);
	rn_buf_release(&names);
}

/* The verdict and message of a comparison decided under other conditions (T_ADVISORY). */
static void advisory_verdict(const struct rn_golden_cmp *c, struct rn_verdict_result *v,
			     struct timing_job *tj, double lo, double hi, double gross)
{
	const struct timing_eval *e = &tj->e;

	v->verdict = RN_VERDICT_WARN;
	if (c->fp_mask) {
		fp_reason(c, v, lo, hi);
		rn_buf_addf(&tj->m,
			    ": INCONCLUSIVE (WARN), not a gate: CI [%+.1f%%, %+.1f%%], but "
			    "%s; re-record the golden trace in this environment "
			    "(renacer golden update), or compare with a base built in the "
			    "same job (check --baseline)",
			    lo, hi, e->why);
		return;
	}
	if (runs_placed(c)) {
		rn_golden_set_reason(v,
				     "advisory: runs pinned for --baseline: CI "
				     "[%+.1f%%, %+.1f%%]",
				     lo, hi);
		rn_buf_addf(&tj->m,
			    ": advisory (WARN), not a gate: CI [%+.1f%%, %+.1f%%], but %s; "
			    "the same-job baseline's rows gate the time of this check",
			    lo, hi, e->why);
		return;
	}
	rn_golden_set_reason(v, "advisory: conditions differ");
	if (e->wall_loaded)
		rn_buf_addf(&tj->m,
			    ": advisory (WARN), not a gate: CI [%+.1f%%, %+.1f%%], but %s; "
			    "wall time under load is not compared with a golden trace, "
			    "cpu_time is (compare with a base built in the same job: check "
			    "--baseline)",
			    lo, hi, e->why);
	else
		rn_buf_addf(&tj->m,
			    ": advisory (WARN), not a gate: CI [%+.1f%%, %+.1f%%], but %s; "
			    "only a shift beyond the drift limit %+.0f%% fails here "
			    "(compare with a base built in the same job: check --baseline)",
			    lo, hi, e->why, gross);
}

/* The verdict, reason and message of the rule's outcome. */
static void timing_verdict(const struct rn_golden_cmp *c, struct rn_verdict_result *v,
			   struct timing_job *tj, enum timing_outcome outcome)
{
	const struct timing_eval *e = &tj->e;
	/* a shift below -100% would be a negative time: the interval is cut there */
	double lo = e->gold > 0 ? fmax(e->hl.lower / e->gold * 100.0, -100.0) : 0.0;
	double hi = e->gold > 0 ? fmax(e->hl.upper / e->gold * 100.0, -100.0) : 0.0;
	double gross = e->gold > 0 ? e->gross / e->gold * 100.0 : 0.0;

	(void)c;
	switch (outcome) {
	case T_FAIL:
		v->verdict = RN_VERDICT_FAIL;
		if (e->comparable) {
			rn_golden_set_reason(v, "slower: CI [%+.1f%%, %+.1f%%] beyond %s", lo, hi,
					     tj->t);
			rn_buf_addf(&tj->m, ": slower, %s%% CI [%+.1f%%, %+.1f%%] beyond the limit",
				    tj->conf, lo, hi);
		} else {
			rn_golden_set_reason(v, "slower beyond any drift: >= %+.1f%%", lo);
			rn_buf_addf(&tj->m,
				    ": slower by at least %+.1f%%, beyond the drift limit %+.0f%% "
				    "that no change of conditions explains (%s)",
				    lo, gross, e->why);
		}
		break;
	case T_PASS:
		v->verdict = RN_VERDICT_PASS;
		rn_golden_set_reason(v, "within %s: CI [%+.1f%%, %+.1f%%]", tj->t, lo, hi);
		rn_buf_addf(&tj->m, ": within tolerance, %s%% CI [%+.1f%%, %+.1f%%]", tj->conf, lo,
			    hi);
		break;
	case T_ADVISORY:
		advisory_verdict(c, v, tj, lo, hi, gross);
		break;
	case T_UNDECIDED:
		v->verdict = RN_VERDICT_WARN;
		if (e->modes) {
			rn_golden_set_reason(v, "inconclusive: two modes: CI [%+.1f%%, %+.1f%%]",
					     lo, hi);
			rn_buf_addf(&tj->m,
				    ": INCONCLUSIVE (WARN): two modes: %s; a shift between modes "
				    "is no regression, so it does not fail (CI [%+.1f%%, %+.1f%%])",
				    e->modes_why, lo, hi);
			break;
		}
		rn_golden_set_reason(v, "inconclusive: CI [%+.1f%%, %+.1f%%] straddles %s", lo, hi,
				     tj->t);
		if (e->hl.k)
			rn_buf_addf(
				&tj->m,
				": INCONCLUSIVE (WARN): %s%% CI [%+.1f%%, %+.1f%%] straddles the "
				"limit",
				tj->conf, lo, hi);
		else
			rn_buf_adds(&tj->m,
				    ": INCONCLUSIVE (WARN): too few runs for an interval "
				    "at this look");
		if (c->r->looks_spent)
			rn_buf_adds(&tj->m,
				    "; budget spent ([regression] max_runs, time_budget_s)");
		else if (c->r->looks_futile)
			rn_buf_addf(&tj->m,
				    "; repeats stopped after %zu runs: at this noise no look up to "
				    "max_runs %zu could decide it",
				    tj->nb, c->r->look_max);
		if (!e->comparable)
			rn_buf_addf(&tj->m, "; %s", e->why);
		if (c->fp_mask)
			fp_reason(c, v, lo, hi);
		break;
	}
	if (isfinite(e->mde) && e->gold > 0)
		rn_buf_addf(&tj->m, "; detects >= %+.1f%%", e->mde / e->gold * 100.0);
}

/* The detail lines of a judged timing comparison: bounds, limit, noise, test, rule. */
static void timing_details(const struct rn_golden_cmp *c, struct timing_job *tj)
{
	const struct timing_eval *e = &tj->e;
	char label[96], nz[64], u[64];

	rn_buf_addf(&tj->det, "%-28s %14s\n", "shift (Hodges-Lehmann)", tj->sh);
	snprintf(label, sizeof(label), "interval (%s%%)", tj->conf);
	rn_buf_addf(&tj->det, "%-28s %14s .. %s\n", label, tj->lo, tj->hi);
	snprintf(label, sizeof(label), "limit (tolerance %s)", tj->t);
	rn_buf_addf(&tj->det, "%-28s %14s\n", label, tj->lim);
	rn_golden_fmt_signed(nz, sizeof(nz), "ns", e->gross);
	rn_buf_addf(&tj->det, "%-28s %14s\n", "drift limit", nz);
	rn_golden_fmt_signed(nz, sizeof(nz), "ns", e->sigma);
	rn_buf_addf(&tj->det, "%-28s %14s\n", "noise (1.48 MAD, pooled)", nz);
	if (e->scale != 1.0)
		rn_buf_addf(&tj->det, "%-28s %13.3fx\n", "golden scaled by speed probe", e->scale);
	rn_buf_addf(&tj->det, "%-28s %14s\n", "conditions",
		    e->comparable                        ? "match: gates" :
			    c->fp_mask || runs_placed(c) ? "differ: never fails" :
							   "differ: advisory");
	if (!e->comparable)
		rn_buf_addf(&tj->det, "  %s\n", e->why);
	rn_golden_fixed(u, sizeof(u), e->mw.u, 1);
	rn_buf_addf(&tj->det,
		    "Mann-Whitney U = %s of %zu pairs, one-sided %s (%s); alpha %s over looks up "
		    "to %zu runs, %.3g spent at this look\n",
		    u, tj->na * tj->nb, tj->p, e->mw.exact ? "exact" : "normal approximation",
		    tj->al, design_of(c, tj->nb).max, e->alpha_k);
	rn_buf_addf(&tj->det,
		    "rule: FAIL when the interval's lower bound exceeds the limit (conditions "
		    "match) or the drift limit (any conditions but another environment "
		    "fingerprint); PASS when its upper bound is within the limit and the "
		    "conditions match; otherwise WARN (inconclusive or advisory)\n");
}

/* Run the rule and write the verdict of a comparison that passed timing_settled_early(). */
static void timing_judge(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			 struct rn_verdict_result *v, struct timing_job *tj)
{
	enum timing_outcome outcome = timing_rule_of(c, s, tj->a, tj->na, tj->b, tj->nb, &tj->e);
	char conf[32];

	rn_golden_fmt_p(tj->p, sizeof(tj->p), tj->e.mw.p);
	rn_golden_fmt_signed(tj->sh, sizeof(tj->sh), "ns", tj->e.hl.shift);
	rn_golden_fmt_signed(tj->lim, sizeof(tj->lim), "ns", tj->e.limit);
	if (tj->e.hl.k) {
		rn_golden_fmt_signed(tj->lo, sizeof(tj->lo), "ns", tj->e.hl.lower);
		rn_golden_fmt_signed(tj->hi, sizeof(tj->hi), "ns", tj->e.hl.upper);
	} else {
		snprintf(tj->lo, sizeof(tj->lo), "none");
		snprintf(tj->hi, sizeof(tj->hi), "none (too few runs)");
	}
	snprintf(conf, sizeof(conf), "%.4g", (1.0 - 2.0 * tj->e.alpha_k) * 100.0);
	snprintf(tj->conf, sizeof(tj->conf), "%s", conf);
	/* One estimate in every column: the golden (scaled) median plus the shift. */
	tj->gold = tj->e.gold;
	rn_golden_set_values(v, s, tj->e.gold + tj->e.hl.shift, tj->e.gold,
			     tj->e.gold + tj->e.limit);
	rn_golden_fmt_value(tj->o, sizeof(tj->o), "ns", tj->e.gold + tj->e.hl.shift);
	rn_golden_fmt_value(tj->g, sizeof(tj->g), "ns", tj->e.gold);
	rn_golden_fmt_pct(tj->d, sizeof(tj->d), v->delta_pct);
	rn_buf_addf(&tj->m, "%s %s vs golden %s%s (%s, tolerance %s, %zu runs)", tj->name, tj->o,
		    tj->g, tj->e.scale != 1.0 ? " (speed-scaled)" : "", tj->d, tj->t, tj->nb);
	timing_verdict(c, v, tj, outcome);
	v->mde_pct = isfinite(tj->e.mde) && tj->e.gold > 0 ? tj->e.mde / tj->e.gold * 100.0 : 0.0;
	v->slower_shown = tj->e.hl.k && tj->e.hl.lower > 0.0 && !runs_placed(c);
	if (c->r->has_cpu_pressure)
		rn_buf_addf(&tj->det, "%-28s %13.0f%%\n", "CPU pressure during runs",
			    c->r->cpu_pressure * 100.0);
	if (c->g->timing_under_tracer) {
		/* WARN at most until the golden trace is regenerated with timing runs */
		if (v->verdict == RN_VERDICT_FAIL || v->verdict == RN_VERDICT_PASS)
			v->verdict = RN_VERDICT_WARN;
		rn_buf_adds(&tj->m, "; " RN_GOLDEN_UNDER_TRACER_HINT);
	}
	timing_details(c, tj);
}

/* Judge the samples of `tj` (name, tname, a, na, b, nb set; b owned, freed here) by the
 * timing rule into verdict `v` of step `s`: message, reason, values and details. */
static void judge_job(struct rn_golden_cmp *c, const struct rn_golden_step *s,
		      struct rn_verdict_result *v, struct timing_job *tj)
{
	const struct rn_regression_cfg *cfg = c->cfg;

	tj->fewest = tj->na < tj->nb ? tj->na : tj->nb;
	tj->gold = rn_golden_median_of(tj->a, tj->na);
	tj->obs = rn_golden_median_of(tj->b, tj->nb);
	tj->tol = rn_golden_tol_of(c, s, cfg->timing_tolerance);
	tj->limit = tj->tol * tj->gold;

	rn_golden_set_values(v, s, tj->obs, tj->gold, tj->gold + tj->limit);
	rn_golden_fmt_value(tj->o, sizeof(tj->o), "ns", tj->obs);
	rn_golden_fmt_value(tj->g, sizeof(tj->g), "ns", tj->gold);
	rn_golden_fmt_pct(tj->d, sizeof(tj->d), v->delta_pct);
	rn_golden_fmt_tol(tj->t, sizeof(tj->t), tj->tol);
	rn_golden_fmt_trim(tj->al, sizeof(tj->al), cfg->alpha);
	rn_golden_fmt_num(tj->conf, sizeof(tj->conf),
			  floor((1.0 - cfg->alpha) * 1000.0 + 0.5) / 10.0);
	snprintf(tj->head, sizeof(tj->head), "%s %s vs golden %s (%s)", tj->name, tj->o, tj->g,
		 tj->d);
	rn_buf_init(&tj->m, 0);
	rn_buf_init(&tj->det, 0);
	rn_golden_add_sample_table(&tj->det, "ns", tj->a, tj->na, tj->b, tj->nb);

	if (!timing_settled_early(c, v, tj))
		timing_judge(c, s, v, tj);
	free(tj->b);
	rn_golden_set_message(v, &tj->m);
	rn_golden_add_golden_line(c, &tj->det);
	v->detail = rn_buf_detach(&tj->det, NULL);
}

void rn_golden_judge_timing(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			    struct rn_verdict_result *v)
{
	struct timing_job tj;

	memset(&tj, 0, sizeof(tj));
	tj.name = rn_metric_info(s->metric)->name;
	tj.tname = c->r->name ? c->r->name : "?";
	tj.a = c->g->samples[s->metric];
	tj.na = rn_golden_golden_n(c->g, s->metric);
	tj.nb = rn_golden_observed_n(c->r, s->metric);
	tj.b = rn_golden_observed(c->r, s->metric);
	judge_job(c, s, v, &tj);
}

void rn_golden_judge_span_time(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			       const struct rn_span_series *gold, const struct rn_span_series *obs,
			       struct rn_verdict_result *v)
{
	bool cpu = s->check == RN_GOLDEN_CHECK_SPAN_CPU;
	const double *b = !obs ? NULL : cpu ? obs->cpu_ns : obs->ns;
	struct timing_job tj;
	struct rn_buf name;

	memset(&tj, 0, sizeof(tj));
	rn_buf_init(&name, 0);
	rn_buf_addf(&name, "%s%s", gold->name, cpu ? " CPU" : "");
	tj.name = name.buf;
	tj.tname = c->r->name ? c->r->name : "?";
	tj.a = cpu ? gold->cpu_ns : gold->ns;
	tj.na = cpu ? gold->ncpu : gold->n;
	tj.nb = !obs ? 0 : cpu ? obs->ncpu : obs->n;
	tj.b = rn_xmalloc((tj.nb ? tj.nb : 1) * sizeof(*tj.b));
	if (tj.nb)
		memcpy(tj.b, b, tj.nb * sizeof(*tj.b));
	judge_job(c, s, v, &tj);
	rn_buf_release(&name);
}
