/*
 * cuda_threads.cu - CUDA target for regions across threads (cuda_threads.sh), the
 * shape of autograd: the main thread opens NVTX range "step", a second thread launches work
 * with no range of its own while "step" is open, then the main thread launches its own:
 *
 *   range "step" (main thread):   5 x rn_fwd launched by the main thread
 *                                 10 x rn_bwd launched by a second thread, no range there
 *   outside any range:            2 x rn_fwd
 *
 * By time window (region_scope "process", the default) "step" holds 15 kernels; by thread
 * ("thread") it holds the main thread's 5.
 */
#include <cstdio>
#include <thread>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void rn_fwd(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.5f + 1.0f;
}

__global__ void rn_bwd(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 2.0f - 1.0f;
}

int main(void)
{
	const int n = 1 << 14;
	float *dx;

	if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess)
		return 2;
	nvtxRangePushA("step");
	std::thread backward([dx, n] {
		for (int i = 0; i < 10; i++)
			rn_bwd<<<n / 256, 256>>>(dx, n);
		cudaDeviceSynchronize();
	});
	backward.join();
	for (int i = 0; i < 5; i++)
		rn_fwd<<<n / 256, 256>>>(dx, n);
	cudaDeviceSynchronize();
	nvtxRangePop();
	for (int i = 0; i < 2; i++)
		rn_fwd<<<n / 256, 256>>>(dx, n);
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 2;
	cudaFree(dx);
	puts("cuda_threads: done");
	return 0;
}
