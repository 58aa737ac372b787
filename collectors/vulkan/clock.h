/*
 * clock.h - GPU timestamp arithmetic and the GPU-to-host clock mapping.
 *
 * GPU timestamps are ticks of a device counter: only the low timestampValidBits bits are
 * meaningful and one tick lasts timestampPeriod nanoseconds (Vulkan 1.3, 17.5 Timestamp
 * Queries; VkQueueFamilyProperties::timestampValidBits, VkPhysicalDeviceLimits::
 * timestampPeriod). rn_vk_ticks_elapsed_ns() is the one place that applies both.
 *
 * The mapping to host CLOCK_MONOTONIC uses calibration samples: pairs of (GPU ticks, host ns)
 * read together with vkGetCalibratedTimestampsEXT (VK_EXT_calibrated_timestamps), each with
 * the maximum deviation the driver reports for the pair. A GPU time between two samples is
 * interpolated linearly between them (absorbing drift between the clocks); outside, it is
 * extrapolated from the nearest sample with the nominal period, and the uncertainty grows by
 * RN_VK_CLOCK_DRIFT_PPM of the extrapolated distance.
 *
 * Fallback without calibrated timestamps (documented in collectors/vulkan/README.md): the
 * offset between the clocks is bounded by causality. Every span began after the host submitted
 * it (submit_ns) and ended before the host read its result (harvest_ns); the tightest offset
 * interval satisfying all spans of a device is kept, its midpoint is used and its half-width
 * is the uncertainty. Drift is not modelled in this mode.
 *
 * Pure functions over caller-owned arrays: no allocation, no global state, thread safe,
 * O(log n) per mapped time (hostile record files may carry many samples). The layer links this
 * file too.
 */
#ifndef RN_VK_CLOCK_H
#define RN_VK_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bound on the unmodelled rate difference between the GPU and host clocks, parts per million,
 * charged to the uncertainty of extrapolated times. */
#define RN_VK_CLOCK_DRIFT_PPM 100

/* One calibration sample (the CALIBRATION record of record.h). */
struct rn_vk_clock_sample {
	uint64_t gpu_ticks;    /* device-domain timestamp, raw ticks */
	uint64_t host_ns;      /* CLOCK_MONOTONIC at the same instant, ns */
	uint64_t deviation_ns; /* maximum deviation of the pair reported by the driver, ns */
};

/* Causal bounds on (host - gpu) offset for the fallback; see rn_vk_fallback_add(). */
struct rn_vk_fallback {
	bool have_ref;      /* ref_ticks is set */
	uint64_t ref_ticks; /* GPU ticks taken as GPU time 0 */
	uint32_t ref_bits;  /* valid bits ref_ticks was masked to */
	bool have_bounds;   /* at least one span was added */
	int64_t lo_ns;      /* offset >= lo_ns (from submit times), ns */
	int64_t hi_ns;      /* offset <= hi_ns (from harvest times), ns */
};

/* A device's clock: everything needed to map its ticks. Borrows `samples`. */
struct rn_vk_clock {
	double period_ns;                         /* ns per tick (> 0) */
	const struct rn_vk_clock_sample *samples; /* sorted by host_ns (rn_vk_clock_sort) */
	size_t nsamples;                          /* entries of samples; 0 = use fallback */
	const struct rn_vk_fallback *fallback;    /* used when nsamples == 0; may be NULL */
};

/* `ticks` with the bits above `valid_bits` cleared; valid_bits >= 64 keeps all bits and 0
 * gives 0 (a family without timestamps). */
uint64_t rn_vk_ticks_mask(uint64_t ticks, uint32_t valid_bits);

/*
 * Signed distance in ticks from `from` to `to`, both masked to `valid_bits`, modulo
 * 2^valid_bits and chosen in [-2^(valid_bits-1), 2^(valid_bits-1)): a counter that wrapped
 * once between the two readings still gives the right small positive distance.
 */
int64_t rn_vk_ticks_delta(uint64_t from, uint64_t to, uint32_t valid_bits);

/*
 * Nanoseconds elapsed from timestamp `from` to `to` of one queue family: masks both to
 * `valid_bits`, takes wrap-around into account (rn_vk_ticks_delta) and scales by
 * `period_ns` (timestampPeriod). Negative when `to` is earlier.
 */
double rn_vk_ticks_elapsed_ns(uint64_t from, uint64_t to, uint32_t valid_bits, double period_ns);

/* Index of the sample with the lowest deviation among `n` (> 0) samples; the first on ties.
 * The layer takes several samples per calibration and keeps this one. */
size_t rn_vk_clock_best(const struct rn_vk_clock_sample *s, size_t n);

/* Sort `n` samples by host_ns. */
void rn_vk_clock_sort(struct rn_vk_clock_sample *s, size_t n);

/*
 * Map GPU timestamp `ticks` of a family with `valid_bits` to host CLOCK_MONOTONIC ns.
 * Stores the host time in `*host_ns` and the +/- uncertainty in `*uncertainty_ns`.
 * Returns 0, or -ENOENT when there are neither samples nor fallback bounds, -ERANGE when the
 * result would be negative or overflow.
 */
int rn_vk_clock_map(const struct rn_vk_clock *c, uint64_t ticks, uint32_t valid_bits,
		    uint64_t *host_ns, uint64_t *uncertainty_ns);

/* Make `f` empty. */
void rn_vk_fallback_init(struct rn_vk_fallback *f);

/*
 * Add one span's causal constraint to the fallback: its GPU begin (`begin_ticks`) happened
 * after `submit_ns` on the host and its end (`end_ticks`) before `harvest_ns`. Spans with a
 * zero submit_ns or harvest_ns only constrain the side they know. `period_ns` and
 * `valid_bits` as for rn_vk_ticks_elapsed_ns(). The first span added fixes the reference
 * tick, so runs longer than half the counter's wrap period are not supported in this mode.
 */
void rn_vk_fallback_add(struct rn_vk_fallback *f, uint64_t begin_ticks, uint64_t end_ticks,
			uint32_t valid_bits, double period_ns, uint64_t submit_ns,
			uint64_t harvest_ns);

#endif
