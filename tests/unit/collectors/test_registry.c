/*
 * test_registry.c - the one collector list (RN_COLLECTORS, collectors/collector.h): the
 * registry holds each row at its index, the bits are 1 << index and distinct, the look-ups by
 * name agree with the rows, and the target-selectable names are the first rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collector.h"

/* Each row is at its index in rn_collectors[], which ends right after the last row. */
static void test_registry_rows_in_order(void **state)
{
	int n = 0;

	(void)state;
#define ROW(coll, id, desc)                                                                        \
	assert_int_equal(RN_COLLECTOR_##id, n);                                                    \
	assert_non_null(rn_collectors[n]);                                                         \
	assert_string_equal(rn_collectors[n]->name, #coll);                                        \
	assert_ptr_equal(rn_collector_find(#coll), rn_collectors[n]);                              \
	assert_true(*(desc));                                                                      \
	n++;
	RN_COLLECTORS(ROW)
#undef ROW
	assert_int_equal(n, RN_NCOLLECTORS);
	assert_null(rn_collectors[RN_NCOLLECTORS]);
	assert_null(rn_collector_find("nope"));
}

/* RN_COLLECT_<ID> is 1 << the row's index, the bits are distinct, and rn_collector_mask_of
 * returns each row's bit by name (0 for an unknown name). */
static void test_registry_bits_from_rows(void **state)
{
	uint32_t all = 0;

	(void)state;
#define ROW(coll, id, desc)                                                                        \
	assert_int_equal((uint32_t)RN_COLLECT_##id, 1u << RN_COLLECTOR_##id);                      \
	assert_int_equal(rn_collector_mask_of(#coll), (uint32_t)RN_COLLECT_##id);                  \
	assert_int_equal(all &(uint32_t)RN_COLLECT_##id, 0);                                       \
	all |= (uint32_t)RN_COLLECT_##id;
	RN_COLLECTORS(ROW)
#undef ROW
	assert_int_equal(all, (1u << RN_NCOLLECTORS) - 1);
	assert_int_equal(rn_collector_mask_of("nope"), 0);
	assert_int_equal(rn_collector_mask_of(""), 0);
}

/* The names a target may give are the RN_TARGET_COLLECTORS rows, the first of the registry;
 * a driver collector (ebpf) is not one of them. */
static void test_registry_target_names(void **state)
{
	int n = 0;

	(void)state;
#define ROW(coll, id, desc)                                                                        \
	assert_non_null(rn_target_collector_names[n]);                                             \
	assert_string_equal(rn_target_collector_names[n], #coll);                                  \
	assert_string_equal(rn_collectors[n]->name, #coll);                                        \
	n++;
	RN_TARGET_COLLECTORS(ROW)
#undef ROW
	assert_null(rn_target_collector_names[n]);
	for (n = 0; rn_target_collector_names[n]; n++)
		assert_string_not_equal(rn_target_collector_names[n], "ebpf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_rows_in_order),
		cmocka_unit_test(test_registry_bits_from_rows),
		cmocka_unit_test(test_registry_target_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
