/*
 * sp_writes.c - a target for span_time: N small writes to /dev/null, then, with a delay D > 0,
 * one write that blocks for about D ms (a pipe is filled to capacity while a child that
 * sleeps D ms before reading holds its read end).
 *
 *     sp_writes N D
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	long delay_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	int fd = open("/dev/null", O_WRONLY), p[2];
	long i;
	pid_t child;

	if (fd < 0)
		return 2;
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return 2;
	close(fd);
	if (delay_ms <= 0)
		return 0;
	if (pipe(p))
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

		close(p[1]);
		nanosleep(&ts, NULL);
		while (read(p[0], buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	/* The pipe holds 64 KiB: the first write fills it, the second waits for the child. */
	memset(buf, 'y', sizeof(buf));
	if (write(p[1], buf, sizeof(buf)) < 0 || write(p[1], buf, 4096) < 0)
		return 2;
	close(p[1]);
	waitpid(child, NULL, 0);
	return 0;
}
