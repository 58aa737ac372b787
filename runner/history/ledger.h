/*
 * ledger.h - the gate-quality ledger: how far each assertion's verdicts can be trusted, from the
 * verdicts of the history store (`renacer history quality`, the report page).
 *
 * Per assertion (target and name) over the recorded checks:
 *   runs, fails          verdicts recorded, of which FAIL
 *   rerun_commits        commits checked more than once (the same commit_sha, or the commit a
 *                        `check --rerun-of` named): the code did not change between those runs
 *   flips                verdict changes between consecutive runs of one such commit
 *   false_alarms         FAILs of re-run commits whose runs mostly PASS (the code was fine:
 *                        the gate fired on noise); false_alarm_rate = false_alarms / the runs
 *                        of those commits (-1 when there are none)
 *   overridden           FAILs followed by a PASS of the same commit (a re-run overrode them)
 *   noise                the observed value's robust relative sd (1.4826 x MAD of each run's
 *                        deviation from its commit's median, re-run commits; else of the
 *                        successive differences / sqrt 2 of all runs)
 *   budget               the last recorded budget (the assertion's threshold in its unit)
 *   suggested            median x (1 + 3 noise) of the passing commits' observed values, and
 *                        suggested_false_alarm_rate: the share of the re-run commits' runs it
 *                        would have failed (-1 when there are none)
 *
 * Errors: rn_ledger_read returns 0 or the store's negative errno (h->err set).
 */
#ifndef RN_LEDGER_H
#define RN_LEDGER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "history.h"

/* One assertion's ledger (the rates are computed from the counts). */
struct rn_ledger {
	char *target;          /* target name, owned */
	char *assertion;       /* assertion name, owned */
	char *unit;            /* unit of observed and budget ("ms", "calls", ...), owned */
	size_t runs;           /* verdicts recorded */
	size_t fails;          /* of which FAIL */
	size_t rerun_commits;  /* commits with more than one run */
	size_t flips;          /* verdict changes between consecutive runs of one commit */
	size_t false_alarms;   /* FAILs of re-run commits whose runs mostly PASS */
	size_t pool;           /* runs of those commits (false_alarm_rate's denominator) */
	size_t overridden;     /* FAILs a later run of the same commit passed */
	double noise;          /* relative sd of the observed value, -1 when unknown */
	double budget;         /* last recorded budget, in unit (when has_budget) */
	bool has_budget;       /* some verdict had a budget */
	double median;         /* median observed value of the pool (or of every run) */
	double suggested;      /* median x (1 + 3 noise), -1 when unknown */
	double suggested_rate; /* share of the pool's runs above suggested, -1 when no pool */
	double *obs;           /* observed values of the pool [nobs], owned (working data) */
	size_t nobs, capobs;   /* its length and capacity */
	double *dev;           /* deviations from their commit's median, relative [ndev], owned */
	size_t ndev, capdev;   /* its length and capacity */
	double *all;           /* every observed value, by commit then run [nall], owned */
	size_t nall, capall;   /* its length and capacity */
};

/* Every assertion's ledger, and the commit being read (private to rn_ledger_read). */
struct rn_ledger_set {
	struct rn_ledger *l; /* the ledgers [n], owned */
	size_t n, cap;       /* count and capacity */
	/* private: the commit being read */
	char key[256];
	size_t g_n, g_pass, g_fail, g_flips, g_over, g_pending_fails;
	char g_last[16];
	double *g_obs;
	size_t g_nobs, g_capobs;
};

/*
 * Read the ledger of every assertion, in (target, assertion) order, over the runs of
 * `machine`, `target` (each when not NULL) and from run id `min_run` on (when not NULL; the
 * page's window). Golden updates do not count. *ls is filled (release it with
 * rn_ledger_release, also after a failure).
 */
int rn_ledger_read(struct rn_history *h, const char *machine, const char *target,
		   const char *min_run, struct rn_ledger_set *ls);
/* Free what rn_ledger_read filled. */
void rn_ledger_release(struct rn_ledger_set *ls);
/* One assertion's ledger as a new JSON object (the fields of the list above; null where a
 * rate or value is unknown). */
json_t *rn_ledger_json(const struct rn_ledger *l);

#endif
