/*
 * pt_hot.c - a planted hot function and a planted openat loop, for profiles.
 * Usage: pt_hot [MS] [OPENS]   spins in hot_loop() for MS ms of CPU (default 400), a tenth of
 *                              that in cold_loop(), and makes OPENS openat calls (default
 *                              2000) from load_cfg().
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	double ms = argc > 1 ? strtod(argv[1], NULL) : 400;
	long opens = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;

	cold_loop(ms / 10);
	hot_loop(ms);
	load_cfg(opens);
	printf("%lu\n", sink & 1);
	return 0;
}
