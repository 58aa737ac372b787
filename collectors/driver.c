/*
 * driver.c - the loop owners' registry and the syscall source choice (driver.h).
 */
#include "driver.h"

#include <errno.h>
#include <string.h>

#include "ptrace/drivers.h"

const struct rn_loop_ops *const rn_loops[] = {
	&rn_ptrace_events_loop,
	&rn_ptrace_loop,
	NULL,
};

const struct rn_loop_ops *rn_loop_select(const struct rn_run_spec *spec)
{
	int i;

	for (i = 0; rn_loops[i]; i++)
		if (rn_loops[i]->accepts(spec))
			return rn_loops[i];
	return NULL;
}

const struct rn_loop_ops *rn_loop_find(const char *name)
{
	int i;

	for (i = 0; rn_loops[i]; i++)
		if (!strcmp(rn_loops[i]->name, name))
			return rn_loops[i];
	return NULL;
}

const char *const rn_driver_pref_names[] = {
#define RN_DRIVER_PREF_NAME(id, name, doc) name,
	RN_DRIVER_PREFS(RN_DRIVER_PREF_NAME)
#undef RN_DRIVER_PREF_NAME
		NULL,
};

int rn_driver_pref_parse(const char *s, enum rn_driver_pref *out)
{
	int i;

	for (i = 0; rn_driver_pref_names[i]; i++) {
		if (!strcmp(s, rn_driver_pref_names[i])) {
			*out = (enum rn_driver_pref)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rn_driver_pref_name(enum rn_driver_pref p)
{
	size_t n = sizeof(rn_driver_pref_names) / sizeof(rn_driver_pref_names[0]) - 1;

	return (size_t)p < n ? rn_driver_pref_names[p] : rn_driver_pref_names[0];
}

/* Why the eBPF collector cannot run here (its ops' unavailable), or NULL when it can. */
static const char *ebpf_unavailable(void)
{
	const struct rn_collector_ops *ops = rn_collector_find("ebpf");

	if (!ops)
		return "not registered";
	return ops->unavailable ? ops->unavailable() : NULL;
}

uint32_t rn_driver_pref_resolve(enum rn_driver_pref pref, const char *needs_ptrace,
				const char **why)
{
	*why = NULL;
	switch (pref) {
	case RN_DRIVER_PREF_PTRACE:
		return RN_COLLECT_PTRACE;
	case RN_DRIVER_PREF_EBPF:
		*why = needs_ptrace ? needs_ptrace : ebpf_unavailable();
		return RN_COLLECT_EBPF;
	case RN_DRIVER_PREF_AUTO:
		*why = needs_ptrace ? needs_ptrace : ebpf_unavailable();
		return *why ? RN_COLLECT_PTRACE : RN_COLLECT_EBPF;
	}
	return RN_COLLECT_PTRACE;
}
