/*
 * fuzz_golden.c - the golden trace reader (rn_golden_read, assertions/golden_read.c) on arbitrary
 * file contents, then the comparison and the JUnit report of whatever it accepted. Properties:
 * golden_check.h. Seeds: the .json files of golden_traces/ and tests/unit/assertions/golden/.
 */
#include "fuzz.h"
#include "golden_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	golden_check(data, size);
	return 0;
}
