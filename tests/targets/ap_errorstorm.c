/*
 * ap_errorstorm - ErrorStorm positive: resolves 250 plugin names by probing a 20-directory
 * search path with access(2) each time; every plugin lives in the last directory, so 19 of 20
 * probes fail with ENOENT (4750 failures).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIRS 20
#define PLUGINS 250

int main(void)
{
	const char *base = getenv("TMPDIR");
	char root[4096], path[4300];
	int d, p, found = 0;

	snprintf(root, sizeof(root), "%s/rn_ap_errorstorm_XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	for (d = 0; d < DIRS; d++) {
		snprintf(path, sizeof(path), "%s/d%02d", root, d);
		if (mkdir(path, 0700))
			return 1;
	}
	for (p = 0; p < PLUGINS; p++) {
		int fd;

		snprintf(path, sizeof(path), "%s/d%02d/plugin%03d.so", root, DIRS - 1, p);
		fd = open(path, O_WRONLY | O_CREAT, 0600);
		if (fd < 0)
			return 1;
		close(fd);
	}
	for (p = 0; p < PLUGINS; p++)
		for (d = 0; d < DIRS; d++) {
			snprintf(path, sizeof(path), "%s/d%02d/plugin%03d.so", root, d, p);
			if (!access(path, R_OK)) {
				found++;
				break;
			}
		}
	for (p = 0; p < PLUGINS; p++) {
		snprintf(path, sizeof(path), "%s/d%02d/plugin%03d.so", root, DIRS - 1, p);
		unlink(path);
	}
	for (d = 0; d < DIRS; d++) {
		snprintf(path, sizeof(path), "%s/d%02d", root, d);
		rmdir(path);
	}
	rmdir(root);
	return found == PLUGINS ? 0 : 1;
}
