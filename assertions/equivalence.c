
#include "equivalence.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "assertion.h"
#include "buf.h"
#include "log.h"
#include "xalloc.h"

/* fds tracked per process; higher ones are not followed (their I/O is not a fact). */
#define MAX_FDS 1024
/* Longest normalised path or argv string kept, bytes. */
#define NORM_MAX 1024

#define CAT_INFO(id, name, is_set, strict) { name, is_set, strict },
const struct rn_equiv_cat_info rn_equiv_cats[] = { RN_EQUIV_CATEGORIES(CAT_INFO) };
#undef CAT_INFO

const char *rn_equiv_cat_name(enum rn_equiv_cat cat)
{
	return (unsigned)cat < RN_EQUIV_NCATS ? rn_equiv_cats[cat].name : "?";
}

void rn_equiv_opts_init(struct rn_equiv_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_confidence = RN_EQUIV_MIN_CONFIDENCE;
	o->normalize = RN_EQUIV_NORM_ALL;
}

/* ---- normalisation ------------------------------------------------------------------------- */

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Normalise one path component (or one argv word) in place into `b`. */
static void norm_component(struct rn_buf *b, const char *s, size_t n, unsigned norm, bool tmp)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;
		bool digit = false, alpha = false, upper = false, lower = false;

		while (j < n && is_alnum(s[j])) {
			if (s[j] >= '0' && s[j] <= '9')
				digit = true;
			else
				alpha = true;
			upper = upper || (s[j] >= 'A' && s[j] <= 'Z');
			lower = lower || (s[j] >= 'a' && s[j] <= 'z');
			j++;
		}
		if (j == i) {
			rn_buf_addc(b, s[i]);
			i++;
			continue;
		}
		if (tmp && (norm & RN_EQUIV_NORM_TMP) && j - i >= 6 &&
		    ((digit && alpha) || (upper && lower))) {
			rn_buf_addc(b, '*');
		} else if ((norm & RN_EQUIV_NORM_NUMBERS) && digit && !alpha && j - i >= 4) {
			rn_buf_addc(b, '#');
		} else if ((norm & RN_EQUIV_NORM_NUMBERS) && digit) {
			/* digit runs inside a word ("run20261125") */
			size_t k = i;

			while (k < j) {
				size_t d = k;

				while (d < j && s[d] >= '0' && s[d] <= '9')
					d++;
				if (d - k >= 4) {
					rn_buf_addc(b, '#');
					k = d;
				} else if (d > k) {
					rn_buf_add(b, s + k, d - k);
					k = d;
				} else {
					rn_buf_addc(b, s[k]);
					k++;
				}
			}
		} else {
			rn_buf_add(b, s + i, j - i);
		}
		i = j;
	}
}

static const char *tmp_root(const char *p, const char *tmpdir, size_t *len)
{
	static const char *const roots[] = { "/tmp", "/var/tmp", "/dev/shm" };
	size_t i, n;

	if (tmpdir && tmpdir[0]) {
		n = strlen(tmpdir);
		if (!strncmp(p, tmpdir, n) && p[n] == '/') {
			*len = n;
			return tmpdir;
		}
	}
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		n = strlen(roots[i]);
		if (!strncmp(p, roots[i], n) && (p[n] == '/' || !p[n])) {
			*len = n;
			return roots[i];
		}
	}
	return NULL;
}

