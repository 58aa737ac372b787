/*
 * changepoint.h - change points in a metric's history: E-Divisive candidates, Welch t-test
 * significance, a minimum effect size, and the range of commits where a change may lie.
 *
 * Candidates: Matteson & James, "A Nonparametric Approach for Multiple Change Point Analysis
 * of Multivariate Data", JASA 109 (2014), applied as MongoDB's performance CI does (Daniel et
 * al., "Change Point Detection in Software Performance Testing", ICPE 2020): the split point
 * kappa of a segment is its end, so one pass over a segment of n points costs O(n^2).
 *
 *   Q(tau) = (m k / (m + k)) * (2/(m k) sum|x_i - y_j| - sum_{i<i'}|x_i - x_i'| / C(m,2)
 *                               - sum_{j<j'}|y_j - y_j'| / C(k,2))
 *
 * for X = the m points before tau and Y = the k points from tau to the segment's end, with
 * |d| read as |d|^exponent. renacer uses exponent 0.1: CI timings have a right tail (a run 20%
 * slow when another job shares the machine), and a small exponent weighs such a far outlier
 * little more than a near one.
 *
 * Location: the candidate is moved, within +/-`refine` points, to the cut that minimises the
 * sum of absolute deviations of the two sides from their medians (a slow outlier beside a
 * step cannot drag the cut onto itself). The cuts whose L1 cost is within one robust noise
 * standard deviation (1.4826 x the MAD of the residuals) of the best form the change's range
 * [first, last]: a step far above the noise has first == last; one near the noise names the
 * commits it may be at, and its index is the middle of the range (the estimate least far from
 * any cut the data cannot tell apart).
 *
 * Significance: Welch's t-test between the two sides of the cut inside its segment (the form
 * Hunter/Otava adopted in place of permutations, so the answer is deterministic and the
 * p-value is not floored at 1 / (permutations + 1)), on 10%-trimmed means (Yuen's form, so the
 * slow tail does not inflate the variance and hide a real step); the two-sided p-value from
 * Student's t distribution with Welch-Satterthwaite degrees of freedom. It is the nominal
 * p-value of the chosen cut, not corrected for having chosen the best of many: hence the
 * strict default alpha. The hierarchical search takes the
 * largest Q over all segments and keeps it when p <= alpha; it stops at the first that is not.
 * Then every cut is re-tested against its final neighbours, and the weakest cut whose p-value
 * exceeds alpha, or whose effect |median_after / median_before - 1| is below min_rel_change,
 * is merged away, until every remaining cut passes both.
 *
 * Incremental (rn_changepoints_update): cuts found earlier are kept up to the last two; only
 * the tail of the series from the second-to-last cut is searched again, so appending a run
 * costs O(tail^2), not O(n^2).
 *
 * Advisory only: renacer reports change points (`renacer history changes`, the report page) and
 * never fails a check because of them.
 */
#ifndef RN_CHANGEPOINT_H
#define RN_CHANGEPOINT_H

/* Defaults of struct rn_edivisive_cfg (rn_edivisive_cfg_init), printed by `renacer history
 * changes --help`: the largest Welch p-value of a kept change, and the smallest change kept,
 * percent of the median. */
#define RN_CHANGEPOINT_ALPHA 0.001
#define RN_CHANGEPOINT_MIN_CHANGE_PCT 2

#include <stddef.h>
#include <stdint.h>

/* Longest series searched (the distances take n * n doubles: 32 MiB at the limit). */
#define RN_EDIVISIVE_MAX_POINTS 2048

/* Settings of the search; rn_edivisive_cfg_init gives the defaults. */
struct rn_edivisive_cfg {
	double alpha;          /* largest Welch p-value of a kept change (default 0.001) */
	double min_rel_change; /* smallest |after/before - 1| reported (default 0.02: 2%) */
	size_t min_size;       /* fewest points in a segment (default 5) */
	double exponent;       /* alpha of the energy distance |x - y|^alpha, in (0, 2)
				 * (default 0.1; 1 is E-Divisive means) */
	size_t max_changes;    /* most change points reported (default 32) */
	size_t refine;         /* the L1 refinement looks this many points either side of the
				 * E-Divisive cut (default 5) */
	double trim;           /* fraction trimmed from each end of each side by the t-test
				 * (Yuen's; default 0.1, 0 is Welch's plain test) */
};

/* One change point. */
struct rn_changepoint {
	size_t index;         /* first point of the new segment (0-based, 0 < index < n) */
	size_t first, last;   /* the range of plausible first points, first <= index <= last */
	double q;             /* the E-Divisive statistic of the split (units of the data^exp) */
	double t;             /* Welch's t of after vs before (signed) */
	double p_value;       /* its two-sided p-value (not floored: 1e-300 is possible) */
	double median_before; /* median of the segment ending at index (from the previous
			       * change point) */
	double median_after;  /* median of the segment starting at index (to the next one) */
	double ratio;         /* median_after / median_before (0 when median_before is 0) */
	double rel_change;    /* ratio - 1 (0 when median_before is 0) */
};

/* Set the defaults documented in struct rn_edivisive_cfg. */
void rn_edivisive_cfg_init(struct rn_edivisive_cfg *cfg);

/*
 * Find the change points of `x[0..n)` (in series order). *out receives a malloc'ed array of
 * *nout change points sorted by index (NULL when none; caller frees). Returns 0, or -EINVAL
 * for a bad cfg (alpha outside (0,1), exponent outside (0,2), min_size < 2, min_rel_change < 0)
 * or n > RN_EDIVISIVE_MAX_POINTS (callers search the last points). Series shorter than
 * 2 * min_size have no change points. Deterministic. Dies on out-of-memory.
 */
int rn_edivisive(const double *x, size_t n, const struct rn_edivisive_cfg *cfg,
		 struct rn_changepoint **out, size_t *nout);

/*
 * As rn_edivisive, after points were appended to a series whose change points `prev[0..nprev)`
 * (indices, ascending, as returned before) are known: all but the last two are kept as they
 * are and only x[prev[nprev - 2]..n) is searched again (the whole series when nprev < 2).
 * Every cut is then re-tested and re-measured as rn_edivisive does. Same returns.
 */
int rn_changepoints_update(const double *x, size_t n, const size_t *prev, size_t nprev,
			   const struct rn_edivisive_cfg *cfg, struct rn_changepoint **out,
			   size_t *nout);

#endif
