/*
 * equivalence.h - behaviour equivalence of two runs of a program (or of a program and its
 * rewrite): what the process tree did that someone outside it could observe, compared as a
 * structured diff.
 *
 * A behaviour is a set of facts, each (category, subject, value), extracted from syscall spans
 * and process events (struct rn_trace_sink) or from a recorded trace file:
 *
 *   category  subject                value                                  compared as
 *   process   role                   ""  (one per process)                  multiset
 *   exec      role                   argv shape: "git --version"            multiset
 *   connect   role                   endpoint: "inet 127.0.0.1:9"           set
 *   mkdir     role                   created directory                      set
 *   write     role                   file written (written to, or opened
 *                                    with O_CREAT/O_TRUNC/O_APPEND)          set
 *   remove    role                   "unlink P", "rmdir P", "rename A -> B" set
 *   signal    role                   "kill SIGTERM"                         multiset
 *   exit      role                   "exit 0", "signal SIGSEGV", "lost"     multiset
 *   open      role                   "PATH r|w|rw[,creat][,trunc]..."       set
 *   io        role + " " + file      the file's I/O sequence, consecutive
 *                                    reads (writes) merged into one
 *                                    "read N" ("write N"): "open w,creat,
 *                                    trunc; write 4096; fsync"             multiset of sequences
 *
 * A process's role is its place in the tree, not its pid: "root" for the process renacer
 * started, then the parent's role + "/" + the basename of the program the process runs
 * ("root/git"), or + "/fork" when it never exec'd. Threads are part of their process, so the
 * order in which threads run, and the order of processes of one role, do not matter. The
 * root's own first exec (the command itself) is not a fact, so a program and its rewrite
 * under another name compare. Files are keyed by normalised path, never by fd; fds 0-2
 * inherited by the root are "<stdin>", "<stdout>", "<stderr>".
 *
 * Normalisations (enum rn_equiv_norm), applied to paths and argv strings:
 *   RN_EQUIV_NORM_TMP     under /tmp, /var/tmp, /dev/shm and $TMPDIR: the root becomes "$TMP",
 *                         the first component below it becomes "*" when more follow (the
 *                         per-run scratch folder), and a run of >= 6 letters and digits that
 *                         mixes letters and digits or upper and lower case (mkstemp's XXXXXX)
 *                         becomes "*";
 *   RN_EQUIV_NORM_PIDS    "/proc/1234/" becomes "/proc/$PID/";
 *   RN_EQUIV_NORM_NUMBERS a run of >= 4 digits becomes "#" (pids, timestamps, dates in names).
 * Not facts (by default): the dynamic loader's work (/etc/ld.so.cache, files whose name holds
 * ".so"), /proc, /sys and /dev except /dev/null, /dev/zero, the tty, failed opens, and reads
 * and writes of pipes and sockets (their endpoints are what counts).
 *
 * Differences are listed by category in the table's order, then by subject; the first one
 * is the headline ("first divergence"). For an io subject present on both sides with one
 * sequence each, the difference names the first diverging operation ("op #3: write 12 vs
 * write 13").
 *
 * Recorded forms (rn_equiv_behaviour_load): the output of `renacer trace -f --format jsonl`
 * (recommended: it carries execve argv and rename targets) or `--format json` (no argv: when
 * one side lacks it, programs are compared by name only). Not thread safe.
 */
#ifndef RN_EQUIVALENCE_H
#define RN_EQUIVALENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trace.h"

/* Fact categories, in the order differences are reported. X(id, name, is_set, strict):
 * `is_set` compares values as a set (duplicates collapse), else as a multiset; `strict`
 * differences always fail the check, whatever min_confidence says. */
#define RN_EQUIV_CATEGORIES(X)                                                                     \
	X(PROCESS, "process", false, true)                                                         \
	X(EXEC, "exec", false, true)                                                               \
	X(CONNECT, "connect", true, true)                                                          \
	X(MKDIR, "mkdir", true, true)                                                              \
	X(WRITE, "write", true, true)                                                              \
	X(REMOVE, "remove", true, true)                                                            \
	X(SIGNAL, "signal", false, true)                                                           \
	X(EXIT, "exit", false, true)                                                               \
	X(OPEN, "open", true, false)                                                               \
	X(IO, "io", false, false)

#define RN_EQUIV_CAT_ENUM(id, name, is_set, strict) RN_EQUIV_##id,
enum rn_equiv_cat {
	RN_EQUIV_CATEGORIES(RN_EQUIV_CAT_ENUM) RN_EQUIV_NCATS
};
#undef RN_EQUIV_CAT_ENUM

