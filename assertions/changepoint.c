/*
 * changepoint.c - E-Divisive candidates, L1 location, Welch significance (see changepoint.h
 * for the method and its sources).
 */
#include "changepoint.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "xalloc.h"

void rn_edivisive_cfg_init(struct rn_edivisive_cfg *cfg)
{
	cfg->alpha = RN_CHANGEPOINT_ALPHA;
	cfg->min_rel_change = RN_CHANGEPOINT_MIN_CHANGE_PCT / 100.0;
	cfg->min_size = 5;
	cfg->exponent = 0.1;
	cfg->max_changes = 32;
	cfg->refine = 5;
	cfg->trim = 0.1;
}

/* ---- Student's t tail ---------------------------------------------------------------------- */

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap, h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2)), del;

		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Yuen's statistics of x[0..n): the mean of the middle h = n - 2g sorted values (g = floor(trim
 * n)) and d = (n - 1) s_w^2 / (h (h - 1)), s_w^2 the variance of x winsorized at g.
 */
static void trimmed(const double *x, size_t n, double trim, double *mean, double *d, size_t *h)
{
	double *v = rn_xmalloc(n * sizeof(*v)), s = 0, ws = 0, wm, ss = 0;
	size_t g = (size_t)floor(trim * (double)n), i;

	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	*h = n - 2 * g;
	for (i = g; i < n - g; i++)
		s += v[i];
	*mean = s / (double)*h;
	for (i = 0; i < n; i++) {
		v[i] = v[i < g ? g : i >= n - g ? n - g - 1 : i];
		ws += v[i];
	}
	wm = ws / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - wm) * (v[i] - wm);
	*d = ss / ((double)*h * (double)(*h - 1));
	free(v);
}

double rn_welch_p(const double *a, size_t na, const double *b, size_t nb, double trim, double *t)
{
	double ma, da, mb, db, se, df;
	size_t ha, hb;

	*t = 0;
	if (na < 2 || nb < 2 || !(trim >= 0 && trim < 0.5))
		return 1;
	trimmed(a, na, trim, &ma, &da, &ha);
	trimmed(b, nb, trim, &mb, &db, &hb);
	if (ha < 2 || hb < 2)
		return 1;
	se = sqrt(da + db);
	if (!(se > 0) || se < fabs(ma) * DBL_EPSILON * 16) {
		if (ma == mb)
			return 1;
		*t = mb > ma ? INFINITY : -INFINITY;
		return 0;
	}
	*t = (mb - ma) / se;
	df = (da + db) * (da + db) / (da * da / (double)(ha - 1) + db * db / (double)(hb - 1));
	return inc_beta(df / 2, 0.5, df / (df + *t * *t));
}

/* ---- E-Divisive candidates ----------------------------------------------------------------- */

/* Distances |x_i - x_j|^exponent of the searched points, computed once. */
struct dist_matrix {
	const double *d; /* n x n, row-major */
	size_t n;        /* points */
};

/*
 * The best split of the points [a, b) of the matrix: moves the points one by one from Y to X
 * keeping the three sums of distances (within X, within Y, across) up to date, O(n) per step.
 * Returns the largest Q with both sides >= min_size, and its position (from a) in *tau (0
 * when none).
 */
static double best_split(const struct dist_matrix *m, size_t a, size_t b, size_t min_size,
			 size_t *tau)
{
	double sx = 0, sy = 0, sxy = 0, best = -1;
	size_t n = b - a, i, j, t;

	*tau = 0;
	if (n < 2 * min_size)
		return -1;
	for (i = a; i < b; i++)
		for (j = i + 1; j < b; j++)
			sy += m->d[i * m->n + j];
	for (t = 0; t + min_size <= n; t++) {
		if (t >= min_size) {
			double mm = (double)t, k = (double)(n - t);
			double e = 2.0 * sxy / (mm * k) - sx / (mm * (mm - 1) / 2) -
				sy / (k * (k - 1) / 2);
			double q = mm * k / (mm + k) * e;

			if (q > best) {
				best = q;
				*tau = t;
			}
		}
		/* Move point a + t from Y to X. */
		{
			const double *row = m->d + (a + t) * m->n;
			double dx = 0, dy = 0;

			for (i = a; i < a + t; i++)
				dx += row[i];
			for (i = a + t + 1; i < b; i++)
				dy += row[i];
			sx += dx;
			sy -= dy;
			sxy += dy - dx;
		}
	}
	return best;
}

