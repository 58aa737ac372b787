/*
 * eq_orig.c - the "original" of the behaviour-equivalence tests (tests/integration/equivalence/):
 * in the folder argv[1] it creates out/, writes out/report.txt in many small unbuffered
 * writes, has two threads write out/a.txt then out/b.txt, reads /etc/hostname, and prints a
 * line. eq_rewrite.c does the same with other buffering and thread order. argv[2] adds one
 * behaviour: "git" (fork + exec git --version), "connect" (TCP to 127.0.0.1:9) or "extra"
 * (writes out/extra.txt).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512];

static void write_file(const char *name, const char *text, size_t chunk)
{
	char path[600];
	size_t len = strlen(text), off;
	int fd;

	snprintf(path, sizeof(path), "%s/out/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		_exit(3);
	for (off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;

		if (write(fd, text + off, n) != (ssize_t)n)
			_exit(3);
	}
	close(fd);
}

static void *thread_a(void *arg)
{
	(void)arg;
	write_file("a.txt", "alpha alpha alpha alpha\n", 5);
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	write_file("b.txt", "bravo bravo\n", 3);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *extra = argc > 2 ? argv[2] : "";
	char path[600], buf[64];
	pthread_t ta, tb;
	ssize_t n;
	int fd;

	if (argc < 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	snprintf(path, sizeof(path), "%s/out", dir);
	mkdir(path, 0755);
	write_file("report.txt", "line one of the report\nline two of the report\n", 4);
	pthread_create(&ta, NULL, thread_a, NULL);
	pthread_join(ta, NULL);
	pthread_create(&tb, NULL, thread_b, NULL);
	pthread_join(tb, NULL);
	fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((n = read(fd, buf, 7)) > 0)
			;
		close(fd);
	}
	if (!strcmp(extra, "git")) {
		pid_t pid = fork();

		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execlp("git", "git", "--version", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	} else if (!strcmp(extra, "connect")) {
		struct sockaddr_in sa;
		int s = socket(AF_INET, SOCK_STREAM, 0);

		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons(9);
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		connect(s, (struct sockaddr *)&sa, sizeof(sa));
		close(s);
	} else if (!strcmp(extra, "extra")) {
		write_file("extra.txt", "one more\n", 64);
	}
	printf("done\n");
	return 0;
}
