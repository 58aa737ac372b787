/*
 * vk_bench - dispatch-heavy Vulkan program for measuring the timing layer's overhead.
 *
 * Records `cbs` primary command buffers of `dispatches` dependent dispatches each (a barrier
 * between them), every dispatch `elements` invocations of `iters` multiply-adds. The program
 * brackets each command buffer with its own timestamp pair (so the GPU time it reports
 * includes whatever a layer adds inside), then submits them one by one, waiting on a fence
 * after each, as a frame loop would. Knows nothing of renacer.
 *
 * Usage: vk_bench [--cbs N] [--dispatches N] [--elements N] [--iters N] [--warmup N]
 * Prints one line: "vk_bench: cbs=.. dispatches=.. gpu_us_per_cb_median=.. gpu_ms_total=..
 *                   wall_ms=.. device=NAME"
 * Exit: 0, 1 on failure, 77 without a Vulkan device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vulkan/vulkan.h>

#include "bench.spv.h"

#define CHECK(call)                                                                                \
	do {                                                                                       \
		VkResult r_ = (call);                                                              \
		if (r_ != VK_SUCCESS) {                                                            \
			fprintf(stderr, "vk_bench: %s failed: %d\n", #call, (int)r_);              \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t arg(int argc, char **argv, const char *name, uint32_t dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return (uint32_t)strtoul(argv[i + 1], NULL, 10);
	return dflt;
}

int main(int argc, char **argv)
{
	uint32_t ncb = arg(argc, argv, "--cbs", 50), nd = arg(argc, argv, "--dispatches", 20);
	uint32_t elements = arg(argc, argv, "--elements", 65536);
	uint32_t iters = arg(argc, argv, "--iters", 64), warmup = arg(argc, argv, "--warmup", 5);
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				  .pApplicationName = "vk_bench",
				  .apiVersion = VK_API_VERSION_1_2 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				     .pApplicationInfo = &app };
	VkInstance inst;
	VkPhysicalDevice pd[8], phys = VK_NULL_HANDLE;
	VkPhysicalDeviceProperties props;
	uint32_t npd = 8, family = 0;
	VkDevice dev;
	VkQueue queue;
	float prio = 1.0f;
	VkBuffer buf;
	VkDeviceMemory mem;
	VkMemoryRequirements req;
	VkPhysicalDeviceMemoryProperties mp;
	uint32_t type = UINT32_MAX;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkShaderModule module;
	VkPipeline pipe;
	VkDescriptorPool dpool;
	VkDescriptorSet set;
	VkQueryPool qp;
	VkCommandPool pool;
	VkCommandBuffer *cbs;
	VkFence fence;
	uint64_t *gpu, *ts, wall0 = 0, wall, total = 0;

	if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS)
		return 77;
	if (vkEnumeratePhysicalDevices(inst, &npd, pd) < 0 || !npd)
		return 77;
	for (uint32_t i = 0; i < npd && !phys; i++) {
		VkQueueFamilyProperties fam[16];
		uint32_t nf = 16;

		vkGetPhysicalDeviceQueueFamilyProperties(pd[i], &nf, fam);
		for (uint32_t f = 0; f < nf; f++)
			if ((fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
			    fam[f].timestampValidBits) {
				phys = pd[i];
				family = f;
				break;
			}
	}
	if (!phys)
		return 77;
	vkGetPhysicalDeviceProperties(phys, &props);
	{
		VkDeviceQueueCreateInfo q = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
					      .queueFamilyIndex = family,
					      .queueCount = 1,
					      .pQueuePriorities = &prio };
		VkDeviceCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
					  .queueCreateInfoCount = 1,
					  .pQueueCreateInfos = &q };

		CHECK(vkCreateDevice(phys, &ci, NULL, &dev));
	}
	vkGetDeviceQueue(dev, family, 0, &queue);

	{
		VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
					  .size = (VkDeviceSize)elements * 4,
					  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT };

		CHECK(vkCreateBuffer(dev, &bi, NULL, &buf));
	}
	vkGetBufferMemoryRequirements(dev, buf, &req);
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
		if ((req.memoryTypeBits & (1u << i)) &&
		    (type == UINT32_MAX ||
		     (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)))
			if (type == UINT32_MAX ||
			    !(mp.memoryTypes[type].propertyFlags &
			      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
				type = i;
	{
		VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
					    .allocationSize = req.size,
					    .memoryTypeIndex = type };

		CHECK(vkAllocateMemory(dev, &ai, NULL, &mem));
	}
	CHECK(vkBindBufferMemory(dev, buf, mem, 0));

	{
		VkDescriptorSetLayoutBinding b = { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
						   VK_SHADER_STAGE_COMPUTE_BIT, NULL };
		VkDescriptorSetLayoutCreateInfo dl = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
			.bindingCount = 1,
			.pBindings = &b
		};
		VkPushConstantRange pc = { VK_SHADER_STAGE_COMPUTE_BIT, 0, 8 };
		VkPipelineLayoutCreateInfo pl = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
			.setLayoutCount = 1,
			.pSetLayouts = &dsl,
			.pushConstantRangeCount = 1,
			.pPushConstantRanges = &pc
		};
		VkShaderModuleCreateInfo mi = { .sType =
							VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
						.codeSize = sizeof(bench_spv),
						.pCode = bench_spv };
		VkComputePipelineCreateInfo pi = {
			.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
			.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				   .stage = VK_SHADER_STAGE_COMPUTE_BIT,
				   .pName = "main" },
		};
		VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
		VkDescriptorPoolCreateInfo dpi = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
			.maxSets = 1,
			.poolSizeCount = 1,
			.pPoolSizes = &ps
		};
		VkDescriptorSetAllocateInfo dai = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
			.descriptorSetCount = 1,
			.pSetLayouts = &dsl
		};
		VkDescriptorBufferInfo dbi = { buf, 0, VK_WHOLE_SIZE };
		VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
					   .descriptorCount = 1,
					   .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
					   .pBufferInfo = &dbi };

		CHECK(vkCreateDescriptorSetLayout(dev, &dl, NULL, &dsl));
		CHECK(vkCreatePipelineLayout(dev, &pl, NULL, &layout));
		CHECK(vkCreateShaderModule(dev, &mi, NULL, &module));
		pi.stage.module = module;
		pi.layout = layout;
		CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &pi, NULL, &pipe));
		CHECK(vkCreateDescriptorPool(dev, &dpi, NULL, &dpool));
		dai.descriptorPool = dpool;
		CHECK(vkAllocateDescriptorSets(dev, &dai, &set));
		w.dstSet = set;
		vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
	}
	{
		VkQueryPoolCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
					     .queryType = VK_QUERY_TYPE_TIMESTAMP,
					     .queryCount = 2 * ncb };
		VkCommandPoolCreateInfo pi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					       .queueFamilyIndex = family };
		VkCommandBufferAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = ncb
		};
		VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };

		CHECK(vkCreateQueryPool(dev, &qi, NULL, &qp));
		CHECK(vkCreateCommandPool(dev, &pi, NULL, &pool));
		ai.commandPool = pool;
		cbs = calloc(ncb, sizeof(*cbs));
		gpu = calloc(ncb, sizeof(*gpu));
		ts = calloc(2 * (size_t)ncb, sizeof(*ts));
		if (!cbs || !gpu || !ts)
			return 1;
		CHECK(vkAllocateCommandBuffers(dev, &ai, cbs));
		CHECK(vkCreateFence(dev, &fi, NULL, &fence));
	}
	for (uint32_t c = 0; c < ncb; c++) {
		VkCommandBufferBeginInfo bi = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
		};
		VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				       .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
				       .dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
					       VK_ACCESS_SHADER_WRITE_BIT };
		uint32_t push[2] = { iters, elements };

		CHECK(vkBeginCommandBuffer(cbs[c], &bi));
		vkCmdResetQueryPool(cbs[c], qp, 2 * c, 2);
		vkCmdWriteTimestamp(cbs[c], VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 2 * c);
		vkCmdBindPipeline(cbs[c], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(cbs[c], VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set,
					0, NULL);
		vkCmdPushConstants(cbs[c], layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push),
				   push);
		for (uint32_t d = 0; d < nd; d++) {
			if (d)
				vkCmdPipelineBarrier(cbs[c], VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
						     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
						     &mb, 0, NULL, 0, NULL);
			vkCmdDispatch(cbs[c], (elements + 255) / 256, 1, 1);
		}
		vkCmdWriteTimestamp(cbs[c], VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 2 * c + 1);
		CHECK(vkEndCommandBuffer(cbs[c]));
	}
	for (uint32_t i = 0; i < warmup + ncb; i++) {
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
				    .commandBufferCount = 1,
				    .pCommandBuffers = &cbs[i < warmup ? i % ncb : i - warmup] };

		if (i == warmup)
			wall0 = now_ns();
		CHECK(vkQueueSubmit(queue, 1, &si, fence));
		CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
		CHECK(vkResetFences(dev, 1, &fence));
	}
	wall = now_ns() - wall0;
	CHECK(vkGetQueryPoolResults(dev, qp, 0, 2 * ncb, 2 * ncb * sizeof(uint64_t), ts,
				    sizeof(uint64_t), VK_QUERY_RESULT_64_BIT));
	for (uint32_t c = 0; c < ncb; c++) {
		gpu[c] = (uint64_t)((double)(ts[2 * c + 1] - ts[2 * c]) *
				    props.limits.timestampPeriod);
		total += gpu[c];
	}
	qsort(gpu, ncb, sizeof(*gpu), cmp_u64);
	printf("vk_bench: cbs=%u dispatches=%u gpu_us_per_cb_median=%.2f gpu_ms_total=%.3f "
	       "wall_ms=%.3f device=%s\n",
	       ncb, nd, (double)gpu[ncb / 2] / 1e3, (double)total / 1e6, (double)wall / 1e6,
	       props.deviceName);
	vkDestroyFence(dev, fence, NULL);
	vkDestroyCommandPool(dev, pool, NULL);
	vkDestroyQueryPool(dev, qp, NULL);
	vkDestroyPipeline(dev, pipe, NULL);
	vkDestroyShaderModule(dev, module, NULL);
	vkDestroyDescriptorPool(dev, dpool, NULL);
	vkDestroyPipelineLayout(dev, layout, NULL);
	vkDestroyDescriptorSetLayout(dev, dsl, NULL);
	vkDestroyBuffer(dev, buf, NULL);
	vkFreeMemory(dev, mem, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	free(cbs);
	free(gpu);
	free(ts);
	return 0;
}
