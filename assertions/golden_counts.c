/*
 * golden_counts.c - judging counts against a golden trace: total syscalls, GPU counts,
 * every syscall's count (one verdict), Valgrind instruction counts.
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

static bool count_fails(const struct rn_regression_cfg *cfg, double tol, double obs, double gold)
{
	return rn_count_grew(obs, gold, tol, (double)cfg->count_floor);
}

/* count_fails for syscall `name`: its count rule's tolerance and floor (rn_count_rule_of). */
static bool syscall_count_fails(const struct rn_regression_cfg *cfg, const char *name, double tol,
				double obs, double gold)
{
	return rn_count_grew(obs, gold, rn_count_tolerance_of(name, tol),
			     (double)rn_count_floor_of(name, cfg->count_floor));
}

/* Largest observed value that passes rn_count_grew(obs, gold, tol, floor_): both of its
 * conditions must hold to fail. */
static double count_allowed(double tol, double gold, double floor_)
{
	return fmax((gold + 1.0) * (1.0 + tol) - 1.0, gold + floor_);
}

static void add_count_rule(const struct rn_golden_cmp *c, double tolerance, struct rn_buf *b)
{
	char tol[64];

	rn_golden_fmt_trim(tol, sizeof(tol), tolerance);
	rn_buf_addf(b,
		    "rule: fails when log(observed + 1) - log(golden + 1) > log(1 + %s) and "
		    "observed - golden > %" PRIu64 " (count_tolerance, count_floor)\n",
		    tol, c->cfg->count_floor);
}

void rn_golden_judge_count(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			   struct rn_verdict_result *v)
{
	const char *name = rn_metric_info(s->metric)->name;
	double *obs_s = rn_golden_observed(c->r, s->metric);
	double gold =
		rn_golden_median_of(c->g->samples[s->metric], rn_golden_golden_n(c->g, s->metric));
	double tol = rn_golden_tol_of(c, s, c->cfg->count_tolerance);
	double obs = rn_golden_median_of(obs_s, rn_golden_observed_n(c->r, s->metric));
	double slack = 0.0, floor_, allowed;
	char o[64], g[64], d[64], t[64], a[64];
	struct rn_buf b;
	size_t i;

	/* the total carries the syscalls whose counts move by rule (futex under contention) */
	for (i = 0; s->metric == RN_METRIC_SYSCALLS && i < c->g->nsyscalls; i++)
		slack += rn_count_rule_slack(c->g->syscalls[i].name, c->g->syscalls[i].calls,
					     c->g->syscalls[i].calls_max);
	free(obs_s);
	floor_ = (double)c->cfg->count_floor + slack;
	allowed = count_allowed(tol, gold, floor_);
	rn_golden_set_values(v, s, obs, gold, allowed);
	v->verdict = rn_count_grew(obs, gold, tol, floor_) ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
	rn_golden_fmt_value(o, sizeof(o), s->unit, obs);
	rn_golden_fmt_value(g, sizeof(g), s->unit, gold);
	rn_golden_fmt_pct(d, sizeof(d), v->delta_pct);
	rn_golden_fmt_tol(t, sizeof(t), tol);
	rn_golden_set_reason(v, "%s vs golden %s, tolerance %s", d, g, t);
	rn_golden_fmt_value(a, sizeof(a), s->unit, allowed);

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s %s vs golden %s (%s, tolerance %s)", name, o, g, d, t);
	rn_golden_set_message(v, &b);

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%-16s %14s %14s %10s %14s\n", "metric", "golden", "observed", "delta",
		    "allowed");
	rn_buf_addf(&b, "%-16s %14s %14s %10s %14s\n", name, g, o, d, a);
	add_count_rule(c, tol, &b);
	if (slack > 0.0)
		rn_buf_addf(&b,
			    "the floor includes %.0f calls the count rules allow their syscalls "
			    "(futex, sched_yield, brk: renacer help tables)\n",
			    slack);
	rn_golden_add_golden_line(c, &b);
	v->detail = rn_buf_detach(&b, NULL);
}

