/*
 * ex_scanf.c - a target whose reads go through fscanf: read_in() scans N numbers from an
 * unbuffered stream of a file it wrote, so each byte is one read(2) made deep inside libc
 * (__vfscanf_internal, which keeps a frame pointer, then _IO_file_underflow), never by the
 * program's own code. A profile must name read_in as the reads' caller
 * (tests/integration/explain/explain_test.sh, case scanf).
 *
 *     ex_scanf N
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static long read_in(FILE *f, long n)
{
	long sum = 0, v;

	for (long i = 0; i < n; i++)
		if (fscanf(f, "%ld", &v) == 1) /* SCAN_LINE */
			sum += v;
	return sum;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	char path[] = "/tmp/ex_scanf.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	long sum;

	if (!f)
		return 2;
	unlink(path);
	for (long i = 0; i < n; i++)
		fprintf(f, "%ld\n", i);
	rewind(f);
	setvbuf(f, NULL, _IONBF, 0);
	sum = read_in(f, n);
	fclose(f);
	return sum == n * (n - 1) / 2 ? 0 : 1;
}
