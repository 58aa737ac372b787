/*
 * example_tree - the bundled multi-process example: the root forks workers, each does CPU work
 * and a few syscalls, and the root waits for them, so the critical path runs through the
 * slowest worker.
 *
 *     example_tree [WORKERS]        default 3; worker k does (k + 1) units of work
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t spin(uint64_t rounds)
{
	volatile uint64_t h = 1469598103934665603ull;
	uint64_t i;

	for (i = 0; i < rounds; i++)
		h = (h ^ i) * 1099511628211ull;
	return h;
}

int main(int argc, char **argv)
{
	long workers = argc > 1 ? strtol(argv[1], NULL, 10) : 3;
	long k;
	int status, failed = 0;

	for (k = 0; k < workers; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			uint64_t h = spin((uint64_t)(k + 1) * 3000000u);

			/* A few syscalls per worker so each shows up in the trace. */
			if (getppid() <= 0 || write(STDOUT_FILENO, "", 0) < 0)
				_exit(2);
			_exit((int)(h & 0));
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	printf("example_tree: %ld workers, %d failed\n", workers, failed);
	return failed ? 1 : 0;
}