void rn_golden_judge_processes(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			       struct rn_verdict_result *v)
{
	const double *gs = c->g->samples[s->metric];
	size_t ng = rn_golden_golden_n(c->g, s->metric), i;
	double *obs_s = rn_golden_observed(c->r, s->metric), most = 0.0;
	double obs = rn_golden_median_of(obs_s, rn_golden_observed_n(c->r, s->metric));
	double gold = rn_golden_median_of(gs, ng);
	struct rn_buf b;

	free(obs_s);
	for (i = 0; i < ng; i++)
		most = fmax(most, gs[i]);
	rn_golden_set_values(v, s, obs, gold, most);
	v->verdict = obs > most ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
	rn_golden_set_reason(v, "%g vs golden %g (most %g)", obs, gold, most);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "processes %g vs golden %g (the most of its %zu runs: %g)%s", obs, gold, ng,
		    most, obs > most ? ": a process more than any golden run started" : "");
	rn_golden_set_message(v, &b);
	rn_buf_init(&b, 0);
	rn_buf_adds(&b,
		    "rule: fails when the median process count of the runs exceeds the most "
		    "any golden run had (no tolerance: one more exec'd child is a change)\n");
	rn_golden_add_golden_line(c, &b);
	v->detail = rn_buf_detach(&b, NULL);
}

/* One syscall whose count grew or is new. */
struct sc_row {
	char *name;    /* syscall name, owned */
	double gold;   /* golden median calls (0 when new) */
	double obs;    /* observed median calls */
	double fewest; /* fewest calls of any observed run (what is judged) */
	bool is_new;   /* absent from the golden trace */
	bool fail;     /* beyond tolerance and floor */
};

/* Syscalls whose count moves between runs of an unchanged program, and the slack each gets
 * (sorted by name for bsearch). */
static const struct rn_count_rule count_rules[] = {
	/* the heap's extensions depend on where the environment and the stack's randomization
	 * leave the first allocations: perl's brk 7, 8 or 9 with 1000, 8000 or 2000 bytes of
	 * environment; python3's 135-146 */
	{ "brk", 0.0, 2, "ok (heap layout: within +2 calls)" },
	/* lock contention, which the machine's load moves in every run (xz -T2 under a loaded
	 * 2-vCPU VM's busy loop: futex 15 when recorded, 20-23 in the fewest run of unchanged
	 * checks) */
	{ "futex", RN_GOLDEN_CONTENTION_TOLERANCE, 0, "ok (lock contention: within +100%)" },
	{ "futex_waitv", RN_GOLDEN_CONTENTION_TOLERANCE, 0, "ok (lock contention: within +100%)" },
	{ "sched_yield", RN_GOLDEN_CONTENTION_TOLERANCE, 0, "ok (lock contention: within +100%)" },
};

static int cmp_rule(const void *key, const void *elem)
{
	return strcmp(key, ((const struct rn_count_rule *)elem)->syscall);
}

const struct rn_count_rule *rn_count_rule_of(const char *syscall)
{
	if (!syscall)
		return NULL;
	return bsearch(syscall, count_rules, sizeof(count_rules) / sizeof(count_rules[0]),
		       sizeof(count_rules[0]), cmp_rule);
}

const struct rn_count_rule *rn_count_rules(size_t *n)
{
	*n = sizeof(count_rules) / sizeof(count_rules[0]);
	return count_rules;
}

double rn_count_tolerance_of(const char *syscall, double tol)
{
	const struct rn_count_rule *r = rn_count_rule_of(syscall);

	return r && tol < r->tolerance_min ? r->tolerance_min : tol;
}

uint64_t rn_count_floor_of(const char *syscall, uint64_t floor_)
{
	const struct rn_count_rule *r = rn_count_rule_of(syscall);

	return r && floor_ < r->floor_min ? r->floor_min : floor_;
}

bool rn_count_grew(double obs, double ref, double tol, double floor_)
{
	return log1p(obs) - log1p(ref) > log1p(tol) && obs - ref > floor_;
}

double rn_count_limit(double ref, double tol, double floor_)
{
	return fmax((ref + 1.0) * (1.0 + tol) - 1.0, ref + floor_);
}

