/*
 * merge.c - `renacer merge`: one verdict and one set of reports from the results files of a
 * sharded check (see merge.h).
 */
#include "cmd_merge.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "exitcode.h"
#include "log.h"
#include "otlp.h"
#include "verdict.h"
#include "report_opts.h"
#include "reporter.h"
#include "shard.h"
#include "xalloc.h"

enum {
	OPT_CONFIG = 'c',
	OPT_QUIET = 'q',
	OPT_HELP = 'h',
	OPT_WIDE = 256,
	OPT_VERBOSE,
};

static const struct rn_option merge_options[] = {
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "the suite's renacer.toml: [report] junit, [otlp], annotation lines (default: the one the results name, if readable)" },
	/* clang-format off */
	RN_REPORT_OPTIONS(RN_REPORT_OPTION_ROW)
	/* clang-format on */
	{ OPT_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no header line" },
	{ OPT_WIDE, "wide", 0, RN_OPT_NONE, NULL,
	  "console table with every column (GOLDEN, BASE), whole names and REASON wrapped" },
	{ OPT_VERBOSE, "verbose", 'v', RN_OPT_NONE, NULL,
	  "console: the statistics of every non-passing row, not only of the failing ones" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_merge_def = {
	"merge",
	"renacer merge [OPTIONS] RESULTS...",
	"merge the results files of `renacer check --shard K/N` into one verdict and one set of reports",
	"Each job of a CI matrix runs `renacer check --shard K/N --results shard-K.json`; a last\n"
	"job runs `renacer merge shard-*.json` and gets the console table, JUnit XML (one testsuite\n"
	"per target), GitHub summary, OTLP trace and exit code that one `renacer check` of the\n"
	"whole suite would have given. Every shard 1..N must be given once; a missing or\n"
	"duplicated shard, or files of different suites, exit 2 naming them. The results format\n"
	"is documented in runner/report/RESULTS.md.",
	merge_options,
};

struct merge_opts {
	const char *config;
	struct rn_report_opts rep; /* --junit, --results, --otlp-*, --github, --history, ... */
	bool quiet;
	bool wide;    /* --wide */
	bool verbose; /* --verbose */
	bool help;
};

static int on_option(void *ctx, int id, const char *arg)
{
	struct merge_opts *o = ctx;

	if (!rn_report_opts_apply(&o->rep, id, arg))
		return 0;
	switch (id) {
	case OPT_CONFIG:
		o->config = arg;
		break;
	case OPT_QUIET:
		o->quiet = true;
		break;
	case OPT_WIDE:
		o->wide = true;
		break;
	case OPT_VERBOSE:
		o->verbose = true;
		break;
	case OPT_HELP:
		o->help = true;
		break;
	default:
		return rn_error("unhandled option %d", id);
	}
	return 0;
}

/* Index of `name` in the suite of `r`, or -1. Suites are small enough for a linear scan per
 * target (100 targets: 10^4 comparisons). */
static long suite_index(const struct rn_results *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->oc.nsuite; i++)
		if (!strcmp(r->oc.suite[i], name))
			return (long)i;
	return -1;
}

/* Do two files describe the same suite? Names the first difference. */
static int same_suite(const struct rn_results *a, const char *pa, const struct rn_results *b,
		      const char *pb)
{
	size_t i;

	if (a->oc.shard.count != b->oc.shard.count) {
		rn_error("'%s' is shard %u/%u but '%s' is shard %u/%u: the files come from checks "
			 "split into different numbers of shards",
			 pa, a->oc.shard.index, a->oc.shard.count, pb, b->oc.shard.index,
			 b->oc.shard.count);
		return RN_EXIT_USAGE;
	}
	for (i = 0; i < a->oc.nsuite && i < b->oc.nsuite; i++)
		if (strcmp(a->oc.suite[i], b->oc.suite[i]))
			break;
	if (i < a->oc.nsuite || i < b->oc.nsuite) {
		rn_error("'%s' and '%s' come from different suites (target %zu is '%s' in one and "
			 "'%s' in the other)",
			 pa, pb, i + 1, i < a->oc.nsuite ? a->oc.suite[i] : "(none)",
			 i < b->oc.nsuite ? b->oc.suite[i] : "(none)");
		return RN_EXIT_USAGE;
	}
	return 0;
}

/* Each shard 1..N of the files exactly once. Returns 0 or RN_EXIT_USAGE. */
static int check_shard_set(const struct rn_merged *m, const char *const *paths)
{
	unsigned count = m->shards[0].oc.shard.count;
	const char **by_index = rn_xcalloc(count + 1, sizeof(*by_index));
	size_t i, k;
	int rc = 0;

	for (i = 0; i < m->nshards && !rc; i++) {
		unsigned k1 = m->shards[i].oc.shard.index;

		if (by_index[k1]) {
			rn_error("shard %u/%u is given twice: '%s' and '%s'", k1, count,
				 by_index[k1], paths[i]);
			rc = RN_EXIT_USAGE;
		}
		by_index[k1] = paths[i];
	}
	for (k = 1; k <= count && !rc; k++) {
		if (!by_index[k]) {
			rn_error("shard %zu/%u is missing: give the results of every shard 1..%u "
				 "(%zu given)",
				 k, count, count, m->nshards);
			rc = RN_EXIT_USAGE;
		}
	}
	free(by_index);
	return rc;
}

/* Each target of the suite in exactly one shard: owner[k] = the file of suite target k.
 * Returns 0 or RN_EXIT_USAGE. */
static int assign_owners(const struct rn_merged *m, const char *const *paths, long *owner)
{
	unsigned count = m->shards[0].oc.shard.count;
	size_t i, k;

	for (k = 0; k < m->oc.ntargets; k++)
		owner[k] = -1;
	for (i = 0; i < m->nshards; i++) {
		const struct rn_results *s = &m->shards[i];

		for (k = 0; k < s->oc.ntargets; k++) {
			long at = suite_index(s, s->oc.targets[k].name);

			if (at < 0) {
				rn_error("'%s': target '%s' is not in the suite the file lists",
					 paths[i], s->oc.targets[k].name);
				return RN_EXIT_USAGE;
			}
			if (owner[at] >= 0) {
				rn_error("target '%s' is in two results: '%s' (shard %u/%u) and '%s' "
					 "(shard %u/%u)",
					 s->oc.targets[k].name, paths[owner[at]],
					 m->shards[owner[at]].oc.shard.index, count, paths[i],
					 s->oc.shard.index, count);
				return RN_EXIT_USAGE;
			}
			owner[at] = (long)i;
		}
	}
	for (k = 0; k < m->oc.ntargets; k++) {
		if (owner[k] < 0) {
			rn_error("target '%s' of the suite is in none of the results files",
				 m->shards[0].oc.suite[k]);
			return RN_EXIT_USAGE;
		}
	}
	return 0;
}

/* Move shard `s`'s targets into suite order in `m` (the shard is left without targets) and
 * fold its times, exit code and flags into `m`. */
static void take_shard(struct rn_merged *m, const char *const **argv, struct rn_results *r)
{
	struct rn_outcome *s = &r->oc, *o = &m->oc;
	size_t k;

	for (k = 0; k < s->ntargets; k++) {
		long at = suite_index(r, s->targets[k].name);

		o->targets[at] = s->targets[k];
		o->reports[at] = s->reports[k];
		o->reports[at].result = &o->targets[at];
		argv[at] = s->argv[k];
	}
	free(s->targets);
	free(s->reports);
	free((char ***)s->argv);
	s->targets = NULL;
	s->reports = NULL;
	s->argv = NULL;
	s->ntargets = 0;
	if (!o->start_unix_ns || (s->start_unix_ns && s->start_unix_ns < o->start_unix_ns))
		o->start_unix_ns = s->start_unix_ns;
	if (s->end_unix_ns > o->end_unix_ns)
		o->end_unix_ns = s->end_unix_ns;
	if (!o->worst_other)
		o->worst_other = s->worst_other;
	if (!o->interrupted)
		o->interrupted = s->interrupted;
	o->not_judged_fails |= s->not_judged_fails;
}

int rn_merged_load(struct rn_merged *m, const char *const *paths, size_t n)
{
	struct rn_outcome *oc = &m->oc;
	const char *const **argv;
	long *owner;
	size_t i;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	if (!n) {
		rn_error("renacer merge: no results file given (usage: %s)",
			 rn_cmd_merge_def.usage);
		return RN_EXIT_USAGE;
	}
	m->shards = rn_xcalloc(n, sizeof(*m->shards));
	m->nshards = n;
	for (i = 0; i < n; i++)
		if (rn_results_read(paths[i], &m->shards[i]))
			return RN_EXIT_CONFIG;
	for (i = 1; i < n && !rc; i++)
		rc = same_suite(&m->shards[0], paths[0], &m->shards[i], paths[i]);
	if (!rc)
		rc = check_shard_set(m, paths);
	if (rc)
		return rc;
	oc->ntargets = m->shards[0].oc.nsuite;
	oc->suite = m->shards[0].oc.suite;
	oc->nsuite = m->shards[0].oc.nsuite;
	oc->config_path = m->shards[0].oc.config_path;
	owner = rn_xcalloc(oc->ntargets + 1, sizeof(*owner));
	oc->targets = rn_xcalloc(oc->ntargets + 1, sizeof(*oc->targets));
	oc->reports = rn_xcalloc(oc->ntargets + 1, sizeof(*oc->reports));
	argv = rn_xcalloc(oc->ntargets + 1, sizeof(*argv));
	oc->argv = argv;
	rc = assign_owners(m, paths, owner);
	free(owner);
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		take_shard(m, argv, &m->shards[i]);
	oc->exit_code = rn_check_exit_code(oc->reports, oc->ntargets, oc->worst_other,
					   oc->not_judged_fails);
	if (oc->interrupted)
		oc->exit_code = oc->interrupted == SIGINT ? RN_EXIT_SIGINT : RN_EXIT_SIGTERM;
	return 0;
}

void rn_merged_release(struct rn_merged *m)
{
	struct rn_outcome *oc = &m->oc;
	size_t i;

	for (i = 0; oc->targets && i < oc->ntargets; i++) {
		rn_target_report_release(&oc->reports[i]);
		rn_target_result_release(&oc->targets[i]);
		rn_results_argv_free(oc->argv[i]);
	}
	free(oc->targets);
	free(oc->reports);
	free((char ***)oc->argv);
	for (i = 0; i < m->nshards; i++)
		rn_results_release(&m->shards[i]);
	free(m->shards);
	memset(m, 0, sizeof(*m));
}

/* The config for [report] and [otlp]: --config, else the path the first results file names
 * when it can be read from here. Returns 0 (cfg loaded, *have set), or RN_EXIT_CONFIG. */
static int load_config(struct rn_config *cfg, bool *have, const struct merge_opts *o,
		       const struct rn_merged *m)
{
	const char *path = o->config;
	struct rn_diag d;

	*have = false;
	if (!path) {
		path = m->oc.config_path;
		if (!path || access(path, R_OK))
			return 0;
	}
	if (rn_config_load(cfg, path, true, &d)) {
		rn_diag_print(&d, o->rep.color);
		rn_config_release(cfg);
		return RN_EXIT_CONFIG;
	}
	*have = true;
	return 0;
}

/* Write every report of the merged suite through the reporter table, as rn_cmd_check does at
 * its end. Returns the final exit code. */
static int write_reports(const struct merge_opts *o, struct rn_merged *m,
			 const struct rn_config *cfg)
{
	struct rn_otlp_cfg otlp_cfg;
	struct rn_otlp_context otlp_ctx;
	struct rn_report_outputs out;
	struct rn_outcome oc = m->oc; /* the reports raise its exit code; cfg set below */
	int rc;

	oc.cfg = cfg;
	if (cfg)
		oc.config_path = cfg->path;
	rn_report_opts_outputs(&o->rep, cfg, &out);
	out.otlp = &otlp_cfg;
	out.otlp_ctx = &otlp_ctx;
	out.history_source = "merge";
	out.quiet = o->quiet;
	out.wide = o->wide;
	out.verbose = o->verbose;
	rn_otlp_cfg_init(&otlp_cfg);
	rc = rn_report_opts_otlp(&o->rep, cfg, &otlp_cfg);
	if (!rc) {
		rn_otlp_context_init(&otlp_ctx);
		rc = rn_report_all(&out, &oc);
	}
	rn_otlp_cfg_release(&otlp_cfg);
	return rc;
}

int rn_cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	struct rn_merged m;
	struct rn_config cfg;
	bool have_cfg = false;
	/* Options may follow the file names (`renacer merge shard-*.json --junit x.xml`): a
	 * results file is one of at most RN_SHARD_MAX shards. */
	const char **paths = rn_xcalloc(RN_SHARD_MAX + 1, sizeof(*paths));
	size_t npaths;
	int rc;

	memset(&o, 0, sizeof(o));
	rn_report_opts_init(&o.rep);
	if (rn_cli_parse_operands(&rn_cmd_merge_def, argc, argv, on_option, &o, paths, RN_SHARD_MAX,
				  &npaths)) {
		free(paths);
		return RN_EXIT_USAGE;
	}
	if (o.help) {
		rn_cli_help(&rn_cmd_merge_def, stdout);
		free(paths);
		return RN_EXIT_OK;
	}
	rc = rn_merged_load(&m, paths, npaths);
	free(paths);
	if (!rc)
		rc = load_config(&cfg, &have_cfg, &o, &m);
	if (!rc) {
		if (!o.quiet)
			fprintf(stderr, "renacer merge: %zu shard%s, %zu target%s\n", m.nshards,
				m.nshards == 1 ? "" : "s", m.oc.ntargets,
				m.oc.ntargets == 1 ? "" : "s");
		/* One history entry for the whole suite, as one check would have made (the
		 * history reporter: advisory, and only with a config, which names the store). */
		rc = write_reports(&o, &m, have_cfg ? &cfg : NULL);
	}
	if (have_cfg)
		rn_config_release(&cfg);
	rn_merged_release(&m);
	return rc;
}
