/*
 * vk_compute - a Vulkan compute program with known GPU work, the target of the Vulkan
 * collector's tests (tests/integration/vulkan). It knows nothing of renacer: the layer is injected.
 *
 * Work, in three vkQueueSubmit calls of one batch each:
 *
 *   cb_a "frame_cb" (named with vkSetDebugUtilsObjectNameEXT), 5 dispatches and 3 copies:
 *     label "upload":      vkCmdCopyBuffer staging -> data             copy   "upload"
 *     label "scale_pass":  2 x dispatch scale.comp (x2 each)           dispatch "scale_pass"
 *     dispatch add.comp, pipeline named "add_pipeline" (+1)            dispatch "add_pipeline"
 *     dispatch reduce.comp, entry point "reduce_sum" (-1)              dispatch "reduce_sum"
 *     dispatch square.comp, unnamed, entry "main", K specialized to 1  dispatch "cs_xxxxxxxx"
 *     inserted label "marker_fill": vkCmdFillBuffer                    copy   "marker_fill"
 *     vkCmdCopyBuffer data -> staging                                  copy   "copy_buffer"
 *   cb_b (first label "indirect_pass"):
 *     label "indirect_pass": vkCmdDispatchIndirect scale.comp (x2)     dispatch "indirect_pass"
 *     vkCmdUpdateBuffer                                                copy   "update_buffer"
 *     vkCmdExecuteCommands of a secondary with one dispatch (no-op)    untimed (secondary)
 *
 *   submit 1: cb_a; vkWaitForFences
 *   submit 2: cb_a again, unchanged (re-submission); vkQueueWaitIdle
 *   submit 3: cb_b, then cb_a re-recorded, in one batch, inside the queue label "frame3"
 *             (vkQueueBeginDebugUtilsLabelEXT); vkDeviceWaitIdle
 *
 * Totals: 4 primary command buffer executions, 16 timed dispatches, 10 timed copies,
 * 3 submit batches, 1 secondary recording. Regions (innermost label, command buffer labels
 * inside queue labels): in dispatch mode 8 spans of submit 3 lie in "frame3" outside any
 * command buffer label (3 dispatches, 3 copies, 2 command buffers). The result is checked on
 * the host (staging[i] must be 64 * i) so a layer that broke the work would fail the program.
 *
 * Usage: vk_compute [--validation]
 *   --validation  enable VK_LAYER_KHRONOS_validation and a debug messenger; any error message
 *                 makes the program exit 1.
 * Exit: 0 success, 1 failure, 77 no Vulkan instance/device (or no validation layer when asked).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "add.spv.h"
#include "reduce.spv.h"
#include "scale.spv.h"
#include "square.spv.h"

#define N 4096u          /* floats per buffer */
#define GROUPS (N / 64u) /* workgroups of one dispatch */
#define SKIP 77

static int validation_errors;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;
static PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
static PFN_vkCmdEndDebugUtilsLabelEXT end_label;
static PFN_vkCmdInsertDebugUtilsLabelEXT insert_label;
static PFN_vkQueueBeginDebugUtilsLabelEXT queue_begin_label;
static PFN_vkQueueEndDebugUtilsLabelEXT queue_end_label;

