/*
 * sequential.c - the look schedule, alpha spending and detection limits of sequential.h.
 */
#include "sequential.h"

#include <math.h>

#include "internal.h"
#include "stats.h"

size_t rn_seq_next(const struct rn_seq_design *d, size_t n)
{
	size_t step;

	if (n >= d->max)
		return 0;
	if (n < d->first)
		return d->first;
	step = n / 2 < 2 ? 2 : n / 2;
	return n + step > d->max ? d->max : n + step;
}

double rn_seq_alpha(const struct rn_seq_design *d, size_t n)
{
	size_t prev = 0, at = d->first;

	if (n == 0 || d->max == 0)
		return 0.0;
	/* the scheduled look at or above n, and the one before it */
	while (at && at < n) {
		prev = at;
		at = rn_seq_next(d, at);
	}
	if (!at)
		at = d->max; /* beyond the schedule: the last look's share */
	if (at > d->max)
		at = d->max;
	if (prev >= at)
		return 0.0;
	return d->alpha * (double)(at - prev) / (double)d->max;
}

size_t rn_seq_paired_first(size_t max, double alpha)
{
	struct rn_seq_design d = { 1, max, alpha };
	size_t n;

	for (n = 1; n <= max && n < 64; n++) {
		d.first = n;
		if (ldexp(1.0, -(int)n) <= rn_seq_alpha(&d, n))
			return n;
	}
	return 0;
}

double rn_seq_mde(double limit, double sigma, double n_eff, double alpha_k, double power)
{
	double z;

	if (!(n_eff > 0.0) || !(alpha_k > 0.0) || !(alpha_k < 1.0))
		return INFINITY;
	z = rn_stats_normal_quantile(1.0 - alpha_k) + rn_stats_normal_quantile(power);
	return limit + z * sigma * sqrt(3.14159265358979323846 / 3.0 / n_eff);
}

double rn_seq_mde_interval(double limit, double lower, double upper, double alpha_k, double power)
{
	double z;

	if (!(upper >= lower) || !(alpha_k > 0.0) || !(alpha_k < 0.5))
		return INFINITY;
	z = rn_stats_normal_quantile(1.0 - alpha_k);
	return limit + (upper - lower) / 2.0 * (1.0 + rn_stats_normal_quantile(power) / z);
}

size_t rn_seq_runs_for(double effect, double limit, double sigma, size_t n_ref,
		       const struct rn_seq_design *d)
{
	size_t n;

	for (n = d->first; n; n = rn_seq_next(d, n)) {
		double n_eff = n_ref ? 1.0 / (1.0 / (double)n + 1.0 / (double)n_ref) : (double)n;

		if (rn_seq_mde(limit, sigma, n_eff, rn_seq_alpha(d, n), RN_SEQ_POWER) <= effect)
			return n;
	}
	return 0;
}

bool rn_seq_futile(const struct rn_seq_design *d, size_t n, size_t n_ref, double estimate,
		   double lower, double upper, double bound, bool can_pass)
{
	double a_now = rn_seq_alpha(d, n), a_max = rn_seq_alpha(d, d->max), shrink, se, se_now;
	double z_max, lean;

	/* the first look's estimate is the noisiest: never stop on it */
	if (!n || n <= d->first || n >= d->max || !(upper >= lower) || !(a_now > 0.0) ||
	    !(a_max > 0.0))
		return false;
	if (n_ref)
		shrink = sqrt((1.0 / (double)n_ref + 1.0 / (double)d->max) /
			      (1.0 / (double)n_ref + 1.0 / (double)n));
	else
		shrink = sqrt((double)n / (double)d->max);
	/* the standard error now and at the last look, from this look's interval */
	se_now = (upper - lower) / 2.0 / rn_stats_normal_quantile(1.0 - a_now);
	se = se_now * shrink;
	z_max = rn_stats_normal_quantile(1.0 - a_max);
	if (!(se > 0.0))
		return false;
	/* conditional power with the true shift leaning RN_SEQ_FUTILE_LEAN standard errors from the
	 * estimate towards each decision: the chance that the last look decides */
	lean = RN_SEQ_FUTILE_LEAN * se_now;
	if (rn_stats_normal_sf(z_max - (estimate + lean - bound) / se) >= RN_SEQ_FUTILE_POWER)
		return false; /* a FAIL is within reach */
	if (can_pass &&
	    rn_stats_normal_sf(z_max - (bound - estimate + lean) / se) >= RN_SEQ_FUTILE_POWER)
		return false; /* a PASS is */
	return true;
}

size_t rn_seq_budget_fit(size_t more, double pace_ns, double used_ns, double budget_ns)
{
	double fit;

	if (!(budget_ns > 0.0))
		return more;
	if (used_ns >= budget_ns)
		return 0;
	if (!(pace_ns > 0.0))
		return more;
	fit = (budget_ns - used_ns) / pace_ns;
	return fit < (double)more ? (size_t)fit : more;
}
