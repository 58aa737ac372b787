/*
 * now.h - the time now on one of the kernel's clocks (clock_gettime(2)), in nanoseconds: the
 * one conversion of a struct timespec the runner, the collectors and the assertions use.
 * CLOCK_MONOTONIC for durations and deadlines, CLOCK_REALTIME for timestamps that leave the
 * process (reports, history rows), CLOCK_THREAD_CPUTIME_ID for the calling thread's CPU time.
 * The CUDA injection library and the Vulkan layer run inside the target and keep their own.
 * Thread safe; never fails for the clocks named here (clock_gettime can fail only for an
 * invalid clock id, which reads 0).
 */
#ifndef RN_NOW_H
#define RN_NOW_H

#include <stdint.h>
#include <time.h>

/* Clock `id` now, ns since its epoch (the Unix epoch for CLOCK_REALTIME, boot or an
 * unspecified start for the others); 0 when `id` is not a clock of this kernel. */
static inline uint64_t rn_now_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC now, ns: durations and deadlines. */
static inline uint64_t rn_mono_ns(void)
{
	return rn_now_ns(CLOCK_MONOTONIC);
}

/* CLOCK_REALTIME now, ns since the Unix epoch: wall-clock timestamps. */
static inline uint64_t rn_real_ns(void)
{
	return rn_now_ns(CLOCK_REALTIME);
}

#endif