#define CHECK(call)                                                                                \
	do {                                                                                       \
		VkResult r_ = (call);                                                              \
		if (r_ != VK_SUCCESS) {                                                            \
			fprintf(stderr, "vk_compute: %s failed: %d\n", #call, (int)r_);            \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
						 VkDebugUtilsMessageTypeFlagsEXT types,
						 const VkDebugUtilsMessengerCallbackDataEXT *data,
						 void *user)
{
	(void)types;
	(void)user;
	if (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
		validation_errors++;
		fprintf(stderr, "vk_compute: validation error: %s\n", data->pMessage);
	} else if (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
		fprintf(stderr, "vk_compute: validation warning: %s\n", data->pMessage);
	}
	return VK_FALSE;
}

struct buffer {
	VkBuffer buf;
	VkDeviceMemory mem;
	void *map;
};

struct ctx {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice phys;
	VkDevice device;
	uint32_t family;
	VkQueue queue;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkPipeline scale, add, reduce, square;
	VkShaderModule modules[4];
	VkDescriptorPool dpool;
	VkDescriptorSet set;
	struct buffer data, staging, fill, indirect;
	VkCommandPool pool;
	VkCommandBuffer cb_a, cb_b, cb_s;
	VkFence fence;
};

static bool has_layer(const char *name)
{
	VkLayerProperties props[64];
	uint32_t n = 64;

	if (vkEnumerateInstanceLayerProperties(&n, props) < 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(props[i].layerName, name))
			return true;
	return false;
}

static void make_instance(struct ctx *c, bool validation)
{
	const char *layers[] = { "VK_LAYER_KHRONOS_validation" };
	const char *exts[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "vk_compute",
		.apiVersion = VK_API_VERSION_1_2,
	};
	VkDebugUtilsMessengerCreateInfoEXT mci = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
			VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
			VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
			VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = on_message,
	};
	VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = validation ? &mci : NULL,
		.pApplicationInfo = &app,
		.enabledLayerCount = validation ? 1 : 0,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = exts,
	};
	VkResult r;

	if (validation && !has_layer(layers[0])) {
		fprintf(stderr, "vk_compute: VK_LAYER_KHRONOS_validation is not installed\n");
		exit(SKIP);
	}
	r = vkCreateInstance(&ci, NULL, &c->instance);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vk_compute: no Vulkan instance (%d)\n", (int)r);
		exit(r == VK_ERROR_OUT_OF_HOST_MEMORY ? 1 : SKIP);
	}
	if (validation) {
		PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(c->instance, "vkCreateDebugUtilsMessengerEXT");

		CHECK(create(c->instance, &mci, NULL, &c->messenger));
	}
	set_name = (PFN_vkSetDebugUtilsObjectNameEXT)
		vkGetInstanceProcAddr(c->instance, "vkSetDebugUtilsObjectNameEXT");
	begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)
		vkGetInstanceProcAddr(c->instance, "vkCmdBeginDebugUtilsLabelEXT");
	end_label =
		(PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(c->instance,
								      "vkCmdEndDebugUtilsLabelEXT");
	insert_label = (PFN_vkCmdInsertDebugUtilsLabelEXT)
		vkGetInstanceProcAddr(c->instance, "vkCmdInsertDebugUtilsLabelEXT");
	queue_begin_label = (PFN_vkQueueBeginDebugUtilsLabelEXT)
		vkGetInstanceProcAddr(c->instance, "vkQueueBeginDebugUtilsLabelEXT");
	queue_end_label = (PFN_vkQueueEndDebugUtilsLabelEXT)
		vkGetInstanceProcAddr(c->instance, "vkQueueEndDebugUtilsLabelEXT");
	if (!set_name || !begin_label || !end_label || !insert_label || !queue_begin_label ||
	    !queue_end_label) {
		fprintf(stderr, "vk_compute: VK_EXT_debug_utils functions missing\n");
		exit(1);
	}
}

static void make_device(struct ctx *c)
{
	VkPhysicalDevice pd[16];
	uint32_t n = 16;
	float prio = 1.0f;

	if (vkEnumeratePhysicalDevices(c->instance, &n, pd) < 0 || !n) {
		fprintf(stderr, "vk_compute: no Vulkan device\n");
		exit(SKIP);
	}
	for (uint32_t i = 0; i < n && !c->phys; i++) {
		VkQueueFamilyProperties fam[16];
		uint32_t nf = 16;

		vkGetPhysicalDeviceQueueFamilyProperties(pd[i], &nf, fam);
		for (uint32_t f = 0; f < nf; f++) {
			if ((fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
			    fam[f].timestampValidBits) {
				c->phys = pd[i];
				c->family = f;
				break;
			}
		}
	}
	if (!c->phys) {
		fprintf(stderr, "vk_compute: no device with a compute queue\n");
		exit(SKIP);
	}
	{
		VkDeviceQueueCreateInfo q = {
			.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
			.queueFamilyIndex = c->family,
			.queueCount = 1,
			.pQueuePriorities = &prio,
		};
		VkDeviceCreateInfo ci = {
			.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
			.queueCreateInfoCount = 1,
			.pQueueCreateInfos = &q,
		};

		CHECK(vkCreateDevice(c->phys, &ci, NULL, &c->device));
	}
	vkGetDeviceQueue(c->device, c->family, 0, &c->queue);
}

static void make_buffer(struct ctx *c, struct buffer *b, VkDeviceSize size,
			VkBufferUsageFlags usage)
{
	VkBufferCreateInfo bi = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkMemoryPropertyFlags want =
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	VkPhysicalDeviceMemoryProperties mp;
	VkMemoryRequirements req;
	uint32_t type = UINT32_MAX;

	CHECK(vkCreateBuffer(c->device, &bi, NULL, &b->buf));
	vkGetBufferMemoryRequirements(c->device, b->buf, &req);
	vkGetPhysicalDeviceMemoryProperties(c->phys, &mp);
	for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
		if ((req.memoryTypeBits & (1u << i)) &&
		    (mp.memoryTypes[i].propertyFlags & want) == want)
			type = i;
	if (type == UINT32_MAX) {
		fprintf(stderr, "vk_compute: no host-visible coherent memory\n");
		exit(1);
	}
	{
		VkMemoryAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
			.allocationSize = req.size,
			.memoryTypeIndex = type,
		};

		CHECK(vkAllocateMemory(c->device, &ai, NULL, &b->mem));
	}
	CHECK(vkBindBufferMemory(c->device, b->buf, b->mem, 0));
	CHECK(vkMapMemory(c->device, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map));
}

