/*
 * ft_signal - die by a signal: ft_signal segv | abrt | kill.
 * segv dereferences NULL (a real fault, not a raised signal).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "segv";

	if (!strcmp(how, "segv")) {
		volatile int *volatile p = NULL;

		*p = 1;
	} else if (!strcmp(how, "abrt")) {
		abort();
	} else if (!strcmp(how, "kill")) {
		kill(getpid(), SIGKILL);
	}
	return 0;
}
