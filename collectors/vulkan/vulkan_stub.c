/*
 * vulkan_stub.c - the Vulkan collector when renacer is built with RN_WITH_VULKAN=OFF.
 */
#include "vulkan.h"

#include <errno.h>
#include <stddef.h>

static const char *vk_unavailable(void)
{
	return "not built (RN_WITH_VULKAN=OFF)";
}

static int vk_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	(void)spec;
	*out = NULL;
	return -ENOSYS;
}

static void vk_destroy(struct rn_collector *c)
{
	(void)c;
}

const struct rn_collector_ops rn_vulkan_collector = {
	.name = "vulkan",
	.unavailable = vk_unavailable,
	.create = vk_create,
	.destroy = vk_destroy,
};
