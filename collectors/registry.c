/*
 * registry.c - the collectors of RN_COLLECTORS (collector.h) as the registry rn_collectors[],
 * in row order, and the look-ups by name. A collector's ops table is declared by its row; no
 * header of a specific collector is included here.
 */
#include "collector.h"

#include <errno.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define OPS_OF(name, id, desc) [RN_COLLECTOR_##id] = &rn_##name##_collector,
const struct rn_collector_ops *const rn_collectors[] = { RN_COLLECTORS(OPS_OF)[RN_NCOLLECTORS] =
								 NULL };
#undef OPS_OF

_Static_assert(ARRAY_SIZE(rn_collectors) == RN_NCOLLECTORS + 1,
	       "one registry entry per row of RN_COLLECTORS");
_Static_assert(RN_NCOLLECTORS <= 32, "the collector masks are 32-bit");

#define NAME_OF(name, id, desc) #name,
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
	int i;

	for (i = 0; i < RN_NCOLLECTORS; i++)
		if (!strcmp(rn_collectors[i]->name, name))
			return 1u << i;
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
