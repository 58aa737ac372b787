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
#include <string.h>

#include "clock.h"

/* Largest value accepted for a count, id or byte size (keeps sums far from overflow). */
#define MAX_FIELD ((uint64_t)1 << 62)

struct line {
	const char *p;  /* first byte of the line */
	size_t len;     /* bytes before the newline */
	size_t no;      /* 1-based line number */
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
static int parse_span(json_t *o, const char *type, const struct line *l,
		      struct rn_gpu_span *span, struct rn_cuda_span_info *info,
		      struct rn_cuda_load_report *rep)
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

int rn_cuda_load(const char *data, size_t len, rn_cuda_span_fn fn, void *ctx,
		 struct rn_cuda_load_report *rep)
{
	struct cursor c = { data, len, 0, 0 };
	struct rn_cuda_clock clk = { 0, 0 };
	bool have_clock;
	struct line l;
	pid_t pid = 0;
	int r, ret;

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
	rep->files++;
	while ((r = next_line(&c, &l)) == 1) {
		struct rn_cuda_span_info info;
		struct rn_gpu_span span;
		const char *type;
		json_t *o = parse_line(&l, rep);

		if (!o)
			return -EBADMSG;
		type = json_string_value(json_object_get(o, "type"));
		if (!type) {
			json_decref(o);
			report_error(rep, l.no, "record without a string \"type\"");
			return -EBADMSG;
		}
		if (!strcmp(type, "dropped")) {
			uint64_t n;

			if (!get_u64(o, "count", &n)) {
				json_decref(o);
				report_error(rep, l.no, "dropped record lacks \"count\"");
				return -EBADMSG;
			}
			rep->dropped += n;
		} else if (!strcmp(type, "error")) {
			const char *what = json_string_value(json_object_get(o, "what"));

			snprintf(rep->stopped, sizeof(rep->stopped), "%s",
				 what ? what : "(no reason given)");
		} else if (!strcmp(type, "kernel") || !strcmp(type, "memcpy") ||
			   !strcmp(type, "memset")) {
			memset(&span, 0, sizeof(span));
			memset(&info, 0, sizeof(info));
			span.pid = pid;
			ret = parse_span(o, type, &l, &span, &info, rep);
			if (ret) {
				json_decref(o);
				return ret;
			}
			if (info.cupti_end_ns < info.cupti_start_ns) {
				/* `type` points into `o`: report before releasing it. */
				report_error(rep, l.no, "%s record ends before it starts", type);
				json_decref(o);
				return -EBADMSG;
			}
			if (!have_clock || !info.cupti_start_ns ||
			    rn_cuda_clock_map(&clk, info.cupti_start_ns, &span.start_ns) ||
			    rn_cuda_clock_map(&clk, info.cupti_end_ns, &span.end_ns)) {
				rep->unmapped++;
			} else {
				span.uncertainty_ns = clk.uncertainty_ns;
				ret = fn(ctx, &span, &info);
				if (ret < 0) {
					json_decref(o);
					return ret;
				}
				rep->spans++;
			}
		}
		json_decref(o);
	}
	if (r == 2)
		rep->truncated++;
	return 0;
}
