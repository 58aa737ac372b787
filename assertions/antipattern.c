/*
 * antipattern.c - anti-pattern detectors over one trace.
 *
 * Detectors read only the trace model (collectors/trace.h): per-process statistics, the
 * process tree, GPU spans and, when it was enabled for the run, the spool of every syscall
 * span. Those that need span sequences replay the spool once (rn_trace_spool_foreach) in a
 * shared pass that hands each span to every detector asked for, so running all of them costs
 * one replay. Per-span work is O(1): state lives per thread, per (process, fd), per
 * (process, path), per (process, syscall, errno) or per process, in hash tables with fixed
 * caps (RN_AP_MAX_* in internal.h), so a 10M-syscall trace replays in bounded
 * memory. A full table refuses new keys and the evidence says so.
 *
 * This file holds the names, the ramps and the driver: it iterates the table of detector ops
 * (struct rn_detector_ops, antipattern/pass.h), one file per detector in antipattern/.
 * Definitions, confidence formulas and their thresholds are documented in each detector's
 * file, in internal.h and in assertions/ANTIPATTERNS.md.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antipattern/pass.h"
#include "buf.h"
#include "srcloc.h"
#include "symbolize.h"
#include "xalloc.h"

/* ---- the detector table ------------------------------------------------------------------- */

const char *const rn_antipattern_names[] = {
#define RN_AP_NAME(id, name, desc) name,
	RN_ANTIPATTERNS(RN_AP_NAME)
#undef RN_AP_NAME
		NULL,
};

static const char *const ap_desc[] = {
#define RN_AP_DESC(id, name, desc) desc,
	RN_ANTIPATTERNS(RN_AP_DESC)
#undef RN_AP_DESC
};

/* The detectors, in table order: the order of their spans in the pass and of reports. */
static const struct rn_detector_ops *const detectors[RN_AP_COUNT] = {
	[RN_AP_GOD_PROCESS] = &rn_ap_god_process_ops,
	[RN_AP_TIGHT_LOOP] = &rn_ap_tight_loop_ops,
	[RN_AP_PCIE_BOTTLENECK] = &rn_ap_pcie_bottleneck_ops,
	[RN_AP_SMALL_IO] = &rn_ap_small_io_ops,
	[RN_AP_REDUNDANT_IO] = &rn_ap_redundant_io_ops,
	[RN_AP_ERROR_STORM] = &rn_ap_error_storm_ops,
	[RN_AP_SYNC_STORM] = &rn_ap_sync_storm_ops,
	[RN_AP_MEMORY_CHURN] = &rn_ap_memory_churn_ops,
};

/* Compare ignoring case and the separators '_', '-' and ' '. */
static bool name_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a == '_' || *a == '-' || *a == ' ')
			a++;
		while (*b == '_' || *b == '-' || *b == ' ')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if ((*a | 0x20) != (*b | 0x20))
			return false;
		a++;
		b++;
	}
}

static int ap_lookup(const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < RN_AP_COUNT; i++)
		if (name_eq(name, rn_antipattern_names[i]))
			return i;
	return -1;
}

const char *rn_antipattern_canonical(const char *name)
{
	int i = ap_lookup(name);

	return i < 0 ? NULL : rn_antipattern_names[i];
}

const char *rn_antipattern_description(const char *name)
{
	int i = ap_lookup(name);

	return i < 0 ? NULL : ap_desc[i];
}

/* ---- confidence ramps ---------------------------------------------------------------------- */

static double clamp01(double x)
{
	if (!(x > 0.0)) /* NaN too */
		return 0.0;
	return x > 1.0 ? 1.0 : x;
}

double rn_ap_ramp_log(double x, double lo, double hi)
{
	if (!(x > lo))
		return 0.0;
	if (x >= hi)
		return 1.0;
	return clamp01(log(x / lo) / log(hi / lo));
}

double rn_ap_ramp_lin(double x, double lo, double hi)
{
	if (!(x > lo))
		return 0.0;
	if (x >= hi)
		return 1.0;
	return clamp01((x - lo) / (hi - lo));
}

static bool comm_matches(const struct rn_regex *re, const char *comm)
{
	return !re || rn_regex_match(re, comm ? comm : "");
}

