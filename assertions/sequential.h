/*
 * sequential.h - timing decisions over repeated looks at growing samples (adaptive repeats),
 * and the smallest change each decision could have caught (its detection limit).
 *
 * A timing comparison is a three-valued decision (as Chromium's Pinpoint decides "different",
 * "same" or "unknown"): with the limit L (the tolerance times the reference median, the
 * smallest slowdown that matters) and a confidence interval [lower, upper] of the shift,
 *   FAIL          lower > L   (a slowdown beyond the tolerance is shown)
 *   PASS          upper <= L  (any slowdown is shown to be within the tolerance: equivalence)
 *   INCONCLUSIVE  otherwise   (measure more, or report it undecided: never a PASS)
 *
 * When a look is undecided, more runs are measured and the decision is taken again. Looking
 * repeatedly at growing data would inflate the error rates if each look used the full alpha,
 * so look j (at n_j samples; n_0 = 0) spends
 *     alpha_j = alpha * (n_j - n_(j-1)) / n_max
 * (the linear alpha-spending function alpha(t) = alpha t of Lan & DeMets 1983, with the
 * information fraction t = n / n_max), and each bound is taken at level 1 - alpha_j. By the
 * union bound the rate of a false FAIL (no slowdown beyond L, yet some look shows lower > L)
 * and of a false PASS (a slowdown beyond L, yet some look shows upper <= L) each stay at or
 * below alpha over all looks, whatever the stopping rule or budget that ends the looks early.
 *
 * Looks grow geometrically: n_1 = first, n_(j+1) = min(max, n_j + max(2, n_j / 2)).
 *
 * All functions are pure and never fail.
 */
#ifndef RN_SEQUENTIAL_H
#define RN_SEQUENTIAL_H

#include <stdbool.h>
#include <stddef.h>

/* Power at which a detection limit is stated: the change caught in 80% of checks. */
#define RN_SEQ_POWER 0.8

/* The look schedule of one comparison. */
struct rn_seq_design {
	size_t first; /* samples (pairs, or new runs) at the first look, >= 1 */
	size_t max;   /* samples at the last look, >= first */
	double alpha; /* total error rate of each kind over all looks, 0 < alpha < 0.5 */
};

/* The look after one at `n` samples; 0 when `n` >= d->max (no look is left). */
size_t rn_seq_next(const struct rn_seq_design *d, size_t n);

/*
 * The alpha spent at the look at `n` samples: alpha * (n - previous look) / max, where the
 * previous look is the last scheduled look below `n` (0 for the first). A look at a sample
 * count off the schedule (a run failed, a budget ended it) spends as the scheduled look at or
 * above it would, so the total never exceeds alpha. 0 when n == 0.
 */
double rn_seq_alpha(const struct rn_seq_design *d, size_t n);

/*
 * The smallest first look of a paired comparison (Wilcoxon signed-rank, exact: the smallest
 * one-sided p is 2^-n) that can decide at its own alpha share, for at most `max` pairs at
 * total `alpha`; 0 when none up to `max` can (the settings can never decide).
 */
size_t rn_seq_paired_first(size_t max, double alpha);

/*
 * Detection limit: the smallest true slowdown (in the unit of `limit` and `sigma`) that a FAIL
 * at a look spending `alpha_k` catches with probability `power`:
 *     limit + (z_(1 - alpha_k) + z_power) * sigma * sqrt(pi / 3 / n_eff)
 * where sigma is a robust standard deviation of one sample (1.4826 MAD) of the paired
 * differences (n_eff = pairs) or of the runs (two samples: n_eff = 1 / (1/na + 1/nb)), and
 * pi / 3 is the Hodges-Lehmann estimator's variance against the mean's under normal noise
 * (its asymptotic relative efficiency 3 / pi; Hollander, Wolfe & Chicken, section 3.2).
 * +INFINITY when n_eff <= 0 or alpha_k <= 0.
 */
