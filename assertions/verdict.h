/*
 * verdict.h - the verdict container: one target's judged outcome, its runs and its verdicts.
 *
 * The judge (runner/check) fills one struct rn_target_report per target, right after its runs:
 * assertion verdicts, golden-trace verdicts, gaps, ERROR for a target that did not run. Every
 * report (runner/report) and the history store read it; `renacer merge` rebuilds it from the
 * shards' results files.
 */
#ifndef RN_VERDICT_H
#define RN_VERDICT_H

#include <stddef.h>

#include "assertion.h"

/* What the reports read for one target: its runs and its verdicts. Borrowed result. */
struct rn_target_report {
	struct rn_target_result *result;    /* runs, metrics, last trace */
	struct rn_verdict_result *verdicts; /* assertion and golden verdicts, in config order */
	size_t nverdicts;                   /* verdicts used */
	size_t cap;                         /* verdicts allocated */
	char *golden_file;                  /* golden trace path used, owned, or NULL */
};

/* Append a zeroed verdict to `t` and return it (dies on out-of-memory). */
struct rn_verdict_result *rn_target_report_push(struct rn_target_report *t);
/* Append a verdict row of `type` named "<type>:<what>" for target `target` with verdict `v`
 * (assertion, type and target copied; the rest zeroed). Dies on out-of-memory. */
struct rn_verdict_result *rn_target_report_push_row(struct rn_target_report *t, const char *type,
						    const char *target, const char *what,
						    enum rn_verdict v);
/* Release verdicts and golden_file (not the result). */
void rn_target_report_release(struct rn_target_report *t);

#endif
