/*
 * profile_check.c - profiles of a failed timing row's two sides, ranked (profile_check.h).
 */
#include "profile_check.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assertion.h"
#include "buf.h"
#include "collector.h"
#include "diag.h"
#include "exitcode.h"
#include "explain.h"
#include "flamegraph.h"
#include "internal.h"
#include "log.h"
#include "profile.h"
#include "rn_regex.h"
#include "safefile.h"
#include "srcloc.h"
#include "symbolize.h"
#include "trace.h"
#include "xalloc.h"

/* The time a child process (by name) spent on the critical path of a profiled run. */
struct cp_share {
	char *comm;       /* process name, owned */
	uint64_t time_ns; /* summed over its segments */
};

/* One side's profile. */
struct side {
	char *folded; /* "stack NS" lines (CPU samples scaled, syscall time), owned */
	char *calls;  /* "stack CALLS" lines of the syscalls, owned */
	char *oncpu;  /* "stack NS" lines of the time on CPU: the CPU samples scaled and the
		       * calling threads' on-CPU time in the syscalls (RN_PROFILE_SYSCALL_CPU),
		       * which leaves out what a call waited; owned */
	struct cp_share *cp;
	size_t ncp;
	uint64_t samples, lost;
	uint64_t untimed; /* samples that kept no time (rn_profile_untimed) */
	char *inside;     /* CPU samples inside the windows of the spans asked for ("stack SAMPLES"
		       * lines), owned, or NULL when none were asked for */
	char *error;      /* why there is no profile, owned, or NULL */
};

/* The app spans whose windows a failed span row asks about: those named `name` ("app:solve")
 * exactly, or those `re` matches in full (a span_time assertion's span_name_pattern). */
struct span_sel {
	const char *label;         /* how the explanation names them */
	const char *name;          /* or NULL */
	const struct rn_regex *re; /* or NULL */
};

static void side_release(struct side *s)
{
	free(s->folded);
	free(s->calls);
	free(s->oncpu);
	free(s->inside);
	for (size_t i = 0; i < s->ncp; i++)
		free(s->cp[i].comm);
	free(s->cp);
	free(s->error);
	memset(s, 0, sizeof(*s));
}

/* A folded line and its value, for sorting. */
struct fline {
	char *stack; /* owned */
	uint64_t value;
};

static int fline_by_value(const void *a, const void *b)
{
	const struct fline *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

static int fline_by_stack(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->stack, ((const struct fline *)b)->stack);
}

/* Append the lines of folded `text` to `v`, each value times `scale`; with `no_kernel`, the
 * samples in the kernel (leaf "[kernel]") are left out. */
static void add_lines(struct fline **v, size_t *n, size_t *cap, const char *text, double scale,
		      bool no_kernel)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p), *sp = end;

		while (sp > p && sp[-1] != ' ')
			sp--;
		if (sp > p + 1) {
			size_t klen = (size_t)(sp - 1 - p);
			uint64_t val = strtoull(sp, NULL, 10);

			if (!(no_kernel && klen >= 9 && !memcmp(p + klen - 9, ";[kernel]", 9))) {
				*v = rn_xgrow(*v, cap, *n + 1, sizeof(**v));
				(*v)[*n].stack = rn_xstrndup(p, klen);
				(*v)[(*n)++].value = (uint64_t)((double)val * scale + 0.5);
			}
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* The lines of `v` as folded text: the `max` largest, sorted by stack; frees `v`. */
static char *lines_text(struct fline *v, size_t n, size_t max)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	if (n > max) {
		qsort(v, n, sizeof(*v), fline_by_value);
		for (size_t i = max; i < n; i++)
			free(v[i].stack);
		n = max;
	}
	if (n)
		qsort(v, n, sizeof(*v), fline_by_stack);
	for (size_t i = 0; i < n; i++) {
		if (v[i].value)
			rn_buf_addf(&b, "%s %" PRIu64 "\n", v[i].stack, v[i].value);
		free(v[i].stack);
	}
	free(v);
	return rn_buf_detach(&b, NULL);
}

/* Folded stacks of `kind` as text (owned). */
static char *folded_of(struct rn_profile *p, const struct rn_trace *t, enum rn_profile_kind kind,
		       struct rn_srcloc *src)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return rn_xstrdup("");
	rn_profile_write_folded(p, t, kind, src, mem);
	fclose(mem);
	return text ? text : rn_xstrdup("");
}

/* The folded CPU samples of `p` taken inside the app spans of `t` that `sel` selects, each in
 * its own thread's span (owned text). */
static char *inside_of(struct rn_profile *p, const struct rn_trace *t, const struct span_sel *sel,
		       struct rn_srcloc *src)
{
	struct rn_profile_window *w = rn_xcalloc(t->napp + 1, sizeof(*w));
	size_t nw = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	struct rn_buf full;

	rn_buf_init(&full, 0);
	for (size_t i = 0; i < t->napp; i++) {
		const struct rn_app_span *a = &t->app[i];

		rn_buf_reset(&full);
		rn_buf_addf(&full, "app:%s", a->name);
		if (rn_buf_failed(&full) || a->end_ns <= a->start_ns)
			continue;
		if (sel->name ? !strcmp(full.buf, sel->name) : rn_regex_match(sel->re, full.buf))
			w[nw++] = (struct rn_profile_window){ a->start_ns, a->end_ns, a->tid };
	}
	rn_buf_release(&full);
	mem = open_memstream(&text, &len);
	if (mem) {
		rn_profile_write_folded_windows(p, t, w, nw, src, mem, NULL);
		fclose(mem);
	}
	free(w);
	return text ? text : rn_xstrdup("");
}

/* The children's shares of the critical path of `t`, summed by process name. */
static void cp_shares(const struct rn_trace *t, struct side *s)
{
	struct rn_critical_path cp;
	size_t cap = 0;

	rn_critical_path_compute(t, &cp);
	for (size_t i = 0; i < cp.nsegments; i++) {
		const struct rn_cp_segment *g = &cp.segments[i];
		const char *comm;
		size_t k;

		if (g->proc <= 0 || (size_t)g->proc >= t->nprocs || g->end_ns < g->start_ns)
			continue; /* the root's own time is what the other items explain */
		comm = t->procs[g->proc].comm ? t->procs[g->proc].comm : "?";
		for (k = 0; k < s->ncp && strcmp(s->cp[k].comm, comm); k++)
			;
		if (k == s->ncp) {
			s->cp = rn_xgrow(s->cp, &cap, s->ncp + 1, sizeof(*s->cp));
			s->cp[s->ncp++] = (struct cp_share){ rn_xstrdup(comm), 0 };
		}
		s->cp[k].time_ns += g->end_ns - g->start_ns;
	}
	rn_critical_path_release(&cp);
}

/* Run `tc` once under profiling into `s`; with `warn`, say when the samples are missing or
 * thin; with `sel`, also collect the app spans and keep the samples inside those it selects
 * (s->inside). 0, or -1 with s->error set. */
