/*
 * pt_forktree.c - a process tree: the root forks WIDTH children, each forks one grandchild;
 * every process makes a few getpid/write calls and the parents reap their children.
 * Usage: pt_forktree [WIDTH] (default 4).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void work(int n)
{
	int i;

	for (i = 0; i < n; i++)
		getpid();
}

int main(int argc, char **argv)
{
	int width = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 4, i;

	for (i = 0; i < width; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			pid_t g = fork();

			if (g == 0) {
				work(5);
				_exit(3);
			}
			work(10);
			waitpid(g, NULL, 0);
			_exit(0);
		}
	}
	work(3);
	for (i = 0; i < width; i++)
		wait(NULL);
	return 0;
}
