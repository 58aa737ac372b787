#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "log.h"
#include "xalloc.h"

/* getopt_long val of the long option at index i of a command's table: LONG_BASE + i, above
 * every character a short option can be. */
#define LONG_BASE 0x1000

static size_t count_options(const struct rn_option *o)
{
	size_t n = 0;

	while (o[n].id)
		n++;
	return n;
}

/* The global options as option rows (cli.h), for getopt_long, help and the man page. */
#define GLOBAL_ROW(id, name, help) { id, name, 0, RN_OPT_NONE, NULL, help },
static const struct rn_option global_options[] = {
	/* clang-format off */
	RN_GLOBAL_OPTIONS(GLOBAL_ROW)
	/* clang-format on */
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};
#undef GLOBAL_ROW
#define NGLOBAL (sizeof(global_options) / sizeof(global_options[0]) - 1)

/* Whether `cmd`'s own table has an option named `long_name` (it then handles it). */
static bool has_option(const struct rn_command *cmd, const char *long_name)
{
	size_t i;

	for (i = 0; cmd->options[i].id; i++)
		if (cmd->options[i].long_name && !strcmp(cmd->options[i].long_name, long_name))
			return true;
	return false;
}

struct rn_option *rn_cli_options_with_globals(const struct rn_command *cmd)
{
	size_t n = 0, i, k;
	struct rn_option *all;

	while (cmd->options[n].id)
		n++;
	all = rn_xcalloc(n + NGLOBAL + 1, sizeof(*all));
	memcpy(all, cmd->options, n * sizeof(*all));
	for (i = 0, k = n; i < NGLOBAL; i++)
		if (!has_option(cmd, global_options[i].long_name))
			all[k++] = global_options[i];
	return all;
}

/* A global option that the command's table lacks: applied here. */
static void apply_global(int id)
{
	switch (id) {
	case RN_GO_NO_COLOR:
		setenv("NO_COLOR", "1", 1);
		break;
	default:
		break;
	}
}

/* Did-you-mean over the long option names of the table. */
static const char *suggest_option(const struct rn_command *cmd, const char *word)
{
	const char *names[128];
	size_t i, n = 0;

	for (i = 0; cmd->options[i].id && n < 127; i++)
		if (cmd->options[i].long_name)
			names[n++] = cmd->options[i].long_name;
	names[n] = NULL;
	return rn_suggest(word, names);
}

int rn_cli_parse(const struct rn_command *cmd, int argc, char **argv,
		 int (*fn)(void *ctx, int id, const char *arg), void *ctx, int *optind_out)
{
	size_t n = count_options(cmd->options), i, k = 0;
	struct option *longs = rn_xcalloc(n + NGLOBAL + 1, sizeof(*longs));
	struct rn_buf shorts;
	int rc = 0;

	rn_buf_init(&shorts, 0);
	rn_buf_adds(&shorts, "+:"); /* stop at the first operand; report missing arguments */
	for (i = 0; i < n; i++) {
		const struct rn_option *o = &cmd->options[i];

		if (o->long_name) {
			longs[k].name = o->long_name;
			longs[k].has_arg = o->id == RN_OPT_REPLACED ? optional_argument :
				o->arg == RN_OPT_REQUIRED           ? required_argument :
								      no_argument;
			longs[k].val = LONG_BASE + (int)i; /* mapped back to o->id below */
			k++;
		}
		if (o->short_name) {
			rn_buf_addc(&shorts, o->short_name);
			if (o->arg == RN_OPT_REQUIRED)
				rn_buf_addc(&shorts, ':');
		}
	}
	for (i = 0; i < NGLOBAL; i++) {
		if (has_option(cmd, global_options[i].long_name))
			continue;
		longs[k].name = global_options[i].long_name;
		longs[k].has_arg = no_argument;
		longs[k].val = global_options[i].id;
		k++;
	}
	optind = 1;
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, shorts.buf, longs, NULL);

		if (c == -1)
			break;
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];
			const char *name = bad;
			const char *hint;

			while (*name == '-')
				name++;
			hint = suggest_option(cmd, name);
			if (c == ':')
				rn_error("renacer %s: option '%s' needs an argument", cmd->name,
					 bad);
			else if (hint)
				rn_error("renacer %s: unknown option '%s' (did you mean '--%s'?)",
					 cmd->name, bad, hint);
			else
				rn_error("renacer %s: unknown option '%s'; see 'renacer %s --help'",
					 cmd->name, bad, cmd->name);
			rc = -EINVAL;
			break;
		}
		/* a global option the command's table lacks is getopt's val RN_GO_*, above all */
		if (c > RN_GO_BASE) {
			apply_global(c);
			continue;
		}
		/* getopt returns a long option's LONG_BASE + index and a short option's character:
		 * either way the callback gets the option's id, which may differ from both. */
		if (c >= LONG_BASE && cmd->options[c - LONG_BASE].id == RN_OPT_REPLACED) {
			rn_error("renacer %s: '--%s' is not an option of renacer %s: %s", cmd->name,
				 cmd->options[c - LONG_BASE].long_name, cmd->name,
				 cmd->options[c - LONG_BASE].help);
			rc = -EINVAL;
			break;
		}
		if (c >= LONG_BASE) {
			c = cmd->options[c - LONG_BASE].id;
		} else {
			size_t j;

			for (j = 0; j < n; j++)
				if (cmd->options[j].short_name == c) {
					c = cmd->options[j].id;
					break;
				}
		}
		rc = fn(ctx, c, optarg);
		if (rc)
			break;
	}
	if (optind_out)
		*optind_out = optind;
	free(longs);
	rn_buf_release(&shorts);
	return rc;
}

