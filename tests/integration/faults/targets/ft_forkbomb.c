/*
 * ft_forkbomb - a bounded fork bomb: ft_forkbomb MARKER DEPTH.
 *
 * Every process forks two children until DEPTH levels exist (2^(DEPTH+1) - 1 processes), then
 * sleeps. Bounded so that a runner that fails to stop it cannot take the machine down, and
 * every process arms alarm(60) as a last resort.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long depth = argc > 2 ? strtol(argv[2], NULL, 10) : 8, level = 0;
	struct timespec ts = { 30, 0 };

	if (depth > 12)
		depth = 12;
	alarm(60);
	while (level < depth) {
		pid_t a = fork();

		if (a == 0) {
			level++;
			continue;
		}
		if (fork() == 0) {
			level++;
			continue;
		}
		break;
	}
	nanosleep(&ts, NULL);
	return 0;
}
