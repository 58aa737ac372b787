/*
 * flamegraph.h - folded stacks (collectors/profile.h) as an SVG flame graph.
 *
 * apt-cache finds no flame graph generator package in this Debian release (no `flamegraph`), so
 * this is renacer's own, in the layout of Brendan Gregg's flamegraph.pl: the root at the
 * bottom, one row per stack depth, each frame a box as wide as its share of the total,
 * siblings in alphabetical order, a <title> per box ("parse_row: 1830000 ns (41.2%)") that
 * viewers show on hover. Text is escaped through runner/util/xml.h. Boxes narrower than
 * 0.1% of the width are left out (their time stays in their parent's box).
 */
#ifndef RN_FLAMEGRAPH_H
#define RN_FLAMEGRAPH_H

#include <stdio.h>

/*
 * Read folded stacks from `in` ("frame;frame;frame VALUE" per line) and write the SVG to
 * `out`; `title` heads the picture and `unit` names the values ("ns", "samples"). Returns
 * 0, -EINVAL (a line that is not "stack value": its 1-based number in *bad_line when not
 * NULL) or -EIO.
 */
int rn_flamegraph_svg(FILE *in, FILE *out, const char *title, const char *unit, int *bad_line);

#endif