static void normalize_into(const char *in, unsigned norm, const char *tmpdir, char *out, size_t cap)
{
	struct rn_buf b;
	const char *p = in;
	size_t rlen = 0;
	bool tmp = false;

	rn_buf_init(&b, NORM_MAX);
	if ((norm & RN_EQUIV_NORM_TMP) && tmp_root(in, tmpdir, &rlen)) {
		const char *first = in + rlen + 1, *slash;

		rn_buf_adds(&b, "$TMP");
		p = in + rlen;
		tmp = true;
		if (*p == '/' && (slash = strchr(first, '/')) && slash[1]) {
			rn_buf_adds(&b, "/*");
			p = slash;
		}
	} else if ((norm & RN_EQUIV_NORM_PIDS) && !strncmp(in, "/proc/", 6) && in[6] >= '0' &&
		   in[6] <= '9') {
		p = in + 6;
		while (*p >= '0' && *p <= '9')
			p++;
		rn_buf_adds(&b, "/proc/$PID");
	}
	norm_component(&b, p, strlen(p), norm, tmp);
	snprintf(out, cap, "%s", rn_buf_failed(&b) ? in : b.buf);
	rn_buf_release(&b);
}

void rn_equiv_normalize(const char *in, unsigned normalize, char *out, size_t cap)
{
	const char *td = getenv("TMPDIR");

	normalize_into(in, normalize, td && strcmp(td, "/tmp") ? td : NULL, out, cap);
}

/* Files whose facts are not behaviour by default: the dynamic loader's, and kernel views. */
static bool is_system_path(const char *p)
{
	const char *base = strrchr(p, '/');

	base = base ? base + 1 : p;
	if (strstr(base, ".so") &&
	    (strstr(base, ".so.") || !strcmp(base + strlen(base) - 3, ".so")))
		return true;
	if (!strcmp(p, "/etc/ld.so.cache") || !strcmp(p, "/etc/ld.so.preload"))
		return true;
	if (!strncmp(p, "/proc/", 6) || !strcmp(p, "/proc") || !strncmp(p, "/sys/", 5))
		return true;
	if (!strncmp(p, "/dev/", 5))
		return strcmp(p, "/dev/null") && strcmp(p, "/dev/zero") && strcmp(p, "/dev/tty");
	if (!strncmp(p, "/usr/lib/locale/", 16) || !strncmp(p, "/usr/share/locale/", 18) ||
	    !strcmp(p, "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache"))
		return true;
	return false;
}

static bool path_ignored(const struct rn_equiv_behaviour *b, const char *raw, const char *norm)
{
	char *const *g;

	if (!b->o.keep_system && is_system_path(raw))
		return true;
	for (g = b->o.ignore_paths; g && *g; g++)
		if (!fnmatch(*g, norm, 0) || !fnmatch(*g, raw, 0))
			return true;
	return false;
}

/* ---- model --------------------------------------------------------------------------------- */

static int lookup(const char *name)
{
	return rn_syscall_lookup(name);
}

struct rn_equiv_behaviour *rn_equiv_behaviour_new(const struct rn_equiv_opts *o)
{
	struct rn_equiv_behaviour *b = rn_xcalloc(1, sizeof(*b));
	const char *td = getenv("TMPDIR");

	if (o)
		b->o = *o;
	else
		rn_equiv_opts_init(&b->o);
	if (td && td[0] == '/' && strcmp(td, "/tmp") && strlen(td) < sizeof(b->tmpdir)) {
		snprintf(b->tmpdir, sizeof(b->tmpdir), "%s", td);
		while (strlen(b->tmpdir) > 1 && b->tmpdir[strlen(b->tmpdir) - 1] == '/')
			b->tmpdir[strlen(b->tmpdir) - 1] = '\0';
	}
	b->nr_open = lookup("open");
	b->nr_openat = lookup("openat");
	b->nr_openat2 = lookup("openat2");
	b->nr_creat = lookup("creat");
	b->nr_read = lookup("read");
	b->nr_pread = lookup("pread64");
	b->nr_readv = lookup("readv");
	b->nr_preadv = lookup("preadv");
	b->nr_preadv2 = lookup("preadv2");
	b->nr_write = lookup("write");
	b->nr_pwrite = lookup("pwrite64");
	b->nr_writev = lookup("writev");
	b->nr_pwritev = lookup("pwritev");
	b->nr_pwritev2 = lookup("pwritev2");
	b->nr_close = lookup("close");
	b->nr_dup = lookup("dup");
	b->nr_dup2 = lookup("dup2");
	b->nr_dup3 = lookup("dup3");
	b->nr_fcntl = lookup("fcntl");
	b->nr_ftruncate = lookup("ftruncate");
	b->nr_truncate = lookup("truncate");
	b->nr_fsync = lookup("fsync");
	b->nr_fdatasync = lookup("fdatasync");
	b->nr_mkdir = lookup("mkdir");
	b->nr_mkdirat = lookup("mkdirat");
	b->nr_unlink = lookup("unlink");
	b->nr_unlinkat = lookup("unlinkat");
	b->nr_rmdir = lookup("rmdir");
	b->nr_rename = lookup("rename");
	b->nr_renameat = lookup("renameat");
	b->nr_renameat2 = lookup("renameat2");
	b->nr_connect = lookup("connect");
	b->nr_sendto = lookup("sendto");
	b->nr_execve = lookup("execve");
	b->nr_execveat = lookup("execveat");
	b->nr_kill = lookup("kill");
	b->nr_tkill = lookup("tkill");
	b->nr_tgkill = lookup("tgkill");
	return b;
}