/* The caller of the span being replayed (ps->ev_caller), memoized per (snapshot, stack). */
static void resolve_caller(struct rn_ap_pass *ps, int proc, const struct rn_syscall_event *ev)
{
	const struct rn_maps *m = ps->t->procs[proc].maps;
	struct rn_ap_caller_memo *memo;
	struct rn_ap_caller_def *d;
	struct rn_frame fr;
	uint64_t tag = (uint64_t)(uintptr_t)m;
	int i;

	ps->ev_caller = 0;
	if (!ev->nstack || !m)
		return;
	for (i = 0; i < ev->nstack && i < RN_SYSCALL_STACK_MAX; i++)
		tag = mix64(tag ^ ev->stack[i]);
	tag |= 1;
	memo = &ps->cmemo[tag & (RN_AP_CALLER_CACHE - 1)];
	if (memo->tag == tag) {
		ps->ev_caller = memo->key;
		return;
	}
	memo->tag = tag;
	memo->key = 0;
	if (rn_symbolize_caller(ps->sym, m, ev->stack, ev->nstack, &fr))
		return;
	/* one key per function (per address where the module has no symbol for it) */
	memo->key = fr.function ? mix64(rn_ap_str_key(fr.module, 1) ^ fr.function_start) :
				  mix64(rn_ap_str_key(fr.module, 2) ^ fr.vaddr);
	if (!memo->key || memo->key == UINT64_MAX)
		memo->key = 1;
	d = rn_antipattern_map_get(&ps->cdefs, memo->key, true);
	if (!d) {
		memo->key = 0; /* too many distinct callers: this one stays unnamed */
		return;
	}
	if (!d->module) {
		d->function = fr.function;
		d->module = fr.module;
		d->vaddr = fr.vaddr;
	}
	ps->ev_caller = memo->key;
}

/* ---- the pass driver ------------------------------------------------------------------------ */

static int pass_span(void *ctx, const struct rn_syscall_event *ev)
{
	struct rn_ap_pass *ps = ctx;
	int proc = rn_trace_find_process(ps->t, ev->pid);
	const struct rn_ap_sc *si;
	struct rn_ap_proc *pp;
	int id;

	if (proc < 0 || (size_t)proc >= ps->nprocs || !ps->procs[proc].allowed)
		return 0;
	pp = &ps->procs[proc];
	if (!pp->spans || ev->start_ns < pp->first_ns)
		pp->first_ns = ev->start_ns;
	if (ev->start_ns + ev->duration_ns > pp->last_ns)
		pp->last_ns = ev->start_ns + ev->duration_ns;
	pp->spans++;
	ps->spans++;
	si = rn_ap_sc_of(&ps->sc, ev->nr);
	resolve_caller(ps, proc, ev);
	ps->ev_has_path = false;
	if (ps->fds_on && (si->flags & (C_OPEN | C_STAT)) && ev->path && ev->path[0])
		rn_ap_resolve_path(ps, proc, si, ev);
	if ((si->flags & C_CHDIR) && !ev->err)
		pp->cwd_gen++;
	for (id = 0; id < RN_AP_COUNT; id++)
		if (ps->want[id] && detectors[id]->span)
			detectors[id]->span(ps, proc, si, ev);
	/* After RedundantIO's path_span: a re-read counts on the path entry of its open. */
	if (ps->fds_on)
		rn_ap_fd_span(ps, proc, si, ev);
	return 0;
}

static void pass_init(struct rn_ap_pass *ps, struct rn_trace *t, const struct rn_regex *re,
		      const bool *want)
{
	size_t i;
	int id;

	memset(ps, 0, sizeof(*ps));
	ps->t = t;
	ps->re = re;
	memcpy(ps->want, want, sizeof(ps->want));
	rn_ap_sc_tab_build(&ps->sc);
	ps->nprocs = t->nprocs;
	ps->procs = rn_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*ps->procs));
	for (i = 0; i < t->nprocs; i++) {
		ps->procs[i].allowed = comm_matches(re, rn_ap_proc_comm(t, (int)i));
		ps->nallowed += ps->procs[i].allowed;
	}
	for (id = 0; id < RN_AP_COUNT; id++)
		ps->fds_on |= want[id] && detectors[id]->needs_fds;
	if (ps->fds_on)
		rn_antipattern_map_init(&ps->fds, sizeof(struct rn_ap_fd), RN_AP_MAX_FDS);
	for (id = 0; id < RN_AP_COUNT; id++)
		if (want[id] && detectors[id]->init)
			detectors[id]->init(ps);
	ps->sym = rn_symbolizer_new();
	rn_antipattern_map_init(&ps->cdefs, sizeof(struct rn_ap_caller_def), RN_AP_MAX_CALLER_DEFS);
	ps->cmemo = rn_xcalloc(RN_AP_CALLER_CACHE, sizeof(*ps->cmemo));
}

static void pass_release(struct rn_ap_pass *ps)
{
	size_t i;

	for (i = 0; i < ps->nprocs; i++)
		free(ps->procs[i].best);
	free(ps->procs);
	free(ps->sc.v);
	free(ps->maps);
	rn_antipattern_map_release(&ps->threads);
	rn_antipattern_map_release(&ps->fds);
	rn_antipattern_map_release(&ps->paths);
	rn_antipattern_map_release(&ps->errs);
	rn_antipattern_map_release(&ps->cdefs);
	free(ps->cmemo);
	rn_symbolizer_free(ps->sym);
	rn_srcloc_free(ps->src);
	rn_ap_top_release(&ps->small);
	memset(ps, 0, sizeof(*ps));
}

