/*
 * vk_hostile - a Vulkan compute program that stays within valid usage but walks the edges the
 * timing layer (collectors/vulkan/layer) has to survive. It knows nothing of renacer: the layer is
 * injected. Each case prints a checksum of its GPU results; the test
 * (tests/integration/vulkan/tests.cmake, vulkan.hostile.*) requires the same output with and
 * without the layer in every mode.
 *
 *   case 1 lifetimes: command buffers submitted, then their pool destroyed or the buffers
 *          freed after a timeline-semaphore wait (a wait the layer does not see, so it has not
 *          harvested yet); vkResetCommandBuffer, implicit reset at vkBeginCommandBuffer,
 *          vkResetCommandPool, a recorded buffer freed without ever being submitted.
 *   case 2 the application's own 65536-query timestamp pool, its timestamps interleaved with
 *          dispatches (and the layer's timestamps around them), read back with WAIT_BIT.
 *   case 3 device A is created with hostQueryReset explicitly off and no calibrated
 *          timestamps (the layer must fall back to in-stream resets); device B, on the same
 *          physical device with no feature structs, is created, used, and destroyed while
 *          device A has work in flight.
 *   case 4 vkWaitForFences, vkGetFenceStatus polling, vkQueueWaitIdle, vkDeviceWaitIdle, and
 *          a queue family without timestamps when the device has one.
 *   case 5 secondary command buffers (one SIMULTANEOUS_USE, executed twice) and a
 *          SIMULTANEOUS_USE primary pending twice in one submit.
 *   case 6 TINY separate submits of tiny command buffers with no wait between them, then the
 *          same buffers again in batches of 100.
 *
 * Usage: vk_hostile [--validation]
 *   --validation  enable VK_LAYER_KHRONOS_validation; any error message makes the program
 *                 exit 1.
 * Exit: 0 success, 1 failure, 77 no Vulkan instance/device (or no validation layer when asked).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "add.spv.h"
#include "scale.spv.h"

#define N 1024u            /* floats per buffer */
#define GROUPS (N / 64u)   /* workgroups of one dispatch */
#define APP_QUERIES 65536u /* timestamps in the application's own pool */
#define TINY 2000u         /* tiny command buffers of case 6 */
#define TINY_BATCH 100u    /* command buffers per batch in the second round of case 6 */
#define SKIP 77

static int validation_errors;

#define CHECK(call)                                                                                \
	do {                                                                                       \
		VkResult r_ = (call);                                                              \
		if (r_ != VK_SUCCESS) {                                                            \
			fprintf(stderr, "vk_hostile:%d: %s failed: %d\n", __LINE__, #call,         \
				(int)r_);                                                          \
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
		fprintf(stderr, "vk_hostile: validation error: %s\n", data->pMessage);
	}
	return VK_FALSE;
}

struct buffer {
	VkBuffer buf;
	VkDeviceMemory mem;
	float *map;
};

/* One VkDevice with what every case needs: two pipelines over one storage buffer. */
struct dev {
	VkPhysicalDevice phys;
	VkDevice device;
	uint32_t family; /* compute family with timestamps */
	VkQueue queue;
	uint32_t notime_family; /* family without timestamps, UINT32_MAX if none */
	VkQueue notime_queue;
	uint32_t valid_bits; /* timestampValidBits of `family` */
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkShaderModule mscale, madd;
	VkPipeline scale, add;
	VkDescriptorPool dpool;
	VkDescriptorSet set;
	struct buffer data;
};

static VkInstance instance;
static VkDebugUtilsMessengerEXT messenger;
static PFN_vkWaitSemaphores wait_semaphores;

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

