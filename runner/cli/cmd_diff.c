/*
 * cmd_diff.c - `renacer diff A B`: are two recorded runs the same behaviour?
 */
#include "cmd_diff.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "equivalence.h"
#include "exitcode.h"
#include "log.h"
#include "xalloc.h"

/* Differences listed when --max is not given. */
#define RN_DIFF_MAX_SHOWN 50

enum {
	OPT_HELP = 'h',
	OPT_MIN_CONFIDENCE = 256,
	OPT_IGNORE,
	OPT_KEEP_SYSTEM,
	OPT_NO_NORMALIZE,
	OPT_MAX,
};

static const struct rn_option diff_options[] = {
	{ OPT_MIN_CONFIDENCE, "min-confidence", 0, RN_OPT_REQUIRED, "X",
	  "similarity (0..1) at which differences in opened files and I/O sequences are tolerated (default " RN_CFG_STR(
		  RN_EQUIV_MIN_CONFIDENCE) ": none are)" },
	{ OPT_IGNORE, "ignore", 0, RN_OPT_REQUIRED, "PATTERN",
	  "drop facts about paths matching the fnmatch PATTERN (repeatable)" },
	{ OPT_KEEP_SYSTEM, "keep-system", 0, RN_OPT_NONE, NULL,
	  "keep the dynamic loader's files and /proc, /sys, /dev" },
	{ OPT_NO_NORMALIZE, "no-normalize", 0, RN_OPT_NONE, NULL,
	  "compare paths and argv as recorded (no $TMP, /proc/$PID, # for numbers)" },
	{ OPT_MAX, "max", 0, RN_OPT_REQUIRED, "N",
	  "list at most N differences (default " RN_CFG_STR(RN_DIFF_MAX_SHOWN) ", 0 = all)" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_diff_def = {
	"diff",
	"renacer diff [--min-confidence X] [--ignore PATTERN]... [--keep-system] [--no-normalize] A B",
	"compare the behaviour of two recorded traces (programs run, files, endpoints, exits)",
	"A and B are outputs of `renacer trace -f --format jsonl -o FILE -- CMD` (or --format\n"
	"json). Each becomes a set of facts per process role (root, root/git, root/fork):\n"
	"processes, programs exec'd with their argv, network endpoints, directories created,\n"
	"files written or removed, signals sent, exit statuses, files opened and the sequence of\n"
	"I/O on each file with consecutive reads and writes merged, so buffering and thread\n"
	"order do not matter. Temporary paths, pids and long numbers are normalised. The first\n"
	"difference is printed first; the exit status is 0 when equivalent, 1 when not, 2 on a\n"
	"usage error and 3 when A or B cannot be read or is not a renacer trace. Limits: a trace\n"
	"of at most 256 MiB and 1,000,000 processes; a process role keeps its last 32 steps.",
	diff_options,
};

struct diff_opts {
	struct rn_equiv_opts eq;
	char **ignore; /* patterns, NULL-terminated, owned array of borrowed strings */
	size_t nignore;
	size_t max;
	bool help;
};

static int on_option(void *ctx, int id, const char *arg)
{
	struct diff_opts *o = ctx;
	char *end;

	switch (id) {
	case OPT_MIN_CONFIDENCE:
		o->eq.min_confidence = strtod(arg, &end);
		if (*end || end == arg || !(o->eq.min_confidence >= 0 && o->eq.min_confidence <= 1))
			return rn_error("renacer diff: --min-confidence wants a number in 0..1, "
					"not '%s'",
					arg);
		break;
	case OPT_IGNORE:
		o->ignore = rn_xrealloc(o->ignore, (o->nignore + 2) * sizeof(*o->ignore));
		o->ignore[o->nignore++] = (char *)arg;
		o->ignore[o->nignore] = NULL;
		break;
	case OPT_KEEP_SYSTEM:
		o->eq.keep_system = true;
		break;
	case OPT_NO_NORMALIZE:
		o->eq.normalize = 0;
		break;
	case OPT_MAX:
		o->max = strtoul(arg, &end, 10);
		if (*end || end == arg)
			return rn_error("renacer diff: --max wants a count, not '%s'", arg);
		break;
	case OPT_HELP:
		o->help = true;
		break;
	default:
		return -1;
	}
	return 0;
}

int rn_cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	struct rn_equiv_behaviour *a = NULL, *b = NULL;
	struct rn_equiv_result r;
	char *err = NULL;
	int first, code;

	memset(&o, 0, sizeof(o));
	rn_equiv_opts_init(&o.eq);
	o.max = RN_DIFF_MAX_SHOWN;
	if (rn_cli_parse(&rn_cmd_diff_def, argc, argv, on_option, &o, &first)) {
		free(o.ignore);
		return RN_EXIT_USAGE;
	}
	if (o.help) {
		rn_cli_help(&rn_cmd_diff_def, stdout);
		free(o.ignore);
		return RN_EXIT_OK;
	}
	if (argc - first != 2) {
		rn_error("renacer diff: wants two traces; usage: %s", rn_cmd_diff_def.usage);
		free(o.ignore);
		return RN_EXIT_USAGE;
	}
	o.eq.ignore_paths = o.ignore;
	if (rn_equiv_behaviour_load(argv[first], &o.eq, &a, &err) ||
	    rn_equiv_behaviour_load(argv[first + 1], &o.eq, &b, &err)) {
		rn_error("%s", err);
		free(err);
		rn_equiv_behaviour_free(a);
		free(o.ignore);
		return RN_EXIT_CONFIG;
	}
	rn_equiv_behaviour_compare(a, b, &o.eq, &r);
	printf("A: %s\nB: %s\n", argv[first], argv[first + 1]);
	rn_equiv_result_write(&r, stdout, o.max);
	code = r.equivalent ? RN_EXIT_OK : RN_EXIT_FAIL;
	rn_equiv_result_release(&r);
	rn_equiv_behaviour_free(a);
	rn_equiv_behaviour_free(b);
	free(o.ignore);
	return code;
}