static int profile_side(const struct rn_profile_cfg *pc, const struct rn_target_cfg *tc,
			const struct span_sel *sel, struct side *s, bool warn)
{
	struct rn_run_spec spec;
	struct rn_run_result res;
	struct rn_profile *prof;
	struct rn_srcloc *src;
	struct rn_trace t;
	struct fline *v = NULL;
	size_t n = 0, cap = 0;
	char *cpu, *sys, *syscpu;

	memset(s, 0, sizeof(*s));
	memset(&spec, 0, sizeof(spec));
	spec.name = tc->name;
	spec.argv = tc->argv;
	spec.cwd = tc->cwd;
	spec.env_add = tc->env;
	spec.stdio[0] = RN_STDIO_NULL;
	spec.stdio[1] = RN_STDIO_NULL;
	spec.stdio[2] = tc->err == RN_STDIO_CAPTURE ? RN_STDIO_NULL : tc->err;
	spec.timeout_ns = tc->timeout_ns;
	spec.collectors = RN_COLLECT_PTRACE | (sel ? RN_COLLECT_APP : 0);
	spec.flags =
		RN_RUN_FOLLOW_FORKS | RN_RUN_NO_PROPAGATE | (pc->syscalls ? 0 : RN_RUN_EVENTS_ONLY);
	spec.max_procs = tc->max_procs;
	spec.max_as_bytes = tc->max_as_bytes;
	spec.inject = tc->inject;
	spec.ninject = tc->ninject;
	rn_trace_init(&t);
	prof = rn_profile_new();
	rn_profile_set_root(prof, tc->cwd ? tc->cwd : ".");
	rn_profile_attach(prof, &t, pc->frequency_hz);
	if (pc->syscalls && rn_trace_spool_enable(&t))
		rn_warn("target '%s': cannot create the span spool: the profile has no syscalls",
			tc->name);
	t.syscall_cpu = pc->syscalls; /* a cpu_time row's syscalls: their CPU, not their wait */
	rn_run_target(&spec, &t, &res);
	rn_profile_sample_stop(prof);
	if (t.status != RN_RUN_OK) {
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "the profiled run of '%s' failed: %s", tc->name,
			    t.error ? t.error : "it did not end cleanly");
		s->error = rn_buf_detach(&b, NULL);
	} else {
		src = rn_srcloc_new(NULL);
		cpu = folded_of(prof, &t, RN_PROFILE_CPU, src);
		sys = pc->syscalls ? folded_of(prof, &t, RN_PROFILE_SYSCALLS, src) : NULL;
		syscpu = pc->syscalls ? folded_of(prof, &t, RN_PROFILE_SYSCALL_CPU, src) : NULL;
		s->calls = pc->syscalls ? folded_of(prof, &t, RN_PROFILE_SYSCALL_CALLS, src) :
					  rn_xstrdup("");
		s->inside = sel ? inside_of(prof, &t, sel, src) : NULL;
		s->untimed = rn_profile_untimed(prof);
		rn_srcloc_free(src);
		/* a sample stands for one sampling period of CPU time */
		add_lines(&v, &n, &cap, cpu, 1e9 / pc->frequency_hz, pc->syscalls);
		add_lines(&v, &n, &cap, sys, 1.0, false);
		s->folded = lines_text(v, n, pc->max_stacks);
		v = NULL;
		n = cap = 0;
		add_lines(&v, &n, &cap, cpu, 1e9 / pc->frequency_hz, pc->syscalls);
		add_lines(&v, &n, &cap, syscpu, 1.0, false);
		s->oncpu = lines_text(v, n, pc->max_stacks);
		v = NULL;
		n = cap = 0;
		add_lines(&v, &n, &cap, s->calls, 1.0, false);
		free(s->calls);
		s->calls = lines_text(v, n, pc->max_stacks);
		free(cpu);
		free(sys);
		free(syscpu);
		s->samples = rn_profile_samples(prof);
		s->lost = rn_profile_lost(prof);
		if (warn && pc->frequency_hz && *rn_profile_sampling_error(prof))
			rn_warn("target '%s': no on-CPU samples: %s", tc->name,
				rn_profile_sampling_error(prof));
		{
			char note[320];

			if (warn && rn_profile_coverage_note(prof, &t, note, sizeof(note)))
				rn_warn("target '%s': thin on-CPU profile: %s", tc->name, note);
		}
		cp_shares(&t, s);
	}
	rn_run_result_release(&res);
	rn_trace_release(&t);
	rn_profile_free(prof);
	return s->error ? -1 : 0;
}

/* Which folded text of a side. */
enum side_text {
	TEXT_TIME,
	TEXT_CALLS,
	TEXT_ONCPU
};

static const char *text_of(const struct side *s, enum side_text which)
{
	return which == TEXT_CALLS ? s->calls : which == TEXT_ONCPU ? s->oncpu : s->folded;
}

/* The mean per run of the folded texts `which` of `n` runs. */
static char *mean_text(const struct side *runs, unsigned n, enum side_text which,
		       unsigned max_stacks)
{
	struct fline *v = NULL;
	size_t nv = 0, cap = 0, m = 0;

	for (unsigned r = 0; r < n; r++)
		add_lines(&v, &nv, &cap, text_of(&runs[r], which), 1.0, false);
	if (nv)
		qsort(v, nv, sizeof(*v), fline_by_stack);
	for (size_t i = 0; i < nv; i++) {
		if (m && !strcmp(v[m - 1].stack, v[i].stack)) {
			v[m - 1].value += v[i].value;
			free(v[i].stack);
			continue;
		}
		v[m++] = v[i];
	}
	for (size_t i = 0; i < m; i++)
		v[i].value = (v[i].value + n / 2) / n;
	return lines_text(v, m, max_stacks);
}

/* `mean` from `n` profiled runs: the mean per run of each path's time, calls and critical path
 * share (the written profile of a side). */
static void mean_side(const struct side *runs, unsigned n, unsigned max_stacks, struct side *mean)
{
	size_t cap = 0;

	memset(mean, 0, sizeof(*mean));
	mean->folded = mean_text(runs, n, TEXT_TIME, max_stacks);
	mean->calls = mean_text(runs, n, TEXT_CALLS, max_stacks);
	mean->oncpu = mean_text(runs, n, TEXT_ONCPU, max_stacks);
	for (unsigned r = 0; r < n; r++) {
		mean->samples += runs[r].samples;
		mean->lost += runs[r].lost;
		for (size_t i = 0; i < runs[r].ncp; i++) {
			size_t k;

			for (k = 0; k < mean->ncp && strcmp(mean->cp[k].comm, runs[r].cp[i].comm);
			     k++)
				;
			if (k == mean->ncp) {
				mean->cp =
					rn_xgrow(mean->cp, &cap, mean->ncp + 1, sizeof(*mean->cp));
				mean->cp[mean->ncp++] =
					(struct cp_share){ rn_xstrdup(runs[r].cp[i].comm), 0 };
			}
			mean->cp[k].time_ns += runs[r].cp[i].time_ns;
		}
	}
	for (size_t k = 0; k < mean->ncp; k++)
		mean->cp[k].time_ns /= n;
}

/* Profile `pc->runs` runs of `tc` into runs[] and of `base` (when not NULL) into bruns[],
 * a base run before each head run. 0, or -1 with the failing run's error in *error (owned). */
static int profile_runs(const struct rn_profile_cfg *pc, const struct rn_target_cfg *base,
			const struct rn_target_cfg *tc, const struct span_sel *sel,
			struct side *bruns, struct side *runs, char **error)
{
	*error = NULL;
	for (unsigned r = 0; r < pc->runs; r++) {
		struct side *s = NULL;

		if (base && profile_side(pc, base, NULL, &bruns[r], r == 0))
			s = &bruns[r];
		else if (profile_side(pc, tc, sel, &runs[r], r == 0))
			s = &runs[r];
		if (s) {
			*error = s->error;
			s->error = NULL;
			return -1;
		}
	}
	return 0;
}

static void runs_release(struct side *runs, unsigned n)
{
	for (unsigned r = 0; runs && r < n; r++)
		side_release(&runs[r]);
	free(runs);
}

/* mkdir -p `path` (a copy is walked). 0 or -errno. */
static int make_dirs(const char *path)
{
	char *dir = rn_xstrdup(path);
	int rc = 0;

	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	free(dir);
	return rc;
}

static char *path_of(const char *dir, const char *target, const char *suffix)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s%s", dir, target, suffix);
	return rn_buf_detach(&b, NULL);
}

/* Write `text` to `path` through a temporary. 0, or -1 after a warning. */
static int write_text(const char *path, const char *text)
{
	struct rn_safefile sf;
	int rc = rn_safefile_open(&sf, path);

	if (!rc) {
		rc = rn_safefile_write(&sf, text, strlen(text));
		rc = rc ? rc : rn_safefile_commit(&sf);
		if (rc)
			rn_safefile_abort(&sf);
	}
	if (rc) {
		rn_warn("cannot write '%s': %s", path, rn_safefile_strerror(rc));
		return -1;
	}
	return 0;
}

/* The differential flame graph of `head_path` against `base_path` at `svg`. 0 or -1. */
static int write_svg(const char *svg, const char *base_path, const char *head_path,
		     const char *target)
{
	FILE *b = fopen(base_path, "re"), *h = fopen(head_path, "re");
	struct rn_safefile sf;
	char title[256];
	int rc = !b || !h ? -EIO : rn_safefile_open(&sf, svg);

	snprintf(title, sizeof(title), "%s: head against base", target);
	if (!rc) {
		rc = rn_flamegraph_diff_svg(b, h, rn_safefile_stream(&sf), title, "ns", NULL);
		rc = rc ? rc : rn_safefile_commit(&sf);
		if (rc)
			rn_safefile_abort(&sf);
	}
	if (b)
		fclose(b);
	if (h)
		fclose(h);
	if (rc)
		rn_warn("cannot write '%s': %s", svg, rn_safefile_strerror(rc));
	return rc ? -1 : 0;
}

/* ---- ranking ------------------------------------------------------------------------------ */

/* What an item is. */
enum item_kind {
	ITEM_CPU,     /* a function's own CPU time */
	ITEM_SYSCALL, /* a syscall by call stack */
	ITEM_CP,      /* a child's time on the critical path */
};