static void make_instance(bool validation)
{
	const char *layers[] = { "VK_LAYER_KHRONOS_validation" };
	const char *exts[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "vk_hostile",
		.apiVersion = VK_API_VERSION_1_2,
	};
	VkDebugUtilsMessengerCreateInfoEXT mci = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
			VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		.pfnUserCallback = on_message,
	};
	VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = validation ? &mci : NULL,
		.pApplicationInfo = &app,
		.enabledLayerCount = validation ? 1 : 0,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = validation ? 1 : 0,
		.ppEnabledExtensionNames = exts,
	};
	VkResult r;

	if (validation && !has_layer(layers[0])) {
		fprintf(stderr, "vk_hostile: VK_LAYER_KHRONOS_validation is not installed\n");
		exit(SKIP);
	}
	r = vkCreateInstance(&ci, NULL, &instance);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vk_hostile: no Vulkan instance (%d)\n", (int)r);
		exit(r == VK_ERROR_OUT_OF_HOST_MEMORY ? 1 : SKIP);
	}
	if (validation) {
		PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT");

		CHECK(create(instance, &mci, NULL, &messenger));
	}
}

/* A Vulkan 1.2 device with a compute family that has timestamps. */
static void pick_physical(struct dev *d)
{
	VkPhysicalDevice pd[16];
	uint32_t n = 16;

	if (vkEnumeratePhysicalDevices(instance, &n, pd) < 0 || !n) {
		fprintf(stderr, "vk_hostile: no Vulkan device\n");
		exit(SKIP);
	}
	for (uint32_t i = 0; i < n && !d->phys; i++) {
		VkQueueFamilyProperties fam[16];
		VkPhysicalDeviceProperties props;
		uint32_t nf = 16;

		vkGetPhysicalDeviceProperties(pd[i], &props);
		if (props.apiVersion < VK_API_VERSION_1_2)
			continue;
		vkGetPhysicalDeviceQueueFamilyProperties(pd[i], &nf, fam);
		for (uint32_t f = 0; f < nf; f++) {
			if ((fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
			    fam[f].timestampValidBits) {
				d->phys = pd[i];
				d->family = f;
				d->valid_bits = fam[f].timestampValidBits;
				break;
			}
		}
		d->notime_family = UINT32_MAX;
		for (uint32_t f = 0; f < nf && d->phys; f++)
			if ((fam[f].queueFlags &
			     (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT |
			      VK_QUEUE_GRAPHICS_BIT)) &&
			    !fam[f].timestampValidBits && fam[f].queueCount)
				d->notime_family = f;
	}
	if (!d->phys) {
		fprintf(stderr, "vk_hostile: no Vulkan 1.2 device with a timed compute queue\n");
		exit(SKIP);
	}
}

/*
 * `minimal`: no feature structures at all (the layer may add its own). Otherwise a
 * VkPhysicalDeviceVulkan12Features that decides hostQueryReset = VK_FALSE and enables only
 * timelineSemaphore, and no extensions: the layer must not turn host query reset on.
 */
static void make_device(struct dev *d, const struct dev *like, bool minimal)
{
	VkPhysicalDeviceVulkan12Features have = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
	};
	VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
					 .pNext = &have };
	VkPhysicalDeviceVulkan12Features want = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.hostQueryReset = VK_FALSE,
	};
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q[2] = {
		{ .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		  .queueCount = 1,
		  .pQueuePriorities = &prio },
		{ .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		  .queueCount = 1,
		  .pQueuePriorities = &prio },
	};
	VkDeviceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = q,
	};

	if (like) {
		d->phys = like->phys;
		d->family = like->family;
		d->valid_bits = like->valid_bits;
		d->notime_family = like->notime_family;
	} else {
		pick_physical(d);
	}
	q[0].queueFamilyIndex = d->family;
	if (!minimal) {
		vkGetPhysicalDeviceFeatures2(d->phys, &f2);
		if (!have.timelineSemaphore) {
			fprintf(stderr, "vk_hostile: no timeline semaphores\n");
			exit(SKIP);
		}
		want.timelineSemaphore = VK_TRUE;
		ci.pNext = &want;
		if (d->notime_family != UINT32_MAX) {
			q[1].queueFamilyIndex = d->notime_family;
			ci.queueCreateInfoCount = 2;
		}
	} else {
		d->notime_family = UINT32_MAX;
	}
	CHECK(vkCreateDevice(d->phys, &ci, NULL, &d->device));
	vkGetDeviceQueue(d->device, d->family, 0, &d->queue);
	if (d->notime_family != UINT32_MAX)
		vkGetDeviceQueue(d->device, d->notime_family, 0, &d->notime_queue);
}

