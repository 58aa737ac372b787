/*
 * fuzz_json_v1.c - the renacer-json-v1 importer of the golden trace reader.
 *
 * Every input is prefixed with `{"format": "renacer-json-v1",` so that the fuzzer spends its
 * time in read_json_v1() rather than rediscovering the format key; inputs are the rest of an
 * object ("syscalls": [...], "summary": {...}}). Seeds are the json-v1 files with their format
 * key removed (run-fuzzers.sh makes them); json_v1.dict holds the format's tokens.
 * Properties: golden_check.h.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "golden_check.h"

static const char prefix[] = "{\"format\": \"renacer-json-v1\",";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = sizeof(prefix) - 1;
	uint8_t *buf = malloc(n + size + 1);

	FUZZ_CHECK(buf != NULL, "out of memory");
	memcpy(buf, prefix, n);
	memcpy(buf + n, data, size);
	golden_check(buf, n + size);
	free(buf);
	return 0;
}
