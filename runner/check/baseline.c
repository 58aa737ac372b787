/*
 * baseline.c - the same-job baseline: base and head run side by side, judged by the paired
 * difference (see baseline.h).
 */
#include "baseline.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "internal.h"
#include "log.h"
#include "now.h"
#include "sequential.h"
#include "stats.h"
#include "xalloc.h"

/* Most pairs a "would decide it" hint names. */
#define MAX_HINT_PAIRS 1000

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* The nearest directory at or above `dir` that holds `.git`, else `dir`. Malloc'ed. */
static char *find_root(const char *dir)
{
	struct rn_buf b;
	char *cur = rn_xstrdup(dir);

	rn_buf_init(&b, 0);
	for (;;) {
		char *slash;

		rn_buf_reset(&b);
		rn_buf_addf(&b, "%s/.git", cur);
		if (!access(b.buf, F_OK))
			break;
		slash = strrchr(cur, '/');
		if (!slash || slash == cur) {
			free(cur);
			cur = rn_xstrdup(dir);
			break;
		}
		*slash = '\0';
	}
	rn_buf_release(&b);
	return cur;
}

int rn_baseline_init(struct rn_baseline *b, const char *dir, const char *config_dir)
{
	char real[PATH_MAX];
	int err;

	memset(b, 0, sizeof(*b));
	b->tolerance = RN_BASELINE_TOLERANCE;
	if (!realpath(dir, real)) {
		err = errno;
		rn_error("--baseline '%s': base tree not found: %s", dir, strerror(err));
		return -err;
	}
	if (!is_dir(real)) {
		rn_error("--baseline '%s': base tree is not a directory", dir);
		return -ENOTDIR;
	}
	b->head_root = find_root(config_dir);
	if (!strcmp(real, b->head_root)) {
		rn_error("--baseline '%s': base tree is the head tree itself; check the base "
			 "revision out elsewhere (git worktree add)",
			 dir);
		free(b->head_root);
		b->head_root = NULL;
		return -EINVAL;
	}
	b->dir = rn_xstrdup(real);
	return 0;
}

void rn_baseline_release(struct rn_baseline *b)
{
	free(b->dir);
	free(b->head_root);
	memset(b, 0, sizeof(*b));
}

/* Whether `c` may continue a path name (so a root that it borders is part of a longer name). */
static bool path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == '/' ||
		c == '~' || c == '+' || c == '@';
}

/* `p` with every path under the head's root re-rooted to the base's, or a copy when it names
 * none. A path may stand alone ("/head/build/app") or inside a word ("--out=/head/x", a shell
 * command "exec /head/build/app > /head/log"): an occurrence of the root counts when no path
 * character precedes it and '/' or a non-path character (or the end) follows it. `p` may be
 * "KEY=VALUE" when `eq` (only the value is re-rooted). */
static char *reroot(const struct rn_baseline *b, const char *p, bool eq)
{
	const char *v = p, *e, *at, *from;
	size_t hl = strlen(b->head_root);
	struct rn_buf out;
	bool any = false;

	if (eq && (e = strchr(p, '=')))
		v = e + 1;
	rn_buf_init(&out, 0);
	rn_buf_add(&out, p, (size_t)(v - p));
	for (from = at = v; hl && (at = strstr(at, b->head_root));) {
		if ((at > v && path_char(at[-1])) || (at[hl] != '/' && path_char(at[hl]))) {
			at++;
			continue;
		}
		rn_buf_add(&out, from, (size_t)(at - from));
		rn_buf_adds(&out, b->dir);
		from = at = at + hl;
		any = true;
	}
	if (!any) {
		rn_buf_release(&out);
		return rn_xstrdup(p);
	}
	rn_buf_adds(&out, from);
	return rn_buf_detach(&out, NULL);
}

char *rn_baseline_reroot(const struct rn_baseline *b, const char *path)
{
	return reroot(b, path, false);
}

static char **reroot_list(const struct rn_baseline *b, char *const *list, bool eq)
{
	size_t n = 0, i;
	char **out;

	if (!list)
		return NULL;
	while (list[n])
		n++;
	out = rn_xcalloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = reroot(b, list[i], eq);
	return out;
}

