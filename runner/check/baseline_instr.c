/*
 * baseline_instr.c - the instruction counts of a same-job baseline (baseline.h,
 * rn_baseline_judge_instructions): a deterministic second opinion for CPU-bound work.
 *
 * Valgrind counts the instructions of the whole process tree (exec'd children included,
 * collectors/cachegrind); the count repeats to about 1e-6 run to run, so one run a side
 * decides what the time rows, at the noise of a loaded machine, leave inconclusive (the
 * approach of CodSpeed's instrumented mode). The row is judged against the time tolerance
 * (--baseline-tolerance): the instructions stand for the CPU work the time rows measure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "buf.h"
#include "internal.h"
#include "units.h"
#include "xalloc.h"

/* The count of the runs of `r` (every run carries the one Valgrind total), 0 when none. */
static double count_of(const struct rn_target_result *r)
{
	if (r->nruns)
		return (double)r->runs[0].v[RN_METRIC_INSTRUCTIONS];
	if (r->ncounts)
		return (double)r->counts[0].v[RN_METRIC_INSTRUCTIONS];
	return 0.0;
}

/* "; instructions +10.0% (Valgrind): baseline:instructions decides" after the message of an
 * inconclusive time row. */
static void note_on_time_row(struct rn_verdict_result *v, double pct)
{
	struct rn_buf msg;

	rn_buf_init(&msg, 0);
	rn_buf_adds(&msg, v->message ? v->message : "");
	rn_buf_addf(&msg, "; instructions %+.1f%% (Valgrind): baseline:instructions decides", pct);
	free(v->message);
	v->message = rn_buf_detach(&msg, NULL);
}

void rn_baseline_judge_instructions(const struct rn_baseline *b, const char *name,
				    const struct rn_target_result *head,
				    const struct rn_target_result *base, size_t first_row,
				    struct rn_target_report *tv)
{
	double h = count_of(head), s = count_of(base);
	double pct = s > 0 ? (h - s) / s * 100.0 : 0.0;
	bool grew = h > s * (1.0 + b->tolerance);
	struct rn_verdict_result *v;
	char hs[RN_UNITS_MAX], bs[RN_UNITS_MAX];
	size_t i;

	if (!(h > 0) || !(s > 0))
		return; /* a side without a count: its run failed, and says so */
	for (i = first_row; i < tv->nverdicts; i++) {
		v = &tv->verdicts[i];
		if (v->verdict == RN_BASELINE_INCONCLUSIVE && v->unit && !strcmp(v->unit, "ms"))
			note_on_time_row(v, pct);
	}
	v = rn_target_report_push_row(tv, "baseline", name, "instructions",
				      grew ? RN_VERDICT_FAIL : RN_VERDICT_PASS);
	rn_fmt_count(hs, sizeof(hs), h, "instruction");
	rn_fmt_count(bs, sizeof(bs), s, "instruction");
	v->message = rn_xstrfmt("decided by instructions (Valgrind, one run a side: the count "
				"repeats): head %s vs base %s (%+.1f%%) %s limit +%g%%",
				hs, bs, pct, grew ? "beyond" : "within", b->tolerance * 100.0);
	v->has_observed = v->has_golden = true;
	v->observed = h;
	v->golden = s;
	v->delta_pct = pct;
	v->unit = "instructions";
}