static void make_buffer(struct dev *d, struct buffer *b, VkDeviceSize size,
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
	void *map;

	CHECK(vkCreateBuffer(d->device, &bi, NULL, &b->buf));
	vkGetBufferMemoryRequirements(d->device, b->buf, &req);
	vkGetPhysicalDeviceMemoryProperties(d->phys, &mp);
	for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
		if ((req.memoryTypeBits & (1u << i)) &&
		    (mp.memoryTypes[i].propertyFlags & want) == want)
			type = i;
	if (type == UINT32_MAX) {
		fprintf(stderr, "vk_hostile: no host-visible coherent memory\n");
		exit(1);
	}
	{
		VkMemoryAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
			.allocationSize = req.size,
			.memoryTypeIndex = type,
		};

		CHECK(vkAllocateMemory(d->device, &ai, NULL, &b->mem));
	}
	CHECK(vkBindBufferMemory(d->device, b->buf, b->mem, 0));
	CHECK(vkMapMemory(d->device, b->mem, 0, VK_WHOLE_SIZE, 0, &map));
	b->map = map;
}

static VkPipeline make_pipeline(struct dev *d, VkShaderModule *m, const uint32_t *code, size_t size)
{
	VkShaderModuleCreateInfo mi = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	VkComputePipelineCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_COMPUTE_BIT,
			.pName = "main",
		},
	};
	VkPipeline p;

	CHECK(vkCreateShaderModule(d->device, &mi, NULL, m));
	pi.stage.module = *m;
	pi.layout = d->layout;
	CHECK(vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &pi, NULL, &p));
	return p;
}

static void make_resources(struct dev *d)
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
	VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
	VkDescriptorPoolCreateInfo dpi = {
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

	CHECK(vkCreateDescriptorSetLayout(d->device, &dl, NULL, &d->dsl));
	pl.pSetLayouts = &d->dsl;
	CHECK(vkCreatePipelineLayout(d->device, &pl, NULL, &d->layout));
	d->scale = make_pipeline(d, &d->mscale, scale_spv, sizeof(scale_spv));
	d->add = make_pipeline(d, &d->madd, add_spv, sizeof(add_spv));
	make_buffer(d, &d->data, N * sizeof(float),
		    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
	CHECK(vkCreateDescriptorPool(d->device, &dpi, NULL, &d->dpool));
	ai.descriptorPool = d->dpool;
	ai.pSetLayouts = &d->dsl;
	CHECK(vkAllocateDescriptorSets(d->device, &ai, &d->set));
	bi.buffer = d->data.buf;
	w.dstSet = d->set;
	vkUpdateDescriptorSets(d->device, 1, &w, 0, NULL);
}

static void destroy_dev(struct dev *d)
{
	vkDestroyDescriptorPool(d->device, d->dpool, NULL);
	vkDestroyBuffer(d->device, d->data.buf, NULL);
	vkFreeMemory(d->device, d->data.mem, NULL);
	vkDestroyPipeline(d->device, d->scale, NULL);
	vkDestroyPipeline(d->device, d->add, NULL);
	vkDestroyShaderModule(d->device, d->mscale, NULL);
	vkDestroyShaderModule(d->device, d->madd, NULL);
	vkDestroyPipelineLayout(d->device, d->layout, NULL);
	vkDestroyDescriptorSetLayout(d->device, d->dsl, NULL);
	vkDestroyDevice(d->device, NULL);
}

/* ---- Recording helpers ------------------------------------------------------------------ */

/* Everything before (in this and earlier submissions) is visible to everything after. */
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

/* data[i] = data[i] * factor (scale) or data[i] + factor (add), after a barrier. */
static void op(struct dev *d, VkCommandBuffer cb, bool scale, float factor)
{
	struct {
		float factor;
		uint32_t n;
	} push = { factor, N };

	barrier(cb);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, scale ? d->scale : d->add);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, 1, &d->set, 0,
				NULL);
	vkCmdPushConstants(cb, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
	vkCmdDispatch(cb, GROUPS, 1, 1);
	barrier(cb);
}