static void free_list(char **list)
{
	size_t i;

	for (i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

void rn_baseline_target(const struct rn_baseline *b, const struct rn_target_cfg *head,
			struct rn_target_cfg *base)
{
	struct rn_buf name;

	*base = *head;
	rn_buf_init(&name, 0);
	rn_buf_addf(&name, "%s (base)", head->name);
	base->name = rn_buf_detach(&name, NULL);
	base->argv = reroot_list(b, head->argv, false);
	base->env = reroot_list(b, head->env, true);
	base->cwd = reroot(b, head->cwd, false);
}

void rn_baseline_target_release(struct rn_target_cfg *base)
{
	free(base->name);
	free_list(base->argv);
	free_list(base->env);
	free(base->cwd);
	memset(base, 0, sizeof(*base));
}

/* `p` resolved against `cwd` (unless absolute) exists. */
static bool exists_at(const char *cwd, const char *p)
{
	struct rn_buf b;
	bool yes;

	if (*p == '/')
		return !access(p, F_OK);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s", cwd, p);
	yes = !access(b.buf, F_OK);
	rn_buf_release(&b);
	return yes;
}

int rn_baseline_check_built(const struct rn_baseline *b, const struct rn_target_cfg *head,
			    const struct rn_target_cfg *base)
{
	size_t i;

	if (!is_dir(base->cwd)) {
		rn_error("target '%s': base side: working directory '%s' does not exist in the base "
			 "tree '%s'",
			 head->name, base->cwd, b->dir);
		return -ENOENT;
	}
	for (i = 0; head->argv[i] && base->argv[i]; i++) {
		const char *h = head->argv[i], *s = base->argv[i];

		if (*h != '/' && !strchr(h, '/'))
			continue; /* a word, or a command searched in PATH */
		if (!exists_at(head->cwd, h) || exists_at(base->cwd, s))
			continue;
		rn_error("target '%s': base side: '%s%s%s' does not exist in the base tree '%s' (is "
			 "the base revision built?)",
			 head->name, *s == '/' ? "" : base->cwd, *s == '/' ? "" : "/",
			 *s == '/' ? s : s + (strncmp(s, "./", 2) ? 0 : 2), b->dir);
		return -ENOENT;
	}
	return 0;
}

/* ---- judging ---- */

static struct rn_verdict_result *push(struct rn_target_report *tv, const char *name,
				      const char *metric, enum rn_verdict v)
{
	return rn_target_report_push_row(tv, "baseline", name, metric, v);
}

static double median_of(const struct rn_target_result *r, enum rn_metric m, size_t *n)
{
	double *s = rn_target_result_samples(r, m, n);
	double med = *n ? rn_stats_median(s, *n) : NAN;

	free(s);
	return med;
}

/* The fewest (`most` false) or most (`most` true) of metric `m` over the runs that measure it
 * (rn_metric_measured_by); NAN without any. */
static double extreme_of(const struct rn_target_result *r, enum rn_metric m, bool most)
{
	size_t n, i;
	double *s = rn_target_result_samples(r, m, &n), x = n ? s[0] : NAN;

	for (i = 1; i < n; i++)
		x = most ? fmax(x, s[i]) : fmin(x, s[i]);
	free(s);
	return x;
}

/* Paired time samples of metric `m` from pair `first` on: fills d (head - base, ns) and the
 * two sides' samples; returns the number of pairs. */
static size_t pairs_of(const struct rn_target_result *head, const struct rn_target_result *base,
		       enum rn_metric m, size_t first, double *d, double *hs, double *bs)
{
	size_t n = head->nruns < base->nruns ? head->nruns : base->nruns, i, k = 0;

	for (i = first; i < n; i++, k++) {
		hs[k] = (double)head->runs[i].v[m];
		bs[k] = (double)base->runs[i].v[m];
		d[k] = hs[k] - bs[k];
	}
	return k;
}

static void add_ms(struct rn_buf *b, double ns, bool sign)
{
	if (isinf(ns))
		rn_buf_adds(b, ns < 0 ? "-inf" : "+inf");
	else
		rn_buf_addf(b, sign ? "%+.3f" : "%.3f", ns / 1e6);
}

/* The statistics of one time metric's pairs at one look, for its verdict and message. */
struct time_judgement {
	enum rn_metric m;        /* the metric */
	size_t n;                /* pairs */
	double hmed, bmed;       /* head and base medians, ns */
	double limit;            /* slowdown that fails, ns */
	double conf;             /* two-sided confidence of the interval, percent (0: none) */
	double alpha;            /* [regression] alpha, over all looks */
	double alpha_k;          /* the share of alpha spent at this look (sequential.h) */
	double tolerance;        /* fraction of the base median */
	double sigma;            /* robust SD of the differences (1.4826 MAD), ns */
	double mde;              /* detection limit at this look, ns (sequential.h) */
	size_t max_pairs;        /* the design's last look */
	int pin_cpu, pin_ncpus;  /* where the head's timing runs ran (rn_target_result) */
	int base_cpu;            /* where the base's last one ran (a duet's other CPU) */
	bool duet;               /* duet pairs, else sequential (rn_target_result) */
	const char *pairs_note;  /* why duet pairs fell back to sequential ones, or NULL */
	bool primary;            /* the metric that decides when to stop measuring */
	bool budget_spent;       /* no more pairs will be measured (max_runs or time_budget_s) */
	bool futile;             /* inconclusive, and no look up to max_pairs could decide it at
				  * the noise measured (rn_seq_futile): no more pairs for it */
	struct rn_wilcoxon w;    /* signed-rank test of the differences */
	struct rn_walsh_ci ci;   /* Hodges-Lehmann estimate and interval, ns */
	enum rn_verdict verdict; /* FAIL, PASS or RN_BASELINE_INCONCLUSIVE */
	unsigned fp_mask;        /* fingerprint fields in which the sides differ (fingerprint.h) */
	bool fp_held;            /* beyond the limit, but fp_mask explains it: INCONCLUSIVE */
	bool modes_held;         /* a mix of the sides' modes explains the shift: INCONCLUSIVE */
	char modes_why[200];     /* which side has which modes, when modes_held or within_modes */
	bool within_modes;       /* both sides have the same two modes: judged on the pairs whose
				  * runs share a mode (n_within of n), so a different mix of the
				  * modes cannot move the shift and a change within them still can */
	enum rn_metric mode_m;   /* the metric whose modes classify the runs, when within_modes */
	double h_antimode;       /* the head's split between its modes (mode_m, ns) */
	double b_antimode;       /* the base's */
	size_t n_within;         /* pairs whose two runs fall in the same mode */
	bool one_sided;          /* within_modes with two modes on one side only: the other side's
				  * runs split at that side's antimode; only a FAIL within the modes
				  * is a verdict, else the modes are held (INCONCLUSIVE) */
	double all_upper;        /* the interval's upper bound over all pairs, ns, before a
				  * comparison within the modes replaced ci (one_sided) */
	bool modes_final;        /* modes_held, and the comparison within the modes is decided
				  * (PASS there): more pairs would not change it (held with too
				  * few pairs in one mode, more pairs may still decide it) */
	char fp_why[400];        /* the differing fields, base's and head's, when fp_mask */
};

static double pct_of(double ns, double ref)
{
	return ref > 0 ? ns / ref * 100.0 : 0.0;
}

/* The one-line message of a time verdict: one estimate (the paired Hodges-Lehmann shift), its
 * interval against the limit, the pairs, and the detection limit; an inconclusive one says
 * what would decide it. */
static char *time_message(const struct time_judgement *j)
{
	const struct rn_walsh_ci *ci = &j->ci;
	struct rn_buf msg;

	rn_buf_init(&msg, 0);
	if (j->modes_held) {
		rn_buf_adds(&msg, "inconclusive: two modes; ");
	} else if (j->fp_mask && j->verdict == RN_BASELINE_INCONCLUSIVE) {
		/* the differing fields first: the table's REASON column shows the start */
		rn_buf_adds(&msg, "inconclusive: ");
		rn_fingerprint_add_names(&msg, j->fp_mask);
		rn_buf_adds(&msg, " differs between the sides; ");
	} else if (j->verdict == RN_BASELINE_INCONCLUSIVE) {
		rn_buf_adds(&msg, "inconclusive: ");
	}
	rn_buf_adds(&msg, "head - base ");
	add_ms(&msg, ci->estimate, true);
	rn_buf_addf(&msg, " ms (%+.1f%% of base ", pct_of(ci->estimate, j->bmed));
	add_ms(&msg, j->bmed, false);
	rn_buf_adds(&msg, " ms)");
	if (ci->k) {
		/* a shift below -100% would be a negative time: the interval is cut there */
		rn_buf_addf(&msg, ", %g%% CI [%+.1f%%, %+.1f%%]", j->conf,
			    fmax(pct_of(ci->lower, j->bmed), -100.0),
			    fmax(pct_of(ci->upper, j->bmed), -100.0));
		rn_buf_adds(&msg,
			    j->modes_held                                       ? " against" :
				    j->verdict == RN_VERDICT_FAIL || j->fp_held ? " beyond" :
				    j->verdict == RN_VERDICT_PASS               ? " within" :
										  " straddles");
	} else {
		rn_buf_adds(&msg, ", no interval yet;");
	}
	rn_buf_addf(&msg, " limit +%g%%; %zu %s pairs", j->tolerance * 100.0, j->n,
		    j->duet ? "duet" : "sequential");
	if (j->pairs_note)
		rn_buf_addf(&msg, " (duet asked: %s)", j->pairs_note);
	if (j->within_modes && !j->modes_held)
		rn_buf_addf(&msg, ", judged on the %zu whose runs share a mode (%s)", j->n_within,
			    j->modes_why);
	else if (j->within_modes)
		rn_buf_addf(&msg, " (%zu whose runs share a mode)", j->n_within);
	if (isfinite(j->mde))
		rn_buf_addf(&msg, "; detects >= %+.1f%%", pct_of(j->mde, j->bmed));
	if (j->modes_held) {
		rn_buf_addf(&msg,
			    "; %s: a shift between modes is no regression, so it does not fail "
			    "(find what picks the mode: a cache, a CPU placement, a timer)",
			    j->modes_why);
	} else if (j->fp_mask && j->verdict == RN_BASELINE_INCONCLUSIVE) {
		/* more pairs cannot make it fail: no hint to repeat */
		rn_buf_addf(&msg,
			    "; the environment differs between the sides (%s): that alone can move "
			    "the time, so it does not fail",
			    j->fp_why);
	} else if (j->verdict == RN_BASELINE_INCONCLUSIVE) {
		double half = (ci->upper - ci->lower) / 2.0, margin = fabs(ci->estimate - j->limit);
		size_t need = 0;

		if (j->futile && j->n < j->max_pairs)
			rn_buf_addf(&msg,
				    "; repeats stopped: at this noise no look up to max_runs %zu "
				    "could decide it",
				    j->max_pairs);
		else if (j->budget_spent)
			rn_buf_addf(&msg, "; budget spent (max_runs %zu or time_budget_s)",
				    j->max_pairs);
		else if (!j->primary)
			rn_buf_adds(&msg, "; not the metric that decides the repeats");
		if (ci->k && margin > 0 && isfinite(half))
			need = (size_t)ceil((double)j->n * (half / margin) * (half / margin));
		if (need > j->n && need <= MAX_HINT_PAIRS)
			rn_buf_addf(&msg, "; about %zu pairs (max_runs) would decide it", need);
		else
			rn_buf_adds(&msg, "; the difference is about the limit");
	}
	return rn_buf_detach(&msg, NULL);
}

/* The detail (JUnit, summary) of a time verdict: the numbers and the rule. */
static char *time_detail(const struct time_judgement *j)
{
	const struct rn_walsh_ci *ci = &j->ci;
	struct rn_buf det;

	rn_buf_init(&det, 0);
	rn_buf_addf(&det, "head vs base, %s, %zu %s pairs", rn_metric_info(j->m)->name, j->n,
		    j->duet ? "duet" : "sequential");
	if (j->pin_cpu < 0)
		rn_buf_adds(&det, ", unpinned");
	else if (j->duet && j->base_cpu >= 0 && j->base_cpu != j->pin_cpu)
		rn_buf_addf(&det, " on CPUs %d,%d",
			    j->pin_cpu < j->base_cpu ? j->pin_cpu : j->base_cpu,
			    j->pin_cpu < j->base_cpu ? j->base_cpu : j->pin_cpu);
	else if (j->pin_ncpus <= 1)
		rn_buf_addf(&det, " on CPU %d", j->pin_cpu);
	else
		rn_buf_addf(&det, " on %d CPUs from CPU %d", j->pin_ncpus, j->pin_cpu);
	if (j->pairs_note)
		rn_buf_addf(&det, " (duet pairs asked: %s, so sequential)", j->pairs_note);
	rn_buf_addf(&det, "%s\n", j->primary ? " (the metric that decides the repeats)" : "");
	rn_buf_adds(&det, "head median ");
	add_ms(&det, j->hmed, false);
	rn_buf_adds(&det, " ms, base median ");
	add_ms(&det, j->bmed, false);
	rn_buf_adds(&det, " ms\nHodges-Lehmann difference ");
	add_ms(&det, ci->estimate, true);
	rn_buf_adds(&det, " ms");
	if (ci->k) {
		rn_buf_addf(&det, ", %g%% interval [", j->conf);
		add_ms(&det, ci->lower, true);
		rn_buf_adds(&det, ", ");
		add_ms(&det, ci->upper, true);
		rn_buf_addf(&det, "] ms (Walsh averages, k = %zu)", ci->k);
	}
	rn_buf_adds(&det, "\nlimit ");
	add_ms(&det, j->limit, true);
	rn_buf_addf(&det, " ms (tolerance %g%% of the base median)\n", j->tolerance * 100.0);
	rn_buf_addf(&det,
		    "Wilcoxon signed-rank W+ = %g of %zu non-zero differences, one-sided "
		    "p = %.4g (%s)\n",
		    j->w.w_plus, j->w.n, j->w.p, j->w.exact ? "exact" : "normal approximation");
	rn_buf_addf(&det,
		    "sequential: alpha %g over looks up to %zu pairs, %.3g spent at this look "
		    "(linear alpha spending); noise 1.4826 MAD of the differences ",
		    j->alpha, j->max_pairs, j->alpha_k);
	add_ms(&det, j->sigma, false);
	rn_buf_addf(&det, " ms (%.1f%%)\n", pct_of(j->sigma, j->bmed));
	if (isfinite(j->mde))
		rn_buf_addf(&det, "detection limit (%.0f%% power): %+.1f%%\n", RN_SEQ_POWER * 100.0,
			    pct_of(j->mde, j->bmed));
	rn_buf_adds(&det,
		    "rule: FAIL when the interval's lower bound exceeds the limit; PASS "
		    "when its upper bound is within it; otherwise inconclusive");
	return rn_buf_detach(&det, NULL);
}

size_t rn_baseline_pair_noise(const struct rn_target_result *head,
			      const struct rn_target_result *base, enum rn_metric m, double *median,
			      double *sigma)
{
	size_t n = head->nruns < base->nruns ? head->nruns : base->nruns, i;
	double *d = rn_xcalloc(n + 1, sizeof(*d)), *b = rn_xcalloc(n + 1, sizeof(*b));

	for (i = 0; i < n; i++) {
		b[i] = (double)base->runs[i].v[m];
		d[i] = (double)head->runs[i].v[m] - b[i];
	}
	*median = n ? rn_stats_median(b, n) : 0.0;
	*sigma = n ? 1.4826 * rn_stats_mad(d, n) : 0.0;
	free(d);
	free(b);
	return n;
}

/* Robust relative noise of metric `m` over the pairs; +INFINITY without data. */
static double rel_noise(const struct rn_target_result *head, const struct rn_target_result *base,
			enum rn_metric m)
{
	double med, s;

	rn_baseline_pair_noise(head, base, m, &med, &s);
	return med > 0.0 ? s / med : INFINITY;
}

enum rn_metric rn_baseline_primary(const struct rn_target_result *head,
				   const struct rn_target_result *base)
{
	size_t nc, nw;
	double cpu = median_of(base, RN_METRIC_CPU_TIME, &nc);
	double wall = median_of(base, RN_METRIC_WALL, &nw);

	/* a harness that reports CPU time alone (a pytest-benchmark CPU timer) */
	if (!rn_target_result_time_judged(head, RN_METRIC_WALL) && nc)
		return RN_METRIC_CPU_TIME;
	if (!nc || !nw || !(cpu >= RN_BASELINE_CPU_SHARE * wall))
		return RN_METRIC_WALL;
	return rel_noise(head, base, RN_METRIC_CPU_TIME) <= rel_noise(head, base, RN_METRIC_WALL) ?
		RN_METRIC_CPU_TIME :
		RN_METRIC_WALL;
}

/* One side's modes for a message: "two modes (10.1 and 20.3 ms)" or "one mode". */
static void add_modes(struct rn_buf *b, const char *side, const struct rn_modality *m)
{
	if (!m->two_modes) {
		rn_buf_addf(b, "%s one mode", side);
		return;
	}
	rn_buf_addf(b, "%s two modes (%zu runs near ", side, m->below);
	add_ms(b, m->low_mode, false);
	rn_buf_addf(b, " ms, %zu near ", m->above);
	add_ms(b, m->high_mode, false);
	rn_buf_adds(b, " ms)");
}

/*
 * Whether the modes of time metric `m` over pairs [first, ...) explain the shift between the
 * sides (assertions/stats.h, rn_stats_modality): one side has two modes and the other side's
 * median sits at one of them, or both have the same two modes; the shift is then a different
 * mix of the modes, not a change of either. Modes that moved (a side's one mode at neither of
 * the other's, both sides' two modes apart) are a change and are judged as usual. Sets
 * j->modes_why ("cpu_time: head two modes (...), base one mode"), j->within_modes with the
 * metric and the antimodes that split the runs (judge_within_modes; a side of one mode split
 * at the other's: j->one_sided) and returns true when the modes explain it.
 */
static bool modes_differ(const struct rn_target_result *head, const struct rn_target_result *base,
			 enum rn_metric m, size_t first, struct time_judgement *j)
{
	size_t cap = head->nruns + 1, n;
	double *d = rn_xcalloc(cap, sizeof(*d)), *hs = rn_xcalloc(cap, sizeof(*hs));
	double *bs = rn_xcalloc(cap, sizeof(*bs)), hmed, bmed;
	struct rn_modality mh, mb;
	struct rn_buf why;
	bool mix;

	n = pairs_of(head, base, m, first, d, hs, bs);
	rn_stats_modality(hs, n, &mh);
	rn_stats_modality(bs, n, &mb);
	hmed = n ? rn_stats_median(hs, n) : 0.0;
	bmed = n ? rn_stats_median(bs, n) : 0.0;
	free(d);
	free(hs);
	free(bs);
	/* Paired differences: with two modes on one side, a median at the same mode on both
	 * sides does not protect the paired estimate (its Walsh averages mix the pairs across
	 * the modes), so any median at one of the modes engages the comparison within the modes
	 * (judge_within_modes), which then tells a shift within a mode from a mix */
	if (mh.two_modes && mb.two_modes)
		mix = rn_stats_modes_explain(&mh, hmed, &mb, bmed, RN_STATS_MODES_MATCH);
	else
		mix = rn_stats_near_a_mode(&mh, bmed, RN_STATS_MODES_MATCH) ||
			rn_stats_near_a_mode(&mb, hmed, RN_STATS_MODES_MATCH);
	if (!mix)
		return false;
	/* a pair whose runs share a mode compares like with like (judge_within_modes); a side
	 * of one mode is split at the other side's antimode */
	j->within_modes = true;
	j->one_sided = !(mh.two_modes && mb.two_modes);
	j->mode_m = m;
	j->h_antimode = mh.two_modes ? mh.antimode : mb.antimode;
	j->b_antimode = mb.two_modes ? mb.antimode : mh.antimode;
	rn_buf_init(&why, sizeof(j->modes_why) - 1);
	rn_buf_addf(&why, "%s: ", rn_metric_info(m)->name);
	add_modes(&why, "head", &mh);
	add_modes(&why, ", base", &mb);
	snprintf(j->modes_why, sizeof(j->modes_why), "%s",
		 rn_buf_failed(&why) ? "the sides have different modes" : why.buf);
	rn_buf_release(&why);
	return true;
}

/*
 * The modes of a target's time: the judged metric `m` first, then cpu_time and wall_time,
 * whose modes are the run's too (wall time on a loaded machine blurs the modes that its CPU
 * time still shows). Sets j->modes_held when any of them differ between the sides.
 */
static void modes_of(const struct rn_target_result *head, const struct rn_target_result *base,
		     enum rn_metric m, size_t first, struct time_judgement *j)
{
	if (modes_differ(head, base, m, first, j))
		return;
	if (m != RN_METRIC_CPU_TIME && modes_differ(head, base, RN_METRIC_CPU_TIME, first, j))
		return;
	if (m != RN_METRIC_WALL)
		modes_differ(head, base, RN_METRIC_WALL, first, j);
}

/* The fewest pairs whose runs share a mode that a comparison within modes is judged on; with
 * fewer, the mix of the modes is held to explain the shift (INCONCLUSIVE). */
#define RN_BASELINE_WITHIN_MIN 8

/*
 * The sides' modes explain a shift (j->within_modes): re-judge metric `m` on the pairs whose
 * head and base runs fall on the same side of their antimodes (j->mode_m's values; a side of
 * one mode is split at the other's).
 * Which mode a run lands in is not the code's doing, so a different mix of the modes cannot
 * move these pairs' differences, and a shift within a mode (the code's work) still shows.
 * Replaces j->ci, j->w and j->sigma; the look's alpha stays the one of all n pairs. With
 * fewer than RN_BASELINE_WITHIN_MIN such pairs the modes are held instead (j->modes_held).
 */
static void judge_within_modes(const struct rn_target_result *head,
			       const struct rn_target_result *base, enum rn_metric m, size_t first,
			       struct time_judgement *j)
{
	size_t cap = head->nruns + 1, n, i, k = 0;
	double *d = rn_xcalloc(cap, sizeof(*d)), *hs = rn_xcalloc(cap, sizeof(*hs));
	double *bs = rn_xcalloc(cap, sizeof(*bs)), *md = rn_xcalloc(cap, sizeof(*md));
	double *mh = rn_xcalloc(cap, sizeof(*mh)), *mb = rn_xcalloc(cap, sizeof(*mb));

	n = pairs_of(head, base, m, first, d, hs, bs);
	pairs_of(head, base, j->mode_m, first, md, mh, mb);
	for (i = 0; i < n; i++)
		if ((mh[i] < j->h_antimode) == (mb[i] < j->b_antimode))
			d[k++] = d[i];
	j->n_within = k;
	if (k >= RN_BASELINE_WITHIN_MIN) {
		rn_stats_wilcoxon(d, k, &j->w);
		rn_stats_walsh_ci(d, k, j->alpha_k, &j->ci);
		j->sigma = 1.4826 * rn_stats_mad(d, k);
	} else {
		j->within_modes = false;
		j->modes_held = true;
	}
	free(d);
	free(hs);
	free(bs);
	free(md);
	free(mh);
	free(mb);
}

static void fingerprints_of(const struct rn_target_result *head,
			    const struct rn_target_result *base, struct time_judgement *j);
static void decide_time(struct time_judgement *j);

/* Judge one time metric on pairs [first, ...) at the look of `seq`: fills `j`; returns false
 * when it has no data. */
static bool judge_time_stats(const struct rn_baseline *b, const struct rn_regression_cfg *reg,
			     const struct rn_seq_design *seq, enum rn_metric m,
			     const struct rn_target_result *head,
			     const struct rn_target_result *base, size_t first,
			     struct time_judgement *j)
{
	size_t cap = head->nruns + 1;
	double *d = rn_xcalloc(cap, sizeof(*d)), *hs = rn_xcalloc(cap, sizeof(*hs));
	double *bs = rn_xcalloc(cap, sizeof(*bs));
	bool have;

	memset(j, 0, sizeof(*j));
	j->m = m;
	j->alpha = reg->alpha;
	j->tolerance = b->tolerance;
	j->max_pairs = seq->max;
	j->pin_cpu = head->pin_cpu;
	j->pin_ncpus = head->pin_ncpus;
	j->base_cpu = base->pin_cpu;
	j->duet = head->duet_pairs;
	j->pairs_note = head->pairs_note;
	j->n = pairs_of(head, base, m, first, d, hs, bs);
	j->hmed = rn_stats_median(hs, j->n);
	j->bmed = rn_stats_median(bs, j->n);
	j->mde = INFINITY;
	have = j->n && !(m == RN_METRIC_GPU_BUSY && j->hmed == 0 && j->bmed == 0);
	if (have) {
		j->alpha_k = rn_seq_alpha(seq, j->n);
		rn_stats_wilcoxon(d, j->n, &j->w);
		rn_stats_walsh_ci(d, j->n, j->alpha_k, &j->ci);
		j->sigma = 1.4826 * rn_stats_mad(d, j->n);
		modes_of(head, base, m, first, j);
		j->all_upper = j->ci.k ? j->ci.upper : INFINITY;
		if (j->within_modes)
			judge_within_modes(head, base, m, first, j);
	}
	free(d);
	free(hs);
	free(bs);
	if (!have)
		return false;
	j->limit = b->tolerance * j->bmed;
	fingerprints_of(head, base, j);
	decide_time(j);
	j->futile = j->verdict == RN_BASELINE_INCONCLUSIVE && j->ci.k &&
		rn_seq_futile(seq, j->n, 0, j->ci.estimate, j->ci.lower, j->ci.upper, j->limit,
			      true);
	j->conf = j->ci.k ? floor((1.0 - 2.0 * j->alpha_k) * 10000.0 + 0.5) / 100.0 : 0.0;
	j->mde = rn_seq_mde(j->limit, j->sigma, (double)(j->within_modes ? j->n_within : j->n),
			    j->alpha_k, RN_SEQ_POWER);
	if (j->ci.k)
		j->mde = fmax(j->mde,
			      rn_seq_mde_interval(j->limit, j->ci.lower, j->ci.upper, j->alpha_k,
						  RN_SEQ_POWER));
	return true;
}

/* The fingerprint fields in which the sides differ (j->fp_mask) and their description. */
static void fingerprints_of(const struct rn_target_result *head,
			    const struct rn_target_result *base, struct time_judgement *j)
{
	struct rn_buf why;

	if (base->has_fingerprint && head->has_fingerprint)
		j->fp_mask = rn_fingerprint_diff(&base->fingerprint, &head->fingerprint);
	if (!j->fp_mask)
		return;
	rn_buf_init(&why, sizeof(j->fp_why) - 1);
	rn_buf_adds(&why, "base ");
	rn_fingerprint_describe_diff(&why, &base->fingerprint, &head->fingerprint, j->fp_mask,
				     "head");
	snprintf(j->fp_why, sizeof(j->fp_why), "%s",
		 rn_buf_failed(&why) ? "several fields" : why.buf);
	rn_buf_release(&why);
}

/* The verdict of j's interval against its limit, after the modes and the environments that
 * can explain a shift (j->modes_held, j->fp_held). */
static void decide_time(struct time_judgement *j)
{
	if (j->modes_held && j->ci.k && j->ci.upper <= j->limit)
		j->modes_held = false; /* shown within the limit: no shift to explain, PASS */
	if (j->within_modes && j->one_sided && !(j->ci.k && j->ci.lower > j->limit) &&
	    !(j->ci.k && j->ci.upper <= j->limit && j->all_upper <= j->limit)) {
		/* one side's modes: a shift within them fails; anything else may be the mix (the
		 * other side's runs all in one mode), held until the comparison within the modes
		 * is decided */
		j->modes_held = true;
		j->modes_final = j->ci.k && j->ci.upper <= j->limit;
	}
	if (j->modes_held) {
		/* a shift between modes moves with their mix, not with the code */
		j->verdict = RN_BASELINE_INCONCLUSIVE;
	} else if (j->ci.k && j->ci.lower > j->limit && j->fp_mask) {
		/* the sides ran in other environments (a compiler, in one job): a shift is not
		 * the code's alone, and never fails */
		j->fp_held = true;
		j->verdict = RN_BASELINE_INCONCLUSIVE;
	} else if (j->ci.k && j->ci.lower > j->limit)
		j->verdict = RN_VERDICT_FAIL;
	else if (j->ci.k && j->ci.upper <= j->limit)
		j->verdict = RN_VERDICT_PASS;
	else
		j->verdict = RN_BASELINE_INCONCLUSIVE;
}

/* Judge one time metric and append its row: returns false when it has no data. */
static bool judge_time(const struct rn_baseline *b, const struct rn_regression_cfg *reg,
		       const struct rn_seq_design *seq, bool budget_spent, const char *name,
		       enum rn_metric m, const struct rn_target_result *head,
		       const struct rn_target_result *base, size_t first,
		       struct rn_target_report *tv)
{
	struct time_judgement j;
	struct rn_verdict_result *v;
	struct rn_buf a;

	if (!judge_time_stats(b, reg, seq, m, head, base, first, &j))
		return false;
	j.primary = m == rn_baseline_primary(head, base);
	j.budget_spent = budget_spent;
	v = push(tv, name, rn_metric_info(m)->name, j.verdict);
	/* One estimate in every column: the paired shift, not the difference of medians. */
	v->has_observed = true;
	v->observed = (j.bmed + j.ci.estimate) / 1e6;
	v->has_golden = true;
	v->golden = j.bmed / 1e6;
	v->has_budget = true;
	v->budget = (j.bmed + j.limit) / 1e6;
	v->delta_pct = pct_of(j.ci.estimate, j.bmed);
	v->mde_pct = isfinite(j.mde) ? pct_of(j.mde, j.bmed) : 0.0;
	v->unit = "ms";
	v->message = time_message(&j);
	v->detail = time_detail(&j);
	rn_buf_init(&a, 0);
	rn_buf_addf(&a, "%zu paired runs", j.n);
	v->aggregate = rn_buf_detach(&a, NULL);
	return true;
}

/* Report unit of a count or memory metric (static). */
static const char *unit_of(enum rn_metric m)
{
	switch (m) {
	case RN_METRIC_PROCESSES:
		return "processes";
	case RN_METRIC_GPU_DISPATCHES:
		return "spans";
	case RN_METRIC_PEAK_RSS:
	case RN_METRIC_ALLOC_PEAK:
	case RN_METRIC_GPU_COPY_BYTES:
		return "bytes";
	default:
		return "calls";
	}
}

/* A count or memory metric compared by medians. */
static void judge_median(const struct rn_regression_cfg *reg, const char *name, enum rn_metric m,
			 const struct rn_target_result *head, const struct rn_target_result *base,
			 struct rn_target_report *tv)
{
	size_t nh, nb;
	double h = median_of(head, m, &nh), s = median_of(base, m, &nb);
	bool mem = m == RN_METRIC_PEAK_RSS || m == RN_METRIC_ALLOC_PEAK;
	/* one more process than the base ever had is a change (an extra exec'd child), whatever
	 * the tolerance of counts */
	bool exact = m == RN_METRIC_PROCESSES;
	double tol = mem ? reg->memory_tolerance : exact ? 0.0 : reg->count_tolerance;
	double floor_ = mem ? (double)reg->memory_floor_bytes :
		exact       ? 0.0 :
			      (double)reg->count_floor;
	/* What is judged: the head's fewest against the base's most, so that what varies from
	 * run to run (the overlap of a parallel build's processes) never reads as growth. */
	double hl = extreme_of(head, m, false), bh = extreme_of(base, m, true);
	/* the columns: the numbers that decided (a PASS never reads over its limit) */
	double shown = hl, ref = bh,
	       allowed = mem ? rn_memory_limit(bh, tol, floor_) : rn_count_limit(bh, tol, floor_);
	bool grew, per_process = false;
	struct rn_verdict_result *v;
	struct rn_buf msg;

	if (!nh || !nb)
		return;
	rn_buf_init(&msg, 0);
	if (m == RN_METRIC_ALLOC_PEAK) {
		struct rn_alloc_judgement j;
		size_t nth, ntb, nph, npb;
		double *th = rn_target_result_samples(head, m, &nth),
		       *tb = rn_target_result_samples(base, m, &ntb),
		       *ph = rn_target_result_samples(head, RN_METRIC_PROCESS_ALLOC_PEAK, &nph),
		       *pb = rn_target_result_samples(base, RN_METRIC_PROCESS_ALLOC_PEAK, &npb);

		rn_alloc_peak_judge(tb, ntb, th, nth, pb, npb, ph, nph, tol, floor_, &j);
		grew = j.grew;
		per_process = j.per_process;
		shown = j.shown_obs;
		ref = j.shown_ref;
		allowed = j.shown_limit;
		if (j.per_process)
			rn_buf_addf(&msg,
				    "largest process head's fewest %.0f vs base's most %.0f bytes; "
				    "the tree's peak moves with how its processes overlap (base "
				    "%.0f-%.0f, head %.0f-%.0f): ",
				    j.obs_fewest, j.ref_most, j.tree_lo[0], j.tree_lo[1],
				    j.tree_hi[0], j.tree_hi[1]);
		free(th);
		free(tb);
		free(ph);
		free(pb);
	} else {
		grew = mem ? hl - bh > tol * bh && hl - bh > floor_ :
			     rn_count_grew(hl, bh, tol, floor_);
	}
	v = push(tv, name, rn_metric_info(m)->name, grew ? RN_VERDICT_FAIL : RN_VERDICT_PASS);
	rn_buf_addf(&msg, "head %.0f vs base %.0f %s (%+.0f); allowed growth %g%% and %.0f (%s)", h,
		    s, unit_of(m), h - s, tol * 100.0, floor_,
		    mem           ? "memory_tolerance, memory_floor_bytes" :
			    exact ? "processes are exact" :
				    "count_tolerance, count_floor");
	if ((nh > 1 || nb > 1) && !per_process)
		rn_buf_addf(&msg,
			    "; judged: head's fewest %.0f vs base's most %.0f of %zu and %zu runs",
			    hl, bh, nh, nb);
	v->has_observed = v->has_golden = v->has_budget = true;
	v->observed = shown;
	v->golden = ref;
	v->budget = allowed;
	v->delta_pct = ref > 0 ? (shown - ref) / ref * 100.0 : 0.0;
	v->unit = unit_of(m);
	v->message = rn_buf_detach(&msg, NULL);
}

/* Whether syscall nr is new in the head: made in every head counting run, in no base run. */
static bool is_new_syscall(const struct rn_target_result *head, const struct rn_target_result *base,
			   int nr)
{
	size_t k, nh = rn_target_result_count_runs(head), nb = rn_target_result_count_runs(base);

	if (!nh || !nb)
		return false;
	for (k = 0; k < nb; k++)
		if (rn_target_result_run_calls(base, k, nr))
			return false;
	for (k = 0; k < nh; k++)
		if (!rn_target_result_run_calls(head, k, nr))
			return false;
	return true;
}

/* Syscalls by name: one row naming every syscall whose count grew or that is new in the
 * head (the head's fewest calls against the base's most), plus the total. */
static void judge_syscalls(const struct rn_regression_cfg *reg, const char *name,
			   const struct rn_target_result *head, const struct rn_target_result *base,
			   struct rn_target_report *tv)
{
	size_t nh, nb, grew = 0;
	int i, n = rn_syscall_table_size();
	double h = median_of(head, RN_METRIC_SYSCALLS, &nh);
	double s = median_of(base, RN_METRIC_SYSCALLS, &nb);
	double tol = reg->count_tolerance, floor_ = (double)reg->count_floor, slack = 0.0;
	/* the columns: the syscall that grew most (head's fewest, base's most, its limit), else
	 * the total's */
	double worst = -INFINITY, shown = NAN, ref = NAN, allowed = NAN;
	struct rn_buf msg, det;
	struct rn_verdict_result *v;

	if (!nh || !nb || !head->syscall_calls || !base->syscall_calls)
		return;
	rn_buf_init(&msg, 0);
	rn_buf_init(&det, 0);
	for (i = 0; i < n; i++) {
		double hc = head->syscall_calls[i], bc = base->syscall_calls[i];
		double hlo = rn_target_result_calls_extreme(head, i, hc, false),
		       bhi = rn_target_result_calls_extreme(base, i, bc, true);
		double stol, sfloor; /* the syscall's count rule */
		bool is_new, up;

		/* the total carries the syscalls whose counts move by rule (futex) */
		if (bhi > 0.0)
			slack += rn_count_rule_slack(rn_syscall_name(i), bc, bhi);
		if (hc == bc && hlo <= bhi)
			continue;
		/* A syscall the base never made, made in every head run, is a change of
		 * behaviour whatever its count (one new sync()), as against a golden trace. */
		is_new = is_new_syscall(head, base, i);
		stol = rn_count_tolerance_of(rn_syscall_name(i), tol);
		sfloor = (double)rn_count_floor_of(rn_syscall_name(i), reg->count_floor);
		up = is_new || rn_count_grew(hlo, bhi, stol, sfloor);
		rn_buf_addf(&det, "%-20s head %.0f vs base %.0f calls (%+.0f)%s\n",
			    rn_syscall_name(i), hc, bc, hc - bc,
			    is_new     ? "  new" :
				    up ? "  grew" :
					 "");
		if (!up)
			continue;
		if (log1p(hlo) - log1p(bhi) > worst) {
			worst = log1p(hlo) - log1p(bhi);
			shown = hlo;
			ref = bhi;
			allowed = is_new ? bhi : rn_count_limit(bhi, stol, sfloor);
		}
		rn_buf_addf(&msg, "%s%s head %.0f vs base %.0f calls (%+.0f%s)", grew ? ", " : "",
			    rn_syscall_name(i), hc, bc, hc - bc, is_new ? ", new" : "");
		grew++;
	}
	if (rn_count_grew(extreme_of(head, RN_METRIC_SYSCALLS, false),
			  extreme_of(base, RN_METRIC_SYSCALLS, true), tol, floor_ + slack))
		rn_buf_addf(&msg, "%stotal head %.0f vs base %.0f (%+.0f)", grew++ ? "; " : "", h,
			    s, h - s);
	if (!grew)
		rn_buf_addf(&msg,
			    "head %.0f vs base %.0f syscalls (%+.0f), no syscall grew beyond "
			    "the tolerance",
			    h, s, h - s);
	rn_buf_addf(&msg, " (count_tolerance %g%%, count_floor %.0f)", tol * 100.0, floor_);
	v = push(tv, name, "syscalls", grew ? RN_VERDICT_FAIL : RN_VERDICT_PASS);
	if (isnan(shown)) {
		shown = extreme_of(head, RN_METRIC_SYSCALLS, false);
		ref = extreme_of(base, RN_METRIC_SYSCALLS, true);
		allowed = rn_count_limit(ref, tol, floor_ + slack);
	}
	v->has_observed = v->has_golden = v->has_budget = true;
	v->observed = shown;
	v->golden = ref;
	v->budget = allowed;
	v->delta_pct = ref > 0 ? (shown - ref) / ref * 100.0 : 0.0;
	v->unit = "calls";
	v->message = rn_buf_detach(&msg, NULL);
	v->detail = det.len ? rn_buf_detach(&det, NULL) : NULL;
	rn_buf_release(&det);
}

static const enum rn_metric time_metrics[] = {
	RN_METRIC_WALL,
	RN_METRIC_CRITICAL_PATH,
	RN_METRIC_CPU_TIME,
	RN_METRIC_GPU_BUSY,
};

void rn_baseline_judge(const struct rn_baseline *b, const struct rn_regression_cfg *reg,
		       const struct rn_seq_design *seq, bool budget_spent, const char *name,
		       const struct rn_target_result *head, const struct rn_target_result *base,
		       size_t first_pair, struct rn_target_report *tv)
{
	static const enum rn_metric counts[] = {
		RN_METRIC_SYSCALL_ERRORS, RN_METRIC_PROCESSES, RN_METRIC_GPU_DISPATCHES,
		RN_METRIC_GPU_COPY_BYTES, RN_METRIC_PEAK_RSS,  RN_METRIC_ALLOC_PEAK,
	};
	bool gpu = false;
	size_t i;

	for (i = 0; i < head->nruns; i++)
		gpu |= head->runs[i].has_gpu;
	for (i = 0; i < sizeof(time_metrics) / sizeof(time_metrics[0]); i++)
		if (rn_target_result_time_judged(head, time_metrics[i]))
			judge_time(b, reg, seq, budget_spent, name, time_metrics[i], head, base,
				   first_pair, tv);
	judge_syscalls(reg, name, head, base, tv);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!gpu &&
		    (counts[i] == RN_METRIC_GPU_DISPATCHES ||
		     counts[i] == RN_METRIC_GPU_COPY_BYTES))
			continue;
		if (counts[i] == RN_METRIC_ALLOC_PEAK && (!head->ncounts || !base->ncounts))
			continue; /* allocations are seen only under the tracer */
		judge_median(reg, name, counts[i], head, base, tv);
	}
}

