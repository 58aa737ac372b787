/*
 * ft_closeout - close stdin, stdout and stderr, then keep writing to them (EBADF), open a file
 * (it gets fd 0) and exit 0.
 */
#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	int i, fd;

	close(0);
	close(1);
	close(2);
	for (i = 0; i < 100; i++) {
		if (write(1, "lost\n", 5) >= 0 || write(2, "lost\n", 5) >= 0)
			return 2;
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd != 0)
		return 3;
	return 0;
}
