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
	struct rn_injected base; /* first: the shared skeleton (recdir.h) */
	bool thread_scope;       /* regions hold only their own thread's work (region_scope) */
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

/* The CUDA driver loads `lib` (CUDA_INJECTION64_PATH) and so does NVTX; it writes into the
 * record directory. */
static void cuda_set_env(const struct rn_injected *ic, const char *lib, struct rn_strvec *env)
{
	rn_strvec_env_setkv(env, RN_CUDA_ENV_INJECTION_PATH, lib);
	rn_strvec_env_setkv(env, RN_CUDA_ENV_NVTX_INJECTION_PATH, lib);
	rn_strvec_env_setkv(env, RN_CUDA_ENV_DIR, ic->dir);
}

static const struct rn_injected_kind cuda_kind = {
	.tag = "cuda",
	.file_prefix = "cuda-",
	.file_suffix = ".jsonl",
	.missing =
		"injection library 'librenacer_cuda_inject.so' not found (set " RN_CUDA_ENV_INJECTION
		" to its path)",
	.artifact = rn_cuda_injection_path,
	.set_env = cuda_set_env,
};

static const char *cuda_unavailable(void)
{
	return rn_injected_unavailable(&cuda_kind);
}

static int cuda_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	struct cuda_collector *c = rn_xcalloc(1, sizeof(*c));

	c->base.kind = &cuda_kind;
	c->thread_scope = spec->region_thread_scope;
	*out = (struct rn_collector *)c;
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

	rn_cuda_load_report_init(&rep);
	ret = rn_injected_load(&c->base, t, load_file, &l);
	if (ret)
		return ret < 0 ? ret : 0;
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

const struct rn_collector_ops rn_cuda_collector = {
	.name = "cuda",
	.unavailable = cuda_unavailable,
	.create = cuda_create,
	.prepare = rn_injected_prepare,
	.on_spawn = rn_recdir_on_spawn,
	.on_event = rn_recdir_on_event,
	.finish = cuda_finish,
	.destroy = rn_injected_destroy,
};
