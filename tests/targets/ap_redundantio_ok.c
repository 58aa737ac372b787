/*
 * ap_redundantio_ok - RedundantIO near miss: as many opens and stats as ap_redundantio, but
 * of 1000 different files (a tool reading its inputs), and the settings file read once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
	const char *base = getenv("TMPDIR");
	char dir[4096], path[4200], text[64];
	long sum = 0;
	int fd, i;

	snprintf(dir, sizeof(dir), "%s/rn_ap_redundantio_ok_XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	for (i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "%s/in%04d", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, "12\n", 3) != 3)
			return 1;
		close(fd);
	}
	for (i = 0; i < 1000; i++) {
		struct stat st;
		ssize_t n;

		snprintf(path, sizeof(path), "%s/in%04d", dir, i);
		if (stat(path, &st))
			return 1;
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return 1;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n < 0)
			return 1;
		text[n] = '\0';
		sum += strtol(text, NULL, 10);
		unlink(path);
	}
	rmdir(dir);
	return sum == 12000 ? 0 : 1;
}