double rn_count_rule_slack(const char *syscall, double ref_median, double ref_most)
{
	const struct rn_count_rule *r = rn_count_rule_of(syscall);

	if (!r)
		return 0.0;
	return fmax((1.0 + r->tolerance_min) * fmax(ref_most, ref_median) - ref_median,
		    (double)r->floor_min);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct sc_row *a = pa, *b = pb;
	double ga = log1p(a->obs) - log1p(a->gold), gb = log1p(b->obs) - log1p(b->gold);

	if (a->fail != b->fail)
		return a->fail ? -1 : 1;
	if (ga != gb)
		return ga > gb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static const struct rn_golden_syscall *find_syscall(const struct rn_golden *g, const char *name)
{
	struct rn_golden_syscall key = { .name = (char *)name };

	if (!g->nsyscalls)
		return NULL;
	return bsearch(&key, g->syscalls, g->nsyscalls, sizeof(key), rn_golden_cmp_syscall);
}

/* Rows listed in the detail table at most; the rest are summarized in one line. */
#define MAX_ROWS 30
/* Syscalls named in the one-line message at most. */
#define MAX_NAMED 3

/* The per-syscall comparison of rn_golden_judge_syscalls, step by step. */
struct sc_judge {
	struct sc_row *rows; /* grown or new syscalls, owned; sorted failures first */
	size_t nrows, cap;
	size_t nfail;     /* rows that fail */
	size_t nnew_fail; /* of which new */
	size_t compared;  /* syscalls seen on either side */
	size_t shrunk;    /* golden syscalls made fewer times or not at all */
	double sum_obs;   /* observed calls, all syscalls */
	double sum_gold;  /* golden calls, all syscalls */
	double tol;       /* count tolerance */
	char t[64];       /* the tolerance for people */
};

/* Rows for the observed syscalls that grew or are new. */
static void sc_collect(struct rn_golden_cmp *c, struct sc_judge *j)
{
	const struct rn_target_result *r = c->r;
	int nr, ntable = rn_syscall_table_size();

	for (nr = 0; r->syscall_calls && nr < ntable; nr++) {
		double obs = r->syscall_calls[nr];
		const struct rn_golden_syscall *gs;
		const char *name;
		struct sc_row *row;

		if (!(obs > 0.0))
			continue;
		name = rn_syscall_name(nr);
		gs = find_syscall(c->g, name);
		j->compared++;
		j->sum_obs += obs;
		if (gs && obs <= gs->calls)
			continue;
		j->rows = rn_xgrow(j->rows, &j->cap, j->nrows + 1, sizeof(*j->rows));
		row = &j->rows[j->nrows++];
		row->name = rn_xstrdup(name);
		row->gold = gs ? gs->calls : 0.0;
		row->obs = obs;
		row->fewest = rn_target_result_calls_extreme(r, nr, obs, false);
		row->is_new = !gs;
		/* Judged on the run with the fewest calls: a count the program itself changed
		 * grows in every run, one that grew in some runs only (futex, sched_yield under
		 * contention) depends on scheduling. A syscall the golden trace never made, in
		 * every run, is a change of behaviour whatever its count: one new sync() can
		 * cost seconds on a busy disk. */
		/* against the most of any golden run: the program's own run-to-run spread */
		row->fail = !gs ? row->fewest >= 1.0 :
				  syscall_count_fails(c->cfg, name, j->tol, row->fewest,
						      fmax(row->gold, gs->calls_max));
		j->nnew_fail += !gs && row->fail;
		j->nfail += row->fail;
	}
}

/* The golden side: its total, the syscalls gone, and those made fewer times. */
static void sc_golden_side(struct rn_golden_cmp *c, struct sc_judge *j)
{
	const struct rn_target_result *r = c->r;
	size_t i;

	for (i = 0; i < c->g->nsyscalls; i++) {
		const struct rn_golden_syscall *gs = &c->g->syscalls[i];
		int k = rn_syscall_lookup(gs->name);
		double obs = k >= 0 && r->syscall_calls ? r->syscall_calls[k] : 0.0;

		j->sum_gold += gs->calls;
		if (!(obs > 0.0))
			j->compared++; /* gone: counted once here, never seen in sc_collect */
		if (obs < gs->calls)
			j->shrunk++;
	}
}

/* The one-line message: the failures (at most MAX_NAMED named), or what passed. */
static void sc_message(const struct rn_golden_cmp *c, const struct sc_judge *j, struct rn_buf *b)
{
	size_t i, nnew = 0;

	if (!j->nfail) {
		rn_buf_addf(b, "%zu syscall%s within tolerance (%s, floor %" PRIu64 ")",
			    j->compared, j->compared == 1 ? "" : "s", j->t, c->cfg->count_floor);
		for (i = 0; i < j->nrows; i++) {
			char o[64];

			if (!j->rows[i].is_new)
				continue;
			rn_golden_fmt_num(o, sizeof(o), j->rows[i].obs);
			rn_buf_addf(b, "%s%s %s", nnew ? ", " : "; new: ", j->rows[i].name, o);
			nnew++;
		}
		return;
	}
	if (j->nnew_fail == j->nfail)
		rn_buf_addf(b, "%zu new syscall%s, absent from the golden trace: ", j->nfail,
			    j->nfail == 1 ? "" : "s");
	else
		rn_buf_addf(b, "%zu syscall%s %sgrew beyond tolerance (%s, floor %" PRIu64 "): ",
			    j->nfail, j->nfail == 1 ? "" : "s", j->nnew_fail ? "new or " : "", j->t,
			    c->cfg->count_floor);
	for (i = 0; i < j->nfail && i < MAX_NAMED; i++) {
		const struct sc_row *row = &j->rows[i];
		char o[64], g[64], d[64];

		rn_golden_fmt_num(o, sizeof(o), row->obs);
		rn_golden_fmt_num(g, sizeof(g), row->gold);
		rn_golden_fmt_pct(d, sizeof(d), rn_golden_delta_pct(row->obs, row->gold));
		rn_buf_addf(b, "%s%s %s vs golden %s (%s)", i ? ", " : "", row->name, o, g,
			    row->is_new ? "new" : d);
	}
	if (j->nfail > MAX_NAMED)
		rn_buf_addf(b, ", and %zu more", j->nfail - MAX_NAMED);
}

/* The status column of a row of the detail table. */
static const char *sc_status(const struct rn_golden_cmp *c, const struct sc_judge *j,
			     const struct sc_row *row)
{
	const struct rn_count_rule *rule = rn_count_rule_of(row->name);

	if (row->fail)
		return row->is_new ? "FAIL (new)" : "FAIL";
	if (row->is_new)
		return "ok (new in some runs only)";
	if (syscall_count_fails(c->cfg, row->name, j->tol, row->obs, row->gold))
		return "ok (grew in some runs only)";
	if (rule && count_fails(c->cfg, j->tol, row->fewest, row->gold))
		return rule->status;
	return "ok (within tolerance)";
}

/* The detail table (at most MAX_ROWS rows) and the rules. */
static void sc_detail(const struct rn_golden_cmp *c, const struct sc_judge *j, struct rn_buf *b)
{
	size_t i;

	if (j->nrows) {
		rn_buf_addf(b, "%-24s %12s %12s %10s  %s\n", "syscall", "golden", "observed",
			    "delta", "status");
		for (i = 0; i < j->nrows && i < MAX_ROWS; i++) {
			const struct sc_row *row = &j->rows[i];
			char o[64], g[64], d[64];

			rn_golden_fmt_num(o, sizeof(o), row->obs);
			rn_golden_fmt_num(g, sizeof(g), row->gold);
			rn_golden_fmt_pct(d, sizeof(d), rn_golden_delta_pct(row->obs, row->gold));
			rn_buf_addf(b, "%-24s %12s %12s %10s  %s\n", row->name, g, o,
				    row->is_new ? "new" : d, sc_status(c, j, row));
		}
		if (j->nrows > MAX_ROWS)
			rn_buf_addf(b, "... and %zu more grown or new syscalls\n",
				    j->nrows - MAX_ROWS);
	} else {
		rn_buf_adds(b, "no syscall grew and none is new\n");
	}
	if (j->shrunk)
		rn_buf_addf(b, "%zu syscall%s made fewer calls or none (not a regression)\n",
			    j->shrunk, j->shrunk == 1 ? "" : "s");
	add_count_rule(c, j->tol, b);
	rn_buf_adds(b,
		    "rule: a syscall absent from the golden trace fails (new behaviour); both "
		    "rules judge the run with the fewest calls, so a count that grew in some "
		    "runs only (scheduling: futex, sched_yield) does not fail; futex and "
		    "sched_yield count lock contention, which load moves: they fail only beyond "
		    "+100%\n");
	rn_golden_add_golden_line(c, b);
}

/* The row's values: the numbers that decided the worst syscall's status (sc_collect): its
 * fewest calls of any run, the golden count they were judged against (the most of any golden
 * run; 0 for a new syscall) and its limit under its own count rule (rn_count_rule_of), so a
 * FAIL row's MEASURED is above its LIMIT and a PASS row's is not. */
static void sc_set_values(const struct rn_golden_cmp *c, const struct rn_golden_step *s,
			  const struct sc_judge *j, struct rn_verdict_result *v)
{
	const struct sc_row *row = &j->rows[0];
	const struct rn_golden_syscall *gs = find_syscall(c->g, row->name);
	double ref = gs ? fmax(row->gold, gs->calls_max) : 0.0;
	double limit = gs ?
		count_allowed(rn_count_tolerance_of(row->name, j->tol), ref,
			      (double)rn_count_floor_of(row->name, c->cfg->count_floor)) :
		0.0;

	rn_golden_set_values(v, s, row->fewest, ref, limit);
}

void rn_golden_judge_syscalls(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			      struct rn_verdict_result *v)
{
	struct sc_judge j;
	struct rn_buf b;
	size_t i;

	memset(&j, 0, sizeof(j));
	j.tol = rn_golden_tol_of(c, s, c->cfg->count_tolerance);
	sc_collect(c, &j);
	sc_golden_side(c, &j);
	if (j.nrows)
		qsort(j.rows, j.nrows, sizeof(*j.rows), cmp_rows);

	if (j.nrows)
		sc_set_values(c, s, &j, v);
	else
		rn_golden_set_values(v, s, j.sum_obs, j.sum_gold,
				     count_allowed(j.tol, j.sum_gold, (double)c->cfg->count_floor));
	v->verdict = j.nfail ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
	rn_golden_fmt_tol(j.t, sizeof(j.t), j.tol);
	/* The row's numbers are one syscall's (the first of the sorted rows: failures first, then
	 * the largest growth: its fewest calls of any run against its limit, sc_set_values) or
	 * the totals: the reason names which. */
	if (j.nrows && j.nfail)
		rn_golden_set_reason(v, "%s %s; %zu syscall%s failed (%zu new, %zu grew beyond %s)",
				     j.rows[0].name,
				     j.rows[0].is_new ? "is new" : "grew most (fewest run)",
				     j.nfail, j.nfail == 1 ? "" : "s", j.nnew_fail,
				     j.nfail - j.nnew_fail, j.t);
	else if (j.nrows)
		rn_golden_set_reason(v, "%s %s; %zu syscalls within %s, none new", j.rows[0].name,
				     j.rows[0].is_new ? "is new" : "grew most (fewest run)",
				     j.compared, j.t);
	else
		rn_golden_set_reason(v, "all syscalls: %zu within %s, none new", j.compared, j.t);

	rn_buf_init(&b, 0);
	sc_message(c, &j, &b);
	rn_golden_set_message(v, &b);
	rn_buf_init(&b, 0);
	sc_detail(c, &j, &b);
	v->detail = rn_buf_detach(&b, NULL);
	for (i = 0; i < j.nrows; i++)
		free(j.rows[i].name);
	free(j.rows);
}

/* Instruction counts are deterministic: a tight relative tolerance, no floor, no load
 * guard (a loaded machine does not change them). */
void rn_golden_judge_instructions(struct rn_golden_cmp *c, const struct rn_golden_step *s,
				  struct rn_verdict_result *v)
{
	const double *a = c->g->samples[s->metric];
	size_t na = rn_golden_golden_n(c->g, s->metric), nb = rn_golden_observed_n(c->r, s->metric);
	double *b = rn_golden_observed(c->r, s->metric);
	double gold = rn_golden_median_of(a, na), obs = rn_golden_median_of(b, nb);
	double tol = rn_golden_tol_of(c, s, c->cfg->instructions_tolerance);
	double allowed = gold * (1.0 + tol);
	char d[64], t[64];
	struct rn_buf m, det;

	rn_golden_set_values(v, s, obs, gold, allowed);
	rn_golden_fmt_pct(d, sizeof(d), v->delta_pct);
	rn_golden_fixed(t, sizeof(t), tol * 100.0, 2);
	rn_buf_init(&m, 0);
	rn_buf_init(&det, 0);
	if (!(obs > 0.0)) {
		v->verdict = RN_VERDICT_NO_DATA;
		rn_buf_addf(&m,
			    "instructions: not counted in this check (golden %.0f); set "
			    "instructions = true on the target",
			    gold);
	} else {
		v->verdict = obs > allowed ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
		rn_buf_addf(&m, "instructions %.0f vs golden %.0f (%s, tolerance +%s%%)", obs, gold,
			    d, t);
	}
	rn_buf_addf(&det, "%-28s %14.0f\n", "golden", gold);
	rn_buf_addf(&det, "%-28s %14.0f\n", "observed", obs);
	rn_buf_addf(&det, "%-28s %14.0f\n", "allowed", allowed);
	rn_buf_addf(&det,
		    "rule: fails when the count exceeds golden * (1 + %s%%) "
		    "(instructions_tolerance)\n",
		    t);
	if (c->r->instructions_detail)
		rn_buf_addf(&det, "pid instructions command\n%s", c->r->instructions_detail);
	free(b);
	rn_golden_set_message(v, &m);
	rn_golden_add_golden_line(c, &det);
	v->detail = rn_buf_detach(&det, NULL);
}
