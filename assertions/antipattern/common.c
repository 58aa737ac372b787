/*
 * antipattern/common.c - helpers the detectors share: text, syscall classes, the bounded hash
 * table, candidates, callers and process lifetimes. Declarations and contracts: antipattern/pass.h.
 */
#include "pass.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "srcloc.h"
#include "symbolize.h"
#include "xalloc.h"

/* ---- text helpers -------------------------------------------------------------------------- */

struct rn_ap_text rn_ap_dur(uint64_t ns)
{
	struct rn_ap_text d;

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
struct rn_ap_text rn_ap_bytes(uint64_t n)
{
	struct rn_ap_text d;

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

/* Keep the tail of a path (the informative end) in a fixed buffer. */
void rn_ap_keep_path(char *dst, size_t n, const char *path)
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
char *rn_ap_buf_take(struct rn_buf *b)
{
	char *s = rn_buf_detach(b, NULL);

	if (!s)
		rn_die("out of memory formatting anti-pattern evidence");
	return s;
}

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

static const struct rn_ap_sc sc_unknown = { 0, 3, -1 };
void rn_ap_sc_tab_build(struct rn_ap_sc_tab *st)
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

const struct rn_ap_sc *rn_ap_sc_of(const struct rn_ap_sc_tab *st, int nr)
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
		rn_buf_addf(b, "%" PRId32,
			    s32); /* an int argument (AT_FDCWD) in a 64-bit register */
	else
		rn_buf_addf(b, "0x%" PRIx64, v);
}

/* "name(a, b, c) = ret" or "= -1 ENOENT". */
void rn_ap_add_call(struct rn_buf *b, const struct rn_ap_sc_tab *st, int nr, const uint64_t *args,
		    int64_t ret, int err)
{
	int i, n = rn_ap_sc_of(st, nr)->nargs;

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

void rn_antipattern_map_init(struct rn_antipattern_map *kt, size_t esz, size_t max)
{
	memset(kt, 0, sizeof(*kt));
	kt->esz = esz;
	kt->max = max;
}

void rn_antipattern_map_release(struct rn_antipattern_map *kt)
{
	free(kt->keys);
	free(kt->vals);
	rn_antipattern_map_init(kt, kt->esz, kt->max);
}

void *rn_antipattern_map_slot(struct rn_antipattern_map *kt, size_t i)
{
	return kt->vals + i * kt->esz;
}

static void map_grow(struct rn_antipattern_map *kt)
{
	struct rn_antipattern_map old = *kt;
	size_t i;

	kt->cap = old.cap ? old.cap * 2 : 64;
	kt->keys = rn_xcalloc(kt->cap, sizeof(*kt->keys));
	kt->vals = rn_xcalloc(kt->cap, kt->esz);
	kt->used = 0;
	for (i = 0; i < old.cap; i++) {
		size_t j;

		if (!old.keys[i])
			continue;
		for (j = mix64(old.keys[i]) & (kt->cap - 1); kt->keys[j];
		     j = (j + 1) & (kt->cap - 1))
			;
		kt->keys[j] = old.keys[i];
		memcpy(rn_antipattern_map_slot(kt, j), old.vals + i * old.esz, kt->esz);
		kt->used++;
	}
	free(old.keys);
	free(old.vals);
}

/* The value of `key`, added zeroed when `create` and there is room; NULL otherwise. */
void *rn_antipattern_map_get(struct rn_antipattern_map *kt, uint64_t key, bool create)
{
	uint64_t k = key + 1;
	size_t i;

	if (kt->cap) {
		for (i = mix64(k) & (kt->cap - 1); kt->keys[i]; i = (i + 1) & (kt->cap - 1))
			if (kt->keys[i] == k)
				return rn_antipattern_map_slot(kt, i);
	}
	if (!create)
		return NULL;
	if (kt->used >= kt->max) {
		kt->dropped++;
		return NULL;
	}
	if ((kt->used + 1) * 4 > kt->cap * 3)
		map_grow(kt);
	for (i = mix64(k) & (kt->cap - 1); kt->keys[i]; i = (i + 1) & (kt->cap - 1))
		;
	kt->keys[i] = k;
	kt->used++;
	/* A slot freed by rn_antipattern_map_del still holds its old value. */
	memset(rn_antipattern_map_slot(kt, i), 0, kt->esz);
	return rn_antipattern_map_slot(kt, i);
}

/* Delete the entry whose value is `val` (from rn_antipattern_map_get). */
void rn_antipattern_map_del(struct rn_antipattern_map *kt, void *val)
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
		memcpy(rn_antipattern_map_slot(kt, i), rn_antipattern_map_slot(kt, j), kt->esz);
		kt->keys[j] = 0;
		i = j;
	}
}

/* FNV-1a over a string, mixed with a seed (the pid). */
uint64_t rn_ap_str_key(const char *s, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ mix64(seed);

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h == UINT64_MAX ? 0 : h;
}

static bool cand_better(double conf, double mag, const struct rn_ap_cand *c)
{
	return conf > c->conf || (conf == c->conf && mag > c->mag);
}

