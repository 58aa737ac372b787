/*
 * pt_fileio.c - file I/O with known syscalls: create, write, read back, stat, rename, unlink,
 * mkdir/rmdir, and a few calls that fail on purpose (ENOENT, EBADF, EEXIST).
 * Usage: pt_fileio [DIR] (default: a fresh directory under /tmp).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char dir[256], a[300], b[300], sub[300], buf[64];
	struct stat st;
	int fd, i;

	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	else
		snprintf(dir, sizeof(dir), "/tmp/rn-fileio-%d", (int)getpid());
	mkdir(dir, 0755);
	snprintf(a, sizeof(a), "%s/a.txt", dir);
	snprintf(b, sizeof(b), "%s/b.txt", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);

	fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (i = 0; i < 10; i++)
		if (write(fd, "hello, renacer\n", 15) != 15)
			return 1;
	fsync(fd);
	close(fd);
	fd = open(a, O_RDONLY);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	lseek(fd, 0, SEEK_SET);
	pread(fd, buf, 8, 4);
	fstat(fd, &st);
	close(fd);
	stat(a, &st);
	lstat(a, &st);
	access(a, R_OK);
	rename(a, b);
	mkdir(sub, 0700);
	rmdir(sub);
	unlink(b);
	rmdir(dir);

	/* failures: 3 x ENOENT, 2 x EBADF, 1 x EEXIST */
	open("/nonexistent/renacer", O_RDONLY);
	stat("/nonexistent/renacer", &st);
	unlink("/nonexistent/renacer");
	close(987);
	read(987, buf, 1);
	mkdir("/tmp", 0755);
	return 0;
}
