#include "strvec.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void rn_strvec_init(struct rn_strvec *sv)
{
	sv->n = 0;
	sv->cap = 0;
	sv->v = rn_xgrow(NULL, &sv->cap, 1, sizeof(*sv->v));
	sv->v[0] = NULL;
}

static void push_owned(struct rn_strvec *sv, char *s)
{
	sv->v = rn_xgrow(sv->v, &sv->cap, sv->n + 2, sizeof(*sv->v));
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void rn_strvec_push(struct rn_strvec *sv, const char *s)
{
	push_owned(sv, rn_xstrdup(s));
}

/* Index of the entry whose key is the first `klen` bytes of `key`, or -1. */
static long find_key(const struct rn_strvec *sv, const char *key, size_t klen)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], key, klen) && sv->v[i][klen] == '=')
			return (long)i;
	return -1;
}

long rn_strvec_env_find(const struct rn_strvec *sv, const char *key)
{
	return find_key(sv, key, strlen(key));
}

const char *rn_strvec_env_get(const struct rn_strvec *sv, const char *key)
{
	size_t klen = strlen(key);
	long i = find_key(sv, key, klen);

	return i < 0 ? NULL : sv->v[i] + klen + 1;
}

void rn_strvec_env_set(struct rn_strvec *sv, const char *kv)
{
	const char *eq = strchr(kv, '=');
	long i = eq ? find_key(sv, kv, (size_t)(eq - kv)) : -1;

	if (i < 0) {
		rn_strvec_push(sv, kv);
		return;
	}
	free(sv->v[i]);
	sv->v[i] = rn_xstrdup(kv);
}

void rn_strvec_env_setkv(struct rn_strvec *sv, const char *key, const char *value)
{
	size_t klen = strlen(key), vlen = strlen(value);
	char *kv = rn_xmalloc(klen + vlen + 2);

	memcpy(kv, key, klen);
	kv[klen] = '=';
	memcpy(kv + klen + 1, value, vlen + 1);
	rn_strvec_env_set(sv, kv);
	free(kv);
}

void rn_strvec_release(struct rn_strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