static void begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags,
		  const VkCommandBufferInheritanceInfo *inh)
{
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = flags,
		.pInheritanceInfo = inh,
	};

	CHECK(vkBeginCommandBuffer(cb, &bi));
}

/* A primary recording of one operation. */
static void record_op(struct dev *d, VkCommandBuffer cb, bool scale, float factor)
{
	begin(cb, 0, NULL);
	op(d, cb, scale, factor);
	CHECK(vkEndCommandBuffer(cb));
}

static VkCommandPool make_pool(struct dev *d, uint32_t family, VkCommandPoolCreateFlags flags)
{
	VkCommandPoolCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = flags,
		.queueFamilyIndex = family,
	};
	VkCommandPool p;

	CHECK(vkCreateCommandPool(d->device, &pi, NULL, &p));
	return p;
}

static void alloc_cbs(struct dev *d, VkCommandPool pool, VkCommandBufferLevel level, uint32_t n,
		      VkCommandBuffer *cbs)
{
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = level,
		.commandBufferCount = n,
	};

	CHECK(vkAllocateCommandBuffers(d->device, &ai, cbs));
}

static void submit(VkQueue q, const VkCommandBuffer *cbs, uint32_t n, VkFence fence)
{
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = n,
		.pCommandBuffers = cbs,
	};

	CHECK(vkQueueSubmit(q, 1, &si, fence));
}

/* Submit and signal `value` on timeline `sem`; wait for it with vkWaitSemaphores, a wait
 * the layer does not hook, so its harvest has not run when the application frees things. */
static void submit_timeline(VkQueue q, const VkCommandBuffer *cbs, uint32_t n, VkSemaphore sem,
			    uint64_t value)
{
	VkTimelineSemaphoreSubmitInfo ti = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &value,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = &ti,
		.commandBufferCount = n,
		.pCommandBuffers = cbs,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &sem,
	};

	CHECK(vkQueueSubmit(q, 1, &si, VK_NULL_HANDLE));
}

static void wait_timeline(struct dev *d, VkSemaphore sem, uint64_t value)
{
	VkSemaphoreWaitInfo wi = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &sem,
		.pValues = &value,
	};

	CHECK(wait_semaphores(d->device, &wi, UINT64_MAX));
}

static VkSemaphore make_timeline(struct dev *d)
{
	VkSemaphoreTypeCreateInfo ti = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkSemaphoreCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
				     .pNext = &ti };
	VkSemaphore s;

	CHECK(vkCreateSemaphore(d->device, &si, NULL, &s));
	return s;
}

static VkFence make_fence(struct dev *d)
{
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkFence f;

	CHECK(vkCreateFence(d->device, &fi, NULL, &f));
	return f;
}

static void fill_data(struct dev *d)
{
	for (uint32_t i = 0; i < N; i++)
		d->data.map[i] = (float)(i % 97u);
}

/* FNV-1a of the buffer's bytes, checked against the host's expectation f(i % 97). */
static uint64_t result(const char *what, struct dev *d, float (*expect)(float))
{
	uint64_t h = 14695981039346656037u;
	const uint8_t *p = (const uint8_t *)d->data.map;
	unsigned bad = 0;

	for (size_t i = 0; i < N * sizeof(float); i++)
		h = (h ^ p[i]) * 1099511628211u;
	for (uint32_t i = 0; i < N; i++)
		if (d->data.map[i] != expect((float)(i % 97u)))
			bad++;
	if (bad) {
		fprintf(stderr, "vk_hostile: %s: %u of %u results wrong (data[1] = %g, want %g)\n",
			what, bad, N, (double)d->data.map[1], (double)expect(1.0f));
		exit(1);
	}
	return h;
}

