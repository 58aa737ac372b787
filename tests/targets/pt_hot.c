/*
 * pt_hot.c - a planted hot function and a planted openat loop, for profiles.
 * Usage: pt_hot [MS] [OPENS]   spins in hot_loop() for MS ms of CPU (default 400), a tenth of
 *                              that in cold_loop(), and makes OPENS openat calls (default
 *                              2000) from load_cfg().
 *        pt_hot work N         N million rounds of hot_loop's arithmetic and nothing else (a
 *                              fixed amount of CPU work for overhead benchmarks); prints
 *                              "wall_ns cpu_ns" of the work.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void spin(double ms)
{
	double until = cpu_ms() + ms;

	while (cpu_ms() < until)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 2654435761u;
}

__attribute__((noinline)) static void hot_loop(double ms)
{
	spin(ms);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void cold_loop(double ms)
{
	spin(ms);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void load_cfg(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open("/nonexistent/renacer.cfg", O_RDONLY);

		if (fd >= 0)
			close(fd);
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void work(long millions)
{
	for (long m = 0; m < millions; m++)
		for (int i = 0; i < 1000000; i++)
			sink += (unsigned long)i * 2654435761u;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "work")) {
		struct timespec w0, w1;
		double c0 = cpu_ms();

		clock_gettime(CLOCK_MONOTONIC, &w0);
		work(strtol(argv[2], NULL, 10));
		clock_gettime(CLOCK_MONOTONIC, &w1);
		printf("%.0f %.0f\n",
		       (double)(w1.tv_sec - w0.tv_sec) * 1e9 + (double)(w1.tv_nsec - w0.tv_nsec),
		       (cpu_ms() - c0) * 1e6);
		return (int)(sink & 0);
	}
	double ms = argc > 1 ? strtod(argv[1], NULL) : 400;
	long opens = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;

	cold_loop(ms / 10);
	hot_loop(ms);
	load_cfg(opens);
	printf("%lu\n", sink & 1);
	return 0;
}
