/*
 * ap_smallio_ok - SmallIO near miss: the same 20000 24-byte log lines as ap_smallio, written
 * through stdio, whose buffer turns them into page-sized writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	const char *base = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd, i;

	snprintf(path, sizeof(path), "%s/rn_ap_smallio_ok_XXXXXX", base && *base ? base : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	f = fdopen(fd, "w");
	if (!f)
		return 1;
	for (i = 0; i < 20000; i++)
		fprintf(f, "event %08d status ok\n", i);
	if (fclose(f))
		return 1;
	unlink(path);
	return 0;
}
