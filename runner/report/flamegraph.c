/*
 * flamegraph.c - the SVG flame graph writer (flamegraph.h).
 */
#include "flamegraph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "escape.h"
#include "sat.h"
#include "strmap.h"
#include "utf8.h"
#include "xalloc.h"
#include "xml.h"

#define WIDTH 1200.0
#define ROW 16
#define PAD 24
/* Deepest stack drawn, frames: deeper frames are cut (their time stays in the box of the
 * frame at this depth) and the title says so. Every walk of the tree recurses once per
 * level, so this also bounds the stack those walks use (a folded line of 200,000 frames
 * overflowed it). */
#define MAX_DEPTH 1024

/* Children a frame has before they are found through a hash map instead of a scan: a
 * profile of 200,000 distinct stacks under one frame took minutes to draw with the scan. */
#define INDEX_AT 16

/* A frame of the merged tree. */
struct node {
	char *name;         /* owned */
	uint64_t value;     /* its stacks' total */
	uint64_t base;      /* diff: the base profile's total for the same path */
	struct node **kids; /* children [nkids], owned */
	size_t nkids, kids_cap;
	struct rn_strmap index; /* name -> index in kids once nkids >= INDEX_AT, while parsing */
};

/* The child of `n` named `name`, made if new. */
static struct node *child(struct node *n, const char *name)
{
	struct node *k;
	size_t at;

	if (n->nkids >= INDEX_AT) {
		if (rn_strmap_get(&n->index, name, &at))
			return n->kids[at];
	} else {
		for (at = 0; at < n->nkids; at++)
			if (!strcmp(n->kids[at]->name, name))
				return n->kids[at];
	}
	k = rn_xcalloc(1, sizeof(*k));
	k->name = rn_xstrdup(name);
	rn_strmap_init(&k->index);
	n->kids = rn_xgrow(n->kids, &n->kids_cap, n->nkids + 1, sizeof(*n->kids));
	n->kids[n->nkids++] = k;
	if (n->nkids == INDEX_AT) {
		for (at = 0; at < n->nkids; at++)
			rn_strmap_put(&n->index, n->kids[at]->name, at, NULL);
	} else if (n->nkids > INDEX_AT) {
		rn_strmap_put(&n->index, k->name, n->nkids - 1, NULL);
	}
	return k;
}

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	rn_strmap_release(&n->index);
	free(n->kids);
	free(n->name);
	free(n);
}

/* A new root frame, "all". */
static struct node *root_new(void)
{
	struct node *root = rn_xcalloc(1, sizeof(*root));

