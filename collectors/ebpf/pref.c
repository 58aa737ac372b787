/*
 * pref.c - choosing between the ptrace and the eBPF driver (ebpf.h). Built with or without
 * the eBPF driver.
 */
#include "ebpf.h"

#include <errno.h>
#include <string.h>

int rn_driver_pref_parse(const char *s, enum rn_driver_pref *out)
{
	if (!strcmp(s, "ptrace"))
		*out = RN_DRIVER_PREF_PTRACE;
	else if (!strcmp(s, "ebpf"))
		*out = RN_DRIVER_PREF_EBPF;
	else if (!strcmp(s, "auto"))
		*out = RN_DRIVER_PREF_AUTO;
	else
		return -EINVAL;
	return 0;
}

const char *rn_driver_pref_name(enum rn_driver_pref p)
{
	switch (p) {
	case RN_DRIVER_PREF_EBPF:
		return "ebpf";
	case RN_DRIVER_PREF_AUTO:
		return "auto";
	case RN_DRIVER_PREF_PTRACE:
		break;
	}
	return "ptrace";
}

uint32_t rn_driver_pref_resolve(enum rn_driver_pref pref, const char *needs_ptrace,
				const char **why)
{
	*why = NULL;
	switch (pref) {
	case RN_DRIVER_PREF_PTRACE:
		return RN_COLLECT_PTRACE;
	case RN_DRIVER_PREF_EBPF:
		*why = needs_ptrace ? needs_ptrace : rn_ebpf_unavailable();
		return RN_COLLECT_EBPF;
	case RN_DRIVER_PREF_AUTO:
		*why = needs_ptrace ? needs_ptrace : rn_ebpf_unavailable();
		return *why ? RN_COLLECT_PTRACE : RN_COLLECT_EBPF;
	}
	return RN_COLLECT_PTRACE;
}
