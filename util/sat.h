/*
 * sat.h - saturating arithmetic on counts and nanoseconds that come from outside (folded
 * stacks, span times a program reports): a sum past UINT64_MAX stays at UINT64_MAX and a
 * difference is clamped to what int64_t holds, so a hostile value can make a total large
 * but never small (a wrapped total of two spans would pass any budget).
 */
#ifndef RN_SAT_H
#define RN_SAT_H

#include <stdint.h>

/* a + b, or UINT64_MAX when the sum does not fit. */
static inline uint64_t rn_sat_add_u64(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a - b as a signed value, clamped to [-INT64_MAX, INT64_MAX]. */
static inline int64_t rn_sat_diff_u64(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)(b - a);
}

#endif