static VkPipeline make_pipeline(struct ctx *c, int idx, const uint32_t *code, size_t size,
				const char *entry, bool specialize)
{
	VkShaderModuleCreateInfo mi = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	const float one = 1.0f;
	VkSpecializationMapEntry me = { 0, 0, sizeof(float) };
	VkSpecializationInfo spec = { 1, &me, sizeof(one), &one };
	VkComputePipelineCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_COMPUTE_BIT,
			.pName = entry,
			.pSpecializationInfo = specialize ? &spec : NULL,
		},
	};
	VkPipeline p;

	CHECK(vkCreateShaderModule(c->device, &mi, NULL, &c->modules[idx]));
	pi.stage.module = c->modules[idx];
	pi.layout = c->layout;
	CHECK(vkCreateComputePipelines(c->device, VK_NULL_HANDLE, 1, &pi, NULL, &p));
	return p;
}

static void name_object(struct ctx *c, VkObjectType type, uint64_t handle, const char *name)
{
	VkDebugUtilsObjectNameInfoEXT ni = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
		.objectType = type,
		.objectHandle = handle,
		.pObjectName = name,
	};

	CHECK(set_name(c->device, &ni));
}

static void make_pipelines(struct ctx *c)
{
	VkDescriptorSetLayoutBinding b = {
		.binding = 0,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.descriptorCount = 1,
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
	};
	VkDescriptorSetLayoutCreateInfo dl = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 1,
		.pBindings = &b,
	};
	VkPushConstantRange pc = { VK_SHADER_STAGE_COMPUTE_BIT, 0, 8 };
	VkPipelineLayoutCreateInfo pl = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &pc,
	};

	CHECK(vkCreateDescriptorSetLayout(c->device, &dl, NULL, &c->dsl));
	pl.pSetLayouts = &c->dsl;
	CHECK(vkCreatePipelineLayout(c->device, &pl, NULL, &c->layout));
	c->scale = make_pipeline(c, 0, scale_spv, sizeof(scale_spv), "main", false);
	c->add = make_pipeline(c, 1, add_spv, sizeof(add_spv), "main", false);
	c->reduce = make_pipeline(c, 2, reduce_spv, sizeof(reduce_spv), "reduce_sum", false);
	c->square = make_pipeline(c, 3, square_spv, sizeof(square_spv), "main", true);
	name_object(c, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)c->add, "add_pipeline");
}

static void make_descriptors(struct ctx *c)
{
	VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
	VkDescriptorPoolCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 1,
		.poolSizeCount = 1,
		.pPoolSizes = &ps,
	};
	VkDescriptorSetAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorSetCount = 1,
	};
	VkDescriptorBufferInfo bi = { 0, 0, VK_WHOLE_SIZE };
	VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstBinding = 0,
		.descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.pBufferInfo = &bi,
	};

	CHECK(vkCreateDescriptorPool(c->device, &pi, NULL, &c->dpool));
	ai.descriptorPool = c->dpool;
	ai.pSetLayouts = &c->dsl;
	CHECK(vkAllocateDescriptorSets(c->device, &ai, &c->set));
	bi.buffer = c->data.buf;
	w.dstSet = c->set;
	vkUpdateDescriptorSets(c->device, 1, &w, 0, NULL);
}

