/*
 * ft_hog - use memory until there is no more: ft_hog REPORT_FILE [CAP_MIB].
 *
 * Allocates and touches 1 MiB blocks. When malloc fails it writes the MiB it got to
 * REPORT_FILE and aborts, as a program (or language runtime) that treats out-of-memory as
 * fatal does. Stops at CAP_MIB (default 4096) and exits 0, so a limit that is not applied
 * cannot exhaust the machine.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long cap = argc > 2 ? strtol(argv[2], NULL, 10) : 4096, mib;
	int fd = argc > 1 ? open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	char line[64];
	int n;

	for (mib = 0; mib < cap; mib++) {
		char *p = malloc(1 << 20);

		if (!p)
			break;
		memset(p, 0xA5, 1 << 20);
	}
	n = snprintf(line, sizeof(line), "%ld\n", mib);
	if (fd >= 0 && write(fd, line, (size_t)n) != n)
		return 2;
	if (mib < cap)
		abort();
	return 0;
}
