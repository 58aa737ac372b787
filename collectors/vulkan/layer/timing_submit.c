/*
 * timing_submit.c - the timing layer's hooks of queues and waits (submits start harvests),
 * command pools and buffers (begin and end a recording's timestamp pair), and debug-utils
 * names and labels (timing_internal.h).
 */
#include "timing_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../clock.h"

/* ---- Hooks: queues and waits ---------------------------------------------------------- */

static void queue_track(struct layer_device *dev, VkQueue queue, uint32_t family)
{
	struct layer_queue *q;

	if (!queue || map_get(OBJ_QUEUE, HANDLE(queue)))
		return;
	q = calloc(1, sizeof(*q));
	if (!q)
		return;
	q->dev = dev;
	q->family = family;
	if (map_put(OBJ_QUEUE, HANDLE(queue), q)) {
		free(q);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	q->next = dev->queues;
	dev->queues = q;
	pthread_mutex_unlock(&dev->lock);
}

void layer_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *pQueue)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	dev->vk.GetDeviceQueue(device, family, index, pQueue);
	queue_track(dev, *pQueue, family);
}

void layer_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *pQueue)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	dev->vk.GetDeviceQueue2(device, info, pQueue);
	queue_track(dev, *pQueue, info->queueFamilyIndex);
}

/* Submit bookkeeping shared by vkQueueSubmit and vkQueueSubmit2. */
struct submit_ctx {
	struct layer_device *dev;
	struct layer_queue *queue;
	uint64_t now;        /* host time of the submit, ns */
	uint64_t first_seq;  /* batch numbers of this call: first_seq .. dev->submit_seq */
	struct batch *batch; /* current batch (submit mode) */
};

static void submit_start(struct submit_ctx *s, struct layer_device *dev, struct layer_queue *q)
{
	s->dev = dev;
	s->queue = q;
	pthread_mutex_lock(&dev->lock);
	timing_harvest(dev, false, false);
	s->now = layer_now_ns();
	s->first_seq = dev->submit_seq + 1;
	s->batch = NULL;
}

static void submit_batch(struct submit_ctx *s)
{
	struct layer_device *dev = s->dev;

	dev->submit_seq++;
	if (dev->mode != RN_VK_MODE_SUBMIT)
		return;
	s->batch = calloc(1, sizeof(*s->batch));
	if (!s->batch)
		return;
	s->batch->family = s->queue->family;
	s->batch->submit_ns = s->now;
	s->batch->seq = dev->submit_seq;
	s->batch->remaining = 1; /* held by the submit until submit_batch_end() */
}

static void submit_cb(struct submit_ctx *s, VkCommandBuffer h)
{
	struct layer_device *dev = s->dev;
	struct layer_cmdbuf *cb = map_get(OBJ_COMMAND_BUFFER, HANDLE(h));

	if (!cb || !cb->timed || !dev->timing)
		return;
	if (cb->pending) {
		/* Submitted again before its last execution could be read (Vulkan 1.3, 6.5:
		 * only legal once that execution completed): read it now or count it lost. */
		timing_settle(dev, cb);
		if (!dev->timing)
			return;
	}
	if (dev->host_reset && cb->executed) {
		uint32_t per = dev->chunk_queries;

		for (uint32_t k = 0; k * per < cb->nqueries; k++) {
			dev->vk.ResetQueryPool(dev->device, cb->chunks[k].pool, cb->chunks[k].first,
					       per);
			cb->chunks[k].dirty = false;
		}
	}
	cb->have_stale = false;
	if (!dev->host_reset && cb->nchunks && cb->chunks[0].dirty) {
		uint64_t v[2] = { 0, 0 };
		VkResult r =
			dev->vk.GetQueryPoolResults(dev->device, cb->chunks[0].pool,
						    cb->chunks[0].first, 1, sizeof(v), v, sizeof(v),
						    VK_QUERY_RESULT_64_BIT |
							    VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);

		if ((r == VK_SUCCESS || r == VK_NOT_READY) && v[1]) {
			cb->have_stale = true;
			cb->stale_begin = v[0];
		}
	}
	cb->executed = true;
	if (cb->nchunks)
		cb->chunks[0].dirty = true;
	if (dev->npending == dev->pending_cap) {
		size_t cap = dev->pending_cap ? dev->pending_cap * 2 : 64;
		struct layer_cmdbuf **p = realloc(dev->pending, cap * sizeof(*p));

		if (!p) {
			dev->stats.lost++;
			return;
		}
		dev->pending = p;
		dev->pending_cap = cap;
	}
	cb->pending = true;
	cb->waited = false;
	cb->exec_family = s->queue->family;
	if (s->queue->label_depth && s->queue->label_depth <= LABEL_DEPTH)
		memcpy(cb->queue_label, s->queue->labels[s->queue->label_depth - 1],
		       sizeof(cb->queue_label));
	else
		cb->queue_label[0] = 0;
	cb->submit_ns = s->now;
	cb->submit_seq = dev->submit_seq;
	cb->batch = s->batch;
	if (s->batch)
		s->batch->remaining++;
	dev->pending[dev->npending++] = cb;
}

