/*
 * strvec.h - a growable, NULL-terminated vector of owned strings: a child's environment
 * ("KEY=VALUE" entries) or a command line (git's strvec).
 *
 * Invariants after rn_strvec_init: `v` is never NULL and v[n] == NULL, so `v` can be handed
 * to execve() as it is; every v[i] below n is a malloc'ed string the vector owns. Growth dies
 * on out-of-memory (rn_xalloc). Not thread-safe.
 */
#ifndef RN_STRVEC_H
#define RN_STRVEC_H

#include <stddef.h>

struct rn_strvec {
	char **v;   /* [n + 1] owned strings, v[n] == NULL; never NULL after init */
	size_t n;   /* strings held */
	size_t cap; /* slots allocated (at least n + 1) */
};

/* An empty vector (allocates the terminating slot). Release with rn_strvec_release. */
void rn_strvec_init(struct rn_strvec *sv);

/* Append a copy of `s`. */
void rn_strvec_push(struct rn_strvec *sv, const char *s);

/* Index of the entry "KEY=..." whose key is `key` (no '='), or -1. */
long rn_strvec_env_find(const struct rn_strvec *sv, const char *key);

/* The value of "KEY=VALUE" for `key` (borrowed from the vector), or NULL. */
const char *rn_strvec_env_get(const struct rn_strvec *sv, const char *key);

/*
 * Put `kv` ("KEY=VALUE", copied) into the vector: replace the entry with the same key (its
 * old string freed) so getenv() in the child cannot see an older value, else append. A `kv`
 * without '=' is appended as it is.
 */
void rn_strvec_env_set(struct rn_strvec *sv, const char *kv);

/* rn_strvec_env_set of "`key`=`value`". */
void rn_strvec_env_setkv(struct rn_strvec *sv, const char *key, const char *value);

/* Free every string and the array; the vector must be initialised again before reuse. */
void rn_strvec_release(struct rn_strvec *sv);

#endif