/* ---- The cases -------------------------------------------------------------------------- */

/* What case 1 submits, step by step. */
static float expect_case1(float x)
{
	x = x * 2.0f; /* pool destroyed */
	x = x + 1.0f; /* freed */
	x = x * 5.0f; /* then reset */
	x = x + 2.0f; /* re-recorded */
	x = x * 3.0f; /* implicit reset at begin */
	x = x + 4.0f; /* pool reset, re-recorded */
	x = x + 4.0f; /* re-submitted unchanged */
	return x;
}

static uint64_t case_lifetimes(struct dev *d)
{
	VkSemaphore sem = make_timeline(d);
	uint64_t t = 0;
	VkCommandPool p1, p2, p3;
	VkCommandBuffer cb[3];

	fill_data(d);
	/* Pool destroyed right after an unhooked wait. */
	p1 = make_pool(d, d->family, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT);
	alloc_cbs(d, p1, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 2, cb);
	record_op(d, cb[0], true, 2.0f);
	record_op(d, cb[1], false, 0.0f); /* recorded, never submitted */
	submit_timeline(d->queue, cb, 1, sem, ++t);
	wait_timeline(d, sem, t);
	vkDestroyCommandPool(d->device, p1, NULL);

	/* Buffers freed right after an unhooked wait, one of them never submitted. */
	p2 = make_pool(d, d->family, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
	alloc_cbs(d, p2, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 3, cb);
	record_op(d, cb[0], false, 1.0f);
	record_op(d, cb[2], true, 0.0f);
	submit_timeline(d->queue, cb, 1, sem, ++t);
	wait_timeline(d, sem, t);
	vkFreeCommandBuffers(d->device, p2, 1, &cb[0]);
	vkFreeCommandBuffers(d->device, p2, 1, &cb[2]);

	/* vkResetCommandBuffer of a completed, unharvested buffer, then re-recording. */
	record_op(d, cb[1], true, 5.0f);
	submit_timeline(d->queue, &cb[1], 1, sem, ++t);
	wait_timeline(d, sem, t);
	CHECK(vkResetCommandBuffer(cb[1], 0));
	record_op(d, cb[1], false, 2.0f);
	submit_timeline(d->queue, &cb[1], 1, sem, ++t);
	wait_timeline(d, sem, t);
	/* Implicit reset by vkBeginCommandBuffer (the pool allows it). */
	record_op(d, cb[1], true, 3.0f);
	submit_timeline(d->queue, &cb[1], 1, sem, ++t);
	wait_timeline(d, sem, t);

	/* vkResetCommandPool of a pool without the reset flag, re-record, submit twice. */
	p3 = make_pool(d, d->family, 0);
	alloc_cbs(d, p3, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1, cb);
	record_op(d, cb[0], true, 7.0f);
	CHECK(vkResetCommandPool(d->device, p3, 0)); /* recorded, not submitted */
	record_op(d, cb[0], false, 4.0f);
	submit_timeline(d->queue, cb, 1, sem, ++t);
	wait_timeline(d, sem, t);
	submit_timeline(d->queue, cb, 1, sem, ++t);
	wait_timeline(d, sem, t);
	CHECK(vkResetCommandPool(d->device, p3, VK_COMMAND_POOL_RESET_RELEASE_RESOURCES_BIT));

	vkDestroyCommandPool(d->device, p2, NULL);
	vkDestroyCommandPool(d->device, p3, NULL);
	vkDestroySemaphore(d->device, sem, NULL);
	return result("lifetimes", d, expect_case1);
}

static float expect_case2(float x)
{
	for (int i = 0; i < 64; i++)
		x = x + 1.0f;
	return x;
}

/* The application's own APP_QUERIES-query pool, reset in-stream (device A has no host
 * reset), timestamps between dispatches and in bulk; all must come back available. */
static uint64_t case_app_queries(struct dev *d, uint32_t *available)
{
	VkQueryPoolCreateInfo qi = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = APP_QUERIES,
	};
	uint64_t mask = d->valid_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << d->valid_bits) - 1;
	VkCommandPool pool = make_pool(d, d->family, 0);
	VkFence fence = make_fence(d);
	VkQueryPool qp;
	VkCommandBuffer cb;
	uint64_t *v;
	uint32_t q = 0;

	fill_data(d);
	CHECK(vkCreateQueryPool(d->device, &qi, NULL, &qp));
	alloc_cbs(d, pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1, &cb);
	begin(cb, 0, NULL);
	vkCmdResetQueryPool(cb, qp, 0, APP_QUERIES);
	for (int i = 0; i < 64; i++) {
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, q++);
		op(d, cb, false, 1.0f);
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, q++);
	}
	while (q < APP_QUERIES)
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, q++);
	CHECK(vkEndCommandBuffer(cb));
	submit(d->queue, &cb, 1, fence);
	CHECK(vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX));

	v = calloc(2 * (size_t)APP_QUERIES, sizeof(*v));
	if (!v) {
		fprintf(stderr, "vk_hostile: out of memory\n");
		exit(1);
	}
	CHECK(vkGetQueryPoolResults(d->device, qp, 0, APP_QUERIES,
				    2 * (size_t)APP_QUERIES * sizeof(*v), v, 2 * sizeof(*v),
				    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT |
					    VK_QUERY_RESULT_WITH_AVAILABILITY_BIT));
	*available = 0;
	for (uint32_t i = 0; i < APP_QUERIES; i++)
		*available += v[2 * i + 1] && !(v[2 * i] & ~mask);
	free(v);
	vkDestroyQueryPool(d->device, qp, NULL);
	vkDestroyFence(d->device, fence, NULL);
	vkDestroyCommandPool(d->device, pool, NULL);
	return result("app queries", d, expect_case2);
}

