/*
 * flamegraph.h - folded stacks (collectors/profile.h) as an SVG flame graph.
 *
 * apt-cache finds no flame graph generator package in this Debian release (no `flamegraph`), so
 * this is renacer's own, in the layout of Brendan Gregg's flamegraph.pl: the root at the
 * bottom, one row per stack depth, each frame a box as wide as its share of the total,
 * siblings in alphabetical order, a <title> per box ("parse_row: 1830000 ns (41.2%)") that
 * viewers show on hover. Text is escaped through util/xml.h. Boxes narrower than
 * 0.1% of the width are left out (their time stays in their parent's box), and so are frames
 * deeper than 1024 (the title then says "stacks cut at 1024 frames"). Values add up with
 * saturation at UINT64_MAX.
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

/*
 * A differential flame graph: the boxes of the `head` profile (widths from its values),
 * coloured by head minus `base` for the same path: red where it grew, blue where it shrank,
 * paler as the change is smaller against the largest change; each <title> adds the base value
 * and the difference. Returns as rn_flamegraph_svg (*bad_line counts the lines of the file
 * that failed).
 */
int rn_flamegraph_diff_svg(FILE *base, FILE *head, FILE *out, const char *title, const char *unit,
			   int *bad_line);

#endif
