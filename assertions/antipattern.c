/*
 * antipattern.c - anti-pattern detectors over one trace.
 *
 * Detectors read only the trace model (collectors/trace.h): per-process statistics, the
 * process tree, GPU spans and, when it was enabled for the run, the spool of every syscall
 * span. Those that need span sequences replay the spool once (rn_trace_spool_foreach) in a
 * shared pass that hands each span to every detector asked for, so running all of them costs
 * one replay. Per-span work is O(1): state lives per thread, per (process, fd), per
 * (process, path), per (process, syscall, errno) or per process, in hash tables with fixed
 * caps (RN_AP_MAX_* in antipattern_internal.h), so a 10M-syscall trace replays in bounded
 * memory. A full table refuses new keys and the evidence says so.
 *
 * Definitions, confidence formulas and their thresholds are documented per detector below,
 * in antipattern_internal.h and in assertions/ANTIPATTERNS.md.
 */
#include "antipattern_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "srcloc.h"
#include "symbolize.h"
#include "xalloc.h"

/* ---- the detector table ------------------------------------------------------------------- */

const char *const rn_antipattern_names[] = {
#define RN_AP_NAME(id, name, desc) name,
	RN_ANTIPATTERNS(RN_AP_NAME)
#undef RN_AP_NAME
	NULL,
};

static const char *const ap_desc[] = {
#define RN_AP_DESC(id, name, desc) desc,
	RN_ANTIPATTERNS(RN_AP_DESC)
#undef RN_AP_DESC
};

/* One-line fixes, by detector. */
static const char *const ap_fix[RN_AP_COUNT] = {
	[RN_AP_GOD_PROCESS] = "spread the dominant process's work over the idle processes, or "
			      "drop the processes that only wait",
	[RN_AP_TIGHT_LOOP] = "block instead of spinning: wait with a real timeout, a blocking "
			     "read or a futex/condition variable, and drop sched_yield loops",
	[RN_AP_PCIE_BOTTLENECK] = "keep data resident on the device, batch copies into fewer "
				  "large transfers, and overlap them with compute on a transfer queue",
	[RN_AP_SMALL_IO] = "buffer the I/O (stdio, a 64 KiB user buffer, or writev of a whole "
			   "record) so each syscall moves at least a page",
	[RN_AP_REDUNDANT_IO] = "open, stat or read the file once and keep the result instead of "
			       "repeating the lookup",
	[RN_AP_ERROR_STORM] = "stop retrying the failing call: check once, cache negative "
			      "lookups, or wait for readiness (poll/epoll) instead of retrying EAGAIN",
	[RN_AP_SYNC_STORM] = "batch writes and sync once per batch (group commit); on the GPU, "
			     "record more work per submit and wait once",
	[RN_AP_MEMORY_CHURN] = "reuse buffers (a pool or an arena) instead of mapping and "
			       "unmapping per use; raise M_MMAP_THRESHOLD/M_TRIM_THRESHOLD for malloc",
};

/* Compare ignoring case and the separators '_', '-' and ' '. */
static bool name_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a == '_' || *a == '-' || *a == ' ')
			a++;
		while (*b == '_' || *b == '-' || *b == ' ')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if ((*a | 0x20) != (*b | 0x20))
			return false;
		a++;
		b++;
	}
}

static int ap_lookup(const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < RN_AP_COUNT; i++)
		if (name_eq(name, rn_antipattern_names[i]))
			return i;
	return -1;
}

const char *rn_antipattern_canonical(const char *name)
{
	int i = ap_lookup(name);

	return i < 0 ? NULL : rn_antipattern_names[i];
}

const char *rn_antipattern_description(const char *name)
{
	int i = ap_lookup(name);

	return i < 0 ? NULL : ap_desc[i];
}

/* ---- confidence ramps ---------------------------------------------------------------------- */

static double clamp01(double x)
{
	if (!(x > 0.0)) /* NaN too */
		return 0.0;
	return x > 1.0 ? 1.0 : x;
}

double rn_ap_ramp_log(double x, double lo, double hi)
{
	if (!(x > lo))
		return 0.0;
	if (x >= hi)
		return 1.0;
	return clamp01(log(x / lo) / log(hi / lo));
}

