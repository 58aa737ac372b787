/*
 * cpuset.h - CPU placements taken from the calling thread's affinity (sched_getaffinity(2)):
 * where both sides of a same-job baseline run, so that their pairs see the same caches,
 * frequencies and neighbours; and claims on CPUs shared by the checks running at once.
 */
#ifndef RN_CPUSET_H
#define RN_CPUSET_H

#include <sched.h>
#include <stddef.h>

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

/* The most CPUs one claim holds (a parallel target's placement takes at most 4). */
#define RN_CPU_CLAIM_MAX 8

/*
 * CPUs claimed for the timing runs of one check, so that checks running at once on the machine
 * (ctest -j, a matrix job sharing a runner) place their pairs on different CPUs: one lock file
 * per CPU, `<dir>/cpu<N>.lock`, held with flock(2) LOCK_EX for as long as the claim lasts. The
 * kernel drops the locks when the process ends, so a killed check leaves nothing held.
 */
struct rn_cpu_claim {
	int first;                 /* first CPU of the placement (rn_cpuset_span), -1: none */
	int n;                     /* how many CPUs from `first` */
	int nfds;                  /* lock files held */
	int fds[RN_CPU_CLAIM_MAX]; /* their descriptors (O_CLOEXEC: no target inherits one) */
};

/*
 * The directory of the CPU lock files for this user: $XDG_RUNTIME_DIR/renacer when that is
 * set, else /tmp/renacer-<uid>; created mode 0700 when missing, and refused when it is a
 * symbolic link or owned by another user. Writes the path to buf (size bytes). Returns 0 or
 * -errno (-ENAMETOOLONG, -EPERM for a directory that is not this user's, mkdir(2)'s errors).
 */
int rn_cpu_claim_dir(char *buf, size_t size);

/*
 * Claim `n` CPUs (1 <= n <= RN_CPU_CLAIM_MAX) that no other claim in `dir` holds: a window of
 * n CPUs in the affinity's order (rn_cpuset_span), the one starting at `prefer` first when it
 * is allowed (pass -1 for none), then from the highest CPUs down (away from CPU 0). Non-blocking:
 * a CPU another check holds is skipped, never waited for. Fills *out (out->first = -1 on
 * failure). Returns 0, -EBUSY when every window is held elsewhere, -EINVAL for a bad n, or
 * another -errno (affinity or lock files unreadable). Release with rn_cpu_claim_release().
 */
int rn_cpu_claim(const char *dir, int n, int prefer, struct rn_cpu_claim *out);

/* Drop the locks of *c (no-op for an empty claim) and empty it (first = -1). */
void rn_cpu_claim_release(struct rn_cpu_claim *c);

#endif
