/*
 * ap_syncstorm - SyncStorm positive: a journal that appends 300 records of 100 bytes and
 * fsyncs after each one.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	const char *base = getenv("TMPDIR");
	char path[4096], rec[100];
	int fd, i;

	snprintf(path, sizeof(path), "%s/rn_ap_syncstorm_XXXXXX", base && *base ? base : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	memset(rec, 'r', sizeof(rec));
	rec[sizeof(rec) - 1] = '\n';
	for (i = 0; i < 300; i++) {
		if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec) || fsync(fd))
			return 1;
	}
	close(fd);
	unlink(path);
	return 0;
}
