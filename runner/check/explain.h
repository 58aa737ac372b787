/*
 * explain.h - where a regression's time went: two profiles of folded stacks (a base run and
 * a head run, collectors/profile.h) compared stack by stack, ranked by what grew.
 *
 * Each folded line is one call path ("app;main;load_cfg;openat 75450729"); a path's delta is
 * its head value minus its base value (0 where a side lacks it). Items are the paths with a
 * non-zero delta, the largest growth first (ties: the larger head value, then the path), and
 * each names its leaf frame and the leaf's caller in the program's own code (frames of the C
 * runtime, the loader and the interpreter passed by: a write made by fprintf is the write of
 * the function that called fprintf), so an item reads
 *
 *     +75.5 ms in openat, from load_cfg (app;main;load_cfg;openat)
 *     +37 samples in spin, from hot_loop (app;main;hot_loop;spin)
 *
 * `renacer explain BASE HEAD` prints the list and writes a differential flame graph
 * (runner/report/flamegraph.h); a failed timing verdict can show the first items.
 *
 * Ownership: a struct rn_folded and a list of items own their strings; release them with
 * rn_folded_release() and rn_explain_items_free(). Not thread safe.
 */
#ifndef RN_EXPLAIN_H
#define RN_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "diag.h"

/* A profile read from a folded-stacks file: paths merged (a path given twice adds up). */
struct rn_folded {
	char **stack;    /* paths, owned [n], sorted */
	uint64_t *value; /* their values [n] */
	size_t n;        /* paths */
	uint64_t total;  /* sum of the values (values and sums saturate at UINT64_MAX) */
};

/*
 * Read folded stacks from `path` into `f` (overwritten). 0, or -1 with `diag` naming the file
 * and, for a malformed line (not "stack value"), its line and column; -1 also when the file
 * cannot be read.
 */
int rn_folded_read(struct rn_folded *f, const char *path, struct rn_diag *diag);
/* The same from folded text in memory; `name` names it in `diag`. */
int rn_folded_parse(struct rn_folded *f, const char *text, const char *name, struct rn_diag *diag);
/* Free what `f` owns; it is then empty. */
void rn_folded_release(struct rn_folded *f);

/* One ranked difference. */
struct rn_explain_item {
	char *stack;      /* the call path, owned */
	char *leaf;       /* its innermost frame (a function, or a syscall name), owned */
	char *caller;     /* the innermost frame above the leaf that is the program's own code (not
			* the C runtime's, the loader's or an interpreter's: rn_frame_is_system,
			* collectors/symbolize.h), owned, or NULL when there is none; for a leaf
			* with a source location (the program's own function) that only such
			* frames called, the innermost of them */
	bool only_system; /* frames were above the leaf, all of them such (caller is NULL) */
	uint64_t base;    /* value in the base profile */
	uint64_t head;    /* value in the head profile */
	int64_t delta;    /* head - base, clamped to [-INT64_MAX, INT64_MAX] */
};

/*
 * Compare `base` and `head`: the paths whose value changed, largest growth first (shrinks
 * last, the largest shrink at the end). Returns a new array of *n items (the caller frees it
 * with rn_explain_items_free). Dies on out-of-memory.
 */
struct rn_explain_item *rn_explain_rank(const struct rn_folded *base, const struct rn_folded *head,
					size_t *n);
/* Free `n` items and the array (NULL-safe). */
void rn_explain_items_free(struct rn_explain_item *items, size_t n);

/*
 * Append one item as a line without newline: "+75.5 ms in openat, from load_cfg" for `unit`
 * "ns" (the value scaled to ns, us, ms or s), "+37 samples in spin, from hot_loop" for any
 * other unit ("..., from no frame of the program's own (only C runtime, loader or interpreter
 * frames)" when only_system), then the share of the head's total growth in parentheses when
 * `growth` > 0.
 */
void rn_explain_format(struct rn_buf *b, const struct rn_explain_item *it, const char *unit,
		       uint64_t growth);

/*
 * Append where the on-CPU samples taken inside the windows of app span `span` ("app:solve")
 * went, `f` their folded stacks summed over `runs` profiled runs, as one line with newline:
 *
 *     inside app:solve (3 profiled runs, 240 samples): 82% of its samples in solve_step
 *     (app.c:40), 9% in ...
 *
 * the `top` leaf functions with the most samples (a function's samples at all its lines
 * together, shown with its line that has the most; ties by name), each with its share of
 * f->total; "no on-CPU samples in its windows" when f is empty. Names are shown escaped.
 */
void rn_explain_inside(struct rn_buf *b, const char *span, unsigned runs, const struct rn_folded *f,
		       size_t top);

#endif