struct item {
	enum item_kind kind;
	char *stack;        /* the (normalized) call path, or the process name, owned */
	char *where;        /* ITEM_CPU: the leaf with the line that grew most, owned, or NULL */
	int64_t delta;      /* head - base, ns */
	int64_t calls;      /* ITEM_SYSCALL: head - base calls */
	int64_t base_calls; /* ITEM_SYSCALL: the base's calls */
	int64_t best;       /* ITEM_CPU: growth of the line in `where` */
	unsigned held;      /* profiled runs (pairs of runs) in which it grew */
	bool waits;         /* ITEM_SYSCALL of a call that waits (waits_in), explaining a cpu_time
			* row: its time is not CPU time */
	bool oncpu;         /* ITEM_SYSCALL: delta is the calls' time on CPU (the on-CPU view) */
	bool overlaps;      /* ITEM_SYSCALL of a call that waits, explaining a wall-time row, whose
			     * time grew by more than twice the row did: threads that waited at
			     * once (wait_overlaps) */
};

/* The value of `stack` in `f` (0 when absent). */
static uint64_t value_of(const struct rn_folded *f, const char *stack)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(f->stack[mid], stack);

		if (!c)
			return f->value[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static bool has_stack(const struct rn_folded *f, const char *stack)
{
	return value_of(f, stack) > 0;
}

/* `stack` with its leaf's line dropped ("main (a.c:9);spin (a.c:20)" -> "... spin (a.c)"),
 * and a leaf without a symbol ("mawk+0x1b729") named by its module alone ("mawk+?"): a
 * stripped program's own time is one item, not one per address. Owned; a copy when the leaf
 * is neither. */
static char *drop_leaf_line(const char *stack)
{
	const char *leaf = strrchr(stack, ';'), *colon, *close, *plus;
	size_t len = strlen(stack);

	leaf = leaf ? leaf + 1 : stack;
	plus = strstr(leaf, "+0x");
	if (plus && plus > leaf && !strchr(leaf, ' ') &&
	    strspn(plus + 3, "0123456789abcdef") == strlen(plus + 3)) {
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_add(&b, stack, (size_t)(plus - stack));
		rn_buf_adds(&b, "+?");
		return rn_buf_detach(&b, NULL);
	}
	close = len ? stack + len - 1 : stack;
	colon = strrchr(leaf, ':');
	if (!len || *close != ')' || !colon || !strchr(leaf, '(') || colon + 1 == close ||
	    strspn(colon + 1, "0123456789") != (size_t)(close - colon - 1))
		return rn_xstrdup(stack);
	{
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_add(&b, stack, (size_t)(colon - stack));
		rn_buf_addc(&b, ')');
		return rn_buf_detach(&b, NULL);
	}
}

static struct item *push_item(struct item **v, size_t *n, size_t *cap, enum item_kind kind,
			      const char *stack)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].kind == kind && !strcmp((*v)[i].stack, stack))
			return &(*v)[i];
	*v = rn_xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[*n] = (struct item){ .kind = kind, .stack = rn_xstrdup(stack) };
	return &(*v)[(*n)++];
}

/* Is the leaf of syscall path `s` a wait for a child (wait4, waitid)? Its time is the child's
 * work, which the child's own items and its critical path item show; ranked, it would only
 * repeat them at the top (make's wait4 "grew" by its children's slowdown). */
static bool is_process_wait(const char *s)
{
	const char *leaf = strrchr(s, ';');

	leaf = leaf ? leaf + 1 : s;
	return !strcmp(leaf, "wait4") || !strcmp(leaf, "waitid");
}

/* Add the paths of `f` (sign +1: head, -1: base) to the items. Syscall paths are those that
 * `calls` (either side's) hold. */
static void add_paths(struct item **v, size_t *n, size_t *cap, const struct rn_folded *f, int sign,
		      const struct rn_folded *bcalls, const struct rn_folded *hcalls,
		      const struct rn_folded *other)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->stack[i];
		bool sys = has_stack(bcalls, s) || has_stack(hcalls, s);
		char *key;
		struct item *it;

		if (sys && is_process_wait(s))
			continue;
		key = sys ? rn_xstrdup(s) : drop_leaf_line(s);
		it = push_item(v, n, cap, sys ? ITEM_SYSCALL : ITEM_CPU, key);

		it->delta += sign * (int64_t)f->value[i];
		if (sys && (sign > 0 || !has_stack(other, s))) {
			it->calls = (int64_t)value_of(hcalls, s) - (int64_t)value_of(bcalls, s);
			it->base_calls = (int64_t)value_of(bcalls, s);
		}
		if (!sys && sign > 0 &&
		    !(strlen(key) >= 2 && !strcmp(key + strlen(key) - 2, "+?"))) {
			/* the line of the function that grew most (a module's addresses: none) */
			int64_t g = (int64_t)f->value[i] - (int64_t)value_of(other, s);

			if (!it->where || g > it->best) {
				const char *leaf = strrchr(s, ';');

				free(it->where);
				it->where = rn_xstrdup(leaf ? leaf + 1 : s);
				it->best = g;
			}
		}
		free(key);
	}
}

/* 1 for what only the time of calls that did not grow shows: taken at ptrace stops, that time
 * carries the tracer's scheduling delays (on a loaded 2-vCPU VM a python script's newfstatat
 * read +34 ms over the same 1,818 calls while its +40 ms of CPU work was elsewhere), so it
 * ranks after what CPU samples, added calls or the critical path show; so do idle waits
 * (idle_wait). */
static bool waits_in(const char *name);

/* Whether `it` is a syscall item of a call that waits (waits_in of its leaf frame). */
static bool is_wait(const struct item *it)
{
	const char *leaf = strrchr(it->stack, ';');

	return it->kind == ITEM_SYSCALL && waits_in(leaf ? leaf + 1 : it->stack);
}

/* Whether syscall item `it` is a wait whose calls barely grew (at most a tenth more) while
 * its time did: a thread that waited longer because the run did (node's idle libuv workers:
 * "+1 futex from uv_cond_wait, +1.97 s in the calls" ranked above the +455 ms of CPU in the
 * JavaScript function that grew), the consequence of a slowdown, not its cause. */
static bool idle_wait(const struct item *it)
{
	return it->base_calls > 0 && it->calls * 10 <= it->base_calls && is_wait(it);
}

static int item_tier(const struct item *it)
{
	return it->waits || it->overlaps || (it->kind == ITEM_SYSCALL && it->calls <= 0) ||
		idle_wait(it);
}

/* Whether syscall `name` mostly waits (for a lock, a child, a descriptor, a timer) rather than
 * works: its time at ptrace stops is time off the CPU. Explaining a cpu_time row, such an item
 * ranks with the weak evidence (item_tier): on a loaded VM a zstd run whose input grew 15% had
 * "+3 futex, +36.3 ms in the calls" ranked above its "+26.0 ms on CPU". Waits for a child
 * (wait4, waitid) are no items at all (is_process_wait). */
static bool waits_in(const char *name)
{
	static const char *const waiting[] = { "futex",         "futex_waitv",     "poll",
					       "ppoll",         "select",          "pselect6",
					       "epoll_wait",    "epoll_pwait",     "epoll_pwait2",
					       "nanosleep",     "clock_nanosleep", "pause",
					       "rt_sigsuspend", "rt_sigtimedwait" };

	for (size_t i = 0; i < sizeof(waiting) / sizeof(waiting[0]); i++)
		if (!strcmp(name, waiting[i]))
			return true;
	return false;
}

static int item_cmp(const void *a, const void *b);

/* Mark what is no CPU time in `v`, the waiting syscalls (waits_in) and a child's time on the
 * critical path (wall time: under load a profiled sqlite3 child read +205 ms there while its
 * +24 ms of CPU work ranked below it), and sort again: explaining a cpu_time row. */
static void rank_waits_last(struct item *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i].waits = v[i].kind == ITEM_CP || is_wait(&v[i]);
	if (n)
		qsort(v, n, sizeof(*v), item_cmp);
}

/* Explaining a wall-time row that grew by `growth_ns`: mark the waiting syscalls (waits_in)
 * whose time grew by more than twice that (it->overlaps) and sort again. Waits of several
 * threads at once add up beyond the run's own growth, and a thread that waited while the
 * program's work went on is not where the time went: four idle threads (idle_app.c, waking
 * every 5 ms) read "+99 futex from idler, +495.8 ms in the calls" above "+96.4 ms on CPU in
 * compute", the main thread's work, for a row that grew +100 ms. One thread's wait on the
 * program's way (a lock, a child's pipe) cannot grow more than the run did, give or take
 * the profiled runs' noise: the factor 2. */
