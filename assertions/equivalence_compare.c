/*
 * equivalence_compare.c - a finished behaviour (processes given roles, facts given subjects,
 * sorted) and the comparison of two behaviours into differences (internal.h).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "assertion.h"
#include "buf.h"
#include "log.h"
#include "xalloc.h"

/* ---- finishing: roles, then facts with subjects ------------------------------------------- */

/* A process's own step of a role: the program it became, or "fork" (cut to 64 bytes). */
static void role_step(struct rn_buf *r, const struct rn_equiv_proc *p)
{
	const char *base;

	if (p->execs && p->exe) {
		base = strrchr(p->exe, '/');
		rn_buf_addf(r, "/%.64s", base ? base + 1 : p->exe);
	} else {
		rn_buf_adds(r, "/fork");
	}
}

/*
 * Every process's role: its top ancestor ("root", or "orphan" for a process whose parent is
 * unknown) and the steps down to it, "root/sh/make/fork". Depths are found without recursion
 * and a cycle of parents (a forged trace) is cut where the walk meets itself. A role keeps
 * the last RN_EQUIV_ROLE_STEPS steps and says how many it skipped ("root/+15968/sh/fork"), so
 * memory is linear in the processes even for a chain 16,000 deep (every full role of such a
 * chain took 2 GB).
 */
static void assign_roles(struct rn_equiv_behaviour *b)
{
	size_t n = b->nprocs, i;
	int *stack = rn_xcalloc(n + 1, sizeof(*stack)),
	    *parent = rn_xcalloc(n + 1, sizeof(*parent));

	for (i = 0; i < n; i++) {
		parent[i] = i == 0 ? -1 : b->procs[i].parent;
		b->procs[i].depth = -1;
	}
	for (i = 0; i < n; i++) {
		size_t sp = 0;
		int j = (int)i;

		while (j >= 0 && b->procs[j].depth == -1) {
			b->procs[j].depth = -2;
			stack[sp++] = j;
			j = parent[j];
		}
		if (j >= 0 && b->procs[j].depth == -2)
			parent[stack[sp - 1]] = -1; /* a cycle: its last link is cut */
		while (sp--) {
			struct rn_equiv_proc *p = &b->procs[stack[sp]];
			int up = parent[stack[sp]];

			p->depth = up < 0 ? 0 : b->procs[up].depth + 1;
			p->top = up < 0 ? stack[sp] : b->procs[up].top;
		}
	}
	for (i = 0; i < n; i++) {
		struct rn_equiv_proc *p = &b->procs[i];
		struct rn_buf r;
		int k = 0, steps = p->depth < RN_EQUIV_ROLE_STEPS ? p->depth : RN_EQUIV_ROLE_STEPS;
		int j = (int)i;

		rn_buf_init(&r, 0);
		rn_buf_adds(&r, p->top == 0 ? "root" : "orphan");
		if (p->depth > steps)
			rn_buf_addf(&r, "/+%d", p->depth - steps);
		/* the last `steps` steps, found from the bottom, written from the top */
		for (k = 0; k < steps; k++) {
			stack[k] = j;
			j = parent[j];
		}
		while (k--)
			role_step(&r, &b->procs[stack[k]]);
		free(p->role);
		p->role = rn_buf_detach(&r, NULL);
	}
	free(stack);
	free(parent);
}

static void finish(struct rn_equiv_behaviour *b)
{
	size_t i, j;

	if (b->finished)
		return;
	/* a process whose parent was only learnt from the final table */
	for (i = 0; i < b->nprocs; i++)
		if (b->procs[i].parent < 0 && b->procs[i].ppid > 0)
			b->procs[i].parent = rn_equiv_proc_find(b, b->procs[i].ppid);
	for (i = 0; i < b->nprocs; i++) {
		struct rn_equiv_proc *p = &b->procs[i];
		char v[64];

		rn_equiv_add_fact(b, RN_EQUIV_PROCESS, (int)i, NULL, "");
		switch (p->end) {
		case RN_PROC_EXITED:
			snprintf(v, sizeof(v), "exit %d", p->exit_code);
			break;
		case RN_PROC_SIGNALED:
			snprintf(v, sizeof(v), "signal %s", rn_signal_name(p->term_signal));
			break;
		case RN_PROC_LOST:
			snprintf(v, sizeof(v), "lost");
			break;
		default:
			v[0] = '\0';
		}
		if (v[0])
			rn_equiv_add_fact(b, RN_EQUIV_EXIT, (int)i, NULL, v);
		for (j = 0; j < p->nfiles; j++) {
			struct rn_equiv_file *f = &p->files[j];

			if (f->ignored)
				continue;
			rn_equiv_seq_flush(f);
			if (f->written)
				rn_equiv_add_fact(b, RN_EQUIV_WRITE, (int)i, NULL, f->path);
			if (f->seq.len) {
				rn_equiv_add_fact(b, RN_EQUIV_IO, (int)i, NULL, f->seq.buf);
				b->facts[b->nfacts - 1].subject = rn_xstrdup(f->path);
			}
		}
	}
	assign_roles(b);
	for (i = 0; i < b->nfacts; i++) {
		struct rn_equiv_fact *f = &b->facts[i];
		const char *role = f->proc >= 0 ? b->procs[f->proc].role : "?";
		char *file = f->subject;
		struct rn_buf s;

		rn_buf_init(&s, 0);
		rn_buf_adds(&s, role);
		if (file)
			rn_buf_addf(&s, " %s", file);
		free(file);
		f->subject = rn_buf_detach(&s, NULL);
	}
	b->finished = true;
}

