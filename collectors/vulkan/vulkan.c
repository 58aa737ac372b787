/*
 * vulkan.c - the Vulkan collector (see vulkan.h): injects the timing layer and merges its
 * record files into the trace.
 */
#include "vulkan.h"

#include "recdir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "inject.h"
#include "load.h"
#include "log.h"
#include "xalloc.h"

struct vk_collector {
	struct rn_injected base;  /* first: the shared skeleton (recdir.h) */
	enum rn_gpu_mode mode;    /* timing mode of the run */
	struct rn_strvec env_add; /* copy of the run's env_add */
};

/* The loader finds the layer's manifest in `layer_dir`; the layer writes into the record
 * directory. */
static void vk_set_env(const struct rn_injected *ic, const char *layer_dir, struct rn_strvec *env)
{
	const struct vk_collector *c = (const struct vk_collector *)ic;

	rn_vk_inject_env(layer_dir, ic->dir, c->mode, c->env_add.v, env);
}

static void vk_release(struct rn_injected *ic)
{
	rn_strvec_release(&((struct vk_collector *)ic)->env_add);
}

static const struct rn_injected_kind vk_kind = {
	.tag = "vulkan",
	.file_prefix = "vk-",
	.file_suffix = ".rnvk",
	.missing = "layer manifest '" RN_VK_MANIFEST_FILE "' not found (set " RN_VK_ENV_LAYER_DIR
		   " to its directory)",
	.artifact = rn_vk_layer_dir,
	.set_env = vk_set_env,
	.release = vk_release,
};

static const char *vk_unavailable(void)
{
	return rn_injected_unavailable(&vk_kind);
}

static int vk_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	struct vk_collector *c = rn_xcalloc(1, sizeof(*c));

	c->base.kind = &vk_kind;
	c->mode = spec->gpu_mode;
	rn_strvec_init(&c->env_add);
	for (size_t i = 0; spec->env_add && spec->env_add[i]; i++)
		rn_strvec_push(&c->env_add, spec->env_add[i]);
	*out = (struct rn_collector *)c;
	return 0;
}

static int add_span(void *ctx, const struct rn_gpu_span *span, const struct rn_vk_rec_span *raw)
{
	(void)raw;
	rn_trace_add_gpu(ctx, span);
	return 0;
}

/* State of one finish(): the trace and the report accumulated over the record files. */
struct load_ctx {
	struct rn_trace *t;
	struct rn_vk_load_report *rep;
};

static int load_file(void *ctx, const char *path, const char *data, size_t len)
{
	struct load_ctx *l = ctx;
	int err = rn_vk_load(data, len, add_span, l->t, l->rep);

	if (err < 0) {
		rn_trace_fail(l->t, RN_RUN_ERROR, "vulkan: record file '%s': %s at byte %zu", path,
			      rn_vk_record_strerror(err), l->rep->error_offset);
		return -EBADMSG;
	}
	return 0;
}

static int vk_finish(struct rn_collector *rc, struct rn_trace *t)
{
	struct vk_collector *c = (struct vk_collector *)rc;
	struct rn_vk_load_report rep;
	struct load_ctx l = { t, &rep };
	int ret;

	rn_vk_load_report_init(&rep);
	ret = rn_injected_load(&c->base, t, load_file, &l);
	if (ret)
		return ret < 0 ? ret : 0;
	if (rep.disabled) {
		rn_trace_fail(t, RN_RUN_ERROR, "vulkan layer stopped timing %s", rep.disabled_msg);
		return -EIO;
	}
	/* Known loss is recorded as a gap of the trace (verdicts on GPU spans say so), and
	 * still warned about. */
	rn_recdir_truncated(t, "vulkan", rep.truncated, "a process died between flushes");
	if (rep.stats.lost) {
		rn_warn("vulkan: %llu command buffer execution(s) could not be timed (results "
			"overwritten or never available)",
			(unsigned long long)rep.stats.lost);
		rn_trace_add_gap(t, RN_GAP_UNTIMED, RN_GAP_GPU_SPANS, "vulkan", rep.stats.lost,
				 "command buffer executions could not be timed (results "
				 "overwritten or never available)");
	}
	if (rep.stats.untimed_no_slots) {
		rn_warn("vulkan: %llu command(s) not timed: the layer's query slots ran out",
			(unsigned long long)rep.stats.untimed_no_slots);
		rn_trace_add_gap(t, RN_GAP_UNTIMED, RN_GAP_GPU_SPANS, "vulkan",
				 rep.stats.untimed_no_slots, "the layer's query slots ran out");
	}
	rn_recdir_unmapped(t, "vulkan", rep.unmapped, "no timestamps or clock for their device");
	if (rep.stats.untimed_secondary || rep.stats.untimed_simultaneous ||
	    rep.stats.untimed_family)
		rn_note("vulkan: untimed: %llu secondary, %llu simultaneous-use command "
			"buffer recording(s), %llu on queue families without timestamps",
			(unsigned long long)rep.stats.untimed_secondary,
			(unsigned long long)rep.stats.untimed_simultaneous,
			(unsigned long long)rep.stats.untimed_family);
	if (!rep.files)
		rn_note("vulkan: the target created no Vulkan device with the timing layer");
	return 0;
}

const struct rn_collector_ops rn_vulkan_collector = {
	.name = "vulkan",
	.unavailable = vk_unavailable,
	.create = vk_create,
	.prepare = rn_injected_prepare,
	.on_spawn = rn_recdir_on_spawn,
	.on_event = rn_recdir_on_event,
	.finish = vk_finish,
	.destroy = rn_injected_destroy,
};
