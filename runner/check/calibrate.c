/*
 * calibrate.c - A/A noise, detection limits and a planted slowdown per target (calibrate.h).
 */
#include "calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "collector.h"
#include "internal.h"
#include "sequential.h"
#include "stats.h"
#include "xalloc.h"

/* Iterations of the loop measured once to learn its cost. */
#define LOOP_PROBE 200000ul

const char *rn_calibrate_loop_script(unsigned long iterations)
{
	static char script[160];

	snprintf(script, sizeof(script),
		 "i=0; while [ $i -lt %lu ]; do i=$((i+1)); done; exec \"$0\" \"$@\"", iterations);
	return script;
}

double rn_calibrate_loop_ns(void)
{
	struct rusage ru;
	pid_t pid;
	int status;
	char script[160];

	snprintf(script, sizeof(script), "i=0; while [ $i -lt %lu ]; do i=$((i+1)); done",
		 LOOP_PROBE);
	pid = fork();
	if (pid < 0)
		return 0.0;
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 0.0;
	return ((double)ru.ru_utime.tv_sec * 1e9 + (double)ru.ru_utime.tv_usec * 1e3 +
		(double)ru.ru_stime.tv_sec * 1e9 + (double)ru.ru_stime.tv_usec * 1e3) /
		(double)LOOP_PROBE;
}

/* The A/A statistics of one time metric. */
struct noise {
	enum rn_metric m;
	size_t n;
	double median; /* base median, ns */
	double sigma;  /* 1.4826 MAD of the differences, ns */
};

static bool noise_of(const struct rn_target_result *head, const struct rn_target_result *base,
		     enum rn_metric m, struct noise *out)
{
	out->m = m;
	out->n = rn_baseline_pair_noise(head, base, m, &out->median, &out->sigma);
	return out->n && out->median > 0.0;
}

static int measure_aa(const struct rn_calibrate_sides *s, const struct rn_baseline_plan *plan,
		      unsigned pairs, struct rn_target_result *head, struct rn_target_result *base)
{
	unsigned k;
	int rc = 0;

	for (k = 0; k < plan->warmup + pairs && !rc; k++) {
		enum rn_baseline_run kind =
			k < plan->warmup ? RN_BASELINE_WARMUP : RN_BASELINE_TIMING;
		enum rn_baseline_side first = k % 2 ? RN_BASELINE_HEAD : RN_BASELINE_BASE;

		rc = s->fn(s->aa, first, kind, RN_BASELINE_OWN_PLACE,
			   first == RN_BASELINE_HEAD ? head : base);
		if (!rc && head->status == RN_RUN_OK && base->status == RN_RUN_OK)
			rc = s->fn(s->aa,
				   first == RN_BASELINE_HEAD ? RN_BASELINE_BASE : RN_BASELINE_HEAD,
				   kind, RN_BASELINE_OWN_PLACE,
				   first == RN_BASELINE_HEAD ? base : head);
		if (head->status != RN_RUN_OK || base->status != RN_RUN_OK)
			break;
	}
	return rc;
}

static struct rn_verdict_result *row(struct rn_target_report *tv, const char *name,
				     const char *what, enum rn_verdict v)
{
	return rn_target_report_push_row(tv, "calibrate", name, what, v);
}

/* Row calibrate:noise: the noise of each metric and what the gate detects. Returns the
 * detection limit of the primary metric at the last look, fraction. */
static double noise_row(const struct rn_regression_cfg *reg, const struct rn_baseline *b,
			const struct rn_seq_design *seq, const struct rn_calibrate_opts *o,
			const char *name, const struct rn_target_result *head,
			const struct rn_target_result *base, struct rn_target_report *tv)
{
	static const enum rn_metric ms[] = { RN_METRIC_CPU_TIME, RN_METRIC_WALL };
	struct noise nz[2], *p;
	struct rn_buf msg, det;
	struct rn_verdict_result *v;
	double mde_first = INFINITY, mde_last = INFINITY;
	size_t i, need = 0;

	rn_buf_init(&msg, 0);
	rn_buf_init(&det, 0);
	for (i = 0; i < 2; i++) {
		if (!noise_of(head, base, ms[i], &nz[i]))
			continue;
		rn_buf_addf(&det, "%-10s median %.3f ms, A/A noise +-%.2f%% a pair (%zu pairs)\n",
			    rn_metric_info(ms[i])->name, nz[i].median / 1e6,
			    nz[i].sigma / nz[i].median * 100.0, nz[i].n);
	}
	{
		/* the metric a check lets decide (rn_baseline_primary) */
		struct noise cpu, wall;
		bool hc = noise_of(head, base, RN_METRIC_CPU_TIME, &cpu);
		bool hw = noise_of(head, base, RN_METRIC_WALL, &wall);

		p = hc && hw && rn_baseline_primary(head, base) == RN_METRIC_CPU_TIME ? &nz[0] :
			hw                                                            ? &nz[1] :
											NULL;
	}
	if (!p) {
		v = row(tv, name, "noise", RN_VERDICT_NO_DATA);
		v->message = rn_xstrdup("no timing data from the A/A pairs");
		rn_buf_release(&msg);
		rn_buf_release(&det);
		return INFINITY;
	}
	{
		double L = b->tolerance * p->median;

		mde_first = rn_seq_mde(L, p->sigma, (double)seq->first,
				       rn_seq_alpha(seq, seq->first), RN_SEQ_POWER);
		mde_last = rn_seq_mde(L, p->sigma, (double)seq->max, rn_seq_alpha(seq, seq->max),
				      RN_SEQ_POWER);
		need = rn_seq_runs_for(o->effect * p->median, L, p->sigma, 0, seq);
	}
	v = row(tv, name, "noise", need ? RN_VERDICT_PASS : RN_VERDICT_WARN);
	rn_buf_addf(&msg, "%s noise +-%.2f%% a pair", rn_metric_info(p->m)->name,
		    p->sigma / p->median * 100.0);
	for (i = 0; i < 2; i++)
		if (&nz[i] != p && noise_of(head, base, ms[i], &nz[i]))
			rn_buf_addf(&msg, " (%s +-%.2f%%)", rn_metric_info(ms[i])->name,
				    nz[i].sigma / nz[i].median * 100.0);
	rn_buf_addf(&msg, "; detects >= %+.1f%% at %zu pairs, >= %+.1f%% at max_runs %zu; ",
		    mde_first / p->median * 100.0, seq->first, mde_last / p->median * 100.0,
		    seq->max);
	if (need)
		rn_buf_addf(&msg, "%+.0f%% is gated with %zu pairs", o->effect * 100.0, need);
	else
		rn_buf_addf(&msg,
			    "%+.0f%% cannot be gated within max_runs %zu: raise it, or judge "
			    "instructions (deterministic) instead of time",
			    o->effect * 100.0, seq->max);
	rn_buf_addf(&det, "limit %+g%% (baseline tolerance), alpha %g over looks %zu..%zu\n",
		    b->tolerance * 100.0, reg->alpha, seq->first, seq->max);
	v->has_observed = true;
	v->observed = p->sigma / p->median * 100.0;
	v->unit = "%";
	v->mde_pct = mde_last / p->median * 100.0;
	v->message = rn_buf_detach(&msg, NULL);
	v->detail = rn_buf_detach(&det, NULL);
	return mde_last / p->median;
}

