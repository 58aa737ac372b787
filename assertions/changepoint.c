/*
 * changepoint.c - E-Divisive with means (see changepoint.h for the method and its sources).
 */
#include "changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void rn_edivisive_cfg_init(struct rn_edivisive_cfg *cfg)
{
	cfg->alpha = 0.01;
	cfg->permutations = 199;
	cfg->min_size = 5;
	cfg->exponent = 0.1;
	cfg->max_changes = 32;
	cfg->seed = 0x72656e6163657221ull;
}

/* splitmix64: small, fast, and good enough to shuffle. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void shuffle(size_t *x, size_t n, uint64_t *s)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = (size_t)(next_rand(s) % i);
		size_t t = x[i - 1];

		x[i - 1] = x[j];
		x[j] = t;
	}
}

/*
 * The best split of x[0..n): moves the points one by one from Y to X keeping the three sums of
 * distances (within X, within Y, across) up to date, O(n) per step. Returns the largest Q with
 * both sides >= min_size, and its position in *tau (0 when none).
 */
/* Distances |x_i - x_j|^exponent of a series, computed once: permutations only reorder. */
struct dist_matrix {
	const double *d; /* n x n, row-major */
	size_t n;        /* points */
};

static double dist_at(const struct dist_matrix *m, size_t i, size_t j)
{
	return m->d[i * m->n + j];
}

/*
 * The best split of the points idx[0..n) (indices into the series, in series order or
 * shuffled): moves the points one by one from Y to X keeping the three sums of distances
 * (within X, within Y, across) up to date, O(n) per step. Returns the largest Q with both sides
 * >= min_size, and its position in *tau (0 when none).
 */
static double best_split(const struct dist_matrix *m, const size_t *idx, size_t n, size_t min_size,
			 size_t *tau)
{
	double sx = 0, sy = 0, sxy = 0, best = -1;
	size_t i, j, t;

	*tau = 0;
	if (n < 2 * min_size)
		return -1;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			sy += dist_at(m, idx[i], idx[j]);
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
		/* Move point t from Y to X. */
		{
			const double *row = m->d + idx[t] * m->n;
			double dx = 0, dy = 0;

			for (i = 0; i < t; i++)
				dx += row[idx[i]];
			for (i = t + 1; i < n; i++)
				dy += row[idx[i]];
			sx += dx;
			sy -= dy;
			sxy += dy - dx;
		}
	}
	return best;
}

/* Best split over all segments (bounds: sorted cut points 0 = b[0] < ... < b[nb-1] = n). */
static double best_over_segments(const struct dist_matrix *m, const size_t *idx, const size_t *b,
				 size_t nb, size_t min_size, size_t *where)
{
	double best = -1;
	size_t s;

	*where = 0;
	for (s = 0; s + 1 < nb; s++) {
		size_t tau;
		double q = best_split(m, idx + b[s], b[s + 1] - b[s], min_size, &tau);

		if (tau && q > best) {
			best = q;
			*where = b[s] + tau;
		}
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of x[a..b), b > a: robust to the slow outliers of a shared CI runner. */
static double median_of(const double *x, size_t a, size_t b, double *tmp)
{
	size_t n = b - a;

	memcpy(tmp, x + a, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

int rn_edivisive(const double *x, size_t n, const struct rn_edivisive_cfg *cfg,
		 struct rn_changepoint **out, size_t *nout)
{
	size_t *b, *order, *perm, nb = 2, i, j;
	double *qs, *ps, *d, *tmp;
	struct dist_matrix m;
	uint64_t seed = cfg->seed;

	*out = NULL;
	*nout = 0;
	if (!(cfg->alpha > 0 && cfg->alpha < 1) || cfg->min_size < 2 ||
	    !(cfg->exponent > 0 && cfg->exponent < 2) || n > RN_EDIVISIVE_MAX_POINTS)
		return -EINVAL;
	if (n < 2 * cfg->min_size)
		return 0;
	d = rn_xmalloc(n * n * sizeof(*d));
	for (i = 0; i < n; i++) {
		d[i * n + i] = 0;
		for (j = i + 1; j < n; j++) {
			double v = fabs(x[i] - x[j]);

			if (cfg->exponent != 1)
				v = pow(v, cfg->exponent);
			d[i * n + j] = v;
			d[j * n + i] = v;
		}
	}
	m.d = d;
	m.n = n;
	order = rn_xmalloc(n * sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = i;
	b = rn_xcalloc(cfg->max_changes + 2, sizeof(*b));
	qs = rn_xcalloc(n + 1, sizeof(*qs));
	ps = rn_xcalloc(n + 1, sizeof(*ps));
	perm = rn_xmalloc(n * sizeof(*perm));
	tmp = rn_xmalloc(n * sizeof(*tmp));
	b[0] = 0;
	b[1] = n;
	while (nb - 2 < cfg->max_changes) {
		size_t where, pw, above = 0, limit;
		double q = best_over_segments(&m, order, b, nb, cfg->min_size, &where);
		unsigned k;

		if (!where)
			break;
		/* The test cannot pass once `limit` permutations reached q: stop early then. */
		limit = (size_t)floor(cfg->alpha * (cfg->permutations + 1.0));
		for (k = 0; k < cfg->permutations && above < limit; k++) {
			size_t s;

			memcpy(perm, order, n * sizeof(*perm));
			for (s = 0; s + 1 < nb; s++)
				shuffle(perm + b[s], b[s + 1] - b[s], &seed);
			if (best_over_segments(&m, perm, b, nb, cfg->min_size, &pw) >= q)
				above++;
		}
		if (above >= limit)
			break;
		qs[where] = q;
		ps[where] = (1.0 + (double)above) / (1.0 + cfg->permutations);
		/* Insert the new cut, keeping b sorted. */
		for (i = nb; i > 0 && b[i - 1] > where; i--)
			b[i] = b[i - 1];
		b[i] = where;
		nb++;
	}
	if (nb > 2) {
		*out = rn_xcalloc(nb - 2, sizeof(**out));
		for (i = 1; i + 1 < nb; i++) {
			struct rn_changepoint *c = &(*out)[i - 1];

			c->index = b[i];
			c->q = qs[b[i]];
			c->p_value = ps[b[i]];
			c->median_before = median_of(x, b[i - 1], b[i], tmp);
			c->median_after = median_of(x, b[i], b[i + 1], tmp);
			c->rel_change = c->median_before != 0 ?
				(c->median_after - c->median_before) / c->median_before :
				0;
		}
		*nout = nb - 2;
	}
	free(tmp);
	free(perm);
	free(order);
	free(d);
	free(ps);
	free(qs);
	free(b);
	return 0;
}
