/*
 * fuzz_diff.c - the recorded-trace reader of `renacer diff` and the equivalence assertion
 * (rn_equiv_behaviour_load, assertions/equivalence.c) on arbitrary file contents, in both forms it
 * takes (renacer-trace JSON and JSON Lines). Properties: a refused trace gets a one-line
 * reason; an accepted one loads the same way twice and is equivalent to itself, every fact
 * matched, within the reader's input limits (a forged process tree with cycles or deep chains
 * included). Seeds: tests/fuzz/regressions/diff/.
 */
#include <stdlib.h>
#include <string.h>

#include "equivalence.h"
#include "assertions/internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_tmpfile_write(data, size);
	struct rn_equiv_opts o;
	struct rn_equiv_behaviour *a = NULL, *b = NULL;
	struct rn_equiv_result r;
	char *err = NULL;

	rn_equiv_opts_init(&o);
	if (rn_equiv_behaviour_load(path, &o, &a, &err)) {
		FUZZ_CHECK(!a, "a refused trace gives no behaviour");
		FUZZ_CHECK(err && *err, "a refused trace says why");
		FUZZ_CHECK(!strchr(err, '\n'), "the reason is one line");
		free(err);
		return 0;
	}
	FUZZ_CHECK(!err, "an accepted trace has no error");
	FUZZ_CHECK(!rn_equiv_behaviour_load(path, &o, &b, &err), "an accepted trace loads again");
	FUZZ_CHECK(rn_equiv_behaviour_nfacts(a) == rn_equiv_behaviour_nfacts(b),
		   "the same facts each time");
	rn_equiv_behaviour_compare(a, b, &o, &r);
	FUZZ_CHECK(r.equivalent && !r.ndiffs && !r.nstrict, "a trace is equivalent to itself");
	FUZZ_CHECK(r.facts_a == r.facts_b && r.similarity == 1.0, "every fact matches itself");
	rn_equiv_result_release(&r);
	rn_equiv_behaviour_free(a);
	rn_equiv_behaviour_free(b);
	return 0;
}
