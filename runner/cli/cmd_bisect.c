/*
 * cmd_bisect.c - `renacer bisect GOOD BAD`: find the commit that made the gate fail
 * (cmd_bisect.h).
 *
 * Each comparison is one `renacer check --baseline` in a child process, with the candidate's
 * checkout as the head and GOOD's as the base, and its results file (--results) read back:
 * the child has the whole same-job engine (pairs, adaptive looks up to [regression] max_runs,
 * the three-valued rule, the profile of a failed timing row) and its signals, and a target
 * that crashes cannot take the bisection with it. The config as given is copied into every
 * checkout at its place in the repository, so every commit is measured the same way, also
 * commits older than the config.
 */
#include "cmd_bisect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baseline.h"
#include "buf.h"
#include "checkout.h"
#include "collector.h"
#include "config.h"
#include "escape.h"
#include "exitcode.h"
#include "github.h"
#include "log.h"
#include "results.h"
#include "safefile.h"
#include "xalloc.h"

enum bisect_opt_id {
	BO_CONFIG = 'c',
	BO_TARGET = 't',
	BO_QUIET = 'q',
	BO_VERBOSE = 'v',
	BO_HELP = 'h',
	BO_MARKDOWN = 256,
	BO_RUNS,
};

static const struct rn_option bisect_options[] = {
	{ BO_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml), used for every commit" },
	{ BO_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "compare only this target (repeatable)" },
	{ BO_MARKDOWN, "markdown", 0, RN_OPT_REQUIRED, "FILE",
	  "write the result as Markdown to FILE (atomically)" },
	{ BO_RUNS, "runs", 0, RN_OPT_REQUIRED, "N",
	  "timing pairs of each comparison, no adaptive repeats (as check --runs)" },
	{ BO_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no progress lines" },
	{ BO_VERBOSE, "verbose", 'v', RN_OPT_NONE, NULL,
	  "show each comparison's own report (else only that of one that did not complete)" },
	{ BO_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_bisect_def = {
	"bisect",
	"renacer bisect GOOD BAD [--config FILE] [--target NAME]... [--markdown FILE]",
	"find the first commit between GOOD and BAD whose same-job baseline against GOOD fails",
	"The candidates are `git rev-list --first-parent GOOD..BAD`. Each one tested is checked\n"
	"out into a temporary git worktree (under $TMPDIR), built with the targets' `build`\n"
	"commands, and compared with GOOD's built checkout by `renacer check --baseline` (the\n"
	"config as given, copied into every checkout; no [ratchet] rows). BAD is compared first;\n"
	"the baseline:* rows that FAIL there decide for the others (a time or instruction row's\n"
	"limit: half BAD's shift when above 3%); a target whose baseline:instructions row\n"
	"(instructions = true) FAILs at BAD is decided by that count alone, its time rows only\n"
	"inform. The later comparisons measure only the targets of those rows, one timing pair\n"
	"a side when none of the rows is timed (counts, instructions). A FAIL makes the commit\n"
	"bad, all PASS good, each step naming the row that\n"
	"decided; a deciding time row INCONCLUSIVE after the adaptive pairs (up to [regression]\n"
	"max_runs) is measured once more with twice the pairs, and a commit still undecided or\n"
	"whose build failed is skipped, with the reason, as `git bisect skip`. Then binary\n"
	"search. The first bad commit is reported with the\n"
	"FAIL rows of its comparison (message and detail: the statistics, the syscall diff, the\n"
	"profile of what grew). Exit 1: BAD regressed (the first bad commit, or the range of\n"
	"skipped commits holding it); 0: BAD does not fail against GOOD; 4: GOOD could not be\n"
	"built or BAD not judged. The worktrees are removed at the end.",
	bisect_options,
};

struct bisect_opts {
	const char *config;
	const char **targets; /* --target names [ntargets], borrowed from argv */
	size_t ntargets;
	const char *markdown;
	const char *runs; /* --runs as given, or NULL */
	unsigned nruns;   /* its value */
	bool quiet, verbose, help;
};

/* What one candidate turned out to be. */
enum step_state {
	STEP_UNTESTED = 0,
	STEP_GOOD,
	STEP_BAD,
	STEP_SKIP,
};

static const char *const state_names[] = { "untested", "good", "bad", "skip" };

/* One commit of GOOD..BAD, oldest first. */
struct step {
	char *commit;  /* full hash, owned */
	char *subject; /* first line of its message, owned */
	enum step_state state;
	char *reason;          /* one line: why bad or skipped, owned, or NULL */
	struct rn_results res; /* its comparison's results, when `have_res` */
	bool have_res;
	unsigned order; /* 1.. in the order tested, 0 untested */
};

/* The whole bisection. */
struct bisect {
	const struct bisect_opts *o;
	char *repo;                /* the repository's top */
	char *config_rel;          /* the config's path inside the repository */
	struct rn_buf config_text; /* the config as given */
	char *tmp;                 /* private directory: results files and logs */
	char self[PATH_MAX];       /* this renacer */
	struct rn_checkout good;   /* GOOD's built checkout */
	struct step *steps;        /* [n] oldest first; steps[n-1] is BAD */
	size_t n;
	unsigned tested;
	int interrupted; /* a signal ended it */
	/* after BAD: the rows that FAILed there, "target/assertion" [ndecide], owned */
	char **decide;
	size_t ndecide;
	/* after BAD: the targets of those rows [nmeasure], each once, owned; the later
	 * comparisons measure only them */
	char **measure;
	size_t nmeasure;
	/* after BAD: a deciding row reads the timing pairs (a time row, peak_rss); when none
	 * does, a later comparison measures one pair a side (--runs 1) */
	bool pairs_decide;
	char tolerance[16]; /* --baseline-tolerance of the later comparisons, or "" */
	unsigned max_runs;  /* the config's [regression] max_runs: the pairs of a retry */
};

/* A comparison left inconclusive by a deciding time row is run once more with this many
 * times the pairs (fixed, one look: --runs), before the commit is skipped. */
#define RETRY_PAIRS_FACTOR 2

static int on_option(void *ctx, int id, const char *arg)
{
	struct bisect_opts *o = ctx;

	switch (id) {
	case BO_CONFIG:
		o->config = arg;
		return 0;
	case BO_TARGET:
		o->targets = rn_xrealloc(o->targets, (o->ntargets + 1) * sizeof(*o->targets));
		o->targets[o->ntargets++] = arg;
		return 0;
	case BO_MARKDOWN:
		o->markdown = arg;
		return 0;
	case BO_RUNS: {
		char *end;
		long v = strtol(arg, &end, 10);

		if (*end || end == arg || v < 1 || v > 1000) {
			rn_error("--runs needs a whole number between 1 and 1000, not '%s'", arg);
			return -1;
		}
		o->runs = arg;
		o->nruns = (unsigned)v;
		return 0;
	}
	case BO_QUIET:
		o->quiet = true;
		return 0;
	case BO_VERBOSE:
		o->verbose = true;
		return 0;
	case BO_HELP:
		o->help = true;
		return 0;
	}
	return -1;
}

static char *short_hash(const char *commit)
{
	return rn_xstrndup(commit, 12);
}

/* Write the config as given into checkout `dir` at its place in the repository. */
static int place_config(struct bisect *b, const char *dir, char **path_out)
{
	char *path = rn_xstrfmt("%s/%s", dir, b->config_rel);
	int rc = rn_write_file_atomic(path, b->config_text.buf, b->config_text.len);

	if (rc) {
		rn_error("cannot write the config into the checkout '%s': %s", path,
			 rn_safefile_strerror(rc));
		free(path);
		return rc;
	}
	*path_out = path;
	return 0;
}

/* Check `rev` out, place the config and build it; `what` names it in messages. 0, or -EIO
 * (the checkout is removed then). */
static int prepare_tree(struct bisect *b, const char *rev, const char *what, struct rn_checkout *co,
			char **config_out)
{
	struct rn_config cfg;
	struct rn_diag d;
	char *path = NULL;
	int rc;

	rc = rn_checkout_add(co, b->repo, rev);
	if (rc)
		return rc;
	rc = place_config(b, co->dir, &path);
	if (!rc) {
		rc = rn_config_load(&cfg, path, true, &d);
		if (rc) {
			rn_diag_print(&d, false);
			rn_error("%s: the config does not load in its checkout", what);
		} else {
			b->max_runs = cfg.regression.max_runs;
			rc = rn_checkout_build(&cfg, NULL, what, b->o->quiet);
		}
		rn_config_release(&cfg);
	}
	if (rc) {
		free(path);
		rn_checkout_remove(co);
		return -EIO;
	}
	*config_out = path;
	return 0;
}

/* Run `renacer check` on the candidate's config against GOOD (`runs`: its --runs, or NULL
 * for the adaptive pairs); its exit status, or -1. The [ratchet] is left out: a step compares
 * the commit with GOOD only. */
static int run_check(struct bisect *b, const char *config, const char *runs, const char *results,
		     const char *log)
{
	const char *argv[16 + 2 * 64];
	size_t n = 0, i;
	pid_t pid;
	int status;

	argv[n++] = b->self;
	argv[n++] = "check";
	argv[n++] = "--config";
	argv[n++] = config;
	argv[n++] = "--baseline";
	argv[n++] = b->good.dir;
	argv[n++] = "--no-golden";
	argv[n++] = "--no-github";
	argv[n++] = "--no-ratchet";
	argv[n++] = "--results";
	argv[n++] = results;
	if (runs) {
		argv[n++] = "--runs";
		argv[n++] = runs;
	}
	if (*b->tolerance) {
		argv[n++] = "--baseline-tolerance";
		argv[n++] = b->tolerance;
	}
	for (i = 0; i < b->o->ntargets && i < 64; i++) {
		argv[n++] = "--target";
		argv[n++] = b->o->targets[i];
	}
	for (i = 0; !b->o->ntargets && i < b->nmeasure && i < 64; i++) {
		argv[n++] = "--target";
		argv[n++] = b->measure[i];
	}
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		/* each comparison is a step of this command, not a check of its own */
		unsetenv("RENACER_HISTORY_URL");
		unsetenv("GITHUB_STEP_SUMMARY");
		if (!b->o->verbose) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		execv(b->self, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Does this row decide a bisection step (a same-job baseline row)? */
static bool baseline_row(const struct rn_verdict_result *v)
{
	return v->assertion && !strncmp(v->assertion, "baseline:", 9);
}

/* Is `v` one of the rows that FAILed at BAD (all baseline rows before BAD is judged)? */
static bool deciding_row(const struct bisect *b, const struct rn_verdict_result *v)
{
	size_t i, tl;

	if (!baseline_row(v))
		return false;
	if (!b->ndecide)
		return true;
	tl = strlen(v->target ? v->target : "");
	for (i = 0; i < b->ndecide; i++)
		if (!strncmp(b->decide[i], v->target ? v->target : "", tl) &&
		    b->decide[i][tl] == '/' && !strcmp(b->decide[i] + tl + 1, v->assertion))
			return true;
	return false;
}

/* Is `v` a time row of a same-job baseline (its limit is the tolerance)? */
static bool time_row(const struct rn_verdict_result *v)
{
	static const enum rn_metric times[] = { RN_METRIC_WALL, RN_METRIC_CRITICAL_PATH,
						RN_METRIC_CPU_TIME, RN_METRIC_GPU_BUSY };
	size_t i;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (baseline_row(v) && !strcmp(v->assertion + 9, rn_metric_info(times[i])->name))
			return true;
	return false;
}

/* Is `v` the instruction-count row of a same-job baseline (instructions = true)? */
static bool instructions_row(const struct rn_verdict_result *v)
{
	return baseline_row(v) && !strcmp(v->assertion + 9, "instructions");
}

/* Does deciding row `v` read the timing pairs? Counts (syscalls, allocations, the instruction
 * count of its own Valgrind run) do not: only the counting runs measure them. Unknown names
 * do, to be safe. */
static bool reads_pairs(const struct rn_verdict_result *v)
{
	const char *name = v->assertion + 9;
	char metric[64];
	int m;

	if (!strcmp(name, "instructions"))
		return false;
	snprintf(metric, sizeof(metric), "%.*s", (int)strcspn(name, ":"), name);
	if (!strcmp(metric, "syscall_counts"))
		return false;
	m = rn_metric_lookup(metric);
	return m < 0 || rn_metric_measured_by((enum rn_metric)m) != RN_MEASURES_COUNTS;
}

/* Add `target` to the targets the later comparisons measure, once. */
static void measure_add(struct bisect *b, const char *target)
{
	size_t i;

	for (i = 0; i < b->nmeasure; i++)
		if (!strcmp(b->measure[i], target))
			return;
	b->measure = rn_xrealloc(b->measure, (b->nmeasure + 1) * sizeof(*b->measure));
	b->measure[b->nmeasure++] = rn_xstrdup(target);
}

/* Did target `target`'s baseline:instructions row FAIL in `s` (the count decides for it)? */
static bool count_decides(const struct step *s, const char *target)
{
	size_t t, k;

	for (t = 0; t < s->res.oc.ntargets; t++) {
		const struct rn_target_report *tv = &s->res.oc.reports[t];

		for (k = 0; k < tv->nverdicts; k++) {
			const struct rn_verdict_result *v = &tv->verdicts[k];

			if (instructions_row(v) && v->verdict == RN_VERDICT_FAIL &&
			    !strcmp(v->target ? v->target : "", target ? target : ""))
				return true;
		}
	}
	return false;
}

/*
 * What the later comparisons decide on, from BAD's: the rows that FAILed there (a regression
 * in counts is not bisected on noisy time rows, nor the reverse), and for time rows a limit of
 * half BAD's smallest failing shift when that is above the default tolerance: a commit is then
 * bad when it carries most of BAD's slowdown and good when shown to carry less than half of it,
 * which an A/A comparison can show in far fewer pairs than "within 3%". A target whose
 * baseline:instructions row (instructions = true) FAILed at BAD is decided by that count
 * alone: it repeats run to run, so its time rows, as noisy as the machine, neither decide nor
 * skip (a slowdown without more instructions, waiting or cache misses, leaves the count
 * passing at BAD, and the time rows decide as before).
 */
static void decide_from_bad(struct bisect *b, const struct step *s)
{
	double least = 0;
	bool counted = false;
	size_t t, k;

	for (t = 0; t < s->res.oc.ntargets; t++) {
		const struct rn_target_report *tv = &s->res.oc.reports[t];

		for (k = 0; k < tv->nverdicts; k++) {
			const struct rn_verdict_result *v = &tv->verdicts[k];

			if (!baseline_row(v) || v->verdict != RN_VERDICT_FAIL)
				continue;
			if (time_row(v) && count_decides(s, v->target)) {
				counted = true;
				continue;
			}
			b->decide = rn_xrealloc(b->decide, (b->ndecide + 1) * sizeof(*b->decide));
			b->decide[b->ndecide++] = rn_xstrfmt("%s/%s", v->target, v->assertion);
			b->pairs_decide |= reads_pairs(v);
			if (v->target)
				measure_add(b, v->target);
			if ((time_row(v) || instructions_row(v)) &&
			    (least <= 0 || v->delta_pct < least))
				least = v->delta_pct;
		}
	}
	if (least / 2 >= RN_BASELINE_TOLERANCE * 100 + 1) {
		unsigned pct = least / 2 > 100 ? 100 : (unsigned)(least / 2);

		snprintf(b->tolerance, sizeof(b->tolerance), "%u", pct);
	}
	if (!b->o->quiet) {
		struct rn_buf m;

		rn_buf_init(&m, 0);
		for (k = 0; k < b->ndecide; k++)
			rn_buf_addf(&m, "%s%s", k ? ", " : "", b->decide[k]);
		if (counted)
			rn_buf_adds(&m,
				    " (the instruction count decides its target: the time rows "
				    "of that target only inform)");
		if (*b->tolerance)
			rn_buf_addf(&m, "; limit +%s%% (half of BAD's +%.1f%%)", b->tolerance,
				    least);
		if (b->ndecide && !b->pairs_decide && !b->o->runs)
			rn_buf_adds(&m, "; no deciding row is timed: one timing pair a side");
		fprintf(stderr, "renacer bisect: deciding on %s\n", m.buf);
		rn_buf_release(&m);
	}
}

/* Step `s` is bad: `v`, a deciding row, FAILed. */
static void mark_bad(struct step *s, const struct rn_verdict_result *v)
{
	const char *m = v->message ? v->message : "FAIL";

	/* the instruction row's message says "decided by" itself */
	if (!strncmp(m, "decided by ", 11))
		m += 11;
	s->state = STEP_BAD;
	s->reason = rn_xstrfmt("decided by %s/%s FAIL: %s", v->target, v->assertion, m);
}

/* Step `s` is good: its reason names the deciding rows that PASSed. */
static void mark_good(const struct bisect *b, struct step *s)
{
	struct rn_buf by;
	unsigned n = 0;
	size_t t, k;

	rn_buf_init(&by, 0);
	rn_buf_adds(&by, "decided by ");
	for (t = 0; t < s->res.oc.ntargets; t++)
		for (k = 0; k < s->res.oc.reports[t].nverdicts; k++) {
			const struct rn_verdict_result *v = &s->res.oc.reports[t].verdicts[k];

			if (deciding_row(b, v) && v->verdict == RN_VERDICT_PASS)
				rn_buf_addf(&by, "%s%s/%s", n++ ? ", " : "", v->target,
					    v->assertion);
		}
	rn_buf_adds(&by, n ? " PASS" : "no row (every deciding row SKIP)");
	s->state = STEP_GOOD;
	s->reason = rn_buf_detach(&by, NULL);
}

/* Judge step `s` from its results: bad when a deciding row FAILs (named: an instruction
 * row before a time row, as at BAD where every row decides), skipped at the first
 * inconclusive or failed one, else good. The reason names the row(s) that decided. Returns
 * true when it is skipped for an inconclusive time row (more pairs may decide). */
static bool classify(const struct bisect *b, struct step *s, int exit_code)
{
	const struct rn_verdict_result *skip = NULL, *bad = NULL;
	unsigned nbase = 0;
	size_t t, k;

	for (t = 0; t < s->res.oc.ntargets; t++) {
		const struct rn_target_report *tv = &s->res.oc.reports[t];

		for (k = 0; k < tv->nverdicts; k++) {
			const struct rn_verdict_result *v = &tv->verdicts[k];

			if (!deciding_row(b, v))
				continue;
			nbase++;
			if (v->verdict == RN_VERDICT_FAIL &&
			    (!bad || (instructions_row(v) && !instructions_row(bad))))
				bad = v;
			else if (v->verdict != RN_VERDICT_PASS && v->verdict != RN_VERDICT_SKIP &&
				 !skip)
				skip = v;
		}
	}
	if (bad) {
		mark_bad(s, bad);
		return false;
	}
	if (skip) {
		s->state = STEP_SKIP;
		s->reason = rn_xstrfmt("%s %s/%s: %s", rn_verdict_label(skip->verdict),
				       skip->target, skip->assertion,
				       skip->reason          ? skip->reason :
					       skip->message ? skip->message :
							       "not decided");
		return skip->verdict == RN_BASELINE_INCONCLUSIVE && time_row(skip);
	}
	if (!nbase) {
		s->state = STEP_SKIP;
		s->reason = rn_xstrfmt("no baseline row (check exit %d: %s)", exit_code,
				       rn_exit_meaning(exit_code) ? rn_exit_meaning(exit_code) :
								    "unknown");
		return false;
	}
	mark_good(b, s);
	return false;
}

/* The end of a comparison's log on stderr (what a comparison that did not complete said). */
static void show_log(const char *log)
{
	struct rn_buf b;
	const char *from;

	rn_buf_init(&b, (size_t)16 << 20);
	if (!rn_buf_read_file(&b, log) && b.len) {
		from = b.len > 4000 ? b.buf + b.len - 4000 : b.buf;
		fprintf(stderr, "renacer bisect: the comparison's output%s:\n%s",
			from > b.buf ? " (its end)" : "", from);
	}
	rn_buf_release(&b);
}

/* One comparison of step `s` (built, its config at `config`) with GOOD, `runs` pairs (NULL:
 * adaptive); sets its state. Returns true when a deciding time row left it inconclusive. */
static bool compare_once(struct bisect *b, struct step *s, const char *config, const char *runs,
			 const char *results, const char *log)
{
	int rc;

	(void)unlink(results); /* an earlier attempt's file is not this one's */
	rc = run_check(b, config, runs, results, log);

	if (rn_run_interrupted() || rc == RN_EXIT_SIGINT || rc == RN_EXIT_SIGTERM ||
	    rc == RN_EXIT_SIGHUP || rc == RN_EXIT_SIGQUIT) {
		b->interrupted = rn_run_interrupted() ? rn_run_interrupted() : rc - 128;
		s->state = STEP_SKIP;
		s->reason = rn_xstrdup("interrupted");
		return false;
	}
	if (rc < 0 || access(results, F_OK) || rn_results_read(results, &s->res)) {
		rn_results_release(&s->res);
		s->have_res = false;
		s->state = STEP_SKIP;
		s->reason = rn_xstrfmt("the comparison did not complete (exit %d)", rc);
		show_log(log);
		return false;
	}
	s->have_res = true;
	return classify(b, s, rc);
}

/*
 * Compare step `s` with GOOD and set its state; `h` names it. A deciding time row left
 * inconclusive by the adaptive pairs (up to max_runs) is measured once more with
 * RETRY_PAIRS_FACTOR times the pairs, in one look, before the commit is skipped.
 */
static void compare(struct bisect *b, struct step *s, const char *config, const char *results,
		    const char *log, const char *h)
{
	unsigned pairs = b->o->runs ? b->o->nruns : b->max_runs;
	char runs[16];
	/* after BAD, with no deciding row timed: one pair, since time rows only inform */
	const char *first = b->o->runs ? b->o->runs : b->ndecide && !b->pairs_decide ? "1" : NULL;

	if (!compare_once(b, s, config, first, results, log))
		return;
	pairs = pairs * RETRY_PAIRS_FACTOR > 1000 ? 1000 : pairs * RETRY_PAIRS_FACTOR;
	if (!b->o->quiet)
		fprintf(stderr,
			"renacer bisect: [%u] %s is inconclusive (%s); again with %u pairs\n",
			s->order, h, s->reason, pairs);
	snprintf(runs, sizeof(runs), "%u", pairs);
	free(s->reason);
	s->reason = NULL;
	rn_results_release(&s->res);
	s->have_res = false;
	if (compare_once(b, s, config, runs, results, log)) {
		char *r = rn_xstrfmt("%s (also with %u pairs)", s->reason, pairs);

		free(s->reason);
		s->reason = r;
	}
}

/* Compare step `idx` with GOOD and set its state. */
static void test_step(struct bisect *b, size_t idx)
{
	struct step *s = &b->steps[idx];
	struct rn_checkout co;
	char *what, *config = NULL, *results, *log, *h = short_hash(s->commit);

	s->order = ++b->tested;
	what = rn_xstrfmt("commit %s", h);
	if (!b->o->quiet)
		fprintf(stderr, "renacer bisect: [%u] testing %s %s\n", s->order, h, s->subject);
	results = rn_xstrfmt("%s/results-%s.json", b->tmp, h);
	log = rn_xstrfmt("%s/check-%s.log", b->tmp, h);
	if (prepare_tree(b, s->commit, what, &co, &config)) {
		s->state = STEP_SKIP;
		s->reason = rn_xstrdup("could not be checked out or built");
	} else {
		compare(b, s, config, results, log, h);
		rn_checkout_remove(&co);
	}
	if (!b->o->quiet)
		fprintf(stderr, "renacer bisect: [%u] %s is %s%s%s\n", s->order, h,
			state_names[s->state], s->reason ? ": " : "", s->reason ? s->reason : "");
	free(config);
	free(results);
	free(log);
	free(what);
	free(h);
}

/* The untested, unskipped index in (lo, hi) nearest the middle, or hi when none is left. */
static size_t next_step(const struct bisect *b, size_t lo1, size_t hi)
{
	/* lo1 = lo + 1: the first index after the last good one (0 when only GOOD is good) */
	size_t mid, d;

	if (lo1 >= hi)
		return hi;
	mid = lo1 + (hi - lo1) / 2;
	for (d = 0; d <= hi - lo1; d++) {
		if (mid >= lo1 + d && b->steps[mid - d].state == STEP_UNTESTED)
			return mid - d;
		if (mid + d < hi && b->steps[mid + d].state == STEP_UNTESTED)
			return mid + d;
	}
	return hi;
}

/* Append `s` (a commit's subject, a row's message: anyone's text) to `out` as Markdown text:
 * it cannot end a table cell, open HTML or a comment, or mention anyone (github.h). */
static void add_md(struct rn_buf *out, const char *s)
{
	rn_github_escape_markdown(out, s, 0);
}

/* Backticks of a code fence around `s`: more than its longest run of backticks, at least 3. */
static size_t fence_len(const char *s)
{
	size_t best = 0, cur = 0;

	for (; s && *s; s++) {
		cur = *s == '`' ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best < 3 ? 3 : best + 1;
}

static void add_fence(struct rn_buf *out, size_t n)
{
	rn_buf_adds(out, "  ");
	while (n--)
		rn_buf_addc(out, '`');
	rn_buf_addc(out, '\n');
}

/* Append the FAIL rows of `s` (the explanation) to `out` as text or Markdown. */
static void add_fail_rows(struct rn_buf *out, const struct step *s, bool md)
{
	size_t t, k;

	for (t = 0; s->have_res && t < s->res.oc.ntargets; t++) {
		const struct rn_target_report *tv = &s->res.oc.reports[t];

		for (k = 0; k < tv->nverdicts; k++) {
			const struct rn_verdict_result *v = &tv->verdicts[k];

			if (v->verdict != RN_VERDICT_FAIL || !baseline_row(v))
				continue;
			if (md) {
				rn_buf_adds(out, "- **FAIL** ");
				add_md(out, v->target);
				rn_buf_addc(out, '/');
				add_md(out, v->assertion);
				rn_buf_adds(out, ": ");
				add_md(out, v->message);
				rn_buf_addc(out, '\n');
			} else
				rn_buf_addf(out, "  FAIL %s/%s: %s\n", v->target, v->assertion,
					    v->message ? v->message : "");
			if (v->detail && *v->detail) {
				const char *p = v->detail;
				size_t fence = fence_len(v->detail);

				if (md) {
					rn_buf_addc(out, '\n');
					add_fence(out, fence);
				}
				while (*p) {
					const char *nl = strchr(p, '\n');
					size_t len = nl ? (size_t)(nl - p) : strlen(p);

					rn_buf_addf(out, "    %.*s\n", (int)len, p);
					p += len + (nl ? 1 : 0);
				}
				if (md)
					add_fence(out, fence);
			}
		}
	}
}

/* The result as text (console) or Markdown: the first bad commit (or the range), its
 * explanation rows and every step tested. `first`: index of the first bad commit, `lo1`: the
 * first candidate after the last good one. */
static void write_result(struct rn_buf *out, const struct bisect *b, size_t lo1, size_t first,
			 bool named, bool md)
{
	const struct step *fs = &b->steps[first];
	char *h = short_hash(fs->commit);
	size_t i;

	if (named && md) {
		rn_buf_addf(out, "# renacer bisect: first bad commit `%s`\n\n**%s** ", h,
			    fs->commit);
		add_md(out, fs->subject);
		rn_buf_adds(out, "\n\n");
	} else if (named) {
		rn_buf_addf(out, "first bad commit: %s\n  %s %s\n", h, fs->commit, fs->subject);
	} else {
		rn_buf_adds(out,
			    md ? "# renacer bisect: the first bad commit is one of\n\n" :
				 "only skipped commits left: the first bad commit is one of\n");
		for (i = lo1; i <= first; i++) {
			if (i != first && b->steps[i].state != STEP_SKIP)
				continue;
			if (md) {
				rn_buf_addf(out, "- `%s` ", b->steps[i].commit);
				add_md(out, b->steps[i].subject);
				rn_buf_addf(out, " (%s)\n", state_names[b->steps[i].state]);
			} else {
				rn_buf_addf(out, "  %s %s (%s)\n", b->steps[i].commit,
					    b->steps[i].subject, state_names[b->steps[i].state]);
			}
		}
		rn_buf_adds(out, "\n");
	}
	rn_buf_addf(out,
		    md ? "## Why: the FAIL rows of `%s` against GOOD\n\n" :
			 "why (the FAIL rows of %s against GOOD):\n",
		    h);
	add_fail_rows(out, fs, md);
	rn_buf_adds(out,
		    md ? "\n## Steps\n\n| # | commit | subject | verdict | reason |\n"
			 "|---|---|---|---|---|\n" :
			 "steps:\n");
	for (i = 0; i < b->n; i++) {
		const struct step *s = &b->steps[i];
		char *sh;

		if (!s->order)
			continue;
		sh = short_hash(s->commit);
		if (md) {
			rn_buf_addf(out, "| %u | `%s` | ", s->order, sh);
			add_md(out, s->subject);
			rn_buf_addf(out, " | %s | ", state_names[s->state]);
			add_md(out, s->reason);
			rn_buf_adds(out, " |\n");
		} else
			rn_buf_addf(out, "  [%u] %s %-6s %s%s%s\n", s->order, sh,
				    state_names[s->state], s->subject, s->reason ? " -- " : "",
				    s->reason ? s->reason : "");
		free(sh);
	}
	rn_buf_addf(out,
		    md ? "\n%zu candidates, %u compared with GOOD.\n" :
			 "%zu candidates, %u compared with GOOD\n",
		    b->n, b->tested);
	free(h);
}

/* The candidates: `git log --first-parent --reverse GOOD..BAD`, oldest first. */
static int list_steps(struct bisect *b, const char *good, const char *bad)
{
	char *range = rn_xstrfmt("%s..%s", good, bad);
	const char *args[] = {
		"log", "--first-parent", "--reverse", "--format=%H%x09%s", range, "--", NULL
	};
	struct rn_buf out;
	char *p, *nl;
	int rc;

	rn_buf_init(&out, (size_t)64 << 20);
	rc = rn_git(b->repo, args, &out);
	for (p = out.buf; !rc && *p; p = nl + 1) {
		char *tab;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		else
			*nl = '\0';
		tab = strchr(p, '\t');
		b->steps = rn_xrealloc(b->steps, (b->n + 1) * sizeof(*b->steps));
		memset(&b->steps[b->n], 0, sizeof(*b->steps));
		b->steps[b->n].commit = tab ? rn_xstrndup(p, (size_t)(tab - p)) : rn_xstrdup(p);
		/* anyone's text: shown with its controls escaped (escape.h) */
		b->steps[b->n].subject = rn_display_dup(tab ? tab + 1 : "");
		b->n++;
		if (!nl[1])
			break;
	}
	rn_buf_release(&out);
	free(range);
	return rc;
}

/* Where the config lies: the repository's top and the config's path inside it. */
static int locate_config(struct bisect *b)
{
	char *abs = realpath(b->o->config, NULL), *dir, *slash;
	size_t rl;
	int rc = 0;

	if (!abs) {
		rn_error("cannot read '%s': %s", b->o->config, strerror(errno));
		return -errno;
	}
	dir = rn_xstrdup(abs);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	b->repo = rn_git_toplevel(*dir ? dir : "/");
	free(dir);
	if (!b->repo) {
		rn_error("'%s' is not in a git repository: bisect checks its commits out", abs);
		free(abs);
		return -EINVAL;
	}
	{
		/* the top as the kernel resolves it, so the prefix compares */
		char *real = realpath(b->repo, NULL);

		if (real) {
			free(b->repo);
			b->repo = real;
		}
	}
	rl = strlen(b->repo);
	if (strncmp(abs, b->repo, rl) || abs[rl] != '/') {
		rn_error("'%s' is not inside the repository '%s'", abs, b->repo);
		rc = -EINVAL;
	} else {
		b->config_rel = rn_xstrdup(abs + rl + 1);
		rn_buf_init(&b->config_text, (size_t)64 << 20);
		rc = rn_buf_read_file(&b->config_text, abs);
		if (rc)
			rn_error("cannot read '%s': %s", abs, strerror(-rc));
	}
	free(abs);
	return rc;
}

/* Write the Markdown result to `path` atomically. */
static int write_markdown(const struct bisect *b, const char *path, size_t lo1, size_t first,
			  bool named)
{
	struct rn_buf md;
	int rc;

	rn_buf_init(&md, 0);
	write_result(&md, b, lo1, first, named, true);
	rc = rn_buf_failed(&md) ? -ENOMEM : rn_write_file_atomic(path, md.buf, md.len);
	if (rc)
		rn_error("cannot write '%s': %s", path, rn_safefile_strerror(rc));
	rn_buf_release(&md);
	return rc;
}

/* Binary search over the steps (BAD already bad). Sets *lo1 (first index after the last good
 * one) and returns the first bad index. */
static size_t search(struct bisect *b, size_t *lo1_out)
{
	size_t lo1 = 0, hi = b->n - 1;

	while (!b->interrupted) {
		size_t i = next_step(b, lo1, hi);

		if (i == hi)
			break;
		test_step(b, i);
		if (b->steps[i].state == STEP_GOOD)
			lo1 = i + 1;
		else if (b->steps[i].state == STEP_BAD)
			hi = i;
	}
	*lo1_out = lo1;
	return hi;
}

/* Is every candidate in [lo1, hi) skipped (so none of them can be ruled out)? */
static bool named_first(const struct bisect *b, size_t lo1, size_t hi)
{
	size_t i;

	for (i = lo1; i < hi; i++)
		if (b->steps[i].state == STEP_SKIP)
			return false;
	return true;
}

/* The temporary directory of the worktrees, under $TMPDIR. 0, or -errno (said). */
static int make_tmp(struct bisect *b)
{
	const char *tmpdir = getenv("TMPDIR");

	b->tmp = rn_xstrfmt("%s/renacer-bisect-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(b->tmp)) {
		int e = errno;

		rn_error("cannot make a temporary directory '%s': %s", b->tmp, strerror(e));
		free(b->tmp);
		b->tmp = NULL;
		return -e;
	}
	return 0;
}

/* BAD did not fail against GOOD: nothing to bisect (exit 0), or it could not be judged. */
static int bad_not_failing(const struct step *s, const char *good, const char *bad)
{
	if (s->state == STEP_GOOD) {
		printf("BAD %.12s does not fail against GOOD %.12s: nothing to bisect\n", bad,
		       good);
		return RN_EXIT_OK;
	}
	rn_error("BAD %.12s could not be judged against GOOD: %s", bad,
		 s->reason ? s->reason : "skipped");
	return RN_EXIT_TARGET;
}

static int bisect_run(struct bisect *b, const char *good_rev, const char *bad_rev)
{
	char *good = NULL, *bad = NULL, *config = NULL, *gh;
	size_t lo1 = 0, first;
	struct rn_buf out;
	ssize_t len;
	bool named;
	int rc;

	len = readlink("/proc/self/exe", b->self, sizeof(b->self) - 1);
	if (len <= 0) {
		rn_error("cannot find this renacer (/proc/self/exe): %s", strerror(errno));
		return RN_EXIT_INTERNAL;
	}
	b->self[len] = '\0';
	if (locate_config(b))
		return RN_EXIT_CONFIG;
	good = rn_git_commit(b->repo, good_rev);
	bad = good ? rn_git_commit(b->repo, bad_rev) : NULL;
	if (!bad) {
		rc = RN_EXIT_USAGE;
		goto out;
	}
	if (list_steps(b, good, bad)) {
		rc = RN_EXIT_USAGE;
		goto out;
	}
	if (!b->n) {
		rn_error("no commits between '%s' and '%s' on the first-parent line of '%s': BAD "
			 "must descend from GOOD",
			 good_rev, bad_rev, bad_rev);
		rc = RN_EXIT_USAGE;
		goto out;
	}
	if (make_tmp(b)) {
		rc = RN_EXIT_OUTPUT;
		goto out;
	}
	gh = short_hash(good);
	if (!b->o->quiet)
		fprintf(stderr, "renacer bisect: %zu candidates from %s to %.12s; building GOOD\n",
			b->n, gh, bad);
	{
		char *what = rn_xstrfmt("GOOD %s", gh);

		rc = prepare_tree(b, good, what, &b->good, &config);
		free(what);
	}
	free(gh);
	if (rc) {
		rc = RN_EXIT_TARGET;
		goto out;
	}
	test_step(b, b->n - 1);
	if (b->interrupted) {
		rc = rn_exit_for_signal(b->interrupted);
		goto out;
	}
	if (b->steps[b->n - 1].state != STEP_BAD) {
		rc = bad_not_failing(&b->steps[b->n - 1], good, bad);
		goto out;
	}
	decide_from_bad(b, &b->steps[b->n - 1]);
	first = search(b, &lo1);
	if (b->interrupted) {
		rc = rn_exit_for_signal(b->interrupted);
		goto out;
	}
	named = named_first(b, lo1, first);
	rn_buf_init(&out, 0);
	write_result(&out, b, lo1, first, named, false);
	fputs(out.buf, stdout);
	fflush(stdout);
	rn_buf_release(&out);
	rc = RN_EXIT_FAIL;
	if (b->o->markdown && write_markdown(b, b->o->markdown, lo1, first, named))
		rc = RN_EXIT_OUTPUT;
out:
	free(config);
	free(good);
	free(bad);
	return rc;
}

static void bisect_release(struct bisect *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->steps[i].commit);
		free(b->steps[i].subject);
		free(b->steps[i].reason);
		if (b->steps[i].have_res)
			rn_results_release(&b->steps[i].res);
	}
	free(b->steps);
	for (i = 0; i < b->ndecide; i++)
		free(b->decide[i]);
	free(b->decide);
	for (i = 0; i < b->nmeasure; i++)
		free(b->measure[i]);
	free(b->measure);
	rn_checkout_remove(&b->good);
	if (b->tmp) {
		pid_t pid = fork();

		if (!pid) {
			execl("/bin/rm", "rm", "-rf", "--", b->tmp, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
	}
	free(b->tmp);
	free(b->repo);
	free(b->config_rel);
	rn_buf_release(&b->config_text);
}

int rn_cmd_bisect(int argc, char **argv)
{
	struct bisect_opts o = { .config = "renacer.toml" };
	const char *revs[2];
	size_t nrevs = 0;
	struct bisect b;
	int rc;

	if (rn_cli_parse_operands(&rn_cmd_bisect_def, argc, argv, on_option, &o, revs, 2, &nrevs)) {
		free(o.targets);
		return RN_EXIT_USAGE;
	}
	if (o.help) {
		rn_cli_help(&rn_cmd_bisect_def, stdout);
		free(o.targets);
		return RN_EXIT_OK;
	}
	if (nrevs != 2) {
		rn_error(
			"renacer bisect needs GOOD and BAD (two commits); see renacer help bisect");
		free(o.targets);
		return RN_EXIT_USAGE;
	}
	/* the first SIGINT/SIGTERM ends the comparison under way (the child gets it too) and
	 * then the bisection, after its worktrees are removed */
	rn_run_catch_signals();
	memset(&b, 0, sizeof(b));
	b.o = &o;
	rn_buf_init(&b.config_text, 0);
	rc = bisect_run(&b, revs[0], revs[1]);
	bisect_release(&b);
	free(o.targets);
	if (rn_run_interrupted())
		rc = rn_exit_for_signal(rn_run_interrupted());
	return rc;
}
