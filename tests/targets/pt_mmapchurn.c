/*
 * pt_mmapchurn.c - memory syscalls: ROUNDS rounds of anonymous mmap (64 KiB..1 MiB), touch,
 * mremap to double size, munmap, plus brk growth and shrink.
 * Usage: pt_mmapchurn [ROUNDS] (default 200).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200, i;
	char *base;

	for (i = 0; i < rounds; i++) {
		size_t len = (size_t)(64 << 10) << (i % 5);
		char *p =
			mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		memset(p, 1, len);
		p = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			return 2;
		munmap(p, 2 * len);
	}
	base = sbrk(0);
	for (i = 0; i < 10; i++)
		if (sbrk(1 << 16) == (void *)-1)
			return 3;
	if (brk(base))
		return 4;
	/* a failing mmap: EINVAL (length 0) */
	mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return 0;
}
