/*
 * changepoint.h - change points in a metric's history: E-Divisive.
 *
 * Method: Matteson & James, "A Nonparametric Approach for Multiple Change Point Analysis of
 * Multivariate Data", JASA 109 (2014), applied as
 * MongoDB's performance CI does (Daniel et al., "Change Point Detection in Software
 * Performance Testing", ICPE 2020): the split point kappa of a segment is its end, so one pass
 * over a segment of n points costs O(n^2).
 *
 *   Q(tau) = (m k / (m + k)) * (2/(m k) sum|x_i - y_j| - sum_{i<i'}|x_i - x_i'| / C(m,2)
 *                               - sum_{j<j'}|y_j - y_j'| / C(k,2))
 *
 * for X = the m points before tau and Y = the k points from tau to the segment's end, with
 * |d| read as |d|^exponent. Matteson & James allow any exponent in (0, 2); 1 is "E-Divisive
 * means". renacer uses 0.1: CI timings have a right tail (a run 20% slow when another job
 * shares the machine), and a small exponent weighs such a far outlier little more than a near
 * one, so it neither makes a change point of its own nor pulls a real one off its commit. On
 * the synthetic histories of tests/assertions/test_changepoint.c, 97 of 100 series have all
 * three steps within +/-2 commits and none more than one false change point; with exponent 1,
 * 91 (one with two false change points).
 *
 * The hierarchical search takes the largest Q over all current segments and keeps it when a
 * permutation test finds it significant: the points of every segment are shuffled within their
 * segment `permutations` times, and p = (1 + #{permuted max Q >= observed}) / (1 + permutations).
 * The search stops at the first split with p > alpha. Shuffles use a fixed seed, so the same
 * series always gives the same answer.
 *
 * Advisory only: renacer reports change points (`renacer history changes`, the report page) and
 * never fails a check because of them.
 */
#ifndef RN_CHANGEPOINT_H
#define RN_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

/* Longest series searched (the distances take n * n doubles: 32 MiB at the limit). */
#define RN_EDIVISIVE_MAX_POINTS 2048

/* Settings of the search; rn_edivisive_cfg_init gives the defaults. */
struct rn_edivisive_cfg {
	double alpha;          /* significance level of each split (default 0.01) */
	unsigned permutations; /* permutations per test (default 199) */
	size_t min_size;       /* fewest points in a segment (default 5) */
	double exponent;       /* alpha of the energy distance |x - y|^alpha, in (0, 2)
				 * (default 0.1; 1 is E-Divisive means) */
	size_t max_changes;    /* most change points reported (default 32) */
	uint64_t seed;         /* seed of the shuffles (default fixed) */
};

/* One change point. */
struct rn_changepoint {
	size_t index;         /* first point of the new segment (0-based, 0 < index < n) */
	double q;             /* the E-Divisive statistic of the split (units of the data) */
	double p_value;       /* permutation p-value of the split */
	double median_before; /* median of the segment ending at index (from the previous
			       * change point) */
	double median_after;  /* median of the segment starting at index (to the next one) */
	double rel_change;    /* (median_after - median_before) / median_before (0 when
			       * median_before is 0) */
};

/* Set the defaults documented in struct rn_edivisive_cfg. */
void rn_edivisive_cfg_init(struct rn_edivisive_cfg *cfg);

/*
 * Find the change points of `x[0..n)` (in series order). *out receives a malloc'ed array of
 * *nout change points sorted by index (NULL when none; caller frees). Returns 0, or -EINVAL
 * for a bad cfg (alpha outside (0,1), exponent outside (0,2), min_size < 2). Series shorter than 2 * min_size have
 * no change points; longer than RN_EDIVISIVE_MAX_POINTS is -EINVAL (callers search the last
 * points). O(n^2) time per permutation. Dies on out-of-memory.
 */
int rn_edivisive(const double *x, size_t n, const struct rn_edivisive_cfg *cfg,
		 struct rn_changepoint **out, size_t *nout);

#endif
