/*
 * ap_godprocess - GodProcess positive: a "worker pool" whose workers never get work. The parent
 * forks three workers that block reading a job pipe, then does all the computation itself
 * (~300 ms of CPU, no syscalls), closes the pipe and reaps them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* CPU work for `ms` of wall time without syscalls. */
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
			char job[64];
			ssize_t n;

			close(jobs[1]);
			/* Wait for jobs that never come; EOF ends the worker. */
			while ((n = read(jobs[0], job, sizeof(job))) > 0)
				burn_ms(10);
			_exit(0);
		}
	}
	close(jobs[0]);
	r = burn_ms(300); /* the parent keeps all the work */
	close(jobs[1]);
	for (i = 0; i < WORKERS; i++)
		waitpid(pids[i], NULL, 0);
	return (int)(r & 0); /* use r */
}
