/*
 * calibrate.h - `renacer calibrate`: what this machine lets a timing gate detect, proved.
 *
 * For each target, on the machine the gate runs on:
 *   1. A/A: the target against itself, `pairs` timing pairs run side by side as a same-job
 *      baseline would (base and head the same tree). The noise of each time metric is the
 *      robust SD of the paired differences (1.4826 MAD), percent of the median; the verdict
 *      row `calibrate:noise` states the detection limit (assertions/sequential.h) at the
 *      first look and at max_runs, and the pairs a change of `effect` needs. It is PASS when
 *      that effect can be gated within [regression] max_runs, else WARN.
 *   2. A planted slowdown: the head side runs the target behind a shell busy loop of
 *      `plant` times the base's median CPU time (calibrated on this machine; the root process
 *      execs the target after it, so the tree is the same), and the adaptive comparison of a
 *      real check judges it. Row `calibrate:plant` is PASS when a time row FAILs (the gate
 *      caught it), FAIL when none did (the gate could not prove itself: exit 1).
 * No golden trace is read or written and nothing else is judged.
 */
#ifndef RN_CALIBRATE_H
#define RN_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "baseline.h"

/* Default A/A pairs of calibrate. */
#define RN_CALIBRATE_PAIRS 20
/* Default effect to gate, fraction (5%). */
#define RN_CALIBRATE_EFFECT_PCT 5
#define RN_CALIBRATE_EFFECT (RN_CALIBRATE_EFFECT_PCT / 100.0)

/* What calibrate measures for one target. */
struct rn_calibrate_opts {
	unsigned pairs; /* A/A pairs (>= the design's first look) */
	double effect;  /* the change to gate, fraction of the median */
	double plant;   /* planted extra CPU work, fraction of the base CPU time; 0 = twice
			 * the detection limit at max_runs, at least the effect */
	bool write;     /* --write: each target's baseline_tolerance into renacer.toml
			 * (calibrate_write.h) */
};

/*
 * The two measurements of one target (see the top of this file). `aa` runs the target on
 * both sides; `planted` runs the base side plain and the head side through the command that
 * `plant_argv` builds. Results go into the four target results (released by the caller) and
 * rows into `tv`. Returns 0 or -ECANCELED.
 */
struct rn_calibrate_sides {
	rn_baseline_run_fn fn; /* runs one run of one side */
	void *aa;              /* context: both sides the target */
	void *planted;         /* context: the head side planted */
	/* Make the planted head command: set the shell loop's iterations (ctx: `planted`). */
	void (*plant)(void *planted, unsigned long iterations);
};

#endif
