/*
 * pt_sleeps.c - nanosleep calls of known lengths, for latency percentiles, and fsync calls
 * for fault injection.
 * Usage: pt_sleeps MS:COUNT ...   COUNT nanosleep calls of MS milliseconds each, in order;
 *        pt_sleeps fsync N        N fsync calls on a temporary file; exits 1 with the errno's
 *                                 name on stderr at the first failure (EIO -> exit 5).
 *        pt_sleeps tick N MS      (for -p) prints "tick I" N times, MS ms apart, while a second
 *                                 thread sleeps too; at I = N/2 a child prints "child" and
 *                                 exits, and the parent waits for it.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int do_fsync(long n)
{
	char path[] = "/tmp/pt_sleeps_XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return 2;
	unlink(path);
	for (long i = 0; i < n; i++) {
		if (write(fd, "x", 1) != 1)
			return 2;
		if (fsync(fd)) {
			int e = errno;

			fprintf(stderr, "fsync: %s\n", strerror(e));
			return e == EIO ? 5 : 1;
		}
	}
	printf("%ld fsyncs\n", n);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *sleeper(void *arg)
{
	for (;;)
		sleep_ms((long)(intptr_t)arg);
	return NULL;
}

static int tick(long n, long ms)
{
	pthread_t th;

	if (pthread_create(&th, NULL, sleeper, (void *)(intptr_t)(ms * 3)))
		return 2;
	for (long i = 0; i < n; i++) {
		printf("tick %ld\n", i);
		fflush(stdout);
		if (i == n / 2) {
			pid_t pid = fork();
			int st;

			if (pid == 0) {
				printf("child\n");
				fflush(stdout);
				_exit(0);
			}
			if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
				return 3;
		}
		sleep_ms(ms);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "tick"))
		return tick(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "fsync"))
		return do_fsync(strtol(argv[2], NULL, 10));
	for (int a = 1; a < argc; a++) {
		char *colon;
		long ms = strtol(argv[a], &colon, 10), count;

		if (*colon != ':')
			return 2;
		count = strtol(colon + 1, NULL, 10);
		for (long i = 0; i < count; i++)
			sleep_ms(ms);
	}
	return 0;
}
