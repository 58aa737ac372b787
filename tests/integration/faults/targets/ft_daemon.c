/*
 * ft_daemon - leave a grandchild behind, the way daemons detach:
 *
 *     ft_daemon MARKER SECONDS
 *
 * The root forks a child and reaps it; the child calls setsid(), forks the grandchild and
 * exits at once (the double fork); the grandchild, not a group leader, starts a session of its
 * own too, closes its stdio and sleeps SECONDS. The root exits right after reaping the child,
 * so the grandchild outlives both its parent and the root, in another session.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long secs = argc > 2 ? strtol(argv[2], NULL, 10) : 2;
	pid_t child = fork();

	if (child < 0)
		return 1;
	if (child == 0) {
		setsid();
		if (fork() == 0) {
			struct timespec ts = { secs, 0 };

			setsid();
			close(0);
			close(1);
			close(2);
			while (nanosleep(&ts, &ts))
				;
			_exit(0);
		}
		_exit(0);
	}
	waitpid(child, NULL, 0);
	return 0;
}
