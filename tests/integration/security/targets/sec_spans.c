/*
 * sec_spans - a target that abuses renacer_span.h:
 *
 *     sec_spans names     a span whose name forges a workflow command and drives the terminal
 *                         ("x\n::error::FORGED4" ESC BEL), and a 97-byte name whose last
 *                         character straddles the 96-byte cut
 *     sec_spans open N    "outer", then N-1 nested "deep" pushes (past the cap of open spans),
 *                         then N pops: every push is matched
 */
#include <stdlib.h>
#include <string.h>

#include "renacer_span.h"

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "names";

	if (!strcmp(mode, "names")) {
		char long_name[128];

		renacer_span_push("x\n::error::FORGED4\033[2J\007");
		renacer_span_pop();
		memset(long_name, 'a', 95);
		memcpy(long_name + 95, "\xc3\xa9", 3); /* "é" at bytes 95-96, then the NUL */
		renacer_span_push(long_name);
		renacer_span_pop();
		return 0;
	}
	if (!strcmp(mode, "open") && argc > 2) {
		long n = strtol(argv[2], NULL, 10);

		renacer_span_push("outer");
		for (long i = 1; i < n; i++)
			renacer_span_push("deep");
		for (long i = 0; i < n; i++)
			renacer_span_pop();
		return 0;
	}
	return 2;
}
