/*
 * hist.c - the log-linear histogram of hist.h.
 */
#include "hist.h"

#include <string.h>

#include "internal.h"
#include "xalloc.h"

/* Bucket of `v`: e * 128 + (v >> e) with e = max(0, msb(v) - 7) (hist.h). */
static unsigned bucket_of(uint64_t v)
{
	unsigned e = 0;

	if (v >= 256)
		e = (unsigned)(63 - __builtin_clzll(v)) - 7;
	return e * RN_HIST_SUB + (unsigned)(v >> e);
}

/* The lowest value of bucket `b` and its width. */
static void bucket_range(unsigned b, uint64_t *lo, uint64_t *width)
{
	unsigned e = b < 2 * RN_HIST_SUB ? 0 : b / RN_HIST_SUB - 1;
	uint64_t m = (uint64_t)(b - e * RN_HIST_SUB);

	*lo = m << e;
	*width = (uint64_t)1 << e;
}

void rn_hist_init(struct rn_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void rn_hist_release(struct rn_hist *h)
{
	for (int k = 0; k < RN_HIST_CHUNKS; k++)
		free(h->chunk[k]);
	rn_hist_init(h);
}

static void add_count(struct rn_hist *h, unsigned b, uint64_t n)
{
	uint64_t **c = &h->chunk[b / RN_HIST_SUB];

	if (!*c)
		*c = rn_xcalloc(RN_HIST_SUB, sizeof(**c));
	(*c)[b % RN_HIST_SUB] += n;
}

void rn_hist_record(struct rn_hist *h, uint64_t v)
{
	add_count(h, bucket_of(v), 1);
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
}

void rn_hist_merge(struct rn_hist *dst, const struct rn_hist *src)
{
	if (!src->count)
		return;
	for (unsigned k = 0; k < RN_HIST_CHUNKS; k++) {
		if (!src->chunk[k])
			continue;
		for (unsigned i = 0; i < RN_HIST_SUB; i++)
			if (src->chunk[k][i])
				add_count(dst, k * RN_HIST_SUB + i, src->chunk[k][i]);
	}
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
}

uint64_t rn_hist_quantile(const struct rn_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* nearest rank: ceil(q * count), at least 1 */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank <= 1)
		return h->min; /* the smallest and the largest value are known exactly */
	if (rank >= h->count)
		return h->max;
	for (unsigned k = 0; k < RN_HIST_CHUNKS; k++) {
		if (!h->chunk[k])
			continue;
		for (unsigned i = 0; i < RN_HIST_SUB; i++) {
			uint64_t lo, width, mid;

			seen += h->chunk[k][i];
			if (seen < rank)
				continue;
			bucket_range(k * RN_HIST_SUB + i, &lo, &width);
			mid = lo + (width - 1) / 2;
			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}