static void submit_batch_end(struct submit_ctx *s)
{
	if (s->batch)
		timing_batch_release(s->dev, s->batch, false, s->now, false);
	s->batch = NULL;
}

/* After the real submit: on failure nothing ran, so nothing of this call is pending. */
static void submit_finish(struct submit_ctx *s, VkResult r)
{
	struct layer_device *dev = s->dev;

	if (r != VK_SUCCESS) {
		for (size_t i = dev->npending; i-- > 0;) {
			struct layer_cmdbuf *cb = dev->pending[i];

			if (cb->submit_seq >= s->first_seq) {
				if (cb->batch)
					timing_batch_release(dev, cb->batch, true, s->now, false);
				cb->batch = NULL;
				cb->pending = false;
				timing_unpend_at(dev, i);
			}
		}
	}
	pthread_mutex_unlock(&dev->lock);
}

VkResult layer_QueueSubmit(VkQueue queue, uint32_t n, const VkSubmitInfo *submits, VkFence fence)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : device_of_dispatchable(queue);
	struct submit_ctx s;
	VkResult r;

	if (!q || !dev_timing(dev))
		return dev->vk.QueueSubmit(queue, n, submits, fence);
	submit_start(&s, dev, q);
	for (uint32_t i = 0; i < n; i++) {
		submit_batch(&s);
		for (uint32_t j = 0; j < submits[i].commandBufferCount; j++)
			submit_cb(&s, submits[i].pCommandBuffers[j]);
		submit_batch_end(&s);
	}
	/* The real submit runs under the device lock so that a harvest on another thread cannot
	 * read queries between their host reset above and this submission. */
	r = dev->vk.QueueSubmit(queue, n, submits, fence);
	submit_finish(&s, r);
	return r;
}

VkResult layer_QueueSubmit2(VkQueue queue, uint32_t n, const VkSubmitInfo2 *submits, VkFence fence)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : device_of_dispatchable(queue);
	struct submit_ctx s;
	VkResult r;

	if (!q || !dev_timing(dev))
		return dev->vk.QueueSubmit2(queue, n, submits, fence);
	submit_start(&s, dev, q);
	for (uint32_t i = 0; i < n; i++) {
		submit_batch(&s);
		for (uint32_t j = 0; j < submits[i].commandBufferInfoCount; j++)
			submit_cb(&s, submits[i].pCommandBufferInfos[j].commandBuffer);
		submit_batch_end(&s);
	}
	r = dev->vk.QueueSubmit2(queue, n, submits, fence);
	submit_finish(&s, r);
	return r;
}