/* ---- measuring ---- */

static bool failed(const struct rn_target_result *r)
{
	return r->status != RN_RUN_OK;
}

/* One run on each side, in the given order. */
static int run_both(rn_baseline_run_fn fn, void *ctx, enum rn_baseline_run kind, bool head_first,
		    struct rn_target_result *head, struct rn_target_result *base)
{
	int rc;

	if (head_first) {
		rc = fn(ctx, RN_BASELINE_HEAD, kind, RN_BASELINE_OWN_PLACE, head);
		if (!rc && !failed(head))
			rc = fn(ctx, RN_BASELINE_BASE, kind, RN_BASELINE_OWN_PLACE, base);
	} else {
		rc = fn(ctx, RN_BASELINE_BASE, kind, RN_BASELINE_OWN_PLACE, base);
		if (!rc && !failed(base))
			rc = fn(ctx, RN_BASELINE_HEAD, kind, RN_BASELINE_OWN_PLACE, head);
	}
	return rc;
}

/* Longest error message the forked side of a duet pair sends back, bytes. */
#define DUET_ERROR_MAX 4096

/* What the forked side of a duet pair sends back (duet_fork_side), then error_len bytes. */
struct duet_msg {
	int rc;                    /* the run function's return */
	bool added;                /* a timing run was added: `run` holds it */
	struct rn_metrics run;     /* that run */
	enum rn_run_status status; /* the side's status after it */
	int pin_cpu, pin_ncpus;    /* where it ran */
	uint64_t duration_ns;      /* time it added to the side's total, ns */
	size_t error_len;          /* bytes of the side's new error message that follow */
};

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

