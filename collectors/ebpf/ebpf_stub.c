/*
 * ebpf_stub.c - the eBPF driver when renacer is built without it (RN_WITH_EBPF=OFF, or AUTO
 * without clang, bpftool, libbpf or the build machine's BTF).
 */
#include "ebpf.h"

#include <stddef.h>
#include <stdlib.h>

#ifndef RN_EBPF_WHY
#define RN_EBPF_WHY "RN_WITH_EBPF=OFF"
#endif

const char *rn_ebpf_unavailable(void)
{
	return "not built (" RN_EBPF_WHY ")";
}

const char *rn_ebpf_btf_path(void)
{
	const char *p = getenv("RENACER_BTF");

	return p && *p ? p : RN_EBPF_KERNEL_BTF;
}

const struct rn_collector_ops rn_ebpf_collector = {
	.name = "ebpf",
	.unavailable = rn_ebpf_unavailable,
	.create = rn_collector_stub_create,
	.destroy = rn_collector_stub_destroy,
};
