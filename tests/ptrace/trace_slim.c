/*
 * trace_slim.c - `renacer trace` on its own, linked without the runner's report libraries
 * (libcurl and the ~30 shared libraries it loads cost ~20 ms of process start-up on small
 * VMs). The benchmark (tests/bench/ptrace/bench.py --slim) uses it to show the tracer's own
 * cost next to the full binary's.
 */
#include <string.h>

#include "cmd_trace.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "trace"))
		return rn_cmd_trace(argc - 1, argv + 1);
	argv[0] = (char *)"trace";
	return rn_cmd_trace(argc, argv);
}
