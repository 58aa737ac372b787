/*
 * ap_memorychurn - MemoryChurn positive: a per-request scratch buffer of 256 KiB mapped,
 * touched and unmapped for each of 5000 requests.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define SCRATCH (256 * 1024)

int main(void)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < 5000; i++) {
		unsigned char *buf = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (buf == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		memset(buf, i & 0xff, 4096);
		sum += buf[i % 4096];
		munmap(buf, SCRATCH);
	}
	return sum == (uint64_t)-1;
}
