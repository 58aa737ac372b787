/*
 * explain.c - ranked differences of two folded-stack profiles (explain.h).
 */
#include "explain.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "sat.h"
#include "symbolize.h"
#include "xalloc.h"

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rn_folded_read(struct rn_folded *f, const char *path, struct rn_diag *diag)
{
	struct rn_buf b;
	int rc;

	memset(f, 0, sizeof(*f));
	rn_buf_init(&b, (size_t)1 << 30);
	rc = rn_buf_read_file(&b, path);
	if (rc) {
		rn_buf_release(&b);
		return rn_diag_set(diag, 0, 0, "cannot read '%s': %s", path, strerror(-rc));
	}
	rc = rn_folded_parse(f, b.buf ? b.buf : "", path, diag);
	rn_buf_release(&b);
	return rc;
}

int rn_folded_parse(struct rn_folded *f, const char *text, const char *name, struct rn_diag *diag)
{
	struct rn_buf b;
	char **lines = NULL, *p, *save;
	const char *path = name;
	size_t nlines = 0, cap = 0;
	int lineno = 0;

	memset(f, 0, sizeof(*f));
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, text);
	/* split into lines, check each, then sort and merge equal paths */
	for (p = b.buf; p && *p; p = save) {
		char *nl = strchr(p, '\n'), *sp, *end;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		if (nl && nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		if (!*p)
			continue;
		sp = strrchr(p, ' ');
		if (sp && sp != p && sp[1] >= '0' && sp[1] <= '9') {
			errno = 0;
			strtoull(sp + 1, &end, 10);
		}
		if (!sp || sp == p || !(sp[1] >= '0' && sp[1] <= '9') || *end || errno) {
			for (size_t i = 0; i < nlines; i++)
				free(lines[i]);
			free(lines);
			rn_buf_release(&b);
			return rn_diag_set(
				diag, lineno, sp ? (int)(sp - p) + 2 : 1,
				"'%s' line %d is not folded stacks (\"frame;frame VALUE\")", path,
				lineno);
		}
		lines = rn_xgrow(lines, &cap, nlines + 1, sizeof(*lines));
		lines[nlines++] = rn_xstrdup(p);
	}
	rn_buf_release(&b);
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), str_cmp);
	f->stack = rn_xcalloc(nlines + 1, sizeof(*f->stack));
	f->value = rn_xcalloc(nlines + 1, sizeof(*f->value));
	for (size_t i = 0; i < nlines; i++) {
		char *sp = strrchr(lines[i], ' ');
		uint64_t v = strtoull(sp + 1, NULL, 10);

		*sp = '\0';
		f->total = rn_sat_add_u64(f->total, v);
		if (f->n && !strcmp(f->stack[f->n - 1], lines[i])) {
			f->value[f->n - 1] = rn_sat_add_u64(f->value[f->n - 1], v);
			free(lines[i]);
			continue;
		}
		f->stack[f->n] = lines[i];
		f->value[f->n++] = v;
	}
	free(lines);
	return 0;
}

void rn_folded_release(struct rn_folded *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->stack[i]);
	free(f->stack);
	free(f->value);
	memset(f, 0, sizeof(*f));
}

static void add_item(struct rn_explain_item **v, size_t *n, size_t *cap, const char *stack,
		     uint64_t base, uint64_t head)
{
	struct rn_explain_item *it;
	const char *leaf = strrchr(stack, ';');

	if (base == head)
		return;
	*v = rn_xgrow(*v, cap, *n + 1, sizeof(**v));
	it = &(*v)[(*n)++];
	it->stack = rn_xstrdup(stack);
	it->leaf = rn_xstrdup(leaf ? leaf + 1 : stack);
	it->caller = NULL;
	it->only_system = false;
	/* the innermost caller in the program's own code: frames of the C runtime, the loader
	 * and the interpreter are passed by; the first frame is the process, never a caller */
	while (leaf) {
		const char *prev = leaf;
		char *frame;

		while (prev > stack && prev[-1] != ';')
			prev--;
		if (prev == stack)
			break;
		frame = rn_xstrndup(prev, (size_t)(leaf - prev));
		if (!rn_frame_is_system(frame)) {
			it->caller = frame;
			break;
		}
		free(frame);
		it->only_system = true;
		leaf = prev - 1;
	}
	if (it->caller)
		it->only_system = false;
	/* a leaf with a source location ("hot_parse (app.c:19)") is the program's own function,
	 * called from runtime frames only (GCC's frameless leaf under __libc_start_call_main):
	 * its caller is that frame, not "no frame of the program's own" */
	if (it->only_system && strstr(it->leaf, " (") && !rn_frame_is_system(it->leaf)) {
		const char *end = strrchr(stack, ';'), *p = end;

		while (p > stack && p[-1] != ';')
			p--;
		it->caller = rn_xstrndup(p, (size_t)(end - p));
		it->only_system = false;
	}
	it->base = base;
	it->head = head;
	it->delta = rn_sat_diff_u64(head, base);
}

