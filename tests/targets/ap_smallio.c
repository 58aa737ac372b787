/*
 * ap_smallio - SmallIO positive: a log writer that writes each 24-byte line with its own
 * write(2), 20000 lines, into a scratch file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	const char *base = getenv("TMPDIR");
	char path[4096], line[64];
	int fd, i, n;

	snprintf(path, sizeof(path), "%s/rn_ap_smallio_XXXXXX", base && *base ? base : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	for (i = 0; i < 20000; i++) {
		n = snprintf(line, sizeof(line), "event %08d status ok\n", i);
		if (write(fd, line, (size_t)n) != n)
			return 1;
	}
	close(fd);
	unlink(path);
	return 0;
}
