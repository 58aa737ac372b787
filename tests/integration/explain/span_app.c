/*
 * span_app.c - a target whose own spans (renacer_span.h) do their work in named functions:
 * "load" in load_step, then "solve" in solve_step, each a fixed count of dependent
 * multiply-adds (no clock: a loaded machine stretches the time, never the work).
 *
 *     span_app LOAD_UNITS SOLVE_UNITS
 */
#include <stdint.h>
#include <stdlib.h>

#include "renacer_span.h"

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t load_step(uint64_t x)
{
	for (unsigned i = 0; i < 1000000u; i++)
		x = x * 2862933555777941757ull + 3037000493ull;
	return x;
}

__attribute__((noinline)) static uint64_t solve_step(uint64_t x)
{
	for (unsigned i = 0; i < 1000000u; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

int main(int argc, char **argv)
{
	long load = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	long solve = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	uint64_t x = 1;

	renacer_span_push("load");
	for (long u = 0; u < load; u++)
		x = load_step(x);
	renacer_span_pop();
	renacer_span_push("solve");
	for (long u = 0; u < solve; u++)
		x = solve_step(x);
	renacer_span_pop();
	sink = x;
	return 0;
}