double rn_ap_ramp_lin(double x, double lo, double hi)
{
	if (!(x > lo))
		return 0.0;
	if (x >= hi)
		return 1.0;
	return clamp01((x - lo) / (hi - lo));
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

/* ---- text helpers -------------------------------------------------------------------------- */

/* A duration for people: "412 ns", "3.2 us", "41.0 ms", "1.25 s". */
struct dur {
	char s[32];
};

static struct dur dur(uint64_t ns)
{
	struct dur d;

	if (ns >= 1000000000ULL)
		snprintf(d.s, sizeof(d.s), "%.2f s", (double)ns / 1e9);
	else if (ns >= 1000000ULL)
		snprintf(d.s, sizeof(d.s), "%.1f ms", (double)ns / 1e6);
	else if (ns >= 1000ULL)
		snprintf(d.s, sizeof(d.s), "%.1f us", (double)ns / 1e3);
	else
		snprintf(d.s, sizeof(d.s), "%" PRIu64 " ns", ns);
	return d;
}

/* A byte count for people: "512 B", "4.0 KiB", "1.5 MiB", "2.00 GiB". */
static struct dur bytes_h(uint64_t n)
{
	struct dur d;

	if (n >= (1ULL << 30))
		snprintf(d.s, sizeof(d.s), "%.2f GiB", (double)n / (double)(1ULL << 30));
	else if (n >= (1ULL << 20))
		snprintf(d.s, sizeof(d.s), "%.1f MiB", (double)n / (double)(1ULL << 20));
	else if (n >= (1ULL << 10))
		snprintf(d.s, sizeof(d.s), "%.1f KiB", (double)n / (double)(1ULL << 10));
	else
		snprintf(d.s, sizeof(d.s), "%" PRIu64 " B", n);
	return d;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* Keep the tail of a path (the informative end) in a fixed buffer. */
static void keep_path(char *dst, size_t n, const char *path)
{
	size_t len = strlen(path);

	if (len < n) {
		memcpy(dst, path, len + 1);
		return;
	}
	memcpy(dst, "...", 3);
	memcpy(dst + 3, path + len - (n - 4), n - 4);
	dst[n - 1] = '\0';
}

/* Take the buffer's text; on a failed buffer (out of memory, over its cap) die as the runner
 * does on out-of-memory, since a silently empty evidence would read as "nothing found". */
static char *buf_take(struct rn_buf *b)
{
	char *s = rn_buf_detach(b, NULL);

	if (!s)
		rn_die("out of memory formatting anti-pattern evidence");
	return s;
}

static char *xfmt(const char *fmt, ...) RN_PRINTF(1, 2);
static char *xfmt(const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	return rn_xstrdup(tmp);
}

/* ---- syscall classes ------------------------------------------------------------------------ */

/* What a syscall means to the detectors (enum sc_flags). */
enum sc_flags {
	C_READ = 1u << 0,     /* moves data from fd args[0] into memory */
	C_WRITE = 1u << 1,    /* moves data from memory to fd args[0] */
	C_RETSIZE = 1u << 2,  /* its size is the return value (vectored, msghdr), not args[2] */
	C_POS = 1u << 3,      /* positional: file offset in args[3] (pread64/pwrite64) */
	C_PROGRESS = 1u << 4, /* a positive return means data moved: never a spin */
	C_OPEN = 1u << 5,     /* opens `path`, returns an fd */
	C_STAT = 1u << 6,     /* looks `path` up without opening it */
	C_POLL = 1u << 7,     /* waits for fds with a timeout; 0 returned = timed out */
	C_SLEEP = 1u << 8,    /* sleeps */
	C_YIELD = 1u << 9,    /* gives up the CPU and returns at once */
	C_SYNC = 1u << 10,    /* flushes fd args[0] to storage */
	C_SYNC_ANY = 1u << 11, /* flushes something else (msync, syncfs, sync) */
	C_WAIT = 1u << 12,    /* blocks until another task acts: idle time, not work */
	C_EVFD = 1u << 13,    /* returns an fd with fixed-size records (eventfd, timerfd, ...) */
	C_SOCKFD = 1u << 14,  /* returns a socket fd */
	C_CLOSE = 1u << 15,   /* closes fd args[0] */
	C_DUP = 1u << 16,     /* returns a copy of fd args[0] (dup, dup2, dup3) */
	C_FCNTL = 1u << 17,   /* fcntl: F_DUPFD* returns a copy of fd args[0] */
	C_LSEEK = 1u << 18,   /* moves the offset of fd args[0], returns it */
	C_MMAP = 1u << 19,    /* maps memory, returns the address */
	C_MUNMAP = 1u << 20,  /* unmaps [args[0], +args[1]) */
	C_MREMAP = 1u << 21,  /* moves/resizes mapping args[0] to the returned address */
	C_BRK = 1u << 22,     /* moves the program break, returns it */
	C_NOSPIN = 1u << 23,  /* never part of a spin run (futex, memory, exit, exec) */
	C_NOERR = 1u << 24,   /* failures are its normal protocol (futex EAGAIN/ETIMEDOUT) */
	C_ATDIR = 1u << 25,   /* a relative `path` is relative to directory fd args[0] */
	C_CHDIR = 1u << 26,   /* changes the working directory */
	C_EXIT = 1u << 27,    /* ends the calling thread (exit) or its process (exit_group) */
};

struct sc_def {
	const char *name; /* syscall name as in the generated table */
	uint32_t flags;   /* enum sc_flags */
	int8_t nargs;     /* arguments it takes: only these are compared between calls */
	int8_t tmo_arg;   /* index of an integer timeout in ms (poll, epoll_wait), else -1 */
};

/*
 * Syscalls with a meaning to the detectors, and the argument counts of common calls with
 * fewer than three arguments (raw registers beyond a call's arguments hold leftovers, so
 * comparing them would split runs of identical calls). Names are resolved through the
 * generated syscall table; names the architecture lacks are skipped. Calls not listed
 * compare their first three arguments.
 */
static const struct sc_def sc_defs[] = {
	{ "read", C_READ | C_PROGRESS, 3, -1 },
	{ "pread64", C_READ | C_POS | C_PROGRESS, 4, -1 },
	{ "readv", C_READ | C_RETSIZE | C_PROGRESS, 3, -1 },
	{ "preadv", C_READ | C_RETSIZE | C_PROGRESS, 5, -1 },
	{ "preadv2", C_READ | C_RETSIZE | C_PROGRESS, 6, -1 },
	{ "recvfrom", C_READ | C_PROGRESS, 6, -1 },
	{ "recvmsg", C_READ | C_RETSIZE | C_PROGRESS, 3, -1 },
	{ "write", C_WRITE | C_PROGRESS, 3, -1 },
	{ "pwrite64", C_WRITE | C_POS | C_PROGRESS, 4, -1 },
	{ "writev", C_WRITE | C_RETSIZE | C_PROGRESS, 3, -1 },
	{ "pwritev", C_WRITE | C_RETSIZE | C_PROGRESS, 5, -1 },
	{ "pwritev2", C_WRITE | C_RETSIZE | C_PROGRESS, 6, -1 },
	{ "sendto", C_WRITE | C_PROGRESS, 6, -1 },
	{ "sendmsg", C_WRITE | C_RETSIZE | C_PROGRESS, 3, -1 },
	{ "recvmmsg", C_PROGRESS, 5, -1 },
	{ "sendmmsg", C_PROGRESS, 4, -1 },
	{ "sendfile", C_PROGRESS, 4, -1 },
	{ "splice", C_PROGRESS, 6, -1 },
	{ "tee", C_PROGRESS, 4, -1 },
	{ "vmsplice", C_PROGRESS, 4, -1 },
	{ "copy_file_range", C_PROGRESS, 6, -1 },
	{ "getdents", C_PROGRESS, 3, -1 },
	{ "getdents64", C_PROGRESS, 3, -1 },
	{ "getrandom", C_PROGRESS, 3, -1 },
	{ "open", C_OPEN, 3, -1 },
	{ "openat", C_OPEN | C_ATDIR, 4, -1 },
	{ "openat2", C_OPEN | C_ATDIR, 4, -1 },
	{ "creat", C_OPEN, 2, -1 },
	{ "stat", C_STAT, 2, -1 },
	{ "lstat", C_STAT, 2, -1 },
	{ "newfstatat", C_STAT | C_ATDIR, 4, -1 },
	{ "fstatat64", C_STAT | C_ATDIR, 4, -1 },
	{ "statx", C_STAT | C_ATDIR, 5, -1 },
	{ "access", C_STAT, 2, -1 },
	{ "faccessat", C_STAT | C_ATDIR, 3, -1 },
	{ "faccessat2", C_STAT | C_ATDIR, 4, -1 },
	{ "readlink", C_STAT, 3, -1 },
	{ "readlinkat", C_STAT | C_ATDIR, 4, -1 },
	{ "poll", C_POLL | C_WAIT, 3, 2 },
	{ "ppoll", C_POLL | C_WAIT, 5, -1 },
	{ "select", C_POLL | C_WAIT, 5, -1 },
	{ "pselect6", C_POLL | C_WAIT, 6, -1 },
	{ "epoll_wait", C_POLL | C_WAIT, 4, 3 },
	{ "epoll_pwait", C_POLL | C_WAIT, 6, 3 },
	{ "epoll_pwait2", C_POLL | C_WAIT, 6, -1 },
	{ "nanosleep", C_SLEEP | C_WAIT, 2, -1 },
	{ "clock_nanosleep", C_SLEEP | C_WAIT, 4, -1 },
	{ "sched_yield", C_YIELD, 0, -1 },
	{ "fsync", C_SYNC, 1, -1 },
	{ "fdatasync", C_SYNC, 1, -1 },
	{ "sync_file_range", C_SYNC, 4, -1 },
	{ "msync", C_SYNC_ANY, 3, -1 },
	{ "syncfs", C_SYNC_ANY, 1, -1 },
	{ "sync", C_SYNC_ANY, 0, -1 },
	{ "wait4", C_WAIT, 4, -1 },
	{ "waitid", C_WAIT, 5, -1 },
	{ "futex", C_WAIT | C_NOSPIN | C_NOERR, 6, -1 },
	{ "futex_waitv", C_WAIT | C_NOSPIN | C_NOERR, 5, -1 },
	{ "pause", C_WAIT, 0, -1 },
	{ "rt_sigsuspend", C_WAIT, 2, -1 },
	{ "rt_sigtimedwait", C_WAIT, 4, -1 },
	{ "accept", C_WAIT | C_SOCKFD, 3, -1 },
	{ "accept4", C_WAIT | C_SOCKFD, 4, -1 },
	{ "msgrcv", C_WAIT, 5, -1 },
	{ "semop", C_WAIT, 3, -1 },
	{ "semtimedop", C_WAIT, 4, -1 },
	{ "io_getevents", C_WAIT, 5, -1 },
	{ "mq_timedreceive", C_WAIT, 5, -1 },
	{ "flock", C_WAIT, 2, -1 },
	{ "eventfd", C_EVFD, 1, -1 },
	{ "eventfd2", C_EVFD, 2, -1 },
	{ "timerfd_create", C_EVFD, 2, -1 },
	{ "signalfd", C_EVFD, 3, -1 },
	{ "signalfd4", C_EVFD, 4, -1 },
	{ "inotify_init", C_EVFD, 0, -1 },
	{ "inotify_init1", C_EVFD, 1, -1 },
	{ "fanotify_init", C_EVFD, 2, -1 },
	{ "epoll_create", C_EVFD, 1, -1 },
	{ "epoll_create1", C_EVFD, 1, -1 },
	{ "userfaultfd", C_EVFD, 1, -1 },
	{ "pidfd_open", C_EVFD, 2, -1 },
	{ "socket", C_SOCKFD, 3, -1 },
	{ "close", C_CLOSE, 1, -1 },
	{ "dup", C_DUP, 1, -1 },
	{ "dup2", C_DUP, 2, -1 },
	{ "dup3", C_DUP, 3, -1 },
	{ "fcntl", C_FCNTL, 3, -1 },
	{ "lseek", C_LSEEK, 3, -1 },
	{ "mmap", C_MMAP | C_NOSPIN, 6, -1 },
	{ "munmap", C_MUNMAP, 2, -1 },
	{ "mremap", C_MREMAP | C_NOSPIN, 5, -1 },
	{ "brk", C_BRK | C_NOSPIN, 1, -1 },
	{ "exit", C_NOSPIN | C_EXIT, 1, -1 },
	{ "exit_group", C_NOSPIN | C_EXIT, 1, -1 },
	{ "execve", C_NOSPIN, 3, -1 },
	{ "execveat", C_NOSPIN, 5, -1 },
	{ "rt_sigreturn", C_NOSPIN, 0, -1 },
	{ "getpid", 0, 0, -1 },
	{ "getppid", 0, 0, -1 },
	{ "gettid", 0, 0, -1 },
	{ "getuid", 0, 0, -1 },
	{ "geteuid", 0, 0, -1 },
	{ "getgid", 0, 0, -1 },
	{ "getegid", 0, 0, -1 },
	{ "getpgrp", 0, 0, -1 },
	{ "setsid", 0, 0, -1 },
	{ "getpgid", 0, 1, -1 },
	{ "getsid", 0, 1, -1 },
	{ "umask", 0, 1, -1 },
	{ "alarm", 0, 1, -1 },
	{ "uname", 0, 1, -1 },
	{ "time", 0, 1, -1 },
	{ "times", 0, 1, -1 },
	{ "sysinfo", 0, 1, -1 },
	{ "chdir", C_CHDIR, 1, -1 },
	{ "fchdir", C_CHDIR, 1, -1 },
	{ "rmdir", 0, 1, -1 },
	{ "unlink", 0, 1, -1 },
	{ "set_tid_address", 0, 1, -1 },
	{ "fstat", 0, 2, -1 },
	{ "gettimeofday", 0, 2, -1 },
	{ "clock_gettime", 0, 2, -1 },
	{ "clock_getres", 0, 2, -1 },
	{ "getrusage", 0, 2, -1 },
	{ "getrlimit", 0, 2, -1 },
	{ "kill", 0, 2, -1 },
	{ "tkill", 0, 2, -1 },
	{ "listen", 0, 2, -1 },
	{ "shutdown", 0, 2, -1 },
	{ "ftruncate", 0, 2, -1 },
	{ "truncate", 0, 2, -1 },
	{ "mkdir", 0, 2, -1 },
	{ "rename", 0, 2, -1 },
	{ "link", 0, 2, -1 },
	{ "symlink", 0, 2, -1 },
	{ "chmod", 0, 2, -1 },
	{ "fchmod", 0, 2, -1 },
	{ "getcwd", 0, 2, -1 },
	{ "pipe", 0, 1, -1 },
	{ "pipe2", 0, 2, -1 },
	{ "setpgid", 0, 2, -1 },
	{ "arch_prctl", 0, 2, -1 },
	{ "sched_getaffinity", 0, 3, -1 },
};

/* Per-number view of the table, built once per pass. */
struct sc_info {
	uint32_t flags; /* enum sc_flags */
	int8_t nargs;   /* arguments compared between calls */
	int8_t tmo_arg; /* integer timeout argument, or -1 */
};

static const struct sc_info sc_unknown = { 0, 3, -1 };

struct sc_tab {
	struct sc_info *v; /* [n], owned */
	int n;             /* rn_syscall_table_size() */
};

static void sc_tab_build(struct sc_tab *st)
{
	size_t i;

	st->n = rn_syscall_table_size();
	st->v = rn_xcalloc(st->n > 0 ? (size_t)st->n : 1, sizeof(*st->v));
	for (i = 0; i < (size_t)st->n; i++)
		st->v[i] = sc_unknown;
	for (i = 0; i < sizeof(sc_defs) / sizeof(sc_defs[0]); i++) {
		int nr = rn_syscall_lookup(sc_defs[i].name);

		if (nr < 0 || nr >= st->n)
			continue;
		st->v[nr].flags = sc_defs[i].flags;
		st->v[nr].nargs = sc_defs[i].nargs;
		st->v[nr].tmo_arg = sc_defs[i].tmo_arg;
	}
}

static const struct sc_info *sc_of(const struct sc_tab *st, int nr)
{
	return nr >= 0 && nr < st->n ? &st->v[nr] : &sc_unknown;
}

/* An argument for people: small values and small negatives in decimal, addresses in hex. */
static void add_arg(struct rn_buf *b, uint64_t v)
{
	int64_t s = (int64_t)v;
	int32_t s32 = (int32_t)(uint32_t)v;

	if (v < 65536)
		rn_buf_addf(b, "%" PRIu64, v);
	else if (s < 0 && s >= -4096)
		rn_buf_addf(b, "%" PRId64, s);
	else if (!(v >> 32) && s32 < 0 && s32 >= -4096)
		rn_buf_addf(b, "%" PRId32, s32); /* an int argument (AT_FDCWD) in a 64-bit register */
	else
		rn_buf_addf(b, "0x%" PRIx64, v);
}

/* "name(a, b, c) = ret" or "= -1 ENOENT". */
static void add_call(struct rn_buf *b, const struct sc_tab *st, int nr, const uint64_t *args,
		     int64_t ret, int err)
{
	int i, n = sc_of(st, nr)->nargs;

	rn_buf_addf(b, "%s(", rn_syscall_name(nr));
	for (i = 0; i < n && i < 6; i++) {
		if (i)
			rn_buf_adds(b, ", ");
		add_arg(b, args[i]);
	}
	if (err)
		rn_buf_addf(b, ") = -1 %s", rn_errno_name(err));
	else if (ret >= 65536 || ret < 0)
		rn_buf_addf(b, ") = 0x%" PRIx64, (uint64_t)ret);
	else
		rn_buf_addf(b, ") = %" PRId64, ret);
}

/* ---- bounded hash table ------------------------------------------------------------------- */

/*
 * Linear probing over 64-bit keys with values of a fixed size, at most 3/4 full, growing by
 * doubling up to `max` keys; a full table refuses new keys (counted in `dropped`). Deletion
 * shifts the following entries back (no tombstones), so tables of live things (open fds,
 * running threads) stay small. Keys are stored + 1 so 0 marks an empty slot; callers never use
 * UINT64_MAX as a key. Pointers to values are invalidated by any insertion or deletion.
 */
struct ktab {
	uint64_t *keys; /* key + 1, 0 = empty */
	char *vals;     /* cap * esz bytes, zeroed when a key is added */
	size_t esz;     /* bytes of a value */
	size_t cap;     /* slots, a power of two */
	size_t used;    /* keys held */
	size_t max;     /* most keys held */
	uint64_t dropped; /* keys refused because the table was full */
};

static uint64_t mix64(uint64_t x)
{
	/* splitmix64's finalizer: every input bit affects every output bit. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static void ktab_init(struct ktab *kt, size_t esz, size_t max)
{
	memset(kt, 0, sizeof(*kt));
	kt->esz = esz;
	kt->max = max;
}

static void ktab_release(struct ktab *kt)
{
	free(kt->keys);
	free(kt->vals);
	ktab_init(kt, kt->esz, kt->max);
}

static void *ktab_slot(struct ktab *kt, size_t i)
{
	return kt->vals + i * kt->esz;
}

static void ktab_grow(struct ktab *kt)
{
	struct ktab old = *kt;
	size_t i;

	kt->cap = old.cap ? old.cap * 2 : 64;
	kt->keys = rn_xcalloc(kt->cap, sizeof(*kt->keys));
	kt->vals = rn_xcalloc(kt->cap, kt->esz);
	kt->used = 0;
	for (i = 0; i < old.cap; i++) {
		size_t j;

		if (!old.keys[i])
			continue;
		for (j = mix64(old.keys[i]) & (kt->cap - 1); kt->keys[j]; j = (j + 1) & (kt->cap - 1))
			;
		kt->keys[j] = old.keys[i];
		memcpy(ktab_slot(kt, j), old.vals + i * old.esz, kt->esz);
		kt->used++;
	}
	free(old.keys);
	free(old.vals);
}

/* The value of `key`, added zeroed when `create` and there is room; NULL otherwise. */
static void *ktab_get(struct ktab *kt, uint64_t key, bool create)
{
	uint64_t k = key + 1;
	size_t i;

	if (kt->cap) {
		for (i = mix64(k) & (kt->cap - 1); kt->keys[i]; i = (i + 1) & (kt->cap - 1))
			if (kt->keys[i] == k)
				return ktab_slot(kt, i);
	}
	if (!create)
		return NULL;
	if (kt->used >= kt->max) {
		kt->dropped++;
		return NULL;
	}
	if ((kt->used + 1) * 4 > kt->cap * 3)
		ktab_grow(kt);
	for (i = mix64(k) & (kt->cap - 1); kt->keys[i]; i = (i + 1) & (kt->cap - 1))
		;
	kt->keys[i] = k;
	kt->used++;
	/* A slot freed by ktab_del still holds its old value. */
	memset(ktab_slot(kt, i), 0, kt->esz);
	return ktab_slot(kt, i);
}

/* Delete the entry whose value is `val` (from ktab_get). */
static void ktab_del(struct ktab *kt, void *val)
{
	size_t mask = kt->cap - 1, i = (size_t)((char *)val - kt->vals) / kt->esz, j = i;

	kt->keys[i] = 0;
	kt->used--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!kt->keys[j])
			break;
		home = mix64(kt->keys[j]) & mask;
		/* Leave entry j where it is when its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		kt->keys[i] = kt->keys[j];
		memcpy(ktab_slot(kt, i), ktab_slot(kt, j), kt->esz);
		kt->keys[j] = 0;
		i = j;
	}
}

/* FNV-1a over a string, mixed with a seed (the pid). */
static uint64_t str_key(const char *s, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ mix64(seed);

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h == UINT64_MAX ? 0 : h;
}

/* ---- candidates: the best few findings of a detector ---------------------------------------- */

#define TOP_N 3

struct cand {
	double conf;    /* confidence of this finding */
	double mag;     /* tie-break: the magnitude behind it (a count, a time) */
	int proc;       /* process index */
	char *summary;  /* one line, owned */
	char *evidence; /* lines, owned */
};

struct top {
	struct cand c[TOP_N]; /* best first */
	int n;                /* used */
};

static bool cand_better(double conf, double mag, const struct cand *c)
{
	return conf > c->conf || (conf == c->conf && mag > c->mag);
}

/* Would a finding of (conf, mag) enter the list? Check before formatting its text. */
static bool top_wants(const struct top *tp, double conf, double mag)
{
	return tp->n < TOP_N || cand_better(conf, mag, &tp->c[tp->n - 1]);
}

/* Insert `c` (its strings are taken over), dropping the worst when full. */
static void top_put(struct top *tp, struct cand *c)
{
	int i;

	if (!top_wants(tp, c->conf, c->mag)) {
		free(c->summary);
		free(c->evidence);
		return;
	}
	if (tp->n == TOP_N) {
		free(tp->c[TOP_N - 1].summary);
		free(tp->c[TOP_N - 1].evidence);
		tp->n--;
	}
	for (i = tp->n; i > 0 && cand_better(c->conf, c->mag, &tp->c[i - 1]); i--)
		tp->c[i] = tp->c[i - 1];
	tp->c[i] = *c;
	tp->n++;
}

static void top_release(struct top *tp)
{
	int i;

	for (i = 0; i < tp->n; i++) {
		free(tp->c[i].summary);
		free(tp->c[i].evidence);
	}
	memset(tp, 0, sizeof(*tp));
}

/* ---- callers: who made the evidence spans ------------------------------------------------
 *
 * Spooled spans carry return addresses (rn_syscall_event.stack); rn_symbolize_caller() maps
 * them, through the process's /proc/PID/maps snapshot, to the first function outside the C
 * runtime. Each detection counts the callers of the spans it quotes and names the dominant one
 * with its share. Counting is bounded: the first CALLER_SLOTS distinct callers of a finding are
 * counted exactly, later distinct ones only in its total (so a share is never overstated).
 */
#define CALLER_SLOTS 4
#define CALLER_CACHE 4096   /* direct-mapped (maps, stack) -> caller cache, entries */
#define MAX_CALLER_DEFS 4096 /* distinct callers named per pass */

/* Callers of the spans behind one finding. */
struct callers {
	uint64_t key[CALLER_SLOTS]; /* caller keys (0 = free slot) */
	uint64_t n[CALLER_SLOTS];   /* spans per caller */
	uint64_t total;             /* spans counted, attributed or not */
};

/* A named caller (value of ap_pass.cdefs). */
struct caller_def {
	const char *function; /* owned by ap_pass.sym, or NULL (no symbol) */
	const char *module;   /* path, owned by ap_pass.sym */
	uint64_t vaddr;       /* first return address seen, module vaddr */
};

/* One entry of the caller cache. */
struct caller_memo {
	uint64_t tag; /* hash of the maps snapshot and the stack, 0 = empty */
	uint64_t key; /* caller key, 0 = not attributed */
};

static void callers_add(struct callers *cl, uint64_t key)
{
	int i;

	cl->total++;
	if (!key)
		return;
	for (i = 0; i < CALLER_SLOTS; i++) {
		if (cl->key[i] == key) {
			cl->n[i]++;
			return;
		}
		if (!cl->key[i]) {
			cl->key[i] = key;
			cl->n[i] = 1;
			return;
		}
	}
}

/* ---- the pass ------------------------------------------------------------------------------ */

/* Per-process state of the pass. */
struct ap_proc {
	bool allowed;      /* its comm matches the process filter */
	uint64_t first_ns; /* entry of its first span seen, ns; 0 if none */
	uint64_t last_ns;  /* exit of its last span seen, ns */
	uint64_t spans;    /* spans seen */
	/* GodProcess */
	uint64_t blocked_ns; /* time in waiting calls (spool), ns */
	/* TightLoop */
	uint64_t spin_ns;    /* wall time of runs of >= RN_AP_TL_EPISODE_MIN calls, ns */
	uint64_t spin_runs;  /* such runs */
	uint64_t spin_calls; /* calls in them */
	struct tl_run *best; /* its longest run, owned, or NULL */
	/* SyncStorm */
	uint64_t syncs, small_syncs, sync_ns;
	uint64_t writes, write_bytes;
	uint64_t bytes_since_sync; /* written by the process since its last sync of any kind */
	char sync_path[RN_AP_PATH_KEEP]; /* a file it synced */
	struct callers sync_cl;          /* callers of the small syncs */
	/* MemoryChurn */
	uint64_t anon_maps, short_unmaps, short_bytes, unmaps;
	uint64_t brk_grows, brk_cycles;
	uint64_t mm_calls, mm_ns;
	uint64_t brk_cur, brk_shrink_ns;
	bool brk_shrunk;
	struct callers churn_cl; /* callers of the short-lived unmaps and brk regrowths */
	/* RedundantIO */
	uint64_t cwd_gen; /* bumped by each chdir/fchdir: relative paths are per directory */
};

/* One call's identity for TightLoop: equal signatures are "the same call". */
struct tl_sig {
	int nr;           /* syscall */
	int err;          /* errno or 0 */
	int64_t ret;      /* return value */
	uint64_t args[6]; /* arguments (only sc nargs compared) */
	uint64_t hash;    /* of all of the above and the decoded path (the same buffer can hold
			   * other paths): a cheap first comparison */
	uint64_t count;   /* calls of this signature in the current run */
};

/* A run being followed. */
struct tl_cur {
	pid_t tid;
	uint64_t len;      /* calls */
	uint64_t start_ns; /* entry of its first call */
	uint64_t end_ns;   /* exit of its last call */
	uint64_t call_ns;  /* time inside its calls */
	struct callers cl; /* callers of its calls */
};

/* A spin run, as kept for evidence. */
struct tl_run {
	struct tl_cur c;                   /* where and how long */
	struct tl_sig sigs[RN_AP_TL_SIGS]; /* the calls it cycled through, most frequent first */
	int nsigs;
};

/* Per-thread TightLoop state. */
struct tl_thread {
	int proc;
	bool seen;
	uint64_t last_end_ns;
	struct tl_sig hist[RN_AP_TL_SIGS]; /* recent distinct signatures, most recent first */
	int nhist;
	struct tl_cur run; /* the current run (len 0: none) */
	bool pend;         /* the previous call was a TL_START call outside any run */
	uint64_t pend_start_ns, pend_ns; /* its entry and duration */
	/* The TL_START call just before the current run: it joins the run (retroactively) when
	 * the run repeats it, so a loop's first call is counted without counting setup calls. */
	bool pre;
	uint64_t pre_hash; /* its signature's hash */
	uint64_t pre_start_ns, pre_ns;
};

/* Kinds of fd for SmallIO (enum fd_kind). */
enum fd_kind {
	FD_UNKNOWN = 0, /* inherited or from a call not modelled (pipe, socketpair) */
	FD_FILE,        /* opened by path */
	FD_SOCKET,      /* socket() or accept() */
	FD_EVENT,       /* eventfd, timerfd, signalfd, inotify, epoll: fixed-size records */
};

/* Per (process, fd) I/O state: SmallIO, RedundantIO re-reads, SyncStorm. */
struct fd_ent {
	bool used;             /* set up by fd_get() (false only in a slot just taken) */
	int proc;
	int fd;
	uint8_t kind;          /* enum fd_kind */
	uint64_t open_id;      /* which open this is (relative lookups under it key on it) */
	uint64_t path_key;     /* key of its path in the path table, 0 if none */
	char path[RN_AP_PATH_KEEP]; /* its path, "" if unknown */
	uint64_t n[2];         /* [0] reads, [1] writes that succeeded */
	uint64_t small[2];     /* of which below RN_AP_SMALL_IO_BYTES */
	uint64_t bytes[2];     /* bytes moved */
	uint64_t ns[2];        /* time in those calls */
	uint64_t pos;          /* file offset as far as we can follow it (reads, writes, lseek) */
	uint64_t rd_off[8];    /* offsets + 1 where recent reads started (0 = none), a ring */
	int rd_i;              /* next slot of rd_off */
	uint64_t sync_bytes;   /* written since its last fsync/fdatasync */
	struct callers cl[2];  /* callers of the small reads [0] and writes [1] */
};

/* Per (process, path) accesses: RedundantIO. */
struct path_ent {
	int proc;
	uint32_t opens, stats, rereads;
	uint64_t ns; /* time in those calls */
	char path[RN_AP_PATH_KEEP];
	struct callers cl; /* callers of the opens, stats and re-reads */
};

/* Per (process, syscall, errno) failures: ErrorStorm. */
struct err_ent {
	int proc;
	int nr;
	int err;
	uint64_t count;
	uint64_t ns;
	uint64_t first_ns, last_ns;
	char path1[RN_AP_PATH_KEEP]; /* first path it failed on */
	char path2[RN_AP_PATH_KEEP]; /* latest different path */
	struct callers cl;           /* callers of the failing calls */
};

/* Direct-mapped cache of anonymous mappings: MemoryChurn. Collisions evict (lossy, bounded). */
struct map_slot {
	int32_t pid; /* 0 = empty */
	uint64_t addr;
	uint64_t len;
	uint64_t map_ns;
};

struct ap_pass {
	struct rn_srcloc *src; /* DWARF lines of reported callers, made on first use, or NULL */
	struct rn_trace *t;
	const void *re;        /* process filter (regex_t *), or NULL */
	bool want[RN_AP_COUNT]; /* detectors of this pass */
	struct sc_tab sc;
	struct ap_proc *procs; /* [t->nprocs] */
	size_t nprocs;
	size_t nallowed;       /* processes passing the filter */
	bool spool;            /* the spool was replayed */
	uint64_t spans;        /* spans replayed that passed the filter */
	/* TightLoop */
	struct ktab threads;   /* tid -> struct tl_thread */
	/* fds (SmallIO, RedundantIO, SyncStorm) */
	bool fds_on;
	struct ktab fds;       /* pid << 32 | fd -> struct fd_ent */
	struct top small;      /* SmallIO findings */
	uint64_t io_calls, io_small; /* all reads/writes seen, and the small ones */
	/* RedundantIO */
	struct ktab paths;     /* resolved path key -> struct path_ent */
	uint64_t next_open_id; /* last fd_ent.open_id given out */
	/* the path of the span being replayed, resolved (resolve_path) */
	bool ev_has_path;
	uint64_t ev_key;                /* key of (process, directory, path) */
	char ev_disp[RN_AP_PATH_KEEP];  /* the path for people, directory prepended if known */
	/* ErrorStorm */
	struct ktab errs;      /* pid, nr, errno -> struct err_ent */
	uint64_t failed;       /* failing calls seen */
	/* MemoryChurn */
	struct map_slot *maps; /* [RN_AP_MAP_SLOTS], owned */
	/* callers */
	struct rn_symbolizer *sym;   /* symbols by module, owned */
	struct ktab cdefs;           /* caller key -> struct caller_def */
	struct caller_memo *cmemo;   /* [CALLER_CACHE], owned */
	uint64_t ev_caller;          /* caller key of the span being replayed, 0 if unknown */
};

/* The process's comm, or the nearest ancestor's (a forked child runs its parent's image). */
static const char *proc_comm(const struct rn_trace *t, int i)
{
	int depth = 0;

	while (i >= 0 && (size_t)i < t->nprocs && depth++ < 256) {
		if (t->procs[i].comm)
			return t->procs[i].comm;
		i = t->procs[i].parent;
	}
	return NULL;
}

static bool comm_matches(const void *re, const char *comm)
{
	/* The config compiles patterns anchored ("^(...)$"), so a match is a full match. */
	return !re || !regexec((const regex_t *)re, comm ? comm : "", 0, NULL, 0);
}

/* "pid 1234 (name)". */
struct label {
	char s[160];
};

static struct label plabel(const struct ap_pass *ps, int i)
{
	struct label l;
	const char *comm = proc_comm(ps->t, i);

	if (i < 0 || (size_t)i >= ps->t->nprocs)
		snprintf(l.s, sizeof(l.s), "the process tree");
	else
		snprintf(l.s, sizeof(l.s), "pid %d (%s)", (int)ps->t->procs[i].pid,
			 comm ? comm : "?");
	return l;
}

static uint64_t proc_begin(const struct ap_pass *ps, int i)
{
	const struct rn_process *p = &ps->t->procs[i];

	if (p->start_ns && (!ps->procs[i].first_ns || p->start_ns <= ps->procs[i].first_ns))
		return p->start_ns;
	return ps->procs[i].first_ns;
}

static uint64_t proc_end(const struct ap_pass *ps, int i)
{
	const struct rn_process *p = &ps->t->procs[i];
	uint64_t e = p->end_ns ? p->end_ns : ps->t->end_ns;

	if (ps->procs[i].last_ns > e)
		e = ps->procs[i].last_ns;
	return e;
}

/* Lifetime of a process: birth (or first span) to exit (or end of the run), ns. */
static uint64_t proc_life(const struct ap_pass *ps, int i)
{
	uint64_t b = proc_begin(ps, i), e = proc_end(ps, i);

	return e > b ? e - b : 0;
}

static uint64_t rel_ns(const struct ap_pass *ps, uint64_t ns)
{
	uint64_t base = ps->t->start_ns;

	if (!base && ps->t->nprocs)
		base = ps->t->procs[0].start_ns;
	return ns > base ? ns - base : 0;
}

/* The caller of the span being replayed (ps->ev_caller), memoized per (snapshot, stack). */
static void resolve_caller(struct ap_pass *ps, int proc, const struct rn_syscall_event *ev)
{
	const struct rn_maps *m = ps->t->procs[proc].maps;
	struct caller_memo *memo;
	struct caller_def *d;
	struct rn_frame fr;
	uint64_t tag = (uint64_t)(uintptr_t)m;
	int i;

	ps->ev_caller = 0;
	if (!ev->nstack || !m)
		return;
	for (i = 0; i < ev->nstack && i < RN_SYSCALL_STACK_MAX; i++)
		tag = mix64(tag ^ ev->stack[i]);
	tag |= 1;
	memo = &ps->cmemo[tag & (CALLER_CACHE - 1)];
	if (memo->tag == tag) {
		ps->ev_caller = memo->key;
		return;
	}
	memo->tag = tag;
	memo->key = 0;
	if (rn_symbolize_caller(ps->sym, m, ev->stack, ev->nstack, &fr))
		return;
	/* one key per function (per address where the module has no symbol for it) */
	memo->key = fr.function ? mix64(str_key(fr.module, 1) ^ fr.function_start)
				: mix64(str_key(fr.module, 2) ^ fr.vaddr);
	if (!memo->key || memo->key == UINT64_MAX)
		memo->key = 1;
	d = ktab_get(&ps->cdefs, memo->key, true);
	if (!d) {
		memo->key = 0; /* too many distinct callers: this one stays unnamed */
		return;
	}
	if (!d->module) {
		d->function = fr.function;
		d->module = fr.module;
		d->vaddr = fr.vaddr;
	}
	ps->ev_caller = memo->key;
}

/* Evidence line naming the dominant caller of a finding's spans ("what" names the spans);
 * nothing when none was attributed (no stacks, stripped or unreadable modules). */
static void add_caller(struct ap_pass *ps, struct rn_buf *b, const struct callers *cl,
		       const char *what)
{
	const struct caller_def *d;
	const char *base;
	int i, best = -1;

	for (i = 0; i < CALLER_SLOTS; i++)
		if (cl->key[i] && (best < 0 || cl->n[i] > cl->n[best]))
			best = i;
	if (best < 0 || !cl->total)
		return;
	d = ktab_get(&ps->cdefs, cl->key[best], false);
	if (!d || !d->module)
		return;
	base = strrchr(d->module, '/');
	base = base ? base + 1 : d->module;
	{
		/* file:line from DWARF when the module has it: "main (src/app.c:42; app+0x1275)" */
		struct rn_src_frame f[RN_SRC_FRAMES_MAX];
		int n;

		if (!ps->src)
			ps->src = rn_srcloc_new(NULL);
		n = rn_srcloc_lookup(ps->src, d->module, d->vaddr ? d->vaddr - 1 : 0, f,
				     RN_SRC_FRAMES_MAX);
		if (n > 0 && f[0].file && f[0].line) {
			rn_buf_addf(b, "  called from %s (%s:%d; %s+0x%" PRIx64 ")",
				    f[0].function ? f[0].function : d->function ? d->function : "?",
				    f[0].file, f[0].line, base, d->vaddr);
			if (f[0].inlined && n > 1)
				rn_buf_addf(b, " inlined in %s (%s:%d)",
					    f[n - 1].function ? f[n - 1].function : "?",
					    f[n - 1].file ? f[n - 1].file : "?", f[n - 1].line);
		} else {
			rn_buf_addf(b, "  called from %s (%s+0x%" PRIx64 ")",
				    d->function ? d->function : "?", base, d->vaddr);
		}
	}
	rn_buf_addf(b, ": %" PRIu64 " of %" PRIu64 " %s (%.0f%%)\n", cl->n[best], cl->total, what,
		    pct((double)cl->n[best], (double)cl->total));
}

/* ---- TightLoop ------------------------------------------------------------------------------
 *
 * Definition: a thread spins when it makes the same no-progress syscalls back to back with
 * tiny user-space gaps (<= RN_AP_TL_MAX_GAP_NS between one call's exit and the next call's
 * entry). A call continues a spin run when it is
 *   - sched_yield;
 *   - a poll-family call (poll, ppoll, select, pselect6, epoll_wait, epoll_pwait[2]) that
 *     timed out (returned 0) with a zero timeout argument, or, where the timeout is behind a
 *     pointer, within RN_AP_TL_TINY_WAIT_NS;
 *   - a sleep (nanosleep, clock_nanosleep) that lasted less than RN_AP_TL_TINY_WAIT_NS;
 *   - any other call identical to one of the thread's last RN_AP_TL_SIGS distinct calls (same
 *     number, same arguments as far as the call takes them, same decoded path, same result),
 *     taking under
 *     RN_AP_TL_MAX_GAP_NS itself, unless it moved data (a positive read/write/getdents/...
 *     return is progress, not spinning) or it is a memory, futex, exit or exec call.
 * Confidence, per process, best process reported:
 *   min(ramp_log(spin calls; RUN_LO, RUN_HI), ramp_lin(spin share; SHARE_LO, SHARE_HI))
 * where spin calls are the calls in its runs of >= RN_AP_TL_EPISODE_MIN calls and spin share
 * = wall time of those runs / its lifetime. Counting all such runs rather than the longest
 * keeps the confidence stable when preemption splits one spin into several runs (a gap over
 * RN_AP_TL_MAX_GAP_NS ends a run). The longest run is shown as evidence.
 * Without the spool only sched_yield storms can be seen (statistics): confidence
 * ramp_log(sched_yield calls; YIELD_LO, YIELD_HI); nothing there means NO DATA.
 */

static uint64_t str_key(const char *s, uint64_t seed);

/* Hash of a call's signature: number, compared arguments, result, decoded path. */
static uint64_t ev_sig_hash(const struct rn_syscall_event *ev, int nargs)
{
	uint64_t h = mix64((uint64_t)(uint32_t)ev->nr << 32 ^ (uint64_t)(uint32_t)ev->err);
	int i;

	h = mix64(h ^ (uint64_t)ev->ret);
	for (i = 0; i < nargs && i < 6; i++)
		h = mix64(h ^ ev->args[i]);
	return ev->path ? str_key(ev->path, h) : h;
}

/* Is `ev` (whose signature hashes to `h`) the call of signature `a`? */
static bool sig_equal(const struct tl_sig *a, const struct rn_syscall_event *ev, int nargs,
		      uint64_t h)
{
	int i;

	if (a->hash != h || a->nr != ev->nr || a->ret != ev->ret || a->err != ev->err)
		return false;
	for (i = 0; i < nargs && i < 6; i++)
		if (a->args[i] != ev->args[i])
			return false;
	return true;
}

/* Move the signature of `ev` to the front of the history; returns its slot (0). */
static struct tl_sig *sig_touch(struct tl_thread *th, const struct rn_syscall_event *ev, int nargs,
			       uint64_t sh)
{
	struct tl_sig s;
	int i, found = -1;

	for (i = 0; i < th->nhist; i++)
		if (sig_equal(&th->hist[i], ev, nargs, sh)) {
			found = i;
			break;
		}
	if (found >= 0) {
		s = th->hist[found];
	} else {
		memset(&s, 0, sizeof(s));
		s.nr = ev->nr;
		s.err = ev->err;
		s.ret = ev->ret;
		memcpy(s.args, ev->args, sizeof(s.args));
		s.hash = sh;
		found = th->nhist < RN_AP_TL_SIGS ? th->nhist++ : RN_AP_TL_SIGS - 1;
	}
	for (i = found; i > 0; i--)
		th->hist[i] = th->hist[i - 1];
	th->hist[0] = s;
	return &th->hist[0];
}

static void tl_end_run(struct ap_pass *ps, struct tl_thread *th)
{
	struct tl_cur *r = &th->run;
	struct ap_proc *pp = &ps->procs[th->proc];
	int i;

	if (r->len >= RN_AP_TL_EPISODE_MIN) {
		pp->spin_ns += r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
		pp->spin_runs++;
		pp->spin_calls += r->len;
	}
	if (r->len >= 2 && (!pp->best || r->len > pp->best->c.len)) {
		struct tl_run *br;
		int j;

		if (!pp->best)
			pp->best = rn_xcalloc(1, sizeof(*pp->best));
		br = pp->best;
		br->c = *r;
		br->nsigs = 0;
		for (i = 0; i < th->nhist; i++) {
			if (!th->hist[i].count)
				continue;
			/* most frequent first */
			for (j = br->nsigs; j > 0 && br->sigs[j - 1].count < th->hist[i].count; j--)
				br->sigs[j] = br->sigs[j - 1];
			br->sigs[j] = th->hist[i];
			br->nsigs++;
		}
	}
	for (i = 0; i < th->nhist; i++)
		th->hist[i].count = 0;
	memset(r, 0, sizeof(*r));
	th->pre = false;
}

/* How a call relates to spinning (enum tl_step). */
enum tl_step {
	TL_BREAK, /* progress or never-spin: ends the run */
	TL_START, /* a no-progress call not seen just before: may start a run */
	TL_SPIN,  /* continues (or starts) a run */
};

static enum tl_step tl_classify(const struct ap_pass *ps, const struct tl_thread *th,
				const struct sc_info *si, const struct rn_syscall_event *ev, uint64_t sh)
{
	bool timed = !ps->t->counts_only; /* durations are meaningful */
	int i;

	if ((ev->flags & RN_SC_UNFINISHED) || (si->flags & C_NOSPIN))
		return TL_BREAK;
	if ((si->flags & C_PROGRESS) && !ev->err && ev->ret > 0)
		return TL_BREAK;
	if (si->flags & C_YIELD)
		return TL_SPIN;
	if (si->flags & C_POLL) {
		if (ev->err)
			return TL_START;
		if (ev->ret != 0)
			return TL_BREAK;
		if (si->tmo_arg >= 0)
			return (int32_t)(uint32_t)ev->args[si->tmo_arg] == 0 ? TL_SPIN : TL_BREAK;
		return timed && ev->duration_ns < RN_AP_TL_TINY_WAIT_NS ? TL_SPIN : TL_BREAK;
	}
	if (si->flags & C_SLEEP)
		return timed && !ev->err && ev->duration_ns < RN_AP_TL_TINY_WAIT_NS ? TL_SPIN
										    : TL_BREAK;
	if (timed && ev->duration_ns >= RN_AP_TL_MAX_GAP_NS)
		return TL_BREAK; /* a blocking call: a loop around it is not tight */
	for (i = 0; i < th->nhist; i++)
		if (sig_equal(&th->hist[i], ev, si->nargs, sh))
			return TL_SPIN;
	return TL_START;
}

static void tl_span(struct ap_pass *ps, int proc, const struct sc_info *si,
		    const struct rn_syscall_event *ev)
{
	struct tl_thread *th = ktab_get(&ps->threads, (uint64_t)(uint32_t)ev->tid, true);
	enum tl_step step;
	bool gap_ok, pre;
	uint64_t sh = ev_sig_hash(ev, si->nargs);
	uint64_t end = ev->start_ns + ev->duration_ns;
	struct tl_sig *s;

	if (!th)
		return;
	if (!th->seen) {
		th->proc = proc;
		th->seen = true;
		th->last_end_ns = ev->start_ns;
	} else if (th->proc != proc) {
		/* tid reused by another process: start over */
		tl_end_run(ps, th);
		th->nhist = 0;
		th->proc = proc;
	}
	step = tl_classify(ps, th, si, ev, sh);
	gap_ok = ev->start_ns <= th->last_end_ns ||
		 ev->start_ns - th->last_end_ns <= RN_AP_TL_MAX_GAP_NS;
	if (th->run.len && (step != TL_SPIN || !gap_ok))
		tl_end_run(ps, th);
	if (step == TL_SPIN && !th->run.len) {
		th->run.tid = ev->tid;
		th->run.start_ns = ev->start_ns;
		th->pre = th->pend && gap_ok && th->nhist;
		if (th->pre) {
			th->pre_hash = th->hist[0].hash;
			th->pre_start_ns = th->pend_start_ns;
			th->pre_ns = th->pend_ns;
		}
	}
	pre = th->pre && step == TL_SPIN && th->pre_hash == sh;
	s = sig_touch(th, ev, si->nargs, sh);
	if (step == TL_SPIN) {
		if (pre) {
			th->pre = false;
			th->run.start_ns = th->pre_start_ns;
			th->run.len++;
			th->run.call_ns += th->pre_ns;
			s->count++;
		}
		th->run.len++;
		th->run.end_ns = end;
		th->run.call_ns += ev->duration_ns;
		callers_add(&th->run.cl, ps->ev_caller);
		s->count++;
	}
	th->pend = step == TL_START;
	th->pend_start_ns = ev->start_ns;
	th->pend_ns = ev->duration_ns;
	th->last_end_ns = end;
	if (si->flags & C_EXIT) {
		/* The thread is gone: keep the table to live threads. */
		tl_end_run(ps, th);
		ktab_del(&ps->threads, th);
	}
}

static void tl_finish(struct ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	int best = -1;
	double best_conf = -1, best_len = -1, conf_run = 0, conf_share = 0;
	struct rn_buf b;

	if (ps->spool) {
		for (i = 0; i < ps->threads.cap; i++)
			if (ps->threads.keys[i])
				tl_end_run(ps, ktab_slot(&ps->threads, i));
	}
	if (!ps->spool) {
		/* Statistics only: sched_yield storms. */
		int nr = rn_syscall_lookup("sched_yield");
		uint64_t calls = 0;

		for (i = 0; nr >= 0 && i < ps->nprocs; i++) {
			const struct rn_process *p = &ps->t->procs[i];

			if (ps->procs[i].allowed && p->sc && p->sc[nr].calls > calls) {
				calls = p->sc[nr].calls;
				best = (int)i;
			}
		}
		out->confidence = rn_ap_ramp_log((double)calls, RN_AP_TL_YIELD_LO, RN_AP_TL_YIELD_HI);
		if (out->confidence <= 0) {
			out->no_data = true;
			out->evidence = xfmt("the spool was not enabled: TightLoop needs every syscall "
					     "span (statistics show no sched_yield storm)");
			return;
		}
		out->proc = best;
		out->summary = xfmt("%s called sched_yield %" PRIu64 " times", plabel(ps, best).s,
				    calls);
		out->evidence = xfmt("%s: %" PRIu64 " sched_yield calls (per-process statistics; "
				     "the spool was not enabled, so runs and polls were not seen)\n"
				     "confidence = ramp_log(calls %" PRIu64 "; %.0f..%.0f) = %.2f",
				     plabel(ps, best).s, calls, calls, RN_AP_TL_YIELD_LO,
				     RN_AP_TL_YIELD_HI, out->confidence);
		return;
	}
	for (i = 0; i < ps->nprocs; i++) {
		const struct ap_proc *pp = &ps->procs[i];
		double life, share, c1, c2, c;

		if (!pp->allowed || !pp->best)
			continue;
		life = (double)proc_life(ps, (int)i);
		share = life > 0 ? (double)pp->spin_ns / life : 0;
		if (share > 1)
			share = 1;
		c1 = rn_ap_ramp_log((double)pp->spin_calls, RN_AP_TL_RUN_LO, RN_AP_TL_RUN_HI);
		c2 = rn_ap_ramp_lin(share, RN_AP_TL_SHARE_LO, RN_AP_TL_SHARE_HI);
		c = min2(c1, c2);
		if (c > best_conf || (c == best_conf && (double)pp->best->c.len > best_len)) {
			best = (int)i;
			best_conf = c;
			best_len = (double)pp->best->c.len;
			conf_run = c1;
			conf_share = c2;
		}
	}
	if (best < 0) {
		out->confidence = 0;
		out->evidence = xfmt("no run of repeated no-progress calls in %" PRIu64 " spans",
				     ps->spans);
		return;
	}
	{
		const struct ap_proc *pp = &ps->procs[best];
		const struct tl_run *br = pp->best;
		const struct tl_cur *r = &br->c;
		uint64_t wall = r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
		uint64_t life = proc_life(ps, best);
		double gap = r->len > 1 && wall > r->call_ns ?
				     (double)(wall - r->call_ns) / (double)(r->len - 1) : 0;
		int k;

		out->confidence = best_conf;
		out->proc = best;
		rn_buf_init(&b, 0);
		for (k = 0; k < br->nsigs; k++)
			if (!k || br->sigs[k].nr != br->sigs[0].nr)
				rn_buf_addf(&b, "%s%s", k ? "/" : "", rn_syscall_name(br->sigs[k].nr));
		out->summary = xfmt("%s: %" PRIu64 " no-progress calls in spin runs, the longest %"
				    PRIu64 " consecutive %s calls (spinning %.1f%% of its lifetime)",
				    plabel(ps, best).s, pp->spin_calls, r->len, b.buf,
				    pct((double)pp->spin_ns, (double)life));
		rn_buf_reset(&b);
		rn_buf_addf(&b, "%s, thread %d: longest run %" PRIu64 " consecutive no-progress "
			    "calls\n", plabel(ps, best).s, (int)r->tid, r->len);
		for (k = 0; k < br->nsigs; k++) {
			rn_buf_adds(&b, "  calls: ");
			add_call(&b, &ps->sc, br->sigs[k].nr, br->sigs[k].args, br->sigs[k].ret,
				 br->sigs[k].err);
			rn_buf_addf(&b, " x%" PRIu64 "\n", br->sigs[k].count);
		}
		rn_buf_addf(&b, "  run: %s from +%s, mean gap %s, %.0f calls/s, %.0f%% of it "
			    "inside the calls\n",
			    dur(wall).s, dur(rel_ns(ps, r->start_ns)).s, dur((uint64_t)gap).s,
			    wall ? (double)r->len * 1e9 / (double)wall : 0.0,
			    pct((double)r->call_ns, (double)wall));
		add_caller(ps, &b, &r->cl, "calls of the run");
		rn_buf_addf(&b, "  spinning: %" PRIu64 " calls, %s in %" PRIu64 " run%s of >= %d "
			    "calls = %.1f%% of the process lifetime (%s)\n",
			    pp->spin_calls, dur(pp->spin_ns).s, pp->spin_runs,
			    pp->spin_runs == 1 ? "" : "s", RN_AP_TL_EPISODE_MIN,
			    pct((double)pp->spin_ns, (double)life), dur(life).s);
		rn_buf_addf(&b, "  confidence = min(ramp_log(spin calls %" PRIu64 "; %.0f..%.0f) "
			    "%.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
			    pp->spin_calls, RN_AP_TL_RUN_LO, RN_AP_TL_RUN_HI, conf_run,
			    life ? (double)pp->spin_ns / (double)life : 0.0, RN_AP_TL_SHARE_LO,
			    RN_AP_TL_SHARE_HI, conf_share, best_conf);
		if (ps->threads.dropped)
			rn_buf_addf(&b, "\n  note: %" PRIu64 " threads beyond %u were not followed",
				    ps->threads.dropped, RN_AP_MAX_THREADS);
		out->evidence = buf_take(&b);
	}
}

/* ---- fds: SmallIO, RedundantIO re-reads, SyncStorm -----------------------------------------
 *
 * SmallIO definition: many successful reads or writes on one fd of one process, in one
 * direction, each far below a page: a read asking for, or a write giving, fewer than
 * RN_AP_SMALL_IO_BYTES (vectored and msghdr calls: the bytes moved). Event-style fds
 * (eventfd, timerfd, signalfd, inotify, epoll), whose records are small by definition, are
 * skipped. Confidence, per (process, fd, direction), best reported:
 *   min(ramp_log(small calls; SMALL_IO_LO, SMALL_IO_HI),
 *       ramp_lin(small calls / calls; SMALL_IO_SHARE_LO, SMALL_IO_SHARE_HI))
 * Without the spool (no sizes): NO DATA.
 */

static uint64_t fd_key(pid_t pid, int64_t fd)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
}

static void fd_finalize(struct ap_pass *ps, struct fd_ent *f)
{
	int dir;

	if (!ps->want[RN_AP_SMALL_IO] || f->kind == FD_EVENT)
		return;
	for (dir = 0; dir < 2; dir++) {
		double n = (double)f->n[dir], sm = (double)f->small[dir];
		double c1, c2, c, life;
		struct cand c0;
		struct rn_buf b;
		const char *what = dir ? "write" : "read";

		if (!f->small[dir])
			continue;
		c1 = rn_ap_ramp_log(sm, RN_AP_SMALL_IO_LO, RN_AP_SMALL_IO_HI);
		c2 = rn_ap_ramp_lin(sm / n, RN_AP_SMALL_IO_SHARE_LO, RN_AP_SMALL_IO_SHARE_HI);
		c = min2(c1, c2);
		if (!top_wants(&ps->small, c, sm))
			continue;
		life = (double)proc_life(ps, f->proc);
		memset(&c0, 0, sizeof(c0));
		c0.conf = c;
		c0.mag = sm;
		c0.proc = f->proc;
		c0.summary = xfmt("%s: %" PRIu64 " %ss below %d bytes on fd %d%s%s%s (mean %.0f "
				  "bytes)",
				  plabel(ps, f->proc).s, f->small[dir], what, RN_AP_SMALL_IO_BYTES,
				  f->fd, f->path[0] ? " (" : "", f->path, f->path[0] ? ")" : "",
				  n > 0 ? (double)f->bytes[dir] / n : 0.0);
		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s, fd %d %s\n", plabel(ps, f->proc).s, f->fd,
			    f->path[0] ? f->path
				       : f->kind == FD_SOCKET ? "(socket)" : "(inherited or pipe)");
		rn_buf_addf(&b, "  %ss: %" PRIu64 " of %" PRIu64 " below %d bytes (%.1f%%), "
			    "%s moved, mean %.1f bytes per call\n",
			    what, f->small[dir], f->n[dir], RN_AP_SMALL_IO_BYTES, pct(sm, n),
			    bytes_h(f->bytes[dir]).s, n > 0 ? (double)f->bytes[dir] / n : 0.0);
		rn_buf_addf(&b, "  time: %s in these %ss = %.1f%% of the process lifetime (%s)\n",
			    dur(f->ns[dir]).s, what, pct((double)f->ns[dir], life),
			    dur((uint64_t)life).s);
		add_caller(ps, &b, &f->cl[dir], dir ? "small writes" : "small reads");
		rn_buf_addf(&b, "  confidence = min(ramp_log(small %" PRIu64 "; %.0f..%.0f) %.2f, "
			    "ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
			    f->small[dir], RN_AP_SMALL_IO_LO, RN_AP_SMALL_IO_HI, c1, sm / n,
			    RN_AP_SMALL_IO_SHARE_LO, RN_AP_SMALL_IO_SHARE_HI, c2, c);
		c0.evidence = buf_take(&b);
		top_put(&ps->small, &c0);
	}
}

/* Forget fd `fd` of a process (closed, or replaced by dup2), reporting what it did. */
static void fd_drop(struct ap_pass *ps, pid_t pid, int64_t fd)
{
	struct fd_ent *f;

	if (fd < 0 || fd > INT32_MAX)
		return;
	f = ktab_get(&ps->fds, fd_key(pid, fd), false);
	if (!f)
		return;
	fd_finalize(ps, f);
	ktab_del(&ps->fds, f);
}

/* The state of fd `fd` of process `proc`, set up when `create`; NULL when unknown or full. */
static struct fd_ent *fd_get(struct ap_pass *ps, int proc, pid_t pid, int64_t fd, bool create)
{
	struct fd_ent *f;

	if (fd < 0 || fd > INT32_MAX)
		return NULL;
	f = ktab_get(&ps->fds, fd_key(pid, fd), create);
	if (!f || f->used)
		return f;
	if (!create)
		return NULL;
	f->used = true;
	f->proc = proc;
	f->fd = (int)fd;
	return f;
}

/* Count a re-read of the file behind `f` for RedundantIO. */
static void fd_reread(struct ap_pass *ps, const struct fd_ent *f)
{
	struct path_ent *e;

	if (!ps->want[RN_AP_REDUNDANT_IO] || !f->path_key)
		return;
	e = ktab_get(&ps->paths, f->path_key, false);
	if (e) {
		e->rereads++;
		callers_add(&e->cl, ps->ev_caller);
	}
}

static void fd_span(struct ap_pass *ps, int proc, const struct sc_info *si,
		    const struct rn_syscall_event *ev)
{
	struct ap_proc *pp = &ps->procs[proc];
	struct fd_ent *f;
	uint32_t fl = si->flags;

	if (ev->err || (ev->flags & RN_SC_UNFINISHED))
		return;
	if (fl & (C_OPEN | C_SOCKFD | C_EVFD)) {
		fd_drop(ps, ev->pid, ev->ret); /* its close may not have been seen */
		f = fd_get(ps, proc, ev->pid, ev->ret, true);
		if (!f)
			return;
		f->kind = (fl & C_OPEN) ? FD_FILE : (fl & C_SOCKFD) ? FD_SOCKET : FD_EVENT;
		f->open_id = ++ps->next_open_id;
		if ((fl & C_OPEN) && ps->ev_has_path) {
			memcpy(f->path, ps->ev_disp, sizeof(f->path));
			f->path_key = ps->ev_key;
		}
		return;
	}
	if (fl & C_CLOSE) {
		fd_drop(ps, ev->pid, (int64_t)(int32_t)ev->args[0]);
		return;
	}
	if ((fl & C_DUP) || ((fl & C_FCNTL) && (ev->args[1] == 0 || ev->args[1] == 1030))) {
		/* dup, dup2, dup3, fcntl(F_DUPFD = 0 / F_DUPFD_CLOEXEC = 1030) */
		int64_t oldfd = (int64_t)(int32_t)ev->args[0];
		struct fd_ent *src, *dst, copy;

		if (ev->ret == oldfd)
			return;
		fd_drop(ps, ev->pid, ev->ret);
		src = fd_get(ps, proc, ev->pid, oldfd, false);
		if (!src)
			return;
		copy = *src; /* the insertion below may move it */
		dst = fd_get(ps, proc, ev->pid, ev->ret, true);
		if (dst) {
			dst->kind = copy.kind;
			dst->open_id = copy.open_id;
			dst->path_key = copy.path_key;
			memcpy(dst->path, copy.path, sizeof(dst->path));
		}
		return;
	}
	if (fl & C_LSEEK) {
		f = fd_get(ps, proc, ev->pid, (int64_t)(int32_t)ev->args[0], false);
		if (f)
			f->pos = (uint64_t)ev->ret;
		return;
	}
	if (fl & (C_READ | C_WRITE)) {
		int dir = (fl & C_WRITE) ? 1 : 0;
		uint64_t size = (fl & C_RETSIZE) ? (uint64_t)ev->ret : ev->args[2];
		uint64_t moved = ev->ret > 0 ? (uint64_t)ev->ret : 0;

		f = fd_get(ps, proc, ev->pid, (int64_t)(int32_t)ev->args[0], true);
		if (!f)
			return;
		if (f->kind != FD_EVENT) {
			ps->io_calls++;
			if (size < RN_AP_SMALL_IO_BYTES)
				ps->io_small++;
		}
		f->n[dir]++;
		if (size < RN_AP_SMALL_IO_BYTES) {
			f->small[dir]++;
			callers_add(&f->cl[dir], ps->ev_caller);
		}
		f->bytes[dir] += moved;
		f->ns[dir] += ev->duration_ns;
		if (dir) {
			f->sync_bytes += moved;
			pp->writes++;
			pp->write_bytes += moved;
			pp->bytes_since_sync += moved;
			if (!(fl & C_POS))
				f->pos += moved;
			return;
		}
		{
			/* A read starting where one of the last reads started reads the same data
			 * again (a rewind, or pread64 of the same offset); random access to other
			 * offsets does not count. */
			uint64_t off = (fl & C_POS) ? ev->args[3] : f->pos;
			int k;

			if (moved) {
				for (k = 0; k < 8; k++)
					if (f->rd_off[k] == off + 1) {
						fd_reread(ps, f);
						break;
					}
				if (k == 8) {
					f->rd_off[f->rd_i] = off + 1;
					f->rd_i = (f->rd_i + 1) & 7;
				}
			}
			if (!(fl & C_POS))
				f->pos += moved;
		}
		return;
	}
	if (fl & C_SYNC) {
		f = fd_get(ps, proc, ev->pid, (int64_t)(int32_t)ev->args[0], true);
		pp->syncs++;
		pp->sync_ns += ev->duration_ns;
		if (!f || f->sync_bytes < RN_AP_SYNC_SMALL_BYTES) {
			pp->small_syncs++;
			callers_add(&pp->sync_cl, ps->ev_caller);
		}
		if (f) {
			if (f->path[0])
				memcpy(pp->sync_path, f->path, sizeof(pp->sync_path));
			f->sync_bytes = 0;
		}
		pp->bytes_since_sync = 0;
		return;
	}
	if (fl & C_SYNC_ANY) {
		pp->syncs++;
		pp->sync_ns += ev->duration_ns;
		if (pp->bytes_since_sync < RN_AP_SYNC_SMALL_BYTES) {
			pp->small_syncs++;
			callers_add(&pp->sync_cl, ps->ev_caller);
		}
		pp->bytes_since_sync = 0;
	}
}

static void small_finish(struct ap_pass *ps, struct rn_detection *out);

/* ---- RedundantIO ----------------------------------------------------------------------------
 *
 * Definition: one process accesses the same path over and over: successful opens (open,
 * openat, openat2, creat) and lookups (stat, lstat, newfstatat, statx, access, faccessat,
 * readlink) of the same path, plus re-reads of a file through an fd it keeps (a read that
 * starts at the offset where one of its last 8 reads started: a rewind, or pread64 of the
 * same offset; random access elsewhere does not count).
 * redundant = opens + stats + re-reads - 1. Confidence, per (process, path), best reported:
 *   ramp_log(redundant; REDUNDANT_LO, REDUNDANT_HI)
 * A relative path counts per directory: per open of the directory fd it is relative to
 * (openat, newfstatat, ...), or per working directory (each chdir/fchdir starts a new one),
 * so walking many directories that each hold a "Makefile" is not redundant. Without the
 * spool (no paths): NO DATA.
 */

/*
 * Resolve the path of an open/stat for RedundantIO: absolute paths stand for themselves; a
 * path relative to a directory fd is keyed on that particular open of the directory (fd
 * numbers are reused), and shown under the directory's path when known; a path relative to
 * the working directory is keyed on the process's chdir generation.
 */
static void resolve_path(struct ap_pass *ps, int proc, const struct sc_info *si,
			 const struct rn_syscall_event *ev)
{
	uint64_t seed = (uint64_t)(uint32_t)ev->pid;
	int32_t dirfd = (int32_t)(uint32_t)ev->args[0];

	ps->ev_has_path = true;
	if (ev->path[0] == '/') {
		keep_path(ps->ev_disp, sizeof(ps->ev_disp), ev->path);
	} else if ((si->flags & C_ATDIR) && dirfd != -100 /* AT_FDCWD */) {
		const struct fd_ent *d = fd_get(ps, proc, ev->pid, dirfd, false);
		char tmp[RN_AP_PATH_KEEP + RN_PATH_MAX + 2];

		seed ^= mix64(d ? d->open_id : (1ULL << 63 | (uint32_t)dirfd));
		if (d && d->path[0]) {
			snprintf(tmp, sizeof(tmp), "%s/%s", d->path, ev->path);
			keep_path(ps->ev_disp, sizeof(ps->ev_disp), tmp);
		} else {
			keep_path(ps->ev_disp, sizeof(ps->ev_disp), ev->path);
		}
	} else {
		seed ^= mix64(ps->procs[proc].cwd_gen | 1ULL << 62);
		keep_path(ps->ev_disp, sizeof(ps->ev_disp), ev->path);
	}
	ps->ev_key = str_key(ev->path, seed);
}

static void path_span(struct ap_pass *ps, int proc, const struct sc_info *si,
		      const struct rn_syscall_event *ev)
{
	struct path_ent *e;

	if (!(si->flags & (C_OPEN | C_STAT)) || ev->err || !ps->ev_has_path)
		return;
	e = ktab_get(&ps->paths, ps->ev_key, true);
	if (!e)
		return;
	if (!e->path[0]) {
		e->proc = proc;
		memcpy(e->path, ps->ev_disp, sizeof(e->path));
	}
	if (si->flags & C_OPEN)
		e->opens++;
	else
		e->stats++;
	e->ns += ev->duration_ns;
	callers_add(&e->cl, ps->ev_caller);
}

static uint64_t path_n(const struct path_ent *e)
{
	return (uint64_t)e->opens + e->stats + e->rereads;
}

static void redundant_finish(struct ap_pass *ps, struct rn_detection *out)
{
	const struct path_ent *best = NULL, *also[TOP_N];
	size_t i;
	int nalso = 0, k;
	double c;
	uint64_t red, life, tracked = 0;
	struct rn_buf b;

	if (!ps->spool) {
		out->no_data = true;
		out->evidence = xfmt("the spool was not enabled: RedundantIO needs the path of "
				     "every open and stat");
		return;
	}
	for (i = 0; i < ps->paths.cap; i++) {
		const struct path_ent *e = ktab_slot(&ps->paths, i);

		if (!ps->paths.keys[i])
			continue;
		tracked++;
		if (!best || path_n(e) > path_n(best))
			best = e;
	}
	if (!best || path_n(best) < 2) {
		out->confidence = 0;
		out->evidence = xfmt("no path was accessed twice by one process (%" PRIu64
				     " paths)", tracked);
		return;
	}
	/* Runners-up of the same process, for the evidence. */
	for (i = 0; i < ps->paths.cap; i++) {
		const struct path_ent *e = ktab_slot(&ps->paths, i);

		if (!ps->paths.keys[i] || e == best || e->proc != best->proc || path_n(e) < 2)
			continue;
		if (nalso < TOP_N) {
			also[nalso++] = e;
		} else if (path_n(e) > path_n(also[TOP_N - 1])) {
			also[TOP_N - 1] = e;
		} else {
			continue;
		}
		for (k = nalso - 1; k > 0 && path_n(also[k]) > path_n(also[k - 1]); k--) {
			const struct path_ent *tmp = also[k];

			also[k] = also[k - 1];
			also[k - 1] = tmp;
		}
	}
	red = path_n(best) - 1;
	c = rn_ap_ramp_log((double)red, RN_AP_REDUNDANT_LO, RN_AP_REDUNDANT_HI);
	life = proc_life(ps, best->proc);
	out->confidence = c;
	out->proc = best->proc;
	out->summary = xfmt("%s accessed %s %" PRIu64 " times (%u opens, %u stats, %u re-reads)",
			    plabel(ps, best->proc).s, best->path, path_n(best), best->opens,
			    best->stats, best->rereads);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s: %s accessed %" PRIu64 " times: %u opens, %u stats, %u re-reads "
		    "(%" PRIu64 " redundant)\n",
		    plabel(ps, best->proc).s, best->path, path_n(best), best->opens, best->stats,
		    best->rereads, red);
	rn_buf_addf(&b, "  time: %s in these opens and stats = %.1f%% of the process lifetime "
		    "(%s)\n",
		    dur(best->ns).s, pct((double)best->ns, (double)life), dur(life).s);
	add_caller(ps, &b, &best->cl, "accesses");
	for (k = 0; k < nalso; k++)
		rn_buf_addf(&b, "  also: %s %" PRIu64 " times (%u opens, %u stats, %u re-reads)\n",
			    also[k]->path, path_n(also[k]), also[k]->opens, also[k]->stats,
			    also[k]->rereads);
	rn_buf_addf(&b, "  confidence = ramp_log(redundant %" PRIu64 "; %.0f..%.0f) = %.2f", red,
		    RN_AP_REDUNDANT_LO, RN_AP_REDUNDANT_HI, c);
	if (ps->paths.dropped)
		rn_buf_addf(&b, "\n  note: %" PRIu64 " accesses of paths beyond %u were not counted",
			    ps->paths.dropped, RN_AP_MAX_PATHS);
	out->evidence = buf_take(&b);
}