double rn_seq_mde(double limit, double sigma, double n_eff, double alpha_k, double power);

/*
 * Detection limit read off the interval that decides the look: the Hodges-Lehmann interval
 * [lower, upper] at alpha_k (Walsh averages of paired differences, or the two-sample shifts)
 * is about 2 z_(1 - alpha_k) standard errors wide whatever the noise's shape, so
 *     limit + (upper - lower) / 2 * (1 + z_power / z_(1 - alpha_k))
 * and the larger of that and rn_seq_mde(limit, sigma, ...) is what a row states: the normal
 * model's sigma (1.4826 MAD) understates a heavy-tailed or two-mode noise (a parallel tree's
 * placement), the interval does not. +INFINITY when upper < lower or alpha_k is not in (0, 0.5).
 */
double rn_seq_mde_interval(double limit, double lower, double upper, double alpha_k, double power);

/*
 * The number of samples (pairs, or new runs against `n_ref` reference runs when n_ref > 0) at
 * which the detection limit of a look reaches `effect` (same unit as sigma), for a design of
 * at most `max` samples at total `alpha`; 0 when even `max` does not reach it.
 */
size_t rn_seq_runs_for(double effect, double limit, double sigma, size_t n_ref,
		       const struct rn_seq_design *d);

/* Conditional power below which a look stops for futility (rn_seq_futile). */
#define RN_SEQ_FUTILE_POWER 0.1
/* How far, in standard errors of the current look, the true shift is taken to lean from the
 * estimate towards each decision (rn_seq_futile). At the estimate itself (0) a simulated +2%
 * against a 1% limit at 3% noise a pair was caught in 77% of 1,000 sequences of up to 400 pairs
 * against 100% without futility; at 0.5, 98% (and 83% = 83% at up to 60 pairs, 2% noise),
 * while a shift at the limit still ended after a median 109 of 400 pairs (33 of 60). */
#define RN_SEQ_FUTILE_LEAN 0.5

/*
 * Futility: whether the look at `n` samples (against `n_ref` reference runs when n_ref > 0,
 * else paired) can no longer reach a decision by the design's last look at the noise it
 * measured. The standard error at the last look is projected from this look's interval
 * [lower, upper] (at this look's alpha share): it shrinks as sqrt(1/n_ref + 1/n) against a
 * fixed reference, 1/sqrt(n) for pairs. With the true shift taken RN_SEQ_FUTILE_LEAN standard
 * errors from `estimate` towards the decision in question, the chance
 * that the last look's interval clears `bound` (its conditional power) is computed for a FAIL
 * and, when `can_pass`, for a PASS (an advisory row can only fail beyond the drift limit); the
 * look is futile when both are below RN_SEQ_FUTILE_POWER. The first look (n <= d->first)
 * never is: its estimate is the noisiest (a quiet machine's +2% once read +1.3% at 12 pairs).
 * Stopping for futility only ever ends in INCONCLUSIVE, so it keeps both error rates. Units of
 * `estimate`, `lower`, `upper` and `bound` are the caller's (ns). False when no look is left.
 */
bool rn_seq_futile(const struct rn_seq_design *d, size_t n, size_t n_ref, double estimate,
		   double lower, double upper, double bound, bool can_pass);
/*
 * The samples of the next look that fit in a time budget: `more` (the look's new samples)
 * when they all fit at `pace_ns` a sample, fewer when the look would run past the budget (the
 * caller then ends with that cut look: an off-schedule look spends the alpha of the scheduled
 * look above it, rn_seq_alpha, so there must be no look after it), 0 when not one sample fits
 * (`used_ns` >= `budget_ns`). `more` when budget_ns is 0 (no limit), or when pace_ns is 0 (no
 * pace known yet) within the budget. Units: ns.
 */
size_t rn_seq_budget_fit(size_t more, double pace_ns, double used_ns, double budget_ns);
#endif