/* Would a finding of (conf, mag) enter the list? Check before formatting its text. */
bool rn_ap_top_wants(const struct rn_ap_top *tp, double conf, double mag)
{
	return tp->n < RN_AP_TOP_N || cand_better(conf, mag, &tp->c[tp->n - 1]);
}

/* Insert `c` (its strings are taken over), dropping the worst when full. */
void rn_ap_top_put(struct rn_ap_top *tp, struct rn_ap_cand *c)
{
	int i;

	if (!rn_ap_top_wants(tp, c->conf, c->mag)) {
		free(c->summary);
		free(c->evidence);
		return;
	}
	if (tp->n == RN_AP_TOP_N) {
		free(tp->c[RN_AP_TOP_N - 1].summary);
		free(tp->c[RN_AP_TOP_N - 1].evidence);
		tp->n--;
	}
	for (i = tp->n; i > 0 && cand_better(c->conf, c->mag, &tp->c[i - 1]); i--)
		tp->c[i] = tp->c[i - 1];
	tp->c[i] = *c;
	tp->n++;
}

void rn_ap_top_release(struct rn_ap_top *tp)
{
	int i;

	for (i = 0; i < tp->n; i++) {
		free(tp->c[i].summary);
		free(tp->c[i].evidence);
	}
	memset(tp, 0, sizeof(*tp));
}

void rn_ap_callers_add(struct rn_ap_callers *cl, uint64_t key)
{
	int i;

	cl->total++;
	if (!key)
		return;
	for (i = 0; i < RN_AP_CALLER_SLOTS; i++) {
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

/* The process's comm, or the nearest ancestor's (a forked child runs its parent's image). */
const char *rn_ap_proc_comm(const struct rn_trace *t, int i)
{
	int depth = 0;

	while (i >= 0 && (size_t)i < t->nprocs && depth++ < 256) {
		if (t->procs[i].comm)
			return t->procs[i].comm;
		i = t->procs[i].parent;
	}
	return NULL;
}
struct rn_ap_label rn_ap_plabel(const struct rn_ap_pass *ps, int i)
{
	struct rn_ap_label l;
	const char *comm = rn_ap_proc_comm(ps->t, i);

	if (i < 0 || (size_t)i >= ps->t->nprocs)
		snprintf(l.s, sizeof(l.s), "the process tree");
	else
		snprintf(l.s, sizeof(l.s), "pid %d (%s)", (int)ps->t->procs[i].pid,
			 comm ? comm : "?");
	return l;
}

uint64_t rn_ap_proc_begin(const struct rn_ap_pass *ps, int i)
{
	const struct rn_process *p = &ps->t->procs[i];

	if (p->start_ns && (!ps->procs[i].first_ns || p->start_ns <= ps->procs[i].first_ns))
		return p->start_ns;
	return ps->procs[i].first_ns;
}

uint64_t rn_ap_proc_end(const struct rn_ap_pass *ps, int i)
{
	const struct rn_process *p = &ps->t->procs[i];
	uint64_t e = p->end_ns ? p->end_ns : ps->t->end_ns;

	if (ps->procs[i].last_ns > e)
		e = ps->procs[i].last_ns;
	return e;
}

/* Lifetime of a process: birth (or first span) to exit (or end of the run), ns. */
uint64_t rn_ap_proc_life(const struct rn_ap_pass *ps, int i)
{
	uint64_t b = rn_ap_proc_begin(ps, i), e = rn_ap_proc_end(ps, i);

	return e > b ? e - b : 0;
}
/* Evidence line naming the dominant caller of a finding's spans ("what" names the spans);
 * nothing when none was attributed (no stacks, stripped or unreadable modules). */
void rn_ap_add_caller(struct rn_ap_pass *ps, struct rn_buf *b, const struct rn_ap_callers *cl,
		      const char *what)
{
	const struct rn_ap_caller_def *d;
	const char *base;
	int i, best = -1;

	for (i = 0; i < RN_AP_CALLER_SLOTS; i++)
		if (cl->key[i] && (best < 0 || cl->n[i] > cl->n[best]))
			best = i;
	if (best < 0 || !cl->total)
		return;
	d = rn_antipattern_map_get(&ps->cdefs, cl->key[best], false);
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
				    f[0].function       ? f[0].function :
					    d->function ? d->function :
							  "?",
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

/* Fill `out` from a detector's best findings: the best one's evidence, the others as "also". */
void rn_ap_top_out(struct rn_ap_pass *ps, const struct rn_ap_top *tp, struct rn_detection *out,
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
	out->evidence = rn_ap_buf_take(&b);
}

bool rn_ap_gpu_allowed(const struct rn_ap_pass *ps, pid_t pid, int *proc)
{
	int i = rn_trace_find_process(ps->t, pid);

	*proc = i;
	if (i >= 0 && (size_t)i < ps->nprocs)
		return ps->procs[i].allowed;
	return !ps->re; /* a span of a process the tracer did not see: only unfiltered */
}
