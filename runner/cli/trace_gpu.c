/*
 * trace_gpu.c - what `renacer trace` prints of the spans beside syscalls: GPU spans (one
 * line each, the -c summary, the JSON array) and the spans the program reported itself.
 */
#include "trace_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "collector.h"
#include "escape.h"
#include "json.h"
#include "xalloc.h"

/* GPU spans in order of start (ties: arrival), as indexes into t->gpu; caller frees. */
static const struct rn_trace *gpu_sort_trace;

static int gpu_start_cmp(const void *a, const void *b)
{
	const struct rn_gpu_span *x = &gpu_sort_trace->gpu[*(const size_t *)a];
	const struct rn_gpu_span *y = &gpu_sort_trace->gpu[*(const size_t *)b];

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static size_t *gpu_order(const struct rn_trace *t)
{
	size_t *idx = rn_xcalloc(t->ngpu ? t->ngpu : 1, sizeof(*idx));

	for (size_t i = 0; i < t->ngpu; i++)
		idx[i] = i;
	gpu_sort_trace = t;
	qsort(idx, t->ngpu, sizeof(*idx), gpu_start_cmp);
	return idx;
}

/*
 * One line per GPU span, by start time: seconds since the run began, pid, kind, the full
 * name as span_count matches it, the duration in <seconds> as strace -T shows it, then
 * region, graph, grid or bytes when known.
 */
void rn_trace_gpu_lines(const struct rn_trace *t, FILE *out)
{
	size_t *idx = gpu_order(t);
	struct rn_buf b;

	rn_buf_init(&b, 0);
	for (size_t k = 0; k < t->ngpu; k++) {
		const struct rn_gpu_span *g = &t->gpu[idx[k]];
		uint64_t rel = g->start_ns > t->start_ns ? g->start_ns - t->start_ns : 0;
		uint64_t dur = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
		size_t cap = strlen(g->name) + 16;
		char *name = rn_xmalloc(cap);

		rn_gpu_span_match_name(g, name, cap);
		rn_buf_reset(&b);
		rn_buf_addf(&b, "[gpu %d] %llu.%06llu %-11s %s <%llu.%06llu>", (int)g->pid,
			    (unsigned long long)(rel / 1000000000u),
			    (unsigned long long)(rel % 1000000000u / 1000u),
			    rn_gpu_kind_name(g->kind), name,
			    (unsigned long long)(dur / 1000000000u),
			    (unsigned long long)(dur % 1000000000u / 1000u));
		if (g->region)
			rn_buf_addf(&b, " region=%s", g->region);
		if (g->graph_id)
			rn_buf_addf(&b, " graph=%u node=%llu", (unsigned)g->graph_id,
				    (unsigned long long)g->graph_node_id);
		if (g->kind == RN_GPU_DISPATCH && !(g->flags & RN_GPU_INDIRECT) && g->groups[0])
			rn_buf_addf(&b, " grid=%ux%ux%u", g->groups[0], g->groups[1], g->groups[2]);
		if (g->bytes)
			rn_buf_addf(&b, " bytes=%llu", (unsigned long long)g->bytes);
		if (g->flags & RN_GPU_UNCLOSED)
			rn_buf_adds(&b, " unclosed");
		rn_buf_addc(&b, '\n');
		if (!rn_buf_failed(&b))
			fwrite(b.buf, 1, b.len, out);
		free(name);
	}
	rn_buf_release(&b);
	free(idx);
}

/*
 * One line per span the program reported itself (the "app" collector), by arrival: seconds
 * since the run began, pid/tid, the name as span_count matches it, the duration in <seconds>,
 * then its enclosing span, its own thread CPU time in seconds (cpu=, renacer_span.h push/pop
 * spans) and attributes when known.
 */
void rn_trace_app_lines(const struct rn_trace *t, FILE *out)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	for (size_t k = 0; k < t->napp; k++) {
		const struct rn_app_span *a = &t->app[k];
		uint64_t rel = a->start_ns > t->start_ns ? a->start_ns - t->start_ns : 0;
		uint64_t dur = a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0;

		/* the program's names (repaired and escaped at receipt; a trace read back
		 * from a file may hold anything) */
		char *name = rn_display_dup(a->name);

		rn_buf_reset(&b);
		rn_buf_addf(&b, "[app %d/%d] %llu.%06llu app:%s <%llu.%06llu>", (int)a->pid,
			    (int)a->tid, (unsigned long long)(rel / 1000000000u),
			    (unsigned long long)(rel % 1000000000u / 1000u), name,
			    (unsigned long long)(dur / 1000000000u),
			    (unsigned long long)(dur % 1000000000u / 1000u));
		free(name);
		if (a->parent) {
			char *parent = rn_display_dup(a->parent);

			rn_buf_addf(&b, " parent=%s", parent);
			free(parent);
		}
		if (a->flags & RN_APP_CPU)
			rn_buf_addf(&b, " cpu=%llu.%06llu",
				    (unsigned long long)(a->cpu_ns / 1000000000u),
				    (unsigned long long)(a->cpu_ns % 1000000000u / 1000u));
		if (a->flags & RN_APP_UNCLOSED)
			rn_buf_adds(&b, " unclosed");
		if (a->flags & RN_APP_ERROR)
			rn_buf_adds(&b, " error");
		if (a->attrs) {
			/* JSON text, whose escapes leave DEL raw */
			char *attrs = rn_escaped_dup(a->attrs);

			rn_buf_addf(&b, " %s", attrs);
			free(attrs);
		}
		rn_buf_addc(&b, '\n');
		if (!rn_buf_failed(&b))
			fwrite(b.buf, 1, b.len, out);
	}
	rn_buf_release(&b);
}