static bool read_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		c += r;
		n -= (size_t)r;
	}
	return true;
}

/* The forked side of a duet pair: says it is ready, runs, sends its run back, exits. */
static void __attribute__((noreturn))
duet_fork_side(rn_baseline_run_fn fn, void *ctx, enum rn_baseline_side side, int cpu,
	       struct rn_target_result *r, int fd)
{
	size_t n = r->nruns;
	uint64_t before = r->duration_ns;
	const char *had = r->error;
	struct duet_msg m;
	char go = 1;

	memset(&m, 0, sizeof(m));
	if (!write_all(fd, &go, 1))
		_exit(1);
	m.rc = fn(ctx, side, RN_BASELINE_TIMING, cpu, r);
	m.added = r->nruns > n;
	if (m.added)
		m.run = r->runs[r->nruns - 1];
	m.status = r->status;
	m.pin_cpu = r->pin_cpu;
	m.pin_ncpus = r->pin_ncpus;
	m.duration_ns = r->duration_ns - before;
	if (r->error && r->error != had)
		m.error_len = strnlen(r->error, DUET_ERROR_MAX);
	if (!write_all(fd, &m, sizeof(m)) || !write_all(fd, r->error, m.error_len))
		_exit(1);
	_exit(0);
}

/* Take the forked side's run `m` (error text `err`, or NULL) into its side's result `r`. */
static void duet_adopt(struct rn_target_result *r, const struct duet_msg *m, const char *err)
{
	if (m->added) {
		r->runs = rn_xrealloc(r->runs, (r->nruns + 1) * sizeof(*r->runs));
		r->runs[r->nruns++] = m->run;
		r->pin_cpu = m->pin_cpu;
		r->pin_ncpus = m->pin_ncpus;
	}
	if (m->status > r->status)
		r->status = m->status;
	if (err && !r->error)
		r->error = rn_xstrdup(err);
	r->duration_ns += m->duration_ns;
}

