#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "xalloc.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *c = rn_xmalloc((n ? n : 1) * sizeof(*c));

	if (n)
		memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	return c;
}

static double median_sorted(const double *s, size_t n)
{
	if (!n)
		return NAN;
	if (n % 2)
		return s[n / 2];
	return (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double rn_stats_median(const double *x, size_t n)
{
	double *s = sorted_copy(x, n);
	double m = median_sorted(s, n);

	free(s);
	return m;
}

double rn_stats_mad(const double *x, size_t n)
{
	double m, *dev, mad;
	size_t i;

	if (!n)
		return NAN;
	m = rn_stats_median(x, n);
	dev = rn_xmalloc(n * sizeof(*dev));
	for (i = 0; i < n; i++)
		dev[i] = fabs(x[i] - m);
	mad = rn_stats_median(dev, n);
	free(dev);
	return mad;
}

/* P(Binomial(n, q) >= k), summed in log space (n is a run count: at most thousands). */
static double binom_sf(size_t n, double q, size_t k)
{
	double sum = 0.0;
	size_t i;

	if (k == 0)
		return 1.0;
	if (q <= 0.0)
		return 0.0;
	if (q >= 1.0)
		return 1.0;
	for (i = k; i <= n; i++)
		sum += exp(lgamma((double)n + 1.0) - lgamma((double)i + 1.0) -
			   lgamma((double)(n - i) + 1.0) + (double)i * log(q) +
			   (double)(n - i) * log1p(-q));
	return sum > 1.0 ? 1.0 : sum;
}

double rn_stats_quantile_lower(const double *x, size_t n, double q, double alpha, size_t *rank)
{
	double *s, v;
	size_t k = 0;

	if (n && q <= 0.0)
		k = 1; /* the population's minimum: no sample bounds it from below, the smallest
			* sample is the closest statement there is */
	else
		while (k < n && binom_sf(n, q, k + 1) >= 1.0 - alpha)
			k++;
	if (rank)
		*rank = k;
	if (!k)
		return -INFINITY;
	s = sorted_copy(x, n);
	v = s[k - 1];
	free(s);
	return v;
}

double rn_stats_normal_sf(double z)
{
	/* erfc keeps full relative precision in the upper tail, where 1 - Phi(z) would not. */
	return 0.5 * erfc(z / M_SQRT2);
}

double rn_stats_normal_quantile(double p)
{
	double lo = -40.0, hi = 40.0;
	int i;

	if (p <= 0.0)
		return -INFINITY;
	if (p >= 1.0)
		return INFINITY;
	/* P(Z <= z) = 1 - sf(z) is increasing in z; 200 halvings of [-40, 40] reach the limits of
	 * double precision. */
	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2.0;

		if (1.0 - rn_stats_normal_sf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
}

/*
 * Distribution of the sum of `m` of the `n` values r[] (all subsets equally likely), as counts
 * indexed by the sum: returns an array of (*smax + 1) doubles. Counts up to C(100, 50) ~ 1e29
 * lose no relative precision in a double because the recurrence only adds.
 */
static double *subset_sum_counts(const unsigned *r, size_t n, size_t m, size_t *smax)
{
	size_t i, k, s, width, top = 0;
	double *cnt;

	for (i = 0; i < n; i++)
		top += r[i];
	width = top + 1;
	cnt = rn_xcalloc((m + 1) * width, sizeof(*cnt));
	cnt[0] = 1.0;
	/* Knapsack over the items: cnt[k][s] = ways to pick k of the items seen with sum s.
	 * Descending k and s so each item is used at most once. */
	for (i = 0; i < n; i++) {
		size_t kmax = i + 1 < m ? i + 1 : m;

		for (k = kmax; k >= 1; k--) {
			double *dst = cnt + k * width;
			const double *src = cnt + (k - 1) * width;

			/* r[i] >= 1, so s never wraps below zero. */
			for (s = top; s >= r[i]; s--)
				dst[s] += src[s - r[i]];
		}
	}
	memmove(cnt, cnt + m * width, width * sizeof(*cnt));
	*smax = top;
	return cnt;
}

/*
 * Ranks of the pooled sample, doubled so midranks of ties are integers: r2[i] belongs to a[i]
 * for i < na and to b[i - na] after. Returns sum(t^3 - t) over tie groups.
 */
struct pooled {
	double v;   /* the value */
	size_t idx; /* index in the pooled sample: a first, then b */
};

static int cmp_pooled(const void *pa, const void *pb)
{
	const struct pooled *x = pa, *y = pb;

	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static double pooled_ranks(const double *a, size_t na, const double *b, size_t nb, unsigned *r2)
{
	size_t n = na + nb, i, j, q;
	struct pooled *p = rn_xmalloc(n * sizeof(*p));
	double ties = 0.0;

	for (i = 0; i < n; i++) {
		p[i].v = i < na ? a[i] : b[i - na];
		p[i].idx = i;
	}
	qsort(p, n, sizeof(*p), cmp_pooled);
	for (i = 0; i < n; i = j) {
		double t;

		for (j = i + 1; j < n && p[j].v == p[i].v; j++)
			;
		/* Positions i..j-1 (0-based) share the midrank ((i + 1) + j) / 2. */
		for (q = i; q < j; q++)
			r2[p[q].idx] = (unsigned)(i + 1 + j);
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	free(p);
	return ties;
}

void rn_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			   struct rn_mann_whitney *out)
{
	size_t n = na + nb, i, w2 = 0;
	double ties, mu, var;
	unsigned *r2;

	memset(out, 0, sizeof(*out));
	out->p = 1.0;
	if (!na || !nb)
		return;
	r2 = rn_xmalloc(n * sizeof(*r2));
	ties = pooled_ranks(a, na, b, nb, r2);
	out->ties = ties > 0.0;
	for (i = na; i < n; i++)
		w2 += r2[i];
	/* U of b = rank sum of b - nb (nb + 1) / 2; in doubled ranks. */
	out->u = ((double)w2 - (double)nb * (double)(nb + 1)) / 2.0;

	if (n <= RN_STATS_EXACT_MAX) {
		/* Exact: enumerate the labellings through the distribution of the rank sum of the
		 * smaller side, conditional on the observed tie pattern. */
		size_t m = na < nb ? na : nb, smax, s, obs = 0;
		double *cnt, tail = 0.0, all = 0.0;
		const unsigned *side = r2 + (na < nb ? 0 : na);

		for (i = 0; i < m; i++)
			obs += side[i];
		cnt = subset_sum_counts(r2, n, m, &smax);
		for (s = 0; s <= smax; s++) {
			all += cnt[s];
			/* b large <=> its rank sum large <=> a's rank sum small. */
			if (na < nb ? s <= obs : s >= obs)
				tail += cnt[s];
		}
		free(cnt);
		out->exact = true;
		out->p = tail / all;
		if (out->p > 1.0)
			out->p = 1.0;
		free(r2);
		return;
	}
	free(r2);
	mu = (double)na * (double)nb / 2.0;
	var = (double)na * (double)nb / 12.0 *
		((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (var <= 0.0)
		return; /* every value tied: no evidence either way */
	out->z = (out->u - mu - 0.5) / sqrt(var);
	out->p = rn_stats_normal_sf(out->z);
}

void rn_stats_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double alpha,
			     struct rn_hodges_lehmann *out)
{
	size_t mn = na * nb, n = na + nb, i, j, k = 0;
	double *d, below = 0.0;

	out->shift = NAN;
	out->lower = -INFINITY;
	out->upper = INFINITY;
	out->k = 0;
	out->level = 0.0;
	if (!na || !nb)
		return;
	d = rn_xmalloc(mn * sizeof(*d));
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, mn, sizeof(*d), cmp_double);
	out->shift = median_sorted(d, mn);

	if (n <= RN_STATS_EXACT_MAX) {
		/* Null distribution of U without ties: the rank sum of m of the ranks 1..N, shifted
		 * by m (m + 1) / 2, is U of that side; it is symmetric, so either side will do. */
		size_t m = na < nb ? na : nb, smax, s, base = m * (m + 1) / 2;
		unsigned *r = rn_xmalloc(n * sizeof(*r));
		double *cnt, all = 0.0, cum = 0.0;

		for (i = 0; i < n; i++)
			r[i] = (unsigned)(i + 1);
		cnt = subset_sum_counts(r, n, m, &smax);
		for (s = 0; s <= smax; s++)
			all += cnt[s];
		/* Largest k with P(U <= k - 1) <= alpha: walk the CDF from U = 0 upwards. */
		for (s = base; s <= smax && k < mn; s++) {
			if ((cum + cnt[s]) / all > alpha)
				break;
			cum += cnt[s];
			k = s - base + 1;
		}
		below = cum / all;
		free(cnt);
		free(r);
	} else {
		double z = rn_stats_normal_quantile(1.0 - alpha);
		double sigma = sqrt((double)mn * (double)(n + 1) / 12.0);
		double kk = floor((double)mn / 2.0 - z * sigma + 0.5);

		if (kk >= 1.0) {
			k = (size_t)kk;
			double zk = ((double)k - 0.5 - (double)mn / 2.0) / sigma;

			below = 1.0 - rn_stats_normal_sf(zk);
		}
	}
	if (k >= 1 && k <= mn) {
		out->k = k;
		out->lower = d[k - 1];
		out->upper = d[mn - k];
		out->level = 1.0 - below;
	}
	free(d);
}

/* Counts of W+ = s / 2 over the 2^n sign assignments of the doubled ranks r2[0..n): c[s] for
 * s in [0, sum r2]. Returns a malloc'ed array and its last index in *smax. */
static double *signed_rank_counts(const unsigned *r2, size_t n, size_t *smax)
{
	size_t total = 0, i, s;
	double *c;

	for (i = 0; i < n; i++)
		total += r2[i];
	c = rn_xcalloc(total + 1, sizeof(*c));
	c[0] = 1.0;
	for (i = 0; i < n; i++)
		for (s = total; s >= r2[i]; s--) /* r2[i] >= 2: s never wraps */
			c[s] += c[s - r2[i]];
	*smax = total;
	return c;
}

struct abs_item {
	double a;
	bool pos;
};

static int cmp_abs_item(const void *pa, const void *pb)
{
	const struct abs_item *a = pa, *b = pb;

	return a->a < b->a ? -1 : a->a > b->a;
}

void rn_stats_wilcoxon(const double *d, size_t n, struct rn_wilcoxon *out)
{
	struct abs_item *it = rn_xcalloc(n ? n : 1, sizeof(*it));
	unsigned *r2 = rn_xcalloc(n ? n : 1, sizeof(*r2));
	size_t m = 0, i, j;
	unsigned w2 = 0;
	double ties = 0.0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		if (d[i] != 0.0) {
			it[m].a = fabs(d[i]);
			it[m].pos = d[i] > 0.0;
			m++;
		}
	qsort(it, m, sizeof(*it), cmp_abs_item);
	for (i = 0; i < m; i = j) {
		double t;

		for (j = i; j < m && it[j].a == it[i].a; j++)
			;
		/* midrank of positions i+1..j, doubled: i + 1 + j */
		for (size_t k = i; k < j; k++) {
			r2[k] = (unsigned)(i + 1 + j);
			if (it[k].pos)
				w2 += r2[k];
		}
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	out->n = m;
	out->w_plus = w2 / 2.0;
	out->p = 1.0;
	if (m == 0)
		goto out_free;
	if (m <= RN_STATS_WILCOXON_EXACT_MAX) {
		size_t smax, s;
		double *c = signed_rank_counts(r2, m, &smax), ge = 0.0;

		for (s = w2; s <= smax; s++)
			ge += c[s];
		out->p = ge / ldexp(1.0, (int)m);
		out->exact = true;
		free(c);
	} else {
		double dm = (double)m;
		double var = dm * (dm + 1) * (2 * dm + 1) / 24.0 - ties / 48.0;

		out->z = var > 0 ? (out->w_plus - dm * (dm + 1) / 4.0 - 0.5) / sqrt(var) : 0.0;
		out->p = var > 0 ? rn_stats_normal_sf(out->z) : 1.0;
	}
out_free:
	free(it);
	free(r2);
}

void rn_stats_walsh_ci(const double *d, size_t n, double alpha, struct rn_walsh_ci *out)
{
	size_t nw = n * (n + 1) / 2, i, j, w = 0, k = 0;
	double *walsh;

	memset(out, 0, sizeof(*out));
	out->estimate = NAN;
	out->lower = -INFINITY;
	out->upper = INFINITY;
	if (n == 0)
		return;
	walsh = rn_xmalloc(nw * sizeof(*walsh));
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			walsh[w++] = (d[i] + d[j]) / 2.0;
	qsort(walsh, nw, sizeof(*walsh), cmp_double);
	out->estimate = median_sorted(walsh, nw);
	if (n <= RN_STATS_WILCOXON_EXACT_MAX) {
		unsigned *r2 = rn_xmalloc(n * sizeof(*r2));
		size_t smax, s;
		double *c, cum = 0.0, all = ldexp(1.0, (int)n);

		for (i = 0; i < n; i++)
			r2[i] = (unsigned)(2 * (i + 1));
		c = signed_rank_counts(r2, n, &smax);
		/* P(W+ <= s) over even doubled sums s2 = 2 s; largest k with P(W+ <= k-1) <= alpha */
		for (s = 0; 2 * s <= smax; s++) {
			cum += c[2 * s];
			if (cum / all > alpha)
				break;
			k = s + 1;
			out->level = 1.0 - cum / all;
		}
		free(c);
		free(r2);
	} else {
		double dn = (double)n;
		double kk = floor(dn * (dn + 1) / 4.0 -
				  rn_stats_normal_quantile(1.0 - alpha) *
					  sqrt(dn * (dn + 1) * (2 * dn + 1) / 24.0) +
				  0.5);

		if (kk >= 1) {
			k = (size_t)kk;
			out->level = 1.0 - alpha;
		}
	}
	if (k >= 1 && k <= nw) {
		out->k = k;
		out->lower = walsh[k - 1];
		out->upper = walsh[nw - k];
	} else {
		out->level = 0.0;
	}
	free(walsh);
}

/* ---- two modes: Silverman's bandwidth test (stats.h) ---- */

/* The Gaussian kernel density estimate of x[n] at bandwidth h on `grid` (RN_STATS_MODES_GRID
 * points from lo to hi) into f (unnormalized: the count of modes does not need the constant). */
static void kde_grid(const double *x, size_t n, double h, double lo, double hi, double *f)
{
	size_t g, i;

	for (g = 0; g < RN_STATS_MODES_GRID; g++) {
		double t = lo + (hi - lo) * (double)g / (RN_STATS_MODES_GRID - 1), sum = 0.0;

		for (i = 0; i < n; i++) {
			double z = (t - x[i]) / h;

			sum += exp(-0.5 * z * z);
		}
		f[g] = sum;
	}
}

/* Local maxima of f on the grid (a plateau counts once). */
static size_t count_modes(const double *f)
{
	size_t g, modes = 0;
	bool rising = true;

	for (g = 1; g < RN_STATS_MODES_GRID; g++) {
		if (f[g] > f[g - 1]) {
			rising = true;
		} else if (f[g] < f[g - 1]) {
			if (rising)
				modes++;
			rising = false;
		}
	}
	return modes + (rising ? 1 : 0);
}

/* Modes of the estimate of x[n] at h, over the data's range widened by 3 h. */
static size_t modes_at(const double *x, size_t n, double min, double max, double h, double *f)
{
	kde_grid(x, n, h, min - 3.0 * h, max + 3.0 * h, f);
	return count_modes(f);
}

/* xorshift64*: the bootstrap's fixed-seed generator, uniform in (0, 1). */
static double uniform01(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static double std_normal(uint64_t *s)
{
	return sqrt(-2.0 * log(uniform01(s))) * cos(6.283185307179586 * uniform01(s));
}

/* The split of the two highest modes of f (grid from lo to hi): the grid point of least
 * density between them. */
static double antimode_of(const double *f, double lo, double hi)
{
	size_t g, m1 = 0, m2 = 0, a, b, best;
	bool have1 = false, have2 = false;

	for (g = 0; g < RN_STATS_MODES_GRID; g++) {
		bool peak = (g == 0 || f[g] > f[g - 1]) &&
			(g + 1 == RN_STATS_MODES_GRID || f[g] >= f[g + 1]);

		if (!peak)
			continue;
		if (!have1 || f[g] > f[m1]) {
			m2 = m1;
			have2 = have1;
			m1 = g;
			have1 = true;
		} else if (!have2 || f[g] > f[m2]) {
			m2 = g;
			have2 = true;
		}
	}
	if (!have2)
		return NAN;
	a = m1 < m2 ? m1 : m2;
	b = m1 < m2 ? m2 : m1;
	for (best = a, g = a; g <= b; g++)
		if (f[g] < f[best])
			best = g;
	return lo + (hi - lo) * (double)best / (RN_STATS_MODES_GRID - 1);
}

/* Drop the values of sorted `s` beyond Tukey's far-out fences (3 IQR beyond the quartiles),
 * keeping the rest at its start; returns how many are left, or 0 when fewer than 4 are. One
 * outlier (a cold first run at 4x) would set the critical bandwidth by itself, wide enough to
 * merge the two real modes, and the test would never see them. */
static size_t drop_far_out(double *s, size_t n)
{
	double q1 = s[(n - 1) / 4], q3 = s[(3 * (n - 1) + 3) / 4], iqr = q3 - q1;
	size_t first = 0, last = n;

	while (first < n && s[first] < q1 - 3.0 * iqr)
		first++;
	while (last > first && s[last - 1] > q3 + 3.0 * iqr)
		last--;
	if (last - first < 4)
		return 0;
	memmove(s, s + first, (last - first) * sizeof(*s));
	return last - first;
}

/* The smoothed bootstrap's p-value of "more than one mode" at critical bandwidth `hi` over
 * the n values of `s` (mean, variance var), with scratch `f` (the grid) and `y` (n values).
 * The seed is fixed: the same samples give the same p. */
static double boot_p(const double *s, size_t n, double mean, double var, double hi, double *f,
		     double *y)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	double shrink = 1.0 / sqrt(1.0 + hi * hi / var);
	size_t i, b, more = 0;

	for (b = 0; b < RN_STATS_MODES_BOOT; b++) {
		double ymin = INFINITY, ymax = -INFINITY;

		for (i = 0; i < n; i++) {
			size_t k = (size_t)(uniform01(&seed) * (double)n);

			if (k >= n)
				k = n - 1;
			y[i] = mean + shrink * (s[k] - mean + hi * std_normal(&seed));
			ymin = fmin(ymin, y[i]);
			ymax = fmax(ymax, y[i]);
		}
		/* Hall and York's calibration: h_crit* > lambda h_crit, i.e. more than one mode
		 * at lambda h_crit, brings the test's level up to its nominal alpha */
		if (modes_at(y, n, ymin, ymax, RN_STATS_MODES_LAMBDA * hi, f) > 1)
			more++;
	}
	return (double)more / RN_STATS_MODES_BOOT;
}

void rn_stats_modality(const double *x, size_t n, struct rn_modality *out)
{
	double *s, *f, *y, min, max, mean = 0.0, var = 0.0, lo, hi;
	size_t i, need;
	int it;

	memset(out, 0, sizeof(*out));
	out->p = 1.0;
	out->antimode = out->low_mode = out->high_mode = NAN;
	if (n < 4)
		return;
	s = sorted_copy(x, n);
	n = drop_far_out(s, n);
	if (n < 4) {
		free(s);
		return;
	}
	min = s[0];
	max = s[n - 1];
	if (!(max > min)) {
		free(s);
		return;
	}
	for (i = 0; i < n; i++)
		mean += s[i] / (double)n;
	for (i = 0; i < n; i++)
		var += (s[i] - mean) * (s[i] - mean) / (double)(n - 1);
	f = rn_xmalloc(RN_STATS_MODES_GRID * sizeof(*f));
	y = rn_xmalloc(n * sizeof(*y));
	/* the number of modes of a Gaussian estimate falls as h grows (Silverman 1981): the
	 * critical bandwidth is found by bisection between a bandwidth with one mode and 0 */
	hi = max - min;
	while (modes_at(s, n, min, max, hi, f) > 1)
		hi *= 2.0;
	lo = 0.0;
	for (it = 0; it < 40; it++) {
		double mid = 0.5 * (lo + hi);

		if (modes_at(s, n, min, max, mid, f) > 1)
			lo = mid;
		else
			hi = mid;
	}
	out->h_crit = hi;
	out->p = boot_p(s, n, mean, var, hi, f, y);
	if (out->p < RN_STATS_MODES_ALPHA) {
		/* the two modes just below the critical bandwidth, and the samples on each side */
		double h = lo > 0.0 ? lo : 0.5 * hi;

		modes_at(s, n, min, max, h, f);
		out->antimode = antimode_of(f, min - 3.0 * h, max + 3.0 * h);
		for (i = 0; i < n && s[i] < out->antimode; i++)
			;
		out->below = i;
		out->above = n - i;
		need = (size_t)ceil(RN_STATS_MODES_MIN_SHARE * (double)n);
		if (need < 2)
			need = 2;
		if (out->below >= need && out->above >= need) {
			out->low_mode = median_sorted(s, out->below);
			out->high_mode = median_sorted(s + out->below, out->above);
			out->two_modes =
				out->high_mode >= out->low_mode * (1.0 + RN_STATS_MODES_MIN_GAP);
		}
	}
	if (!out->two_modes) {
		out->antimode = out->low_mode = out->high_mode = NAN;
		out->below = out->above = 0;
	}
	free(y);
	free(f);
	free(s);
}

static bool near_mode(double v, double mode, double match)
{
	return fabs(v - mode) <= match * mode;
}

/* Whether the other side's median `other` sits at one of m's two modes and m's own median `med`
 * does not sit at that same mode: a mix of m's modes then moved its median. Both at one mode is
 * a shift within that mode, a change the mix does not explain. */
static bool mix_explains(const struct rn_modality *m, double med, double other, double match)
{
	if (near_mode(other, m->low_mode, match) && !near_mode(med, m->low_mode, match))
		return true;
	return near_mode(other, m->high_mode, match) && !near_mode(med, m->high_mode, match);
}

bool rn_stats_near_a_mode(const struct rn_modality *m, double v, double match)
{
	return m->two_modes &&
		(near_mode(v, m->low_mode, match) || near_mode(v, m->high_mode, match));
}

bool rn_stats_modes_explain(const struct rn_modality *ma, double amed, const struct rn_modality *mb,
			    double bmed, double match)
{
	if (ma->two_modes && mb->two_modes)
		return near_mode(ma->low_mode, mb->low_mode, match) &&
			near_mode(ma->high_mode, mb->high_mode, match);
	if (ma->two_modes)
		return mix_explains(ma, amed, bmed, match);
	if (mb->two_modes)
		return mix_explains(mb, bmed, amed, match);
	return false;
}
