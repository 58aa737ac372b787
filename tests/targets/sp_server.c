/*
 * sp_server.c - a server that reports its own request times through renacer_span.h, honestly
 * or not: a client process sends N requests over a socket pair; for each, the server reads
 * it, works WORK_MS (sleep), writes the response, and reports a "request" span from the
 * start of the work to FACTOR times the time it really took (1 honest, 0.5 under-reports).
 *
 *     sp_server N WORK_MS FACTOR
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "renacer_span.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 3;
	long work_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 50;
	double factor = argc > 3 ? strtod(argv[3], NULL) : 1.0;
	int sv[2];
	char buf[64];
	pid_t client;
	long i;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 2;
	client = fork();
	if (client < 0)
		return 2;
	if (client == 0) {
		close(sv[0]);
		for (i = 0; i < n; i++)
			if (write(sv[1], "GET /\n", 6) != 6 || read(sv[1], buf, sizeof(buf)) <= 0)
				_exit(2);
		_exit(0);
	}
	close(sv[1]);
	for (i = 0; i < n; i++) {
		uint64_t t0, t1;

		if (read(sv[0], buf, sizeof(buf)) <= 0)
			return 2;
		t0 = renacer_span_now_ns();
		sleep_ms(work_ms);
		if (write(sv[0], "200 OK\n", 7) != 7)
			return 2;
		t1 = renacer_span_now_ns();
		renacer_span_record("request", t0, t0 + (uint64_t)((double)(t1 - t0) * factor));
	}
	close(sv[0]);
	waitpid(client, NULL, 0);
	return 0;
}
