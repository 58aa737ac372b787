/*
 * cuda.c - the CUDA collector (see cuda.h): injects the CUPTI library and merges its record
 * files into the trace.
 */
#include "cuda.h"

#include "recdir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "load.h"
#include "log.h"
#include "xalloc.h"

#ifndef RN_CUDA_INJECT_BUILD_PATH
#define RN_CUDA_INJECT_BUILD_PATH ""
#endif
#ifndef RN_CUDA_INJECT_INSTALL_PATH
#define RN_CUDA_INJECT_INSTALL_PATH ""
#endif
#ifndef RN_CUDA_BINARY_DIR
#define RN_CUDA_BINARY_DIR ""
#endif

struct cuda_collector {
	char *dir;         /* private record directory, owned; NULL before prepare */
	bool thread_scope; /* regions hold only their own thread's work (region_scope) */
};

static bool readable(const char *path)
{
	return path && *path && access(path, R_OK) == 0;
}

const char *rn_cuda_injection_path(void)
{
	return rn_inject_locate(RN_CUDA_ENV_INJECTION, RN_CUDA_INJECT_BUILD_PATH,
				RN_CUDA_INJECT_INSTALL_PATH, RN_CUDA_BINARY_DIR, readable);
}

static const char *cuda_unavailable(void)
{
	static char reason[256];

	if (rn_cuda_injection_path())
		return NULL;
	snprintf(reason, sizeof(reason),
		 "injection library 'librenacer_cuda_inject.so' not found (set %s to its path)",
		 RN_CUDA_ENV_INJECTION);
	return reason;
}

static int cuda_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	struct cuda_collector *c = rn_xcalloc(1, sizeof(*c));

	c->thread_scope = spec->region_thread_scope;
	*out = (struct rn_collector *)c;
	return 0;
}

static int cuda_prepare(struct rn_collector *rc, struct rn_strvec *env)
{
	struct cuda_collector *c = (struct cuda_collector *)rc;
	const char *lib = rn_cuda_injection_path();
	int err;

	if (!lib) {
		rn_error("cuda: %s", cuda_unavailable());
		return -ENOENT;
	}
	err = rn_recdir_renew(&c->dir, "cuda");
	if (err)
		return err;
	rn_strvec_env_setkv(env, RN_CUDA_ENV_INJECTION_PATH, lib);
	rn_strvec_env_setkv(env, RN_CUDA_ENV_NVTX_INJECTION_PATH, lib);
	rn_strvec_env_setkv(env, RN_CUDA_ENV_DIR, c->dir);
	return 0;
}

static int add_span(void *ctx, const struct rn_gpu_span *span, const struct rn_cuda_span_info *info)
{
	(void)info;
	rn_trace_add_gpu(ctx, span);
	return 0;
}

/* State of one finish(): the trace and the report accumulated over the record files. */
struct load_ctx {
	struct rn_trace *t;
	struct rn_cuda_load_report *rep;
	enum rn_cuda_region_scope scope;
};

static int load_file(void *ctx, const char *path, const char *data, size_t len)
{
	struct load_ctx *l = ctx;

	if (rn_cuda_load_scoped(data, len, l->scope, add_span, l->t, l->rep) < 0) {
		rn_trace_fail(l->t, RN_RUN_ERROR, "cuda: record file '%s':%zu: %s", path,
			      l->rep->error_line, l->rep->error);
		return -EBADMSG;
	}
	return 0;
}

static int cuda_finish(struct rn_collector *rc, struct rn_trace *t)
{
	struct cuda_collector *c = (struct cuda_collector *)rc;
	struct rn_cuda_load_report rep;
	struct load_ctx l = { t, &rep,
			      c->thread_scope ? RN_CUDA_REGION_THREAD : RN_CUDA_REGION_PROCESS };
	int ret;

	if (!c->dir)
		return 0;
	rn_cuda_load_report_init(&rep);
	ret = rn_recdir_foreach(c->dir, "cuda-", ".jsonl", RN_RECDIR_MAX_FILE_BYTES, "cuda", t,
				load_file, &l);
	if (ret)
		return ret;
	if (rep.stopped[0]) {
		rn_trace_fail(t, RN_RUN_ERROR, "cuda: the injection library stopped tracing: %s",
			      rep.stopped);
		return -EIO;
	}
	if (rep.dropped) {
		rn_trace_fail(t, RN_RUN_ERROR,
			      "cuda: CUPTI dropped %llu activity record(s) (buffers full)",
			      (unsigned long long)rep.dropped);
		return -EIO;
	}
	if (rep.regions_lost)
		rn_warn("cuda: %llu NVTX call(s) could not be matched to a region (a pop or end "
			"without an open range, nesting deeper than the library tracks): work in "
			"them may be attributed to an enclosing region or to none",
			(unsigned long long)rep.regions_lost);
	/* Known loss is recorded as a gap of the trace (verdicts on GPU spans say so), and
	 * still warned about. */
	rn_recdir_truncated(t, "cuda", rep.truncated, "a process died while writing");
	rn_recdir_unmapped(t, "cuda", rep.unmapped, "no clock calibration or no timestamps");
	if (!rep.files)
		rn_note("cuda: the target initialized no CUDA context with the injection library");
	return 0;
}

static void cuda_destroy(struct rn_collector *rc)
{
	struct cuda_collector *c = (struct cuda_collector *)rc;

	if (!c)
		return;
	rn_recdir_free(c->dir);
	free(c);
}

const struct rn_collector_ops rn_cuda_collector = {
	.name = "cuda",
	.unavailable = cuda_unavailable,
	.create = cuda_create,
	.prepare = cuda_prepare,
	.on_spawn = rn_recdir_on_spawn,
	.on_event = rn_recdir_on_event,
	.finish = cuda_finish,
	.destroy = cuda_destroy,
};
