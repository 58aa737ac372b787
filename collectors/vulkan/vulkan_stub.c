/*
 * vulkan_stub.c - the Vulkan collector when renacer is built with RN_WITH_VULKAN=OFF.
 */
#include "vulkan.h"

#include <stddef.h>

static const char *vk_unavailable(void)
{
	return "not built (RN_WITH_VULKAN=OFF)";
}

const struct rn_collector_ops rn_vulkan_collector = {
	.name = "vulkan",
	.unavailable = vk_unavailable,
	.create = rn_collector_stub_create,
	.destroy = rn_collector_stub_destroy,
};