/* ---- ErrorStorm -----------------------------------------------------------------------------
 *
 * Definition: one process fails the same syscall with the same errno many times (ENOENT
 * probing of paths, EAGAIN spinning on a non-blocking fd, EBADF/EINVAL loops). futex
 * failures (EAGAIN, ETIMEDOUT) are its normal protocol and restarted calls are the kernel's
 * business: both are skipped. Confidence, per (process, syscall, errno), best reported:
 *   min(ramp_log(failures; ERR_LO, ERR_HI),
 *       ramp_lin(failures / calls of that syscall in the process; ERR_SHARE_LO, ERR_SHARE_HI))
 * Without the spool the per-process statistics give failures per syscall (errno unknown).
 */

static uint64_t err_key(pid_t pid, int nr, int err)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint64_t)(nr & 0xffff) << 16 | (uint64_t)(err & 0xffff);
}

static void err_span(struct ap_pass *ps, int proc, const struct sc_info *si,
		     const struct rn_syscall_event *ev)
{
	struct err_ent *e;

	if (!ev->err || (ev->flags & (RN_SC_RESTARTED | RN_SC_UNFINISHED)) || (si->flags & C_NOERR))
		return;
	ps->failed++;
	e = ktab_get(&ps->errs, err_key(ev->pid, ev->nr, ev->err), true);
	if (!e)
		return;
	if (!e->count) {
		e->proc = proc;
		e->nr = ev->nr;
		e->err = ev->err;
		e->first_ns = ev->start_ns;
	}
	e->count++;
	e->ns += ev->duration_ns;
	e->last_ns = ev->start_ns + ev->duration_ns;
	callers_add(&e->cl, ps->ev_caller);
	if (ev->path && ev->path[0]) {
		if (!e->path1[0])
			keep_path(e->path1, sizeof(e->path1), ev->path);
		else if (strcmp(e->path1, ev->path))
			keep_path(e->path2, sizeof(e->path2), ev->path);
	}
}

