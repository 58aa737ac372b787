/*
 * antipattern/pass.h - the shared pass of the anti-pattern detectors: the detector ops table,
 * the state one replay of the spool builds for all of them, and the helpers they share.
 * Private to assertions/antipattern.c (the driver) and assertions/antipattern/ (one file per
 * detector, plus fds.c, the per-(process, fd) state several detectors read, and common.c).
 * The helpers only the detectors call are in antipattern/internal.h. Public API:
 * assertions/assertion.h; thresholds: assertions/internal.h; definitions and formulas:
 * assertions/ANTIPATTERNS.md.
 *
 * Memory: the pass owns everything it points to (pass_init/pass_release in antipattern.c);
 * detectors allocate only strings they hand over in struct rn_detection or in candidates.
 * Nothing here is thread-safe: one pass runs on one thread.
 */
#ifndef RN_ANTIPATTERN_PASS_H
#define RN_ANTIPATTERN_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../internal.h"
#include "buf.h"
#include "trace.h"
#include "log.h"

struct rn_srcloc;
struct rn_symbolizer;

/* ---- small pure helpers -------------------------------------------------------------------- */

/* The smaller of two confidences (every detector combines its ramps with min()). */
static inline double min2(double a, double b)
{
	return a < b ? a : b;
}

/* part / whole in percent; 0 when whole is 0. */
static inline double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* A duration for people: "412 ns", "3.2 us", "41.0 ms", "1.25 s". */
struct rn_ap_text {
	char s[32];
};

/* ---- syscall classes ------------------------------------------------------------------------ */

/* What a syscall means to the detectors (enum rn_ap_sc_flags). The C_ names are private to
 * the pass (this header is included by the anti-pattern files only). */
enum rn_ap_sc_flags {
	C_READ = 1u << 0,      /* moves data from fd args[0] into memory */
	C_WRITE = 1u << 1,     /* moves data from memory to fd args[0] */
	C_RETSIZE = 1u << 2,   /* its size is the return value (vectored, msghdr), not args[2] */
	C_POS = 1u << 3,       /* positional: file offset in args[3] (pread64/pwrite64) */
	C_PROGRESS = 1u << 4,  /* a positive return means data moved: never a spin */
	C_OPEN = 1u << 5,      /* opens `path`, returns an fd */
	C_STAT = 1u << 6,      /* looks `path` up without opening it */
	C_POLL = 1u << 7,      /* waits for fds with a timeout; 0 returned = timed out */
	C_SLEEP = 1u << 8,     /* sleeps */
	C_YIELD = 1u << 9,     /* gives up the CPU and returns at once */
	C_SYNC = 1u << 10,     /* flushes fd args[0] to storage */
	C_SYNC_ANY = 1u << 11, /* flushes something else (msync, syncfs, sync) */
	C_WAIT = 1u << 12,     /* blocks until another task acts: idle time, not work */
	C_EVFD = 1u << 13,     /* returns an fd with fixed-size records (eventfd, timerfd, ...) */
	C_SOCKFD = 1u << 14,   /* returns a socket fd */
	C_CLOSE = 1u << 15,    /* closes fd args[0] */
	C_DUP = 1u << 16,      /* returns a copy of fd args[0] (dup, dup2, dup3) */
	C_FCNTL = 1u << 17,    /* fcntl: F_DUPFD* returns a copy of fd args[0] */
	C_LSEEK = 1u << 18,    /* moves the offset of fd args[0], returns it */
	C_MMAP = 1u << 19,     /* maps memory, returns the address */
	C_MUNMAP = 1u << 20,   /* unmaps [args[0], +args[1]) */
	C_MREMAP = 1u << 21,   /* moves/resizes mapping args[0] to the returned address */
	C_BRK = 1u << 22,      /* moves the program break, returns it */
	C_NOSPIN = 1u << 23,   /* never part of a spin run (futex, memory, exit, exec) */
	C_NOERR = 1u << 24,    /* failures are its normal protocol (futex EAGAIN/ETIMEDOUT) */
	C_ATDIR = 1u << 25,    /* a relative `path` is relative to directory fd args[0] */
	C_CHDIR = 1u << 26,    /* changes the working directory */
	C_EXIT = 1u << 27,     /* ends the calling thread (exit) or its process (exit_group) */
};

