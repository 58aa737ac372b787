/*
 * sp_cpu.c - a target with one span that computes and one that sleeps (renacer_span.h):
 * "burn" is a fixed amount of arithmetic (a unit is about 1.25 ms of CPU on a 2-vCPU VM; the
 * count of operations, not a clock), "nap" sleeps, so its own CPU time is near zero whatever
 * its wall time.
 *
 *     sp_cpu BURN_UNITS NAP_MS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "renacer_span.h"

/* Operations of one unit: a chain of dependent multiply-adds (no vectorising them away). */
#define UNIT_OPS 1000000u

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	uint64_t x = 1;
	long units, ms, u;
	unsigned i;
	struct timespec nap;

	if (argc != 3) {
		fprintf(stderr, "usage: sp_cpu BURN_UNITS NAP_MS\n");
		return 2;
	}
	units = strtol(argv[1], NULL, 10);
	ms = strtol(argv[2], NULL, 10);
	renacer_span_push("burn");
	for (u = 0; u < units; u++)
		for (i = 0; i < UNIT_OPS; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	renacer_span_pop();
	renacer_span_push("nap");
	nap.tv_sec = ms / 1000;
	nap.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&nap, &nap))
		;
	renacer_span_pop();
	return 0;
}