/* Calls of syscall `nr` made by process `proc` (statistics), at least `seen`. */
static uint64_t proc_calls(const struct ap_pass *ps, int proc, int nr, uint64_t seen)
{
	const struct rn_process *p = &ps->t->procs[proc];
	uint64_t n = 0;

	if (p->sc && nr >= 0 && nr < rn_syscall_table_size())
		n = p->sc[nr].calls;
	return n > seen ? n : seen;
}

static void err_cand(struct ap_pass *ps, struct top *tp, int proc, int nr, int err, uint64_t count,
		     uint64_t ns, uint64_t span_ns, const char *path1, const char *path2,
		     const struct callers *cl)
{
	uint64_t calls = proc_calls(ps, proc, nr, count), life = proc_life(ps, proc);
	double share = calls ? (double)count / (double)calls : 0;
	double c1 = rn_ap_ramp_log((double)count, RN_AP_ERR_LO, RN_AP_ERR_HI);
	double c2 = rn_ap_ramp_lin(share, RN_AP_ERR_SHARE_LO, RN_AP_ERR_SHARE_HI);
	double c = min2(c1, c2);
	const char *ename = err ? rn_errno_name(err) : "an error";
	struct cand c0;
	struct rn_buf b;

	if (!top_wants(tp, c, (double)count))
		return;
	memset(&c0, 0, sizeof(c0));
	c0.conf = c;
	c0.mag = (double)count;
	c0.proc = proc;
	c0.summary = xfmt("%s: %" PRIu64 " of %" PRIu64 " %s calls failed with %s",
			  plabel(ps, proc).s, count, calls, rn_syscall_name(nr), ename);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s: %" PRIu64 " of %" PRIu64 " %s calls failed with %s (%.1f%%)\n",
		    plabel(ps, proc).s, count, calls, rn_syscall_name(nr), ename,
		    pct((double)count, (double)calls));
	if (path1 && path1[0])
		rn_buf_addf(&b, "  paths: %s%s%s\n", path1, path2 && path2[0] ? ", ... " : "",
			    path2 ? path2 : "");
	if (span_ns)
		rn_buf_addf(&b, "  time: %s inside the failing calls, spread over %s = %.1f%% "
			    "of the process lifetime (%s)\n",
			    dur(ns).s, dur(span_ns).s, pct((double)span_ns, (double)life),
			    dur(life).s);
	else
		rn_buf_addf(&b, "  time: %s inside the failing calls (per-process statistics; "
			    "the spool was not enabled, errno unknown)\n",
			    dur(ns).s);
	if (cl)
		add_caller(ps, &b, cl, "failing calls");
	rn_buf_addf(&b, "  confidence = min(ramp_log(failures %" PRIu64 "; %.0f..%.0f) %.2f, "
		    "ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
		    count, RN_AP_ERR_LO, RN_AP_ERR_HI, c1, share, RN_AP_ERR_SHARE_LO,
		    RN_AP_ERR_SHARE_HI, c2, c);
	c0.evidence = buf_take(&b);
	top_put(tp, &c0);
}