static void wait_overlaps(struct item *v, size_t n, int64_t growth_ns)
{
	if (growth_ns <= 0)
		return;
	for (size_t i = 0; i < n; i++)
		v[i].overlaps = v[i].delta > 2 * growth_ns && is_wait(&v[i]);
	if (n)
		qsort(v, n, sizeof(*v), item_cmp);
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	/* growth before shrinkage, then the better evidence first, then the larger */
	if ((x->delta > 0) != (y->delta > 0))
		return x->delta > 0 ? -1 : 1;
	if (x->delta > 0 && item_tier(x) != item_tier(y))
		return item_tier(x) - item_tier(y);
	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

/* "1,234,567" */
static void add_count(struct rn_buf *b, uint64_t v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			rn_buf_addc(b, ',');
		rn_buf_addc(b, digits[i]);
	}
}

static void add_ns(struct rn_buf *b, int64_t ns)
{
	double a = (double)(ns < 0 ? -ns : ns);

	rn_buf_addc(b, ns < 0 ? '-' : '+');
	if (a >= 1e9)
		rn_buf_addf(b, "%.2f s", a / 1e9);
	else if (a >= 1e6)
		rn_buf_addf(b, "%.1f ms", a / 1e6);
	else
		rn_buf_addf(b, "%.1f us", a / 1e3);
}

/* Why an item names no caller: every frame between the process and the leaf is the C
 * runtime's, the loader's or the interpreter's (rn_frame_is_system). */
#define ONLY_SYSTEM "no frame of the program's own (only C runtime, loader or interpreter frames)"

/* The innermost frame of `stack` at or above frame `from` (0: the leaf, 1: its caller) that is
 * the program's own code, not the C runtime's, the loader's or an interpreter's
 * (rn_frame_is_system), owned, or NULL when none (the first frame, the process name, is never
 * one); with `bare`, without its "(file:line)". *system_seen says whether a frame was passed
 * by on the way. */
static char *user_frame(const char *stack, int from, bool bare, bool *system_seen)
{
	const char *end = stack + strlen(stack), *p;
	int depth = 0;

	*system_seen = false;
	while (end > stack) {
		for (p = end; p > stack && p[-1] != ';'; p--)
			;
		if (p == stack)
			return NULL; /* the process name */
		if (depth++ >= from) {
			char *c = rn_xstrndup(p, (size_t)(end - p)), *paren;

			if (!rn_frame_is_system(c)) {
				paren = bare ? strstr(c, " (") : NULL;
				if (paren)
					*paren = '\0';
				return c;
			}
			*system_seen = true;
			free(c);
		}
		end = p - 1;
	}
	return NULL;
}

/* The frame of `stack` just above its leaf, owned, or NULL when that is the process name. */
static char *parent_frame(const char *stack)
{
	const char *leaf = strrchr(stack, ';'), *p;

	if (!leaf)
		return NULL;
	for (p = leaf; p > stack && p[-1] != ';'; p--)
		;
	return p == stack ? NULL : rn_xstrndup(p, (size_t)(leaf - p));
}

static void format_item(struct rn_buf *b, const struct item *it)
{
	const char *leaf = strrchr(it->stack, ';');
	char *caller, *own;
	bool sys;

	leaf = leaf ? leaf + 1 : it->stack;
	switch (it->kind) {
	case ITEM_CPU:
		add_ns(b, it->delta);
		/* a sample in the runtime or the interpreter is the time of the program's
		 * function that called into it */
		own = rn_frame_is_system(leaf) ? user_frame(it->stack, 1, false, &sys) : NULL;
		if (own) {
			rn_buf_addf(b, " on CPU in %s, inside %s", own, leaf);
			free(own);
			break;
		}
		rn_buf_addf(b, " on CPU in %s", it->where ? it->where : leaf);
		if (!it->where && strlen(leaf) >= 2 && !strcmp(leaf + strlen(leaf) - 2, "+?"))
			/* a module's addresses without symbols (drop_leaf_line): say how to get them */
			rn_buf_adds(b, " (stripped: a -dbgsym package or -g names it)");
		caller = user_frame(it->stack, 1, true, &sys);
		if (caller) {
			rn_buf_addf(b, ", from %s", caller);
		} else if (rn_frame_is_system(leaf)) {
			rn_buf_adds(b, ", " ONLY_SYSTEM);
		} else if (sys) {
			/* the function is the program's own; only its callers are not (GCC's
			 * frameless leaf names the C runtime's __libc_start_call_main) */
			free(caller);
			caller = parent_frame(it->stack);
			rn_buf_addf(b, ", from %s", caller);
		}
		free(caller);
		break;
	case ITEM_SYSCALL:
		caller = user_frame(it->stack, 1, false, &sys);
		if (it->calls) {
			rn_buf_addc(b, it->calls < 0 ? '-' : '+');
			add_count(b, (uint64_t)(it->calls < 0 ? -it->calls : it->calls));
			rn_buf_addf(b, " %s", leaf);
		} else {
			rn_buf_addf(b, "%s (same calls)", leaf);
		}
		rn_buf_addf(b, " from %s, ", caller ? caller : sys ? ONLY_SYSTEM : "(no caller)");
		add_ns(b, it->delta);
		if (it->oncpu)
			rn_buf_adds(b, " on CPU in the calls");
		else if (it->waits)
			rn_buf_adds(b, " waiting in the calls (not CPU time)");
		else if (it->overlaps)
			rn_buf_adds(
				b,
				" waiting in the calls (threads at once: more than the run grew)");
		else
			rn_buf_adds(b, " in the calls");
		free(caller);
		break;
	case ITEM_CP:
		rn_buf_addf(b, "child %s ", it->stack);
		add_ns(b, it->delta);
		rn_buf_adds(b,
			    it->waits ? " on the critical path (wall time, not CPU time)" :
					" on the critical path");
		break;
	}
}

/* The items of base `b` against head `h` (with their calls files and, in a baseline, the
 * sides' critical path shares), sorted by rank. */
static struct item *items_of(const struct rn_folded *b, const struct rn_folded *bc,
			     const struct rn_folded *h, const struct rn_folded *hc,
			     const struct side *bs, const struct side *hs, size_t *n)
{
	struct item *v = NULL;
	size_t cap = 0;

	*n = 0;
	add_paths(&v, n, &cap, h, +1, bc, hc, b);
	add_paths(&v, n, &cap, b, -1, bc, hc, h);
	for (size_t i = 0; bs && hs && i < hs->ncp; i++)
		push_item(&v, n, &cap, ITEM_CP, hs->cp[i].comm)->delta +=
			(int64_t)hs->cp[i].time_ns;
	for (size_t i = 0; bs && hs && i < bs->ncp; i++)
		push_item(&v, n, &cap, ITEM_CP, bs->cp[i].comm)->delta -=
			(int64_t)bs->cp[i].time_ns;
	if (*n)
		qsort(v, *n, sizeof(*v), item_cmp);
	return v;
}

static void items_free(struct item *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].stack);
		free(v[i].where);
	}
	free(v);
}

static int item_key_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return strcmp(x->stack, y->stack);
}

/* Count in each item of `v` the pairs of profiled runs in which it grew: run r of the head
 * (`hr`) against run r of the base (`br`), or against the golden profile `gb`/`gbc` when `br`
 * is NULL. */
static void count_held(struct item *v, size_t n, const struct rn_folded *gb,
		       const struct rn_folded *gbc, const struct side *br, const struct side *hr,
		       unsigned nruns, enum side_text which)
{
	struct rn_diag d;

	rn_diag_init(&d, NULL, NULL, 0);
	for (unsigned r = 0; r < nruns; r++) {
		struct rn_folded b, bc, h, hc;
		struct item *pv;
		size_t pn;

		memset(&b, 0, sizeof(b));
		memset(&bc, 0, sizeof(bc));
		memset(&h, 0, sizeof(h));
		memset(&hc, 0, sizeof(hc));
		/* the texts are the profiled runs' own folded lines: well formed */
		if ((br &&
		     (rn_folded_parse(&b, text_of(&br[r], which), "base", &d) ||
		      rn_folded_parse(&bc, br[r].calls, "base calls", &d))) ||
		    rn_folded_parse(&h, text_of(&hr[r], which), "head", &d) ||
		    rn_folded_parse(&hc, hr[r].calls, "head calls", &d)) {
			rn_folded_release(&b);
			rn_folded_release(&bc);
			rn_folded_release(&h);
			continue;
		}
		pv = items_of(br ? &b : gb, br ? &bc : gbc, &h, &hc, br ? &br[r] : NULL, &hr[r],
			      &pn);
		if (pn)
			qsort(pv, pn, sizeof(*pv), item_key_cmp);
		for (size_t i = 0; i < n; i++) {
			const struct item *f;

			if (v[i].delta <= 0)
				continue;
			f = bsearch(&v[i], pv, pn, sizeof(*pv), item_key_cmp);
			if (f && f->delta > 0)
				v[i].held++;
		}
		items_free(pv, pn);
		rn_folded_release(&b);
		rn_folded_release(&bc);
		rn_folded_release(&h);
		rn_folded_release(&hc);
	}
}

