/*
 * ap_godprocess_ok - GodProcess near miss: the same pool shape as ap_godprocess (a parent and
 * three workers fed through a pipe), but the parent hands out the work, so each worker
 * computes a quarter of it (~75 ms) and the parent itself keeps a quarter.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 3

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall */
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t burn_ms(unsigned ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ULL, x = 88172645463325252ULL;
	unsigned i;

	while (now_ns() < end)
		for (i = 0; i < 10000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
	return x;
}

int main(void)
{
	int jobs[2], i;
	pid_t pids[WORKERS];
	char job[8];
	uint64_t r;

	if (pipe(jobs)) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < WORKERS; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return 1;
		}
		if (!pids[i]) {
			close(jobs[1]);
			/* One job each: 8-byte messages are atomic on a pipe. */
			if (read(jobs[0], job, sizeof(job)) == (ssize_t)sizeof(job))
				burn_ms(75);
			_exit(0);
		}
	}
	close(jobs[0]);
	memset(job, 'j', sizeof(job));
	for (i = 0; i < WORKERS; i++)
		if (write(jobs[1], job, sizeof(job)) != (ssize_t)sizeof(job))
			return 1;
	r = burn_ms(75); /* the parent's own quarter */
	close(jobs[1]);
	for (i = 0; i < WORKERS; i++)
		waitpid(pids[i], NULL, 0);
	return (int)(r & 0);
}
