/*
 * cmd_history.h - `renacer history` (cmd_history.c) and the command line it shares with
 * `renacer report` (cmd_report.c). Every read of the store is runner/history/history.h's.
 */
#ifndef RN_CMD_HISTORY_H
#define RN_CMD_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "config.h"
#include "history.h"

/* `renacer history SUBCOMMAND ...`. argv[0] is "history". Returns an enum rn_exit value. */
int rn_cmd_history(int argc, char **argv);

/* The option table of `renacer history` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_history_def;

/* Option ids of history and report (struct rn_option.id): short options use their character. */
enum rn_hist_opt_id {
	RN_HO_CONFIG = 'c',
	RN_HO_LIMIT = 'n',
	RN_HO_FORMAT = 'f',
	RN_HO_OUTPUT = 'o',
	RN_HO_TARGET = 't',
	RN_HO_METRIC = 'm',
	RN_HO_HELP = 'h',
	RN_HO_DB = 256,
	RN_HO_MACHINE,
	RN_HO_BRANCH,
	RN_HO_COMMIT,
	RN_HO_OLDER_THAN,
	RN_HO_HTML,
	RN_HO_MARKDOWN,
	RN_HO_MIN_CHANGE,
	RN_HO_ALPHA,
};

/* Parsed command line of history and report. Strings borrow from argv. */
struct rn_hist_opts {
	const char *db;
	const char *config;
	long limit;
	const char *machine;
	const char *branch;
	const char *target;
	const char *metric;
	const char *format;
	const char *output;
	const char *commit;
	long older_than_days;
	double min_change_pct; /* --min-change, percent; < 0 when not given */
	double alpha;          /* --alpha; 0 when not given */
	const char *html;
	const char *markdown; /* report --markdown FILE */
	bool help;
	const char *operands[64];
	size_t noperands;
};

/* Parse argv for `cmd` (history or report) into `o` (zeroed by the caller); options may come
 * before, between and after operands. Returns 0, or non-zero after printing why. */
int rn_hist_parse(const struct rn_command *cmd, int argc, char **argv, struct rn_hist_opts *o);
/* The config named by --config, else renacer.toml when it exists, into `cfg` (*have says
 * whether one was loaded). Returns 0 or RN_EXIT_CONFIG (printed). */
int rn_hist_load_config(const struct rn_hist_opts *o, struct rn_config *cfg, bool *have);
/* Open the store of --db, else of `cfg` (NULL: the default); with `empty_ok`, a database
 * without renacer's tables (an empty PostgreSQL database) is 1 with nothing printed. Returns
 * 0, 1 or a negative errno (printed). Close `h` with rn_history_close either way. */
int rn_hist_open_store(const struct rn_hist_opts *o, const struct rn_config *cfg, bool write,
		       struct rn_history *h, bool empty_ok);

#endif