/* How many of `nruns` pairs of profiled runs an item must grow in to be ranked: most of them,
 * and never fewer than 2 (one run's noise, a sample or a scheduling delay, is not ranked). */
static unsigned runs_needed(unsigned nruns)
{
	unsigned need = nruns / 2 + 1;

	return need < 2 ? 2 : need;
}

/* Unranked items shown in a report under the ranked ones (the rest are in .explain.txt). */
#define UNRANKED_SHOWN 3

/*
 * The items of growth from base to head (the mean of each side's profiled runs, largest
 * first) that carry at least 0.5% of the growth: those that grew in runs_needed() of the
 * `nruns` pairs of runs (`br`/`hr`: each side's runs, `br` NULL against a golden profile) as
 * "N. text" lines in `out` (at most `top`) and, each with its call path, in `all`; then the
 * others as "not ranked: seen in K of N runs: text" (in `out`, UNRANKED_SHOWN of them).
 * With `cpu_row` (the row explained is a cpu_time row) the calls that wait rank last
 * (rank_waits_last); else, with the row's growth `growth_ns` (0: unknown), the waits that grew
 * beyond twice it rank last too (wait_overlaps). `which`: the view the two paths hold
 * (TEXT_TIME or TEXT_ONCPU), and the runs' texts that count_held reads. Returns the items that
 * grew, *ranked those ranked. -1 when a profile cannot be read (`out` says why).
 */
static long rank(const char *base_path, const char *base_calls, const char *head_path,
		 const char *head_calls, const struct side *bs, const struct side *hs,
		 const struct side *br, const struct side *hr, unsigned nruns, unsigned top,
		 bool cpu_row, int64_t growth_ns, enum side_text which, struct rn_buf *out,
		 struct rn_buf *all, long *ranked)
{
	struct rn_folded b, h, bc, hc;
	struct rn_diag d;
	struct item *v;
	size_t n = 0, shown = 0, listed = 0, unranked = 0;
	uint64_t growth = 0;
	unsigned need = runs_needed(nruns);
	long grew = 0;

	*ranked = 0;
	rn_diag_init(&d, NULL, NULL, 0);
	memset(&bc, 0, sizeof(bc));
	memset(&hc, 0, sizeof(hc));
	if (rn_folded_read(&b, base_path, &d)) {
		rn_buf_addf(out, "  %s\n", d.msg);
		return -1;
	}
	if (rn_folded_read(&h, head_path, &d)) {
		rn_buf_addf(out, "  %s\n", d.msg);
		rn_folded_release(&b);
		return -1;
	}
	/* a golden profile recorded without syscalls has no calls file: no counts on that side */
	if (rn_folded_read(&bc, base_calls, &d))
		memset(&bc, 0, sizeof(bc));
	if (rn_folded_read(&hc, head_calls, &d))
		memset(&hc, 0, sizeof(hc));
	v = items_of(&b, &bc, &h, &hc, bs, hs, &n);
	for (size_t i = 0; i < n; i++)
		v[i].oncpu = which == TEXT_ONCPU && v[i].kind == ITEM_SYSCALL;
	if (cpu_row)
		rank_waits_last(v, n);
	else
		wait_overlaps(v, n, growth_ns);
	count_held(v, n, &b, &bc, br, hr, nruns, which);
	for (size_t i = 0; i < n && v[i].delta > 0; i++)
		growth += (uint64_t)v[i].delta;
	/* reports show what matters: items of at least 0.5% of the growth, numbered as shown */
	for (size_t i = 0; i < n && v[i].delta > 0; i++) {
		grew++;
		if ((uint64_t)v[i].delta * 200 < growth || v[i].held < need)
			continue;
		(*ranked)++;
		rn_buf_addf(all, "%zu. ", ++listed);
		format_item(all, &v[i]);
		rn_buf_addf(all, "\n   %s\n", v[i].stack);
		if (shown < top) {
			rn_buf_addf(out, "  %zu. ", ++shown);
			format_item(out, &v[i]);
			rn_buf_addc(out, '\n');
		}
	}
	/* then what grew in fewer runs: one run's noise, listed, not ranked */
	for (size_t i = 0; i < n && v[i].delta > 0; i++) {
		if ((uint64_t)v[i].delta * 200 < growth || v[i].held >= need)
			continue;
		rn_buf_addf(all, "not ranked: seen in %u of %u runs: ", v[i].held, nruns);
		format_item(all, &v[i]);
		rn_buf_addf(all, "\n   %s\n", v[i].stack);
		if (unranked++ < UNRANKED_SHOWN) {
			rn_buf_addf(out, "  not ranked: seen in %u of %u runs: ", v[i].held, nruns);
			format_item(out, &v[i]);
			rn_buf_addc(out, '\n');
		}
	}
	items_free(v, n);
	rn_folded_release(&b);
	rn_folded_release(&h);
	rn_folded_release(&bc);
	rn_folded_release(&hc);
	return grew;
}

/* ---- the hooks ---------------------------------------------------------------------------- */

/* Whether `v` is a timing row of the baseline (`baseline`) or of a golden trace. */
static bool is_timing_metric(const struct rn_verdict_result *v, bool baseline)
{
	static const char *const metrics[] = { "wall_time", "cpu_time", "critical_path", NULL };
	const char *prefix = baseline ? "baseline:" : "golden:";
	size_t pl = strlen(prefix);

	if (!v->assertion || strncmp(v->assertion, prefix, pl))
		return false;
	for (const char *const *m = metrics; *m; m++)
		if (!strcmp(v->assertion + pl, *m))
			return true;
	return false;
}

static bool is_timing_row(const struct rn_verdict_result *v, bool baseline)
{
	return v->verdict == RN_VERDICT_FAIL && is_timing_metric(v, baseline);
}

/* A golden timing row that did not fail but leans to a slowdown: WARN (inconclusive or
 * advisory) with its estimate (observed: the golden's median plus the shift) beyond the limit
 * (budget: the golden's median plus the limit) and its interval above zero (slower_shown: on
 * a loaded machine an unchanged program's estimate alone strays beyond the limit). Only such
 * rows cost profiled runs. */
static bool is_leaning_row(const struct rn_verdict_result *v)
{
	return v->verdict == RN_VERDICT_WARN && is_timing_metric(v, false) && v->has_observed &&
		v->has_budget && v->observed > v->budget && v->slower_shown;
}

/* `path` relative to the config's folder when it lies under it (as reports name files). */
static const char *shown_path(const struct rn_config *cfg, const char *path)
{
	size_t dl = strlen(cfg->dir);

	return !strncmp(path, cfg->dir, dl) && path[dl] == '/' ? path + dl + 1 : path;
}

static void append_detail(struct rn_verdict_result *v, const char *text)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	if (v->detail && *v->detail) {
		rn_buf_adds(&b, v->detail);
		if (v->detail[strlen(v->detail) - 1] != '\n')
			rn_buf_addc(&b, '\n');
	}
	rn_buf_adds(&b, text);
	while (b.len && b.buf[b.len - 1] == '\n')
		b.buf[--b.len] = '\0';
	free(v->detail);
	v->detail = rn_buf_detach(&b, NULL);
}

/* A side's three profile files (write_side, golden_profile), owned; NULL when not there. */
struct side_files {
	char *folded, *calls, *oncpu;
};

static void side_files_release(struct side_files *f)
{
	free(f->folded);
	free(f->calls);
	free(f->oncpu);
}

/* Write one side's three files into `f` (the paths, owned). 0 or -1. */
static int write_side(const char *dir, const char *target, const char *name, const struct side *s,
		      struct side_files *f)
{
	char suffix[32];

	snprintf(suffix, sizeof(suffix), ".%s.folded", name);
	f->folded = path_of(dir, target, suffix);
	snprintf(suffix, sizeof(suffix), ".%s.calls.folded", name);
	f->calls = path_of(dir, target, suffix);
	snprintf(suffix, sizeof(suffix), ".%s.oncpu.folded", name);
	f->oncpu = path_of(dir, target, suffix);
	return write_text(f->folded, s->folded) || write_text(f->calls, s->calls) ||
			write_text(f->oncpu, s->oncpu) ?
		-1 :
		0;
}

