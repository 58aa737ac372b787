/*
 * perfmap.c - the perf map of a process's just-in-time compiled code (perfmap.h).
 */
#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "symbolize.h"
#include "xalloc.h"

/* One code region. */
struct region {
	uint64_t start; /* first address */
	uint64_t end;   /* one past the last address */
	size_t line;    /* the line's order in the file: of equal starts the last written wins */
	size_t name;    /* offset of the NUL-terminated name in rn_perfmap.names */
};

struct rn_perfmap {
	struct region *v; /* sorted by start, then line [n], owned */
	uint64_t *reach;  /* reach[i]: the largest end of v[0..i] [n], owned */
	size_t n;
	struct rn_buf names; /* NUL-separated names */
};

/* A hex number with an optional "0x", up to 16 digits. */
/* A hex number at *p, with or without "0x" (rn_parse_hex). */
static bool parse_hex(const char **p, uint64_t *out)
{
	const char *s = *p;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!rn_parse_hex(&s, out))
		return false;
	*p = s;
	return true;
}

static bool parse_blanks(const char **p, const char *eol)
{
	const char *s = *p;

	while (s < eol && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

/* One line [s, eol): "START SIZE name". */
static bool parse_line(const char *s, const char *eol, struct region *r, const char **name,
		       size_t *name_len)
{
	const char *p = s, *end = eol;
	uint64_t start, size;

	if (!parse_hex(&p, &start) || !parse_blanks(&p, eol) || !parse_hex(&p, &size) ||
	    !parse_blanks(&p, eol))
		return false;
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == p || !size || start + size < start || memchr(p, '\0', (size_t)(end - p)))
		return false;
	r->start = start;
	r->end = start + size;
	*name = p;
	*name_len = (size_t)(end - p);
	return true;
}

static int region_cmp(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct rn_perfmap *rn_perfmap_parse(const char *text, size_t len)
{
	struct rn_perfmap *m = rn_xcalloc(1, sizeof(*m));
	/* a NUL-terminated copy: the parsers stop at the NUL at the latest */
	char *copy = rn_xmalloc(len + 1);
	const char *s = copy, *stop = copy + len;
	size_t cap = 0, line = 0;

	memcpy(copy, text, len);
	copy[len] = '\0';
	rn_buf_init(&m->names, 0);
	while (s < stop) {
		const char *eol = memchr(s, '\n', (size_t)(stop - s)), *name;
		struct region r;
		size_t name_len;

		/* a last line without its newline may be cut short by a writer still at work or
		 * by the read cap: parsed all the same, as perf does */
		if (!eol)
			eol = stop;
		if (parse_line(s, eol, &r, &name, &name_len)) {
			r.line = line;
			r.name = m->names.len;
			/* out of memory for the names: the regions kept so far stay valid */
			if (rn_buf_add(&m->names, name, name_len) || rn_buf_addc(&m->names, '\0'))
				break;
			m->v = rn_xgrow(m->v, &cap, m->n + 1, sizeof(*m->v));
			m->v[m->n++] = r;
		}
		line++;
		s = eol + 1;
	}
	free(copy);
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), region_cmp);
	m->reach = rn_xmalloc((m->n ? m->n : 1) * sizeof(*m->reach));
	for (size_t i = 0; i < m->n; i++)
		m->reach[i] = i && m->reach[i - 1] > m->v[i].end ? m->reach[i - 1] : m->v[i].end;
	return m;
}

void rn_perfmap_path(pid_t pid, char *buf, size_t cap)
{
	snprintf(buf, cap, "/tmp/perf-%d.map", (int)pid);
}

int rn_perfmap_read(const char *path, uint64_t not_before_ns, struct rn_perfmap **out)
{
	struct stat st;
	uint64_t mtime_ns, want;
	size_t got = 0;
	char *text;
	int fd, rc = 0;

	/* O_NONBLOCK: a FIFO planted at the path neither blocks the open nor the read */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		goto out_close;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		rc = -EPERM;
		goto out_close;
	}
	mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	if (mtime_ns < not_before_ns) {
		rc = -ESTALE;
		goto out_close;
	}
	want = (uint64_t)st.st_size < RN_PERFMAP_MAX_BYTES ? (uint64_t)st.st_size :
							     RN_PERFMAP_MAX_BYTES;
	text = rn_xmalloc((size_t)want ? (size_t)want : 1);
	while (got < want) {
		ssize_t n = read(fd, text + got, (size_t)want - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			free(text);
			goto out_close;
		}
		if (!n)
			break; /* truncated since the fstat */
		got += (size_t)n;
	}
	/* over the cap: whole lines only (the cut one is dropped) */
	if ((uint64_t)st.st_size > want)
		while (got && text[got - 1] != '\n')
			got--;
	*out = rn_perfmap_parse(text, got);
	free(text);
out_close:
	close(fd);
	return rc;
}

