/*
 * app.c - the "app" collector (app.h): an OTLP/HTTP receiver on a loopback port and the
 * renacer_span.h pipe, served by one thread during the run.
 */
#include "app.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "escape.h"
#include "log.h"
#include "now.h"
#include "renacer_span.h"
#include "xalloc.h"

_Static_assert(sizeof(struct renacer_span_rec) == 128, "renacer_span.h record is 128 bytes");
_Static_assert(sizeof(struct renacer_span_rec) <= 512, "a record must be written atomically");

/* Connections served at once (OTLP exporters keep one or two alive). */
#define MAX_CONNS 16
/* Largest request head (request line and headers), bytes. */
#define MAX_HEAD 16384

struct conn {
	int fd;           /* -1 when the slot is free */
	struct rn_buf in; /* bytes received and not yet handled */
};

/* Slack around the run for a span's times (NTP steps between the clocks, SDK clock drift):
 * a span that starts earlier or ends later than this outside the run is dropped. */
#define RUN_SLACK_NS (60ull * 1000000000ull)

/* A thread whose pushes were refused past RN_APP_MAX_OPEN: its pops close those first. */
struct overflow {
	pid_t pid, tid;
	uint64_t depth; /* pushes refused and not yet popped */
};

/* A header span open on one thread: push without its pop yet. */
struct open_span {
	pid_t pid, tid;
	uint64_t start_ns;
	uint64_t cpu_ns; /* the thread's CPU clock at the push, ns, 0 when unknown */
	char *name;
	char *parent; /* name of the enclosing span on the thread at the push, owned, or NULL */
};

struct app_collector {
	int listen_fd;                /* the OTLP/HTTP socket, -1 before prepare */
	int pipe_rd, pipe_wr;         /* renacer_span.h pipe; pipe_wr closed at spawn */
	int wake_rd, wake_wr;         /* finish() wakes the thread to stop */
	uint16_t port;                /* the receiver's port */
	pthread_t thread;             /* the receiver */
	bool running;                 /* the thread was started */
	struct conn conns[MAX_CONNS]; /* open connections */
	struct rn_app_span *spans;    /* spans received, mono times, owned */
	size_t nspans, cap;           /* used, allocated */
	struct open_span *open;       /* header spans pushed and not popped */
	size_t nopen, open_cap;       /* used, allocated */
	uint64_t bad_requests;        /* requests that could not be decoded */
	uint64_t dropped;             /* spans past RN_APP_MAX_SPANS */
	uint64_t dropped_open;        /* pushes past RN_APP_MAX_OPEN open spans */
	uint64_t dropped_time;        /* spans with times outside the run (RUN_SLACK_NS) */
	struct overflow *over;        /* threads with refused pushes still open */
	size_t nover, over_cap;       /* used, allocated */
	char pipe_rest[sizeof(struct renacer_span_rec)]; /* a partial record */
	size_t pipe_rest_len;                            /* bytes in pipe_rest */
};

static struct rn_app_span *add_span(struct app_collector *c)
{
	if (c->nspans >= RN_APP_MAX_SPANS) {
		c->dropped++;
		return NULL;
	}
	c->spans = rn_xgrow(c->spans, &c->cap, c->nspans + 1, sizeof(*c->spans));
	memset(&c->spans[c->nspans], 0, sizeof(*c->spans));
	return &c->spans[c->nspans++];
}

/* ---- renacer_span.h records ---- */

/* The record's name as stored: the program chose it, so invalid UTF-8 (a name an older
 * header cut inside a character) is repaired and control characters are escaped
 * (rn_display_dup) before any output sees it. */
static char *rec_name(const struct renacer_span_rec *r)
{
	size_t len = r->name_len > RENACER_SPAN_NAME_MAX ? RENACER_SPAN_NAME_MAX : r->name_len;
	char raw[RENACER_SPAN_NAME_MAX + 1];

	memcpy(raw, r->name, len);
	raw[len] = 0;
	return rn_display_dup(raw);
}

/* The refused-push record of thread `tid` of `pid`, created when `add`, else NULL. */
static struct overflow *overflow_of(struct app_collector *c, pid_t pid, pid_t tid, bool add)
{
	size_t i;

