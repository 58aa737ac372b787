/*
 * equivalence_internal.h - what the equivalence files share (assertions only; the API is
 * equivalence.h): the behaviour model built from a trace's syscalls and processes.
 *   equivalence.c          normalisation, the model, facts from syscalls and processes
 *   equivalence_compare.c  finishing (roles, subjects, sorting) and comparing two behaviours
 *   equivalence_eval.c     behaviours read from recorded traces, the assertion's verdict
 */
#ifndef RN_EQUIVALENCE_INTERNAL_H
#define RN_EQUIVALENCE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "equivalence.h"

/* What a category of facts is (RN_EQUIV_CATEGORIES). */
struct rn_equiv_cat_info {
	const char *name; /* as configs and messages spell it */
	bool is_set;      /* values compared as a set (duplicates collapse), else a multiset */
	bool strict;      /* a difference fails whatever min_confidence says */
};

/* A file a process has open or had open: its I/O sequence so far. */
struct rn_equiv_file {
	char *path;          /* normalised path, owned */
	struct rn_buf seq;   /* "open w,creat; write 12; ..." */
	char pend;           /* 'r' or 'w' while reads (writes) are being merged, else 0 */
	uint64_t pend_bytes; /* bytes of the merged reads (writes) */
	bool written;        /* a write fact is due */
	bool ignored;        /* no facts (system file, ignore_paths) */
};

struct rn_equiv_fact {
	enum rn_equiv_cat cat;
	int proc;      /* index of the process, or -1 once resolved */
	char *subject; /* set at finish (role [+ file]), owned */
	char *value;   /* owned */
};

struct rn_equiv_proc {
	pid_t pid, ppid;
	char *exe;            /* final image, owned, or NULL */
	int parent;           /* index, -1 for the root or unknown */
	bool exec_seen;       /* an exec happened (the root's first one is the command) */
	int execs;            /* successful execs */
	enum rn_proc_end end; /* how it ended */
	int exit_code, term_signal;
	int *fds;    /* file indices by fd (+1, 0 = not tracked) [nfds], owned; NULL
			       * until the first use (then inherited from the parent) */
	size_t nfds; /* entries of fds (grows to the highest fd used + 1, < MAX_FDS) */
	int top;     /* at finish: the ancestor the role starts from (root or orphan) */
	int depth;   /* at finish: steps from `top`, -1 unknown, -2 being walked */
	struct rn_equiv_file *files; /* files of this process, owned */
	size_t nfiles, files_cap;
	char *role; /* at finish, owned */
};

struct rn_equiv_behaviour {
	struct rn_equiv_opts o;
	struct rn_equiv_proc *procs;
	size_t nprocs, procs_cap;
	int *by_pid; /* open-addressing table of the newest process index + 1 per pid
			     * [by_pid_cap, a power of two], so a lookup is O(1) (a linear
			     * search made 128k processes take 37 s) */
	size_t by_pid_cap;
	bool too_many; /* more than RN_EQUIV_MAX_PROCESSES processes: the rest ignored */
	struct rn_equiv_fact *facts;
	size_t nfacts, facts_cap;
	bool finished;
	bool argv_missing; /* an exec was recorded without its argv (--format json) */
	char tmpdir[256];  /* $TMPDIR without a trailing slash, "" if unset or /tmp */
	/* syscall numbers looked up by name (-1 when the ABI has none) */
	int nr_open, nr_openat, nr_openat2, nr_creat, nr_read, nr_pread, nr_readv, nr_preadv,
		nr_preadv2, nr_write, nr_pwrite, nr_writev, nr_pwritev, nr_pwritev2, nr_close,
		nr_dup, nr_dup2, nr_dup3, nr_fcntl, nr_ftruncate, nr_truncate, nr_fsync,
		nr_fdatasync, nr_mkdir, nr_mkdirat, nr_unlink, nr_unlinkat, nr_rmdir, nr_rename,
		nr_renameat, nr_renameat2, nr_connect, nr_sendto, nr_execve, nr_execveat, nr_kill,
		nr_tkill, nr_tgkill;
};

/* The categories' names and kinds, indexed by enum rn_equiv_cat. */
extern const struct rn_equiv_cat_info rn_equiv_cats[];

/* Index of the newest process with `pid` in b->procs, or -1. */
int rn_equiv_proc_find(const struct rn_equiv_behaviour *b, pid_t pid);
/* Add a fact of `cat` about process index `proc`: `subject` (copied, or NULL: set at finish)
 * and `value` (copied, NULL as ""). Dies on out-of-memory. */
void rn_equiv_add_fact(struct rn_equiv_behaviour *b, enum rn_equiv_cat cat, int proc,
		       const char *subject, const char *value);
/* End the merged run of reads or writes of `f` in its I/O sequence. */
void rn_equiv_seq_flush(struct rn_equiv_file *f);

/*
 * The equivalence assertion (assertions/equivalence.c): the behaviour of the last measured
 * run (r->behaviour, else replayed from its spool) against the recorded trace a->golden (or
 * a->golden_dir/<target>.jsonl). PASS when equivalent, FAIL/WARN with the structured diff
 * as detail, NO DATA without a recorded trace or spool, ERROR when the trace is invalid.
 * Called by rn_assertion_evaluate(); `out` is begun by it.
 */
struct rn_assertion_spec; /* assertions/assertion.h */
struct rn_target_result;
struct rn_verdict_result;
void rn_equiv_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
		       struct rn_verdict_result *out);

/* Feed one syscall span (completed or unfinished) in completion order. */
void rn_equiv_behaviour_syscall(struct rn_equiv_behaviour *b, const struct rn_syscall_event *ev);

/* Feed a process: born ('f', with its parent), exec'd ('e', exe is the new image) or ended
 * ('x', with its end). `exe` may be NULL; strings are copied. */
void rn_equiv_behaviour_process(struct rn_equiv_behaviour *b, pid_t pid, pid_t ppid,
				const char *exe, char event, enum rn_proc_end end, int exit_code,
				int term_signal);

/* Facts of a behaviour: how many. The first call finishes it (roles resolved, facts sorted;
 * later events are ignored). */
size_t rn_equiv_behaviour_nfacts(struct rn_equiv_behaviour *b);

/* Name of a category ("process", ...). */
const char *rn_equiv_cat_name(enum rn_equiv_cat cat);

/* Normalise a path or argv string with the `normalize` flags into `out` (`cap` bytes,
 * always NUL-terminated). Exposed for tests. */
void rn_equiv_normalize(const char *in, unsigned normalize, char *out, size_t cap);

#endif
