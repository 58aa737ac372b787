/*
 * eq_rewrite.c - a rewrite of eq_orig.c with the same observable behaviour: stdio-buffered
 * files written in one go, the two writer threads started in the other order and run at the
 * same time, /etc/hostname read through stdio.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static char dir[512];

static void put(const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/out/%s", dir, name);
	f = fopen(path, "we");
	if (!f || fputs(text, f) < 0 || fclose(f))
		perror(path);
}

static void *thread_b(void *arg)
{
	(void)arg;
	put("b.txt", "bravo bravo\n");
	return NULL;
}

static void *thread_a(void *arg)
{
	(void)arg;
	put("a.txt", "alpha alpha alpha alpha\n");
	return NULL;
}

int main(int argc, char **argv)
{
	char path[600], buf[4096];
	pthread_t ta, tb;
	FILE *f;

	if (argc < 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	snprintf(path, sizeof(path), "%s/out", dir);
	mkdir(path, 0755);
	put("report.txt", "line one of the report\nline two of the report\n");
	pthread_create(&tb, NULL, thread_b, NULL);
	pthread_create(&ta, NULL, thread_a, NULL);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	f = fopen("/etc/hostname", "re");
	if (f) {
		while (fread(buf, 1, sizeof(buf), f) > 0)
			;
		fclose(f);
	}
	printf("done\n");
	return 0;
}
