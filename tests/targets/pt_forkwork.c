/*
 * pt_forkwork.c - CHILDREN forked children, one after the other, each making CALLS getppid
 * calls before it exits; the parent reaps each before forking the next.
 * Usage: pt_forkwork [CHILDREN [CALLS]] (default 200 children, 200 calls).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int children = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200;
	int calls = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 200, i, j;

	for (i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (j = 0; j < calls; j++)
				getppid();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	return 0;
}