static void harvest_after_wait(struct layer_device *dev, VkResult r, bool full)
{
	if (r != VK_SUCCESS || !dev_timing(dev))
		return;
	pthread_mutex_lock(&dev->lock);
	timing_harvest(dev, full, full);
	pthread_mutex_unlock(&dev->lock);
}

VkResult layer_QueueWaitIdle(VkQueue queue)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : device_of_dispatchable(queue);
	VkResult r = dev->vk.QueueWaitIdle(queue);

	harvest_after_wait(dev, r, true);
	return r;
}

VkResult layer_DeviceWaitIdle(VkDevice device)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.DeviceWaitIdle(device);

	harvest_after_wait(dev, r, true);
	return r;
}

VkResult layer_WaitForFences(VkDevice device, uint32_t n, const VkFence *fences, VkBool32 all,
			     uint64_t timeout)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.WaitForFences(device, n, fences, all, timeout);

	harvest_after_wait(dev, r, true);
	return r;
}

VkResult layer_GetFenceStatus(VkDevice device, VkFence fence)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.GetFenceStatus(device, fence);

	harvest_after_wait(dev, r, false);
	return r;
}

/* ---- Hooks: command pools and buffers ------------------------------------------------- */

VkResult layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
				 const VkAllocationCallbacks *alloc, VkCommandPool *pPool)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateCommandPool(device, info, alloc, pPool);
	struct layer_pool *p;

	if (r != VK_SUCCESS)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return r;
	p->pool = *pPool;
	p->dev = dev;
	p->family = info->queueFamilyIndex;
	if (map_put(OBJ_COMMAND_POOL, HANDLE(*pPool), p)) {
		free(p);
		return r;
	}
	pthread_mutex_lock(&dev->lock);
	p->next = dev->pools_list;
	dev->pools_list = p;
	pthread_mutex_unlock(&dev->lock);
	return r;
}

static void pool_remove_cb(struct layer_pool *p, struct layer_cmdbuf *cb)
{
	for (size_t i = 0; i < p->ncbs; i++) {
		if (p->cbs[i] == cb) {
			p->cbs[i] = p->cbs[--p->ncbs];
			return;
		}
	}
}

void layer_DestroyCommandPool(VkDevice device, VkCommandPool pool,
			      const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	struct layer_pool *p = pool ? map_del(OBJ_COMMAND_POOL, HANDLE(pool)) : NULL;

	if (p) {
		pthread_mutex_lock(&dev->lock);
		for (struct layer_pool **pp = &dev->pools_list; *pp; pp = &(*pp)->next) {
			if (*pp == p) {
				*pp = p->next;
				break;
			}
		}
		for (size_t i = 0; i < p->ncbs; i++) {
			struct layer_cmdbuf *cb = p->cbs[i];

			timing_settle(dev, cb);
			timing_chunks_release(dev, cb);
			map_del(OBJ_COMMAND_BUFFER, HANDLE(cb->cb));
			timing_cb_free(cb);
		}
		pthread_mutex_unlock(&dev->lock);
		free(p->cbs);
		free(p);
	}
	dev->vk.DestroyCommandPool(device, pool, alloc);
}

VkResult layer_ResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	struct layer_pool *p = map_get(OBJ_COMMAND_POOL, HANDLE(pool));

	if (p) {
		pthread_mutex_lock(&dev->lock);
		for (size_t i = 0; i < p->ncbs; i++) {
			timing_settle(dev, p->cbs[i]);
			timing_cb_clear_recording(p->cbs[i]);
		}
		pthread_mutex_unlock(&dev->lock);
	}
	return dev->vk.ResetCommandPool(device, pool, flags);
}

