/*
 * pt_setsid_sleep.c - a tree that outlives its timeout: the root forks a child that calls
 * setsid() (leaving the process group) and sleeps, and sleeps itself.
 * Usage: pt_setsid_sleep [SECONDS] (default 30).
 */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned s = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 30;

	if (fork() == 0) {
		setsid();
		if (fork() == 0)
			sleep(s);
		sleep(s);
		_exit(0);
	}
	sleep(s);
	return 0;
}