/* Fill `out` from a detector's best findings: the best one's evidence, the others as "also". */
static void out_from_top(struct ap_pass *ps, const struct top *tp, struct rn_detection *out,
			 const char *dropped_note)
{
	struct rn_buf b;
	int k;

	(void)ps;
	out->confidence = tp->c[0].conf;
	out->proc = tp->c[0].proc;
	out->summary = rn_xstrdup(tp->c[0].summary);
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, tp->c[0].evidence);
	for (k = 1; k < tp->n; k++)
		rn_buf_addf(&b, "\n  also: %s (confidence %.2f)", tp->c[k].summary, tp->c[k].conf);
	if (dropped_note)
		rn_buf_addf(&b, "\n  note: %s", dropped_note);
	out->evidence = buf_take(&b);
}

static void err_finish(struct ap_pass *ps, struct rn_detection *out)
{
	struct top tp;
	size_t i;
	char note[128];

	memset(&tp, 0, sizeof(tp));
	if (ps->spool) {
		for (i = 0; i < ps->errs.cap; i++) {
			const struct err_ent *e = ktab_slot(&ps->errs, i);

			if (!ps->errs.keys[i])
				continue;
			err_cand(ps, &tp, e->proc, e->nr, e->err, e->count, e->ns,
				 e->last_ns > e->first_ns ? e->last_ns - e->first_ns : 1, e->path1,
				 e->path2, &e->cl);
		}
	} else {
		int nr, n = rn_syscall_table_size();

		for (i = 0; i < ps->nprocs; i++) {
			const struct rn_process *p = &ps->t->procs[i];

			if (!ps->procs[i].allowed || !p->sc)
				continue;
			for (nr = 0; nr < n; nr++)
				if (p->sc[nr].errors && !(sc_of(&ps->sc, nr)->flags & C_NOERR))
					err_cand(ps, &tp, (int)i, nr, 0, p->sc[nr].errors,
						 p->sc[nr].total_ns * p->sc[nr].errors /
							 (p->sc[nr].calls ? p->sc[nr].calls : 1),
						 0, NULL, NULL, NULL);
		}
	}
	if (!tp.n) {
		out->confidence = 0;
		out->evidence = xfmt("no failing syscalls (%" PRIu64 " spans%s)", ps->spans,
				     ps->spool ? "" : ", statistics only");
		return;
	}
	snprintf(note, sizeof(note), "%" PRIu64 " (syscall, errno) pairs beyond %u were not counted",
		 ps->errs.dropped, RN_AP_MAX_ERRORS);
	out_from_top(ps, &tp, out, ps->errs.dropped ? note : NULL);
	top_release(&tp);
}

