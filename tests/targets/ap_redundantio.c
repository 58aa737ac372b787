/*
 * ap_redundantio - RedundantIO positive: for each of 1000 records, the program re-checks and
 * re-reads the same settings file (stat + open + read + close) instead of reading it once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char settings[] = "scale = 3\noffset = 7\n";

/* Parse "scale = N" from the settings text; 1 if absent. */
static long scale_of(const char *text)
{
	const char *p = strstr(text, "scale = ");

	return p ? strtol(p + 8, NULL, 10) : 1;
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	char path[4096], text[256];
	long sum = 0;
	int fd, i;

	snprintf(path, sizeof(path), "%s/rn_ap_redundantio_XXXXXX", base && *base ? base : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, settings, sizeof(settings) - 1) != (ssize_t)sizeof(settings) - 1) {
		perror("settings");
		return 1;
	}
	close(fd);
	for (i = 0; i < 1000; i++) {
		struct stat st;
		ssize_t n;

		if (stat(path, &st)) /* "has it changed?" on every record */
			return 1;
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return 1;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n < 0)
			return 1;
		text[n] = '\0';
		sum += scale_of(text) * i;
	}
	unlink(path);
	return sum > 0 ? 0 : 1;
}
