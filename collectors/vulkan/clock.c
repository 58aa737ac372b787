/*
 * clock.c - GPU tick arithmetic and the calibrated GPU-to-host mapping (see clock.h).
 */
#include "clock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

uint64_t rn_vk_ticks_mask(uint64_t ticks, uint32_t valid_bits)
{
	if (valid_bits >= 64)
		return ticks;
	if (valid_bits == 0)
		return 0;
	return ticks & ((UINT64_C(1) << valid_bits) - 1);
}

int64_t rn_vk_ticks_delta(uint64_t from, uint64_t to, uint32_t valid_bits)
{
	uint64_t d;

	if (valid_bits == 0)
		return 0;
	if (valid_bits >= 64)
		return (int64_t)(to - from); /* two's complement wrap is the modulo 2^64 */
	d = (rn_vk_ticks_mask(to, valid_bits) - rn_vk_ticks_mask(from, valid_bits)) &
		((UINT64_C(1) << valid_bits) - 1);
	/* Fold the upper half of the ring onto negative distances: -(2^bits - d), computed in
	 * unsigned arithmetic (2^63 does not fit int64_t when valid_bits is 63). */
	if (d >> (valid_bits - 1))
		return -(int64_t)((UINT64_C(1) << valid_bits) - d);
	return (int64_t)d;
}

double rn_vk_ticks_elapsed_ns(uint64_t from, uint64_t to, uint32_t valid_bits, double period_ns)
{
	return (double)rn_vk_ticks_delta(from, to, valid_bits) * period_ns;
}

size_t rn_vk_clock_best(const struct rn_vk_clock_sample *s, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (s[i].deviation_ns < s[best].deviation_ns)
			best = i;
	return best;
}

static int cmp_host(const void *a, const void *b)
{
	const struct rn_vk_clock_sample *x = a, *y = b;

	return x->host_ns < y->host_ns ? -1 : x->host_ns > y->host_ns;
}

void rn_vk_clock_sort(struct rn_vk_clock_sample *s, size_t n)
{
	if (n > 1)
		qsort(s, n, sizeof(*s), cmp_host);
}

