/*
 * load.c - CUDA record files to spans (see load.h). jansson parses each line: it is already a
 * dependency of the runner, is fuzzed upstream and bounds its own nesting depth, so the
 * reader only has to check shapes and ranges.
 */
#include "load.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

/* Largest value accepted for a count, id or byte size (keeps sums far from overflow). */
#define MAX_FIELD ((uint64_t)1 << 62)

struct line {
	const char *p; /* first byte of the line */
	size_t len;    /* bytes before the newline */
	size_t no;     /* 1-based line number */
};

/* Cursor over the lines of one file. */
struct cursor {
	const char *data; /* the file */
	size_t len;       /* its size */
	size_t off;       /* next unread byte */
	size_t no;        /* lines returned so far */
};

static void report_error(struct rn_cuda_load_report *rep, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report_error(struct rn_cuda_load_report *rep, size_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->error, sizeof(rep->error), fmt, ap);
	va_end(ap);
	rep->error_line = line;
}

void rn_cuda_load_report_init(struct rn_cuda_load_report *rep)
{
	memset(rep, 0, sizeof(*rep));
}

/* Next complete line (ending in '\n'). Returns 1 with `*l` set, 0 at the end, 2 when the
 * remaining bytes are a last line without its newline. Empty lines are skipped. */
static int next_line(struct cursor *c, struct line *l)
{
	while (c->off < c->len) {
		const char *start = c->data + c->off;
		const char *nl = memchr(start, '\n', c->len - c->off);

		c->no++;
		if (!nl) {
			c->off = c->len;
			return 2;
		}
		c->off += (size_t)(nl - start) + 1;
		if (nl == start)
			continue;
		l->p = start;
		l->len = (size_t)(nl - start);
		l->no = c->no;
		return 1;
	}
	return 0;
}

/* An unsigned integer field `key` of `o` in [0, MAX_FIELD]. */
static bool get_u64(json_t *o, const char *key, uint64_t *v)
{
	json_t *j = json_object_get(o, key);

	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    (uint64_t)json_integer_value(j) > MAX_FIELD)
		return false;
	*v = (uint64_t)json_integer_value(j);
	return true;
}

