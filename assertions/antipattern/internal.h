/*
 * antipattern/internal.h - the helpers the detectors of assertions/antipattern/ share and the
 * driver (assertions/antipattern.c) does not call: text, the hash table's slot walk and
 * deletion, candidates, callers, process lifetimes, the GPU process filter and SmallIO's fd
 * hook. The pass itself, its types and what the driver calls stay in pass.h. Nothing here is
 * thread-safe: one pass runs on one thread.
 */
#ifndef RN_ANTIPATTERN_INTERNAL_H
#define RN_ANTIPATTERN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pass.h"

/* ---- common.c, fds.c and small_io.c (the types are pass.h's) ---- */

/* A duration for people: "412 ns", "3.2 us", "41.0 ms", "1.25 s" (by value, no allocation). */
struct rn_ap_text rn_ap_dur(uint64_t ns);

/* A byte count for people: "512 B", "4.0 KiB", "1.5 MiB", "2.00 GiB". */
struct rn_ap_text rn_ap_bytes(uint64_t n);

/* Keep the tail of `path` (the informative end) in dst[n], "..." first when cut; n >= 8. */
void rn_ap_keep_path(char *dst, size_t n, const char *path);

/* Take the buffer's text (caller frees); dies on a failed buffer (out of memory, over its
 * cap), since a silently empty evidence would read as "nothing found". */
char *rn_ap_buf_take(struct rn_buf *b);

/* Append "name(a, b, c) = ret" or "... = -1 ENOENT" to b, as many arguments as the call
 * takes (args[6]). */
void rn_ap_add_call(struct rn_buf *b, const struct rn_ap_sc_tab *st, int nr, const uint64_t *args,
		    int64_t ret, int err);

/* The value in slot i (i < kt->cap; a slot holds a key when kt->keys[i] != 0). */
void *rn_antipattern_map_slot(struct rn_antipattern_map *kt, size_t i);

/* Delete the entry whose value is `val` (from rn_antipattern_map_get). */
void rn_antipattern_map_del(struct rn_antipattern_map *kt, void *val);

/* Would a finding of (conf, mag) enter tp? Check before formatting its text. */
bool rn_ap_top_wants(const struct rn_ap_top *tp, double conf, double mag);

/* Insert c (its strings are taken over, freed when it does not enter), dropping the worst
 * when full. */
void rn_ap_top_put(struct rn_ap_top *tp, struct rn_ap_cand *c);

/* Fill out from tp (tp->n >= 1): the best finding's confidence, process, summary and
 * evidence, the others as "also:" lines, then "note: <dropped_note>" unless NULL. out's
 * strings are new (owned by out); tp is unchanged. */
void rn_ap_top_out(struct rn_ap_pass *ps, const struct rn_ap_top *tp, struct rn_detection *out,
		   const char *dropped_note);

/* Count one span of caller `key` (0: not attributed) in cl. */
void rn_ap_callers_add(struct rn_ap_callers *cl, uint64_t key);

/* Append "  called from f (file:line; module+0xaddr): n of total <what> (p%)\n" for the
 * dominant caller in cl; nothing when none was attributed. Looks DWARF lines up lazily
 * (ps->src). */
void rn_ap_add_caller(struct rn_ap_pass *ps, struct rn_buf *b, const struct rn_ap_callers *cl,
		      const char *what);

/* "pid 1234 (name)", or "the process tree" for an index out of range (by value). */
struct rn_ap_label rn_ap_plabel(const struct rn_ap_pass *ps, int i);

/* Process i's birth (or first span), its exit (or the end of the run, or its last span), and
 * the time between (its lifetime), ns. */
uint64_t rn_ap_proc_begin(const struct rn_ap_pass *ps, int i);

uint64_t rn_ap_proc_end(const struct rn_ap_pass *ps, int i);

uint64_t rn_ap_proc_life(const struct rn_ap_pass *ps, int i);

/* Does a GPU span of `pid` pass the process filter? *proc gets its process index or -1; a pid
 * the tracer did not see passes only an unfiltered pass. */
bool rn_ap_gpu_allowed(const struct rn_ap_pass *ps, pid_t pid, int *proc);

/* SmallIO (antipattern/small_io.c): an fd is done (closed, replaced, or the pass ends); turn
 * its small reads and writes into candidates of ps->small. */
void rn_ap_small_fd_done(struct rn_ap_pass *ps, struct rn_ap_fd *f);

#endif
