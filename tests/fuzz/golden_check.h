/*
 * golden_check.h - the golden trace reader's properties, shared by fuzz_golden.c and
 * fuzz_json_v1.c.
 */
#ifndef RN_FUZZ_GOLDEN_CHECK_H
#define RN_FUZZ_GOLDEN_CHECK_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write `size` bytes to a temporary file and read it with rn_golden_read(). A failure must be
 * one of the documented errors (golden.h) naming the file; a success must give a consistent
 * struct rn_golden, which is then compared (rn_golden_compare) with a synthetic result of
 * five runs and the verdicts rendered as JUnit XML, which must hold only XML characters.
 */
void golden_check(const uint8_t *data, size_t size);

#endif