	for (i = 0; i < c->nover; i++)
		if (c->over[i].pid == pid && c->over[i].tid == tid)
			return &c->over[i];
	if (!add)
		return NULL;
	c->over = rn_xgrow(c->over, &c->over_cap, c->nover + 1, sizeof(*c->over));
	c->over[c->nover] = (struct overflow){ pid, tid, 0 };
	return &c->over[c->nover++];
}

/* The innermost open span of thread `tid` of `pid`, or SIZE_MAX. */
static size_t innermost(const struct app_collector *c, pid_t pid, pid_t tid)
{
	size_t i;

	for (i = c->nopen; i-- > 0;)
		if (c->open[i].pid == pid && c->open[i].tid == tid)
			return i;
	return SIZE_MAX;
}

/* The CPU time of a span from its push's and pop's thread CPU clocks (t1_ns): both known
 * (not 0, which records written before the clock was carried hold) and not going back. */
static bool span_cpu(uint64_t push_cpu_ns, uint64_t pop_cpu_ns, uint64_t *cpu_ns)
{
	if (!push_cpu_ns || !pop_cpu_ns || pop_cpu_ns < push_cpu_ns)
		return false;
	*cpu_ns = pop_cpu_ns - push_cpu_ns;
	return true;
}

/* Close open span `i` at `end_ns`, the thread's CPU clock then `end_cpu_ns` (0: unknown). */
static void close_open(struct app_collector *c, size_t i, uint64_t end_ns, uint64_t end_cpu_ns,
		       uint32_t flags)
{
	struct open_span *o = &c->open[i];
	struct rn_app_span *s = add_span(c);

	if (s) {
		s->pid = o->pid;
		s->tid = o->tid;
		s->source = RN_APP_SOURCE_HEADER;
		s->flags = flags;
		s->name = o->name;
		s->parent = o->parent;
		s->start_ns = o->start_ns;
		s->end_ns = end_ns >= o->start_ns ? end_ns : o->start_ns;
		if (span_cpu(o->cpu_ns, end_cpu_ns, &s->cpu_ns))
			s->flags |= RN_APP_CPU;
	} else {
		free(o->name);
		free(o->parent);
	}
	memmove(&c->open[i], &c->open[i + 1], (c->nopen - i - 1) * sizeof(*c->open));
	c->nopen--;
}

static void handle_record(struct app_collector *c, const struct renacer_span_rec *r)
{
	size_t top;

	if (r->magic != RENACER_SPAN_MAGIC) {
		c->bad_requests++;
		return;
	}
	top = innermost(c, r->pid, r->tid);
	switch (r->op) {
	case RENACER_SPAN_PUSH:
		if (c->nopen >= RN_APP_MAX_OPEN) {
			/* refused, and remembered so that its pop does not close the
			 * enclosing span */
			overflow_of(c, r->pid, r->tid, true)->depth++;
			c->dropped_open++;
			break;
		}
		c->open = rn_xgrow(c->open, &c->open_cap, c->nopen + 1, sizeof(*c->open));
		c->open[c->nopen].pid = r->pid;
		c->open[c->nopen].tid = r->tid;
		c->open[c->nopen].start_ns = r->t0_ns;
		c->open[c->nopen].cpu_ns = r->t1_ns;
		c->open[c->nopen].name = rec_name(r);
		c->open[c->nopen].parent = top != SIZE_MAX ? rn_xstrdup(c->open[top].name) : NULL;
		c->nopen++;
		break;
	case RENACER_SPAN_POP: {
		struct overflow *o = c->nover ? overflow_of(c, r->pid, r->tid, false) : NULL;

		if (o && o->depth) {
			if (!--o->depth)
				*o = c->over[--c->nover];
			break;
		}
		if (top != SIZE_MAX)
			close_open(c, top, r->t0_ns, r->t1_ns, 0);
		break;
	}
	case RENACER_SPAN_RECORD: {
		struct rn_app_span *s = add_span(c);

		if (!s)
			break;
		s->pid = r->pid;
		s->tid = r->tid;
		s->source = RN_APP_SOURCE_HEADER;
		s->name = rec_name(r);
		s->parent = top != SIZE_MAX ? rn_xstrdup(c->open[top].name) : NULL;
		s->start_ns = r->t0_ns;
		s->end_ns = r->t1_ns >= r->t0_ns ? r->t1_ns : r->t0_ns;
		break;
	}
	default:
		c->bad_requests++;
	}
}

/* Handle the whole records of buf[0, len): returns the bytes used (a multiple of the record
 * size; the rest is a partial record). */