/* ---- SmallIO (finish) ------------------------------------------------------------------------ */

static void small_finish(struct ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	char note[128];

	if (!ps->spool) {
		out->no_data = true;
		out->evidence = xfmt("the spool was not enabled: SmallIO needs the size of every "
				     "read and write");
		return;
	}
	for (i = 0; i < ps->fds.cap; i++) {
		struct fd_ent *f = ktab_slot(&ps->fds, i);

		if (ps->fds.keys[i] && f->used)
			fd_finalize(ps, f);
	}
	if (!ps->small.n) {
		out->confidence = 0;
		out->evidence = xfmt("no small reads or writes: 0 of %" PRIu64 " below %d bytes",
				     ps->io_calls, RN_AP_SMALL_IO_BYTES);
		return;
	}
	snprintf(note, sizeof(note), "%" PRIu64 " fds beyond %u were not followed",
		 ps->fds.dropped, RN_AP_MAX_FDS);
	out_from_top(ps, &ps->small, out, ps->fds.dropped ? note : NULL);
}

/* ---- SyncStorm ------------------------------------------------------------------------------
 *
 * Definition (files): a process makes its data durable far more often than it writes
 * meaningful amounts: fsync/fdatasync/sync_file_range of an fd after fewer than
 * RN_AP_SYNC_SMALL_BYTES written to it since its previous sync (msync/syncfs/sync: written by
 * the process). Confidence per process:
 *   min(ramp_log(small syncs; SYNC_LO, SYNC_HI), ramp_lin(small syncs / syncs; SHARE_LO, HI))
 * Without the spool: syncs and writes from the statistics, with syncs / writes as the share.
 * Definition (GPU): submissions (submit spans, else command buffers, else dispatches) that
 * the host waited for and that ran shorter than RN_AP_GPU_TINY_NS: submit-then-wait per tiny
 * batch. Confidence: min(ramp_log(n; GPU_SYNC_LO, GPU_SYNC_HI), ramp_lin(n / submissions;
 * SHARE_LO, SHARE_HI)). The detector reports the larger of the two.
 */

static bool gpu_allowed(const struct ap_pass *ps, pid_t pid, int *proc)
{
	int i = rn_trace_find_process(ps->t, pid);

	*proc = i;
	if (i >= 0 && (size_t)i < ps->nprocs)
		return ps->procs[i].allowed;
	return !ps->re; /* a span of a process the tracer did not see: only unfiltered */
}

static void sync_finish(struct ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	int best = -1, gpu_proc = -1;
	double best_c = 0, best_c1 = 0, best_c2 = 0, best_share = 0;
	uint64_t best_small = 0, best_syncs = 0, best_writes = 0;
	uint64_t units[RN_GPU_SUBMIT + 1] = { 0 }, tiny = 0, nunits = 0, tiny_ns = 0;
	enum rn_gpu_kind unit = RN_GPU_SUBMIT;
	double gc = 0, gc1 = 0, gc2 = 0;
	struct rn_buf b;
	int nr_fsync = rn_syscall_lookup("fsync"), nr_fdatasync = rn_syscall_lookup("fdatasync");
	int nr_sfr = rn_syscall_lookup("sync_file_range");
	const char *wnames[] = { "write", "pwrite64", "writev", "pwritev", "pwritev2" };

	for (i = 0; i < ps->nprocs; i++) {
		struct ap_proc *pp = &ps->procs[i];
		const struct rn_process *p = &ps->t->procs[i];
		uint64_t small, syncs, writes;
		double share, c1, c2, c;

		if (!pp->allowed)
			continue;
		if (ps->spool) {
			small = pp->small_syncs;
			syncs = pp->syncs;
			writes = pp->writes;
			share = syncs ? (double)small / (double)syncs : 0;
		} else {
			size_t k;
			int nrs[3] = { nr_fsync, nr_fdatasync, nr_sfr };

			syncs = writes = 0;
			for (k = 0; k < 3 && p->sc; k++)
				if (nrs[k] >= 0)
					syncs += p->sc[nrs[k]].calls - p->sc[nrs[k]].errors;
			for (k = 0; k < sizeof(wnames) / sizeof(wnames[0]) && p->sc; k++) {
				int nr = rn_syscall_lookup(wnames[k]);

				if (nr >= 0)
					writes += p->sc[nr].calls;
			}
			small = syncs;
			share = writes ? (double)syncs / (double)writes : (syncs ? 1.0 : 0.0);
			if (share > 1)
				share = 1;
		}
		if (!small)
			continue;
		c1 = rn_ap_ramp_log((double)small, RN_AP_SYNC_LO, RN_AP_SYNC_HI);
		c2 = rn_ap_ramp_lin(share, RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI);
		c = min2(c1, c2);
		if (best < 0 || c > best_c || (c == best_c && small > best_small)) {
			best = (int)i;
			best_c = c;
			best_c1 = c1;
			best_c2 = c2;
			best_share = share;
			best_small = small;
			best_syncs = syncs;
			best_writes = writes;
		}
	}
	/* GPU: the coarsest kind of span present is the submission unit. */
	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];
		int proc;

		if (gpu_allowed(ps, g->pid, &proc) && g->kind <= RN_GPU_SUBMIT)
			units[g->kind]++;
	}
	if (!units[RN_GPU_SUBMIT])
		unit = units[RN_GPU_CMDBUF] ? RN_GPU_CMDBUF : RN_GPU_DISPATCH;
	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];
		uint64_t d = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
		int proc;

		if (!gpu_allowed(ps, g->pid, &proc) || g->kind != unit)
			continue;
		nunits++;
		if ((g->flags & RN_GPU_WAITED) && d < RN_AP_GPU_TINY_NS) {
			tiny++;
			tiny_ns += d;
			if (gpu_proc < 0)
				gpu_proc = proc;
		}
	}
	if (tiny) {
		gc1 = rn_ap_ramp_log((double)tiny, RN_AP_GPU_SYNC_LO, RN_AP_GPU_SYNC_HI);
		gc2 = rn_ap_ramp_lin((double)tiny / (double)nunits, RN_AP_SYNC_SHARE_LO,
				     RN_AP_SYNC_SHARE_HI);
		gc = min2(gc1, gc2);
	}
	if (best < 0 && !tiny) {
		out->confidence = 0;
		out->evidence = xfmt("no small syncs%s", ps->t->ngpu ? " and no tiny waited GPU "
									 "submissions" : "");
		return;
	}
	rn_buf_init(&b, 0);
	if (best >= 0) {
		const struct ap_proc *pp = &ps->procs[best];
		uint64_t life = proc_life(ps, best);

		if (ps->spool)
			rn_buf_addf(&b, "%s: %" PRIu64 " of %" PRIu64 " syncs came after less than %s "
				    "written (%.1f%%); %" PRIu64 " writes, %s written in all%s%s\n",
				    plabel(ps, best).s, best_small, best_syncs,
				    bytes_h(RN_AP_SYNC_SMALL_BYTES).s, 100.0 * best_share, best_writes,
				    bytes_h(pp->write_bytes).s, pp->sync_path[0] ? ", e.g. " : "",
				    pp->sync_path);
		else
			rn_buf_addf(&b, "%s: %" PRIu64 " syncs for %" PRIu64 " writes (%.2f per "
				    "write; per-process statistics, the spool was not enabled)\n",
				    plabel(ps, best).s, best_syncs, best_writes, best_share);
		if (ps->spool)
			rn_buf_addf(&b, "  time: %s in syncs = %.1f%% of the process lifetime (%s)\n",
				    dur(pp->sync_ns).s, pct((double)pp->sync_ns, (double)life),
				    dur(life).s);
		add_caller(ps, &b, &pp->sync_cl, "small syncs");
		rn_buf_addf(&b, "  confidence (files) = min(ramp_log(small syncs %" PRIu64 "; "
			    "%.0f..%.0f) %.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f\n",
			    best_small, RN_AP_SYNC_LO, RN_AP_SYNC_HI, best_c1, best_share,
			    RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI, best_c2, best_c);
	}
	if (tiny) {
		rn_buf_addf(&b, "GPU: %" PRIu64 " of %" PRIu64 " %s spans were waited for and ran "
			    "under %s (%s of GPU time in them)\n",
			    tiny, nunits, rn_gpu_kind_name(unit), dur(RN_AP_GPU_TINY_NS).s,
			    dur(tiny_ns).s);
		rn_buf_addf(&b, "  confidence (GPU) = min(ramp_log(tiny waited %" PRIu64 "; "
			    "%.0f..%.0f) %.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f\n",
			    tiny, RN_AP_GPU_SYNC_LO, RN_AP_GPU_SYNC_HI, gc1,
			    (double)tiny / (double)nunits, RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI,
			    gc2, gc);
	}
	rn_buf_addf(&b, "confidence = max(files, GPU) = %.2f", best_c > gc ? best_c : gc);
	out->evidence = buf_take(&b);
	if (best >= 0 && best_c >= gc) {
		out->confidence = best_c;
		out->proc = best;
		out->summary = xfmt("%s synced %" PRIu64 " times after small writes (%" PRIu64
				    " writes)", plabel(ps, best).s, best_small, best_writes);
	} else {
		out->confidence = gc;
		out->proc = gpu_proc;
		out->summary = xfmt("%" PRIu64 " of %" PRIu64 " GPU %s spans were tiny and waited "
				    "for", tiny, nunits, rn_gpu_kind_name(unit));
	}
}

/* ---- MemoryChurn ----------------------------------------------------------------------------
 *
 * Definition: a process maps anonymous memory and unmaps it again within
 * RN_AP_CHURN_SHORT_NS (mmap(MAP_ANONYMOUS) followed by munmap of the same address; mremap
 * moves keep the mapping alive), or shrinks its heap with brk and grows it back within the
 * same time, over and over. Each costs two syscalls plus page faults on fresh pages.
 * churn = short-lived mappings + brk shrink/grow cycles; base = anonymous mmaps + brk growths.
 * Confidence per process:
 *   min(ramp_log(churn; CHURN_LO, CHURN_HI), ramp_lin(churn / base; SHARE_LO, SHARE_HI))
 * Without the spool: min(ramp_log(munmap calls; CHURN_LO, CHURN_HI),
 *   ramp_log(alloc_total_bytes / alloc_peak_bytes; TURNOVER_LO, TURNOVER_HI)).
 * Mappings are followed in a direct-mapped cache of RN_AP_MAP_SLOTS entries: a collision
 * forgets the older mapping, which can only undercount.
 */

static struct map_slot *map_slot_of(struct ap_pass *ps, pid_t pid, uint64_t addr)
{
	uint64_t h = mix64((uint64_t)(uint32_t)pid << 48 ^ addr);

	return &ps->maps[h & (RN_AP_MAP_SLOTS - 1)];
}

