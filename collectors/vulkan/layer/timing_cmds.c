/*
 * timing_cmds.c - the timing layer's hooks of dispatch mode: pipelines and their identity,
 * timed dispatches, copies and render passes, and the memory and buffers that give copies
 * their timing_direction (timing_internal.h).
 */
#include "timing_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../clock.h"

/* ---- Hooks: pipelines and their identity (dispatch mode) ------------------------------ */

static uint32_t fnv1a(uint32_t h, const void *data, size_t n)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#define FNV_INIT 2166136261u

VkResult layer_CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *info,
				  const VkAllocationCallbacks *alloc, VkShaderModule *pModule)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateShaderModule(device, info, alloc, pModule);
	struct layer_module *m;

	if (r != VK_SUCCESS)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return r;
	m->hash = fnv1a(FNV_INIT, info->pCode, info->codeSize);
	if (map_put(OBJ_SHADER_MODULE, HANDLE(*pModule), m))
		free(m);
	return r;
}

void layer_DestroyShaderModule(VkDevice device, VkShaderModule module,
			       const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (module)
		free(map_del(OBJ_SHADER_MODULE, HANDLE(module)));
	dev->vk.DestroyShaderModule(device, module, alloc);
}

/* Identity of a compute stage: SPIR-V hash, entry point, specialization constants. */
static void pipeline_describe(struct layer_pipeline *p, const VkPipelineShaderStageCreateInfo *st)
{
	struct layer_module *m = st->module ? map_get(OBJ_SHADER_MODULE, HANDLE(st->module)) : NULL;
	uint32_t h = FNV_INIT;
	const VkSpecializationInfo *spec = st->pSpecializationInfo;

	if (m) {
		h = fnv1a(h, &m->hash, sizeof(m->hash));
		snprintf(p->module_name, sizeof(p->module_name), "%s", m->name);
	} else {
		/* VK_KHR_maintenance5 style: the module's create info chained to the stage. */
		for (const VkBaseInStructure *s = st->pNext; s; s = s->pNext) {
			if (s->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) {
				const VkShaderModuleCreateInfo *ci = (const void *)s;
				uint32_t mh = fnv1a(FNV_INIT, ci->pCode, ci->codeSize);

				h = fnv1a(h, &mh, sizeof(mh));
				break;
			}
		}
	}
	if (st->pName) {
		snprintf(p->entry, sizeof(p->entry), "%s", st->pName);
		h = fnv1a(h, st->pName, strlen(st->pName));
	}
	if (spec) {
		if (spec->mapEntryCount && spec->pMapEntries)
			h = fnv1a(h, spec->pMapEntries,
				  spec->mapEntryCount * sizeof(*spec->pMapEntries));
		if (spec->dataSize && spec->pData)
			h = fnv1a(h, spec->pData, spec->dataSize);
	}
	p->identity = h;
}

VkResult layer_CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
				      const VkComputePipelineCreateInfo *infos,
				      const VkAllocationCallbacks *alloc, VkPipeline *pipelines)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateComputePipelines(device, cache, n, infos, alloc, pipelines);

	for (uint32_t i = 0; i < n; i++) {
		struct layer_pipeline *p;

		if (!pipelines[i])
			continue;
		p = calloc(1, sizeof(*p));
		if (!p)
			continue;
		pipeline_describe(p, &infos[i].stage);
		if (map_put(OBJ_PIPELINE, HANDLE(pipelines[i]), p))
			free(p);
	}
	return r;
}

void layer_DestroyPipeline(VkDevice device, VkPipeline pipeline, const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (pipeline)
		free(map_del(OBJ_PIPELINE, HANDLE(pipeline)));
	dev->vk.DestroyPipeline(device, pipeline, alloc);
}

void layer_CmdBindPipeline(VkCommandBuffer h, VkPipelineBindPoint bp, VkPipeline pipeline)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	if (cb && bp == VK_PIPELINE_BIND_POINT_COMPUTE)
		cb->compute_pipeline = HANDLE(pipeline);
	dev->vk.CmdBindPipeline(h, bp, pipeline);
}

/* ---- Hooks: timed commands (dispatch mode) -------------------------------------------- */

static void set_groups(struct layer_cmdbuf *cb, int32_t i, uint32_t x, uint32_t y, uint32_t z)
{
	if (i < 0)
		return;
	cb->regions[i].groups[0] = x;
	cb->regions[i].groups[1] = y;
	cb->regions[i].groups[2] = z;
}