static char *dup_or_null(const char *s)
{
	return s ? rn_xstrdup(s) : NULL;
}

/* The explanation of `tv`'s row `assertion` for the history store (verdict.h): the whole
 * ranked list and the files' paths. */
static void keep_explanation(struct rn_target_report *tv, const char *assertion, const char *text,
			     const char *svg, const char *base_folded, const char *head_folded)
{
	struct rn_explanation *e = rn_xcalloc(1, sizeof(*e));

	e->assertion = rn_xstrdup(assertion);
	e->text = rn_xstrdup(text ? text : "");
	e->svg = dup_or_null(svg);
	e->base_folded = dup_or_null(base_folded);
	e->head_folded = dup_or_null(head_folded);
	tv->explain = e;
}

/* ---- interpreters ------------------------------------------------------------------------- */

/* The file `name` runs: itself when it holds a '/' (relative to `cwd`), else the first in
 * PATH. Owned, or NULL. */
static char *find_program(const char *name, const char *cwd)
{
	const char *path = getenv("PATH");
	struct rn_buf b;

	rn_buf_init(&b, 0);
	if (strchr(name, '/')) {
		if (*name != '/' && cwd)
			rn_buf_addf(&b, "%s/", cwd);
		rn_buf_adds(&b, name);
		return rn_buf_detach(&b, NULL);
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		rn_buf_reset(&b);
		rn_buf_add(&b, p, len);
		rn_buf_addf(&b, "/%s", name);
		if (!access(b.buf, X_OK))
			return rn_buf_detach(&b, NULL);
		p += len + (p[len] == ':');
	}
	rn_buf_release(&b);
	return NULL;
}

/* The interpreter a "#!" line of `file` names ("#!/usr/bin/env python3": python3 in PATH),
 * owned, or NULL when `file` has none. */
static char *shebang_of(const char *file)
{
	char line[256], *p, *word;
	FILE *f = fopen(file, "re");
	bool ok = f && fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2);

	if (f)
		fclose(f);
	if (!ok)
		return NULL;
	p = line + 2 + strspn(line + 2, " \t");
	word = p;
	p += strcspn(p, " \t\r\n");
	if (*p && *p != '\r' && *p != '\n' && p - word >= 4 && !strncmp(p - 4, "/env", 4)) {
		*p++ = '\0';
		word = p + strspn(p, " \t");
		word[strcspn(word, " \t\r\n")] = '\0';
		return *word ? find_program(word, NULL) : NULL;
	}
	*p = '\0';
	return rn_xstrdup(word);
}

/* The minor version of the CPython 3 that `tc` runs (its program, or a script's "#!"
 * interpreter, resolved through its links: /usr/bin/python3 -> python3.11 is 11); -1 when
 * that is not a python3.N (or cannot be told). */
static int python_minor(const struct rn_target_cfg *tc)
{
	char *exe = tc->argv && tc->argv[0] ? find_program(tc->argv[0], tc->cwd) : NULL;
	char *interp = exe ? shebang_of(exe) : NULL, *real;
	const char *base;
	int minor = -1;

	real = realpath(interp ? interp : exe ? exe : "", NULL);
	base = real ? strrchr(real, '/') : NULL;
	if (base && !strncmp(base + 1, "python3.", 8) && base[9] >= '0' && base[9] <= '9')
		minor = (int)strtol(base + 9, NULL, 10);
	free(real);
	free(interp);
	free(exe);
	return minor;
}

/* Whether folded `text` holds frames of CPython's interpreter (libpython, _Py*). */
static bool has_python_frames(const char *text)
{
	return text && (strstr(text, ";_Py") || strstr(text, "[libpython3"));
}

/* Whether folded `text` holds frames of V8, Node.js's JavaScript engine: its embedded builtins
 * enter JavaScript through Builtins_JSEntry. */
static bool has_v8_frames(const char *text)
{
	return text && strstr(text, ";Builtins_JSEntry");
}

/* The note on a Node.js program's functions (interpreter_note) into `note`. */
static void node_note(const struct side *hs, struct rn_buf *note)
{
	if (strstr(hs->folded, " [jit];") || strstr(hs->folded, " [jit] "))
		rn_buf_adds(note,
			    "JavaScript functions named from node's perf map "
			    "(/tmp/perf-PID.map, --perf-basic-prof)");
	else
		rn_buf_adds(note,
			    "interpreter frames only: node names its JavaScript functions with "
			    "--perf-basic-prof in the target's command ([\"node\", "
			    "\"--perf-basic-prof\", \"app.js\"]; --interpreted-frames-native-stack "
			    "names those still interpreted too)");
}

/* When the head's profile runs CPython or Node.js, say in `out` and `all` where its own
 * functions' names come from: Python 3.12's perf trampoline writes /tmp/perf-PID.map when the
 * target's env sets PYTHONPERFSUPPORT=1, node's V8 with --perf-basic-prof, and the profile names
 * the functions from it ("hot (/app/a.py) [jit]": collectors/profile.h); without it, or before
 * Python 3.12, the items name the interpreter's frames only
 * (Builtins_InterpreterEntryTrampoline, _PyEval_EvalFrameDefault). */
static void interpreter_note(const struct rn_target_cfg *tc, const struct side *hs,
			     struct rn_buf *out, struct rn_buf *all)
{
	struct rn_buf note;
	int minor;

	if (has_v8_frames(hs->folded) && !has_python_frames(hs->folded)) {
		rn_buf_init(&note, 0);
		node_note(hs, &note);
		rn_buf_addf(out, "  %s\n", note.buf);
		rn_buf_addf(all, "%s\n", note.buf);
		rn_buf_release(&note);
		return;
	}
	if (!has_python_frames(hs->folded))
		return;
	minor = python_minor(tc);
	/* else the version of the libpython3.N that the frames name */
	if (minor < 0 && strstr(hs->folded, "[libpython3."))
		minor = (int)strtol(strstr(hs->folded, "[libpython3.") + 12, NULL, 10);
	rn_buf_init(&note, 0);
	if (strstr(hs->folded, " [jit];") || strstr(hs->folded, " [jit] "))
		rn_buf_adds(&note,
			    "Python functions named from the interpreter's perf map "
			    "(/tmp/perf-PID.map, PYTHONPERFSUPPORT)");
	else if (minor >= 0 && minor < 12)
		rn_buf_addf(&note,
			    "interpreter frames only: Python < 3.12 cannot name its functions "
			    "(this is Python 3.%d)",
			    minor);
	else if (minor >= 12)
		rn_buf_addf(&note,
			    "interpreter frames only: Python 3.%d names its functions with "
			    "PYTHONPERFSUPPORT=1 in the target's env (env = { PYTHONPERFSUPPORT = "
			    "\"1\" } in renacer.toml)",
			    minor);
	else
		rn_buf_adds(&note,
			    "interpreter frames only: the Python functions are not named "
			    "(Python 3.12+ names them with PYTHONPERFSUPPORT=1 in the target's env; "
			    "older versions cannot)");
	rn_buf_addf(out, "  %s\n", note.buf);
	rn_buf_addf(all, "%s\n", note.buf);
	rn_buf_release(&note);
}

/* The "COMM NS" lines of `text` as the critical path shares of `s`. */
static void side_cp_parse(struct side *s, const char *text)
{
	char comm[256];
	unsigned long long ns;
	int used;

	for (const char *p = text; p && sscanf(p, "%255s %llu%n", comm, &ns, &used) == 2;
	     p += used) {
		s->cp = rn_xrealloc(s->cp, (s->ncp + 1) * sizeof(*s->cp));
		s->cp[s->ncp].comm = rn_xstrdup(comm);
		s->cp[s->ncp++].time_ns = ns;
	}
}

long rn_profile_rank_files(const char *const files[4], const char *const cp[2], bool cpu_row,
			   struct rn_buf *out, struct rn_buf *all)
{
	struct side bs, hs;
	long ranked, grew;

	memset(&bs, 0, sizeof(bs));
	memset(&hs, 0, sizeof(hs));
	if (cp) {
		side_cp_parse(&bs, cp[0]);
		side_cp_parse(&hs, cp[1]);
	}
	grew = rank(files[0], files[1], files[2], files[3], cp ? &bs : NULL, cp ? &hs : NULL, NULL,
		    NULL, 0, 0, cpu_row, 0, TEXT_TIME, out, all, &ranked);
	side_release(&bs);
	side_release(&hs);
	return grew;
}

