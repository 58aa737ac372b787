/*
 * ap_memorychurn_ok - MemoryChurn near miss: the same 5000 requests with a 256 KiB scratch
 * buffer as ap_memorychurn, but the buffer is mapped once and reused.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define SCRATCH (256 * 1024)

int main(void)
{
	uint64_t sum = 0;
	unsigned char *buf =
		mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < 5000; i++) {
		memset(buf, i & 0xff, 4096);
		sum += buf[i % 4096];
	}
	munmap(buf, SCRATCH);
	return sum == (uint64_t)-1;
}