static float expect_case3a(float x)
{
	return (x + 10.0f) * 2.0f;
}

static float expect_case3b(float x)
{
	return x * 3.0f + 6.0f;
}

/* A second device on the same physical device, used and destroyed while device A works. */
static uint64_t case_second_device(struct dev *a, uint64_t *hash_b)
{
	struct dev b;
	VkSemaphore sem = make_timeline(a);
	VkCommandPool pa = make_pool(a, a->family, 0), pb;
	VkCommandBuffer ca, cbb[2];
	VkFence fb;
	uint64_t h;

	memset(&b, 0, sizeof(b));
	make_device(&b, a, true);
	make_resources(&b);
	fill_data(a);
	fill_data(&b);
	pb = make_pool(&b, b.family, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
	fb = make_fence(&b);
	alloc_cbs(&b, pb, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 2, cbb);
	record_op(&b, cbb[0], true, 3.0f);
	record_op(&b, cbb[1], false, 6.0f);
	submit(b.queue, cbb, 2, fb);

	/* Device A: a long command buffer in flight while device B goes away. */
	alloc_cbs(a, pa, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1, &ca);
	begin(ca, 0, NULL);
	for (int i = 0; i < 10; i++)
		op(a, ca, false, 1.0f);
	op(a, ca, true, 2.0f);
	CHECK(vkEndCommandBuffer(ca));
	submit_timeline(a->queue, &ca, 1, sem, 1);

	CHECK(vkWaitForFences(b.device, 1, &fb, VK_TRUE, UINT64_MAX));
	*hash_b = result("second device", &b, expect_case3b);
	vkDestroyFence(b.device, fb, NULL);
	vkDestroyCommandPool(b.device, pb, NULL);
	destroy_dev(&b);

	wait_timeline(a, sem, 1);
	h = result("first device", a, expect_case3a);
	vkDestroyCommandPool(a->device, pa, NULL);
	vkDestroySemaphore(a->device, sem, NULL);
	return h;
}

static float expect_case4(float x)
{
	return x + 4.0f;
}

/* Every host wait path, and a family without timestamps when there is one. */
static uint64_t case_waits(struct dev *d, uint32_t *notime_ok)
{
	VkCommandPool pool =
		make_pool(d, d->family, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
	VkFence fence = make_fence(d);
	VkCommandBuffer cb[4];
	VkResult r;

	fill_data(d);
	alloc_cbs(d, pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 4, cb);
	for (int i = 0; i < 4; i++)
		record_op(d, cb[i], false, 1.0f);
	submit(d->queue, &cb[0], 1, fence);
	CHECK(vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX));
	CHECK(vkResetFences(d->device, 1, &fence));
	submit(d->queue, &cb[1], 1, fence);
	do
		r = vkGetFenceStatus(d->device, fence);
	while (r == VK_NOT_READY);
	CHECK(r);
	submit(d->queue, &cb[2], 1, VK_NULL_HANDLE);
	CHECK(vkQueueWaitIdle(d->queue));
	submit(d->queue, &cb[3], 1, VK_NULL_HANDLE);
	CHECK(vkDeviceWaitIdle(d->device));

	*notime_ok = 0;
	if (d->notime_family != UINT32_MAX) {
		VkCommandPool np = make_pool(d, d->notime_family, 0);
		VkCommandBuffer ncb;
		struct buffer nb;

		make_buffer(d, &nb, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
		alloc_cbs(d, np, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1, &ncb);
		begin(ncb, 0, NULL);
		vkCmdFillBuffer(ncb, nb.buf, 0, VK_WHOLE_SIZE, 0x01020304u);
		CHECK(vkEndCommandBuffer(ncb));
		submit(d->notime_queue, &ncb, 1, VK_NULL_HANDLE);
		CHECK(vkQueueWaitIdle(d->notime_queue));
		*notime_ok = ((uint32_t *)(void *)nb.map)[63] == 0x01020304u;
		vkDestroyCommandPool(d->device, np, NULL);
		vkDestroyBuffer(d->device, nb.buf, NULL);
		vkFreeMemory(d->device, nb.mem, NULL);
	}
	vkDestroyFence(d->device, fence, NULL);
	vkDestroyCommandPool(d->device, pool, NULL);
	return result("waits", d, expect_case4);
}

static float expect_case5(float x)
{
	/* Twice: secondary (+1), simultaneous secondary (x2), the simultaneous primary (x2)
	 * pending twice in the batch. */
	for (int i = 0; i < 2; i++)
		x = (x + 1.0f) * 2.0f * 2.0f * 2.0f;
	return x;
}

static uint64_t case_secondaries(struct dev *d)
{
	VkCommandBufferInheritanceInfo inh = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
	};
	VkCommandPool pool = make_pool(d, d->family, 0);
	VkFence fence = make_fence(d);
	VkCommandBuffer sec[2], prim[2], batch[3];

	fill_data(d);
	alloc_cbs(d, pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY, 2, sec);
	alloc_cbs(d, pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 2, prim);
	begin(sec[0], 0, &inh);
	op(d, sec[0], false, 1.0f);
	CHECK(vkEndCommandBuffer(sec[0]));
	begin(sec[1], VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT, &inh);
	op(d, sec[1], true, 2.0f);
	CHECK(vkEndCommandBuffer(sec[1]));

	/* prim[0]: a plain primary executing the secondaries. */
	begin(prim[0], 0, NULL);
	vkCmdExecuteCommands(prim[0], 1, &sec[0]);
	vkCmdExecuteCommands(prim[0], 1, &sec[1]);
	barrier(prim[0]);
	CHECK(vkEndCommandBuffer(prim[0]));
	/* prim[1]: SIMULTANEOUS_USE, submitted twice in one batch (pending twice at once). */
	begin(prim[1], VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT, NULL);
	op(d, prim[1], true, 2.0f);
	CHECK(vkEndCommandBuffer(prim[1]));

	/* prim[0] may not be pending twice, so two submits of the batch. */
	batch[0] = prim[0];
	batch[1] = prim[1];
	batch[2] = prim[1];
	submit(d->queue, batch, 3, fence);
	CHECK(vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX));
	CHECK(vkResetFences(d->device, 1, &fence));
	submit(d->queue, batch, 3, fence);
	CHECK(vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX));

	vkDestroyFence(d->device, fence, NULL);
	vkDestroyCommandPool(d->device, pool, NULL);
	return result("secondaries", d, expect_case5);
}