static void finish_one(struct rn_ap_pass *ps, int id, struct rn_detection *out)
{
	memset(out, 0, sizeof(*out));
	/* the name comes from the ops, so a table entry in the wrong row shows in every report */
	out->pattern = rn_xstrdup(rn_antipattern_names[detectors[id]->id]);
	out->proc = -1;
	detectors[id]->finish(ps, out);
	out->recommendation = rn_xstrdup(detectors[id]->recommendation);
	if (!out->summary)
		out->summary = rn_xstrdup(out->no_data ? "no data" : "not detected");
	if (ps->t->filtered && !out->no_data && out->evidence) {
		char *e =
			rn_xstrfmt("%s\n  note: the trace was filtered; syscalls outside the filter "
				   "were not seen",
				   out->evidence);

		free(out->evidence);
		out->evidence = e;
	}
}

/* Run the detectors marked in `want` over `t` in one spool pass; fill out[id] for each. */
static int run_detectors(struct rn_trace *t, const struct rn_regex *re, const bool *want,
			 struct rn_detection *out)
{
	struct rn_ap_pass ps;
	int id, rc = 0;
	bool need_spool = false;

	for (id = 0; id < RN_AP_COUNT; id++)
		need_spool |= want[id] && detectors[id]->uses_spool;
	pass_init(&ps, t, re, want);
	if (need_spool && t->spool) {
		rc = rn_trace_spool_foreach(t, pass_span, &ps);
		ps.spool = true;
	}
	if (rc < 0) {
		pass_release(&ps);
		return rc;
	}
	for (id = 0; id < RN_AP_COUNT; id++)
		if (want[id])
			finish_one(&ps, id, &out[id]);
	pass_release(&ps);
	return 0;
}

int rn_antipattern_detect(struct rn_trace *t, const char *pattern,
			  const struct rn_regex *process_re, struct rn_detection *out)
{
	struct rn_detection all[RN_AP_COUNT];
	bool want[RN_AP_COUNT] = { false };
	int id = ap_lookup(pattern), rc;

	memset(out, 0, sizeof(*out));
	out->proc = -1;
	if (id < 0)
		return -EINVAL;
	want[id] = true;
	memset(all, 0, sizeof(all));
	rc = run_detectors(t, process_re, want, all);
	if (rc)
		return rc;
	*out = all[id];
	return 0;
}

int rn_antipattern_detect_all(struct rn_trace *t, const struct rn_regex *process_re,
			      struct rn_detection *out)
{
	bool want[RN_AP_COUNT];
	int id, rc;

	for (id = 0; id < RN_AP_COUNT; id++) {
		want[id] = true;
		memset(&out[id], 0, sizeof(out[id]));
		out[id].proc = -1;
	}
	rc = run_detectors(t, process_re, want, out);
	return rc;
}

void rn_detection_release(struct rn_detection *d)
{
	free(d->pattern);
	free(d->evidence);
	free(d->recommendation);
	free(d->summary);
	memset(d, 0, sizeof(*d));
	d->proc = -1;
}

/* Indent every line of `s` by `ind` spaces into `b`. */
static void add_indented(struct rn_buf *b, const char *s, int ind)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		rn_buf_addf(b, "%*s", ind, "");
		rn_buf_add(b, s, n);
		rn_buf_addc(b, '\n');
		s += n + (nl ? 1 : 0);
	}
}

int rn_antipattern_report_all(struct rn_trace *t, const struct rn_regex *process_re,
			      double min_confidence, FILE *out)
{
	struct rn_detection d[RN_AP_COUNT];
	struct rn_buf b, below, nodata;
	int id, rc, found = 0;

	rc = rn_antipattern_detect_all(t, process_re, d);
	if (rc)
		return rc;
	rn_buf_init(&b, 0);
	rn_buf_init(&below, 0);
	rn_buf_init(&nodata, 0);
	for (id = 0; id < RN_AP_COUNT; id++) {
		if (d[id].no_data) {
			rn_buf_addf(&nodata, "  %s: %s\n", d[id].pattern,
				    d[id].evidence ? d[id].evidence : "no data");
		} else if (d[id].confidence >= min_confidence && d[id].confidence > 0) {
			found++;
			rn_buf_addf(&b, "%s  confidence %.2f\n", d[id].pattern, d[id].confidence);
			if (d[id].summary)
				rn_buf_addf(&b, "  %s\n", d[id].summary);
			if (d[id].evidence)
				add_indented(&b, d[id].evidence, 4);
			rn_buf_addf(&b, "  recommendation: %s\n\n", d[id].recommendation);
		} else {
			rn_buf_addf(&below, "%s%s %.2f", below.len ? ", " : "", d[id].pattern,
				    d[id].confidence);
		}
		rn_detection_release(&d[id]);
	}
	fprintf(out, "anti-patterns (confidence >= %.2f): %d detected\n\n", min_confidence, found);
	fputs(b.buf, out);
	if (below.len)
		fprintf(out, "below %.2f: %s\n", min_confidence, below.buf);
	if (nodata.len)
		fprintf(out, "no data:\n%s", nodata.buf);
	rc = rn_buf_failed(&b) || rn_buf_failed(&below) || rn_buf_failed(&nodata) ? -ENOMEM : 0;
	rn_buf_release(&b);
	rn_buf_release(&below);
	rn_buf_release(&nodata);
	if (!rc && (fflush(out) || ferror(out)))
		rc = -EIO;
	return rc ? rc : found;
}