void rn_equiv_behaviour_free(struct rn_equiv_behaviour *b)
{
	size_t i, j;

	if (!b)
		return;
	for (i = 0; i < b->nprocs; i++) {
		struct rn_equiv_proc *p = &b->procs[i];

		for (j = 0; j < p->nfiles; j++) {
			free(p->files[j].path);
			rn_buf_release(&p->files[j].seq);
		}
		free(p->files);
		free(p->fds);
		free(p->exe);
		free(p->role);
	}
	for (i = 0; i < b->nfacts; i++) {
		free(b->facts[i].subject);
		free(b->facts[i].value);
	}
	free(b->facts);
	free(b->procs);
	free(b->by_pid);
	free(b);
}

static size_t pid_slot(const struct rn_equiv_behaviour *b, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (b->by_pid_cap - 1);
}

/* The newest process with `pid`, or -1. */
int rn_equiv_proc_find(const struct rn_equiv_behaviour *b, pid_t pid)
{
	size_t k;

	if (!b->by_pid_cap)
		return -1;
	for (k = pid_slot(b, pid); b->by_pid[k]; k = (k + 1) & (b->by_pid_cap - 1))
		if (b->procs[b->by_pid[k] - 1].pid == pid)
			return b->by_pid[k] - 1;
	return -1;
}

/* Index process `i` under its pid (replacing an older process of the same pid). */
static void pid_index(struct rn_equiv_behaviour *b, int i)
{
	size_t k;

	if (2 * (b->nprocs + 1) > b->by_pid_cap) {
		size_t j;

		free(b->by_pid);
		b->by_pid_cap = b->by_pid_cap ? 2 * b->by_pid_cap : 64;
		b->by_pid = rn_xcalloc(b->by_pid_cap, sizeof(*b->by_pid));
		for (j = 0; j < (size_t)i; j++) {
			for (k = pid_slot(b, b->procs[j].pid); b->by_pid[k];
			     k = (k + 1) & (b->by_pid_cap - 1))
				if (b->procs[b->by_pid[k] - 1].pid == b->procs[j].pid)
					break;
			b->by_pid[k] = (int)j + 1;
		}
	}
	for (k = pid_slot(b, b->procs[i].pid); b->by_pid[k]; k = (k + 1) & (b->by_pid_cap - 1))
		if (b->procs[b->by_pid[k] - 1].pid == b->procs[i].pid)
			break;
	b->by_pid[k] = i + 1;
}