static size_t feed_records(struct app_collector *c, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + sizeof(struct renacer_span_rec) <= len;
	     i += sizeof(struct renacer_span_rec)) {
		struct renacer_span_rec r;

		memcpy(&r, buf + i, sizeof(r));
		handle_record(c, &r);
	}
	return i;
}

/* Read what the pipe holds (non-blocking). */
static void drain_pipe(struct app_collector *c)
{
	char buf[64 * sizeof(struct renacer_span_rec)];
	ssize_t n;

	while (c->pipe_rd >= 0) {
		size_t off = c->pipe_rest_len, i;

		memcpy(buf, c->pipe_rest, off);
		n = read(c->pipe_rd, buf + off, sizeof(buf) - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0) { /* every writer is gone */
				close(c->pipe_rd);
				c->pipe_rd = -1;
			}
			return;
		}
		off += (size_t)n;
		i = feed_records(c, buf, off);
		c->pipe_rest_len = off - i;
		memcpy(c->pipe_rest, buf + i, c->pipe_rest_len);
	}
}

/* ---- OTLP/HTTP ---- */

static void conn_close(struct conn *k)
{
	close(k->fd);
	k->fd = -1;
	rn_buf_release(&k->in);
}

static void send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

static void respond(struct conn *k, int code, const char *reason, const char *type,
		    const char *body)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b,
		    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		    "Connection: keep-alive\r\n\r\n%s",
		    code, reason, type, strlen(body), body);
	if (!rn_buf_failed(&b))
		send_all(k->fd, b.buf, b.len);
	rn_buf_release(&b);
}

/* The value of header `name` in the head [p, end), copied into out (cap bytes), or false. */
static bool header(const char *p, const char *end, const char *name, char *out, size_t cap)
{
	size_t nlen = strlen(name);

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > nlen && !strncasecmp(p, name, nlen) && p[nlen] == ':') {
			const char *v = p + nlen + 1;
			size_t len;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			len = (size_t)(eol - v);
			while (len && (v[len - 1] == '\r' || v[len - 1] == ' '))
				len--;
			if (len >= cap)
				len = cap - 1;
			memcpy(out, v, len);
			out[len] = 0;
			return true;
		}
		p = eol + 1;
	}
	return false;
}

/* Decode a chunked body [p, p + len) into `out`. 1 complete, 0 more needed, -1 invalid. */
static int dechunk(const char *p, size_t len, struct rn_buf *out, size_t *used)
{
	size_t off = 0;

	rn_buf_reset(out);
	for (;;) {
		const char *eol = memchr(p + off, '\n', len - off);
		char *end;
		unsigned long long n;

		if (!eol)
			return 0;
		errno = 0;
		n = strtoull(p + off, &end, 16);
		if (errno || end == p + off || n > RN_APP_MAX_BODY)
			return -1;
		off = (size_t)(eol - p) + 1;
		if (!n) {
			const char *fin = memchr(p + off, '\n', len - off);

			if (!fin)
				return 0;
			*used = (size_t)(fin - p) + 1;
			return 1;
		}
		if (len - off < n + 2)
			return 0;
		rn_buf_add(out, p + off, (size_t)n);
		if (out->len > RN_APP_MAX_BODY)
			return -1;
		off += (size_t)n + 2;
	}
}

/* Unix time `unix_ns` on the monotonic clock (`real_ns` and `mono_ns` read together), in
 * *out. False when it falls before the monotonic clock's zero or past INT64_MAX: no span of
 * this run can be there. */
static bool to_mono(uint64_t unix_ns, uint64_t real_ns, uint64_t mono_ns, uint64_t *out)
{
	uint64_t m;

	if (real_ns >= mono_ns) {
		if (unix_ns < real_ns - mono_ns)
			return false;
		m = unix_ns - (real_ns - mono_ns);
	} else {
		if (unix_ns > UINT64_MAX - (mono_ns - real_ns))
			return false;
		m = unix_ns + (mono_ns - real_ns);
	}
	*out = m;
	return m <= (uint64_t)INT64_MAX;
}

