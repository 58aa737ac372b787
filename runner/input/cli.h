/*
 * cli.h - command-line option tables (git's parse-options, curl's option docs).
 *
 * Each subcommand declares one `struct rn_option` array; the same table feeds getopt_long,
 * `--help` and the renacer(1) man page, so they cannot drift.
 */
#ifndef RN_CLI_H
#define RN_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Whether an option takes an argument (enum rn_option_arg). */
enum rn_option_arg {
	RN_OPT_NONE = 0,     /* a flag */
	RN_OPT_REQUIRED = 1, /* --name VALUE or --name=VALUE */
};

/*
 * The `id` of an entry for an option that this renacer does not have and that users of the
 * original renacer or of strace will type (--function-time, --chaos): it is in the table so
 * that --help and the man page name it and the parser can answer it. Parsing it prints one
 * line, "renacer CMD: '--chaos' is not an option of renacer CMD: HELP", and fails with
 * -EINVAL (exit code RN_EXIT_USAGE); `help` names the replacement. Its long form takes an
 * optional argument (--chaos and --chaos=gentle get the same answer). An option that has an
 * equivalent is an alias instead: an entry of its own name with the equivalent's id.
 */
#define RN_OPT_REPLACED (-1)

/* One option. Tables end with an entry whose `id` is 0. */
struct rn_option {
	int id;                 /* value handed to the callback; non-zero; short options use
				 * their character as id */
	const char *long_name;  /* "junit" for --junit, or NULL */
	char short_name;        /* 'c' for -c, or 0 */
	enum rn_option_arg arg; /* takes an argument? */
	const char *arg_name;   /* "FILE" in the help, NULL for flags */
	const char *help;       /* one line, lowercase, no trailing period */
};

/* A subcommand: its name, usage line, summary and options (for help and the man page). */
struct rn_command {
	const char *name;                /* "check" */
	const char *usage;               /* "renacer check [OPTIONS] [-- CMD [ARGS...]]" */
	const char *summary;             /* one line */
	const char *description;         /* paragraphs for the man page and --help, or NULL */
	const struct rn_option *options; /* the option table */
};

/*
 * X(id, long_name, help): the global options, which every command takes. A command whose
 * table has an option of the same long name handles it itself (check's --no-color also turns
 * off its report's colors); otherwise rn_cli_parse applies it: --no-color sets NO_COLOR=1 for
 * what the command prints after it. --help and the man page list the ones a table lacks.
 */
#define RN_GLOBAL_OPTIONS(X) X(RN_GO_NO_COLOR, "no-color", "no colors (also NO_COLOR=1)")

/* Option ids of the global options, above every command's and report option's id. */
enum rn_global_opt_id {
	RN_GO_BASE = 0x2000, /* below the first id */
#define RN_GLOBAL_OPTION_ENUM(id, name, help) id,
	RN_GLOBAL_OPTIONS(RN_GLOBAL_OPTION_ENUM)
#undef RN_GLOBAL_OPTION_ENUM
};

/*
 * The options `cmd` takes: its own table followed by the global options it lacks (what
 * rn_cli_parse accepts, --help lists and shell completion offers), terminated by a row of
 * id 0. Returns a heap array the caller frees with free(); the strings are borrowed from the
 * tables. Dies on out-of-memory.
 */
struct rn_option *rn_cli_options_with_globals(const struct rn_command *cmd);

/*
 * Parse argv[1..] against `cmd->options` and the global options it lacks with getopt_long (stops at the first non-option or
 * at "--"). For each option calls `fn(ctx, id, arg)` (arg NULL for flags); a non-zero return
 * stops parsing and is returned. Unknown options print "renacer CMD: unknown option '--x'"
 * plus a did-you-mean and return -EINVAL. On success returns 0 and sets *optind_out to the index
 * of the first operand.
 */
int rn_cli_parse(const struct rn_command *cmd, int argc, char **argv,
		 int (*fn)(void *ctx, int id, const char *arg), void *ctx, int *optind_out);

/*
 * rn_cli_parse with options before, between and after operands (`renacer merge a.json
 * --junit x.xml b.json`); "--" ends the options, what follows it is operands only. Operands
 * are collected in order into `operands` (borrowed from argv; at most `max`, more is an error
 * "renacer CMD: too many arguments"), their count in *noperands. Returns as rn_cli_parse.
 */
int rn_cli_parse_operands(const struct rn_command *cmd, int argc, char **argv,
			  int (*fn)(void *ctx, int id, const char *arg), void *ctx,
			  const char **operands, size_t max, size_t *noperands);

/* Print `cmd`'s usage, summary, description and option table to `out`. */
void rn_cli_help(const struct rn_command *cmd, FILE *out);

/* Write the option table of `cmd` as a man(7) section (".TP" entries) to `out`. */
void rn_cli_man_options(const struct rn_command *cmd, FILE *out);

#endif
