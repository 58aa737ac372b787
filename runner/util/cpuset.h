/*
 * cpuset.h - CPU placements taken from the calling thread's affinity (sched_getaffinity(2)):
 * where both sides of a same-job baseline run, so that their pairs see the same caches,
 * frequencies and neighbours.
 */
#ifndef RN_CPUSET_H
#define RN_CPUSET_H

#include <sched.h>

/*
 * The placement of `n` CPUs (n >= 1): `first` and the next n - 1 CPUs, in ascending order,
 * that the calling thread's affinity allows. Writes them to *out. Returns how many were
 * found (< n when the affinity holds fewer from `first` on; 0 when `first` is not allowed),
 * or -errno when the affinity cannot be read.
 */
int rn_cpuset_span(int first, int n, cpu_set_t *out);

/*
 * The first CPU of the highest `n` CPUs the calling thread's affinity allows (away from CPU 0,
 * which takes most device interrupts), or -1 when it allows fewer than `n` or cannot be read.
 */
int rn_cpuset_top(int n);

/* How many CPUs the calling thread's affinity allows; 0 when it cannot be read. */
int rn_cpuset_count(void);

#endif