static bool get_u32(json_t *o, const char *key, uint32_t *v)
{
	uint64_t x;

	if (!get_u64(o, key, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* A signed integer field. */
static bool get_i64(json_t *o, const char *key, int64_t *v)
{
	json_t *j = json_object_get(o, key);

	if (!json_is_integer(j))
		return false;
	*v = (int64_t)json_integer_value(j);
	return true;
}

/* An array of three uint32 values. */
static bool get_dim3(json_t *o, const char *key, uint32_t v[3])
{
	json_t *a = json_object_get(o, key);

	if (!json_is_array(a) || json_array_size(a) != 3)
		return false;
	for (size_t i = 0; i < 3; i++) {
		json_t *j = json_array_get(a, i);

		if (!json_is_integer(j) || json_integer_value(j) < 0 ||
		    json_integer_value(j) > UINT32_MAX)
			return false;
		v[i] = (uint32_t)json_integer_value(j);
	}
	return true;
}

/* Parse one line into a JSON object. NULL (with rep->error set) if it is not one. */
static json_t *parse_line(const struct line *l, struct rn_cuda_load_report *rep)
{
	json_error_t jerr;
	json_t *o;

	if (l->len > RN_CUDA_MAX_LINE_BYTES) {
		report_error(rep, l->no, "line longer than %d bytes", RN_CUDA_MAX_LINE_BYTES);
		return NULL;
	}
	o = json_loadb(l->p, l->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		report_error(rep, l->no, "invalid JSON: %s", jerr.text);
		return NULL;
	}
	if (!json_is_object(o)) {
		json_decref(o);
		report_error(rep, l->no, "not a JSON object");
		return NULL;
	}
	return o;
}

/* The header line: format, version, pid. */
static int parse_header(const struct line *l, pid_t *pid, struct rn_cuda_load_report *rep)
{
	json_t *o = parse_line(l, rep), *f;
	uint64_t version, p;
	int ret = -EBADMSG;

	if (!o)
		return -EBADMSG;
	f = json_object_get(o, "format");
	if (!json_is_string(f) || strcmp(json_string_value(f), RN_CUDA_FORMAT)) {
		report_error(rep, l->no, "not a renacer CUDA record file (format is not \"%s\")",
			     RN_CUDA_FORMAT);
		goto out;
	}
	if (!get_u64(o, "version", &version) || version != RN_CUDA_VERSION) {
		report_error(rep, l->no, "unsupported version (this reader knows %d)",
			     RN_CUDA_VERSION);
		goto out;
	}
	if (!get_u64(o, "pid", &p) || !p || p > INT32_MAX) {
		report_error(rep, l->no, "missing or invalid \"pid\"");
		goto out;
	}
	*pid = (pid_t)p;
	ret = 0;
out:
	json_decref(o);
	return ret;
}

static enum rn_gpu_dir parse_dir(const char *s)
{
	if (!strcmp(s, "htod"))
		return RN_GPU_DIR_HTOD;
	if (!strcmp(s, "dtoh"))
		return RN_GPU_DIR_DTOH;
	if (!strcmp(s, "dtod"))
		return RN_GPU_DIR_DTOD;
	if (!strcmp(s, "htoh"))
		return RN_GPU_DIR_HTOH;
	return RN_GPU_DIR_NONE;
}

/* Fill span and info from a kernel/memcpy/memset object. Returns 0 or -EBADMSG. */
static int parse_span(json_t *o, const char *type, const struct line *l, struct rn_gpu_span *span,
		      struct rn_cuda_span_info *info, struct rn_cuda_load_report *rep)
{
	uint64_t v;

	if (!get_u32(o, "device", &info->device) || !get_u32(o, "stream", &info->stream) ||
	    !get_u64(o, "start", &info->cupti_start_ns) ||
	    !get_u64(o, "end", &info->cupti_end_ns)) {
		report_error(rep, l->no, "%s record lacks device, stream, start or end", type);
		return -EBADMSG;
	}
	span->queue_family = info->stream;
	if (!strcmp(type, "kernel")) {
		json_t *name = json_object_get(o, "name");

		if (!json_is_string(name) || !*json_string_value(name) ||
		    !get_dim3(o, "grid", span->groups) || !get_dim3(o, "block", info->block) ||
		    !get_u32(o, "registers", &info->registers) ||
		    !get_u64(o, "static_shared", &info->static_shared) ||
		    !get_u64(o, "dynamic_shared", &info->dynamic_shared)) {
			report_error(rep, l->no, "kernel record lacks a field or has a bad one");
			return -EBADMSG;
		}
		span->kind = RN_GPU_DISPATCH;
		span->name = (char *)json_string_value(name);
		return 0;
	}
	if (!get_u64(o, "bytes", &v)) {
		report_error(rep, l->no, "%s record lacks \"bytes\"", type);
		return -EBADMSG;
	}
	span->kind = RN_GPU_COPY;
	span->bytes = v;
	if (!strcmp(type, "memset")) {
		span->name = (char *)"memset";
		return 0;
	}
	{
		json_t *k = json_object_get(o, "copy_kind");

		if (!json_is_string(k)) {
			report_error(rep, l->no, "memcpy record lacks \"copy_kind\"");
			return -EBADMSG;
		}
		span->dir = parse_dir(json_string_value(k));
		switch (span->dir) {
		case RN_GPU_DIR_HTOD:
			span->name = (char *)"memcpy_htod";
			break;
		case RN_GPU_DIR_DTOH:
			span->name = (char *)"memcpy_dtoh";
			break;
		case RN_GPU_DIR_DTOD:
			span->name = (char *)"memcpy_dtod";
			break;
		case RN_GPU_DIR_HTOH:
			span->name = (char *)"memcpy_htoh";
			break;
		default:
			span->name = (char *)"memcpy";
			break;
		}
	}
	return 0;
}

/* Pass 1: the tightest clock record, `*have` false when there is none. */
static int find_clock(const char *data, size_t len, struct rn_cuda_clock *best, bool *have,
		      struct rn_cuda_load_report *rep)
{
	struct cursor c = { data, len, 0, 0 };
	struct line l;

	*have = false;
	while (next_line(&c, &l) == 1) {
		json_t *o, *t;
		struct rn_cuda_clock clk;
		bool ok;

		if (l.no == 1)
			continue;
		o = parse_line(&l, rep);
		if (!o)
			return -EBADMSG;
		t = json_object_get(o, "type");
		if (!json_is_string(t)) {
			json_decref(o);
			report_error(rep, l.no, "record without a string \"type\"");
			return -EBADMSG;
		}
		if (strcmp(json_string_value(t), "clock")) {
			json_decref(o);
			continue;
		}
		ok = get_i64(o, "offset_ns", &clk.offset_ns) &&
			get_u64(o, "uncertainty_ns", &clk.uncertainty_ns);
		json_decref(o);
		if (!ok) {
			report_error(rep, l.no, "clock record lacks offset_ns or uncertainty_ns");
			return -EBADMSG;
		}
		if (!*have || clk.uncertainty_ns < best->uncertainty_ns) {
			*best = clk;
			*have = true;
		}
	}
	return 0;
}

/* One NVTX region of the file (region_begin / region_end records). */
struct region {
	uint64_t id;     /* region id, from 1, increasing in file order */
	uint64_t parent; /* enclosing region's id, 0 for none */
	char *name;      /* owned */
	uint64_t start;  /* CUPTI ns */
	uint64_t end;    /* CUPTI ns, 0 while no region_end was seen */
};

/* A launch made while a region was open (on its thread or, in files that record launch
 * times, on any thread of the process): the API call's correlation id, the innermost region
 * of the launching thread (0: none) and the launch's CUPTI time (0: not recorded). */
struct launch {
	uint64_t correlation;
	uint64_t region;
	uint64_t t;
};

/* A kernel replayed from a graph, gathered to make one span per replay. */
struct graph_kernel {
	uint32_t graph;       /* CUPTI graphId */
	uint64_t correlation; /* the cuGraphLaunch's correlation id */
	uint64_t start, end;  /* CUPTI ns */
	uint64_t region;      /* region of the launch, 0 for none */
};

/* What the region pass gathers from one file; released with regions_release(). */
struct regions {
	struct region *r; /* in id order */
	size_t n, cap;
	struct launch *l; /* sorted by correlation after the pass */
	size_t nl, capl;
	struct graph_kernel *g; /* gathered in the span pass */
	size_t ng, capg;
	uint64_t last_ts; /* latest CUPTI time seen in the file, closes open regions */
};

static void regions_release(struct regions *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		free(rs->r[i].name);
	free(rs->r);
	free(rs->l);
	free(rs->g);
	memset(rs, 0, sizeof(*rs));
}

/* Grow `*p` (elements of `size` bytes, `*cap` of them) to hold `n`; false on out-of-memory
 * or a count past the file's possible size. */
static bool grow(void *p, size_t *cap, size_t n, size_t size)
{
	void **pp = p;
	size_t c = *cap ? *cap : 64;
	void *np;

	if (n <= *cap)
		return true;
	while (c < n)
		c *= 2;
	if (c > ((size_t)1 << 40) / size)
		return false;
	np = realloc(*pp, c * size);
	if (!np)
		return false;
	*pp = np;
	*cap = c;
	return true;
}

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

static int cmp_graph_kernel(const void *a, const void *b)
{
	const struct graph_kernel *x = a, *y = b;

	if (x->graph != y->graph)
		return x->graph < y->graph ? -1 : 1;
	return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

static struct region *region_by_id(const struct regions *rs, uint64_t id)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->r[mid].id == id)
			return &rs->r[mid];
		if (rs->r[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Region id of the launch with `correlation`, 0 when it was made outside any region. */
static uint64_t region_of_launch(const struct regions *rs, uint64_t correlation)
{
	struct launch key = { correlation, 0, 0 };
	const struct launch *l =
		rs->nl ? bsearch(&key, rs->l, rs->nl, sizeof(key), cmp_launch) : NULL;

	return l ? l->region : 0;
}

/* The records of pass 2, one function each: record o of line `no` into rs. 0, -EBADMSG (said
 * in rep) or -ENOMEM. */
static int on_region_begin(json_t *o, size_t no, struct regions *rs,
			   struct rn_cuda_load_report *rep)
{
	struct region r = { 0 };
	json_t *name = json_object_get(o, "name");

	if (!get_u64(o, "id", &r.id) || !r.id || !get_u64(o, "parent", &r.parent) ||
	    !get_u64(o, "start", &r.start) || !json_is_string(name) ||
	    (rs->n && rs->r[rs->n - 1].id >= r.id)) {
		report_error(rep, no, "region_begin record lacks a field or has a bad one");
		return -EBADMSG;
	}
	if (!grow(&rs->r, &rs->cap, rs->n + 1, sizeof(*rs->r)) ||
	    !(r.name = strdup(json_string_value(name))))
		return -ENOMEM;
	rs->r[rs->n++] = r;
	if (r.start > rs->last_ts)
		rs->last_ts = r.start;
	return 0;
}

static int on_region_end(json_t *o, size_t no, struct regions *rs, struct rn_cuda_load_report *rep)
{
	uint64_t id, end;
	struct region *r;

	if (!get_u64(o, "id", &id) || !get_u64(o, "end", &end) || !(r = region_by_id(rs, id)) ||
	    end < r->start) {
		report_error(rep, no,
			     "region_end record lacks a field, names no region or ends before it "
			     "starts");
		return -EBADMSG;
	}
	r->end = end;
	if (end > rs->last_ts)
		rs->last_ts = end;
	return 0;
}

static int on_region_lost(json_t *o, size_t no, struct regions *rs, struct rn_cuda_load_report *rep)
{
	uint64_t n;

	(void)rs;
	if (!get_u64(o, "count", &n)) {
		report_error(rep, no, "region_lost record lacks \"count\"");
		return -EBADMSG;
	}
	rep->regions_lost += n;
	return 0;
}

static int on_launch(json_t *o, size_t no, struct regions *rs, struct rn_cuda_load_report *rep)
{
	struct launch x;

	x.t = 0;
	if (!get_u64(o, "correlation", &x.correlation) || !get_u64(o, "region", &x.region) ||
	    (json_object_get(o, "t") && !get_u64(o, "t", &x.t))) {
		report_error(rep, no, "launch record lacks correlation or region");
		return -EBADMSG;
	}
	if (!grow(&rs->l, &rs->capl, rs->nl + 1, sizeof(*rs->l)))
		return -ENOMEM;
	rs->l[rs->nl++] = x;
	return 0;
}

static const struct {
	const char *type; /* the record's "type" */
	int (*add)(json_t *o, size_t no, struct regions *rs, struct rn_cuda_load_report *rep);
} region_records[] = {
	{ "region_begin", on_region_begin },
	{ "region_end", on_region_end },
	{ "region_lost", on_region_lost },
	{ "launch", on_launch },
};

/* Pass 2: regions and launches (they may come after the spans they describe). */
static int find_regions(const char *data, size_t len, struct regions *rs,
			struct rn_cuda_load_report *rep)
{
	struct cursor c = { data, len, 0, 0 };
	struct line l;

	while (next_line(&c, &l) == 1) {
		json_t *o;
		const char *t;
		int ret = 0;
		size_t k;

		/* Only lines that can be region records are parsed twice. */
		if (l.no == 1 ||
		    (!memmem(l.p, l.len, "\"type\":\"region", 14) &&
		     !memmem(l.p, l.len, "\"type\":\"launch\"", 15)))
			continue;
		o = parse_line(&l, rep);
		if (!o)
			return -EBADMSG;
		t = json_string_value(json_object_get(o, "type"));
		for (k = 0; t && k < sizeof(region_records) / sizeof(region_records[0]); k++)
			if (!strcmp(t, region_records[k].type)) {
				ret = region_records[k].add(o, l.no, rs, rep);
				break;
			}
		json_decref(o);
		if (ret)
			return ret;
	}
	if (rs->nl)
		qsort(rs->l, rs->nl, sizeof(*rs->l), cmp_launch);
	return 0;
}

/* The innermost region of the process open at CUPTI time `t`: of the regions whose window
 * holds `t` (an unclosed one never ends), the latest to start; 0 when
 * none. Ranges of every thread count, as Nsight Systems projects NVTX ranges onto the GPU. */
static uint64_t region_at(const struct regions *rs, uint64_t t)
{
	const struct region *best = NULL;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct region *r = &rs->r[i];
		uint64_t end = r->end ? r->end : UINT64_MAX;

		if (r->start <= t && t <= end && (!best || r->start >= best->start))
			best = r;
	}
	return best ? best->id : 0;
}

/* Process scope: each launch that carries its time takes the region its time falls in,
 * whichever thread opened it. Launches without a time (older files) keep their thread's. */
static void attribute_by_time(struct regions *rs)
{
	size_t i;

	for (i = 0; i < rs->nl; i++)
		if (rs->l[i].t)
			rs->l[i].region = region_at(rs, rs->l[i].t);
}

/* The optional correlation and graph fields of a span record (format additions: older
 * files have none) and the region its launch was made in. Returns 0 or -EBADMSG. */
static int parse_launch(json_t *o, const struct line *l, const struct regions *rs,
			struct rn_gpu_span *span, struct rn_cuda_load_report *rep)
{
	uint64_t corr = 0;
	const struct region *r;

	if ((json_object_get(o, "correlation") && !get_u64(o, "correlation", &corr)) ||
	    (json_object_get(o, "graph") && !get_u32(o, "graph", &span->graph_id)) ||
	    (json_object_get(o, "graph_node") && !get_u64(o, "graph_node", &span->graph_node_id))) {
		report_error(rep, l->no, "bad correlation, graph or graph_node field");
		return -EBADMSG;
	}
	span->launch_id = corr;
	r = corr ? region_by_id(rs, region_of_launch(rs, corr)) : NULL;
	span->region = r ? r->name : NULL;
	return 0;
}

/* Map CUPTI times and deliver one derived span (region or graph replay). */
static int deliver(const struct rn_cuda_clock *clk, bool have_clock, struct rn_gpu_span *span,
		   uint64_t start, uint64_t end, rn_cuda_span_fn fn, void *ctx,
		   struct rn_cuda_load_report *rep)
{
	struct rn_cuda_span_info info;

	memset(&info, 0, sizeof(info));
	info.cupti_start_ns = start;
	info.cupti_end_ns = end;
	if (!have_clock || !start || rn_cuda_clock_map(clk, start, &span->start_ns) ||
	    rn_cuda_clock_map(clk, end, &span->end_ns)) {
		rep->unmapped++;
		return 0;
	}
	span->uncertainty_ns = clk->uncertainty_ns;
	rep->spans++;
	return fn(ctx, span, &info);
}

/* After the span pass: one RN_GPU_REGION span per region, one RN_GPU_GRAPH span per graph
 * replay (kernels of one graph sharing the launch's correlation id). */
static int deliver_derived(struct regions *rs, pid_t pid, const struct rn_cuda_clock *clk,
			   bool have_clock, rn_cuda_span_fn fn, void *ctx,
			   struct rn_cuda_load_report *rep)
{
	struct rn_gpu_span span;
	int ret;

	for (size_t i = 0; i < rs->n; i++) {
		const struct region *r = &rs->r[i];
		const struct region *parent = r->parent ? region_by_id(rs, r->parent) : NULL;

		memset(&span, 0, sizeof(span));
		span.pid = pid;
		span.kind = RN_GPU_REGION;
		span.name = r->name;
		span.region = parent ? parent->name : NULL;
		if (!r->end)
			span.flags |= RN_GPU_UNCLOSED;
		rep->regions++;
		ret = deliver(clk, have_clock, &span, r->start,
			      r->end                         ? r->end :
				      rs->last_ts > r->start ? rs->last_ts :
							       r->start,
			      fn, ctx, rep);
		if (ret < 0)
			return ret;
	}
	if (rs->ng)
		qsort(rs->g, rs->ng, sizeof(*rs->g), cmp_graph_kernel);
	for (size_t i = 0; i < rs->ng;) {
		size_t j = i;
		uint64_t start = rs->g[i].start, end = rs->g[i].end;
		char name[32];
		const struct region *r;

		while (j < rs->ng && rs->g[j].graph == rs->g[i].graph &&
		       rs->g[j].correlation == rs->g[i].correlation) {
			if (rs->g[j].start < start)
				start = rs->g[j].start;
			if (rs->g[j].end > end)
				end = rs->g[j].end;
			j++;
		}
		memset(&span, 0, sizeof(span));
		snprintf(name, sizeof(name), "graph:%u", (unsigned)rs->g[i].graph);
		r = rs->g[i].region ? region_by_id(rs, rs->g[i].region) : NULL;
		span.pid = pid;
		span.kind = RN_GPU_GRAPH;
		span.name = name;
		span.region = r ? r->name : NULL;
		span.graph_id = rs->g[i].graph;
		span.launch_id = rs->g[i].correlation;
		rep->graph_replays++;
		ret = deliver(clk, have_clock, &span, start, end, fn, ctx, rep);
		if (ret < 0)
			return ret;
		i = j;
	}
	return 0;
}

/* What a kernel, memcpy or memset record is read with. */
struct span_ctx {
	pid_t pid;                       /* the process of the record file */
	struct regions *rs;              /* its NVTX regions and graph kernels so far */
	const struct rn_cuda_clock *clk; /* CUPTI to CLOCK_MONOTONIC */
	bool have_clock;                 /* clk is usable */
	rn_cuda_span_fn fn;              /* receives the span */
	void *ctx;                       /* fn's context */
};

/* One kernel, memcpy or memset record `o` (`type`, line `l`): the span handed to sc->fn, or
 * counted as unmapped without a clock; a graph kernel is remembered for its replay. 0, or a
 * negative errno (-EBADMSG with the error reported, or fn's). */
static int load_span(struct span_ctx *sc, json_t *o, const char *type, const struct line *l,
		     struct rn_cuda_load_report *rep)
{
	struct rn_cuda_span_info info;
	struct rn_gpu_span span;
	struct regions *rs = sc->rs;
	int ret;

	memset(&span, 0, sizeof(span));
	memset(&info, 0, sizeof(info));
	span.pid = sc->pid;
	ret = parse_span(o, type, l, &span, &info, rep);
	if (!ret)
		ret = parse_launch(o, l, rs, &span, rep);
	if (ret)
		return ret;
	if (info.cupti_end_ns < info.cupti_start_ns) {
		report_error(rep, l->no, "%s record ends before it starts", type);
		return -EBADMSG;
	}
	if (!sc->have_clock || !info.cupti_start_ns ||
	    rn_cuda_clock_map(sc->clk, info.cupti_start_ns, &span.start_ns) ||
	    rn_cuda_clock_map(sc->clk, info.cupti_end_ns, &span.end_ns)) {
		rep->unmapped++;
		return 0;
	}
	span.uncertainty_ns = sc->clk->uncertainty_ns;
	if (info.cupti_end_ns > rs->last_ts)
		rs->last_ts = info.cupti_end_ns;
	ret = sc->fn(sc->ctx, &span, &info);
	if (ret < 0)
		return ret;
	rep->spans++;
	if (span.graph_id && span.kind == RN_GPU_DISPATCH) {
		if (!grow(&rs->g, &rs->capg, rs->ng + 1, sizeof(*rs->g)))
			return -ENOMEM;
		rs->g[rs->ng++] = (struct graph_kernel){ span.graph_id, span.launch_id,
							 info.cupti_start_ns, info.cupti_end_ns,
							 region_of_launch(rs, span.launch_id) };
	}
	return 0;
}

int rn_cuda_load(const char *data, size_t len, rn_cuda_span_fn fn, void *ctx,
		 struct rn_cuda_load_report *rep)
{
	return rn_cuda_load_scoped(data, len, RN_CUDA_REGION_PROCESS, fn, ctx, rep);
}

int rn_cuda_load_scoped(const char *data, size_t len, enum rn_cuda_region_scope scope,
			rn_cuda_span_fn fn, void *ctx, struct rn_cuda_load_report *rep)
{
	struct cursor c = { data, len, 0, 0 };
	struct rn_cuda_clock clk = { 0, 0 };
	struct regions rs;
	bool have_clock;
	struct line l;
	pid_t pid = 0;
	int r, ret;

	memset(&rs, 0, sizeof(rs));

	r = next_line(&c, &l);
	if (r != 1) {
		/* An empty file, or a header cut short: the process died before writing. */
		if (r == 2)
			rep->truncated++;
		rep->files++;
		return 0;
	}
	ret = parse_header(&l, &pid, rep);
	if (ret)
		return ret;
	ret = find_clock(data, len, &clk, &have_clock, rep);
	if (ret)
		return ret;
	ret = find_regions(data, len, &rs, rep);
	if (ret)
		goto out;
	if (scope == RN_CUDA_REGION_PROCESS)
		attribute_by_time(&rs);
	rep->files++;
	while ((r = next_line(&c, &l)) == 1) {
		const char *type;
		json_t *o = parse_line(&l, rep);

		if (!o) {
			ret = -EBADMSG;
			goto out;
		}
		type = json_string_value(json_object_get(o, "type"));
		if (!type) {
			json_decref(o);
			report_error(rep, l.no, "record without a string \"type\"");
			{
				ret = -EBADMSG;
				goto out;
			}
		}
		if (!strcmp(type, "dropped")) {
			uint64_t n;

			if (!get_u64(o, "count", &n)) {
				json_decref(o);
				report_error(rep, l.no, "dropped record lacks \"count\"");
				ret = -EBADMSG;
				goto out;
			}
			rep->dropped += n;
		} else if (!strcmp(type, "error")) {
			const char *what = json_string_value(json_object_get(o, "what"));

			snprintf(rep->stopped, sizeof(rep->stopped), "%s",
				 what ? what : "(no reason given)");
		} else if (!strcmp(type, "kernel") || !strcmp(type, "memcpy") ||
			   !strcmp(type, "memset")) {
			struct span_ctx sc = { pid, &rs, &clk, have_clock, fn, ctx };

			ret = load_span(&sc, o, type, &l, rep);
			if (ret) {
				json_decref(o);
				goto out;
			}
		}
		json_decref(o);
	}
	if (r == 2)
		rep->truncated++;
	ret = deliver_derived(&rs, pid, &clk, have_clock, fn, ctx, rep);
out:
	regions_release(&rs);
	return ret < 0 ? ret : 0;
}
