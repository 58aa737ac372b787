/*
 * cuda_kernels.cu - CUDA target with known GPU work for the CUDA collector's tests:
 * 3 kernels (rn_scale, rn_add, rn_square) x N launches each (argv[1], default 10),
 * 2 host-to-device and 1 device-to-host cudaMemcpy, no memset. Plain CUDA runtime, no
 * renacer code: the collector must see exactly this.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

__global__ void rn_scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= a;
}

__global__ void rn_add(float *x, const float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += y[i];
}

__global__ void rn_square(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * x[i] * 0.5f;
}

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t err_ = (call);                                                 \
		if (err_ != cudaSuccess) {                                                 \
			fprintf(stderr, "cuda_kernels: %s: %s\n", #call,                    \
				cudaGetErrorString(err_));                                 \
			return 2;                                                          \
		}                                                                          \
	} while (0)

int main(int argc, char **argv)
{
	int launches = argc > 1 ? atoi(argv[1]) : 10;
	const int n = 1 << 20, threads = 256, blocks = (n + threads - 1) / threads;
	std::vector<float> hx(n, 1.0f), hy(n, 2.0f);
	float *dx, *dy;

	CHECK(cudaMalloc(&dx, n * sizeof(float)));
	CHECK(cudaMalloc(&dy, n * sizeof(float)));
	CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	for (int i = 0; i < launches; i++) {
		rn_scale<<<blocks, threads>>>(dx, 0.5f, n);
		rn_add<<<blocks, threads>>>(dx, dy, n);
		rn_square<<<blocks, threads>>>(dx, n);
	}
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(hx.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(dx));
	CHECK(cudaFree(dy));
	printf("cuda_kernels: %d launches x 3 kernels, x[0] = %g\n", launches, hx[0]);
	return 0;
}