static int fact_cmp(const void *pa, const void *pb)
{
	const struct rn_equiv_fact *a = pa, *b = pb;
	int c;

	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	c = strcmp(a->subject, b->subject);
	return c ? c : strcmp(a->value, b->value);
}

/* Sort, and collapse duplicates of set categories. */
static void facts_sort(struct rn_equiv_behaviour *b)
{
	size_t i, o = 0;

	if (b->nfacts < 2) /* a trace without processes has no facts (qsort of NULL) */
		return;
	qsort(b->facts, b->nfacts, sizeof(*b->facts), fact_cmp);
	for (i = 0; i < b->nfacts; i++) {
		if (o && rn_equiv_cats[b->facts[i].cat].is_set &&
		    !fact_cmp(&b->facts[o - 1], &b->facts[i])) {
			free(b->facts[i].subject);
			free(b->facts[i].value);
			continue;
		}
		b->facts[o++] = b->facts[i];
	}
	b->nfacts = o;
}

size_t rn_equiv_behaviour_nfacts(struct rn_equiv_behaviour *b)
{
	if (!b->finished) {
		finish(b);
		facts_sort(b);
	}
	return b->nfacts;
}

/* ---- comparison ---------------------------------------------------------------------------- */

static void add_diff(struct rn_equiv_result *r, size_t *cap, enum rn_equiv_cat cat,
		     const char *subject, char *text)
{
	if (r->ndiffs == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		r->diffs = rn_xrealloc(r->diffs, *cap * sizeof(*r->diffs));
	}
	r->diffs[r->ndiffs].cat = cat;
	r->diffs[r->ndiffs].subject = rn_xstrdup(subject);
	r->diffs[r->ndiffs].text = text;
	r->ndiffs++;
	if (rn_equiv_cats[cat].strict)
		r->nstrict++;
}

/* "op #N: A 'x' vs B 'y'" for two I/O sequences ("a; b; c"). */
static char *seq_divergence(const char *a, const char *b)
{
	struct rn_buf t;
	size_t k = 1;

	rn_buf_init(&t, 0);
	for (;;) {
		const char *ea = strstr(a, "; "), *eb = strstr(b, "; ");
		size_t la = ea ? (size_t)(ea - a) : strlen(a),
		       lb = eb ? (size_t)(eb - b) : strlen(b);

		if (la != lb || strncmp(a, b, la)) {
			rn_buf_addf(&t, "first divergence at op #%zu: A %s%.*s%s, B %s%.*s%s", k,
				    la ? "'" : "", la ? (int)la : 5, la ? a : "(end)",
				    la ? "'" : "", lb ? "'" : "", lb ? (int)lb : 5,
				    lb ? b : "(end)", lb ? "'" : "");
			break;
		}
		if (!ea || !eb)
			break;
		a = ea + 2;
		b = eb + 2;
		k++;
	}
	return rn_buf_detach(&t, NULL);
}

static char *side_text(const char *side, const struct rn_equiv_fact *f)
{
	struct rn_buf t;

	rn_buf_init(&t, 0);
	if (f->value[0])
		rn_buf_addf(&t, "only in %s: %s", side, f->value);
	else
		rn_buf_addf(&t, "only in %s", side);
	return rn_buf_detach(&t, NULL);
}

