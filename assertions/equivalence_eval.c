/*
 * equivalence_eval.c - behaviours read back from recorded traces (through the trace JSON
 * reader, collectors/trace_json.h) and the equivalence assertion's verdict and messages
 * (internal.h).
 */
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
#include "trace_json.h"
#include "xalloc.h"

/* ---- recorded traces ----------------------------------------------------------------------- */

/* The reader's callbacks (collectors/trace_json.h): feed the behaviour being loaded. */
static void feed_process(void *ctx, const struct rn_tj_process *p, char event)
{
	rn_equiv_behaviour_process(ctx, p->pid, p->ppid, p->exe, event, p->end, p->exit_code,
				   p->term_signal);
}

static void feed_syscall(void *ctx, const struct rn_syscall_event *ev)
{
	rn_equiv_behaviour_syscall(ctx, ev);
}

static char *xmsg(const char *path, size_t line, const char *what)
{
	struct rn_buf m;

	rn_buf_init(&m, 0);
	if (line)
		rn_buf_addf(&m, "%s:%zu: %s", path, line, what);
	else
		rn_buf_addf(&m, "%s: %s", path, what);
	return rn_buf_detach(&m, NULL);
}

int rn_equiv_behaviour_load(const char *path, const struct rn_equiv_opts *o,
			    struct rn_equiv_behaviour **out, char **err)
{
	static const struct rn_tj_sink sink = { feed_process, feed_syscall };
	struct rn_buf text;
	struct rn_equiv_behaviour *b;
	const char *why;
	size_t line;
	int rc;

	*out = NULL;
	*err = NULL;
	/* Bounded as it is read (a pipe, `renacer diff <(...)`, has no size to check first);
	 * the buffer grows by 64 KiB reads, hence the slack. */
	rn_buf_init(&text, RN_EQUIV_MAX_TRACE_BYTES + 65536 + 1);
	rc = rn_buf_read_file(&text, path);
	if (!rc && text.len > RN_EQUIV_MAX_TRACE_BYTES)
		rc = -E2BIG;
	if (rc) {
		struct rn_buf m;

		rn_buf_init(&m, 0);
		if (rc == -E2BIG)
			rn_buf_addf(&m,
				    "'%s' is larger than %d MiB, the most a recorded trace may be "
				    "(record a smaller run, or filter it with trace -e)",
				    path, (int)(RN_EQUIV_MAX_TRACE_BYTES >> 20));
		else
			rn_buf_addf(&m, "cannot read '%s': %s", path, strerror(-rc));
		*err = rn_buf_detach(&m, NULL);
		rn_buf_release(&text);
		return -1;
	}
	b = rn_equiv_behaviour_new(o);
	if (rn_trace_json_read(text.buf, text.len, &sink, b, &why, &line)) {
		*err = xmsg(path, line, why);
		rn_buf_release(&text);
		rn_equiv_behaviour_free(b);
		return -1;
	}
	if (b->too_many) {
		struct rn_buf m;

		rn_buf_init(&m, 0);
		rn_buf_addf(&m, "%s: more than %d processes, the most a recorded trace may have",
			    path, RN_EQUIV_MAX_PROCESSES);
		*err = rn_buf_detach(&m, NULL);
		rn_buf_release(&text);
		rn_equiv_behaviour_free(b);
		return -1;
	}
	rn_buf_release(&text);
	*out = b;
	return 0;
}

/* ---- the equivalence assertion ------------------------------------------------------------ */

static int spool_feed(void *ctx, const struct rn_syscall_event *ev)
{
	rn_equiv_behaviour_syscall(ctx, ev);
	return 0;
}

/* The recorded trace `a` compares the run of `r` with: its `golden`, or the target's file in
 * golden_dir (.jsonl, else .json); owned. NULL with a NO DATA verdict in `out` when there is
 * none. */