/* The explanation's header and ranked list in `out` (and `all`, .explain.txt's text) from the
 * profiles' files[] (base, base calls, head, head calls), the sides' means (`bs` NULL against
 * a golden profile) and their runs; `leaning`: the row did not fail (a golden row WARN with its
 * estimate beyond the limit), the header says "why it may be slower"; `cpu_row`: the row is a
 * cpu_time row; `growth_ns`: how much the row grew (0: unknown); `which`: the view files[0]
 * and files[2] hold (rank). Returns what rank() returns. */
static long ranked_list(const struct rn_profile_cfg *pc, const char *const files[4],
			const struct side *bs, const struct side *hs, const struct side *bruns,
			const struct side *hruns, bool leaning, bool cpu_row, int64_t growth_ns,
			enum side_text which, struct rn_buf *out, struct rn_buf *all)
{
	long grew, ranked;

	rn_buf_addf(out,
		    "%s (%s, %u profiled runs%s, %u Hz; ranked: grew in %u of "
		    "them or more%s):\n",
		    leaning ? "why it may be slower (the row did not fail)" : "where the time went",
		    bs ? "head against base" : "head against the golden profile", pc->runs,
		    bs ? " a side" : " of the head", pc->frequency_hz, runs_needed(pc->runs),
		    !pc->syscalls ? "" :
			    which == TEXT_ONCPU ?
				    "; a syscall's time: the thread's CPU time in the call" :
				    "; syscall time taken at ptrace stops");
	grew = rank(files[0], files[1], files[2], files[3], bs, hs, bruns, hruns, pc->runs, pc->top,
		    cpu_row, growth_ns, which, out, all, &ranked);
	if (grew == 0)
		rn_buf_adds(out, "  no call path grew in the profiled runs\n");
	else if (grew > 0 && ranked == 0)
		rn_buf_addf(out, "  no call path grew in %u of the profiled runs\n",
			    runs_needed(pc->runs));
	return grew;
}

/* Add the line on where the samples inside the spans of `sel` went in the head's profiled
 * runs[pc->runs] (rn_explain_inside) to `out` and `all`. */
static void inside_lines(const struct rn_profile_cfg *pc, const struct span_sel *sel,
			 const struct side *runs, struct rn_buf *out, struct rn_buf *all)
{
	struct rn_folded f;
	struct rn_diag d;
	struct rn_buf text, line;
	uint64_t untimed = 0;

	rn_buf_init(&text, 0);
	rn_buf_init(&line, 0);
	for (unsigned r = 0; r < pc->runs; r++)
		rn_buf_adds(&text, runs[r].inside ? runs[r].inside : "");
	rn_diag_init(&d, NULL, NULL, 0);
	if (rn_buf_failed(&text) || rn_folded_parse(&f, text.buf ? text.buf : "", "inside", &d)) {
		rn_buf_release(&text);
		rn_buf_release(&line);
		return;
	}
	rn_explain_inside(&line, sel->label, pc->runs, &f, 3);
	for (unsigned r = 0; r < pc->runs; r++)
		untimed += runs[r].untimed;
	if (untimed)
		rn_buf_addf(&line,
			    "  (%" PRIu64 " samples past the first %u of a run kept no time and "
			    "are in no span)\n",
			    untimed, RN_PROFILE_TIMED_MAX);
	rn_buf_addf(out, "%s", line.buf);
	rn_buf_addf(all, "%s", line.buf);
	rn_folded_release(&f);
	rn_buf_release(&text);
	rn_buf_release(&line);
}

/* The golden rows of one app span, on its duration and on its CPU time:
 * "golden:span_time:app:NAME", "golden:span_cpu:app:NAME". */
static const char *const golden_span_rows[] = { "golden:span_time:", "golden:span_cpu:", NULL };

/* The app span ("app:NAME") a golden span row named `assertion` is about, or NULL. */
static const char *golden_span_of(const char *assertion)
{
	for (const char *const *p = golden_span_rows; *p; p++) {
		size_t n = strlen(*p);

		if (!strncmp(assertion, *p, n) && !strncmp(assertion + n, "app:", 4) &&
		    assertion[n + 4])
			return assertion + n;
	}
	return NULL;
}

/* Whether `v` is a failed row on the time of app spans: a span_time assertion's, or a golden
 * trace's of one app span. */
static bool is_span_row(const struct rn_verdict_result *v)
{
	return v->verdict == RN_VERDICT_FAIL && v->assertion &&
		((v->type && !strcmp(v->type, "span_time")) || golden_span_of(v->assertion));
}

/* The spans row `v` (is_span_row) is about, into *sel: false when `v` is not such a row or its
 * assertion selects no app span by name. */
static bool span_sel_of(const struct rn_config *cfg, const struct rn_verdict_result *v,
			struct span_sel *sel)
{
	memset(sel, 0, sizeof(*sel));
	if (!is_span_row(v))
		return false;
	if (golden_span_of(v->assertion)) {
		sel->label = sel->name = golden_span_of(v->assertion);
		return true;
	}
	for (size_t i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		if (!strcmp(a->name, v->assertion) && a->span_re && a->span_name_pattern) {
			sel->label = a->span_name_pattern;
			sel->re = a->span_re;
			return true;
		}
	}
	return false;
}

/* The spans the explanation of `row` looks inside, into *sel: those of `row` when it is a span
 * row, else those of the target's first failed span row (a slowdown inside a span fails
 * golden:cpu_time too, which is explained first: the span's row still names where to look).
 * False when no failed row selects an app span. */
static bool inside_sel_of(const struct rn_config *cfg, const struct rn_target_report *tv,
			  const struct rn_verdict_result *row, struct span_sel *sel)
{
	if (span_sel_of(cfg, row, sel))
		return true;
	for (size_t i = 0; i < tv->nverdicts; i++)
		if (span_sel_of(cfg, &tv->verdicts[i], sel))
			return true;
	return false;
}

/* The row of `tv` to explain: its first failed timing row (of the baseline with `baseline`, or
 * of a golden trace); else its first failed row on app span time (is_span_row); else its first
 * golden timing row whose evidence leans to a slowdown; else NULL. */
static struct rn_verdict_result *row_to_explain(struct rn_target_report *tv, bool baseline)
{
	for (size_t i = 0; i < tv->nverdicts; i++)
		if (is_timing_row(&tv->verdicts[i], baseline) ||
		    is_timing_row(&tv->verdicts[i], false))
			return &tv->verdicts[i];
	for (size_t i = 0; i < tv->nverdicts; i++)
		if (is_span_row(&tv->verdicts[i]))
			return &tv->verdicts[i];
	for (size_t i = 0; i < tv->nverdicts; i++)
		if (is_leaning_row(&tv->verdicts[i]))
			return &tv->verdicts[i];
	return NULL;
}

/* The golden profile's three files of `head` into `f` (the paths, owned; the on-CPU view's is
 * missing in a profile recorded before it existed). 0; or when the profile does not exist, a
 * line saying so in `out` and: 1 for a span row (`spans`: the samples inside the span need no
 * golden profile; the paths NULL), else -1. */
static int golden_profile(const struct rn_config *cfg, const struct rn_target_cfg *head, bool spans,
			  struct side_files *f, struct rn_buf *out)
{
	f->folded = path_of(cfg->golden_dir, head->name, ".folded");
	f->calls = path_of(cfg->golden_dir, head->name, ".calls.folded");
	f->oncpu = path_of(cfg->golden_dir, head->name, ".oncpu.folded");
	if (!access(f->folded, R_OK))
		return 0;
	rn_buf_addf(out,
		    "no golden profile to explain it with: %s does not exist "
		    "(`renacer golden update` records it when renacer.toml has a "
		    "[profile] table)\n",
		    shown_path(cfg, f->folded));
	if (!spans)
		return -1;
	side_files_release(f);
	memset(f, 0, sizeof(*f));
	return 1;
}

/* How much timing row `v` grew, ns: its observed value less its reference (the base's median,
 * the golden's), both in ms; 0 when it did not grow or does not say. */
static int64_t row_growth_ns(const struct rn_verdict_result *v)
{
	if (!v->has_observed || !v->has_golden || !v->unit || strcmp(v->unit, "ms") ||
	    v->observed <= v->golden)
		return 0;
	return (int64_t)((v->observed - v->golden) * 1e6);
}

/*
 * After the profiled runs of `head` for `row`: its ranked list (the base's files `b` or the
 * golden profile's against the head's `h`, with `bs` the base side's mean or NULL, and the
 * sides' runs) into `out` and `all`, the flame graph, `.explain.txt` and the explanation kept
 * in `tv`. A cpu_time row is explained by the time on CPU where the base side has it: a
 * syscall's wait is no CPU time (a pipe write that waited for its slower reader is not where
 * the reader's CPU went). `nodiff`: nothing to compare with (a span row without a golden
 * profile), only `all` is kept.
 */
