/*
 * sp_work.c - a target of CPU work in spans of its own (renacer_span.h): "load", "solve" and
 * "store", one after the other, each a fixed amount of arithmetic (a unit is about 1.25 ms of
 * CPU on a 2-vCPU VM; the count of operations, not a clock, so a loaded machine stretches the
 * time, never the work).
 *
 *     sp_work LOAD_UNITS SOLVE_UNITS STORE_UNITS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "renacer_span.h"

/* Operations of one unit: a chain of dependent multiply-adds (no vectorising them away). */
#define UNIT_OPS 1000000u

static volatile uint64_t sink;

static void work(const char *span, long units)
{
	uint64_t x = (uint64_t)units + 1;
	long u;
	unsigned i;

	renacer_span_push(span);
	for (u = 0; u < units; u++)
		for (i = 0; i < UNIT_OPS; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	renacer_span_pop();
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: sp_work LOAD_UNITS SOLVE_UNITS STORE_UNITS\n");
		return 2;
	}
	work("load", strtol(argv[1], NULL, 10));
	work("solve", strtol(argv[2], NULL, 10));
	work("store", strtol(argv[3], NULL, 10));
	return 0;
}
