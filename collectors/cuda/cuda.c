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

/* Largest record file read, bytes (a hostile or runaway file fails cleanly past it). */
#define MAX_RECORD_FILE_BYTES ((size_t)1 << 30)

struct cuda_collector {
	char *dir; /* private record directory, owned; NULL before prepare */
};

static bool readable(const char *path)
{
	return path && *path && access(path, R_OK) == 0;
}

/* Whether renacer itself runs from the build tree (so its library is the one beside it). */
static bool running_from_build_tree(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t blen = strlen(RN_CUDA_BINARY_DIR);

	if (n <= 0 || !blen)
		return false;
	exe[n] = 0;
	return !strncmp(exe, RN_CUDA_BINARY_DIR, blen) && exe[blen] == '/';
}

const char *rn_cuda_injection_path(void)
{
	const char *env = getenv(RN_CUDA_ENV_INJECTION);

	if (env && *env)
		return readable(env) ? env : NULL;
	if (running_from_build_tree() && readable(RN_CUDA_INJECT_BUILD_PATH))
		return RN_CUDA_INJECT_BUILD_PATH;
	if (readable(RN_CUDA_INJECT_INSTALL_PATH))
		return RN_CUDA_INJECT_INSTALL_PATH;
	if (readable(RN_CUDA_INJECT_BUILD_PATH))
		return RN_CUDA_INJECT_BUILD_PATH;
	return NULL;
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
	(void)spec;
	*out = (struct rn_collector *)rn_xcalloc(1, sizeof(struct cuda_collector));
	return 0;
}

static int cuda_prepare(struct rn_collector *rc, struct rn_strvec *env)
{
	struct cuda_collector *c = (struct cuda_collector *)rc;
	const char *lib = rn_cuda_injection_path();

	if (!lib) {
		rn_error("cuda: %s", cuda_unavailable());
		return -ENOENT;
	}
	{
		char *dir;
		int err = rn_recdir_create("cuda", &dir);

		if (err)
			return err;
		free(c->dir);
		c->dir = dir;
	}
	rn_strvec_env_setkv(env, RN_CUDA_ENV_INJECTION_PATH, lib);
	rn_strvec_env_setkv(env, RN_CUDA_ENV_NVTX_INJECTION_PATH, lib);
	rn_strvec_env_setkv(env, RN_CUDA_ENV_DIR, c->dir);
	return 0;
}

static int cuda_on_spawn(struct rn_collector *c, pid_t pid, struct rn_trace *t)
{
	(void)c;
	(void)pid;
	(void)t;
	return 0;
}

static int cuda_on_event(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status)
{
	(void)c;
	(void)t;
	(void)tid;
	(void)status;
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
};

static int load_file(void *ctx, const char *path, const char *data, size_t len)
{
	struct load_ctx *l = ctx;

	if (rn_cuda_load(data, len, add_span, l->t, l->rep) < 0) {
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
	struct load_ctx l = { t, &rep };
	int ret;

	if (!c->dir)
		return 0;
	rn_cuda_load_report_init(&rep);
	ret = rn_recdir_foreach(c->dir, "cuda-", ".jsonl", MAX_RECORD_FILE_BYTES, "cuda", t,
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
	if (rep.truncated) {
		rn_warn("cuda: %zu record file(s) end inside a record (a process died while "
			"writing); spans before that point are kept",
			rep.truncated);
		rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, "cuda", 0,
				 "%zu record file(s) end inside a record", rep.truncated);
	}
	if (rep.unmapped) {
		rn_warn("cuda: %zu span(s) dropped: no clock calibration or no timestamps",
			rep.unmapped);
		rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_GPU_SPANS, "cuda", rep.unmapped,
				 "no clock calibration or no timestamps");
	}
	if (!rep.files)
		rn_note("cuda: the target initialized no CUDA context with the injection library");
	return 0;
}

static void cuda_destroy(struct rn_collector *rc)
{
	struct cuda_collector *c = (struct cuda_collector *)rc;

	if (!c)
		return;
	if (c->dir)
		rn_recdir_remove(c->dir);
	free(c->dir);
	free(c);
}

const struct rn_collector_ops rn_cuda_collector = {
	.name = "cuda",
	.unavailable = cuda_unavailable,
	.create = cuda_create,
	.prepare = cuda_prepare,
	.on_spawn = cuda_on_spawn,
	.on_event = cuda_on_event,
	.finish = cuda_finish,
	.destroy = cuda_destroy,
};
