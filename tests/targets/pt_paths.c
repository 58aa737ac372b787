/*
 * pt_paths.c - path arguments the collector must decode: a plain path, a path that ends
 * exactly at the end of a mapping (the next page is unmapped), an empty path, a path longer
 * than RN_PATH_MAX (ENAMETOOLONG, decoded truncated), a NULL path (EFAULT, not decoded), and
 * a two-path call (rename).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static char longpath[5000];
	const char *edge = "/rn-edge-of-page";
	char *at;
	struct stat st;

	if (two == MAP_FAILED)
		return 1;
	munmap(two + page, (size_t)page);
	at = two + page - (strlen(edge) + 1);
	memcpy(at, edge, strlen(edge) + 1);

	open("/rn-plain/path", O_RDONLY);
	open(at, O_RDONLY);
	stat("", &st);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	open(longpath, O_RDONLY);
	syscall(SYS_open, NULL, O_RDONLY);
	rename("/rn-from", "/rn-to");
	return 0;
}
