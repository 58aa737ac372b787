/*
 * clock.h - CUPTI timestamps to host CLOCK_MONOTONIC.
 *
 * The CUPTI Activity API stamps records with its own nanosecond clock (cuptiGetTimestamp();
 * CUpti_ActivityKernel10::start/end, CUpti_ActivityMemcpy6::start/end). Its origin differs
 * from CLOCK_MONOTONIC, so the injection library measures the offset: it reads the host clock,
 * the CUPTI clock and the host clock again, several times, and keeps the pair whose host
 * readings lie closest together. The CUPTI reading happened somewhere inside that host window,
 * so offset = window midpoint - CUPTI reading, with half the window as uncertainty. Drift
 * between the two clocks is not modelled (both count nanoseconds of the same crystal on Linux);
 * each record file may carry several calibrations and the reader uses the tightest.
 *
 * Pure functions over caller-owned data: no allocation, no global state, thread safe. The
 * injection library links this file too.
 */
#ifndef RN_CUDA_CLOCK_H
#define RN_CUDA_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* One bracketed reading: host before, CUPTI, host after (all ns). */
struct rn_cuda_clock_sample {
	uint64_t host_before_ns; /* CLOCK_MONOTONIC before cuptiGetTimestamp(), ns */
	uint64_t cupti_ns;       /* cuptiGetTimestamp(), ns */
	uint64_t host_after_ns;  /* CLOCK_MONOTONIC after cuptiGetTimestamp(), ns */
};

/* A calibration: host_ns = cupti_ns + offset_ns, +/- uncertainty_ns. */
struct rn_cuda_clock {
	int64_t offset_ns;       /* host CLOCK_MONOTONIC minus CUPTI clock, ns */
	uint64_t uncertainty_ns; /* half the width of the host window of the kept sample, ns */
};

/*
 * Calibrate from `n` samples: keep the one with the narrowest host window (the first on ties)
 * and derive offset and uncertainty from it. Samples whose host_after_ns precedes
 * host_before_ns, or whose values do not fit an int64_t, are skipped.
 * Returns 0, or -EINVAL when no sample is usable (including n == 0).
 */
int rn_cuda_clock_calibrate(const struct rn_cuda_clock_sample *s, size_t n,
			    struct rn_cuda_clock *out);

/*
 * Map CUPTI timestamp `cupti_ns` to CLOCK_MONOTONIC ns with calibration `c` into `*host_ns`.
 * Returns 0, or -ERANGE when the result would be negative or overflow 64 bits.
 */
int rn_cuda_clock_map(const struct rn_cuda_clock *c, uint64_t cupti_ns, uint64_t *host_ns);

#endif