void layer_CmdDispatch(VkCommandBuffer h, uint32_t x, uint32_t y, uint32_t z)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_DISPATCH, "dispatch");

	set_groups(cb, i, x, y, z);
	dev->vk.CmdDispatch(h, x, y, z);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdDispatchBase(VkCommandBuffer h, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x,
			   uint32_t y, uint32_t z)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_DISPATCH, "dispatch");

	set_groups(cb, i, x, y, z);
	dev->vk.CmdDispatchBase(h, bx, by, bz, x, y, z);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdDispatchIndirect(VkCommandBuffer h, VkBuffer buffer, VkDeviceSize offset)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_DISPATCH, "dispatch");

	if (i >= 0)
		cb->regions[i].flags |= RN_VK_SPAN_INDIRECT;
	dev->vk.CmdDispatchIndirect(h, buffer, offset);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdCopyBuffer(VkCommandBuffer h, VkBuffer src, VkBuffer dst, uint32_t n,
			 const VkBufferCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "copy_buffer");

	if (i >= 0) {
		uint64_t bytes = 0;

		for (uint32_t k = 0; k < n; k++)
			bytes += regions[k].size;
		timing_copy_info(cb, i, bytes,
				 timing_direction(timing_buffer_side(dev, src),
						  timing_buffer_side(dev, dst)));
	}
	dev->vk.CmdCopyBuffer(h, src, dst, n, regions);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdCopyBuffer2(VkCommandBuffer h, const VkCopyBufferInfo2 *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "copy_buffer");

	if (i >= 0) {
		uint64_t bytes = 0;

		for (uint32_t k = 0; k < info->regionCount; k++)
			bytes += info->pRegions[k].size;
		timing_copy_info(cb, i, bytes,
				 timing_direction(timing_buffer_side(dev, info->srcBuffer),
						  timing_buffer_side(dev, info->dstBuffer)));
	}
	dev->vk.CmdCopyBuffer2(h, info);
	if (i >= 0)
		timing_region_end(cb, i);
}

/* Image copies: images are taken as device-local; their byte counts are not computed. */
void layer_CmdCopyImage(VkCommandBuffer h, VkImage src, VkImageLayout sl, VkImage dst,
			VkImageLayout dl, uint32_t n, const VkImageCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "copy_image");

	timing_copy_info(cb, i, 0, RN_VK_DIR_DTOD);
	dev->vk.CmdCopyImage(h, src, sl, dst, dl, n, regions);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdCopyBufferToImage(VkCommandBuffer h, VkBuffer src, VkImage dst, VkImageLayout dl,
				uint32_t n, const VkBufferImageCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "copy_buffer_to_image");

	if (i >= 0)
		timing_copy_info(cb, i, 0, timing_direction(timing_buffer_side(dev, src), 2));
	dev->vk.CmdCopyBufferToImage(h, src, dst, dl, n, regions);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdCopyImageToBuffer(VkCommandBuffer h, VkImage src, VkImageLayout sl, VkBuffer dst,
				uint32_t n, const VkBufferImageCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "copy_image_to_buffer");

	if (i >= 0)
		timing_copy_info(cb, i, 0, timing_direction(2, timing_buffer_side(dev, dst)));
	dev->vk.CmdCopyImageToBuffer(h, src, sl, dst, n, regions);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdFillBuffer(VkCommandBuffer h, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
			 uint32_t data)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "fill_buffer");

	if (i >= 0) {
		uint64_t bytes = size;

		if (size == VK_WHOLE_SIZE) {
			struct layer_buffer *b = map_get(OBJ_BUFFER, HANDLE(dst));

			/* VK_WHOLE_SIZE fills to the end, rounded down to 4 bytes (18.4). */
			bytes = b && b->size > offset ? (b->size - offset) & ~(uint64_t)3 : 0;
		}
		timing_copy_info(cb, i, bytes, RN_VK_DIR_NONE);
	}
	dev->vk.CmdFillBuffer(h, dst, offset, size, data);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdUpdateBuffer(VkCommandBuffer h, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
			   const void *data)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "update_buffer");

	if (i >= 0)
		timing_copy_info(cb, i, size, timing_direction(1, timing_buffer_side(dev, dst)));
	dev->vk.CmdUpdateBuffer(h, dst, offset, size, data);
	if (i >= 0)
		timing_region_end(cb, i);
}