/* Read the forked side's message from `fd` into its side's result `r`: 0, or its -ECANCELED. */
static int duet_collect(int fd, struct rn_target_result *r)
{
	char err[DUET_ERROR_MAX + 1];
	struct duet_msg m;

	memset(&m, 0, sizeof(m));
	if (!read_all(fd, &m, sizeof(m)) || m.error_len > DUET_ERROR_MAX ||
	    !read_all(fd, err, m.error_len)) {
		m.added = false;
		m.status = RN_RUN_ERROR;
		snprintf(err, sizeof(err), "duet pair: the forked side ended without its run");
		m.error_len = strlen(err);
	}
	err[m.error_len] = '\0';
	duet_adopt(r, &m, m.error_len ? err : NULL);
	return m.rc;
}

/*
 * Duet pair `k`: base and head at the same moment, base on plan->duet_cpu[k % 2] and head on
 * the other. One side runs in a forked copy of renacer, forked twice so that it is no child of
 * this process (whose event loop waits for any child); which side alternates every second
 * pair, so that neither a CPU nor the fork's copy-on-write work falls on one side only.
 * Without a pipe or a fork, the pair runs sequentially.
 */
static int run_duet(const struct rn_baseline_plan *plan, size_t k, rn_baseline_run_fn fn, void *ctx,
		    struct rn_target_result *head, struct rn_target_result *base)
{
	bool fork_head = (k / 2) % 2;
	int cpu[2] = { plan->duet_cpu[k % 2], plan->duet_cpu[1 - k % 2] }; /* base, head */
	enum rn_baseline_side fs = fork_head ? RN_BASELINE_HEAD : RN_BASELINE_BASE;
	struct rn_target_result *fr = fork_head ? head : base, *own = fork_head ? base : head;
	int fds[2], rc, frc;
	pid_t mid;
	char go;