/* "-c, --count FILE" as shown in help. */
static void option_label(const struct rn_option *o, struct rn_buf *b)
{
	rn_buf_reset(b);
	if (o->short_name)
		rn_buf_addf(b, "-%c", o->short_name);
	if (o->short_name && o->long_name)
		rn_buf_adds(b, ", ");
	if (o->long_name)
		rn_buf_addf(b, "--%s", o->long_name);
	if (o->arg == RN_OPT_REQUIRED)
		rn_buf_addf(b, " %s", o->arg_name ? o->arg_name : "VALUE");
}

static int too_many(const struct rn_command *cmd)
{
	rn_error("renacer %s: too many arguments", cmd->name);
	return -EINVAL;
}

int rn_cli_parse_operands(const struct rn_command *cmd, int argc, char **argv,
			  int (*fn)(void *ctx, int id, const char *arg), void *ctx,
			  const char **operands, size_t max, size_t *noperands)
{
	int pos = 0, first, rc;

	*noperands = 0;
	while (pos < argc) {
		/* argv[pos] is the program name or the operand just taken: getopt skips it */
		rc = rn_cli_parse(cmd, argc - pos, argv + pos, fn, ctx, &first);
		if (rc)
			return rc;
		pos += first;
		if (pos >= argc)
			break;
		if (!strcmp(argv[pos - 1], "--")) {
			for (; pos < argc; pos++) {
				if (*noperands == max)
					return too_many(cmd);
				operands[(*noperands)++] = argv[pos];
			}
			break;
		}
		if (*noperands == max)
			return too_many(cmd);
		operands[(*noperands)++] = argv[pos];
	}
	return 0;
}

static void help_row(const struct rn_option *o, struct rn_buf *b, FILE *out)
{
	option_label(o, b);
	if (b->len <= 26)
		fprintf(out, "  %-26s %s\n", b->buf, o->help);
	else
		fprintf(out, "  %s\n  %-26s %s\n", b->buf, "", o->help);
}

void rn_cli_help(const struct rn_command *cmd, FILE *out)
{
	struct rn_buf b;
	size_t i;

	rn_buf_init(&b, 0);
	fprintf(out, "usage: %s\n\n%s\n", cmd->usage, cmd->summary);
	if (cmd->description)
		fprintf(out, "\n%s\n", cmd->description);
	fprintf(out, "\noptions:\n");
	for (i = 0; cmd->options[i].id; i++)
		help_row(&cmd->options[i], &b, out);
	for (i = 0; i < NGLOBAL; i++)
		if (!has_option(cmd, global_options[i].long_name))
			help_row(&global_options[i], &b, out);
	rn_buf_release(&b);
}

/* Escape a man page text line: backslashes and leading dots/quotes. */
static void man_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

static void man_row(const struct rn_option *o, struct rn_buf *b, FILE *out)
{
	option_label(o, b);
	fputs(".TP\n.B ", out);
	man_text(out, b->buf);
	fputs("\n", out);
	man_text(out, o->help);
	fputs("\n", out);
}

void rn_cli_man_options(const struct rn_command *cmd, FILE *out)
{
	struct rn_buf b;
	size_t i;

	rn_buf_init(&b, 0);
	for (i = 0; cmd->options[i].id; i++)
		man_row(&cmd->options[i], &b, out);
	for (i = 0; i < NGLOBAL; i++)
		if (!has_option(cmd, global_options[i].long_name))
			man_row(&global_options[i], &b, out);
	rn_buf_release(&b);
}