/* Everything before is visible to everything after (a coarse, always-correct barrier). */
static void barrier(VkCommandBuffer cb)
{
	VkMemoryBarrier mb = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
	};

	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

static void label(VkCommandBuffer cb, const char *name, bool insert)
{
	VkDebugUtilsLabelEXT l = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
				   .pLabelName = name };

	if (insert)
		insert_label(cb, &l);
	else
		begin_label(cb, &l);
}

static void bind(struct ctx *c, VkCommandBuffer cb, VkPipeline p, float factor)
{
	struct {
		float factor;
		uint32_t n;
	} push = { factor, N };

	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout, 0, 1, &c->set, 0,
				NULL);
	vkCmdPushConstants(cb, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
}

static void begin(VkCommandBuffer cb, const VkCommandBufferInheritanceInfo *inh)
{
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.pInheritanceInfo = inh,
	};

	CHECK(vkBeginCommandBuffer(cb, &bi));
}

/* cb_a: 5 dispatches, 3 copies (see the file comment). */
static void record_a(struct ctx *c)
{
	VkCommandBuffer cb = c->cb_a;
	VkBufferCopy up = { 0, 0, N * sizeof(float) };

	begin(cb, NULL);
	barrier(cb); /* after whatever ran before in the same batch */
	label(cb, "upload", false);
	vkCmdCopyBuffer(cb, c->staging.buf, c->data.buf, 1, &up);
	end_label(cb);
	barrier(cb);
	label(cb, "scale_pass", false);
	bind(c, cb, c->scale, 2.0f);
	vkCmdDispatch(cb, GROUPS, 1, 1);
	barrier(cb);
	vkCmdDispatch(cb, GROUPS, 1, 1);
	end_label(cb);
	barrier(cb);
	bind(c, cb, c->add, 1.0f);
	vkCmdDispatch(cb, GROUPS, 1, 1);
	barrier(cb);
	bind(c, cb, c->reduce, 1.0f);
	vkCmdDispatch(cb, GROUPS, 1, 1);
	barrier(cb);
	bind(c, cb, c->square, 1.0f);
	vkCmdDispatch(cb, GROUPS, 1, 1);
	barrier(cb);
	label(cb, "marker_fill", true);
	vkCmdFillBuffer(cb, c->fill.buf, 0, VK_WHOLE_SIZE, 0);
	barrier(cb);
	vkCmdCopyBuffer(cb, c->data.buf, c->staging.buf, 1, &up);
	CHECK(vkEndCommandBuffer(cb));
}

/* cb_b: 1 indirect dispatch, 1 update, 1 secondary. */
static void record_b(struct ctx *c)
{
	VkCommandBufferInheritanceInfo inh = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
	};
	const uint32_t words[4] = { 1, 2, 3, 4 };

	begin(c->cb_s, &inh);
	bind(c, c->cb_s, c->add, 0.0f);
	vkCmdDispatch(c->cb_s, GROUPS, 1, 1);
	CHECK(vkEndCommandBuffer(c->cb_s));

	begin(c->cb_b, NULL);
	label(c->cb_b, "indirect_pass", false);
	bind(c, c->cb_b, c->scale, 2.0f);
	vkCmdDispatchIndirect(c->cb_b, c->indirect.buf, 0);
	end_label(c->cb_b);
	barrier(c->cb_b);
	vkCmdUpdateBuffer(c->cb_b, c->fill.buf, 0, sizeof(words), words);
	barrier(c->cb_b);
	vkCmdExecuteCommands(c->cb_b, 1, &c->cb_s);
	barrier(c->cb_b);
	CHECK(vkEndCommandBuffer(c->cb_b));
}

static void submit(struct ctx *c, const VkCommandBuffer *cbs, uint32_t n, VkFence fence)
{
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = n,
		.pCommandBuffers = cbs,
	};

	CHECK(vkQueueSubmit(c->queue, 1, &si, fence));
}

