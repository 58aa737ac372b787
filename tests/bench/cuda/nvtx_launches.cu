/*
 * nvtx_launches.cu - the workload of tests/bench/cuda/nvtx_bench.sh: 6,000 launches of a
 * small kernel inside an NVTX range "main", and, with argument "per-launch", each launch in
 * its own nested range too (the shape of torch.autograd.profiler.emit_nvtx). Prints the
 * launch loop's wall time (launches, ranges and the final synchronization), ns.
 */
#include <cstdio>
#include <cstring>
#include <ctime>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define LAUNCHES 6000

__global__ void rn_tiny(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.999f + 0.001f;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	bool per_launch = argc > 1 && !strcmp(argv[1], "per-launch");
	const int n = 1 << 12;
	float *dx;
	long long t0, t1;

	if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess)
		return 2;
	/* warm-up outside the timed loop: module load, first launch */
	for (int i = 0; i < 100; i++)
		rn_tiny<<<n / 256, 256>>>(dx, n);
	cudaDeviceSynchronize();
	t0 = now_ns();
	nvtxRangePushA("main");
	for (int i = 0; i < LAUNCHES; i++) {
		if (per_launch)
			nvtxRangePushA("launch");
		rn_tiny<<<n / 256, 256>>>(dx, n);
		if (per_launch)
			nvtxRangePop();
	}
	nvtxRangePop();
	cudaDeviceSynchronize();
	t1 = now_ns();
	if (cudaGetLastError() != cudaSuccess)
		return 2;
	printf("loop_ns=%lld\n", t1 - t0);
	cudaFree(dx);
	return 0;
}
