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

/*
 * Where a failed timing row's time went (runner/check/profile_check.h), as the history store
 * keeps it with the run (runner/history/history.h, table explanations). Strings owned.
 */
struct rn_explanation {
	char *assertion;   /* the row explained ("golden:wall_time", "baseline:cpu_time") */
	char *text;        /* the ranked list, every item with its call path (as
			    * <target>.explain.txt holds it) */
	char *svg;         /* the differential flame graph's path, or NULL */
	char *base_folded; /* the base side's folded-stacks file (the golden profile for a
			    * golden row), or NULL */
	char *head_folded; /* the head side's folded-stacks file, or NULL */
};

/* What the reports read for one target: its runs and its verdicts. Borrowed result. */
struct rn_target_report {
	struct rn_target_result *result;    /* runs, metrics, last trace */
	struct rn_verdict_result *verdicts; /* assertion and golden verdicts, in config order */
	size_t nverdicts;                   /* verdicts used */
	size_t cap;                         /* verdicts allocated */
	char *golden_file;                  /* golden trace path used, owned, or NULL */
	struct rn_explanation *explain;     /* the explanation of its failed timing row, owned,
					     * or NULL (none was made) */
};

/* Append a zeroed verdict to `t` and return it (dies on out-of-memory). */
struct rn_verdict_result *rn_target_report_push(struct rn_target_report *t);
/* Append a verdict row of `type` named "<type>:<what>" for target `target` with verdict `v`
 * (assertion, type and target copied; the rest zeroed). Dies on out-of-memory. */
struct rn_verdict_result *rn_target_report_push_row(struct rn_target_report *t, const char *type,
						    const char *target, const char *what,
						    enum rn_verdict v);
/* Release verdicts, golden_file and the explanation (not the result). */
void rn_target_report_release(struct rn_target_report *t);

#endif