static void churn_span(struct ap_pass *ps, int proc, const struct sc_info *si,
		       const struct rn_syscall_event *ev)
{
	struct ap_proc *pp = &ps->procs[proc];
	struct map_slot *m;
	uint64_t end = ev->start_ns + ev->duration_ns;

	if (!(si->flags & (C_MMAP | C_MUNMAP | C_MREMAP | C_BRK)))
		return;
	pp->mm_calls++;
	pp->mm_ns += ev->duration_ns;
	if (ev->err || (ev->flags & RN_SC_UNFINISHED))
		return;
	if (si->flags & C_MMAP) {
		if (!(ev->args[3] & 0x20)) /* MAP_ANONYMOUS on every supported architecture */
			return;
		pp->anon_maps++;
		m = map_slot_of(ps, ev->pid, (uint64_t)ev->ret);
		m->pid = ev->pid;
		m->addr = (uint64_t)ev->ret;
		m->len = ev->args[1];
		m->map_ns = end;
	} else if (si->flags & C_MUNMAP) {
		pp->unmaps++;
		m = map_slot_of(ps, ev->pid, ev->args[0]);
		if (m->pid != ev->pid || m->addr != ev->args[0])
			return;
		if (ev->start_ns >= m->map_ns && ev->start_ns - m->map_ns < RN_AP_CHURN_SHORT_NS) {
			pp->short_unmaps++;
			pp->short_bytes += m->len;
			callers_add(&pp->churn_cl, ps->ev_caller);
		}
		m->pid = 0;
	} else if (si->flags & C_MREMAP) {
		struct map_slot old;

		m = map_slot_of(ps, ev->pid, ev->args[0]);
		if (m->pid != ev->pid || m->addr != ev->args[0])
			return;
		old = *m;
		m->pid = 0;
		m = map_slot_of(ps, ev->pid, (uint64_t)ev->ret);
		*m = old;
		m->addr = (uint64_t)ev->ret;
		m->len = ev->args[2];
	} else {
		uint64_t nb = (uint64_t)ev->ret;

		if (!ev->args[0] || !pp->brk_cur) {
			pp->brk_cur = nb;
			return;
		}
		if (nb > pp->brk_cur) {
			pp->brk_grows++;
			if (pp->brk_shrunk &&
			    ev->start_ns - pp->brk_shrink_ns < RN_AP_CHURN_SHORT_NS) {
				pp->brk_cycles++;
				callers_add(&pp->churn_cl, ps->ev_caller);
			}
			pp->brk_shrunk = false;
		} else if (nb < pp->brk_cur) {
			pp->brk_shrunk = true;
			pp->brk_shrink_ns = end;
		}
		pp->brk_cur = nb;
	}
}

static void churn_finish(struct ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	int best = -1, nr_munmap = rn_syscall_lookup("munmap");
	double best_c = 0, c1b = 0, c2b = 0, xb = 0, yb = 0;
	struct rn_buf b;

	for (i = 0; i < ps->nprocs; i++) {
		const struct ap_proc *pp = &ps->procs[i];
		const struct rn_process *p = &ps->t->procs[i];
		double x, y, c1, c2, c;

		if (!pp->allowed)
			continue;
		if (ps->spool) {
			uint64_t base = pp->anon_maps + pp->brk_grows;

			x = (double)(pp->short_unmaps + pp->brk_cycles);
			y = base ? x / (double)base : 0;
			c1 = rn_ap_ramp_log(x, RN_AP_CHURN_LO, RN_AP_CHURN_HI);
			c2 = rn_ap_ramp_lin(y, RN_AP_CHURN_SHARE_LO, RN_AP_CHURN_SHARE_HI);
		} else {
			x = p->sc && nr_munmap >= 0 ? (double)p->sc[nr_munmap].calls : 0;
			y = p->alloc_peak_bytes ?
				    (double)p->alloc_total_bytes / (double)p->alloc_peak_bytes : 0;
			c1 = rn_ap_ramp_log(x, RN_AP_CHURN_LO, RN_AP_CHURN_HI);
			c2 = rn_ap_ramp_log(y, RN_AP_CHURN_TURNOVER_LO, RN_AP_CHURN_TURNOVER_HI);
		}
		if (x <= 0)
			continue;
		c = min2(c1, c2);
		if (best < 0 || c > best_c || (c == best_c && x > xb)) {
			best = (int)i;
			best_c = c;
			c1b = c1;
			c2b = c2;
			xb = x;
			yb = y;
		}
	}
	if (best < 0) {
		out->confidence = 0;
		out->evidence = xfmt("no short-lived anonymous mappings or brk cycles");
		return;
	}
	out->confidence = best_c;
	out->proc = best;
	rn_buf_init(&b, 0);
	if (ps->spool) {
		const struct ap_proc *pp = &ps->procs[best];
		const struct rn_process *p = &ps->t->procs[best];
		uint64_t life = proc_life(ps, best);

		out->summary = xfmt("%s: %" PRIu64 " anonymous mappings lived under %s, %" PRIu64
				    " brk shrink/grow cycles",
				    plabel(ps, best).s, pp->short_unmaps, dur(RN_AP_CHURN_SHORT_NS).s,
				    pp->brk_cycles);
		rn_buf_addf(&b, "%s: %" PRIu64 " of %" PRIu64 " anonymous mappings were unmapped "
			    "within %s (%s in them); %" PRIu64 " brk shrink/grow cycles of %" PRIu64
			    " growths\n",
			    plabel(ps, best).s, pp->short_unmaps, pp->anon_maps,
			    dur(RN_AP_CHURN_SHORT_NS).s, bytes_h(pp->short_bytes).s, pp->brk_cycles,
			    pp->brk_grows);
		rn_buf_addf(&b, "  time: %s in %" PRIu64 " mmap/munmap/mremap/brk calls = %.1f%% "
			    "of the process lifetime (%s); faults on fresh pages come on top\n",
			    dur(pp->mm_ns).s, pp->mm_calls, pct((double)pp->mm_ns, (double)life),
			    dur(life).s);
		if (p->alloc_peak_bytes)
			rn_buf_addf(&b, "  turnover: %s mapped over its life for a peak of %s\n",
				    bytes_h(p->alloc_total_bytes).s, bytes_h(p->alloc_peak_bytes).s);
		add_caller(ps, &b, &pp->churn_cl, "short-lived unmaps and brk regrowths");
		rn_buf_addf(&b, "  confidence = min(ramp_log(churn %.0f; %.0f..%.0f) %.2f, "
			    "ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
			    xb, RN_AP_CHURN_LO, RN_AP_CHURN_HI, c1b, yb, RN_AP_CHURN_SHARE_LO,
			    RN_AP_CHURN_SHARE_HI, c2b, best_c);
	} else {
		const struct rn_process *p = &ps->t->procs[best];

		out->summary = xfmt("%s: %.0f munmap calls, %s mapped for a peak of %s",
				    plabel(ps, best).s, xb, bytes_h(p->alloc_total_bytes).s,
				    bytes_h(p->alloc_peak_bytes).s);
		rn_buf_addf(&b, "%s: %.0f munmap calls; %s mapped anonymously or by brk over its "
			    "life for a peak of %s (turnover %.1f; per-process statistics, the "
			    "spool was not enabled)\n",
			    plabel(ps, best).s, xb, bytes_h(p->alloc_total_bytes).s,
			    bytes_h(p->alloc_peak_bytes).s, yb);
		rn_buf_addf(&b, "  confidence = min(ramp_log(munmaps %.0f; %.0f..%.0f) %.2f, "
			    "ramp_log(turnover %.1f; %.0f..%.0f) %.2f) = %.2f",
			    xb, RN_AP_CHURN_LO, RN_AP_CHURN_HI, c1b, yb, RN_AP_CHURN_TURNOVER_LO,
			    RN_AP_CHURN_TURNOVER_HI, c2b, best_c);
	}
	out->evidence = buf_take(&b);
}

/* ---- GodProcess -----------------------------------------------------------------------------
 *
 * Definition: in a multi-process target, one process G does most of the work while processes
 * running alongside it idle. busy(P) = lifetime(P) - time P spent waiting: in wait4, waitid,
 * poll/select/epoll, futex, sleeps, pause, sigsuspend, accept, ..., and (spool only) in any
 * call lasting RN_AP_GOD_BLOCKED_CALL_NS or more (a read blocked on a pipe). G is the busiest
 * process; its peers are the other processes alive at the same time, except G's ancestors
 * (waiting for a child is supervision, not idling). With overlap(P) = time P and G were both
 * alive and busy assumed spread evenly over a lifetime:
 *   share       = busy(G) / sum of busy over all processes
 *   idle        = sum over peers of overlap(P) * (1 - busy(P) / lifetime(P)) / sum of overlap(P)
 *   concurrency = largest overlap(P) / lifetime(G)
 *   confidence  = min(ramp_lin(share; SHARE_LO, HI), ramp_lin(idle; IDLE_LO, HI),
 *                     ramp_lin(concurrency; CONC_LO, HI), ramp_log(busy(G); BUSY_LO, HI))
 * A target with one process (threads do not count) never qualifies: confidence 0. The share
 * of the critical path spent in G is reported as evidence.
 */

static void god_span(struct ap_pass *ps, int proc, const struct sc_info *si,
		     const struct rn_syscall_event *ev)
{
	if ((si->flags & C_WAIT) || ev->duration_ns >= RN_AP_GOD_BLOCKED_CALL_NS)
		ps->procs[proc].blocked_ns += ev->duration_ns;
}

static uint64_t god_blocked(const struct ap_pass *ps, int i)
{
	const struct rn_process *p = &ps->t->procs[i];
	uint64_t w = 0;
	int nr;

	if (ps->spool)
		return ps->procs[i].blocked_ns;
	for (nr = 0; p->sc && nr < ps->sc.n; nr++)
		if (ps->sc.v[nr].flags & C_WAIT)
			w += p->sc[nr].total_ns;
	return w;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static void god_finish(struct ap_pass *ps, struct rn_detection *out)
{
	uint64_t *busy = rn_xcalloc(ps->nprocs ? ps->nprocs : 1, sizeof(*busy));
	bool *anc = rn_xcalloc(ps->nprocs ? ps->nprocs : 1, sizeof(*anc));
	uint64_t total = 0, g0, g1, glife, ov_sum = 0, ov_max = 0, cp_g = 0;
	double idle_sum = 0, share, idle, conc, c1, c2, c3, c4, c;
	size_t i, nlive = 0, npeers = 0;
	int g = -1, a, depth = 0, top[5], ntop = 0, k;
	struct rn_critical_path cp;
	struct rn_buf b;

	for (i = 0; i < ps->nprocs; i++) {
		uint64_t life, bl;

		if (!ps->procs[i].allowed)
			continue;
		life = proc_life(ps, (int)i);
		if (!life)
			continue;
		bl = god_blocked(ps, (int)i);
		busy[i] = life > bl ? life - bl : 0;
		total += busy[i];
		nlive++;
		if (g < 0 || busy[i] > busy[g])
			g = (int)i;
	}
	if (nlive < 2 || g < 0) {
		out->confidence = 0;
		out->proc = g;
		out->evidence = xfmt("%zu process%s: GodProcess needs a multi-process target", nlive,
				     nlive == 1 ? "" : "es");
		goto out_free;
	}
	for (a = ps->t->procs[g].parent; a >= 0 && (size_t)a < ps->nprocs && depth++ < 256;
	     a = ps->t->procs[a].parent)
		anc[a] = true;
	g0 = proc_begin(ps, g);
	g1 = proc_end(ps, g);
	glife = g1 - g0;
	for (i = 0; i < ps->nprocs; i++) {
		uint64_t ov, life;

		if (!ps->procs[i].allowed || (int)i == g || anc[i])
			continue;
		life = proc_life(ps, (int)i);
		ov = overlap(g0, g1, proc_begin(ps, (int)i), proc_end(ps, (int)i));
		if (!life || !ov)
			continue;
		npeers++;
		ov_sum += ov;
		if (ov > ov_max)
			ov_max = ov;
		idle_sum += (double)ov * (1.0 - (double)busy[i] / (double)life);
		/* keep the five longest-overlapping peers for the evidence */
		if (ntop < 5)
			top[ntop++] = (int)i;
		else if (ov > overlap(g0, g1, proc_begin(ps, top[4]), proc_end(ps, top[4])))
			top[4] = (int)i;
		else
			continue;
		for (k = ntop - 1; k > 0; k--) {
			uint64_t o1 = overlap(g0, g1, proc_begin(ps, top[k]), proc_end(ps, top[k]));
			uint64_t o0 = overlap(g0, g1, proc_begin(ps, top[k - 1]),
					      proc_end(ps, top[k - 1]));
			int tmp;

			if (o1 <= o0)
				break;
			tmp = top[k];
			top[k] = top[k - 1];
			top[k - 1] = tmp;
		}
	}
	share = total ? (double)busy[g] / (double)total : 0;
	idle = ov_sum ? idle_sum / (double)ov_sum : 0;
	conc = glife ? (double)ov_max / (double)glife : 0;
	c1 = rn_ap_ramp_lin(share, RN_AP_GOD_SHARE_LO, RN_AP_GOD_SHARE_HI);
	c2 = rn_ap_ramp_lin(idle, RN_AP_GOD_IDLE_LO, RN_AP_GOD_IDLE_HI);
	c3 = rn_ap_ramp_lin(conc, RN_AP_GOD_CONC_LO, RN_AP_GOD_CONC_HI);
	c4 = rn_ap_ramp_log((double)busy[g], RN_AP_GOD_BUSY_LO_NS, RN_AP_GOD_BUSY_HI_NS);
	c = min2(min2(c1, c2), min2(c3, c4));
	out->confidence = npeers ? c : 0;
	out->proc = g;
	rn_critical_path_compute(ps->t, &cp);
	for (i = 0; i < cp.nsegments; i++)
		if (cp.segments[i].proc == g && cp.segments[i].end_ns > cp.segments[i].start_ns)
			cp_g += cp.segments[i].end_ns - cp.segments[i].start_ns;
	out->summary = xfmt("%s was busy %s = %.1f%% of the tree's busy time while %zu concurrent "
			    "process%s idled %.1f%% of the time",
			    plabel(ps, g).s, dur(busy[g]).s, 100.0 * share, npeers,
			    npeers == 1 ? "" : "es", 100.0 * idle);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s was busy %s of its %s = %.1f%% of the busy time of the tree (%s over "
		    "%zu processes)\n",
		    plabel(ps, g).s, dur(busy[g]).s, dur(glife).s, 100.0 * share, dur(total).s,
		    nlive);
	if (npeers)
		rn_buf_addf(&b, "  %zu process%s alive alongside it idled %.1f%% of the time they "
			    "overlapped it (%s overlapped):\n",
			    npeers, npeers == 1 ? "" : "es", 100.0 * idle, dur(ov_sum).s);
	else
		rn_buf_adds(&b, "  no other process (its ancestors aside) ran alongside it\n");
	for (k = 0; k < ntop; k++) {
		uint64_t life = proc_life(ps, top[k]);

		rn_buf_addf(&b, "    %s: alive %s, busy %s (%.1f%%)\n", plabel(ps, top[k]).s,
			    dur(life).s, dur(busy[top[k]]).s,
			    pct((double)busy[top[k]], (double)life));
	}
	if (cp.length_ns)
		rn_buf_addf(&b, "  critical path: %.1f%% of its %s in %s, the rest in processes "
			    "waited for (the path follows a waited-for process whether it worked or "
			    "idled)\n",
			    pct((double)cp_g, (double)cp.length_ns), dur(cp.length_ns).s,
			    plabel(ps, g).s);
	rn_buf_addf(&b, "  busy = lifetime - time in waiting calls%s\n",
		    ps->spool ? " and in calls of >= 1 ms" : " (statistics; the spool was not enabled, "
							     "so blocking reads count as busy)");
	rn_buf_addf(&b, "  confidence = min(ramp_lin(share %.3f; %.2f..%.2f) %.2f, ramp_lin(idle "
		    "%.3f; %.2f..%.2f) %.2f, ramp_lin(concurrency %.3f; %.2f..%.2f) %.2f, "
		    "ramp_log(busy %s; %s..%s) %.2f) = %.2f",
		    share, RN_AP_GOD_SHARE_LO, RN_AP_GOD_SHARE_HI, c1, idle, RN_AP_GOD_IDLE_LO,
		    RN_AP_GOD_IDLE_HI, c2, conc, RN_AP_GOD_CONC_LO, RN_AP_GOD_CONC_HI, c3,
		    dur(busy[g]).s, dur((uint64_t)RN_AP_GOD_BUSY_LO_NS).s,
		    dur((uint64_t)RN_AP_GOD_BUSY_HI_NS).s, c4, out->confidence);
	out->evidence = buf_take(&b);
	rn_critical_path_release(&cp);
out_free:
	free(anc);
	free(busy);
}

/* ---- PcieBottleneck -------------------------------------------------------------------------
 *
 * Definition: host<->device copies (GPU copy spans whose direction is host-to-device or
 * device-to-host) take more GPU time than the compute they feed (dispatch and render-pass
 * spans). copy = summed copy span time, compute = summed dispatch + render pass time.
 *   confidence = min(ramp_log(copy / compute; RATIO_LO, RATIO_HI),
 *                    ramp_log(copy; COPY_LO_NS, COPY_HI_NS))
 * (0.5 when copies take as long as compute; copies with no compute at all give ratio
 * infinity). Without GPU spans, or with only command-buffer/submit spans (gpu_timing other
 * than "dispatch"), there is no way to tell copies from compute: NO DATA, never a pass.
 */

static void pcie_finish(struct ap_pass *ps, struct rn_detection *out)
{
	uint64_t copy_ns[RN_GPU_DIR_HTOH + 1] = { 0 }, copy_b[RN_GPU_DIR_HTOH + 1] = { 0 };
	uint64_t ncopy[RN_GPU_DIR_HTOH + 1] = { 0 };
	uint64_t comp_ns = 0, ndisp = 0, nrp = 0, nspans = 0, xfer_ns, xfer_b;
	int proc = -1;
	size_t i;
	double ratio, c1, c2, c;
	struct rn_buf b;
	int d;
	static const char *const dname[] = { "other", "host->device", "device->host",
					     "device->device", "host->host" };

	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];
		uint64_t dn = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
		int pr;

		if (!gpu_allowed(ps, g->pid, &pr))
			continue;
		nspans++;
		if (proc < 0)
			proc = pr;
		if (g->kind == RN_GPU_COPY && g->dir <= RN_GPU_DIR_HTOH) {
			copy_ns[g->dir] += dn;
			copy_b[g->dir] += g->bytes;
			ncopy[g->dir]++;
		} else if (g->kind == RN_GPU_DISPATCH) {
			comp_ns += dn;
			ndisp++;
		} else if (g->kind == RN_GPU_RENDER_PASS) {
			comp_ns += dn;
			nrp++;
		}
	}
	if (!nspans) {
		out->no_data = true;
		out->evidence = xfmt("no GPU spans: run the target with collectors = [\"ptrace\", "
				     "\"vulkan\"] and gpu_timing = \"dispatch\"");
		return;
	}
	xfer_ns = copy_ns[RN_GPU_DIR_HTOD] + copy_ns[RN_GPU_DIR_DTOH];
	xfer_b = copy_b[RN_GPU_DIR_HTOD] + copy_b[RN_GPU_DIR_DTOH];
	if (!ndisp && !nrp && !ncopy[0] && !ncopy[1] && !ncopy[2] && !ncopy[3] && !ncopy[4]) {
		out->no_data = true;
		out->evidence = xfmt("%" PRIu64 " GPU spans but none is a copy or a dispatch: set "
				     "gpu_timing = \"dispatch\" to time them one by one", nspans);
		return;
	}
	ratio = comp_ns ? (double)xfer_ns / (double)comp_ns : (xfer_ns ? INFINITY : 0);
	c1 = rn_ap_ramp_log(ratio, RN_AP_PCIE_RATIO_LO, RN_AP_PCIE_RATIO_HI);
	c2 = rn_ap_ramp_log((double)xfer_ns, RN_AP_PCIE_COPY_LO_NS, RN_AP_PCIE_COPY_HI_NS);
	c = min2(c1, c2);
	out->confidence = c;
	out->proc = proc;
	out->summary = xfmt("host<->device copies took %s of GPU time for %s of compute "
			    "(ratio %.2f)", dur(xfer_ns).s, dur(comp_ns).s, ratio);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "GPU of %s: host<->device copies %s, compute %s (%" PRIu64
		    " dispatches, %" PRIu64 " render passes): copy/compute = %.2f\n",
		    plabel(ps, proc).s, dur(xfer_ns).s, dur(comp_ns).s, ndisp, nrp, ratio);
	for (d = 0; d <= RN_GPU_DIR_HTOH; d++) {
		if (!ncopy[d])
			continue;
		rn_buf_addf(&b, "  %s: %" PRIu64 " copies, %s, %s, mean %s, %.2f GB/s\n", dname[d],
			    ncopy[d], bytes_h(copy_b[d]).s, dur(copy_ns[d]).s,
			    bytes_h(copy_b[d] / ncopy[d]).s,
			    copy_ns[d] ? (double)copy_b[d] / (double)copy_ns[d] : 0.0);
	}
	if (xfer_ns)
		rn_buf_addf(&b, "  host<->device bandwidth: %s in %s = %.2f GB/s\n",
			    bytes_h(xfer_b).s, dur(xfer_ns).s, (double)xfer_b / (double)xfer_ns);
	rn_buf_addf(&b, "  confidence = min(ramp_log(ratio %.2f; %.2f..%.2f) %.2f, ramp_log(copy "
		    "%s; %s..%s) %.2f) = %.2f",
		    ratio, RN_AP_PCIE_RATIO_LO, RN_AP_PCIE_RATIO_HI, c1, dur(xfer_ns).s,
		    dur((uint64_t)RN_AP_PCIE_COPY_LO_NS).s, dur((uint64_t)RN_AP_PCIE_COPY_HI_NS).s,
		    c2, c);
	out->evidence = buf_take(&b);
}