static void take_spans(struct app_collector *c, struct rn_app_otlp_span *s, size_t n)
{
	/* OTLP times are Unix times: mapped to the monotonic clock with the offset now. */
	uint64_t real_ns = rn_real_ns(), mono_ns = rn_mono_ns();
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t start, end;
		struct rn_app_span *a = NULL;

		if (!to_mono(s[i].start_unix_ns, real_ns, mono_ns, &start) ||
		    !to_mono(s[i].end_unix_ns, real_ns, mono_ns, &end))
			c->dropped_time++;
		else
			a = add_span(c);
		if (!a) {
			free(s[i].name);
			free(s[i].attrs);
			continue;
		}
		a->pid = (pid_t)s[i].pid;
		a->tid = (pid_t)s[i].tid;
		a->source = RN_APP_SOURCE_OTLP;
		a->flags = s[i].error ? RN_APP_ERROR : 0;
		a->name = rn_display_dup(s[i].name); /* the program's text: see rec_name() */
		free(s[i].name);
		a->attrs = s[i].attrs;
		a->start_ns = start;
		a->end_ns = end;
		if (a->end_ns < a->start_ns)
			a->end_ns = a->start_ns;
		memcpy(a->trace_id, s[i].trace_id, 16);
		memcpy(a->span_id, s[i].span_id, 8);
		memcpy(a->parent_span_id, s[i].parent_span_id, 8);
	}
	free(s);
}

/* Handle the complete requests buffered on `k`. Returns false when the connection is done. */
static bool serve(struct app_collector *c, struct conn *k)
{
	for (;;) {
		const char *buf = k->in.buf, *head_end;
		char val[128], method[16], path[256];
		size_t head_len, body_len = 0, used;
		bool json = false, chunked = false;
		struct rn_buf body;
		struct rn_app_otlp_span *spans;
		size_t n;
		int rc, ok;

		if (!k->in.len)
			return true;
		head_end = k->in.len >= 4 ? memmem(buf, k->in.len, "\r\n\r\n", 4) : NULL;
		if (!head_end) {
			if (k->in.len > MAX_HEAD) {
				respond(k, 431, "Request Header Fields Too Large", "text/plain",
					"");
				return false;
			}
			return true;
		}
		head_len = (size_t)(head_end - buf) + 4;
		if (sscanf(buf, "%15s %255s", method, path) != 2) {
			respond(k, 400, "Bad Request", "text/plain", "");
			return false;
		}
		if (header(buf, head_end, "Transfer-Encoding", val, sizeof(val)))
			chunked = strstr(val, "chunked") != NULL;
		if (!chunked && header(buf, head_end, "Content-Length", val, sizeof(val))) {
			char *end;

			errno = 0;
			body_len = strtoull(val, &end, 10);
			if (errno || *end || body_len > RN_APP_MAX_BODY) {
				respond(k, 413, "Payload Too Large", "text/plain", "");
				return false;
			}
		}
		rn_buf_init(&body, 0);
		if (chunked) {
			ok = dechunk(buf + head_len, k->in.len - head_len, &body, &used);
			if (ok < 0) {
				rn_buf_release(&body);
				respond(k, 400, "Bad Request", "text/plain", "");
				return false;
			}
			if (!ok) {
				rn_buf_release(&body);
				return true;
			}
			used += head_len;
		} else {
			if (k->in.len - head_len < body_len) {
				rn_buf_release(&body);
				return true;
			}
			rn_buf_add(&body, buf + head_len, body_len);
			used = head_len + body_len;
		}
		if (header(buf, head_end, "Content-Type", val, sizeof(val)))
			json = strstr(val, "json") != NULL;
		if (strcmp(method, "POST") || strncmp(path, "/v1/traces", 10) ||
		    (path[10] && path[10] != '?')) {
			respond(k, 404, "Not Found", "text/plain", "");
		} else if (header(buf, head_end, "Content-Encoding", val, sizeof(val)) &&
			   strcasecmp(val, "identity")) {
			c->bad_requests++;
			respond(k, 415, "Unsupported Media Type", "text/plain",
				"renacer receives uncompressed OTLP only");
		} else {
			rc = rn_app_otlp_decode(body.buf, body.len, json, &spans, &n);
			if (rc) {
				c->bad_requests++;
				respond(k, 400, "Bad Request", "text/plain", "");
			} else {
				take_spans(c, spans, n);
				if (json)
					respond(k, 200, "OK", "application/json", "{}");
				else
					respond(k, 200, "OK", "application/x-protobuf", "");
			}
		}
		rn_buf_release(&body);
		memmove(k->in.buf, k->in.buf + used, k->in.len - used);
		k->in.len -= used;
		k->in.buf[k->in.len] = 0;
	}
}

