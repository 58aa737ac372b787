#include "collector.h"

#include <string.h>

#include "ptrace/ptrace.h"
#include "vulkan/vulkan.h"

const struct rn_collector_ops *const rn_collectors[] = {
	&rn_ptrace_collector,
	&rn_vulkan_collector,
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