int rn_calibrate_target(const struct rn_baseline *b, const struct rn_baseline_plan *plan,
			const struct rn_regression_cfg *reg, const struct rn_calibrate_opts *o,
			const char *name, const struct rn_calibrate_sides *sides,
			struct rn_target_result *res[4], struct rn_target_report *tv)
{
	struct rn_seq_design seq = rn_baseline_design(plan, reg);
	struct rn_baseline_plan pp = *plan;
	struct rn_target_report planted;
	struct rn_verdict_result *v;
	struct noise cpu;
	double mde, plant, loop_ns;
	unsigned long iters;
	bool caught = false;
	size_t i, pairs_used = 0;
	struct rn_buf msg;
	int rc;

	rc = measure_aa(sides, plan, o->pairs > seq.first ? o->pairs : (unsigned)seq.first, res[0],
			res[1]);
	if (rc)
		return rc;
	if (res[0]->status != RN_RUN_OK || res[1]->status != RN_RUN_OK) {
		v = row(tv, name, "noise", RN_VERDICT_ERROR);
		v->message = rn_xstrdup(res[0]->error ? res[0]->error : "the target did not run");
		return 0;
	}
	if (rn_run_interrupted())
		return -ECANCELED; /* after the last A/A run: no noise row, no plant */
	mde = noise_row(reg, b, &seq, o, name, res[0], res[1], tv);
	plant = o->plant > 0 ? o->plant : 2.0 * mde;
	if (!(plant >= o->effect))
		plant = o->effect;
	loop_ns = rn_calibrate_loop_ns();
	if (rn_run_interrupted())
		return -ECANCELED;
	if (!noise_of(res[0], res[1], RN_METRIC_CPU_TIME, &cpu) || !(loop_ns > 0.0) ||
	    !isfinite(plant)) {
		v = row(tv, name, "plant", RN_VERDICT_NOT_JUDGED);
		v->message = rn_xstrdup("no slowdown planted: no CPU time measured, the shell loop "
					"could not be timed, or no detection limit");
		return 0;
	}
	iters = (unsigned long)(plant * cpu.median / loop_ns);
	sides->plant(sides->planted, iters);
	pp.counting = 0;
	memset(&planted, 0, sizeof(planted));
	rc = rn_baseline_run_target(b, &pp, reg, name, sides->fn, sides->planted, res[2], res[3],
				    &planted);
	if (!rc && rn_run_interrupted())
		rc = -ECANCELED; /* the last planted run ended well, but renacer was told to stop */
	if (rc) {
		rn_target_report_release(&planted);
		return rc;
	}
	for (i = 0; i < planted.nverdicts; i++) {
		const struct rn_verdict_result *w = &planted.verdicts[i];

		if (w->unit && !strcmp(w->unit, "ms") && w->verdict == RN_VERDICT_FAIL)
			caught = true;
	}
	pairs_used = res[2]->nruns;
	v = row(tv, name, "plant", caught ? RN_VERDICT_PASS : RN_VERDICT_FAIL);
	rn_buf_init(&msg, 0);
	rn_buf_addf(&msg,
		    "planted %+.1f%% CPU work (a %lu-iteration shell loop before exec): %s after "
		    "%zu pairs",
		    plant * 100.0, iters, caught ? "caught" : "NOT caught", pairs_used);
	for (i = 0; i < planted.nverdicts; i++) {
		const struct rn_verdict_result *w = &planted.verdicts[i];

		if (w->unit && !strcmp(w->unit, "ms") && w->assertion)
			rn_buf_addf(&msg, "; %s %s %+.1f%%", w->assertion,
				    rn_verdict_label(w->verdict), w->delta_pct);
	}
	v->message = rn_buf_detach(&msg, NULL);
	v->has_observed = true;
	v->observed = plant * 100.0;
	v->unit = "%";
	rn_target_report_release(&planted);
	return 0;
}
