/*
 * ft_spew - write MIB MiB to stdout and MIB/4 MiB to stderr: ft_spew MIB.
 * Exits 0 whatever the writes return (a closed or full pipe is the runner's business).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void spew(int fd, long mib)
{
	static char chunk[1 << 16];
	long i, n = mib * 16;

	memset(chunk, 'x', sizeof(chunk));
	chunk[sizeof(chunk) - 1] = '\n';
	for (i = 0; i < n; i++)
		if (write(fd, chunk, sizeof(chunk)) < 0)
			return;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 64;

	spew(1, mib);
	spew(2, mib / 4);
	return 0;
}
