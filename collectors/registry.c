#include "collector.h"

#include <string.h>

#include "ptrace/ptrace.h"
#include "vulkan/vulkan.h"
#include "cuda/cuda.h"
#include "ebpf/ebpf.h"

const struct rn_collector_ops *const rn_collectors[] = {
	&rn_ptrace_collector,
	&rn_vulkan_collector,
	&rn_cuda_collector,
	&rn_ebpf_collector,
	NULL,
};

const struct rn_collector_ops *rn_collector_find(const char *name)
{
	int i;

	for (i = 0; rn_collectors[i]; i++)
		if (!strcmp(rn_collectors[i]->name, name))
			return rn_collectors[i];
	return NULL;
}

uint32_t rn_collector_mask_of(const char *name)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} bits[] = {
		{ "ptrace", RN_COLLECT_PTRACE },
		{ "vulkan", RN_COLLECT_VULKAN },
		{ "cuda", RN_COLLECT_CUDA },
		{ "ebpf", RN_COLLECT_EBPF },
	};

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (!strcmp(bits[i].name, name))
			return bits[i].bit;
	return 0;
}
