/*
 * hist.h - a log-linear latency histogram (HdrHistogram's bucketing) with bounded memory.
 *
 * A value v (nanoseconds, any uint64_t) falls in bucket e * 128 + (v >> e), where e is 0 for
 * v < 256 and msb(v) - 7 otherwise: values below 256 are counted exactly, larger ones in
 * buckets 2^e wide whose lower bound is at least 128 * 2^e. A bucket's width is therefore at
 * most 1/128 of the values it holds; quantiles report a bucket's midpoint, so the relative
 * error of a quantile is at most 1/256 (0.4%) and never worse than 1%. 7424 buckets cover all
 * of uint64_t; they are allocated in chunks of 128 counters (1 KiB, one per power of two) as
 * values arrive, so a histogram of latencies between 1 us and 1 s (20 powers of two) holds 21
 * chunks whatever the number of values. Exact min, max, count and sum are kept beside the
 * buckets.
 *
 * Ownership: the histogram owns its chunks; rn_hist_release() frees them. Not thread safe.
 */
#ifndef RN_HIST_H
#define RN_HIST_H

#include <stdint.h>

/* Counters per chunk, and chunks: bucket indexes run to 56 * 128 + 255. */
#define RN_HIST_SUB 128
#define RN_HIST_CHUNKS 58

/* A histogram of uint64_t values (nanoseconds in the trace model). */
struct rn_hist {
	uint64_t *chunk[RN_HIST_CHUNKS]; /* counters of buckets [k*128, k*128+128), owned, NULL
					  * until a value falls there */
	uint64_t count;                  /* values recorded */
	uint64_t sum;                    /* their sum (wraps past 2^64: not for averages of huge
					  * values) */
	uint64_t min;                    /* smallest value, 0 when empty */
	uint64_t max;                    /* largest value, 0 when empty */
};

/*
 * The q-quantile (0 <= q <= 1) as the nearest-rank method defines it: the value of the
 * ceil(q * count)-th smallest value (the smallest for q = 0), reported as its bucket's
 * midpoint clamped to [min, max]; the first and the last rank give min and max exactly.
 * Relative error <= 1/256.
 * 0 for an empty histogram.
 */
uint64_t rn_hist_quantile(const struct rn_hist *h, double q);

#endif
