/*
 * cmd_history.h - `renacer history` and `renacer report`: reading the history store
 * (runner/history/history.h).
 */
#ifndef RN_CMD_HISTORY_H
#define RN_CMD_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "history.h"

struct rn_config;

/* `renacer history SUBCOMMAND ...`. Returns an enum rn_exit value. */
int rn_cmd_history(int argc, char **argv);
/* `renacer report --html FILE`. Returns an enum rn_exit value. */
int rn_cmd_report(int argc, char **argv);

/* Option tables (for --help and the man page). */
extern const struct rn_command rn_cmd_history_def;
extern const struct rn_command rn_cmd_report_def;

/* One change point of a recorded series (assertions/changepoint.h). Strings borrowed for the
 * duration of the callback. */
struct rn_history_change {
	const char *target;       /* target name */
	const char *metric;       /* metric name */
	const char *machine;      /* machine of the series */
	const char *unit;         /* the metric's unit: "ns", "bytes", "count" */
	int64_t run_id;           /* first run after the change */
	size_t index;             /* its position in the series searched (0-based) */
	const char *commit;       /* that run's commit ("" if unknown) */
	int64_t created_ns;       /* that run's time, ns since the epoch */
	double before;            /* median of the run medians before the change, in `unit` */
	double after;             /* median after it, in `unit` */
	double ratio;             /* after / before (0 when before is 0) */
	double rel_change;        /* ratio - 1 */
	double p_value;           /* Welch's two-sided p-value of the two segments */
	const char *first_commit; /* the range of runs the change may start at: first run's */
	const char *last_commit;  /* commit and last run's commit (equal when certain) */
	int64_t first_run;        /* run id of the range's first run */
	int64_t last_run;         /* run id of the range's last run */
};

/* Settings of `history changes` and the page's change points: the search's defaults
 * (rn_edivisive_cfg_init) unless --min-change / --alpha say otherwise. */
struct rn_edivisive_cfg;

/*
 * Search the last `last` runs (<= 0: 500) of target/metric on `machine` (and `branch` when not
 * NULL) for change points with `cfg` (NULL: the defaults) and call `fn` for each, oldest first.
 * Returns 0 or the store's error (h->err set).
 */
int rn_history_changes_of(struct rn_history *h, const char *target, const char *metric,
			  const char *machine, const char *branch, long last,
			  const struct rn_edivisive_cfg *cfg,
			  void (*fn)(void *ctx, const struct rn_history_change *c), void *ctx);

/* What `history import` records beside a file's contents (NULL: as a check would). */
struct rn_history_import_opts {
	const char *target;  /* target name (default: the file's, else its base name) */
	const char *machine; /* machine (default: this one, or "golden:CPU/KERNEL" for a trace
			      * recorded elsewhere) */
	const char *commit;  /* commit (default: this checkout's) */
	const char *branch;  /* branch (default: this checkout's) */
};

/* What one import recorded. */
struct rn_history_imported {
	int64_t id;       /* the new run's id */
	char target[256]; /* the target name recorded */
	size_t nruns;     /* timing runs of the file */
	bool counts_only; /* a renacer-json-v1 file: syscall counts only */
};

/*
 * Import one golden trace (renacer-golden/1) or renacer-json-v1 file at `path` into `h` as one
 * run (`history import`). The target name must pass check's rule (rn_config_name_valid);
 * text the file brings (CPU model, kernel) is stored as UTF-8 like every name. Returns the
 * run id (> 0, also in out->id); -EINVAL after printing the file's error or a name that
 * breaks the rule; another negative errno when the store failed (h->err says why). `cfg` may
 * be NULL.
 */
int64_t rn_history_import_file(struct rn_history *h, const char *path,
			       const struct rn_history_import_opts *io, const struct rn_config *cfg,
			       struct rn_history_imported *out);

#endif
