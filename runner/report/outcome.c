/*
 * outcome.c - the sides, end time and verdicts of a check's outcome (outcome.h).
 */
#include "outcome.h"

#include "internal.h"
#include "now.h"

size_t rn_outcome_nsides(const struct rn_outcome *oc)
{
	return oc->bases ? 2 * oc->ntargets : oc->ntargets;
}

const struct rn_target_result *rn_outcome_side(const struct rn_outcome *oc, size_t j)
{
	return j < oc->ntargets ? &oc->targets[j] : &oc->bases[j - oc->ntargets];
}

uint64_t rn_outcome_end_ns(const struct rn_outcome *oc)
{
	return oc->end_unix_ns ? oc->end_unix_ns : rn_real_ns();
}

size_t rn_outcome_nverdicts(const struct rn_outcome *oc)
{
	size_t i, n = 0;

	for (i = 0; i < oc->ntargets; i++)
		n += oc->reports[i].nverdicts;
	return n;
}

const struct rn_verdict_result *rn_outcome_verdict_next(struct rn_outcome_verdicts *it)
{
	const struct rn_outcome *oc = it->oc;

	while (it->report < oc->ntargets && it->k >= oc->reports[it->report].nverdicts) {
		it->report++;
		it->k = 0;
	}
	if (it->report >= oc->ntargets)
		return NULL;
	it->index++;
	return &oc->reports[it->report].verdicts[it->k++];
}
