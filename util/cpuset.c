/*
 * cpuset.c - CPU placements from the calling thread's affinity (cpuset.h).
 */
#include "cpuset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int rn_cpuset_span(int first, int n, cpu_set_t *out)
{
	cpu_set_t allowed;
	int cpu, found = 0;

	CPU_ZERO(out);
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -errno;
	if (first < 0 || first >= CPU_SETSIZE || !CPU_ISSET(first, &allowed))
		return 0;
	for (cpu = first; cpu < CPU_SETSIZE && found < n; cpu++)
		if (CPU_ISSET(cpu, &allowed)) {
			CPU_SET(cpu, out);
			found++;
		}
	return found;
}

int rn_cpuset_top(int n)
{
	cpu_set_t allowed;
	int cpu, found = 0;

	if (n < 1 || sched_getaffinity(0, sizeof(allowed), &allowed))
		return -1;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &allowed) && ++found == n)
			return cpu;
	return -1;
}

int rn_cpuset_count(void)
{
	cpu_set_t allowed;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return 0;
	return CPU_COUNT(&allowed);
}

int rn_cpu_claim_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int len;

	if (xdg && *xdg == '/')
		len = snprintf(buf, size, "%s/renacer", xdg);
	else
		len = snprintf(buf, size, "/tmp/renacer-%lu", (unsigned long)getuid());
	if (len < 0 || (size_t)len >= size)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(buf, &st))
		return -errno;
	/* /tmp is everyone's: a directory planted there by another user is not ours to lock in */
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return -EPERM;
	return 0;
}

/* Lock `cpu`'s file in `dir` without waiting: its descriptor, -EWOULDBLOCK when another claim
 * holds it, or another -errno. */
static int lock_cpu(const char *dir, int cpu)
{
	char path[4096];
	int fd, len = snprintf(path, sizeof(path), "%s/cpu%d.lock", dir, cpu);

	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/* Claim the window of `n` allowed CPUs from allowed[i]: 1 when held, 0 when another claim
 * holds one of them, or -errno. */
static int claim_window(const char *dir, const int *allowed, int i, int n, struct rn_cpu_claim *out)
{
	for (int k = 0; k < n; k++) {
		int fd = lock_cpu(dir, allowed[i + k]);

		if (fd < 0) {
			rn_cpu_claim_release(out);
			return fd == -EWOULDBLOCK ? 0 : fd;
		}
		out->fds[out->nfds++] = fd;
	}
	out->first = allowed[i];
	out->n = n;
	return 1;
}

int rn_cpu_claim(const char *dir, int n, int prefer, struct rn_cpu_claim *out)
{
	int allowed[CPU_SETSIZE], m = 0, i, rc;
	cpu_set_t set;

	out->first = -1;
	out->n = 0;
	out->nfds = 0;
	if (n < 1 || n > RN_CPU_CLAIM_MAX)
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			allowed[m++] = cpu;
	for (i = 0; i + n <= m; i++)
		if (allowed[i] == prefer) {
			rc = claim_window(dir, allowed, i, n, out);
			if (rc)
				return rc < 0 ? rc : 0;
			break;
		}
	for (i = m - n; i >= 0; i--) {
		if (allowed[i] == prefer)
			continue;
		rc = claim_window(dir, allowed, i, n, out);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	return -EBUSY;
}

void rn_cpu_claim_release(struct rn_cpu_claim *c)
{
	for (int k = 0; k < c->nfds; k++)
		close(c->fds[k]);
	c->nfds = 0;
	c->first = -1;
	c->n = 0;
}