static void accept_conn(struct app_collector *c)
{
	int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONNS; i++) {
		if (c->conns[i].fd < 0) {
			c->conns[i].fd = fd;
			rn_buf_init(&c->conns[i].in, RN_APP_MAX_BODY + MAX_HEAD);
			return;
		}
	}
	close(fd); /* too many: the exporter retries */
}

static void read_conn(struct app_collector *c, struct conn *k)
{
	char buf[65536];

	for (;;) {
		ssize_t n = recv(k->fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			serve(c, k);
			conn_close(k);
			return;
		}
		rn_buf_add(&k->in, buf, (size_t)n);
		if (rn_buf_failed(&k->in)) {
			respond(k, 413, "Payload Too Large", "text/plain", "");
			conn_close(k);
			return;
		}
	}
	if (!serve(c, k))
		conn_close(k);
}

static void *receiver(void *arg)
{
	struct app_collector *c = arg;
	bool stop = false;

	while (!stop) {
		struct pollfd p[3 + MAX_CONNS];
		int np = 0, i, map[MAX_CONNS];

		p[np++] = (struct pollfd){ c->wake_rd, POLLIN, 0 };
		p[np++] = (struct pollfd){ c->listen_fd, POLLIN, 0 };
		p[np++] = (struct pollfd){ c->pipe_rd, POLLIN, 0 }; /* -1 is ignored */
		for (i = 0; i < MAX_CONNS; i++) {
			map[i] = -1;
			if (c->conns[i].fd >= 0) {
				map[i] = np;
				p[np++] = (struct pollfd){ c->conns[i].fd, POLLIN, 0 };
			}
		}
		if (poll(p, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents)
			stop = true;
		if (p[2].revents)
			drain_pipe(c);
		for (i = 0; i < MAX_CONNS; i++)
			if (map[i] >= 0 && p[map[i]].revents)
				read_conn(c, &c->conns[i]);
		if (p[1].revents)
			accept_conn(c);
	}
	/* The tree is gone: what is still buffered is complete. */
	drain_pipe(c);
	for (int i = 0; i < MAX_CONNS; i++)
		if (c->conns[i].fd >= 0)
			read_conn(c, &c->conns[i]);
	return NULL;
}

/* ---- the ops ---- */

static const char *app_unavailable(void)
{
	return NULL;
}

static int app_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	struct app_collector *c = rn_xcalloc(1, sizeof(*c));
	int i;

	(void)spec;
	c->listen_fd = c->pipe_rd = c->pipe_wr = c->wake_rd = c->wake_wr = -1;
	for (i = 0; i < MAX_CONNS; i++)
		c->conns[i].fd = -1;
	*out = (struct rn_collector *)c;
	return 0;
}

/* Set KEY=VALUE in the target's environment: replace KEY's entry, else append; with
 * `keep` an entry the target's environment already has wins. */
static void set_env(struct rn_strvec *env, const char *key, const char *val, bool keep)
{
	if (keep && rn_strvec_env_find(env, key) >= 0)
		return;
	rn_strvec_env_setkv(env, key, val);
}