static char *golden_path(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			 struct rn_verdict_result *out)
{
	char *path;

	if (a->golden)
		return rn_xstrdup(a->golden);
	if (!a->golden_dir) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = rn_xstrfmt("no recorded trace given ('golden')");
		return NULL;
	}
	path = rn_xstrfmt("%s/%s.jsonl", a->golden_dir, r->name);
	if (!access(path, F_OK))
		return path;
	free(path);
	path = rn_xstrfmt("%s/%s.json", a->golden_dir, r->name);
	if (!access(path, F_OK))
		return path;
	out->verdict = RN_VERDICT_NO_DATA;
	out->message = rn_xstrfmt("no recorded trace %s/%s.jsonl to compare with; "
				  "record one with: renacer trace -f --format "
				  "jsonl -o %s/%s.jsonl -- <command>",
				  a->golden_dir, r->name, a->golden_dir, r->name);
	free(path);
	return NULL;
}

/* The verdict of a comparison `res` with the recorded trace at `path`: similarity, message,
 * and the differences (at most 50 lines) as the detail. */
static void judge_result(const struct rn_assertion_spec *a, const struct rn_equiv_result *res,
			 const char *path, struct rn_verdict_result *out)
{
	char *text = NULL;
	size_t text_len = 0;
	FILE *mem;

	out->has_observed = true;
	out->observed = res->similarity;
	out->verdict = res->equivalent ? RN_VERDICT_PASS :
		a->fail_on_violation   ? RN_VERDICT_FAIL :
					 RN_VERDICT_WARN;
	if (!res->ndiffs)
		out->message =
			rn_xstrfmt("behaves like %s: all %zu facts match", path, res->facts_a);
	else
		out->message =
			rn_xstrfmt("%s %s (A) in %zu difference%s, similarity %.3f; first: %s "
				   "%s: %s",
				   res->equivalent ? "within min_confidence of" : "differs from",
				   path, res->ndiffs, res->ndiffs == 1 ? "" : "s", res->similarity,
				   rn_equiv_cat_name(res->diffs[0].cat), res->diffs[0].subject,
				   res->diffs[0].text);
	mem = open_memstream(&text, &text_len);
	if (mem) {
		rn_equiv_result_write(res, mem, 50);
		if (!fclose(mem))
			out->detail = text;
		else
			free(text);
	}
}

void rn_equiv_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
		       struct rn_verdict_result *out)
{
	struct rn_equiv_opts o;
	struct rn_equiv_behaviour *golden = NULL, *run = NULL;
	struct rn_equiv_result res;
	char *path, *err = NULL;
	int rc;

	if (a->equiv)
		o = *a->equiv;
	else
		rn_equiv_opts_init(&o);
	out->unit = "confidence"; /* the similarity, 0..1 (min_confidence is its budget) */
	out->has_budget = true;
	out->budget = o.min_confidence;
	out->aggregate = rn_xstrfmt("last of %zu run%s", r->nruns, r->nruns == 1 ? "" : "s");
	path = golden_path(a, r, out);
	if (!path)
		return;
	if (rn_equiv_behaviour_load(path, &o, &golden, &err)) {
		out->verdict = RN_VERDICT_ERROR;
		out->message = err;
		free(path);
		return;
	}
	if (r->behaviour) {
		/* taken live during the run (with execve argv) */
		rn_equiv_behaviour_compare(golden, r->behaviour, &o, &res);
		goto out_judge;
	}
	if (!r->last.spool) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			rn_xstrfmt("the run kept no syscall spans (the span spool could not be "
				   "created)");
		rn_equiv_behaviour_free(golden);
		free(path);
		return;
	}
	run = rn_equiv_behaviour_new(&o);
	rn_equiv_behaviour_take_processes(run, &r->last);
	rc = rn_trace_spool_foreach(&r->last, spool_feed, run);
	if (rc) {
		out->verdict = RN_VERDICT_ERROR;
		out->message = rn_xstrfmt("cannot replay the run's spans: %s", strerror(-rc));
		goto out_free;
	}
	rn_equiv_behaviour_compare(golden, run, &o, &res);
out_judge:
	judge_result(a, &res, path, out);
	rn_equiv_result_release(&res);
out_free:
	rn_equiv_behaviour_free(run);
	rn_equiv_behaviour_free(golden);
	free(path);
}
