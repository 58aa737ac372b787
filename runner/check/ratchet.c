/*
 * ratchet.c - the release ratchet: head against a release reference (ratchet.h).
 */
#include "ratchet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "exitcode.h"
#include "log.h"
#include "xalloc.h"

/* The rows of the comparison are the same-job baseline's, renamed from this prefix. */
#define BASELINE_PREFIX "baseline:"
#define RATCHET_PREFIX "ratchet:"
/* baseline_instr.c's note on an inconclusive time row, and what it reads as a ratchet row */
#define NOTE_BASELINE "baseline:instructions decides"
#define NOTE_RATCHET "ratchet:instructions decides"

static bool is_dir(const char *p)
{
	struct stat st;

	return p && !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* The reference as a tree: the directory, or a checkout of the git ref, built. */
static int reference_tree(struct rn_ratchet *r, const struct rn_config *cfg,
			  const struct rn_check_opts *o)
{
	const struct rn_ratchet_cfg *rc = &cfg->ratchet;
	const char *dir = rc->reference_path;
	char *repo, *what;
	int err;

	if (!is_dir(dir)) {
		repo = rn_git_toplevel(cfg->dir);
		if (!repo) {
			rn_error("[ratchet] reference '%s': not a directory, and '%s' is not in a git "
				 "repository to check it out from",
				 rc->reference, cfg->path);
			return RN_EXIT_CONFIG;
		}
		if (!o->quiet)
			fprintf(stderr, "renacer check: [ratchet] checking out '%s'\n",
				rc->reference);
		err = rn_checkout_add(&r->co, repo, rc->reference);
		free(repo);
		if (err) {
			rn_error("[ratchet] reference '%s' is neither a directory nor a commit",
				 rc->reference);
			return RN_EXIT_CONFIG;
		}
		dir = r->co.dir;
	}
	if (rn_baseline_init(&r->bl, dir, cfg->dir))
		return RN_EXIT_CONFIG;
	r->bl.tolerance = rc->budget;
	r->bl.confirm = o->confirm;
	if (!r->co.dir)
		return 0;
	what = rn_xstrfmt("[ratchet] reference %s", rc->reference);
	err = rn_checkout_build(cfg, &r->bl, what, o->quiet);
	free(what);
	return err ? RN_EXIT_TARGET : 0;
}

int rn_ratchet_setup(struct rn_ratchet *r, const struct rn_config *cfg,
		     const struct rn_check_opts *o, const size_t *sel, size_t nsel)
{
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!cfg->ratchet.present || !o->baseline || o->no_ratchet || o->calibrate)
		return 0;
	rc = reference_tree(r, cfg, o);
	if (rc)
		return rc;
	r->tcs = rn_xcalloc(nsel + 1, sizeof(*r->tcs));
	for (i = 0; i < nsel; i++) {
		const struct rn_target_cfg *tc = &cfg->targets[sel[i]];
		struct rn_target_cfg *t = &r->tcs[i];

		rn_baseline_target(&r->bl, tc, t);
		r->n++;
		free(t->name); /* progress lines and errors name the side */
		t->name = rn_xstrfmt("%s (ratchet)", tc->name);
		if (rn_baseline_check_built(&r->bl, tc, t)) {
			rn_error("[ratchet] reference '%s': target '%s' is not built there",
				 cfg->ratchet.reference, tc->name);
			return RN_EXIT_TARGET;
		}
	}
	r->active = true;
	return 0;
}

/* Move the rows of `from` into `tv` as ratchet rows: "baseline:<metric>" becomes
 * "ratchet:<metric>" and the message names the reference and the budget. */
static void move_rows(struct rn_target_report *from, const struct rn_ratchet_cfg *rc,
		      struct rn_target_report *tv)
{
	size_t k;

	for (k = 0; k < from->nverdicts; k++) {
		struct rn_verdict_result *v = &from->verdicts[k], *d = rn_target_report_push(tv);

		*d = *v;
		memset(v, 0, sizeof(*v));
		if (d->assertion &&
		    !strncmp(d->assertion, BASELINE_PREFIX, strlen(BASELINE_PREFIX))) {
			char *name = rn_xstrfmt(RATCHET_PREFIX "%s",
						d->assertion + strlen(BASELINE_PREFIX));

			free(d->assertion);
			d->assertion = name;
		}
		{
			/* an inconclusive time row names the instruction row that decides */
			const char *m = d->message ? d->message : "";
			const char *note = strstr(m, NOTE_BASELINE);
			char *msg = note ?
				rn_xstrfmt("vs reference %s (budget %g%%): %.*s%s%s", rc->reference,
					   rc->budget * 100.0, (int)(note - m), m, NOTE_RATCHET,
					   note + strlen(NOTE_BASELINE)) :
				rn_xstrfmt("vs reference %s (budget %g%%): %s", rc->reference,
					   rc->budget * 100.0, m);

			free(d->message);
			d->message = msg;
		}
	}
	from->nverdicts = 0;
}

int rn_ratchet_run_target(const struct rn_ratchet *r, const struct rn_config *cfg,
			  const struct rn_target_cfg *tc, size_t idx, size_t count,
			  const struct rn_check_opts *o, const struct rn_otlp_context *otlp_ctx,
			  const struct rn_target_result *counted, struct rn_target_report *tv)
{
	struct rn_config rcfg;
	struct rn_target_result head, ref;
	struct rn_target_report rows;
	int rc;

	if (!r->active || idx >= r->n)
		return 0;
	/* the budget is the limit of counts too; a shallow copy, never released */
	rcfg = *cfg;
	rcfg.regression.count_tolerance = cfg->ratchet.budget;
	rn_target_result_init(&head, tc->name);
	rn_target_result_init(&ref, r->tcs[idx].name);
	memset(&rows, 0, sizeof(rows));
	rc = rn_check_run_baseline(&rcfg, tc, &r->tcs[idx], o, &r->bl, idx, count, otlp_ctx,
				   counted, &head, &ref, &rows);
	if (!rc)
		move_rows(&rows, &cfg->ratchet, tv);
	rn_target_report_release(&rows);
	rn_target_result_release(&head);
	rn_target_result_release(&ref);
	return rc;
}

void rn_ratchet_release(struct rn_ratchet *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		rn_baseline_target_release(&r->tcs[i]);
	free(r->tcs);
	rn_baseline_release(&r->bl);
	rn_checkout_remove(&r->co);
	memset(r, 0, sizeof(*r));
}
