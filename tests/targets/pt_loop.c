/*
 * pt_loop.c - a tight loop of one syscall, for benchmarks and the memory check; also a
 * process that dies by SIGSEGV after N getppid calls, and one that prints how many CPUs its
 * affinity allows after N getppid calls (the tracer pins a busy lone task: it must not show).
 * Usage: pt_loop getppid|write|segv|affinity N   (write: 1-byte writes to /dev/null).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 40000, i;

	if (argc > 1 && !strcmp(argv[1], "write")) {
		int fd = open("/dev/null", O_WRONLY);

		for (i = 0; i < n; i++)
			if (write(fd, "x", 1) != 1)
				return 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		getppid();
	if (argc > 1 && !strcmp(argv[1], "affinity")) {
		cpu_set_t cpus;

		if (sched_getaffinity(0, sizeof(cpus), &cpus))
			return 1;
		printf("%d\n", CPU_COUNT(&cpus));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "segv")) {
		volatile int *p = NULL;

		return *p;
	}
	return 0;
}