/* host + delta_ns as an unsigned result; -ERANGE below zero or above 2^63. */
static int add_ns(uint64_t host, double delta_ns, uint64_t *out)
{
	int64_t d;

	if (!isfinite(delta_ns) || fabs(delta_ns) > 9.0e18)
		return -ERANGE;
	d = (int64_t)llround(delta_ns);
	if (d < 0 && (uint64_t)-d > host)
		return -ERANGE;
	if (d > 0 && host > (UINT64_C(1) << 63) - (uint64_t)d)
		return -ERANGE;
	*out = host + (uint64_t)d;
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int map_fallback(const struct rn_vk_clock *c, uint64_t ticks, uint32_t valid_bits,
			uint64_t *host_ns, uint64_t *uncertainty_ns)
{
	const struct rn_vk_fallback *f = c->fallback;
	double g, off, half;
	uint64_t unc;

	if (!f || !f->have_bounds)
		return -ENOENT;
	g = rn_vk_ticks_elapsed_ns(f->ref_ticks, ticks,
				   valid_bits < f->ref_bits ? valid_bits : f->ref_bits,
				   c->period_ns);
	if (f->lo_ns == INT64_MIN || f->hi_ns == INT64_MAX) {
		/* Only one side is known: stay on it, the uncertainty is unbounded. */
		off = (double)(f->lo_ns == INT64_MIN ? f->hi_ns : f->lo_ns);
		unc = UINT64_MAX;
	} else {
		off = ((double)f->lo_ns + (double)f->hi_ns) / 2;
		half = fabs((double)f->hi_ns - (double)f->lo_ns) / 2;
		unc = (uint64_t)ceil(half);
	}
	if (add_ns(0, g + off, host_ns))
		return -ERANGE;
	*uncertainty_ns = unc;
	return 0;
}

/* Map from sample `s` by extrapolation with the nominal period. */
static int extrapolate(const struct rn_vk_clock *c, const struct rn_vk_clock_sample *s,
		       uint64_t ticks, uint32_t valid_bits, uint64_t *host_ns,
		       uint64_t *uncertainty_ns)
{
	double d = rn_vk_ticks_elapsed_ns(s->gpu_ticks, ticks, valid_bits, c->period_ns);
	double drift = ceil(fabs(d) * RN_VK_CLOCK_DRIFT_PPM / 1e6);

	if (add_ns(s->host_ns, d, host_ns))
		return -ERANGE;
	*uncertainty_ns = sat_add(s->deviation_ns, drift >= 1.8e19 ? UINT64_MAX : (uint64_t)drift);
	return 0;
}

int rn_vk_clock_map(const struct rn_vk_clock *c, uint64_t ticks, uint32_t valid_bits,
		    uint64_t *host_ns, uint64_t *uncertainty_ns)
{
	const struct rn_vk_clock_sample *s = c->samples, *a, *b;
	size_t n = c->nsamples, lo, hi;
	double da, db, span_gpu, span_host;

	if (n == 0)
		return map_fallback(c, ticks, valid_bits, host_ns, uncertainty_ns);
	/* Before the first or after the last sample: extrapolate from that end. */
	if (rn_vk_ticks_delta(s[0].gpu_ticks, ticks, valid_bits) < 0)
		return extrapolate(c, &s[0], ticks, valid_bits, host_ns, uncertainty_ns);
	if (rn_vk_ticks_delta(s[n - 1].gpu_ticks, ticks, valid_bits) >= 0)
		return extrapolate(c, &s[n - 1], ticks, valid_bits, host_ns, uncertainty_ns);
	/*
	 * Samples are sorted by host time, so their GPU times increase too: binary search for
	 * the pair that brackets `ticks` (invariant: s[lo] <= ticks < s[hi]).
	 */
	lo = 0;
	hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (rn_vk_ticks_delta(s[mid].gpu_ticks, ticks, valid_bits) >= 0)
			lo = mid;
		else
			hi = mid;
	}
	a = &s[lo];
	b = &s[hi];
	da = rn_vk_ticks_elapsed_ns(a->gpu_ticks, ticks, valid_bits, c->period_ns);
	db = rn_vk_ticks_elapsed_ns(b->gpu_ticks, ticks, valid_bits, c->period_ns);
	span_gpu = da - db;
	if (!(span_gpu > 0) || b->host_ns < a->host_ns)
		return extrapolate(c, a, ticks, valid_bits, host_ns, uncertainty_ns);
	/* Linear between the two samples: absorbs the rate difference of the clocks. */
	span_host = (double)(b->host_ns - a->host_ns);
	if (add_ns(a->host_ns, da / span_gpu * span_host, host_ns))
		return -ERANGE;
	*uncertainty_ns = a->deviation_ns > b->deviation_ns ? a->deviation_ns : b->deviation_ns;
	return 0;
}

void rn_vk_fallback_init(struct rn_vk_fallback *f)
{
	f->have_ref = false;
	f->ref_ticks = 0;
	f->ref_bits = 64;
	f->have_bounds = false;
	f->lo_ns = INT64_MIN;
	f->hi_ns = INT64_MAX;
}

void rn_vk_fallback_add(struct rn_vk_fallback *f, uint64_t begin_ticks, uint64_t end_ticks,
			uint32_t valid_bits, double period_ns, uint64_t submit_ns,
			uint64_t harvest_ns)
{
	double gb, ge;

	if (!f->have_ref) {
		f->have_ref = true;
		f->ref_bits = valid_bits;
		f->ref_ticks = rn_vk_ticks_mask(begin_ticks, valid_bits);
	}
	if (valid_bits > f->ref_bits)
		valid_bits = f->ref_bits;
	gb = rn_vk_ticks_elapsed_ns(f->ref_ticks, begin_ticks, valid_bits, period_ns);
	ge = rn_vk_ticks_elapsed_ns(f->ref_ticks, end_ticks, valid_bits, period_ns);
	/* offset = host - gpu: host(begin) >= submit gives offset >= submit - gb;
	 * host(end) <= harvest gives offset <= harvest - ge. */
	if (submit_ns && submit_ns < (UINT64_C(1) << 62)) {
		double lo = (double)submit_ns - gb;

		if (fabs(lo) < 4.0e18 && (int64_t)lo > f->lo_ns)
			f->lo_ns = (int64_t)lo;
		f->have_bounds = true;
	}
	if (harvest_ns && harvest_ns < (UINT64_C(1) << 62)) {
		double hi = (double)harvest_ns - ge;

		if (fabs(hi) < 4.0e18 && (int64_t)hi < f->hi_ns)
			f->hi_ns = (int64_t)hi;
		f->have_bounds = true;
	}
}
