/*
 * clock.c - CUPTI-to-host clock calibration and mapping (see clock.h).
 */
#include "clock.h"

#include <errno.h>

int rn_cuda_clock_calibrate(const struct rn_cuda_clock_sample *s, size_t n,
			    struct rn_cuda_clock *out)
{
	const struct rn_cuda_clock_sample *best = NULL;
	uint64_t best_width = 0, mid;

	for (size_t i = 0; i < n; i++) {
		uint64_t width;

		if (s[i].host_after_ns < s[i].host_before_ns || s[i].host_after_ns > INT64_MAX ||
		    s[i].cupti_ns > INT64_MAX)
			continue;
		width = s[i].host_after_ns - s[i].host_before_ns;
		if (!best || width < best_width) {
			best = &s[i];
			best_width = width;
		}
	}
	if (!best)
		return -EINVAL;
	/* Midpoint without overflow; both ends are <= INT64_MAX. */
	mid = best->host_before_ns + best_width / 2;
	out->offset_ns = (int64_t)mid - (int64_t)best->cupti_ns;
	out->uncertainty_ns = (best_width + 1) / 2;
	return 0;
}

int rn_cuda_clock_map(const struct rn_cuda_clock *c, uint64_t cupti_ns, uint64_t *host_ns)
{
	if (c->offset_ns >= 0) {
		if (cupti_ns > UINT64_MAX - (uint64_t)c->offset_ns)
			return -ERANGE;
		*host_ns = cupti_ns + (uint64_t)c->offset_ns;
	} else {
		/* -(offset + 1) + 1 avoids negating INT64_MIN. */
		uint64_t back = (uint64_t)(-(c->offset_ns + 1)) + 1;

		if (cupti_ns < back)
			return -ERANGE;
		*host_ns = cupti_ns - back;
	}
	return 0;
}
