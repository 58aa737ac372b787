/*
 * pipe_app.c - a pipeline whose writers wait for their reader: WRITERS child processes each
 * write CHUNKS blocks of 4 KiB into one pipe, and a reader child digests every block with
 * WORK units of CPU work (dependent multiply-adds, no clock). The writers' write() calls block
 * while the reader works, so their time in the calls grows with the reader's CPU time, WRITERS
 * times over, and none of it is CPU time. The parent sleeps SLEEP_MS, then waits for its
 * children: the pipeline runs inside that sleep, so the program's wall time stays SLEEP_MS
 * while its CPU time follows WORK.
 *
 *     pipe_app WRITERS CHUNKS WORK SLEEP_MS
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t digest(const unsigned char *b, long work)
{
	uint64_t x = b[0];

	for (long u = 0; u < work; u++)
		for (unsigned i = 0; i < 10000u; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static void reader(int fd, long work)
{
	unsigned char b[BLOCK];
	ssize_t n;

	while ((n = read(fd, b, sizeof(b))) > 0)
		sink = digest(b, work);
	_exit(0);
}

static void writer(int fd, long chunks)
{
	unsigned char b[BLOCK];

	memset(b, 'x', sizeof(b));
	for (long c = 0; c < chunks; c++)
		if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
			_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	long writers = argc > 1 ? strtol(argv[1], NULL, 10) : 3;
	long chunks = argc > 2 ? strtol(argv[2], NULL, 10) : 64;
	long work = argc > 3 ? strtol(argv[3], NULL, 10) : 10;
	long sleep_ms = argc > 4 ? strtol(argv[4], NULL, 10) : 500;
	struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
	int p[2], status, rc = 0;

	if (pipe(p))
		return 1;
	if (fork() == 0) {
		close(p[1]);
		reader(p[0], work);
	}
	close(p[0]);
	for (long w = 0; w < writers; w++)
		if (fork() == 0)
			writer(p[1], chunks);
	close(p[1]);
	nanosleep(&ts, NULL);
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	return rc;
}