static float expect_case6(float x)
{
	return x + (float)(2 * TINY);
}

/* TINY separate submits with no host wait between them, then the same in batches. */
static uint64_t case_tiny_submits(struct dev *d)
{
	VkCommandPool pool = make_pool(d, d->family, 0);
	VkFence fence = make_fence(d);
	VkCommandBuffer *cbs = calloc(TINY, sizeof(*cbs));

	if (!cbs) {
		fprintf(stderr, "vk_hostile: out of memory\n");
		exit(1);
	}
	fill_data(d);
	alloc_cbs(d, pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, TINY, cbs);
	for (uint32_t i = 0; i < TINY; i++)
		record_op(d, cbs[i], false, 1.0f);
	for (uint32_t i = 0; i < TINY; i++)
		submit(d->queue, &cbs[i], 1, i + 1 == TINY ? fence : VK_NULL_HANDLE);
	CHECK(vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX));
	CHECK(vkResetFences(d->device, 1, &fence));
	for (uint32_t i = 0; i < TINY; i += TINY_BATCH)
		submit(d->queue, &cbs[i], TINY - i < TINY_BATCH ? TINY - i : TINY_BATCH,
		       i + TINY_BATCH >= TINY ? fence : VK_NULL_HANDLE);
	CHECK(vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX));

	vkFreeCommandBuffers(d->device, pool, TINY, cbs);
	free(cbs);
	vkDestroyFence(d->device, fence, NULL);
	vkDestroyCommandPool(d->device, pool, NULL);
	return result("tiny submits", d, expect_case6);
}