void layer_CmdBlitImage(VkCommandBuffer h, VkImage src, VkImageLayout sl, VkImage dst,
			VkImageLayout dl, uint32_t n, const VkImageBlit *regions, VkFilter filter)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);
	int32_t i = timing_command_begin(cb, RN_VK_KIND_COPY, "blit_image");

	timing_copy_info(cb, i, 0, RN_VK_DIR_DTOD);
	dev->vk.CmdBlitImage(h, src, sl, dst, dl, n, regions, filter);
	if (i >= 0)
		timing_region_end(cb, i);
}

/* Render passes: the pair goes outside the instance (timestamps inside a render pass would
 * need a query per view with multiview, Vulkan 1.3, 17.5). */
static void pass_begin(struct layer_cmdbuf *cb)
{
	if (cb && cb->open_pass < 0)
		cb->open_pass = timing_command_begin(cb, RN_VK_KIND_RENDER_PASS, "render_pass");
}

static void pass_end(struct layer_cmdbuf *cb)
{
	if (cb && cb->open_pass >= 0) {
		timing_region_end(cb, cb->open_pass);
		cb->open_pass = -1;
	}
}

void layer_CmdBeginRenderPass(VkCommandBuffer h, const VkRenderPassBeginInfo *info,
			      VkSubpassContents contents)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	pass_begin(cb);
	dev->vk.CmdBeginRenderPass(h, info, contents);
}

void layer_CmdEndRenderPass(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	dev->vk.CmdEndRenderPass(h);
	pass_end(cb);
}

void layer_CmdBeginRenderPass2(VkCommandBuffer h, const VkRenderPassBeginInfo *info,
			       const VkSubpassBeginInfo *sub)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	pass_begin(cb);
	dev->vk.CmdBeginRenderPass2(h, info, sub);
}

void layer_CmdEndRenderPass2(VkCommandBuffer h, const VkSubpassEndInfo *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	dev->vk.CmdEndRenderPass2(h, info);
	pass_end(cb);
}

void layer_CmdBeginRendering(VkCommandBuffer h, const VkRenderingInfo *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	/* Suspended/resumed instances forbid commands between them (Vulkan 1.3, 8.8): untimed. */
	if (!(info->flags & (VK_RENDERING_SUSPENDING_BIT | VK_RENDERING_RESUMING_BIT)))
		pass_begin(cb);
	dev->vk.CmdBeginRendering(h, info);
}

void layer_CmdEndRendering(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = timing_cb_get(h, &dev);

	dev->vk.CmdEndRendering(h);
	pass_end(cb);
}

/* ---- Hooks: memory and buffers, for copy directions (dispatch mode) ------------------- */

VkResult layer_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
			      const VkAllocationCallbacks *alloc, VkDeviceMemory *pMemory)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.AllocateMemory(device, info, alloc, pMemory);
	struct layer_memory *m;

	if (r != VK_SUCCESS)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return r;
	m->type_index = info->memoryTypeIndex;
	if (map_put(OBJ_MEMORY, HANDLE(*pMemory), m))
		free(m);
	return r;
}

void layer_FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (memory)
		free(map_del(OBJ_MEMORY, HANDLE(memory)));
	dev->vk.FreeMemory(device, memory, alloc);
}

VkResult layer_CreateBuffer(VkDevice device, const VkBufferCreateInfo *info,
			    const VkAllocationCallbacks *alloc, VkBuffer *pBuffer)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateBuffer(device, info, alloc, pBuffer);
	struct layer_buffer *b;

	if (r != VK_SUCCESS)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return r;
	b->size = info->size;
	if (map_put(OBJ_BUFFER, HANDLE(*pBuffer), b))
		free(b);
	return r;
}

void layer_DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (buffer)
		free(map_del(OBJ_BUFFER, HANDLE(buffer)));
	dev->vk.DestroyBuffer(device, buffer, alloc);
}

static void buffer_bound(VkBuffer buffer, VkDeviceMemory memory)
{
	struct layer_buffer *b = map_get(OBJ_BUFFER, HANDLE(buffer));

	if (b)
		b->memory = memory;
}

VkResult layer_BindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
				VkDeviceSize offset)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.BindBufferMemory(device, buffer, memory, offset);

	if (r == VK_SUCCESS)
		buffer_bound(buffer, memory);
	return r;
}

VkResult layer_BindBufferMemory2(VkDevice device, uint32_t n, const VkBindBufferMemoryInfo *infos)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.BindBufferMemory2(device, n, infos);

	if (r == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			buffer_bound(infos[i].buffer, infos[i].memory);
	return r;
}
