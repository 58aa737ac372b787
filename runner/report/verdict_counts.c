/*
 * verdict_counts.c - verdicts of one kind over the judged targets, as the console and GitHub
 * reports count them (internal.h).
 */
#include "internal.h"

size_t rn_report_count(const struct rn_target_report *t, size_t n, enum rn_verdict v)
{
	size_t i, k, c = 0;

	for (i = 0; i < n; i++)
		for (k = 0; k < t[i].nverdicts; k++)
			c += t[i].verdicts[k].verdict == v;
	return c;
}
