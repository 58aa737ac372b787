/*
 * test_assertion_types.c - the one table of assertion types (RN_ASSERTION_TYPES,
 * assertions/assertion_types.c): every row is complete, names look up to their row, a row's
 * keys are whole words of its list and documented [[assertion]] keys, and the `type` key's
 * doc is the table's names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assertion.h"
#include "config.h"

/* Every row has a name, an evaluate and a gaps function and a help line; names are unique
 * and each looks up to its own row. */
static void test_assertion_types_rows_complete(void **state)
{
	int i, k;

	(void)state;
	for (i = 0; i < RN_ASSERT_COUNT; i++) {
		const struct rn_assertion_type_info *t = &rn_assertion_types[i];

		assert_non_null(t->name);
		assert_true(*t->name);
		assert_non_null(t->evaluate);
		assert_non_null(t->gaps);
		assert_non_null(t->keys);
		assert_non_null(t->help);
		assert_true(*t->help);
		assert_int_equal(rn_assertion_type_lookup(t->name), i);
		for (k = 0; k < i; k++)
			assert_string_not_equal(rn_assertion_types[k].name, t->name);
	}
	assert_int_equal(rn_assertion_type_lookup("critical_path"), RN_ASSERT_CRITICAL_PATH);
	assert_int_equal(rn_assertion_type_lookup("witness"), RN_ASSERT_WITNESS);
	assert_int_equal(rn_assertion_type_lookup("span"), -1);
	assert_int_equal(rn_assertion_type_lookup(""), -1);
}

/* A type's keys are whole words of its row: a prefix or a longer name is not a key. */
static void test_assertion_types_keys_are_words(void **state)
{
	(void)state;
	assert_true(rn_assertion_type_has_key(RN_ASSERT_CRITICAL_PATH, "max_duration_ms"));
	assert_true(rn_assertion_type_has_key(RN_ASSERT_CRITICAL_PATH, "trace_name_pattern"));
	assert_false(rn_assertion_type_has_key(RN_ASSERT_CRITICAL_PATH, "max_spans"));
	assert_true(rn_assertion_type_has_key(RN_ASSERT_SPAN_TIME, "max_ms"));
	assert_true(rn_assertion_type_has_key(RN_ASSERT_SPAN_TIME, "tolerance"));
	assert_false(rn_assertion_type_has_key(RN_ASSERT_SPAN_TIME, "max"));
	assert_false(rn_assertion_type_has_key(RN_ASSERT_SPAN_TIME, "ms"));
	assert_false(rn_assertion_type_has_key(RN_ASSERT_SPAN_TIME, "max_ms "));
	assert_false(rn_assertion_type_has_key(RN_ASSERT_SPAN_TIME, ""));
	assert_false(rn_assertion_type_has_key(RN_ASSERT_MEMORY_USAGE, "tolerance"));
	assert_false(rn_assertion_type_has_key(RN_ASSERT_COUNT, "max_bytes"));
	/* the keys every type accepts belong to no row */
	assert_false(rn_assertion_key_is_specific("name"));
	assert_false(rn_assertion_key_is_specific("aggregate"));
	assert_false(rn_assertion_key_is_specific("enabled"));
	assert_true(rn_assertion_key_is_specific("golden"));
	assert_true(rn_assertion_key_is_specific("witness_pattern"));
}

/* Each key a row names is a documented [[assertion]] key (RN_ASSERTION_KEYS, which
 * `renacer help config` prints), and no documented key is specific to no type by mistake:
 * every documented key is either common or in some row. */
static void test_assertion_types_keys_documented(void **state)
{
	static const char *const documented[] = {
#define K(key, type, doc) #key,
		RN_ASSERTION_KEYS(K)
#undef K
			NULL
	};
	int i;

	(void)state;
	for (i = 0; i < RN_ASSERT_COUNT; i++) {
		const char *p = rn_assertion_types[i].keys;

		while (*p) {
			size_t len = strcspn(p, " ");
			const char *const *d;

			for (d = documented; *d; d++)
				if (strlen(*d) == len && !strncmp(*d, p, len))
					break;
			if (!*d)
				fail_msg("key '%.*s' of type %s is not in RN_ASSERTION_KEYS",
					 (int)len, p, rn_assertion_types[i].name);
			p += len + (p[len] == ' ');
		}
	}
}

/* The `type` key's doc names every type in table order, joined by " | ". */
static void test_assertion_types_type_doc(void **state)
{
	char want[512] = "";
	int i;

	(void)state;
	size_t len = 0;

	for (i = 0; i < RN_ASSERT_COUNT; i++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%s", i ? " | " : "",
					rn_assertion_types[i].name);
	assert_string_equal(RN_ASSERTION_TYPE_CHOICES, want);
	assert_string_equal(rn_assertion_types[RN_ASSERT_SPAN_COUNT].name, "span_count");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assertion_types_rows_complete),
		cmocka_unit_test(test_assertion_types_keys_are_words),
		cmocka_unit_test(test_assertion_types_keys_documented),
		cmocka_unit_test(test_assertion_types_type_doc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