VkResult layer_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
				      VkCommandBuffer *cbs)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.AllocateCommandBuffers(device, info, cbs);
	struct layer_pool *p;

	if (r != VK_SUCCESS)
		return r;
	p = map_get(OBJ_COMMAND_POOL, HANDLE(info->commandPool));
	if (!p)
		return r;
	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < info->commandBufferCount; i++) {
		struct layer_cmdbuf *cb;

		if (p->ncbs == p->cbs_cap) {
			size_t cap = p->cbs_cap ? p->cbs_cap * 2 : 16;
			struct layer_cmdbuf **a = realloc(p->cbs, cap * sizeof(*a));

			if (!a)
				break;
			p->cbs = a;
			p->cbs_cap = cap;
		}
		cb = calloc(1, sizeof(*cb));
		if (!cb)
			break; /* untracked: its commands pass straight through */
		cb->cb = cbs[i];
		cb->dev = dev;
		cb->pool = p;
		cb->primary = info->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		timing_cb_clear_recording(cb);
		if (map_put(OBJ_COMMAND_BUFFER, HANDLE(cbs[i]), cb)) {
			free(cb);
			break;
		}
		p->cbs[p->ncbs++] = cb;
	}
	pthread_mutex_unlock(&dev->lock);
	return r;
}

void layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t n,
			      const VkCommandBuffer *cbs)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < n; i++) {
		struct layer_cmdbuf *cb =
			cbs[i] ? map_del(OBJ_COMMAND_BUFFER, HANDLE(cbs[i])) : NULL;

		if (!cb)
			continue;
		timing_settle(dev, cb);
		timing_chunks_release(dev, cb);
		pool_remove_cb(cb->pool, cb);
		timing_cb_free(cb);
	}
	pthread_mutex_unlock(&dev->lock);
	dev->vk.FreeCommandBuffers(device, pool, n, cbs);
}

/* Before a reset or a new recording: read or lose the last execution, forget the recording. */
static void cb_retire(struct layer_cmdbuf *cb)
{
	struct layer_device *dev = cb->dev;

	if (cb->pending) {
		pthread_mutex_lock(&dev->lock);
		timing_settle(dev, cb);
		pthread_mutex_unlock(&dev->lock);
	}
	timing_cb_clear_recording(cb);
}

VkResult layer_ResetCommandBuffer(VkCommandBuffer h, VkCommandBufferResetFlags flags)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	if (cb)
		cb_retire(cb);
	return dev->vk.ResetCommandBuffer(h, flags);
}

VkResult layer_BeginCommandBuffer(VkCommandBuffer h, const VkCommandBufferBeginInfo *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	uint32_t family;
	VkResult r;

	if (cb)
		cb_retire(cb);
	r = dev->vk.BeginCommandBuffer(h, info);
	if (r != VK_SUCCESS || !cb || !dev_timing(dev))
		return r;
	family = cb->pool->family;
	if (!cb->primary) {
		stat_add(&dev->stats.untimed_secondary);
	} else if (info->flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT) {
		/* May be pending several times at once: one set of queries cannot serve it. */
		stat_add(&dev->stats.untimed_simultaneous);
	} else if (family >= dev->nfamilies || !dev->valid_bits[family]) {
		stat_add(&dev->stats.untimed_family);
	} else {
		cb->timed = true;
		if (timing_region_begin(cb, RN_VK_KIND_CMDBUF, NAME_NONE,
					VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT) != 0)
			cb->timed = false;
	}
	return r;
}

static void close_label_regions(struct layer_cmdbuf *cb);

VkResult layer_EndCommandBuffer(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	if (cb && cb->timed) {
		close_label_regions(cb);
		timing_region_end(cb, 0);
	}
	return dev->vk.EndCommandBuffer(h);
}

/* ---- Hooks: names --------------------------------------------------------------------- */