/* Per-number view of the table, built once per pass. */
struct rn_ap_sc {
	uint32_t flags; /* enum rn_ap_sc_flags */
	int8_t nargs;   /* arguments compared between calls */
	int8_t tmo_arg; /* integer timeout argument, or -1 */
};

/* The classes of every syscall number, built once per pass (rn_ap_sc_tab_build). */
struct rn_ap_sc_tab {
	struct rn_ap_sc *v; /* [n], owned */
	int n;              /* rn_syscall_table_size() */
};

/* ---- bounded hash table ------------------------------------------------------------------- */

/*
 * Linear probing over 64-bit keys with values of a fixed size, at most 3/4 full, growing by
 * doubling up to `max` keys; a full table refuses new keys (counted in `dropped`). Deletion
 * shifts the following entries back (no tombstones), so tables of live things (open fds,
 * running threads) stay small. Keys are stored + 1 so 0 marks an empty slot; callers never use
 * UINT64_MAX as a key. Pointers to values are invalidated by any insertion or deletion.
 */
struct rn_antipattern_map {
	uint64_t *keys;   /* key + 1, 0 = empty */
	char *vals;       /* cap * esz bytes, zeroed when a key is added */
	size_t esz;       /* bytes of a value */
	size_t cap;       /* slots, a power of two */
	size_t used;      /* keys held */
	size_t max;       /* most keys held */
	uint64_t dropped; /* keys refused because the table was full */
};

