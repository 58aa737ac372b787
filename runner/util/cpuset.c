/*
 * cpuset.c - CPU placements from the calling thread's affinity (cpuset.h).
 */
#include "cpuset.h"

#include <errno.h>

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