VkResult layer_SetDebugUtilsObjectNameEXT(VkDevice device,
					  const VkDebugUtilsObjectNameInfoEXT *info)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.SetDebugUtilsObjectNameEXT(device, info);
	const char *name = info->pObjectName ? info->pObjectName : "";
	char *dst = NULL;

	if (r != VK_SUCCESS)
		return r;
	if (info->objectType == VK_OBJECT_TYPE_PIPELINE) {
		struct layer_pipeline *p = map_get(OBJ_PIPELINE, info->objectHandle);

		dst = p ? p->name : NULL;
	} else if (info->objectType == VK_OBJECT_TYPE_SHADER_MODULE) {
		struct layer_module *m = map_get(OBJ_SHADER_MODULE, info->objectHandle);

		dst = m ? m->name : NULL;
	} else if (info->objectType == VK_OBJECT_TYPE_COMMAND_BUFFER) {
		struct layer_cmdbuf *cb = map_get(OBJ_COMMAND_BUFFER, info->objectHandle);

		dst = cb ? cb->obj_name : NULL;
	}
	if (dst)
		snprintf(dst, RN_VK_NAME_MAX, "%s", name);
	return r;
}

void layer_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer h, const VkDebugUtilsLabelEXT *label)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	dev->vk.CmdBeginDebugUtilsLabelEXT(h, label);
	if (!cb)
		return;
	{
		uint32_t off = timing_cb_name(cb, label->pLabelName ? label->pLabelName : "");
		int32_t timed = -1;

		/* In dispatch mode a label is a timed region too (its work is serialized
		 * already); begun before it is pushed, so its own region is its parent. */
		if (dev->mode == RN_VK_MODE_DISPATCH && cb->label_depth < LABEL_DEPTH)
			timed = timing_region_begin(cb, RN_VK_KIND_REGION, off,
						    VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
		if (cb->label_depth < LABEL_DEPTH) {
			cb->labels[cb->label_depth] = off;
			cb->label_regions[cb->label_depth] = timed;
		}
		cb->label_depth++;
		if (cb->first_label == NAME_NONE)
			cb->first_label = off;
	}
}

/* Close the timed regions of labels still open (a label may end in a later command buffer,
 * Vulkan 1.3, 4.2: the region is then cut at the end of this one). */
static void close_label_regions(struct layer_cmdbuf *cb)
{
	uint32_t n = cb->label_depth < LABEL_DEPTH ? cb->label_depth : LABEL_DEPTH;

	for (uint32_t i = n; i-- > 0;) {
		timing_region_end(cb, cb->label_regions[i]);
		cb->label_regions[i] = -1;
	}
}

void layer_CmdEndDebugUtilsLabelEXT(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	dev->vk.CmdEndDebugUtilsLabelEXT(h);
	if (cb && cb->label_depth) {
		cb->label_depth--;
		if (cb->label_depth < LABEL_DEPTH) {
			timing_region_end(cb, cb->label_regions[cb->label_depth]);
			cb->label_regions[cb->label_depth] = -1;
		}
	}
}

void layer_CmdInsertDebugUtilsLabelEXT(VkCommandBuffer h, const VkDebugUtilsLabelEXT *label)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	dev->vk.CmdInsertDebugUtilsLabelEXT(h, label);
	if (cb && dev->mode == RN_VK_MODE_DISPATCH)
		cb->insert_label = timing_cb_name(cb, label->pLabelName ? label->pLabelName : "");
}

/* Queue labels: command buffers submitted while one is open belong to it, below their own
 * labels. Not timed (a queue label brackets submits, not GPU work of its own). */
void layer_QueueBeginDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : NULL;

	if (!dev)
		return;
	if (dev->vk.QueueBeginDebugUtilsLabelEXT)
		dev->vk.QueueBeginDebugUtilsLabelEXT(queue, label);
	if (q->label_depth < LABEL_DEPTH)
		snprintf(q->labels[q->label_depth], sizeof(q->labels[0]), "%s",
			 label && label->pLabelName ? label->pLabelName : "");
	q->label_depth++;
}

void layer_QueueEndDebugUtilsLabelEXT(VkQueue queue)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : NULL;

	if (!dev)
		return;
	if (dev->vk.QueueEndDebugUtilsLabelEXT)
		dev->vk.QueueEndDebugUtilsLabelEXT(queue);
	if (q->label_depth)
		q->label_depth--;
}
