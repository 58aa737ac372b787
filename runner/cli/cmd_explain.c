/*
 * cmd_explain.c - `renacer explain BASE HEAD` (cmd_explain.h).
 */
#include "cmd_explain.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "escape.h"
#include "exitcode.h"
#include "explain.h"
#include "flamegraph.h"
#include "log.h"
#include "safefile.h"
#include "sat.h"

/* Call paths listed when --top is not given. */
#define RN_EXPLAIN_TOP 10

enum {
	OPT_HELP = 'h',
	OPT_SVG = 256,
	OPT_TOP,
	OPT_UNIT,
};

static const struct rn_option explain_options[] = {
	{ OPT_SVG, "svg", 0, RN_OPT_REQUIRED, "FILE",
	  "write the differential flame graph of HEAD against BASE to FILE (red grew, blue shrank)" },
	{ OPT_TOP, "top", 0, RN_OPT_REQUIRED, "N",
	  "list at most N call paths (default " RN_CFG_STR(RN_EXPLAIN_TOP) ", 0 = all)" },
	{ OPT_UNIT, "unit", 0, RN_OPT_REQUIRED, "UNIT",
	  "what the values count (any word); by default told by the file names: ns for .syscalls.folded, .oncpu.folded and for a profile with a .calls.folded beside it (check's and golden update's), calls for .calls.folded, samples for .cpu.folded and any other (stackcollapse's output)" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_explain_def = {
	"explain",
	"renacer explain [--svg FILE] [--top N] [--unit UNIT] BASE.folded HEAD.folded",
	"rank the call paths whose time grew from BASE to HEAD (folded stacks of trace --profile)",
	"BASE and HEAD are folded stacks, one \"frame;frame;frame VALUE\" per line, as `renacer\n"
	"trace --profile PREFIX` writes them (PREFIX.syscalls.folded: nanoseconds in syscalls by\n"
	"call stack; PREFIX.cpu.folded: on-CPU samples) or as FlameGraph's stackcollapse tools do.\n"
	"Each call path's change is its HEAD value minus its BASE value; the paths that grew most\n"
	"come first, each named by its innermost frame and that frame's caller in the program's own\n"
	"code (frames of the C runtime, the loader and the interpreter are passed by):\n"
	"    1. +75.5 ms in openat, from load_cfg (92% of the growth)\n"
	"Paths that shrank follow. With --svg, a differential flame graph of HEAD coloured by the\n"
	"change. Exit status 0; 2 on a usage error; 3 when a profile cannot be read or is not\n"
	"folded stacks; 6 when the SVG cannot be written.",
	explain_options,
};

struct explain_opts {
	const char *svg;  /* --svg, borrowed */
	size_t top;       /* --top */
	const char *unit; /* --unit, borrowed; NULL: from the file name */
	bool help;
};

static int on_option(void *ctx, int id, const char *arg)
{
	struct explain_opts *o = ctx;
	char *end;
	long v;

	switch (id) {
	case OPT_SVG:
		o->svg = arg;
		break;
	case OPT_TOP:
		v = strtol(arg, &end, 10);
		if (*end || end == arg || v < 0)
			return rn_error("renacer explain: --top wants a number >= 0, not '%s'",
					arg);
		o->top = (size_t)v;
		break;
	case OPT_UNIT:
		if (!*arg || strpbrk(arg, " \t\n") || rn_has_ctl(arg))
			return rn_error("renacer explain: --unit wants one word, not '%s'", arg);
		o->unit = arg;
		break;
	case OPT_HELP:
		o->help = true;
		break;
	default:
		return -1;
	}
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* What the values of the profile at `path` count, told by its name (--unit's default), or
 * NULL when the name does not say: renacer's syscall profiles (PREFIX.syscalls.folded; check's
 * and golden update's NAME.folded, which have NAME.calls.folded beside them, and their
 * NAME.oncpu.folded) are nanoseconds, PREFIX.cpu.folded samples, *.calls.folded calls. */
static const char *unit_of(const char *path)
{
	struct rn_buf calls;
	const char *unit = NULL;

	if (ends_with(path, ".calls.folded"))
		return "calls";
	if (ends_with(path, ".cpu.folded"))
		return "samples";
	if (ends_with(path, ".syscalls.folded") || ends_with(path, ".oncpu.folded"))
		return "ns";
	if (!ends_with(path, ".folded"))
		return NULL;
	rn_buf_init(&calls, 0);
	rn_buf_add(&calls, path, strlen(path) - strlen(".folded"));
	rn_buf_adds(&calls, ".calls.folded");
	if (!rn_buf_failed(&calls) && !access(calls.buf, F_OK))
		unit = "ns";
	rn_buf_release(&calls);
	return unit;
}

/* --svg: the differential flame graph. 0, or the exit code after an error. */
static int write_svg(const char *path, const char *base, const char *head, const char *unit)
{
	struct rn_safefile sf;
	FILE *b = fopen(base, "re"), *h = fopen(head, "re");
	int rc = !b || !h ? -1 : rn_safefile_open(&sf, path);

	if (rc < 0 && (!b || !h)) {
		rn_error("renacer explain: cannot read '%s'", !b ? base : head);
		rc = RN_EXIT_CONFIG;
	} else if (rc) {
		rn_error("cannot write '%s': %s", path, rn_safefile_strerror(rc));
		rc = RN_EXIT_OUTPUT;
	} else {
		rc = rn_flamegraph_diff_svg(b, h, rn_safefile_stream(&sf), "Differential profile",
					    unit, NULL);
		rc = rc ? rc : rn_safefile_commit(&sf);
		if (rc) {
			rn_safefile_abort(&sf);
			rn_error("cannot write '%s': %s", path, rn_safefile_strerror(rc));
			rc = RN_EXIT_OUTPUT;
		}
	}
	if (b)
		fclose(b);
	if (h)
		fclose(h);
	return rc;
}

int rn_cmd_explain(int argc, char **argv)
{
	struct explain_opts o = { NULL, RN_EXPLAIN_TOP, NULL, false };
	struct rn_folded base, head;
	struct rn_explain_item *items;
	struct rn_diag d;
	struct rn_buf line;
	uint64_t growth = 0;
	char *bname, *hname;
	size_t n, shown;
	int first, code = RN_EXIT_OK;

	if (rn_cli_parse(&rn_cmd_explain_def, argc, argv, on_option, &o, &first))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_explain_def, stdout);
		return RN_EXIT_OK;
	}
	if (argc - first != 2) {
		rn_error("renacer explain: want two profiles; usage: %s", rn_cmd_explain_def.usage);
		return RN_EXIT_USAGE;
	}
	/* FlameGraph's stackcollapse tools count samples: a name that says nothing is that */
	if (!o.unit)
		o.unit = unit_of(argv[first + 1]);
	if (!o.unit)
		o.unit = unit_of(argv[first]);
	if (!o.unit)
		o.unit = "samples";
	rn_diag_init(&d, NULL, NULL, 0);
	if (rn_folded_read(&base, argv[first], &d)) {
		rn_error("%s", d.msg);
		return RN_EXIT_CONFIG;
	}
	if (rn_folded_read(&head, argv[first + 1], &d)) {
		rn_error("%s", d.msg);
		rn_folded_release(&base);
		return RN_EXIT_CONFIG;
	}
	items = rn_explain_rank(&base, &head, &n);
	for (size_t i = 0; i < n; i++)
		if (items[i].head > items[i].base)
			growth = rn_sat_add_u64(growth, items[i].head - items[i].base);
	rn_buf_init(&line, 0);
	bname = rn_display_dup(argv[first]);
	hname = rn_display_dup(argv[first + 1]);
	printf("%s -> %s: %" PRIu64 " -> %" PRIu64 " %s, %zu call path%s changed\n", bname, hname,
	       base.total, head.total, o.unit, n, n == 1 ? "" : "s");
	free(bname);
	free(hname);
	shown = o.top && o.top < n ? o.top : n;
	for (size_t i = 0; i < shown; i++) {
		char *stack = rn_display_dup(items[i].stack);

		rn_buf_reset(&line);
		rn_explain_format(&line, &items[i], o.unit, growth);
		printf("%3zu. %s\n     %s\n", i + 1, line.buf, stack);
		free(stack);
	}
	rn_buf_release(&line);
	if (o.svg)
		code = write_svg(o.svg, argv[first], argv[first + 1], o.unit);
	rn_explain_items_free(items, n);
	rn_folded_release(&base);
	rn_folded_release(&head);
	return code;
}