	root->name = rn_xstrdup("all");
	rn_strmap_init(&root->index);
	return root;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

static int depth_of(const struct node *n)
{
	int d = 0;

	for (size_t i = 0; i < n->nkids; i++) {
		int k = depth_of(n->kids[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
}

/* A warm colour from the name, stable across runs (flamegraph.pl's "hot" palette). */
static void colour(const char *name, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	*r = 205 + (int)(h % 50);
	*g = (int)((h >> 8) % 230);
	*b = (int)((h >> 16) % 55);
}

struct svg {
	struct rn_buf *b;
	uint64_t total;
	const char *unit;
	int height;
	bool diff;        /* colour by head - base */
	uint64_t max_abs; /* diff: the largest |head - base| of a frame */
};

static uint64_t max_delta(const struct node *n)
{
	uint64_t m = n->value > n->base ? n->value - n->base : n->base - n->value;

	for (size_t i = 0; i < n->nkids; i++) {
		uint64_t k = max_delta(n->kids[i]);

		if (k > m)
			m = k;
	}
	return m;
}

static void draw(struct svg *s, struct node *n, double x, int depth)
{
	double w = WIDTH * (double)n->value / (double)s->total;
	int y = s->height - PAD - (depth + 1) * ROW, r, g, bl;
	char *shown;

	if (w < WIDTH / 1000.0)
		return;
	colour(n->name, &r, &g, &bl);
	if (s->diff) {
		/* red for growth, blue for shrinkage, white for no change (difffolded.pl) */
		uint64_t d = n->value > n->base ? n->value - n->base : n->base - n->value;
		int fade = 255 - (int)(200.0 * (double)d / (double)(s->max_abs ? s->max_abs : 1));

		r = n->value >= n->base ? 255 : fade;
		g = fade;
		bl = n->value >= n->base ? fade : 255;
	}
	/* a frame's name is the program's or the file's text: shown escaped (escape.h) */
	shown = rn_display_dup(n->name);
	rn_buf_adds(s->b, "<g><title>");
	rn_buf_add_xml(s->b, shown, strlen(shown), false);
	rn_buf_addf(s->b, ": %" PRIu64 " %s (%.2f%%)", n->value, s->unit,
		    100.0 * (double)n->value / (double)s->total);
	if (s->diff)
		rn_buf_addf(s->b, ", base %" PRIu64 " (%+" PRId64 ")", n->base,
			    rn_sat_diff_u64(n->value, n->base));
	rn_buf_adds(s->b, "</title>");
	rn_buf_addf(s->b,
		    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		    "fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
		    x + 10, y, w, ROW - 1, r, g, bl);
	if (w > 30) {
		/* as many characters as fit at about 7 px each */
		size_t fit = (size_t)((w - 6) / 7), len = strlen(shown);

		rn_buf_addf(s->b, "<text x=\"%.1f\" y=\"%d\">", x + 13, y + ROW - 4);
		if (len <= fit) {
			rn_buf_add_xml(s->b, shown, len, false);
		} else if (fit > 2) {
			rn_buf_add_xml(s->b, shown, rn_utf8_prefix(shown, fit - 2), false);
			rn_buf_adds(s->b, "..");
		}
		rn_buf_adds(s->b, "</text>");
	}
	rn_buf_adds(s->b, "</g>\n");
	free(shown);
	if (n->nkids) {
		/* the order changes: the index of the parse is done with */
		rn_strmap_release(&n->index);
		qsort(n->kids, n->nkids, sizeof(*n->kids), name_cmp);
	}
	for (size_t i = 0; i < n->nkids; i++) {
		draw(s, n->kids[i], x, depth + 1);
		x += WIDTH * (double)n->kids[i]->value / (double)s->total;
	}
}

/* Add `v` to n's value, or to its base for the base side; totals saturate. */
static void add_value(struct node *n, bool base_side, uint64_t v)
{
	uint64_t *to = base_side ? &n->base : &n->value;

	*to = rn_sat_add_u64(*to, v);
}

/* Add the folded stacks of `in` to the tree: to `value`, or to `base` for the base side.
 * Sets *cut when a stack was deeper than MAX_DEPTH. */
static int parse_into(struct node *root, FILE *in, bool base_side, int *bad_line, bool *cut)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;

	while ((len = getline(&line, &cap, in)) > 0) {
		char *sp, *end;
		uint64_t v;
		struct node *n = root;
		const char *p;
		size_t depth;

		lineno++;
		len = (ssize_t)strlen(line); /* a NUL ends the line */
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		sp = strrchr(line, ' ');
		if (!sp || sp == line || !sp[1]) {
			rc = -EINVAL;
			break;
		}
		errno = 0;
		v = strtoull(sp + 1, &end, 10);
		if (*end || errno) {
			rc = -EINVAL;
			break;
		}
		add_value(root, base_side, v);
		*sp = '\0';
		for (p = line, depth = 0; p < sp; depth++) {
			char *semi = memchr(p, ';', (size_t)(sp - p));
			size_t flen = semi ? (size_t)(semi - p) : (size_t)(sp - p);

			if (depth == MAX_DEPTH) {
				*cut = true;
				break;
			}
			if (semi)
				*semi = '\0'; /* the frame's name ends there */
			n = child(n, p);
			add_value(n, base_side, v);
			p += flen + (semi ? 1 : 0);
		}
	}
	free(line);
	if (rc && bad_line)
		*bad_line = lineno;
	return rc;
}

static int write_svg(struct node *root, FILE *out, const char *title, const char *unit, bool diff,
		     bool cut)
{
	struct rn_buf b;
	struct svg s;

	rn_buf_init(&b, 0);
	s.b = &b;
	s.total = root->value ? root->value : 1;
	s.unit = unit;
	s.height = depth_of(root) * ROW + 2 * PAD + 10;
	s.diff = diff;
	s.max_abs = diff ? max_delta(root) : 0;
	rn_buf_addf(&b,
		    "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		    "<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n"
		    "<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
		    "rect:hover{stroke:#000;stroke-width:0.5}</style>\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		    "<text x=\"%d\" y=\"%d\" font-size=\"17\">",
		    (int)WIDTH + 20, s.height, (int)WIDTH / 2 - 150, PAD - 4);
	rn_buf_add_xml(&b, title, strlen(title), false);
	rn_buf_addf(&b, " (%" PRIu64 " %s", root->value, unit);
	if (diff)
		rn_buf_addf(&b, ", base %" PRIu64 "; red grew, blue shrank", root->base);
	if (cut)
		rn_buf_addf(&b, "; stacks cut at %d frames", MAX_DEPTH);
	rn_buf_adds(&b, ")</text>\n");
	if (root->value)
		draw(&s, root, 0, 0);
	rn_buf_adds(&b, "</svg>\n");
	if (!rn_buf_failed(&b))
		fwrite(b.buf, 1, b.len, out);
	rn_buf_release(&b);
	return ferror(out) ? -EIO : 0;
}

int rn_flamegraph_svg(FILE *in, FILE *out, const char *title, const char *unit, int *bad_line)
{
	struct node *root = root_new();
	bool cut = false;
	int rc;

	rc = parse_into(root, in, false, bad_line, &cut);
	if (!rc)
		rc = write_svg(root, out, title, unit, false, cut);
	node_free(root);
	return rc;
}

int rn_flamegraph_diff_svg(FILE *base, FILE *head, FILE *out, const char *title, const char *unit,
			   int *bad_line)
{
	struct node *root = root_new();
	bool cut = false;
	int rc;

	rc = parse_into(root, base, true, bad_line, &cut);
	if (!rc)
		rc = parse_into(root, head, false, bad_line, &cut);
	if (!rc)
		rc = write_svg(root, out, title, unit, true, cut);
	node_free(root);
	return rc;
}
