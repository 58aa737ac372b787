/*
 * app.c - the explain tests' target: load_cfg() makes OPENS failing openat calls, then
 * hot_parse() burns ROUNDS rounds of arithmetic (no syscall), in a child process when built
 * with -DCHILD. The head tree builds it with more of one of them than the base tree
 * (tests/integration/explain/explain_test.sh). Built with -DSPIKE=N, one run in three (a
 * counter in the file spike.count of the working directory) burns N rounds more in
 * rare_spike(): one run's noise, which the explanation must not rank.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void hot_parse(long rounds)
{
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 2654435761u; /* HOT_LINE */
}

__attribute__((noinline)) static void load_cfg(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open("/nonexistent/renacer-explain.cfg", O_RDONLY); /* OPEN_LINE */

		if (fd >= 0)
			close(fd);
	}
}

#ifdef SPIKE
__attribute__((noinline)) static void rare_spike(long rounds)
{
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 40503u;
}

/* Whether this run is the one in three that spikes: spike.count counts the runs. */
static int spike_turn(void)
{
	FILE *f = fopen("spike.count", "r");
	long n = 0;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 0;
		fclose(f);
	}
	f = fopen("spike.count", "w");
	if (f) {
		fprintf(f, "%ld\n", n + 1);
		fclose(f);
	}
	return n % 3 == 0;
}
#endif

int main(void)
{
	load_cfg(OPENS);
#ifdef CHILD
	pid_t pid = fork();

	if (!pid) {
		hot_parse(ROUNDS);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
#else
	hot_parse(ROUNDS);
#endif
#ifdef SPIKE
	if (spike_turn())
		rare_spike(SPIKE);
#endif
	sink++; /* no tail call: main stays hot_parse's caller */
	return 0;
}