/* One row of the GPU summary: the spans of one match name. */
struct gpu_row {
	const struct rn_gpu_span *first; /* a span of the row (name, kind) */
	uint64_t calls, total_ns, min_ns, max_ns;
};

static int gpu_row_cmp(const void *a, const void *b)
{
	const struct gpu_row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->first->name, y->first->name);
}

/*
 * The -c table of GPU spans, like strace's: per name, total time and its share of the
 * work's total (regions and graph replays are listed but not in the share: they contain
 * work), count, average, min and max in microseconds. Names longer than RN_GPU_DISPLAY_MAX
 * are shortened (rn_gpu_display_name); the JSON output keeps them whole.
 */
void rn_trace_gpu_summary(const struct rn_trace *t, FILE *out)
{
	static const char header[] = "% time     seconds      calls  usecs/call      min us"
				     "      max us  kind        name\n";
	static const char rule[] = "------ ----------- ---------- ----------- -----------"
				   " -----------  ----------  --------------------\n";
	struct gpu_row *rows = rn_xcalloc(t->ngpu ? t->ngpu : 1, sizeof(*rows));
	size_t nrows = 0;
	uint64_t work_ns = 0, work_calls = 0;

	for (size_t i = 0; i < t->ngpu; i++) {
		const struct rn_gpu_span *g = &t->gpu[i];
		uint64_t d = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
		size_t r;

		for (r = 0; r < nrows; r++)
			if (rows[r].first->kind == g->kind && !strcmp(rows[r].first->name, g->name))
				break;
		if (r == nrows) {
			rows[nrows].first = g;
			rows[nrows].min_ns = d;
			nrows++;
		}
		rows[r].calls++;
		rows[r].total_ns += d;
		if (d < rows[r].min_ns)
			rows[r].min_ns = d;
		if (d > rows[r].max_ns)
			rows[r].max_ns = d;
		if (rn_gpu_kind_is_work(g->kind)) {
			work_ns += d;
			work_calls++;
		}
	}
	qsort(rows, nrows, sizeof(*rows), gpu_row_cmp);
	fprintf(out, "%s", header);
	fprintf(out, "%s", rule);
	for (size_t r = 0; r < nrows; r++) {
		const struct rn_gpu_span *g = rows[r].first;
		char shown[RN_GPU_DISPLAY_MAX + 1];
		bool work = rn_gpu_kind_is_work(g->kind);

		rn_gpu_display_name(g->name, RN_GPU_DISPLAY_MAX, shown, sizeof(shown));
		if (work && work_ns)
			fprintf(out, "%6.2f", 100.0 * (double)rows[r].total_ns / (double)work_ns);
		else
			fprintf(out, "%6s", "-");
		fprintf(out, " %11.6f %10llu %11.1f %11.1f %11.1f  %-10s  %s\n",
			(double)rows[r].total_ns / 1e9, (unsigned long long)rows[r].calls,
			(double)rows[r].total_ns / 1e3 / (double)rows[r].calls,
			(double)rows[r].min_ns / 1e3, (double)rows[r].max_ns / 1e3,
			rn_gpu_kind_name(g->kind), shown);
	}
	fprintf(out, "%s", rule);
	fprintf(out, "100.00 %11.6f %10llu %11s %11s %11s  %-10s  total (GPU work)\n",
		(double)work_ns / 1e9, (unsigned long long)work_calls, "", "", "", "");
	free(rows);
}

/* The GPU spans as a JSON array member value: full names. */
void rn_trace_gpu_json(struct rn_buf *b, const struct rn_trace *t)
{
	size_t *idx = gpu_order(t);

	rn_buf_addc(b, '[');
	for (size_t k = 0; k < t->ngpu; k++) {
		const struct rn_gpu_span *g = &t->gpu[idx[k]];

		if (k)
			rn_buf_addc(b, ',');
		rn_buf_addf(b, "{\"pid\":%d,\"kind\":\"%s\",\"name\":", (int)g->pid,
			    rn_gpu_kind_name(g->kind));
		rn_json_add_string(b, g->name);
		rn_buf_adds(b, ",\"region\":");
		if (g->region)
			rn_json_add_string(b, g->region);
		else
			rn_buf_adds(b, "null");
		rn_buf_addf(b,
			    ",\"start_ns\":%llu,\"duration_ns\":%llu,\"queue\":%u,"
			    "\"graph_id\":%u,\"graph_node_id\":%llu,\"bytes\":%llu}",
			    (unsigned long long)g->start_ns,
			    (unsigned long long)(g->end_ns > g->start_ns ? g->end_ns - g->start_ns :
									   0),
			    g->queue_family, (unsigned)g->graph_id,
			    (unsigned long long)g->graph_node_id, (unsigned long long)g->bytes);
	}
	rn_buf_addc(b, ']');
	free(idx);
}
