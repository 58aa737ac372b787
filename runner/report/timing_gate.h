/*
 * timing_gate.h - the one line that says whether a check gated time, and how finely: "timing
 * gated at >= +X%" or "timing not gated: ...", printed above the console table, in the GitHub
 * summary and as the JUnit testsuites' <properties>, so a green job never hides ungated time.
 *
 * A timing row is a verdict in unit "ms" of a golden or baseline comparison (type
 * "regression" or "baseline") or a critical_path assertion. A target is gated when at least
 * one of its timing rows of golden/baseline type was decided (PASS or FAIL) with a detection
 * limit (rn_verdict_result.mde_pct > 0); its gate is the smallest such limit. The check is
 * gated at the largest gate of its gated targets. A metric of a gated target is left open
 * ("wall_time not gated") when none of its rows was decided: a golden row left advisory
 * under --baseline does not open a metric that its baseline row decided.
 */
#ifndef RN_TIMING_GATE_H
#define RN_TIMING_GATE_H

#include <stddef.h>

#include "verdict.h"

/* Ungated targets named in the statement; more are counted ("and 3 more"). */
#define RN_TIMING_GATE_NAMES 8

/* What the timing rows of a check add up to (rn_timing_gate). */
struct rn_timing_gate {
	size_t targets;      /* targets with at least one golden or baseline timing row */
	size_t gated;        /* of them, gated (a decided row with a detection limit) */
	double worst_pct;    /* largest gate over the gated targets, percent */
	const char *worst;   /* its target's name (borrowed), or NULL */
	double noise_pct;    /* largest detection limit among the ungated targets' rows,
			      * percent; 0 when none was stated */
	const char *ungated; /* the first ungated target's name (borrowed), or NULL */
	/* a time metric left undecided in a gated target (cpu_time decided, wall_time not: a
	 * change that only waits longer is not gated at worst_pct); the one with the largest
	 * detection limit */
	const char *open_metric; /* its metric name, e.g. "wall_time" (borrowed), or NULL */
	const char *open_target; /* its target's name (borrowed) */
	double open_pct;         /* its detection limit, percent; 0 when none was stated */
	const char *ungated_names[RN_TIMING_GATE_NAMES]; /* the first ungated targets' names
							  * (borrowed), config order */
	size_t nungated_names;                           /* entries used in ungated_names */
};

#endif