/* Compare one (cat, subject) group: facts a[0..na) and b[0..nb), both sorted by value. */
static size_t compare_group(struct rn_equiv_result *r, size_t *cap, const struct rn_equiv_fact *a,
			    size_t na, const struct rn_equiv_fact *b, size_t nb)
{
	size_t i = 0, j = 0, matched = 0;
	const struct rn_equiv_fact *any = na ? a : b;

	if (any->cat == RN_EQUIV_IO && na == 1 && nb == 1 && strcmp(a->value, b->value)) {
		add_diff(r, cap, RN_EQUIV_IO, any->subject, seq_divergence(a->value, b->value));
		return 0;
	}
	if (any->cat == RN_EQUIV_PROCESS && na != nb) {
		struct rn_buf t;

		rn_buf_init(&t, 0);
		if (!na || !nb)
			rn_buf_addf(&t, "only in %s (%zu process%s)", na ? "A" : "B", na + nb,
				    na + nb == 1 ? "" : "es");
		else
			rn_buf_addf(&t, "%zu process%s in A, %zu in B", na, na == 1 ? "" : "es",
				    nb);
		add_diff(r, cap, RN_EQUIV_PROCESS, any->subject, rn_buf_detach(&t, NULL));
		return na < nb ? na : nb;
	}
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].value, b[j].value);

		if (!c) {
			matched++;
			i++;
			j++;
		} else if (c < 0) {
			add_diff(r, cap, a[i].cat, a[i].subject, side_text("A", &a[i]));
			i++;
		} else {
			add_diff(r, cap, b[j].cat, b[j].subject, side_text("B", &b[j]));
			j++;
		}
	}
	return matched;
}

static int group_cmp(const struct rn_equiv_fact *x, const struct rn_equiv_fact *y)
{
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	return strcmp(x->subject, y->subject);
}

static size_t group_end(const struct rn_equiv_fact *v, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && !group_cmp(&v[i], &v[j]))
		j++;
	return j;
}

void rn_equiv_behaviour_compare(struct rn_equiv_behaviour *a, struct rn_equiv_behaviour *b,
				const struct rn_equiv_opts *o, struct rn_equiv_result *r)
{
	size_t i = 0, j = 0, cap = 0, matched = 0;
	size_t na = rn_equiv_behaviour_nfacts(a), nb = rn_equiv_behaviour_nfacts(b);

	/* a side recorded without argv: compare programs by name only */
	if (a->argv_missing != b->argv_missing) {
		struct rn_equiv_behaviour *sides[2] = { a, b };
		int k;

		for (k = 0; k < 2; k++) {
			for (i = 0; i < sides[k]->nfacts; i++) {
				char *sp = strchr(sides[k]->facts[i].value, ' ');

				if (sides[k]->facts[i].cat == RN_EQUIV_EXEC && sp)
					*sp = '\0';
			}
			facts_sort(sides[k]);
			sides[k]->argv_missing = true;
		}
		na = a->nfacts;
		nb = b->nfacts;
		i = 0;
	}
	memset(r, 0, sizeof(*r));
	r->facts_a = na;
	r->facts_b = nb;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : group_cmp(&a->facts[i], &b->facts[j]);
		size_t ie = i < na ? group_end(a->facts, na, i) : i;
		size_t je = j < nb ? group_end(b->facts, nb, j) : j;

		if (!c) {
			matched +=
				compare_group(r, &cap, a->facts + i, ie - i, b->facts + j, je - j);
			i = ie;
			j = je;
		} else if (c < 0) {
			matched += compare_group(r, &cap, a->facts + i, ie - i, NULL, 0);
			i = ie;
		} else {
			matched += compare_group(r, &cap, NULL, 0, b->facts + j, je - j);
			j = je;
		}
	}
	r->similarity = na + nb ? 2.0 * (double)matched / (double)(na + nb) : 1.0;
	r->equivalent = !r->nstrict && (r->ndiffs == 0 || r->similarity >= o->min_confidence) &&
		(o->min_confidence < 1.0 || r->ndiffs == 0);
}

void rn_equiv_result_release(struct rn_equiv_result *r)
{
	size_t i;

	for (i = 0; i < r->ndiffs; i++) {
		free(r->diffs[i].subject);
		free(r->diffs[i].text);
	}
	free(r->diffs);
	memset(r, 0, sizeof(*r));
}

void rn_equiv_result_write(const struct rn_equiv_result *r, FILE *out, size_t max_lines)
{
	size_t i;

	if (!r->ndiffs) {
		fprintf(out, "equivalent: all %zu facts match\n", r->facts_a);
		return;
	}
	fprintf(out, "%s: %zu difference%s (similarity %.3f); first: %s %s: %s\n",
		r->equivalent ? "equivalent within min_confidence" : "not equivalent", r->ndiffs,
		r->ndiffs == 1 ? "" : "s", r->similarity, rn_equiv_cat_name(r->diffs[0].cat),
		r->diffs[0].subject, r->diffs[0].text);
	for (i = 0; i < r->ndiffs && (!max_lines || i < max_lines); i++)
		fprintf(out, "  %-7s %s: %s\n", rn_equiv_cat_name(r->diffs[i].cat),
			r->diffs[i].subject, r->diffs[i].text);
	if (i < r->ndiffs)
		fprintf(out, "  ... and %zu more\n", r->ndiffs - i);
}
