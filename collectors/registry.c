#include "collector.h"

#include <errno.h>
#include <string.h>

#include "ptrace/ptrace.h"
#include "vulkan/vulkan.h"
#include "cuda/cuda.h"
#include "ebpf/ebpf.h"
#include "app/app.h"

#define OPS_OF(name, bit, desc) &rn_##name##_collector,
const struct rn_collector_ops *const rn_collectors[] = { RN_COLLECTORS(OPS_OF) NULL };
#undef OPS_OF

#define NAME_OF(name, bit, desc) #name,
const char *const rn_target_collector_names[] = { RN_TARGET_COLLECTORS(NAME_OF) NULL };
#undef NAME_OF

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
#define MASK_OF(id, bit, desc)                                                                     \
	if (!strcmp(#id, name))                                                                    \
		return bit;
	RN_COLLECTORS(MASK_OF)
#undef MASK_OF
	return 0;
}

int rn_collector_stub_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	(void)spec;
	*out = NULL;
	return -ENOSYS;
}

void rn_collector_stub_destroy(struct rn_collector *c)
{
	(void)c;
}
