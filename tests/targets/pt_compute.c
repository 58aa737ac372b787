/*
 * pt_compute.c - computing with syscalls spread through it: MILLIONS million rounds of
 * integer arithmetic with N getppid calls evenly interleaved (the measurement-fidelity
 * benchmark, tests/bench/timing: about 1 ns a round, so 70 is about 70 ms of computing).
 * Usage: pt_compute MILLIONS N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	double millions = argc > 1 ? strtod(argv[1], NULL) : 70.0;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0, done = 0;
	uint64_t rounds = (uint64_t)(millions * 1e6), i, x = 88172645463325252ull, next;
	uint64_t every = n > 0 ? rounds / (uint64_t)n : 0;

	if (millions < 0 || n < 0) {
		fprintf(stderr, "usage: pt_compute MILLIONS N\n");
		return 2;
	}
	next = every;
	for (i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i == next && done < n) {
			syscall(SYS_getppid); /* not cached by the C library */
			done++;
			next += every;
		}
	}
	for (; done < n; done++)
		syscall(SYS_getppid);
	sink = x;
	return 0;
}
