/*
 * pt_failcalls.c - calls that fail with known errors, several times each: ENOENT (openat,
 * access, readlink), EBADF (fstat, dup2), EINVAL (lseek), ENOTDIR (chdir), ECHILD (wait4) and
 * ENOSYS (a number past every syscall table: strace -c leaves it out, and so does renacer).
 * Usage: pt_failcalls [REPEAT] (default 5).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5, i;
	struct stat st;
	char buf[16];

	for (i = 0; i < n; i++) {
		open("/nonexistent", O_RDONLY);
		access("/nonexistent", F_OK);
		if (readlink("/nonexistent", buf, sizeof(buf)) >= 0)
			return 1;
		fstat(-1, &st);
		dup2(-1, 5);
		lseek(0, 0, 42);
		if (!chdir("/etc/passwd"))
			return 2;
		wait4(-1, NULL, WNOHANG, NULL);
		syscall(1000);
	}
	return 0;
}
