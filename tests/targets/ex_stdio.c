/*
 * ex_stdio.c - a target whose writes go through stdio: write_out() prints N records with
 * fprintf and fwrite to /dev/null, flushing after each, so each record is one write(2) made
 * inside libc (_IO_new_file_write), never by the program's own code. An explanation of N's
 * growth must name write_out, not the C runtime (tests/integration/explain/explain_test.sh).
 *
 *     ex_stdio N
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void write_out(FILE *f, long n)
{
	for (long i = 0; i < n; i++) {
		fprintf(f, "record %ld: ", i);
		fwrite("ok\n", 1, 3, f);
		fflush(f); /* WRITE_LINE */
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	FILE *f = fopen("/dev/null", "w");

	if (!f)
		return 2;
	write_out(f, n);
	fclose(f);
	return 0;
}
