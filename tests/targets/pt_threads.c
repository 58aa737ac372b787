/*
 * pt_threads.c - NTHREADS threads each make CALLS getppid calls and one write; the main thread
 * joins them. Usage: pt_threads [NTHREADS [CALLS]] (default 4 threads, 10000 calls).
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static long calls = 10000;

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < calls; i++)
		getppid();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 4, i;
	pthread_t t[64];

	if (argc > 2)
		calls = strtol(argv[2], NULL, 10);
	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
