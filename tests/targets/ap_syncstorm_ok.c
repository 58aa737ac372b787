/*
 * ap_syncstorm_ok - SyncStorm near miss: the same journal as ap_syncstorm, with more records
 * (1000 of 100 bytes), but committed in groups: one fsync per 250 records (25 KB).
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

	snprintf(path, sizeof(path), "%s/rn_ap_syncstorm_ok_XXXXXX", base && *base ? base : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	memset(rec, 'r', sizeof(rec));
	rec[sizeof(rec) - 1] = '\n';
	for (i = 1; i <= 1000; i++) {
		if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec))
			return 1;
		if (i % 250 == 0 && fsync(fd))
			return 1;
	}
	close(fd);
	unlink(path);
	return 0;
}
