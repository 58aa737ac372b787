/*
 * cuda_stub.c - the CUDA collector when renacer is built without a CUDA toolkit.
 */
#include "cuda.h"

#include <stddef.h>

static const char *cuda_unavailable(void)
{
	return "not built (no CUDA toolkit with CUPTI found)";
}

const char *rn_cuda_injection_path(void)
{
	return NULL;
}

const struct rn_collector_ops rn_cuda_collector = {
	.name = "cuda",
	.unavailable = cuda_unavailable,
	.create = rn_collector_stub_create,
	.destroy = rn_collector_stub_destroy,
};