/* Median of x[a..b), b > a. tmp holds b - a doubles. */
static double median_of(const double *x, size_t a, size_t b, double *tmp)
{
	size_t n = b - a;

	memcpy(tmp, x + a, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* Sum of min(|x_i - median|, cap) over [a, b). */
static double capped_cost(const double *x, size_t a, size_t b, double cap, double *tmp)
{
	double med = median_of(x, a, b, tmp), s = 0;
	size_t i;

	for (i = a; i < b; i++)
		s += fmin(fabs(x[i] - med), cap);
	return s;
}

/* 1.4826 x the median absolute residual of [a, c) around the medians of [a, t) and [t, c):
 * the noise sd, robust to the slow tail. tmp holds 2 (c - a) doubles. */
static double robust_sd(const double *x, size_t a, size_t t, size_t c, double *tmp)
{
	double ml = median_of(x, a, t, tmp), mr = median_of(x, t, c, tmp);
	double *res = tmp + (c - a);
	size_t i;

	for (i = a; i < c; i++)
		res[i - a] = fabs(x[i] - (i < t ? ml : mr));
	return 1.4826 * median_of(res, 0, c - a, tmp);
}

/*
 * The cut of the segment [a, c) near `guess` (both sides >= min_size) with the least sum of
 * absolute deviations from the two medians, each deviation capped at 3 noise sd (so a slow
 * outlier beside a step weighs no more than an ordinary far point), and the range of cuts in
 * the window whose cost is within one noise sd of the best. Returns the middle of that range.
 */
static size_t locate(const double *x, size_t a, size_t c, size_t guess,
		     const struct rn_edivisive_cfg *cfg, size_t *first, size_t *last, double *tmp)
{
	size_t lo =
		guess > a + cfg->min_size + cfg->refine ? guess - cfg->refine : a + cfg->min_size;
	size_t hi =
		guess + cfg->refine + cfg->min_size <= c ? guess + cfg->refine : c - cfg->min_size;
	double cost[64], best_cost = INFINITY, sigma = robust_sd(x, a, guess, c, tmp), cap;
	size_t t, best = guess;

	cap = sigma > 0 ? 3 * sigma : INFINITY;
	if (hi - lo >= 64)
		hi = lo + 63;
	for (t = lo; t <= hi; t++) {
		cost[t - lo] = capped_cost(x, a, t, cap, tmp) + capped_cost(x, t, c, cap, tmp);
		if (cost[t - lo] < best_cost) {
			best_cost = cost[t - lo];
			best = t;
		}
	}
	*first = best;
	*last = best;
	for (t = lo; t <= hi; t++)
		if (cost[t - lo] - best_cost <= sigma) {
			if (t < *first)
				*first = t;
			if (t > *last)
				*last = t;
		}
	/* Where the fit cannot tell the cuts apart, the middle of the range is the estimate
	 * least far from any of them (a posterior median rather than the noisiest mode). */
	return *first + (*last - *first + 1) / 2;
}

/* The test of cut b[i] against its neighbours b[i-1], b[i+1]. */
static void measure(const double *x, const size_t *b, size_t i, const struct rn_edivisive_cfg *cfg,
		    struct rn_changepoint *c, double *tmp)
{
	c->index = b[i];
	c->p_value = rn_welch_p(x + b[i - 1], b[i] - b[i - 1], x + b[i], b[i + 1] - b[i], cfg->trim,
				&c->t);
	c->median_before = median_of(x, b[i - 1], b[i], tmp);
	c->median_after = median_of(x, b[i], b[i + 1], tmp);
	c->ratio = c->median_before != 0 ? c->median_after / c->median_before : 0;
	c->rel_change = c->median_before != 0 ? c->ratio - 1 : 0;
}

static bool cfg_ok(const struct rn_edivisive_cfg *cfg)
{
	return cfg->alpha > 0 && cfg->alpha < 1 && cfg->min_size >= 2 && cfg->exponent > 0 &&
		cfg->exponent < 2 && cfg->min_rel_change >= 0 && cfg->refine < 30 &&
		cfg->trim >= 0 && cfg->trim < 0.5;
}

/* Insert `v` into the sorted b[0..*nb). */
static void insert_cut(size_t *b, size_t *nb, size_t v)
{
	size_t i;

	for (i = *nb; i > 0 && b[i - 1] > v; i--)
		b[i] = b[i - 1];
	b[i] = v;
	(*nb)++;
}

/*
 * Search x[start..n) hierarchically, adding its cuts to b (sorted, holding 0, the kept cuts,
 * start when > 0, and n).
 */
static void search_tail(const double *x, size_t n, size_t start, size_t *b, size_t *nb,
			const struct rn_edivisive_cfg *cfg, double *tmp)
{
	size_t len = n - start, i, j;
	double *d = rn_xmalloc(len * len * sizeof(*d));
	struct dist_matrix m = { d, len };

	for (i = 0; i < len; i++) {
		d[i * len + i] = 0;
		for (j = i + 1; j < len; j++) {
			double v = fabs(x[start + i] - x[start + j]);

			if (cfg->exponent != 1)
				v = pow(v, cfg->exponent);
			d[i * len + j] = v;
			d[j * len + i] = v;
		}
	}
	while (*nb - 2 < cfg->max_changes) {
		double best = -1, t;
		size_t s, where = 0, seg = 0, first, last, at;

		for (s = 0; s + 1 < *nb; s++) {
			size_t tau;
			double q;

			if (b[s] < start)
				continue;
			q = best_split(&m, b[s] - start, b[s + 1] - start, cfg->min_size, &tau);
			if (tau && q > best) {
				best = q;
				where = b[s] + tau;
				seg = s;
			}
		}
		if (!where)
			break;
		at = locate(x, b[seg], b[seg + 1], where, cfg, &first, &last, tmp);
		if (rn_welch_p(x + b[seg], at - b[seg], x + at, b[seg + 1] - at, cfg->trim, &t) >
		    cfg->alpha)
			break;
		insert_cut(b, nb, at);
	}
	free(d);
}

/* Merge away the weakest failing cut until every cut passes; then measure and locate. */
static void finish(const double *x, size_t n, size_t *b, size_t nb,
		   const struct rn_edivisive_cfg *cfg, double *tmp, struct rn_changepoint **out,
		   size_t *nout)
{
	struct rn_changepoint c;
	size_t i;

	(void)n;
	for (;;) {
		size_t worst = 0;
		double worst_p = -1, worst_rel = INFINITY;

		for (i = 1; i + 1 < nb; i++) {
			bool fails;

			measure(x, b, i, cfg, &c, tmp);
			fails = c.p_value > cfg->alpha ||
				fabs(c.rel_change) < cfg->min_rel_change || c.median_before == 0;
			if (!fails)
				continue;
			if (c.p_value > worst_p ||
			    (c.p_value == worst_p && fabs(c.rel_change) < worst_rel)) {
				worst = i;
				worst_p = c.p_value;
				worst_rel = fabs(c.rel_change);
			}
		}
		if (!worst)
			break;
		memmove(b + worst, b + worst + 1, (nb - worst - 1) * sizeof(*b));
		nb--;
	}
	*out = NULL;
	*nout = 0;
	if (nb <= 2)
		return;
	*out = rn_xcalloc(nb - 2, sizeof(**out));
	for (i = 1; i + 1 < nb; i++) {
		struct rn_changepoint *o = &(*out)[i - 1];
		size_t first, last;

		/* The final neighbours may place the cut better than the search's segment. */
		b[i] = locate(x, b[i - 1], b[i + 1], b[i], cfg, &first, &last, tmp);
		measure(x, b, i, cfg, o, tmp);
		o->first = first;
		o->last = last;
		*nout = i;
	}
}

/* Q of each reported cut, for the record: from the segment between its neighbours. */
static void fill_q(const double *x, struct rn_changepoint *cp, size_t ncp, size_t n,
		   const struct rn_edivisive_cfg *cfg)
{
	size_t i;

	for (i = 0; i < ncp; i++) {
		size_t a = i ? cp[i - 1].index : 0, c = i + 1 < ncp ? cp[i + 1].index : n;
		size_t mm = cp[i].index - a, k = c - cp[i].index, p, q;
		double sx = 0, sy = 0, sxy = 0;

		for (p = a; p < c; p++)
			for (q = p + 1; q < c; q++) {
				double v = pow(fabs(x[p] - x[q]), cfg->exponent);

				if (q < cp[i].index)
					sx += v;
				else if (p >= cp[i].index)
					sy += v;
				else
					sxy += v;
			}
		if (mm >= 2 && k >= 2)
			cp[i].q = (double)mm * (double)k / (double)(mm + k) *
				(2.0 * sxy / ((double)mm * (double)k) -
				 sx / ((double)mm * (double)(mm - 1) / 2) -
				 sy / ((double)k * (double)(k - 1) / 2));
	}
}

int rn_changepoints_update(const double *x, size_t n, const size_t *prev, size_t nprev,
			   const struct rn_edivisive_cfg *cfg, struct rn_changepoint **out,
			   size_t *nout)
{
	size_t *b, nb = 0, start = 0, i;
	double *tmp;

	*out = NULL;
	*nout = 0;
	if (!cfg_ok(cfg) || n > RN_EDIVISIVE_MAX_POINTS)
		return -EINVAL;
	if (n < 2 * cfg->min_size)
		return 0;
	b = rn_xcalloc(cfg->max_changes + nprev + 3, sizeof(*b));
	tmp = rn_xmalloc(2 * n * sizeof(*tmp));
	b[nb++] = 0;
	/* Keep all but the last two earlier cuts; search from the second-to-last one. */
	if (nprev >= 2) {
		start = prev[nprev - 2];
		for (i = 0; i + 2 < nprev; i++)
			if (prev[i] > b[nb - 1] && prev[i] < start)
				b[nb++] = prev[i];
		if (start > 0 && start < n)
			b[nb++] = start;
		else
			start = 0;
	}
	b[nb++] = n;
	search_tail(x, n, start, b, &nb, cfg, tmp);
	finish(x, n, b, nb, cfg, tmp, out, nout);
	fill_q(x, *out, *nout, n, cfg);
	free(tmp);
	free(b);
	return 0;
}

int rn_edivisive(const double *x, size_t n, const struct rn_edivisive_cfg *cfg,
		 struct rn_changepoint **out, size_t *nout)
{
	return rn_changepoints_update(x, n, NULL, 0, cfg, out, nout);
}
