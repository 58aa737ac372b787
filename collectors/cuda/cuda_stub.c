/*
 * cuda_stub.c - the CUDA collector when renacer is built without a CUDA toolkit.
 */
#include "cuda.h"

#include <errno.h>
#include <stddef.h>

static const char *cuda_unavailable(void)
{
	return "not built (no CUDA toolkit with CUPTI found)";
}

static int cuda_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	(void)spec;
	*out = NULL;
	return -ENOSYS;
}

static void cuda_destroy(struct rn_collector *c)
{
	(void)c;
}

const char *rn_cuda_injection_path(void)
{
	return NULL;
}

const struct rn_collector_ops rn_cuda_collector = {
	.name = "cuda",
	.unavailable = cuda_unavailable,
	.create = cuda_create,
	.destroy = cuda_destroy,
};