static int app_prepare(struct rn_collector *rc, struct rn_strvec *env)
{
	struct app_collector *c = (struct app_collector *)rc;
	struct sockaddr_in sa;
	socklen_t slen = sizeof(sa);
	int p[2], w[2], err;
	char url[64], fdnum[16];
	sigset_t all, old;

	c->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->listen_fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(c->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(c->listen_fd, 16) ||
	    getsockname(c->listen_fd, (struct sockaddr *)&sa, &slen))
		return -errno;
	c->port = ntohs(sa.sin_port);
	/* The span pipe: the read end stays here; the write end is the target's (no
	 * close-on-exec), closed here once the child has it. */
	if (pipe2(p, O_CLOEXEC) || pipe2(w, O_CLOEXEC))
		return -errno;
	c->pipe_rd = p[0];
	c->pipe_wr = p[1];
	c->wake_rd = w[0];
	c->wake_wr = w[1];
	if (fcntl(c->pipe_rd, F_SETFL, O_NONBLOCK) || fcntl(c->pipe_wr, F_SETFD, 0))
		return -errno;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)c->port);
	set_env(env, "OTEL_EXPORTER_OTLP_ENDPOINT", url, false);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/v1/traces", (unsigned)c->port);
	set_env(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url, false);
	set_env(env, "OTEL_TRACES_EXPORTER", "otlp", false);
	set_env(env, "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", true);
	set_env(env, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "none", false);
	set_env(env, "OTEL_EXPORTER_OTLP_COMPRESSION", "none", false);
	snprintf(fdnum, sizeof(fdnum), "%d", c->pipe_wr);
	set_env(env, RENACER_SPAN_FD_ENV, fdnum, false);
	/* The receiver takes no signal: the run loop's handlers stay on the tracer's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&c->thread, NULL, receiver, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	c->running = true;
	return 0;
}

static int app_on_spawn(struct rn_collector *rc, pid_t pid, struct rn_trace *t)
{
	struct app_collector *c = (struct app_collector *)rc;

	(void)pid;
	(void)t;
	if (c->pipe_wr >= 0) {
		close(c->pipe_wr);
		c->pipe_wr = -1;
	}
	return 0;
}

static int app_on_event(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status)
{
	(void)c;
	(void)t;
	(void)tid;
	(void)status;
	return 0;
}

static void stop_thread(struct app_collector *c)
{
	if (!c->running)
		return;
	while (write(c->wake_wr, "x", 1) < 0 && errno == EINTR)
		;
	pthread_join(c->thread, NULL);
	c->running = false;
}

/*
 * The OTLP spans by span id: open addressing over indices into c->spans, the first span of an
 * id kept (as a scan in arrival order finds it), so finding every parent is linear in spans
 * whatever their links. The hash is keyed per run, so ids chosen to collide cannot make the
 * probes long.
 */
struct id_index {
	size_t *slot;  /* index + 1 into c->spans, 0 = empty; [mask + 1] */
	size_t mask;   /* slots - 1, slots a power of two */
	uint64_t seed; /* hash key */
};

static uint64_t id_key(const uint8_t *id)
{
	uint64_t k;

	memcpy(&k, id, 8);
	return k;
}

static size_t id_hash(const struct id_index *x, uint64_t k)
{
	/* splitmix64's finalizer */
	k ^= x->seed;
	k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ull;
	k = (k ^ (k >> 27)) * 0x94d049bb133111ebull;
	return (size_t)(k ^ (k >> 31)) & x->mask;
}

static void id_index_build(struct id_index *x, const struct app_collector *c)
{
	size_t slots = 16, i;

	while (slots < 2 * c->nspans)
		slots *= 2;
	x->slot = rn_xcalloc(slots, sizeof(*x->slot));
	x->mask = slots - 1;
	if (getrandom(&x->seed, sizeof(x->seed), GRND_NONBLOCK) != sizeof(x->seed))
		x->seed = rn_mono_ns() * 0x9e3779b97f4a7c15ull;
	for (i = 0; i < c->nspans; i++) {
		const struct rn_app_span *s = &c->spans[i];
		uint64_t k = id_key(s->span_id);
		size_t h;

		if (s->source != RN_APP_SOURCE_OTLP || !k)
			continue;
		for (h = id_hash(x, k); x->slot[h]; h = (h + 1) & x->mask)
			if (id_key(c->spans[x->slot[h] - 1].span_id) == k)
				break;
		if (!x->slot[h])
			x->slot[h] = i + 1;
	}
}

/* The name of the OTLP span whose span id is `id` among c's spans, or NULL. */
static const char *otlp_parent(const struct app_collector *c, const struct id_index *x,
			       const uint8_t *id)
{
	uint64_t k = id_key(id);
	size_t h;

	if (!k)
		return NULL;
	for (h = id_hash(x, k); x->slot[h]; h = (h + 1) & x->mask)
		if (id_key(c->spans[x->slot[h] - 1].span_id) == k)
			return c->spans[x->slot[h] - 1].name;
	return NULL;
}

/* Whether span `s` lies within the run [start_ns, end_ns] give or take RUN_SLACK_NS. */
static bool in_run(const struct rn_app_span *s, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t lo = start_ns > RUN_SLACK_NS ? start_ns - RUN_SLACK_NS : 0;
	uint64_t hi = end_ns < UINT64_MAX - RUN_SLACK_NS ? end_ns + RUN_SLACK_NS : UINT64_MAX;

	return s->start_ns >= lo && s->end_ns <= hi;
}

