/*
 * shard.h - the partition of a suite's targets over the N jobs of a CI matrix
 * (`renacer check --shard K/N`, `renacer golden update --shard K/N`).
 *
 * Unweighted suites use rendezvous (highest-random-weight) hashing of the target name: target
 * t goes to the shard k in 1..N with the highest score(t, k) = fmix64(fnv1a64(t) ^
 * (k * 0x9e3779b97f4a7c15)) (fnv1a64: 64-bit FNV-1a over the name's bytes; fmix64: the
 * MurmurHash3 finalizer), ties to the lower k. A target's shard depends only on its own name
 * and N, so adding or removing a target moves no other target, and every machine computes the
 * same partition. runner/report/RESULTS.md states the rule so other tools can reproduce it.
 *
 * When any target sets `shard_weight` (its expected cost in seconds), or `--shard-balance golden`
 * finds durations in the golden traces, the suite is
 * balanced instead (consistent hashing with bounded loads): targets are placed heaviest first
 * (ties by name), each in the first shard of its rendezvous order whose load stays within
 * 1.25 x (total weight / N), or else in the least loaded shard (ties to the lower k). This is
 * deterministic, but adding a target may move others; unweighted suites never move.
 */
#ifndef RN_SHARD_H
#define RN_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most shards of one suite. */
#define RN_SHARD_MAX 1024

/* A shard of a suite: index 1..count. count 0 = not sharded. */
struct rn_shard {
	unsigned index; /* 1-based shard number K */
	unsigned count; /* number of shards N, 0 when the run is not sharded */
};

/*
 * Parse "K/N" (decimal, 1 <= K <= N <= RN_SHARD_MAX, nothing else) into `out`.
 * Returns 0, or -EINVAL (nothing printed; the caller names the option).
 */
int rn_shard_parse(const char *s, struct rn_shard *out);

struct rn_config;

/*
 * The suite of a check: the names of cfg's targets, in config order, that `only` names
 * (NULL-terminated --target names; NULL or empty = every target). Returns a malloc'ed
 * NULL-terminated array of names borrowed from `cfg` (caller frees the array); *n_out gets the
 * count. Dies on out-of-memory.
 */
const char **rn_shard_suite(const struct rn_config *cfg, const char *const *only, size_t *n_out);

/* How `--shard` weighs targets (enum rn_shard_balance). */
enum rn_shard_balance {
	RN_SHARD_BY_NAME = 0, /* "name": shard_weight where set, else unweighted (default) */
	RN_SHARD_BY_GOLDEN,   /* "golden": shard_weight where set, else the target's duration
			       * from its golden trace (median wall_time x (warmup + runs), in
			       * seconds); targets without either weigh the mean of the others */
};

/* Parse "name" or "golden". 0, or -EINVAL (nothing printed). */
int rn_shard_balance_parse(const char *s, enum rn_shard_balance *out);

/*
 * The targets of the suite (rn_shard_suite) that shard `s` owns, by rn_shard_assign with the
 * weights `balance` says. Every shard must use the same balance and the same golden traces
 * (committed ones) to agree on the split. Returns a malloc'ed NULL-terminated array of names
 * borrowed from `cfg`, possibly empty (caller frees the array). Dies on out-of-memory.
 */
const char **rn_shard_targets(const struct rn_config *cfg, const char *const *only,
			      const struct rn_shard *s, enum rn_shard_balance balance);

/* True when `name` is in the NULL-terminated list `names`. */
bool rn_shard_list_has(const char *const *names, const char *name);

#endif