/* A 64-bit hash of x (the tables' and the caller cache's keys). */
static inline uint64_t mix64(uint64_t x)
{
	/* splitmix64's finalizer: every input bit affects every output bit. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}
/* ---- candidates: the best few findings of a detector ---------------------------------------- */

/* Findings a detector keeps (the best is reported, the others as "also:" lines). */
#define RN_AP_TOP_N 3

/* One finding of a detector, formatted. */
struct rn_ap_cand {
	double conf;    /* confidence of this finding */
	double mag;     /* tie-break: the magnitude behind it (a count, a time) */
	int proc;       /* process index */
	char *summary;  /* one line, owned */
	char *evidence; /* lines, owned */
};

/* The best RN_AP_TOP_N findings of a detector (rn_ap_top_put). */
struct rn_ap_top {
	struct rn_ap_cand c[RN_AP_TOP_N]; /* best first */
	int n;                            /* used */
};

/* ---- callers: who made the evidence spans ------------------------------------------------
 *
 * Spooled spans carry return addresses (rn_syscall_event.stack); rn_symbolize_caller() maps
 * them, through the process's /proc/PID/maps snapshot, to the first function outside the C
 * runtime. Each detection counts the callers of the spans it quotes and names the dominant one
 * with its share. Counting is bounded: the first CALLER_SLOTS distinct callers of a finding are
 * counted exactly, later distinct ones only in its total (so a share is never overstated).
 */
#define RN_AP_CALLER_SLOTS 4
#define RN_AP_CALLER_CACHE 4096    /* direct-mapped (maps, stack) -> caller cache, entries */
#define RN_AP_MAX_CALLER_DEFS 4096 /* distinct callers named per pass */

/* Callers of the spans behind one finding. */
struct rn_ap_callers {
	uint64_t key[RN_AP_CALLER_SLOTS]; /* caller keys (0 = free slot) */
	uint64_t n[RN_AP_CALLER_SLOTS];   /* spans per caller */
	uint64_t total;                   /* spans counted, attributed or not */
};

/* A named caller (value of ap_pass.cdefs). */
struct rn_ap_caller_def {
	const char *function; /* owned by ap_pass.sym, or NULL (no symbol) */
	const char *module;   /* path, owned by ap_pass.sym */
	uint64_t vaddr;       /* first return address seen, module vaddr */
};

/* One entry of the caller cache. */
struct rn_ap_caller_memo {
	uint64_t tag; /* hash of the maps snapshot and the stack, 0 = empty */
	uint64_t key; /* caller key, 0 = not attributed */
};

/* ---- the pass ------------------------------------------------------------------------------ */

/* Per-process state of the pass. */
struct rn_ap_proc {
	bool allowed;      /* its comm matches the process filter */
	uint64_t first_ns; /* entry of its first span seen, ns; 0 if none */
	uint64_t last_ns;  /* exit of its last span seen, ns */
	uint64_t spans;    /* spans seen */
	/* GodProcess */
	uint64_t blocked_ns; /* time in waiting calls (spool), ns */
	/* TightLoop */
	uint64_t spin_ns;          /* wall time of runs of >= RN_AP_TL_EPISODE_MIN calls, ns */
	uint64_t spin_runs;        /* such runs */
	uint64_t spin_calls;       /* calls in them */
	struct rn_ap_tl_run *best; /* its longest run, owned, or NULL */
	/* SyncStorm */
	uint64_t syncs, small_syncs, sync_ns;
	uint64_t writes, write_bytes;
	uint64_t bytes_since_sync; /* written by the process since its last sync of any kind */
	char sync_path[RN_AP_PATH_KEEP]; /* a file it synced */
	struct rn_ap_callers sync_cl;    /* callers of the small syncs */
	/* MemoryChurn */
	uint64_t anon_maps, short_unmaps, short_bytes, unmaps;
	uint64_t brk_grows, brk_cycles;
	uint64_t mm_calls, mm_ns;
	uint64_t brk_cur, brk_shrink_ns;
	bool brk_shrunk;
	struct rn_ap_callers churn_cl; /* callers of the short-lived unmaps and brk regrowths */
	/* RedundantIO */
	uint64_t cwd_gen; /* bumped by each chdir/fchdir: relative paths are per directory */
};

/* One call's identity for TightLoop: equal signatures are "the same call". */
struct rn_ap_tl_sig {
	int nr;           /* syscall */
	int err;          /* errno or 0 */
	int64_t ret;      /* return value */
	uint64_t args[6]; /* arguments (only sc nargs compared) */
	uint64_t hash;    /* of all of the above and the decoded path (the same buffer can hold
			   * other paths): a cheap first comparison */
	uint64_t count;   /* calls of this signature in the current run */
};

/* A run being followed. */
struct rn_ap_tl_cur {
	pid_t tid;
	uint64_t len;            /* calls */
	uint64_t start_ns;       /* entry of its first call */
	uint64_t end_ns;         /* exit of its last call */
	uint64_t call_ns;        /* time inside its calls */
	struct rn_ap_callers cl; /* callers of its calls */
};

/* A spin run, as kept for evidence. */
struct rn_ap_tl_run {
	struct rn_ap_tl_cur c; /* where and how long */
	struct rn_ap_tl_sig
		sigs[RN_AP_TL_SIGS]; /* the calls it cycled through, most frequent first */
	int nsigs;
};

/* Per-thread TightLoop state. */
struct rn_ap_tl_thread {
	int proc;
	bool seen;
	uint64_t last_end_ns;
	struct rn_ap_tl_sig hist[RN_AP_TL_SIGS]; /* recent distinct signatures, most recent first */
	int nhist;
	struct rn_ap_tl_cur run;         /* the current run (len 0: none) */
	bool pend;                       /* the previous call was a TL_START call outside any run */
	uint64_t pend_start_ns, pend_ns; /* its entry and duration */
	/* The TL_START call just before the current run: it joins the run (retroactively) when
	 * the run repeats it, so a loop's first call is counted without counting setup calls. */
	bool pre;
	uint64_t pre_hash; /* its signature's hash */
	uint64_t pre_start_ns, pre_ns;
};

/* Kinds of fd for SmallIO (enum fd_kind). */
enum rn_ap_fd_kind {
	FD_UNKNOWN = 0, /* inherited or from a call not modelled (pipe, socketpair) */
	FD_FILE,        /* opened by path */
	FD_SOCKET,      /* socket() or accept() */
	FD_EVENT,       /* eventfd, timerfd, signalfd, inotify, epoll: fixed-size records */
};

/* Per (process, fd) I/O state: SmallIO, RedundantIO re-reads, SyncStorm. */
struct rn_ap_fd {
	bool used; /* set up by fd_get() (false only in a slot just taken) */
	int proc;
	int fd;
	uint8_t kind;               /* enum fd_kind */
	uint64_t open_id;           /* which open this is (relative lookups under it key on it) */
	uint64_t path_key;          /* key of its path in the path table, 0 if none */
	char path[RN_AP_PATH_KEEP]; /* its path, "" if unknown */
	uint64_t n[2];              /* [0] reads, [1] writes that succeeded */
	uint64_t small[2];          /* of which below RN_AP_SMALL_IO_BYTES */
	uint64_t bytes[2];          /* bytes moved */
	uint64_t ns[2];             /* time in those calls */
	uint64_t pos;        /* file offset as far as we can follow it (reads, writes, lseek) */
	uint64_t rd_off[8];  /* offsets + 1 where recent reads started (0 = none), a ring */
	int rd_i;            /* next slot of rd_off */
	uint64_t sync_bytes; /* written since its last fsync/fdatasync */
	struct rn_ap_callers cl[2]; /* callers of the small reads [0] and writes [1] */
};

/* Per (process, path) accesses: RedundantIO. */
struct rn_ap_path {
	int proc;
	uint32_t opens, stats, rereads;
	uint64_t ns; /* time in those calls */
	char path[RN_AP_PATH_KEEP];
	struct rn_ap_callers cl; /* callers of the opens, stats and re-reads */
};

/* Per (process, syscall, errno) failures: ErrorStorm. */
struct rn_ap_err {
	int proc;
	int nr;
	int err;
	uint64_t count;
	uint64_t ns;
	uint64_t first_ns, last_ns;
	char path1[RN_AP_PATH_KEEP]; /* first path it failed on */
	char path2[RN_AP_PATH_KEEP]; /* latest different path */
	struct rn_ap_callers cl;     /* callers of the failing calls */
};

/* Direct-mapped cache of anonymous mappings: MemoryChurn. Collisions evict (lossy, bounded). */
struct rn_ap_map_slot {
	int32_t pid; /* 0 = empty */
	uint64_t addr;
	uint64_t len;
	uint64_t map_ns;
};

/* The state of one pass over a trace: shared by the driver, the fd tracker and every
 * detector asked for; tables of detectors not asked for stay empty. */
struct rn_ap_pass {
	struct rn_srcloc *src; /* DWARF lines of reported callers, made on first use, or NULL */
	struct rn_trace *t;
	const struct rn_regex *re; /* process filter, or NULL */
	bool want[RN_AP_COUNT];    /* detectors of this pass */
	struct rn_ap_sc_tab sc;
	struct rn_ap_proc *procs; /* [t->nprocs] */
	size_t nprocs;
	size_t nallowed; /* processes passing the filter */
	bool spool;      /* the spool was replayed */
	uint64_t spans;  /* spans replayed that passed the filter */
	/* TightLoop */
	struct rn_antipattern_map threads; /* tid -> struct tl_thread */
	/* fds (SmallIO, RedundantIO, SyncStorm) */
	bool fds_on;
	struct rn_antipattern_map fds; /* pid << 32 | fd -> struct fd_ent */
	struct rn_ap_top small;        /* SmallIO findings */
	uint64_t io_calls, io_small;   /* all reads/writes seen, and the small ones */
	/* RedundantIO */
	struct rn_antipattern_map paths; /* resolved path key -> struct path_ent */
	uint64_t next_open_id;           /* last fd_ent.open_id given out */
	/* the path of the span being replayed, resolved (resolve_path) */
	bool ev_has_path;
	uint64_t ev_key;               /* key of (process, directory, path) */
	char ev_disp[RN_AP_PATH_KEEP]; /* the path for people, directory prepended if known */
	/* ErrorStorm */
	struct rn_antipattern_map errs; /* pid, nr, errno -> struct err_ent */
	uint64_t failed;                /* failing calls seen */
	/* MemoryChurn */
	struct rn_ap_map_slot *maps; /* [RN_AP_MAP_SLOTS], owned */
	/* callers */
	struct rn_symbolizer *sym;       /* symbols by module, owned */
	struct rn_antipattern_map cdefs; /* caller key -> struct caller_def */
	struct rn_ap_caller_memo *cmemo; /* [CALLER_CACHE], owned */
	uint64_t ev_caller;              /* caller key of the span being replayed, 0 if unknown */
};

/* "pid 1234 (name)" by value (rn_ap_plabel). */
struct rn_ap_label {
	char s[160];
};

/* ---- shared helpers (antipattern/common.c) -------------------------------------------------- */

/* Build the per-number syscall classes of the generated syscall table into st (st->v owned,
 * freed by the caller); dies on out of memory. */
void rn_ap_sc_tab_build(struct rn_ap_sc_tab *st);
/* The classes of syscall `nr`; an unknown number gets "no class, compare 3 arguments". */
const struct rn_ap_sc *rn_ap_sc_of(const struct rn_ap_sc_tab *st, int nr);

/* The bounded hash table above: init sets it up empty (allocates nothing) for values of esz
 * bytes and at most max keys; release frees it and leaves it empty with the same shape. */
void rn_antipattern_map_init(struct rn_antipattern_map *kt, size_t esz, size_t max);
void rn_antipattern_map_release(struct rn_antipattern_map *kt);
/* The value of `key` (never UINT64_MAX), added zeroed when `create` and there is room; NULL
 * when absent, or full (counted in kt->dropped). Valid until the next insertion/deletion. */
void *rn_antipattern_map_get(struct rn_antipattern_map *kt, uint64_t key, bool create);
/* FNV-1a of a string mixed with a seed (a pid, a directory); never UINT64_MAX. */
uint64_t rn_ap_str_key(const char *s, uint64_t seed);

/* Free the candidates' strings and empty tp. */
void rn_ap_top_release(struct rn_ap_top *tp);

/* Process i's comm, or its nearest ancestor's (a forked child runs its parent's image); NULL
 * when none is known. Owned by the trace. */
const char *rn_ap_proc_comm(const struct rn_trace *t, int i);

/* ---- the fd tracker (antipattern/fds.c): state several detectors read --------------------- */

/* Resolve the path of an open/stat (ev->path non-empty) into ps->ev_has_path, ev_key and
 * ev_disp (RedundantIO's keys: per directory fd open or working directory). */
void rn_ap_resolve_path(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
			const struct rn_syscall_event *ev);
/* Follow one span's effect on the fds of its process: opens, closes, dups, seeks, reads,
 * writes (sizes, re-reads) and syncs. Runs after the detectors' span callbacks. */
void rn_ap_fd_span(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		   const struct rn_syscall_event *ev);

/* ---- the detector ops table ------------------------------------------------------------------ */

/*
 * One detector. The driver (antipattern.c) sets up the pass, calls init of each detector
 * asked for, replays the spool once calling span of each (in table order, then the fd
 * tracker when a detector needs_fds), then calls finish of each in table order. finish fills
 * a zeroed struct rn_detection whose pattern and proc (-1) are set; it sets confidence,
 * proc, summary, evidence (strings it allocates, owned by the detection) or no_data; the
 * driver adds the recommendation, a default summary and the filtered-trace note.
 */
struct rn_detector_ops {
	enum rn_ap_id id;           /* its row of RN_ANTIPATTERNS (name, description) */
	const char *recommendation; /* one-line fix, static */
	bool uses_spool;            /* replays the spool (false: statistics or GPU spans only) */
	bool needs_fds;             /* reads the fd tracker's state (rn_ap_fd_span) */
	/* Set up its tables in ps (optional); dies on out of memory. */
	void (*init)(struct rn_ap_pass *ps);
	/* One spooled span of allowed process index `proc` (optional). */
	void (*span)(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		     const struct rn_syscall_event *ev);
	/* The finding, after the replay (or without one, from statistics or NO DATA). */
	void (*finish)(struct rn_ap_pass *ps, struct rn_detection *out);
};

extern const struct rn_detector_ops rn_ap_god_process_ops;     /* god_process.c */
extern const struct rn_detector_ops rn_ap_tight_loop_ops;      /* tight_loop.c */
extern const struct rn_detector_ops rn_ap_pcie_bottleneck_ops; /* pcie_bottleneck.c */
extern const struct rn_detector_ops rn_ap_small_io_ops;        /* small_io.c */
extern const struct rn_detector_ops rn_ap_redundant_io_ops;    /* redundant_io.c */
extern const struct rn_detector_ops rn_ap_error_storm_ops;     /* error_storm.c */
extern const struct rn_detector_ops rn_ap_sync_storm_ops;      /* sync_storm.c */
extern const struct rn_detector_ops rn_ap_memory_churn_ops;    /* memory_churn.c */

#endif