/* ---- the pass driver ------------------------------------------------------------------------ */

static int pass_span(void *ctx, const struct rn_syscall_event *ev)
{
	struct ap_pass *ps = ctx;
	int proc = rn_trace_find_process(ps->t, ev->pid);
	const struct sc_info *si;
	struct ap_proc *pp;

	if (proc < 0 || (size_t)proc >= ps->nprocs || !ps->procs[proc].allowed)
		return 0;
	pp = &ps->procs[proc];
	if (!pp->spans || ev->start_ns < pp->first_ns)
		pp->first_ns = ev->start_ns;
	if (ev->start_ns + ev->duration_ns > pp->last_ns)
		pp->last_ns = ev->start_ns + ev->duration_ns;
	pp->spans++;
	ps->spans++;
	si = sc_of(&ps->sc, ev->nr);
	resolve_caller(ps, proc, ev);
	ps->ev_has_path = false;
	if (ps->fds_on && (si->flags & (C_OPEN | C_STAT)) && ev->path && ev->path[0])
		resolve_path(ps, proc, si, ev);
	if ((si->flags & C_CHDIR) && !ev->err)
		pp->cwd_gen++;
	if (ps->want[RN_AP_GOD_PROCESS])
		god_span(ps, proc, si, ev);
	if (ps->want[RN_AP_TIGHT_LOOP])
		tl_span(ps, proc, si, ev);
	if (ps->want[RN_AP_REDUNDANT_IO])
		path_span(ps, proc, si, ev); /* before fd_span: re-reads find the path entry */
	if (ps->fds_on)
		fd_span(ps, proc, si, ev);
	if (ps->want[RN_AP_ERROR_STORM])
		err_span(ps, proc, si, ev);
	if (ps->want[RN_AP_MEMORY_CHURN])
		churn_span(ps, proc, si, ev);
	return 0;
}

static void pass_init(struct ap_pass *ps, struct rn_trace *t, const void *re, const bool *want)
{
	size_t i;

	memset(ps, 0, sizeof(*ps));
	ps->t = t;
	ps->re = re;
	memcpy(ps->want, want, sizeof(ps->want));
	sc_tab_build(&ps->sc);
	ps->nprocs = t->nprocs;
	ps->procs = rn_xcalloc(t->nprocs ? t->nprocs : 1, sizeof(*ps->procs));
	for (i = 0; i < t->nprocs; i++) {
		ps->procs[i].allowed = comm_matches(re, proc_comm(t, (int)i));
		ps->nallowed += ps->procs[i].allowed;
	}
	ktab_init(&ps->threads, sizeof(struct tl_thread), RN_AP_MAX_THREADS);
	ktab_init(&ps->fds, sizeof(struct fd_ent), RN_AP_MAX_FDS);
	ktab_init(&ps->paths, sizeof(struct path_ent), RN_AP_MAX_PATHS);
	ktab_init(&ps->errs, sizeof(struct err_ent), RN_AP_MAX_ERRORS);
	ps->fds_on = want[RN_AP_SMALL_IO] || want[RN_AP_REDUNDANT_IO] || want[RN_AP_SYNC_STORM];
	if (want[RN_AP_MEMORY_CHURN])
		ps->maps = rn_xcalloc(RN_AP_MAP_SLOTS, sizeof(*ps->maps));
	ps->sym = rn_symbolizer_new();
	ktab_init(&ps->cdefs, sizeof(struct caller_def), MAX_CALLER_DEFS);
	ps->cmemo = rn_xcalloc(CALLER_CACHE, sizeof(*ps->cmemo));
}

static void pass_release(struct ap_pass *ps)
{
	size_t i;

	for (i = 0; i < ps->nprocs; i++)
		free(ps->procs[i].best);
	free(ps->procs);
	free(ps->sc.v);
	free(ps->maps);
	ktab_release(&ps->threads);
	ktab_release(&ps->fds);
	ktab_release(&ps->paths);
	ktab_release(&ps->errs);
	ktab_release(&ps->cdefs);
	free(ps->cmemo);
	rn_symbolizer_free(ps->sym);
	rn_srcloc_free(ps->src);
	top_release(&ps->small);
	memset(ps, 0, sizeof(*ps));
}

/* Does detector `id` replay the spool? (GodProcess uses it to refine blocked time.) */
static bool uses_spool(int id)
{
	return id != RN_AP_PCIE_BOTTLENECK;
}

static void finish_one(struct ap_pass *ps, int id, struct rn_detection *out)
{
	memset(out, 0, sizeof(*out));
	out->pattern = rn_xstrdup(rn_antipattern_names[id]);
	out->proc = -1;
	switch ((enum rn_ap_id)id) {
	case RN_AP_GOD_PROCESS:
		god_finish(ps, out);
		break;
	case RN_AP_TIGHT_LOOP:
		tl_finish(ps, out);
		break;
	case RN_AP_PCIE_BOTTLENECK:
		pcie_finish(ps, out);
		break;
	case RN_AP_SMALL_IO:
		small_finish(ps, out);
		break;
	case RN_AP_REDUNDANT_IO:
		redundant_finish(ps, out);
		break;
	case RN_AP_ERROR_STORM:
		err_finish(ps, out);
		break;
	case RN_AP_SYNC_STORM:
		sync_finish(ps, out);
		break;
	case RN_AP_MEMORY_CHURN:
		churn_finish(ps, out);
		break;
	case RN_AP_COUNT:
		break;
	}
	out->recommendation = rn_xstrdup(ap_fix[id]);
	if (!out->summary)
		out->summary = rn_xstrdup(out->no_data ? "no data" : "not detected");
	if (ps->t->filtered && !out->no_data && out->evidence) {
		char *e = xfmt("%s\n  note: the trace was filtered; syscalls outside the filter "
			       "were not seen", out->evidence);

		free(out->evidence);
		out->evidence = e;
	}
}

/* Run the detectors marked in `want` over `t` in one spool pass; fill out[id] for each. */
static int run_detectors(struct rn_trace *t, const void *re, const bool *want,
			 struct rn_detection *out)
{
	struct ap_pass ps;
	int id, rc = 0;
	bool need_spool = false;

	for (id = 0; id < RN_AP_COUNT; id++)
		need_spool |= want[id] && uses_spool(id);
	pass_init(&ps, t, re, want);
	if (need_spool && t->spool) {
		rc = rn_trace_spool_foreach(t, pass_span, &ps);
		ps.spool = true;
	}
	if (rc < 0) {
		pass_release(&ps);
		return rc;
	}
	for (id = 0; id < RN_AP_COUNT; id++)
		if (want[id])
			finish_one(&ps, id, &out[id]);
	pass_release(&ps);
	return 0;
}

int rn_antipattern_detect(struct rn_trace *t, const char *pattern, const void *process_re,
			  struct rn_detection *out)
{
	struct rn_detection all[RN_AP_COUNT];
	bool want[RN_AP_COUNT] = { false };
	int id = ap_lookup(pattern), rc;

	memset(out, 0, sizeof(*out));
	out->proc = -1;
	if (id < 0)
		return -EINVAL;
	want[id] = true;
	memset(all, 0, sizeof(all));
	rc = run_detectors(t, process_re, want, all);
	if (rc)
		return rc;
	*out = all[id];
	return 0;
}

int rn_antipattern_detect_all(struct rn_trace *t, const void *process_re,
			      struct rn_detection *out)
{
	bool want[RN_AP_COUNT];
	int id, rc;

	for (id = 0; id < RN_AP_COUNT; id++) {
		want[id] = true;
		memset(&out[id], 0, sizeof(out[id]));
		out[id].proc = -1;
	}
	rc = run_detectors(t, process_re, want, out);
	return rc;
}

void rn_detection_release(struct rn_detection *d)
{
	free(d->pattern);
	free(d->evidence);
	free(d->recommendation);
	free(d->summary);
	memset(d, 0, sizeof(*d));
	d->proc = -1;
}

/* Indent every line of `s` by `ind` spaces into `b`. */
static void add_indented(struct rn_buf *b, const char *s, int ind)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		rn_buf_addf(b, "%*s", ind, "");
		rn_buf_add(b, s, n);
		rn_buf_addc(b, '\n');
		s += n + (nl ? 1 : 0);
	}
}

int rn_antipattern_report_all(struct rn_trace *t, const void *process_re, double min_confidence,
			      FILE *out)
{
	struct rn_detection d[RN_AP_COUNT];
	struct rn_buf b, below, nodata;
	int id, rc, found = 0;

	rc = rn_antipattern_detect_all(t, process_re, d);
	if (rc)
		return rc;
	rn_buf_init(&b, 0);
	rn_buf_init(&below, 0);
	rn_buf_init(&nodata, 0);
	for (id = 0; id < RN_AP_COUNT; id++) {
		if (d[id].no_data) {
			rn_buf_addf(&nodata, "  %s: %s\n", d[id].pattern,
				    d[id].evidence ? d[id].evidence : "no data");
		} else if (d[id].confidence >= min_confidence && d[id].confidence > 0) {
			found++;
			rn_buf_addf(&b, "%s  confidence %.2f\n", d[id].pattern, d[id].confidence);
			if (d[id].summary)
				rn_buf_addf(&b, "  %s\n", d[id].summary);
			if (d[id].evidence)
				add_indented(&b, d[id].evidence, 4);
			rn_buf_addf(&b, "  recommendation: %s\n\n", d[id].recommendation);
		} else {
			rn_buf_addf(&below, "%s%s %.2f", below.len ? ", " : "", d[id].pattern,
				    d[id].confidence);
		}
		rn_detection_release(&d[id]);
	}
	fprintf(out, "anti-patterns (confidence >= %.2f): %d detected\n\n", min_confidence, found);
	fputs(b.buf, out);
	if (below.len)
		fprintf(out, "below %.2f: %s\n", min_confidence, below.buf);
	if (nodata.len)
		fprintf(out, "no data:\n%s", nodata.buf);
	rc = rn_buf_failed(&b) || rn_buf_failed(&below) || rn_buf_failed(&nodata) ? -ENOMEM : 0;
	rn_buf_release(&b);
	rn_buf_release(&below);
	rn_buf_release(&nodata);
	if (!rc && (fflush(out) || ferror(out)))
		rc = -EIO;
	return rc ? rc : found;
}
