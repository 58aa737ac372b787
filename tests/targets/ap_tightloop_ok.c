/*
 * ap_tightloop_ok - TightLoop near miss: the same ~300 ms wait on a timer fd in a polling
 * loop, but each poll has a 5 ms timeout, so the loop sleeps in the kernel instead of
 * spinning (about 60 polls instead of tens of thousands).
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <unistd.h>

int main(void)
{
	struct itimerspec its = { { 0, 0 }, { 0, 300 * 1000 * 1000 } };
	struct pollfd pfd;
	uint64_t expirations;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL)) {
		perror("timerfd");
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 5) == 0)
		;
	if (read(fd, &expirations, sizeof(expirations)) != (ssize_t)sizeof(expirations))
		return 1;
	close(fd);
	return 0;
}