static int item_cmp(const void *a, const void *b)
{
	const struct rn_explain_item *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	if (x->head != y->head)
		return x->head > y->head ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

struct rn_explain_item *rn_explain_rank(const struct rn_folded *base, const struct rn_folded *head,
					size_t *n)
{
	struct rn_explain_item *v = NULL;
	size_t i = 0, j = 0, cap = 0;

	*n = 0;
	/* both sides are sorted: one merge pass */
	while (i < base->n || j < head->n) {
		int c = i == base->n ? 1 :
			j == head->n ? -1 :
				       strcmp(base->stack[i], head->stack[j]);

		if (c < 0) {
			add_item(&v, n, &cap, base->stack[i], base->value[i], 0);
			i++;
		} else if (c > 0) {
			add_item(&v, n, &cap, head->stack[j], 0, head->value[j]);
			j++;
		} else {
			add_item(&v, n, &cap, head->stack[j], base->value[i], head->value[j]);
			i++;
			j++;
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), item_cmp);
	return v;
}

void rn_explain_items_free(struct rn_explain_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(items[i].stack);
		free(items[i].leaf);
		free(items[i].caller);
	}
	free(items);
}

void rn_explain_format(struct rn_buf *b, const struct rn_explain_item *it, const char *unit,
		       uint64_t growth)
{
	/* the exact change from the two values (delta is clamped for ranking) */
	uint64_t mag = it->head >= it->base ? it->head - it->base : it->base - it->head;
	char sign = it->head < it->base ? '-' : '+';
	char *shown;

	if (!strcmp(unit, "ns")) {
		if (mag >= 1000000000u)
			rn_buf_addf(b, "%c%.2f s", sign, (double)mag / 1e9);
		else if (mag >= 1000000u)
			rn_buf_addf(b, "%c%.1f ms", sign, (double)mag / 1e6);
		else if (mag >= 1000u)
			rn_buf_addf(b, "%c%.1f us", sign, (double)mag / 1e3);
		else
			rn_buf_addf(b, "%c%" PRIu64 " ns", sign, mag);
	} else {
		rn_buf_addf(b, "%c%" PRIu64 " %s", sign, mag, unit);
	}
	/* frame names come from a file: shown escaped, as valid UTF-8 */
	shown = rn_display_dup(it->leaf);
	rn_buf_addf(b, " in %s", shown);
	free(shown);
	if (it->caller) {
		shown = rn_display_dup(it->caller);
		rn_buf_addf(b, ", from %s", shown);
		free(shown);
	} else if (it->only_system) {
		rn_buf_adds(b,
			    ", from no frame of the program's own (only C runtime, loader or "
			    "interpreter frames)");
	}
	if (growth && it->delta > 0)
		rn_buf_addf(b, " (%.0f%% of the growth)", 100.0 * (double)mag / (double)growth);
}

/* A leaf function of the samples inside a span and its most-sampled line. */
struct inside_fn {
	char *name;      /* the leaf frame without " (file:line)", owned */
	const char *loc; /* its most-sampled leaf frame, borrowed from the profile */
	uint64_t loc_n;  /* samples at loc */
	uint64_t n;      /* samples at all its lines */
};

static int inside_cmp(const void *a, const void *b)
{
	const struct inside_fn *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

void rn_explain_inside(struct rn_buf *b, const char *span, unsigned runs, const struct rn_folded *f,
		       size_t top)
{
	struct inside_fn *v = rn_xcalloc(f->n + 1, sizeof(*v));
	size_t nv = 0;
	char *shown;

	shown = rn_display_dup(span);
	rn_buf_addf(b, "inside %s (%u profiled run%s", shown, runs, runs == 1 ? "" : "s");
	free(shown);
	if (!f->total) {
		rn_buf_adds(b, "): no on-CPU samples in its windows\n");
		free(v);
		return;
	}
	rn_buf_addf(b, ", %" PRIu64 " sample%s):", f->total, f->total == 1 ? "" : "s");
	for (size_t i = 0; i < f->n; i++) {
		const char *leaf = strrchr(f->stack[i], ';'), *paren;
		size_t k, len;

		leaf = leaf ? leaf + 1 : f->stack[i];
		paren = strstr(leaf, " (");
		len = paren ? (size_t)(paren - leaf) : strlen(leaf);
		for (k = 0; k < nv; k++)
			if (strlen(v[k].name) == len && !memcmp(v[k].name, leaf, len))
				break;
		if (k == nv)
			v[nv++] = (struct inside_fn){ rn_xstrndup(leaf, len), leaf, 0, 0 };
		v[k].n += f->value[i];
		/* the profile is sorted by stack: the first of equal counts wins, stably */
		if (f->value[i] > v[k].loc_n) {
			v[k].loc = leaf;
			v[k].loc_n = f->value[i];
		}
	}
	qsort(v, nv, sizeof(*v), inside_cmp);
	for (size_t k = 0; k < nv && k < top; k++) {
		double pct = 100.0 * (double)v[k].n / (double)f->total;

		shown = rn_display_dup(v[k].loc);
		/* a share that rounds to 0 is still some samples */
		rn_buf_addf(b, "%s %s%.0f%%%s in %s", k ? "," : "", pct < 0.5 ? "<" : "",
			    pct < 0.5 ? 1.0 : pct, k ? "" : " of its samples", shown);
		free(shown);
	}
	rn_buf_addc(b, '\n');
	for (size_t k = 0; k < nv; k++)
		free(v[k].name);
	free(v);
}
