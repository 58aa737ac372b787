/*
 * cachegrind.h - the instructions collector: run a target's process tree under Valgrind's
 * cachegrind and count the instructions each process executed.
 *
 * Instruction counts of a program that does the same work are the same from run to run
 * (to 1e-8 relative on gzip, against a few percent of noise on the wall clock of a shared
 * VM), which makes them a CPU-work metric that a loaded CI runner does not blur. The price is
 * Valgrind's slowdown (about 8x with the cache simulation off).
 *
 * The run: `valgrind --tool=cachegrind --cache-sim=no --trace-children=yes
 * --cachegrind-out-file=DIR/cg.%p --log-file=DIR/vg.%p -- ARGV...` under rn_run_target()
 * without a syscall collector (DIR is a private directory made with mkdtemp and removed
 * afterwards). Each process image writes DIR/cg.PID when it exits; its "summary:" line is
 * the instructions (event Ir) of that image.
 *
 * Limits (documented in docs/collectors.md): a process that exec's starts a new count (the
 * instructions before the exec are lost; `sh -c 'exec gzip'` counts gzip only); a child
 * forked without an exec inherits its parent's count up to the fork, which is then counted
 * twice; a process killed by SIGKILL writes no file. Valgrind cannot run every program:
 * set-uid/set-gid programs run without their privileges, programs using instructions
 * Valgrind does not implement (AVX-512) die with SIGILL, JITs need --smc-check, and programs that inspect
 * their own address space or time themselves behave differently 8x slower.
 */
#ifndef RN_CACHEGRIND_H
#define RN_CACHEGRIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"

/* One process image's count. */
struct rn_cachegrind_proc {
	pid_t pid;             /* pid of the image (from the file name) */
	char *cmd;             /* its command line as Valgrind recorded it ("cmd:"), owned */
	uint64_t instructions; /* instructions executed (Ir), count */
};

/* Counts of one run. Release with rn_cachegrind_result_release. */
struct rn_cachegrind_result {
	struct rn_cachegrind_proc *procs; /* by ascending pid, owned */
	size_t nprocs;                    /* entries used */
	uint64_t total;                   /* sum over procs, count */
	size_t nmissing;   /* processes Valgrind started that left no valid count (killed
				   * by SIGKILL, an invalid summary): total lacks them */
	char missing[160]; /* the first of them, as a phrase ("process 12 wrote no ...") */
};

/* NULL when valgrind is found in PATH, else a static reason with the install hint. */
const char *rn_cachegrind_unavailable(void);

/*
 * Run `spec` (its collectors are ignored: no syscall collector runs) under cachegrind once and
 * fill `out`. `t` receives the run's trace (status, error, the root's exit) as
 * rn_run_target() fills it. Returns 0 when the run happened and at least one count file was
 * read (check t->status for how the target ended), -ENOENT when valgrind is missing,
 * -ENODATA when no count file was written (then t->error says what valgrind printed), other
 * negative errno on failure. Processes that left no valid count (out->nmissing) are also a gap
 * of `t` (scope RN_GAP_INSTRUCTIONS), so the total is never judged as if it were complete.
 */
int rn_cachegrind_run(const struct rn_run_spec *spec, struct rn_trace *t,
		      struct rn_cachegrind_result *out);

/* Parse one cachegrind output file into `p` (cmd and the summary's first event). Returns 0,
 * -ENODATA when it has no summary line, or negative errno. */
int rn_cachegrind_parse_file(const char *path, struct rn_cachegrind_proc *p);

/* Free what `r` owns; `r` is then empty. */
void rn_cachegrind_result_release(struct rn_cachegrind_result *r);

#endif
