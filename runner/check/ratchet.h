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

#endif
