/*
 * ft_stubborn - a process tree that sleeps forever and resists being stopped politely:
 *
 *     ft_stubborn MARKER MODE NCHILD
 *
 * MODE: "plain" (default dispositions), "ignore-term" (SIGTERM, SIGINT, SIGHUP, SIGQUIT
 * ignored), "block-all" (every blockable signal blocked). NCHILD children are forked first
 * and do the same. MARKER only makes the processes findable (pgrep -f) by the test.
 * Only SIGKILL ends it.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void resist(const char *mode)
{
	if (!strcmp(mode, "ignore-term")) {
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
	} else if (!strcmp(mode, "block-all")) {
		sigset_t all;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "plain";
	long n = argc > 3 ? strtol(argv[3], NULL, 10) : 0, i;

	resist(mode);
	for (i = 0; i < n; i++)
		if (fork() == 0)
			break;
	for (;;) {
		struct timespec ts = { 3600, 0 };

		nanosleep(&ts, NULL);
	}
}
