/*
 * fuzz_results.c - the results file reader of `renacer merge` (rn_results_read,
 * runner/report/results.c) on arbitrary file contents. Properties: the reader either refuses the
 * file or accepts one whose every enumeration is in range; what it accepted is written back
 * (rn_results_write) and read again to the same targets, runs, processes and verdicts; and
 * its JUnit report renders as well-formed characters; every name it accepted passes check's
 * target name rule (a results file comes from a job that ran a pull request's code). Seeds:
 * tests/integration/shard/seeds/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fuzz.h"
#include "junit.h"
#include "results.h"
#include "xalloc.h"

static void check_same(const struct rn_outcome *a, const struct rn_outcome *b)
{
	size_t i, k;

	FUZZ_CHECK(a->ntargets == b->ntargets, "targets survive a round trip");
	FUZZ_CHECK(a->nsuite == b->nsuite, "the suite survives a round trip");
	FUZZ_CHECK(a->shard.index == b->shard.index && a->shard.count == b->shard.count,
		   "the shard survives a round trip");
	for (i = 0; i < a->ntargets; i++) {
		const struct rn_target_result *x = &a->targets[i], *y = &b->targets[i];

		FUZZ_CHECK(!strcmp(x->name, y->name), "names survive a round trip");
		FUZZ_CHECK(x->nruns == y->nruns && x->ncounts == y->ncounts &&
				   x->status == y->status,
			   "runs survive");
		for (k = 0; k < x->nruns; k++)
			FUZZ_CHECK(!memcmp(x->runs[k].v, y->runs[k].v, sizeof(x->runs[k].v)),
				   "metrics survive a round trip");
		FUZZ_CHECK(x->last.nprocs == y->last.nprocs, "processes survive");
		FUZZ_CHECK(a->reports[i].nverdicts == b->reports[i].nverdicts, "verdicts survive");
		for (k = 0; k < a->reports[i].nverdicts; k++)
			FUZZ_CHECK(a->reports[i].verdicts[k].verdict ==
					   b->reports[i].verdicts[k].verdict,
				   "verdict labels survive a round trip");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_results res, again;
	const char *path = fuzz_tmpfile_write(data, size);
	char out[4096];
	size_t i, k;

	if (rn_results_read(path, &res)) {
		rn_results_release(&res);
		return 0;
	}
	FUZZ_CHECK(res.oc.shard.index >= 1 && res.oc.shard.index <= res.oc.shard.count,
		   "an accepted shard is K/N with 1 <= K <= N");
	for (i = 0; i < res.oc.nsuite; i++)
		FUZZ_CHECK(rn_config_name_valid(res.oc.suite[i]),
			   "an accepted suite name passes check's name rule");
	for (i = 0; i < res.oc.ntargets; i++) {
		FUZZ_CHECK(res.oc.targets[i].name, "an accepted target has a name");
		FUZZ_CHECK(rn_config_name_valid(res.oc.targets[i].name),
			   "an accepted target name passes check's name rule");
		for (k = 0; k < res.oc.reports[i].nverdicts; k++)
			FUZZ_CHECK(!res.oc.reports[i].verdicts[k].target ||
					   rn_config_name_valid(
						   res.oc.reports[i].verdicts[k].target),
				   "an accepted verdict's target passes check's name rule");
		FUZZ_CHECK(res.oc.reports[i].result == &res.oc.targets[i],
			   "reports point at their target");
		for (k = 0; k < res.oc.reports[i].nverdicts; k++)
			FUZZ_CHECK(res.oc.reports[i].verdicts[k].verdict < RN_VERDICT_COUNT,
				   "accepted verdicts are known");
		for (k = 0; k < res.oc.targets[i].last.nprocs; k++)
			FUZZ_CHECK(res.oc.targets[i].last.procs[k].parent < (int)k,
				   "a process's parent comes before it");
	}
	{
		size_t len = 0;
		char *xml = rn_junit_render(&res.oc, "fuzz", 1, &len);

		FUZZ_CHECK(xml, "the JUnit report renders");
		fuzz_check_xml_chars(xml, len, "JUnit of an accepted results file");
		free(xml);
	}
	snprintf(out, sizeof(out), "%s.out", path);
	FUZZ_CHECK(!rn_results_write(out, &res.oc), "an accepted file can be written back");
	FUZZ_CHECK(!rn_results_read(out, &again), "what was written reads again");
	check_same(&res.oc, &again.oc);
	rn_results_release(&again);
	rn_results_release(&res);
	unlink(out);
	return 0;
}