int main(int argc, char **argv)
{
	bool validation = argc > 1 && !strcmp(argv[1], "--validation");
	uint64_t h1, h2, h3a, h3b, h4, h5, h6;
	uint32_t available, notime_ok;
	struct dev a;

	memset(&a, 0, sizeof(a));
	make_instance(validation);
	make_device(&a, NULL, false);
	wait_semaphores = (PFN_vkWaitSemaphores)vkGetDeviceProcAddr(a.device, "vkWaitSemaphores");
	if (!wait_semaphores) {
		fprintf(stderr, "vk_hostile: vkWaitSemaphores missing\n");
		return 1;
	}
	make_resources(&a);

	h1 = case_lifetimes(&a);
	h2 = case_app_queries(&a, &available);
	h3a = case_second_device(&a, &h3b);
	h4 = case_waits(&a, &notime_ok);
	h5 = case_secondaries(&a);
	h6 = case_tiny_submits(&a);

	destroy_dev(&a);
	if (messenger) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT");

		destroy(instance, messenger, NULL);
	}
	vkDestroyInstance(instance, NULL);
	if (validation_errors) {
		fprintf(stderr, "vk_hostile: %d validation error(s)\n", validation_errors);
		return 1;
	}
	if (available != APP_QUERIES) {
		fprintf(stderr, "vk_hostile: %u of %u application timestamps available\n",
			available, APP_QUERIES);
		return 1;
	}
	printf("lifetimes %016llx\n", (unsigned long long)h1);
	printf("app_queries %016llx available %u\n", (unsigned long long)h2, available);
	printf("second_device %016llx %016llx\n", (unsigned long long)h3a, (unsigned long long)h3b);
	printf("waits %016llx untimed_family %s\n", (unsigned long long)h4,
	       a.notime_family == UINT32_MAX ? "none" :
		       notime_ok             ? "ok" :
					       "WRONG");
	printf("secondaries %016llx\n", (unsigned long long)h5);
	printf("tiny_submits %016llx\n", (unsigned long long)h6);
	return a.notime_family != UINT32_MAX && !notime_ok ? 1 : 0;
}
