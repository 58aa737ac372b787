/*
 * app.c - the explain tests' target: load_cfg() makes OPENS failing openat calls, then
 * hot_parse() burns ROUNDS rounds of arithmetic (no syscall), in a child process when built
 * with -DCHILD. The head tree builds it with more of one of them than the base tree
 * (tests/integration/explain/explain_test.sh).
 */
#include <fcntl.h>
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
	sink++; /* no tail call: main stays hot_parse's caller */
	return 0;
}