	if (pipe2(fds, O_CLOEXEC))
		return run_both(fn, ctx, RN_BASELINE_TIMING, k % 2, head, base);
	mid = fork();
	if (!mid) {
		close(fds[0]);
		if (!fork())
			duet_fork_side(fn, ctx, fs, cpu[fs], fr, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	if (mid < 0) {
		close(fds[0]);
		return run_both(fn, ctx, RN_BASELINE_TIMING, k % 2, head, base);
	}
	while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
		;
	rc = read_all(fds[0], &go, 1) ?
		fn(ctx, (enum rn_baseline_side) !fs, RN_BASELINE_TIMING, cpu[!fs], own) :
		0;
	frc = duet_collect(fds[0], fr);
	close(fds[0]);
	return rc ? rc : frc;
}

/* `pairs` timing pairs: duets (plan->duet), or sequential pairs whose order rotates: base
 * first in even pairs, head first in odd. */
static int measure_pairs(const struct rn_baseline_plan *plan, unsigned pairs, rn_baseline_run_fn fn,
			 void *ctx, struct rn_target_result *head, struct rn_target_result *base)
{
	unsigned k;
	int rc = 0;

	for (k = 0; k < pairs && !rc && !failed(head) && !failed(base); k++)
		rc = plan->duet ? run_duet(plan, head->nruns, fn, ctx, head, base) :
				  run_both(fn, ctx, RN_BASELINE_TIMING, k % 2, head, base);
	return rc;
}

static void side_error(const char *name, const struct rn_target_result *head,
		       const struct rn_target_result *base, struct rn_target_report *tv)
{
	struct rn_verdict_result *v = push(tv, name, "run", RN_VERDICT_ERROR);
	struct rn_buf msg;

	rn_buf_init(&msg, 0);
	if (failed(base))
		rn_buf_addf(&msg, "base side failed: %s",
			    base->error ? base->error : "did not run");
	if (failed(head))
		rn_buf_addf(&msg, "%shead side failed: %s", failed(base) ? "; " : "",
			    head->error ? head->error : "did not run");
	rn_buf_adds(&msg, "; nothing is judged from one side alone");
	v->message = rn_buf_detach(&msg, NULL);
}

/* The processes of the last counting run of `r` that failed: exited non-zero or were killed
 * by a signal. Writes the first one's description to `what` (cap bytes). */
static size_t failed_processes(const struct rn_target_result *r, char *what, size_t cap)
{
	const struct rn_trace *t = &r->last;
	size_t i, n = 0;

	for (i = 0; i < t->nprocs; i++) {
		const struct rn_process *p = &t->procs[i];
		bool bad = (p->end == RN_PROC_EXITED && p->exit_code != 0) ||
			p->end == RN_PROC_SIGNALED;

		if (!bad)
			continue;
		if (!n++) {
			if (p->end == RN_PROC_EXITED)
				snprintf(what, cap, "'%.64s' (pid %d) exited with status %d",
					 p->comm ? p->comm : "?", (int)p->pid, p->exit_code);
			else
				snprintf(what, cap, "'%.64s' (pid %d) was killed by signal %d",
					 p->comm ? p->comm : "?", (int)p->pid, p->term_signal);
		}
	}
	return n;
}

/*
 * A base side whose tree had processes fail where the head's did not (a command inside `sh -c`
 * that could not find its input, while the shell exited 0) did not do the work the head did:
 * comparing the two would read the missing work as the head's regression (six FAIL rows at
 * +974% in one such check). One WARN row says so, and nothing is judged against that base.
 * Returns true when it wrote the row.
 */
static bool base_did_not_work(const char *name, const struct rn_target_result *head,
			      const struct rn_target_result *base, struct rn_target_report *tv)
{
	char bwhat[160] = "", hwhat[160] = "";
	size_t nb = failed_processes(base, bwhat, sizeof(bwhat));
	size_t nh = failed_processes(head, hwhat, sizeof(hwhat));
	struct rn_verdict_result *v;
	struct rn_buf msg;

	if (nb <= nh)
		return false;
	v = push(tv, name, "base_side", RN_VERDICT_WARN);
	rn_buf_init(&msg, 0);
	rn_buf_addf(&msg,
		    "not judged against the base: %zu process%s of the base side failed (%s), "
		    "%zu of the head's; the base did not do the head's work, so its times and "
		    "counts would read as a regression (does the base tree lack an input the "
		    "command needs?)",
		    nb, nb == 1 ? "" : "es", bwhat, nh);
	v->message = rn_buf_detach(&msg, NULL);
	return true;
}

/* After a failing timing verdict: measure the pairs again and judge the time metrics on the
 * new pairs alone (a design of as many pairs, one look). A metric fails only when both
 * measurements fail. */
static int confirm(const struct rn_baseline *b, const struct rn_baseline_plan *plan,
		   const struct rn_regression_cfg *reg, const struct rn_seq_design *seq,
		   const char *name, rn_baseline_run_fn fn, void *ctx,
		   struct rn_target_result *head, struct rn_target_result *base,
		   struct rn_target_report *tv, size_t first_row)
{
	struct rn_target_report again;
	size_t first = head->nruns, pairs = head->nruns, i, k;
	struct rn_seq_design one;
	int rc;

	rc = measure_pairs(plan, (unsigned)pairs, fn, ctx, head, base);
	if (rc || failed(head) || failed(base))
		return rc;
	one.first = one.max = head->nruns - first;
	one.alpha = seq->alpha;
	memset(&again, 0, sizeof(again));
	for (i = 0; i < sizeof(time_metrics) / sizeof(time_metrics[0]); i++)
		if (rn_target_result_time_judged(head, time_metrics[i]))
			judge_time(b, reg, &one, true, name, time_metrics[i], head, base, first,
				   &again);
	for (i = first_row; i < tv->nverdicts; i++) {
		struct rn_verdict_result *v = &tv->verdicts[i];

		if (v->verdict != RN_VERDICT_FAIL)
			continue;
		for (k = 0; k < again.nverdicts; k++) {
			struct rn_verdict_result *w = &again.verdicts[k];
			struct rn_buf msg;

			if (strcmp(w->assertion, v->assertion))
				continue;
			rn_buf_init(&msg, 0);
			if (w->verdict == RN_VERDICT_FAIL)
				rn_buf_addf(&msg, "%s; confirmed by %zu more pairs: %s", v->message,
					    head->nruns - first, w->message);
			else
				rn_buf_addf(&msg,
					    "%s; not confirmed by %zu more pairs (first "
					    "measurement: %s)",
					    w->message, head->nruns - first, v->message);
			if (w->verdict != RN_VERDICT_FAIL) {
				rn_verdict_result_release(v);
				*v = *w;
				memset(w, 0, sizeof(*w));
			}
			free(v->message);
			v->message = rn_buf_detach(&msg, NULL);
			break;
		}
	}
	rn_target_report_release(&again);
	return 0;
}

/*
 * Whether the look at the pairs measured so far leaves a time metric to decide: none failed
 * (a FAIL already decides the check), and the primary metric is undecided, or another one is
 * whose estimate is beyond the limit (a slowdown in waiting time of a CPU-bound tree is still
 * worth the runs; noise around zero is not).
 */
static bool wants_more(const struct rn_baseline *b, const struct rn_regression_cfg *reg,
		       const struct rn_seq_design *seq, const struct rn_target_result *head,
		       const struct rn_target_result *base)
{
	enum rn_metric prim = rn_baseline_primary(head, base);
	size_t i;
	bool more = false;

	for (i = 0; i < sizeof(time_metrics) / sizeof(time_metrics[0]); i++) {
		struct time_judgement j;

		if (!judge_time_stats(b, reg, seq, time_metrics[i], head, base, 0, &j))
			continue;
		if (j.verdict == RN_VERDICT_FAIL || j.fp_held || (j.modes_held && j.modes_final))
			return false; /* decided: more runs would not change that */
		/* another metric is worth more pairs only with some evidence of a slowdown
		 * beyond the limit, not for noise that happens to lean that way */
		if (j.verdict == RN_BASELINE_INCONCLUSIVE && !j.futile &&
		    (time_metrics[i] == prim ||
		     (j.ci.estimate > j.limit && j.w.p < RN_BASELINE_LEAN_P)))
			more = true;
	}
	return more;
}

/* Whether a count or memory metric of the counting runs differs between the sides. */
static bool counts_differ(const struct rn_target_result *head, const struct rn_target_result *base)
{
	static const enum rn_metric ms[] = { RN_METRIC_SYSCALLS, RN_METRIC_ALLOC_PEAK,
					     RN_METRIC_PROCESSES };
	size_t i;
	int nr, n = rn_syscall_table_size();

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		if (extreme_of(head, ms[i], true) != extreme_of(base, ms[i], true))
			return true;
	for (nr = 0; head->syscall_calls && base->syscall_calls && nr < n; nr++)
		if (head->syscall_calls[nr] != base->syscall_calls[nr])
			return true;
	return false;
}

/* The warmups and the timing pairs: a first look, then adaptive repeats, more pairs while a
 * time metric is undecided, up to the design's last look or the time budget (sequential.h
 * keeps alpha over the looks). A look that would run past the budget is cut to the pairs that
 * fit and is the last (an off-schedule look spends the alpha of the scheduled one above it:
 * rn_seq_alpha), so the budget bounds the timing pairs, not only where a look may begin (a
 * look grows by half the pairs: begun at 44 s of a 45 s budget it ran to 60 s). *spent: no
 * further look was possible. */
static int measure_timing(const struct rn_baseline *b, const struct rn_baseline_plan *plan,
			  const struct rn_regression_cfg *reg, const struct rn_seq_design *seq,
			  rn_baseline_run_fn fn, void *ctx, struct rn_target_result *head,
			  struct rn_target_result *base, bool *spent)
{
	size_t next, more, fit;
	uint64_t t0;
	double used;
	unsigned k;
	int rc = 0;

	*spent = true;
	for (k = 0; k < plan->warmup && !rc && !failed(head) && !failed(base); k++)
		rc = run_both(fn, ctx, RN_BASELINE_WARMUP, k % 2, head, base);
	t0 = rn_mono_ns();
	if (!rc)
		rc = measure_pairs(plan, (unsigned)seq->first, fn, ctx, head, base);
	while (!rc && !failed(head) && !failed(base)) {
		next = rn_seq_next(seq, head->nruns);
		if (!next)
			break;
		more = next - head->nruns;
		used = (double)(rn_mono_ns() - t0);
		fit = rn_seq_budget_fit(more, head->nruns ? used / (double)head->nruns : 0.0, used,
					(double)plan->budget_ns);
		if (!fit)
			break;
		if (!wants_more(b, reg, seq, head, base)) {
			*spent = false;
			break;
		}
		rc = measure_pairs(plan, (unsigned)fit, fn, ctx, head, base);
		if (fit < more)
			break; /* the budget's last look */
	}
	return rc;
}

/* The counting runs, alternating; counts that differ between the sides may be the program's
 * own run-to-run variation (threads, a parallel build): measure enough counting runs to see
 * it. */
static int measure_counts(const struct rn_baseline_plan *plan, rn_baseline_run_fn fn, void *ctx,
			  struct rn_target_result *head, struct rn_target_result *base)
{
	unsigned k;
	int rc = 0;

	for (k = 0; k < plan->counting && !rc && !failed(head) && !failed(base); k++)
		rc = run_both(fn, ctx, RN_BASELINE_COUNTING, k % 2, head, base);
	for (; k < RN_BASELINE_VARIED_COUNTING && plan->counting && !rc && !failed(head) &&
	     !failed(base) && counts_differ(head, base);
	     k++)
		rc = run_both(fn, ctx, RN_BASELINE_COUNTING, k % 2, head, base);
	return rc;
}

int rn_baseline_run_target(const struct rn_baseline *b, const struct rn_baseline_plan *plan,
			   const struct rn_regression_cfg *reg, const char *name,
			   rn_baseline_run_fn fn, void *ctx, struct rn_target_result *head,
			   struct rn_target_result *base, struct rn_target_report *tv)
{
	struct rn_seq_design seq = rn_baseline_design(plan, reg);
	size_t first_row = tv->nverdicts, i;
	bool time_failed = false, spent;
	int rc;

	head->duet_pairs = base->duet_pairs = plan->duet;
	head->pairs_note = base->pairs_note = plan->pairs_note;
	rc = measure_timing(b, plan, reg, &seq, fn, ctx, head, base, &spent);
	if (!rc)
		rc = measure_counts(plan, fn, ctx, head, base);
	if (rc)
		return rc;
	if (failed(head) || failed(base)) {
		side_error(name, head, base, tv);
		return 0;
	}
	if (base_did_not_work(name, head, base, tv))
		return 0;
	rn_baseline_judge(b, reg, &seq, spent, name, head, base, 0, tv);
	for (i = first_row; i < tv->nverdicts; i++)
		if (tv->verdicts[i].verdict == RN_VERDICT_FAIL && tv->verdicts[i].unit &&
		    !strcmp(tv->verdicts[i].unit, "ms"))
			time_failed = true;
	if (b->confirm && time_failed) {
		rc = confirm(b, plan, reg, &seq, name, fn, ctx, head, base, tv, first_row);
		if (!rc && (failed(head) || failed(base)))
			side_error(name, head, base, tv);
	}
	return rc;
}

struct rn_seq_design rn_baseline_design(const struct rn_baseline_plan *plan,
					const struct rn_regression_cfg *reg)
{
	struct rn_seq_design seq;
	size_t least;

	seq.alpha = reg->alpha;
	seq.max = plan->max_pairs > plan->pairs ? plan->max_pairs : plan->pairs;
	if (!seq.max)
		seq.max = 1;
	/* The first look is the target's runs, or the fewest pairs that can decide at all. */
	least = rn_seq_paired_first(seq.max, reg->alpha);
	seq.first = plan->pairs > least ? plan->pairs : least;
	if (!seq.first || seq.first > seq.max)
		seq.first = seq.max;
	return seq;
}

void rn_baseline_report_console(bool color, const struct rn_outcome *oc)
{
	const struct rn_target_report *t = oc->reports;
	size_t n = oc->ntargets;
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	struct rn_buf b;
	size_t i, k, rows = 0;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "\n%shead vs base%s (same-job baseline)\n", bold, reset);
	for (i = 0; i < n; i++)
		for (k = 0; k < t[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &t[i].verdicts[k];

			if (!v->type || strcmp(v->type, "baseline") || !v->unit ||
			    strcmp(v->unit, "ms"))
				continue;
			rn_buf_addf(&b, "  %s %s %s: %s\n", t[i].result->name, v->assertion,
				    rn_verdict_label(v->verdict), v->message);
			rows++;
		}
	if (rows)
		rn_write_stderr(b.buf, b.len);
	rn_buf_release(&b);
}