/* Normalisations (see the header comment). */
enum rn_equiv_norm {
	RN_EQUIV_NORM_TMP = 1 << 0,
	RN_EQUIV_NORM_PIDS = 1 << 1,
	RN_EQUIV_NORM_NUMBERS = 1 << 2,
	RN_EQUIV_NORM_ALL = 7,
};

/* How behaviours are extracted and judged ([semantic_equivalence] in renacer.toml). */
struct rn_equiv_opts {
	double min_confidence;     /* equivalent when no strict difference and similarity
				    * (2 * matched facts / all facts of both sides) >= this; 1.0
				    * (the default) makes every difference fail */
	unsigned normalize;        /* enum rn_equiv_norm flags; RN_EQUIV_NORM_ALL by default */
	bool keep_system;          /* keep the loader's and /proc, /sys, /dev facts */
	char *const *ignore_paths; /* fnmatch(3) patterns on normalised paths whose facts are
				    * dropped, NULL-terminated, borrowed; NULL for none */
};

/* min_confidence by default ([semantic_equivalence], `diff`): no difference tolerated. */
#define RN_EQUIV_MIN_CONFIDENCE 1.0

/* The defaults: min_confidence RN_EQUIV_MIN_CONFIDENCE, every normalisation, system facts
 * dropped. */
void rn_equiv_opts_init(struct rn_equiv_opts *o);

struct rn_equiv_behaviour;

/* A new, empty behaviour extracted with `o` (copied; ignore_paths stays borrowed). Dies on
 * out-of-memory. */
struct rn_equiv_behaviour *rn_equiv_behaviour_new(const struct rn_equiv_opts *o);
/* Free a behaviour (NULL-safe). */
void rn_equiv_behaviour_free(struct rn_equiv_behaviour *b);

/* A sink that feeds `b` (for rn_trace_add_sink()); `b` must outlive the run. */
void rn_equiv_behaviour_sink(struct rn_equiv_behaviour *b, struct rn_trace_sink *sink);
/* Take the final process table of a finished trace (exe, parent, end of every process). */
void rn_equiv_behaviour_take_processes(struct rn_equiv_behaviour *b, const struct rn_trace *t);

/* Input limits of a recorded trace (rn_equiv_behaviour_load, `renacer diff`): its size in bytes,
 * its processes, and the steps of a process role kept (deeper chains keep their last steps
 * and a count of the skipped ones, "root/+15968/sh/fork"). Beyond the first two the load
 * fails with a message naming the limit. */
#define RN_EQUIV_MAX_TRACE_BYTES ((size_t)256 << 20)
#define RN_EQUIV_MAX_PROCESSES 1000000
#define RN_EQUIV_ROLE_STEPS 32

/*
 * Load a recorded trace (renacer-trace JSON or JSON Lines, see runner/report/TRACE_JSON.md;
 * read by rn_trace_json_read, collectors/trace_json.h).
 * Returns 0 and *out (owned by the caller), or -1 with *err set to a malloc'd message
 * ("golden.jsonl:12: not a JSON object"), which the caller frees.
 */
int rn_equiv_behaviour_load(const char *path, const struct rn_equiv_opts *o,
			    struct rn_equiv_behaviour **out, char **err);

/* One difference between behaviours A and B. */
struct rn_equiv_diff {
	enum rn_equiv_cat cat; /* category */
	char *subject;         /* role, or role + " " + file for io; owned by the result */
	char *text;            /* what differs: "only in B: git --version", "op #3: ..."; owned */
};

/* The comparison of two behaviours. */
struct rn_equiv_result {
	bool equivalent;             /* judged equivalent under the options */
	double similarity;           /* 2 * matched facts / facts of both sides, 0..1 (1 when both
				      * are empty) */
	size_t facts_a, facts_b;     /* facts on each side */
	size_t nstrict;              /* differences in strict categories */
	struct rn_equiv_diff *diffs; /* differences, in report order; owned */
	size_t ndiffs;               /* differences used */
};

/* Compare A with B (each finished on first use) under `o`. Fills `r` (release with
 * rn_equiv_result_release). Dies on out-of-memory. */
void rn_equiv_behaviour_compare(struct rn_equiv_behaviour *a, struct rn_equiv_behaviour *b,
				const struct rn_equiv_opts *o, struct rn_equiv_result *r);
/* Free what a result owns. */
void rn_equiv_result_release(struct rn_equiv_result *r);

/*
 * Print a result: a headline ("equivalent: 41 facts match" or "not equivalent: N
 * differences; first: <category> <subject>: <text>"), then at most `max_lines` differences
 * (0 = all), one per line: "  <category> <subject>: <text>".
 */
void rn_equiv_result_write(const struct rn_equiv_result *r, FILE *out, size_t max_lines);

#endif
