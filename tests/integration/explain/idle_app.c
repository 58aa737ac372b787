/*
 * idle_app.c - a program whose main thread computes while IDLERS threads wait: each idler
 * waits on a condition variable with a 5 ms timeout, again and again, until the main thread
 * is done with WORK units of CPU work (dependent multiply-adds, no clock). The idlers'
 * waits last as long as the run, IDLERS times over, and their calls grow with it: a longer
 * run is more waiting, none of it on the way of the main thread.
 *
 *     idle_app IDLERS [WORK]     (WORK defaults to -DWORK=N, else 20)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef WORK
#define WORK 20
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;
static volatile uint64_t sink;

static void *idler(void *arg)
{
	struct timespec ts;

	(void)arg;
	pthread_mutex_lock(&mu);
	while (!done) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 5000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&cv, &mu, &ts);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

__attribute__((noinline)) static uint64_t compute(long work)
{
	uint64_t x = 1;

	for (long u = 0; u < work; u++)
		for (unsigned i = 0; i < 1000000u; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

int main(int argc, char **argv)
{
	long idlers = argc > 1 ? strtol(argv[1], NULL, 10) : 4;
	long work = argc > 2 ? strtol(argv[2], NULL, 10) : WORK;
	pthread_t t[64];

	if (idlers > 64)
		idlers = 64;
	for (long i = 0; i < idlers; i++)
		pthread_create(&t[i], NULL, idler, NULL);
	sink = compute(work);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (long i = 0; i < idlers; i++)
		pthread_join(t[i], NULL);
	return 0;
}
