/*
 * ap_errorstorm_ok - ErrorStorm near miss: the same 250 plugins in the same 20-directory
 * search path as ap_errorstorm, but each directory is listed once and the names are looked up
 * in memory; only 40 optional config files are probed and missing (ENOENT), below the
 * detector's floor.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIRS 20
#define PLUGINS 250

int main(void)
{
	const char *base = getenv("TMPDIR");
	char root[4096], path[4300];
	static char where[PLUGINS];
	int d, p, found = 0;

	snprintf(root, sizeof(root), "%s/rn_ap_errorstorm_ok_XXXXXX",
		 base && *base ? base : "/tmp");
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
	for (p = 0; p < 40; p++) { /* optional configs that are absent */
		snprintf(path, sizeof(path), "%s/optional%02d.conf", root, p);
		if (!access(path, R_OK))
			return 1;
	}
	for (d = 0; d < DIRS; d++) {
		DIR *dir;
		struct dirent *e;

		snprintf(path, sizeof(path), "%s/d%02d", root, d);
		dir = opendir(path);
		if (!dir)
			return 1;
		while ((e = readdir(dir)))
			if (!strncmp(e->d_name, "plugin", 6)) {
				p = (int)strtol(e->d_name + 6, NULL, 10);
				if (p >= 0 && p < PLUGINS && !where[p]) {
					where[p] = 1;
					found++;
				}
			}
		closedir(dir);
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