static int app_finish(struct rn_collector *rc, struct rn_trace *t)
{
	struct app_collector *c = (struct app_collector *)rc;
	uint64_t now = rn_mono_ns(), end = t->end_ns ? t->end_ns : now;
	struct id_index ids;
	size_t i;

	stop_thread(c);
	t->app_port = c->port;
	/* pushed and never popped: closed at the end of the run, and said so */
	while (c->nopen)
		close_open(c, c->nopen - 1, end, 0, RN_APP_UNCLOSED);
	id_index_build(&ids, c);
	for (i = 0; i < c->nspans; i++) {
		struct rn_app_span *s = &c->spans[i];
		const char *parent = s->parent;

		if (s->source == RN_APP_SOURCE_OTLP)
			parent = otlp_parent(c, &ids, s->parent_span_id);
		s->parent = (char *)parent;
		/* a time the program made up (a start in 1970, a span of 500 years) never
		 * reaches a budget: it is dropped and counted */
		if (in_run(s, t->start_ns, end))
			rn_trace_add_app(t, s);
		else
			c->dropped_time++;
		if (s->source == RN_APP_SOURCE_HEADER)
			free(parent ? (char *)parent : NULL);
		s->parent = NULL;
	}
	for (i = 0; i < c->nspans; i++) {
		free(c->spans[i].name);
		free(c->spans[i].attrs);
		c->spans[i].name = c->spans[i].attrs = NULL;
	}
	c->nspans = 0;
	free(ids.slot);
	if (c->bad_requests)
		rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_SPAN_DETAIL, "app", 0,
				 "%llu OTLP request(s) or span record(s) could not be decoded",
				 (unsigned long long)c->bad_requests);
	if (c->dropped)
		rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_SPAN_DETAIL, "app", c->dropped,
				 "more than %u app spans in one run", RN_APP_MAX_SPANS);
	if (c->dropped_open)
		rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_SPAN_DETAIL, "app", c->dropped_open,
				 "%llu renacer_span_push() call(s) refused: more than %u app spans "
				 "open at once",
				 (unsigned long long)c->dropped_open, RN_APP_MAX_OPEN);
	if (c->dropped_time)
		rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_SPAN_DETAIL, "app", c->dropped_time,
				 "%llu app span(s) dropped: their times lie outside the run (more "
				 "than %llu s before its start or after its end, or not a time on "
				 "this machine's clocks)",
				 (unsigned long long)c->dropped_time,
				 (unsigned long long)(RUN_SLACK_NS / 1000000000ull));
	return 0;
}

static void app_destroy(struct rn_collector *rc)
{
	struct app_collector *c = (struct app_collector *)rc;
	size_t i;

	if (!c)
		return;
	stop_thread(c);
	for (i = 0; i < MAX_CONNS; i++)
		if (c->conns[i].fd >= 0)
			conn_close(&c->conns[i]);
	if (c->listen_fd >= 0)
		close(c->listen_fd);
	if (c->pipe_rd >= 0)
		close(c->pipe_rd);
	if (c->pipe_wr >= 0)
		close(c->pipe_wr);
	if (c->wake_rd >= 0)
		close(c->wake_rd);
	if (c->wake_wr >= 0)
		close(c->wake_wr);
	for (i = 0; i < c->nspans; i++) {
		free(c->spans[i].name);
		free(c->spans[i].parent);
		free(c->spans[i].attrs);
	}
	free(c->spans);
	for (i = 0; i < c->nopen; i++) {
		free(c->open[i].name);
		free(c->open[i].parent);
	}
	free(c->open);
	free(c->over);
	free(c);
}

const struct rn_collector_ops rn_app_collector = {
	.name = "app",
	.unavailable = app_unavailable,
	.create = app_create,
	.prepare = app_prepare,
	.on_spawn = app_on_spawn,
	.on_event = app_on_event,
	.finish = app_finish,
	.destroy = app_destroy,
};

int rn_app_replay(const void *pipe_bytes, size_t pipe_len, const void *body, size_t body_len,
		  bool json, struct rn_trace *t)
{
	struct rn_collector *rc;
	struct app_collector *c;
	struct rn_app_otlp_span *spans;
	size_t n;
	int err = 0;

	app_create(&rc, NULL);
	c = (struct app_collector *)rc;
	feed_records(c, pipe_bytes, pipe_len);
	if (body) {
		err = rn_app_otlp_decode(body, body_len, json, &spans, &n);
		if (!err)
			take_spans(c, spans, n);
	}
	app_finish(rc, t);
	app_destroy(rc);
	return err;
}
