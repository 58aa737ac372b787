/*
 * example_work - the bundled example target: a fixed amount of CPU work interleaved with file
 * I/O, so its syscall counts are exact and its wall time is dominated by computation.
 *
 *     example_work [ITERATIONS]        default 20
 *
 * Environment switches used by the regression tests:
 *     RN_EXAMPLE_SYSCALLS=N   do the I/O of each iteration N times (2 doubles the syscalls)
 *     RN_EXAMPLE_CPU=F        scale the CPU work by F (1.3 = a 30% slowdown)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Work the optimizer cannot remove: an integer hash chain. */
static uint64_t spin(uint64_t rounds)
{
	volatile uint64_t h = 1469598103934665603ull;
	uint64_t i;

	for (i = 0; i < rounds; i++)
		h = (h ^ i) * 1099511628211ull;
	return h;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : def;
}

static double env_double(const char *name, double def)
{
	const char *v = getenv(name);

	return v && *v ? strtod(v, NULL) : def;
}

int main(int argc, char **argv)
{
	long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 20;
	long repeat = env_long("RN_EXAMPLE_SYSCALLS", 1);
	double cpu = env_double("RN_EXAMPLE_CPU", 1.0);
	char path[] = "/tmp/renacer-example-XXXXXX";
	char buf[4096];
	uint64_t sink = 0;
	long i, r;
	int fd;

	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < iterations; i++) {
		sink += spin((uint64_t)(2000000.0 * cpu)); /* about 2 ms on a 2 GHz core */
		for (r = 0; r < repeat; r++) {
			if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
			    pread(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
				perror("pwrite/pread");
				return 1;
			}
			if (fsync(fd) < 0) {
				perror("fsync");
				return 1;
			}
		}
	}
	close(fd);
	unlink(path);
	/* One line of output so a `stdout = "capture"` target has something to keep. */
	printf("example_work: %ld iterations, checksum %llx\n", iterations,
	       (unsigned long long)(sink & 0xffff));
	return 0;
}