static int proc_get(struct rn_equiv_behaviour *b, pid_t pid)
{
	int i = rn_equiv_proc_find(b, pid);
	struct rn_equiv_proc *p;

	if (i >= 0)
		return i;
	if (b->nprocs >= RN_EQUIV_MAX_PROCESSES) {
		/* the input limit: the loader reports it; the last slot takes the rest */
		b->too_many = true;
		return (int)b->nprocs - 1;
	}
	if (b->nprocs == b->procs_cap) {
		b->procs_cap = b->procs_cap ? 2 * b->procs_cap : 16;
		b->procs = rn_xrealloc(b->procs, b->procs_cap * sizeof(*b->procs));
	}
	p = &b->procs[b->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->parent = -1;
	pid_index(b, (int)b->nprocs);
	return (int)b->nprocs++;
}

/* Make room in process `pi`'s fd table for `fd` (< MAX_FDS). */
static int *fds_room(struct rn_equiv_proc *p, size_t fd)
{
	if (fd >= p->nfds) {
		size_t n = p->nfds ? p->nfds : 16;

		while (n <= fd)
			n *= 2;
		if (n > MAX_FDS)
			n = MAX_FDS;
		p->fds = rn_xrealloc(p->fds, n * sizeof(*p->fds));
		memset(p->fds + p->nfds, 0, (n - p->nfds) * sizeof(*p->fds));
		p->nfds = n;
	}
	return p->fds;
}

void rn_equiv_add_fact(struct rn_equiv_behaviour *b, enum rn_equiv_cat cat, int proc,
		       const char *subject, const char *value)
{
	struct rn_equiv_fact *f;

	if (b->nfacts == b->facts_cap) {
		b->facts_cap = b->facts_cap ? 2 * b->facts_cap : 64;
		b->facts = rn_xrealloc(b->facts, b->facts_cap * sizeof(*b->facts));
	}
	f = &b->facts[b->nfacts++];
	f->cat = cat;
	f->proc = proc;
	f->subject = subject ? rn_xstrdup(subject) : NULL;
	f->value = rn_xstrdup(value ? value : "");
}

static void normalize(const struct rn_equiv_behaviour *b, const char *in, char *out, size_t cap)
{
	normalize_into(in, b->o.normalize, b->tmpdir, out, cap);
}

/* The fd table of process `pi`, inherited from its parent's at its first use. */
static int *fds_of(struct rn_equiv_behaviour *b, int pi)
{
	struct rn_equiv_proc *p = &b->procs[pi];
	size_t k;

	if (p->fds)
		return p->fds;
	fds_room(p, 2);
	if (p->parent >= 0 && b->procs[p->parent].fds) {
		struct rn_equiv_proc *pp = &b->procs[p->parent];

		/* the child's files are its own (its I/O is its own sequence), same paths */
		fds_room(p, pp->nfds - 1);
		for (k = 0; k < pp->nfds; k++) {
			struct rn_equiv_file *f;

			if (!pp->fds[k])
				continue;
			if (p->nfiles == p->files_cap) {
				p->files_cap = p->files_cap ? 2 * p->files_cap : 8;
				p->files = rn_xrealloc(p->files, p->files_cap * sizeof(*p->files));
			}
			f = &p->files[p->nfiles];
			memset(f, 0, sizeof(*f));
			f->path = rn_xstrdup(pp->files[pp->fds[k] - 1].path);
			f->ignored = pp->files[pp->fds[k] - 1].ignored;
			rn_buf_init(&f->seq, 0);
			p->fds[k] = (int)++p->nfiles;
		}
	} else if (p->parent < 0 && pi == 0) {
		static const char *const std[] = { "<stdin>", "<stdout>", "<stderr>" };

		for (k = 0; k < 3; k++) {
			struct rn_equiv_file *f;

			if (p->nfiles == p->files_cap) {
				p->files_cap = p->files_cap ? 2 * p->files_cap : 8;
				p->files = rn_xrealloc(p->files, p->files_cap * sizeof(*p->files));
			}
			f = &p->files[p->nfiles];
			memset(f, 0, sizeof(*f));
			f->path = rn_xstrdup(std[k]);
			rn_buf_init(&f->seq, 0);
			p->fds[k] = (int)++p->nfiles;
		}
	}
	return p->fds;
}

static struct rn_equiv_file *file_of(struct rn_equiv_behaviour *b, int pi, uint64_t fd)
{
	struct rn_equiv_proc *p = &b->procs[pi];
	int *fds = fds_of(b, pi);

	if (fd >= p->nfds || !fds[fd])
		return NULL;
	return &p->files[fds[fd] - 1];
}

void rn_equiv_seq_flush(struct rn_equiv_file *f)
{
	if (!f->pend)
		return;
	if (f->seq.len)
		rn_buf_adds(&f->seq, "; ");
	rn_buf_addf(&f->seq, "%s %" PRIu64, f->pend == 'r' ? "read" : "write", f->pend_bytes);
	f->pend = 0;
	f->pend_bytes = 0;
}

static void seq_op(struct rn_equiv_file *f, const char *op)
{
	rn_equiv_seq_flush(f);
	if (f->seq.len)
		rn_buf_adds(&f->seq, "; ");
	rn_buf_adds(&f->seq, op);
}

static void seq_bytes(struct rn_equiv_file *f, char kind, uint64_t n)
{
	if (f->pend && f->pend != kind)
		rn_equiv_seq_flush(f);
	f->pend = kind;
	f->pend_bytes += n;
	if (kind == 'w')
		f->written = true;
}

static void open_mode(struct rn_buf *m, uint64_t flags)
{
	static const char *const acc[] = { "r", "w", "rw", "rw" };

	rn_buf_adds(m, acc[flags & O_ACCMODE]);
	if (flags & O_CREAT)
		rn_buf_adds(m, ",creat");
	if (flags & O_EXCL)
		rn_buf_adds(m, ",excl");
	if (flags & O_TRUNC)
		rn_buf_adds(m, ",trunc");
	if (flags & O_APPEND)
		rn_buf_adds(m, ",append");
	if ((flags & O_DIRECTORY) && !((flags & O_TMPFILE) == O_TMPFILE))
		rn_buf_adds(m, ",dir");
	if ((flags & O_TMPFILE) == O_TMPFILE)
		rn_buf_adds(m, ",tmpfile");
}

/* A successful open of `raw` with `flags` returning `fd`. */
static void do_open(struct rn_equiv_behaviour *b, int pi, const char *raw, uint64_t flags,
		    int64_t fd)
{
	struct rn_equiv_proc *p = &b->procs[pi];
	int *fds;
	char norm[NORM_MAX];
	struct rn_buf m;
	struct rn_equiv_file *f;

	normalize(b, raw, norm, sizeof(norm));
	if (fd < 0 || fd >= MAX_FDS)
		return;
	fds_of(b, pi);
	fds = fds_room(p, (size_t)fd);
	if (p->nfiles == p->files_cap) {
		p->files_cap = p->files_cap ? 2 * p->files_cap : 8;
		p->files = rn_xrealloc(p->files, p->files_cap * sizeof(*p->files));
	}
	f = &p->files[p->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = rn_xstrdup(norm);
	f->ignored = path_ignored(b, raw, norm);
	rn_buf_init(&f->seq, 0);
	fds[fd] = (int)++p->nfiles;
	if (f->ignored)
		return;
	rn_buf_init(&m, 0);
	open_mode(&m, flags);
	if ((flags & O_ACCMODE) && (flags & (O_CREAT | O_TRUNC | O_APPEND)))
		f->written = true;
	{
		struct rn_buf v;

		rn_buf_init(&v, 0);
		rn_buf_addf(&v, "%s %s", norm, m.buf);
		rn_equiv_add_fact(b, RN_EQUIV_OPEN, pi, NULL, v.buf);
		rn_buf_release(&v);
	}
	{
		struct rn_buf op;

		rn_buf_init(&op, 0);
		rn_buf_addf(&op, "open %s", m.buf);
		seq_op(f, op.buf);
		rn_buf_release(&op);
	}
	rn_buf_release(&m);
}

/* A path fact (mkdir, remove) of process pi. */
static void path_fact(struct rn_equiv_behaviour *b, int pi, enum rn_equiv_cat cat, const char *what,
		      const char *raw, const char *raw2)
{
	char norm[NORM_MAX], norm2[NORM_MAX];
	struct rn_buf v;

	if (!raw)
		return;
	normalize(b, raw, norm, sizeof(norm));
	if (path_ignored(b, raw, norm))
		return;
	rn_buf_init(&v, 0);
	if (what)
		rn_buf_addf(&v, "%s ", what);
	rn_buf_adds(&v, norm);
	if (raw2) {
		normalize(b, raw2, norm2, sizeof(norm2));
		rn_buf_addf(&v, " -> %s", norm2);
	}
	rn_equiv_add_fact(b, cat, pi, NULL, v.buf);
	rn_buf_release(&v);
}

static void exec_fact(struct rn_equiv_behaviour *b, int pi, const struct rn_syscall_event *ev)
{
	struct rn_equiv_proc *p = &b->procs[pi];
	char norm[NORM_MAX];
	struct rn_buf v;
	const char *a, *base;
	uint32_t k;

	p->execs++;
	/* the root's first exec is the command renacer started: the program under test */
	if (pi == 0 && p->execs == 1)
		return;
	rn_buf_init(&v, 0);
	if (ev->argv && ev->nargv) {
		for (k = 0, a = ev->argv; k < ev->nargv; k++, a += strlen(a) + 1) {
			if (k)
				rn_buf_addc(&v, ' ');
			if (!k) {
				/* the program's name; argv[0] cut inside its folder names none */
				base = strrchr(a, '/');
				base = base ? base + 1 : a;
				if (!*base && ev->path) {
					base = strrchr(ev->path, '/');
					base = base ? base + 1 : ev->path;
				}
				rn_buf_adds(&v, base);
				continue;
			}
			normalize(b, a, norm, sizeof(norm));
			rn_buf_adds(&v, norm);
		}
		if (ev->argv_more)
			rn_buf_adds(&v, " ...");
	} else if (ev->path) {
		b->argv_missing = true;
		base = strrchr(ev->path, '/');
		rn_buf_adds(&v, base ? base + 1 : ev->path);
	}
	rn_equiv_add_fact(b, RN_EQUIV_EXEC, pi, NULL, v.buf);
	rn_buf_release(&v);
}

static bool is(int nr, int want)
{
	return want >= 0 && nr == want;
}

/* open, openat, openat2, creat: a file joins the process's fd table. */
static bool bh_open(struct rn_equiv_behaviour *b, int pi, const struct rn_syscall_event *ev)
{
	int nr = ev->nr;
	uint64_t flags;

	if (!is(nr, b->nr_open) && !is(nr, b->nr_openat) && !is(nr, b->nr_openat2) &&
	    !is(nr, b->nr_creat))
		return false;
	flags = is(nr, b->nr_open)   ? ev->args[1] :
		is(nr, b->nr_openat) ? ev->args[2] :
		is(nr, b->nr_creat)  ? (uint64_t)(O_CREAT | O_WRONLY | O_TRUNC) :
				       0;
	if (is(nr, b->nr_openat2))
		flags = O_RDONLY; /* struct open_how is not decoded */
	if (ev->path)
		do_open(b, pi, ev->path, flags, ev->ret);
	return true;
}

/* Reads, writes, fsync/fdatasync and ftruncate of a followed file. */
static bool bh_file_io(struct rn_equiv_behaviour *b, int pi, const struct rn_syscall_event *ev)
{
	int nr = ev->nr;
	struct rn_equiv_file *f;
	char op[48];

	if (is(nr, b->nr_read) || is(nr, b->nr_pread) || is(nr, b->nr_readv) ||
	    is(nr, b->nr_preadv) || is(nr, b->nr_preadv2)) {
		f = file_of(b, pi, ev->args[0]);
		if (f && !f->ignored && ev->ret > 0)
			seq_bytes(f, 'r', (uint64_t)ev->ret);
		return true;
	}
	if (is(nr, b->nr_write) || is(nr, b->nr_pwrite) || is(nr, b->nr_writev) ||
	    is(nr, b->nr_pwritev) || is(nr, b->nr_pwritev2)) {
		f = file_of(b, pi, ev->args[0]);
		if (f && !f->ignored && ev->ret > 0)
			seq_bytes(f, 'w', (uint64_t)ev->ret);
		return true;
	}
	if (!is(nr, b->nr_fsync) && !is(nr, b->nr_fdatasync) && !is(nr, b->nr_ftruncate))
		return false;
	f = file_of(b, pi, ev->args[0]);
	if (!f || f->ignored)
		return true;
	if (is(nr, b->nr_ftruncate)) {
		snprintf(op, sizeof(op), "truncate %" PRIu64, ev->args[1]);
		seq_op(f, op);
		f->written = true;
	} else {
		seq_op(f, "fsync");
	}
	return true;
}

/* close and dup*: the process's fd table. */
static bool bh_fd_table(struct rn_equiv_behaviour *b, int pi, const struct rn_syscall_event *ev)
{
	struct rn_equiv_proc *p = &b->procs[pi];
	int nr = ev->nr;

	if (is(nr, b->nr_close)) {
		if (ev->args[0] < p->nfds)
			p->fds[ev->args[0]] = 0;
		return true;
	}
	if (is(nr, b->nr_dup) || is(nr, b->nr_dup2) || is(nr, b->nr_dup3) ||
	    (is(nr, b->nr_fcntl) && (ev->args[1] == F_DUPFD || ev->args[1] == F_DUPFD_CLOEXEC))) {
		if (ev->ret < MAX_FDS && ev->ret >= 0) {
			int from = ev->args[0] < p->nfds ? p->fds[ev->args[0]] : 0;

			fds_room(p, (size_t)ev->ret)[ev->ret] = from;
		}
		return true;
	}
	return false;
}

/* mkdir, unlink, rmdir, rename, truncate: facts about paths. */
static bool bh_path_ops(struct rn_equiv_behaviour *b, int pi, const struct rn_syscall_event *ev)
{
	int nr = ev->nr;

	if (is(nr, b->nr_mkdir) || is(nr, b->nr_mkdirat))
		path_fact(b, pi, RN_EQUIV_MKDIR, NULL, ev->path, NULL);
	else if (is(nr, b->nr_unlink) || (is(nr, b->nr_unlinkat) && !(ev->args[2] & 0x200)))
		path_fact(b, pi, RN_EQUIV_REMOVE, "unlink", ev->path, NULL);
	else if (is(nr, b->nr_rmdir) || is(nr, b->nr_unlinkat)) /* AT_REMOVEDIR */
		path_fact(b, pi, RN_EQUIV_REMOVE, "rmdir", ev->path, NULL);
	else if (is(nr, b->nr_rename) || is(nr, b->nr_renameat) || is(nr, b->nr_renameat2))
		path_fact(b, pi, RN_EQUIV_REMOVE, "rename", ev->path, ev->path2);
	else if (is(nr, b->nr_truncate))
		path_fact(b, pi, RN_EQUIV_WRITE, NULL, ev->path, NULL);
	else
		return false;
	return true;
}

/* connect/sendto (an endpoint contacted) and kill/tkill/tgkill (a signal sent). */
static void bh_contacts(struct rn_equiv_behaviour *b, int pi, const struct rn_syscall_event *ev)
{
	int nr = ev->nr;

	if (is(nr, b->nr_connect) || is(nr, b->nr_sendto)) {
		/* an endpoint contacted counts whether or not it answered */
		if (ev->path && !(ev->flags & RN_SC_UNFINISHED))
			rn_equiv_add_fact(b, RN_EQUIV_CONNECT, pi, NULL, ev->path);
		return;
	}
	if (is(nr, b->nr_kill) || is(nr, b->nr_tkill) || is(nr, b->nr_tgkill)) {
		int sig = (int)(is(nr, b->nr_tgkill) ? ev->args[2] : ev->args[1]);
		char v[64];

		if (sig) {
			snprintf(v, sizeof(v), "kill %s", rn_signal_name(sig));
			rn_equiv_add_fact(b, RN_EQUIV_SIGNAL, pi, NULL, v);
		}
	}
}

void rn_equiv_behaviour_syscall(struct rn_equiv_behaviour *b, const struct rn_syscall_event *ev)
{
	int pi, nr = ev->nr;
	bool ok = !(ev->flags & RN_SC_UNFINISHED) && !ev->err && ev->ret >= 0;

	if (b->finished)
		return;
	pi = proc_get(b, ev->pid);
	fds_of(b, pi);
	if (is(nr, b->nr_execve) || is(nr, b->nr_execveat)) {
		if (ok) {
			/* exec closes O_CLOEXEC fds; not tracked: a later open of the fd replaces it */
			exec_fact(b, pi, ev);
		}
		return;
	}
	if (!ok && !is(nr, b->nr_connect) && !is(nr, b->nr_sendto))
		return;
	if (bh_open(b, pi, ev) || bh_file_io(b, pi, ev) || bh_fd_table(b, pi, ev) ||
	    bh_path_ops(b, pi, ev))
		return;
	bh_contacts(b, pi, ev);
}

void rn_equiv_behaviour_process(struct rn_equiv_behaviour *b, pid_t pid, pid_t ppid,
				const char *exe, char event, enum rn_proc_end end, int exit_code,
				int term_signal)
{
	int pi, pp;
	struct rn_equiv_proc *p;

	if (b->finished)
		return;
	pi = proc_get(b, pid);
	p = &b->procs[pi];
	if (event == 'f' && ppid > 0 && p->parent < 0 && (pp = rn_equiv_proc_find(b, ppid)) >= 0 &&
	    pp != pi) {
		p->ppid = ppid;
		p->parent = pp;
		/* a copy of the parent's files at the fork (live); a replay without events
		 * between processes copies at the child's first call instead */
		if (b->procs[pp].fds)
			fds_of(b, pi);
	}
	if (exe && (event == 'e' || !p->exe)) {
		free(p->exe);
		p->exe = rn_xstrdup(exe);
	}
	if (event == 'x') {
		p->end = end;
		p->exit_code = exit_code;
		p->term_signal = term_signal;
	}
}

static void sink_syscall(void *ctx, const struct rn_trace *t, const struct rn_syscall_event *ev)
{
	(void)t;
	rn_equiv_behaviour_syscall(ctx, ev);
}

static void sink_process(void *ctx, const struct rn_trace *t, const struct rn_process *p,
			 char event)
{
	pid_t ppid =
		p->parent >= 0 && (size_t)p->parent < t->nprocs ? t->procs[p->parent].pid : p->ppid;

	rn_equiv_behaviour_process(ctx, p->pid, ppid, p->exe, event, p->end, p->exit_code,
				   p->term_signal);
}

void rn_equiv_behaviour_sink(struct rn_equiv_behaviour *b, struct rn_trace_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->syscall = sink_syscall;
	sink->process = sink_process;
	sink->ctx = b;
}

void rn_equiv_behaviour_take_processes(struct rn_equiv_behaviour *b, const struct rn_trace *t)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		const struct rn_process *p = &t->procs[i];
		pid_t ppid = p->parent >= 0 && (size_t)p->parent < t->nprocs ?
			t->procs[p->parent].pid :
			0;

		rn_equiv_behaviour_process(b, p->pid, ppid, p->exe, 'f', RN_PROC_RUNNING, 0, 0);
		rn_equiv_behaviour_process(b, p->pid, ppid, p->exe, 'x', p->end, p->exit_code,
					   p->term_signal);
	}
}