const char *rn_perfmap_lookup(const struct rn_perfmap *m, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	hi = m->n;
	/* the first region that starts after addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* back through the regions at or before addr, as long as one of them can still reach
	 * it (reach: the largest end so far) */
	while (lo > 0 && m->reach[lo - 1] > addr) {
		const struct region *r = &m->v[--lo];

		if (addr < r->end)
			return m->names.buf + r->name;
	}
	return NULL;
}

size_t rn_perfmap_count(const struct rn_perfmap *m)
{
	return m ? m->n : 0;
}

void rn_perfmap_free(struct rn_perfmap *m)
{
	if (!m)
		return;
	free(m->v);
	free(m->reach);
	rn_buf_release(&m->names);
	free(m);
}

/* ---- a run's processes --------------------------------------------------------------------- */

struct pid_map {
	pid_t pid;
	struct rn_perfmap *map; /* owned, or NULL: no trusted file */
};

struct rn_perfmaps {
	uint64_t not_before_ns; /* the run's start, CLOCK_REALTIME ns */
	char *root;             /* locations under it read relative to it, owned, or NULL */
	struct pid_map *v;      /* [n], owned */
	size_t n, cap;
};

struct rn_perfmaps *rn_perfmaps_new(uint64_t not_before_ns, const char *root)
{
	struct rn_perfmaps *s = rn_xcalloc(1, sizeof(*s));

	s->not_before_ns = not_before_ns;
	s->root = root && *root ? rn_xstrdup(root) : NULL;
	return s;
}

const char *rn_perfmaps_root(const struct rn_perfmaps *s)
{
	return s ? s->root : NULL;
}

const char *rn_perfmaps_lookup(struct rn_perfmaps *s, pid_t pid, uint64_t addr)
{
	struct pid_map *pm = NULL;
	char path[64];

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid)
			pm = &s->v[i];
	if (!pm) {
		s->v = rn_xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
		pm = &s->v[s->n++];
		pm->pid = pid;
		pm->map = NULL;
		rn_perfmap_path(pid, path, sizeof(path));
		if (rn_perfmap_read(path, s->not_before_ns, &pm->map))
			pm->map = NULL;
	}
	return rn_perfmap_lookup(pm->map, addr);
}

void rn_perfmaps_free(struct rn_perfmaps *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		rn_perfmap_free(s->v[i].map);
	free(s->v);
	free(s->root);
	free(s);
}

uint64_t rn_perfmap_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME_COARSE, &ts))
		clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- names as frames ----------------------------------------------------------------------- */

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* `file` relative to `root` when it lies under it ("/w/head/a.js" under "/w/head": "a.js"). */
static const char *under(const char *file, const char *root)
{
	size_t n = root ? strlen(root) : 0;

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n > 1 && !strncmp(file, root, n) && file[n] == '/' && file[n + 1])
		return file + n + 1;
	return file;
}

char *rn_perfmap_frame_name(const char *name, const char *root, char *buf, size_t cap)
{
	/* V8's kinds of JavaScript code (v8/src/logging/log.cc: CodeKind and the older
	 * LogEventListener tags); Builtin:, BytecodeHandler:, Stub:, RegExp: stay as written */
	static const char *const js_kinds[] = { "JS:", "LazyCompile:", "Function:", "Script:",
						"Eval:" };
	const char *colon, *sp, *loc;

	if (has_prefix(name, "py::")) {
		/* CPython's "py::QUALNAME:FILENAME" (Python/perf_trampoline.c); a qualname holds
		 * no ':', a Windows-style file name might */
		colon = strchr(name + 4, ':');
		if (colon && colon > name + 4 && colon[1]) {
			snprintf(buf, cap, "%.*s (%s)", (int)(colon - name - 4), name + 4,
				 under(colon + 1, root));
			return buf;
		}
	}
	for (size_t i = 0; i < sizeof(js_kinds) / sizeof(js_kinds[0]); i++) {
		const char *p;

		if (!has_prefix(name, js_kinds[i]))
			continue;
		p = name + strlen(js_kinds[i]);
		/* the tier: '~' interpreted, '^' baseline (Sparkplug), '+' Maglev, '*' TurboFan */
		if (*p && strchr("*~^+", *p))
			p++;
		sp = strchr(p, ' ');
		loc = sp ? sp + 1 : "";
		if (has_prefix(loc, "file://"))
			loc += 7;
		loc = under(loc, root);
		if (!*loc) {
			snprintf(buf, cap, "%s", *p ? p : "<anonymous>");
			return buf;
		}
		if (sp == p)
			snprintf(buf, cap, "<anonymous> (%s)", loc);
		else
			snprintf(buf, cap, "%.*s (%s)", (int)(sp - p), p, loc);
		return buf;
	}
	snprintf(buf, cap, "%s", name);
	return buf;
}
