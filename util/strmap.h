/*
 * strmap.h - a hash map from strings to indices (open addressing, FNV-1a), for lookups by name
 * in lists that can be large (100,000 assertions): duplicate checks and name resolution in
 * O(1) each instead of a scan.
 *
 * The map borrows its keys: each must stay valid and unchanged while the map is used.
 */
#ifndef RN_STRMAP_H
#define RN_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct rn_strmap {
	const char **keys; /* slots; NULL = empty */
	size_t *vals;      /* the index stored with each key */
	size_t cap;        /* slots, a power of two (0 before the first put) */
	size_t n;          /* keys stored */
};

/* An empty map; allocates nothing. */
void rn_strmap_init(struct rn_strmap *m);
/* Free the slots (not the keys). The map is empty and usable again. */
void rn_strmap_release(struct rn_strmap *m);
/* Store `key` -> `val` unless `key` is present. Returns true when it was added; false when it
 * was present already, with *old (if not NULL) set to the stored index. Dies on out of memory
 * (rn_xmalloc). */
bool rn_strmap_put(struct rn_strmap *m, const char *key, size_t val, size_t *old);
/* Find `key`: true with *val set (if not NULL), or false. */
bool rn_strmap_get(const struct rn_strmap *m, const char *key, size_t *val);

#endif
