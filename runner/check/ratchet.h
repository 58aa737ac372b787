/*
 * ratchet.h - the release ratchet: head against a release reference, in the job of
 * `renacer check --baseline DIR`.
 *
 * A pull-request gate compares head with its base: eight pull requests of +1.5% each pass a
 * 3% gate one by one and leave the program 12.6% slower. With `[ratchet]` in renacer.toml
 * (config.h: RN_RATCHET_KEYS), `check --baseline` also runs every selected target against the
 * reference, side by side as against the base (baseline.h: interleaved pairs, the adaptive
 * looks, the three-valued rule), and adds rows `ratchet:<metric>`: time rows judged with the
 * budget as their limit (FAIL when head is shown to be slower than the reference by more than
 * the budget, PASS when shown within it, INCONCLUSIVE otherwise), syscall counts with the
 * budget as their count tolerance, memory with [regression]'s tolerances. A FAIL blocks as any
 * FAIL row does.
 *
 * The reference: `reference` resolved against the config's directory when that is a directory
 * (a checkout the CI built), else a git ref of the repository holding the config, checked out
 * and built with the targets' `build` commands (checkout.h) and removed at the end of the check.
 * Without --baseline the table is not used.
 */
#ifndef RN_RATCHET_H
#define RN_RATCHET_H

#include <stdbool.h>
#include <stddef.h>

#include "baseline.h"
#include "check.h"
#include "checkout.h"
#include "config.h"
#include "otlp_context.h"

/* The ratchet of one check. Zeroed = not used. */
struct rn_ratchet {
	bool active;               /* [ratchet] set and --baseline given, set up */
	struct rn_baseline bl;     /* the reference tree, tolerance = the budget */
	struct rn_checkout co;     /* the checkout made for a git ref, or zeroed */
	struct rn_target_cfg *tcs; /* [n] the reference side of each selected target */
	size_t n;                  /* entries in tcs */
};

/*
 * Set `r` up for `cfg`'s [ratchet] and the `nsel` selected targets `sel` (indexes into
 * cfg->targets): the reference tree (checked out and built for a git ref) and each target's
 * reference side, which must be built there. Does nothing (returns 0, `r` zeroed) without a
 * [ratchet] table, without --baseline or with --no-ratchet. Returns 0 or an exit code (RN_EXIT_CONFIG: no such
 * directory or ref; RN_EXIT_TARGET: its build failed or a target is not built there), after an
 * error naming the reference. rn_ratchet_release(r) either way.
 */
int rn_ratchet_setup(struct rn_ratchet *r, const struct rn_config *cfg,
		     const struct rn_check_opts *o, const size_t *sel, size_t nsel);

/*
 * Run selected target `idx` (its config `tc`) against the reference and append its
 * `ratchet:<metric>` rows to `tv`. Its runs are its own (the head's result of the check,
 * `head`, is left as it is); a target with `instructions = true` gets `ratchet:instructions`,
 * the reference's count against the head's, judged with the budget as its limit, the head's
 * count taken from `head` (counted once in the job) when it has one. Returns 0 or -ECANCELED
 * (interrupted).
 */
int rn_ratchet_run_target(const struct rn_ratchet *r, const struct rn_config *cfg,
			  const struct rn_target_cfg *tc, size_t idx, size_t count,
			  const struct rn_check_opts *o, const struct rn_otlp_context *otlp_ctx,
			  const struct rn_target_result *head, struct rn_target_report *tv);

/* Free what `r` holds and remove a checkout it made. No-op on a zeroed one. */
void rn_ratchet_release(struct rn_ratchet *r);

#endif
