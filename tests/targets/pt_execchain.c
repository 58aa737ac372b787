/*
 * pt_execchain.c - an exec chain: a failing execve (ENOENT), then the program re-executes
 * itself N times, the last image execs /bin/true. Also a non-leader thread that execs
 * (the thread takes over the leader's pid) when given "thread".
 * Usage: pt_execchain [N | thread] (default 3).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **g_argv;
static int sync_pipe[2];

static void *exec_from_thread(void *arg)
{
	char *args[] = { g_argv[0], (char *)"0", NULL };
	char c;

	(void)arg;
	/* wait until the main thread is about to pause, so the calls made are the same in
	 * every run */
	if (read(sync_pipe[0], &c, 1) != 1)
		return NULL;
	usleep(20000);
	execv("/proc/self/exe", args);
	return NULL;
}

int main(int argc, char **argv)
{
	char next[16];
	char *args[3];
	int n;

	g_argv = argv;
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_t t;

		if (pipe(sync_pipe))
			return 1;
		pthread_create(&t, NULL, exec_from_thread, NULL);
		if (write(sync_pipe[1], "x", 1) != 1)
			return 1;
		pause(); /* cut off by the thread's execve */
		return 1;
	}
	n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3;
	if (n <= 0) {
		char *t[] = { (char *)"true", NULL };

		execv("/bin/true", t);
		return 1;
	}
	execv("/nonexistent/renacer-exec", argv); /* fails: ENOENT */
	snprintf(next, sizeof(next), "%d", n - 1);
	args[0] = argv[0];
	args[1] = next;
	args[2] = NULL;
	execv("/proc/self/exe", args);
	return 1;
}
