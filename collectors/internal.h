/*
 * internal.h - what the modules of collectors/ share and no other folder calls, one section
 * per module: the histogram's life cycle (hist.c, used by the trace model), the guard filter
 * and Landlock rules the spawn installs (guard.c), the maps parser and symbolizer steps
 * (symbolize.c) and the trace model's last step (trace.c). The types stay in each module's
 * header, which other folders include. Not thread safe.
 */
#ifndef RN_COLLECTORS_INTERNAL_H
#define RN_COLLECTORS_INTERNAL_H

#include "guard.h"
#include "hist.h"
#include "symbolize.h"
#include "trace.h"

/* ---- hist.c (the types are hist.h's) ---- */

/* An empty histogram. Allocates nothing. */
void rn_hist_init(struct rn_hist *h);

/* Free the chunks; `h` is then as after init. */
void rn_hist_release(struct rn_hist *h);

/* Count one value. Dies on out-of-memory (a chunk is 1 KiB). */
void rn_hist_record(struct rn_hist *h, uint64_t v);

/* Add every count of `src` into `dst` (merging per-process histograms). */
void rn_hist_merge(struct rn_hist *dst, const struct rn_hist *src);

/* ---- guard.c (the types are guard.h's) ---- */

/*
 * The Landlock ABI version of the running kernel (landlock_create_ruleset(2) with
 * LANDLOCK_CREATE_RULESET_VERSION), asked once and cached; 0 when Landlock is not there
 * (kernel without it, disabled at boot, or a system-call emulator such as Valgrind).
 */
int rn_guard_landlock_abi(void);

/*
 * Put the calling process into a Landlock domain that scopes signals (form 1, guard.h): handles
 * no file-system or network access, so the target's files and sockets are as before. Sets
 * no_new_privs first when the process lacks CAP_SYS_ADMIN (the kernel's rule for
 * landlock_restrict_self). Returns 0 or -errno (-EOPNOTSUPP: Landlock disabled; -ENOSYS: no
 * Landlock; -EINVAL or -E2BIG: an ABI below RN_GUARD_LANDLOCK_MIN_ABI). Async-signal-safe
 * (used in the forked child).
 */
int rn_guard_landlock(void);

/* Write the guard program for renacer's pid `protect` and process group `pgrp` (0 = the
 * target runs in a group of its own) into `out` (RN_GUARD_MAX_INSNS entries). Returns the
 * number of instructions. Async-signal-safe (used in the forked child). */
size_t rn_guard_filter(pid_t protect, pid_t pgrp, struct sock_filter *out);

/* ---- symbolize.c (the types are symbolize.h's) ---- */

/* Parse the text of /proc/PID/maps (NUL-terminated). Returns a new snapshot, possibly empty,
 * owned by the caller (rn_maps_free); malformed lines are skipped. Dies on out-of-memory. */
struct rn_maps *rn_maps_parse(const char *text);

/* Whether `path` is an interpreter's runtime library (libpython3.x), whose frames are the
 * interpreter's, not the program's. Matches on the basename. */
bool rn_module_is_interpreter(const char *path);

/*
 * Symbolize one address of a process whose mappings are `m`. `is_return` says the address is a
 * return address: the symbol is then looked up at addr - 1, so a call that ends a function
 * (noreturn) is attributed to the caller, not to the next function. Returns 0 and fills `out`,
 * -ENOENT when no file-backed executable mapping holds `addr` or the module cannot be read as
 * ELF (the failure is cached per module).
 */
int rn_symbolize(struct rn_symbolizer *s, const struct rn_maps *m, uint64_t addr, bool is_return,
		 struct rn_frame *out);

/* ---- trace.c (the types are trace.h's) ---- */

/* Compute peak_rss_bytes from the processes' lifetimes and VmHWM (call after the run). */
void rn_trace_finish_memory(struct rn_trace *t);

#endif
