/*
 * assertion_types.c - the assertion types of renacer.toml: the rows of RN_ASSERTION_TYPES
 * (assertion.h) as a table indexed by enum rn_assertion_type, and the look-ups the config
 * parser and the help text make in it.
 */
#include "assertion.h"
#include "internal.h"

#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct rn_assertion_type_info rn_assertion_types[] = {
#define RN_ASSERTION_TYPE_ROW(id, name, evaluate, gaps, keys, help)                                \
	[RN_ASSERT_##id] = { name, evaluate, gaps, keys, help },
	RN_ASSERTION_TYPES(RN_ASSERTION_TYPE_ROW)
#undef RN_ASSERTION_TYPE_ROW
};

_Static_assert(ARRAY_SIZE(rn_assertion_types) == RN_ASSERT_COUNT,
	       "one row of rn_assertion_types per enum rn_assertion_type");

const char *rn_assertion_type_name(enum rn_assertion_type t)
{
	return t < RN_ASSERT_COUNT ? rn_assertion_types[t].name : "?";
}

int rn_assertion_type_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rn_assertion_types); i++)
		if (!strcmp(rn_assertion_types[i].name, name))
			return (int)i;
	return -1;
}

/* Whether `key` is a word of the space-separated list `keys`. */
static bool has_word(const char *keys, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	if (!len)
		return false;
	for (p = strstr(keys, key); p; p = strstr(p + 1, key))
		if ((p == keys || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

bool rn_assertion_type_has_key(enum rn_assertion_type t, const char *key)
{
	return t < RN_ASSERT_COUNT && has_word(rn_assertion_types[t].keys, key);
}

bool rn_assertion_key_is_specific(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rn_assertion_types); i++)
		if (has_word(rn_assertion_types[i].keys, key))
			return true;
	return false;
}