static void rank_and_keep(const struct rn_config *cfg, const struct rn_target_cfg *head,
			  struct rn_target_report *tv, const struct rn_verdict_result *row,
			  const struct side_files *b, const struct side_files *h,
			  const struct side *bs, const struct side *hs, const struct side *bruns,
			  const struct side *hruns, bool nodiff, struct rn_buf *out,
			  struct rn_buf *all)
{
	const struct rn_profile_cfg *pc = &cfg->profile;
	bool cpu_row = strstr(row->assertion, "cpu_time") != NULL;
	enum side_text which = cpu_row && pc->syscalls && b->oncpu && !access(b->oncpu, R_OK) ?
		TEXT_ONCPU :
		TEXT_TIME;
	const char *bp = which == TEXT_ONCPU ? b->oncpu : b->folded;
	const char *hp = which == TEXT_ONCPU ? h->oncpu : h->folded;
	char *svg = path_of(pc->dir, head->name, ".diff.svg");
	char *txt = path_of(pc->dir, head->name, ".explain.txt");
	long grew = -1;
	bool drawn;

	if (!nodiff) {
		const char *files[4] = { bp, b->calls, hp, h->calls };

		grew = ranked_list(pc, files, bs, hs, bruns, hruns, row->verdict != RN_VERDICT_FAIL,
				   cpu_row, row_growth_ns(row), which, out, all);
	}
	interpreter_note(head, hs, out, all);
	drawn = !nodiff && grew >= 0 && !write_svg(svg, bp, hp, head->name);
	if (drawn)
		rn_buf_addf(out, "  flame graph: %s (profiles: %s/%s.*.folded)\n",
			    shown_path(cfg, svg), shown_path(cfg, pc->dir), head->name);
	if (grew >= 0 || nodiff) {
		write_text(txt, all->buf);
		keep_explanation(tv, row->assertion, all->buf, drawn ? svg : NULL, bp, hp);
	}
	free(svg);
	free(txt);
}

void rn_profile_check_explain(const struct rn_config *cfg, const struct rn_target_cfg *head,
			      const struct rn_target_cfg *base, struct rn_target_report *tv,
			      bool quiet)
{
	const struct rn_profile_cfg *pc = &cfg->profile;
	struct rn_verdict_result *row;
	struct side bs, hs, *bruns = NULL, *hruns = NULL;
	struct side_files bfiles = { NULL, NULL, NULL }, hfiles = { NULL, NULL, NULL };
	struct rn_buf out, all;
	char *error = NULL;
	bool golden, leaning, spans, inside, nodiff = false;
	struct span_sel sel;
	int rc;

	if (!pc->dir || !(head->profile >= 0 ? head->profile : pc->on_failure))
		return;
	row = row_to_explain(tv, base != NULL);
	if (!row)
		return;
	leaning = row->verdict != RN_VERDICT_FAIL;
	spans = span_sel_of(cfg, row, &sel);
	inside = spans || inside_sel_of(cfg, tv, row, &sel);
	golden = !base || strncmp(row->assertion, "baseline:", 9);
	memset(&bs, 0, sizeof(bs));
	memset(&hs, 0, sizeof(hs));
	rn_buf_init(&out, 0);
	rn_buf_init(&all, 0);
	if (golden) {
		rc = golden_profile(cfg, head, spans, &bfiles, &out);
		if (rc < 0)
			goto out_detail;
		nodiff = rc > 0;
	}
	rc = make_dirs(pc->dir);
	if (rc) {
		rn_buf_addf(&out, "no explanation: cannot create '%s': %s\n",
			    shown_path(cfg, pc->dir), strerror(-rc));
		goto out_detail;
	}
	if (!quiet)
		fprintf(stderr,
			"renacer check: %s %s: profiling %u more %s at %u Hz to explain it\n",
			row->assertion, leaning ? "leans to a slowdown" : "failed", pc->runs,
			golden ? "head runs" : "base and head runs", pc->frequency_hz);
	bruns = golden ? NULL : rn_xcalloc(pc->runs, sizeof(*bruns));
	hruns = rn_xcalloc(pc->runs, sizeof(*hruns));
	if (profile_runs(pc, golden ? NULL : base, head, inside ? &sel : NULL, bruns, hruns,
			 &error)) {
		rn_buf_addf(&out, "no explanation: %s\n", error);
		goto out_detail;
	}
	if (!golden)
		mean_side(bruns, pc->runs, pc->max_stacks, &bs);
	mean_side(hruns, pc->runs, pc->max_stacks, &hs);
	if ((!golden && write_side(pc->dir, head->name, "base", &bs, &bfiles)) ||
	    write_side(pc->dir, head->name, "head", &hs, &hfiles)) {
		rn_buf_addf(&out, "no explanation: the profiles cannot be written to %s\n",
			    shown_path(cfg, pc->dir));
		goto out_detail;
	}
	if (inside)
		inside_lines(pc, &sel, hruns, &out, &all);
	rank_and_keep(cfg, head, tv, row, &bfiles, &hfiles, golden ? NULL : &bs, &hs, bruns, hruns,
		      nodiff, &out, &all);
out_detail:
	append_detail(row, out.buf);
	rn_buf_release(&out);
	rn_buf_release(&all);
	side_release(&bs);
	side_release(&hs);
	runs_release(bruns, pc->runs);
	runs_release(hruns, pc->runs);
	free(error);
	side_files_release(&bfiles);
	side_files_release(&hfiles);
}

int rn_profile_check_record_golden(const struct rn_config *cfg, const struct rn_target_cfg *tc,
				   bool quiet)
{
	const struct rn_profile_cfg *pc = &cfg->profile;
	struct side s, *runs;
	char *f, *c, *o, *error;
	int rc = 0;

	if (!pc->golden)
		return 0;
	if (!quiet)
		fprintf(stderr, "renacer golden: profiling %u runs of '%s' at %u Hz\n", pc->runs,
			tc->name, pc->frequency_hz);
	runs = rn_xcalloc(pc->runs, sizeof(*runs));
	if (profile_runs(pc, NULL, tc, NULL, NULL, runs, &error)) {
		rn_error("target '%s': %s; golden profile not written", tc->name, error);
		free(error);
		runs_release(runs, pc->runs);
		return RN_EXIT_TARGET;
	}
	/* the golden side's profile is the mean of its runs, as a check's head side is */
	mean_side(runs, pc->runs, pc->max_stacks, &s);
	runs_release(runs, pc->runs);
	f = path_of(cfg->golden_dir, tc->name, ".folded");
	c = path_of(cfg->golden_dir, tc->name, ".calls.folded");
	o = path_of(cfg->golden_dir, tc->name, ".oncpu.folded");
	if (write_text(f, s.folded) || write_text(c, s.calls) || write_text(o, s.oncpu))
		rc = RN_EXIT_OUTPUT;
	free(f);
	free(c);
	free(o);
	side_release(&s);
	return rc;
}

/* `to` (absolute) relative to the folder `from` (absolute), owned. */
static char *relative_path(const char *from, const char *to)
{
	size_t common = 0, i;
	struct rn_buf b;

	for (i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i + 1;
	if (!from[i] && (to[i] == '/' || !to[i]))
		common = i + (to[i] == '/');
	rn_buf_init(&b, 0);
	for (i = common; from[i]; i++)
		if (from[i] == '/' || i == common)
			rn_buf_adds(&b, "../");
	rn_buf_adds(&b, to + common);
	return rn_buf_detach(&b, NULL);
}

/* Each explanation's svg of `list` relative to `page_dir`, or "" when there is no folder. */
static void relative_svgs(json_t *list, const char *page_dir)
{
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
	{
		const char *svg = json_string_value(json_object_get(e, "svg"));
		char *rel;

		if (!svg || !*svg)
			continue;
		rel = page_dir && *svg == '/' ? relative_path(page_dir, svg) : rn_xstrdup("");
		json_object_set_new(e, "svg", json_string(rel));
		free(rel);
	}
}

void rn_profile_check_page(json_t *model, const char *page)
{
	char *dir = rn_xstrdup(page), *slash = strrchr(dir, '/'), *page_dir;
	const char *run;
	json_t *list;

	if (slash)
		*slash = '\0';
	page_dir = realpath(slash ? (*dir ? dir : "/") : ".", NULL);
	relative_svgs(json_object_get(model, "explain"), page_dir);
	json_object_foreach(json_object_get(model, "run_explain"), run, list)
		relative_svgs(list, page_dir);
	free(page_dir);
	free(dir);
}
