/*
 * pt_imagemem.c - memory of process images: threads share one, fork copies it, exec replaces
 * it. Sizes are fixed so the test can compare the accounted peaks with them.
 * Usage: pt_imagemem thread   map 8 MiB, then a thread maps 8 MiB more (one image: >= 16 MiB)
 *        pt_imagemem fork     map 8 MiB, fork; the child unmaps its copy, maps 2 MiB, exits
 *        pt_imagemem exec     grow the break by 32 MiB, then exec `pt_imagemem small`
 *        pt_imagemem small    map 1 MiB and exit
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 1, len);
	return p;
}

static void *thread_main(void *arg)
{
	(void)arg;
	return map(8 * MIB);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	void *p;

	if (!strcmp(mode, "thread")) {
		pthread_t th;
		void *q = NULL;

		p = map(8 * MIB);
		if (!p || pthread_create(&th, NULL, thread_main, NULL) || pthread_join(th, &q) ||
		    !q)
			return 1;
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		int st;
		pid_t pid;

		p = map(8 * MIB);
		if (!p)
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			munmap(p, 8 * MIB);
			_exit(map(2 * MIB) ? 0 : 1);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		return 0;
	}
	if (!strcmp(mode, "exec")) {
		char *b = sbrk((intptr_t)(32 * MIB));

		if (b == (void *)-1)
			return 1;
		memset(b, 1, 32 * MIB);
		execl("/proc/self/exe", argv[0], "small", (char *)NULL);
		return 1;
	}
	if (!strcmp(mode, "small"))
		return map(1 * MIB) ? 0 : 1;
	fprintf(stderr, "usage: pt_imagemem thread|fork|exec|small\n");
	return 2;
}
