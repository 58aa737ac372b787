/*
 * ft_killchild - a child killed by SIGKILL while it works, as the OOM killer does: the child
 * spins, the parent kills it after 300 ms, reaps it and exits 0.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	pid_t child = fork();
	int status;

	if (child < 0)
		return 2;
	if (child == 0) {
		volatile unsigned long n = 0;

		for (;;)
			n++;
	}
	usleep(300000);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return 0;
}