static void cleanup(struct ctx *c)
{
	struct buffer *bufs[] = { &c->data, &c->staging, &c->fill, &c->indirect };

	vkDestroyFence(c->device, c->fence, NULL);
	vkDestroyCommandPool(c->device, c->pool, NULL);
	vkDestroyDescriptorPool(c->device, c->dpool, NULL);
	for (size_t i = 0; i < 4; i++) {
		vkDestroyBuffer(c->device, bufs[i]->buf, NULL);
		vkFreeMemory(c->device, bufs[i]->mem, NULL);
	}
	vkDestroyPipeline(c->device, c->scale, NULL);
	vkDestroyPipeline(c->device, c->add, NULL);
	vkDestroyPipeline(c->device, c->reduce, NULL);
	vkDestroyPipeline(c->device, c->square, NULL);
	for (size_t i = 0; i < 4; i++)
		vkDestroyShaderModule(c->device, c->modules[i], NULL);
	vkDestroyPipelineLayout(c->device, c->layout, NULL);
	vkDestroyDescriptorSetLayout(c->device, c->dsl, NULL);
	vkDestroyDevice(c->device, NULL);
	if (c->messenger) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(c->instance, "vkDestroyDebugUtilsMessengerEXT");

		destroy(c->instance, c->messenger, NULL);
	}
	vkDestroyInstance(c->instance, NULL);
}

int main(int argc, char **argv)
{
	bool validation = argc > 1 && !strcmp(argv[1], "--validation");
	struct ctx c;
	float *staging;
	uint32_t *ind;
	VkCommandBuffer both[2];
	unsigned bad = 0;

	memset(&c, 0, sizeof(c));
	make_instance(&c, validation);
	make_device(&c);
	make_pipelines(&c);
	make_buffer(&c, &c.data, N * sizeof(float),
		    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
			    VK_BUFFER_USAGE_TRANSFER_DST_BIT);
	make_buffer(&c, &c.staging, N * sizeof(float),
		    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
	make_buffer(&c, &c.fill, N * sizeof(float),
		    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
	make_buffer(&c, &c.indirect, sizeof(VkDispatchIndirectCommand),
		    VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
	make_descriptors(&c);
	staging = c.staging.map;
	for (uint32_t i = 0; i < N; i++)
		staging[i] = (float)i;
	ind = c.indirect.map;
	ind[0] = GROUPS;
	ind[1] = 1;
	ind[2] = 1;

	{
		VkCommandPoolCreateInfo pi = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
			.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
			.queueFamilyIndex = c.family,
		};
		VkCommandBufferAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 1,
		};
		VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };

		CHECK(vkCreateCommandPool(c.device, &pi, NULL, &c.pool));
		ai.commandPool = c.pool;
		CHECK(vkAllocateCommandBuffers(c.device, &ai, &c.cb_a));
		CHECK(vkAllocateCommandBuffers(c.device, &ai, &c.cb_b));
		ai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
		CHECK(vkAllocateCommandBuffers(c.device, &ai, &c.cb_s));
		CHECK(vkCreateFence(c.device, &fi, NULL, &c.fence));
	}
	name_object(&c, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)c.cb_a, "frame_cb");

	record_a(&c);
	submit(&c, &c.cb_a, 1, c.fence); /* staging = 4i */
	CHECK(vkWaitForFences(c.device, 1, &c.fence, VK_TRUE, UINT64_MAX));
	submit(&c, &c.cb_a, 1, VK_NULL_HANDLE); /* the same recording again: 16i */
	CHECK(vkQueueWaitIdle(c.queue));
	record_b(&c);
	record_a(&c);
	both[0] = c.cb_b;
	both[1] = c.cb_a;
	{
		VkDebugUtilsLabelEXT ql = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
					    .pLabelName = "frame3" };

		queue_begin_label(c.queue, &ql);
		submit(&c, both, 2, VK_NULL_HANDLE); /* data 32i, then staging -> 64i */
		queue_end_label(c.queue);
	}
	CHECK(vkDeviceWaitIdle(c.device));

	for (uint32_t i = 0; i < N; i++)
		if (staging[i] != 64.0f * (float)i)
			bad++;
	if (bad)
		fprintf(stderr, "vk_compute: %u of %u results wrong (staging[1] = %g)\n", bad, N,
			(double)staging[1]);
	cleanup(&c);
	if (bad)
		return 1;
	if (validation_errors) {
		fprintf(stderr, "vk_compute: %d validation error(s)\n", validation_errors);
		return 1;
	}
	printf("vk_compute: ok dispatches=16 copies=10 cmdbufs=4 submits=3\n");
	return 0;
}
