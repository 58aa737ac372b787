/*
 * original.h - tables of the original renacer.toml format that this renacer has no section
 * for: [ci], [quality_gates], [lamport_clock], [compression].
 *
 * Projects that used the original tool (a Rust program of the same name) keep these tables in
 * their renacer.toml. They are accepted: every key the original format defines gets either
 * its original meaning (where this renacer has an equivalent, the setting is applied to the
 * config) or a note saying that this renacer has no equivalent and what it does instead. A
 * key the original format does not define in such a table is a warning with a did-you-mean,
 * never an error: the file was written for another program.
 *
 * The key list is one X-macro table (RN_ORIGINAL_KEYS) from which lookups and the docs are
 * derived. A table this renacer later implements for real (for example
 * [semantic_equivalence]) is parsed by config.c before it reaches rn_original_table(): take
 * its rows out of RN_ORIGINAL_KEYS then.
 */
#ifndef RN_ORIGINAL_H
#define RN_ORIGINAL_H

#include <stdbool.h>

#include "toml.h"

struct rn_config;

/* What this renacer does with a key of the original format (enum rn_original_action). */
enum rn_original_action {
	RN_ORIG_NOTE,       /* no equivalent: the note says what renacer does instead */
	RN_ORIG_SAME,       /* this renacer always behaves as the key asks (when true) */
	RN_ORIG_REGRESSION, /* boolean: false turns off golden comparison ([regression]
				* enabled = false), as the original's compare_with_baseline */
};

/*
 * X(table, key, action, note): the keys of the original format's tables, per table in the
 * original's order. `note` is printed (once per key present) as "renacer: note:
 * FILE:LINE:COL: [T] K: NOTE".
 */
#define RN_ORIGINAL_KEYS(X)                                                                        \
	X("ci", "fail_fast", RN_ORIG_NOTE,                                                         \
	  "no equivalent: renacer runs every target and reports every failure; the exit "          \
	  "status is 1 when any blocking assertion failed")                                        \
	X("ci", "export_format", RN_ORIG_NOTE,                                                     \
	  "no equivalent: write JUnit with [report] junit or --junit, OTLP JSON with "             \
	  "[report] otlp_file or --otlp-file, metrics JSON with --bench-json")                     \
	X("ci", "export_path", RN_ORIG_NOTE,                                                       \
	  "no equivalent: each report has its own path in [report]")                               \
	X("ci", "compare_with_baseline", RN_ORIG_REGRESSION,                                       \
	  "false turns off the comparison with golden traces ([regression] enabled)")              \
	X("quality_gates", "andon_enabled", RN_ORIG_SAME,                                          \
	  "always on: a failed blocking assertion stops the merge (exit status 1); set "           \
	  "fail_on_violation = false on an assertion to only warn")                                \
	X("quality_gates", "kaizen_tracking", RN_ORIG_NOTE,                                        \
	  "no equivalent in the config; golden traces record the baseline to improve on")          \
	X("quality_gates", "genchi_genbutsu_mode", RN_ORIG_NOTE,                                   \
	  "no equivalent in the config; failures name the calls and callers involved")             \
	X("lamport_clock", "enabled", RN_ORIG_NOTE,                                                \
	  "no equivalent: renacer orders events by CLOCK_MONOTONIC and follows fork and exec "     \
	  "itself")                                                                                \
	X("lamport_clock", "propagate_across_fork", RN_ORIG_SAME, "always on")                     \
	X("lamport_clock", "propagate_across_exec", RN_ORIG_SAME, "always on")                     \
	X("lamport_clock", "env_var", RN_ORIG_NOTE,                                                \
	  "not used; the trace context goes to targets as TRACEPARENT")                            \
	X("compression", "enabled", RN_ORIG_NOTE, "no equivalent: golden traces are plain JSON")   \
	X("compression", "algorithm", RN_ORIG_NOTE, "not used")                                    \
	X("compression", "min_file_size_kb", RN_ORIG_NOTE, "not used")

#endif
