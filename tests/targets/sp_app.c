/*
 * sp_app.c - a target that marks its own blocks with renacer_span.h: a "request" span holding
 * "parse" (PARSE_MS of sleep) and "render" (2 ms), and a thread's "worker" span (5 ms).
 *
 *     sp_app PARSE_MS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "renacer_span.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void *worker(void *arg)
{
	(void)arg;
	renacer_span_push("worker");
	sleep_ms(5);
	renacer_span_pop();
	return NULL;
}

int main(int argc, char **argv)
{
	long parse_ms = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	renacer_span_push("request");
	renacer_span_push("parse");
	sleep_ms(parse_ms);
	renacer_span_pop();
	renacer_span_push("render");
	sleep_ms(2);
	renacer_span_pop();
	renacer_span_pop();
	pthread_join(t, NULL);
	return 0;
}
