/*
 * src_lines.c - syscalls made from known source lines, for `renacer trace --source`.
 * Built with -g -O1 (tests/targets/tests.cmake). Each call's line carries a marker comment
 * (@read, @write_inlined, ...) that tests/integration/ptrace/source_test.py finds to know the line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Inlined into its caller: its calls resolve to two frames, this one and the call site. */
static inline __attribute__((always_inline)) void put_marker(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0) /* @write_inlined */
		exit(2);
}

__attribute__((noinline)) static long load_hosts(const char *path)
{
	char buf[256];
	long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY); /* @open */

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) /* @read */
		total += n;
	close(fd);
	return total;
}

__attribute__((noinline)) static void report(int fd)
{
	put_marker(fd, "marker\n"); /* @call_inlined */
}

int main(int argc, char **argv)
{
	int fd = open("/dev/null", O_WRONLY); /* @open_main */
	int reps = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1, i;

	FILE *z;
	char line[16];

	if (load_hosts(argc > 2 ? argv[2] : "/etc/hostname") < 0)
		return 1;
	/* through stdio: the open is made two libc functions deep */
	z = fopen("/dev/zero", "re"); /* @fopen */
	if (!z)
		return 1;
	/* the stream's first read: fgets -> ... -> _IO_file_doallocate -> fstat, some nine
	 * frames of libc deep, then the read itself */
	if (!fgets(line, sizeof(line), z)) /* @fgets */
		return 1;
	fclose(z);
	for (i = 0; i < reps; i++)
		report(fd);
	return 0;
}
