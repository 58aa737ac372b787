/*
 * ap_tightloop - TightLoop positive: waits ~300 ms for a timer by polling its fd with a zero
 * timeout in a loop, instead of letting poll block.
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
	uint64_t expirations, spins = 0;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL)) {
		perror("timerfd");
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 0) == 0) /* the anti-pattern: a zero timeout, so it spins */
		spins++;
	if (read(fd, &expirations, sizeof(expirations)) != (ssize_t)sizeof(expirations))
		return 1;
	close(fd);
	return spins ? 0 : 1;
}
