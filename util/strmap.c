#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void rn_strmap_init(struct rn_strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void rn_strmap_release(struct rn_strmap *m)
{
	free(m->keys);
	free(m->vals);
	rn_strmap_init(m);
}

/* The slot of `key`, or of the empty slot where it would go. cap > 0. */
static size_t slot(const struct rn_strmap *m, const char *key)
{
	size_t i = (size_t)hash(key) & (m->cap - 1);

	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void grow(struct rn_strmap *m)
{
	struct rn_strmap big;
	size_t i;

	big.cap = m->cap ? m->cap * 2 : 64;
	big.n = m->n;
	big.keys = rn_xcalloc(big.cap, sizeof(*big.keys));
	big.vals = rn_xcalloc(big.cap, sizeof(*big.vals));
	for (i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			size_t j = slot(&big, m->keys[i]);

			big.keys[j] = m->keys[i];
			big.vals[j] = m->vals[i];
		}
	}
	free(m->keys);
	free(m->vals);
	*m = big;
}

bool rn_strmap_put(struct rn_strmap *m, const char *key, size_t val, size_t *old)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	i = slot(m, key);
	if (m->keys[i]) {
		if (old)
			*old = m->vals[i];
		return false;
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return true;
}

bool rn_strmap_get(const struct rn_strmap *m, const char *key, size_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	i = slot(m, key);
	if (!m->keys[i])
		return false;
	if (val)
		*val = m->vals[i];
	return true;
}
