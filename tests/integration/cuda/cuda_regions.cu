/*
 * cuda_regions.cu - CUDA target with NVTX regions of known content, for the CUDA collector's
 * region tests (cuda_regions.sh). Plain CUDA runtime and NVTX v3 (header-only),
 * no renacer code:
 *
 *   region "warm-up" (nvtxRangePushA/Pop):               5 x rn_step
 *   region "main" (nvtxDomainRangePushEx/Pop, domain "renacer-test"):
 *                                                       20 x rn_step, 20 x rn_mix
 *   region "worker" (nvtxRangePushA/Pop on a second thread, its own stream, while the main
 *                    thread is inside "main"):           6 x rn_mix
 *   region "tail" (nvtxRangeStartA/End):                 7 x rn_mix
 *   region "graphs" (nvtxRangePushA/Pop): a graph of 3 kernels (rn_step, rn_mix, rn_step)
 *                                         captured, then launched 4 times = 12 kernels,
 *                                         4 graph replays
 *   outside any region:                                  3 x rn_step
 *
 *   region "long" (nvtxRangePushA/Pop): 2 x rn_long_templated_kernel_name_that_goes_on<...>,
 *                                       a demangled name of 165 characters
 *
 * Every region is closed; all work is on one stream.
 */
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void rn_step(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.5f + 1.0f;
}

__global__ void rn_mix(float *x, const float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += y[i];
}

template <typename T, int A, int B> struct rn_a_rather_long_policy_name_for_tests {
	static __device__ T apply(T v) { return v * (T)A + (T)B; }
};

struct rn_another_tag_type_with_a_long_name_too {};

template <typename Policy, typename T, int Unroll, typename Tag>
__global__ void rn_long_templated_kernel_name_that_goes_on(T *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = Policy::apply(x[i]);
}

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t err_ = (call);                                                 \
		if (err_ != cudaSuccess) {                                                 \
			fprintf(stderr, "cuda_regions: %s: %s\n", #call,                    \
				cudaGetErrorString(err_));                                 \
			return 2;                                                          \
		}                                                                          \
	} while (0)

int main(void)
{
	const int n = 1 << 16, threads = 256, blocks = (n + threads - 1) / threads;
	float *dx, *dy;
	cudaStream_t s;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	nvtxDomainHandle_t domain;
	nvtxEventAttributes_t attr = {};
	nvtxRangeId_t tail;

	CHECK(cudaMalloc(&dx, n * sizeof(float)));
	CHECK(cudaMalloc(&dy, n * sizeof(float)));
	CHECK(cudaStreamCreate(&s));

	nvtxRangePushA("warm-up");
	for (int i = 0; i < 5; i++)
		rn_step<<<blocks, threads, 0, s>>>(dx, n);
	nvtxRangePop();

	domain = nvtxDomainCreateA("renacer-test");
	attr.version = NVTX_VERSION;
	attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
	attr.message.ascii = "main";
	nvtxDomainRangePushEx(domain, &attr);
	{
		/* Regions are per thread: the worker's launches belong to "worker", the main
		 * thread's to "main", although both ranges are open at the same time. */
		cudaStream_t s2;
		float *dz;

		CHECK(cudaStreamCreate(&s2));
		CHECK(cudaMalloc(&dz, n * sizeof(float)));
		std::thread worker([&] {
			nvtxRangePushA("worker");
			for (int i = 0; i < 6; i++)
				rn_mix<<<blocks, threads, 0, s2>>>(dz, dy, n);
			nvtxRangePop();
		});
		for (int i = 0; i < 20; i++) {
			rn_step<<<blocks, threads, 0, s>>>(dx, n);
			rn_mix<<<blocks, threads, 0, s>>>(dx, dy, n);
		}
		worker.join();
		CHECK(cudaStreamSynchronize(s2));
		CHECK(cudaStreamDestroy(s2));
		CHECK(cudaFree(dz));
	}
	nvtxDomainRangePop(domain);

	tail = nvtxRangeStartA("tail");
	for (int i = 0; i < 7; i++)
		rn_mix<<<blocks, threads, 0, s>>>(dx, dy, n);
	nvtxRangeEnd(tail);

	nvtxRangePushA("long");
	for (int i = 0; i < 2; i++)
		rn_long_templated_kernel_name_that_goes_on<
			rn_a_rather_long_policy_name_for_tests<float, 3, 7>, float, 4,
			rn_another_tag_type_with_a_long_name_too>
			<<<blocks, threads, 0, s>>>(dx, n);
	nvtxRangePop();

	/* Captured outside any region: capture launches nothing. */
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	rn_step<<<blocks, threads, 0, s>>>(dx, n);
	rn_mix<<<blocks, threads, 0, s>>>(dx, dy, n);
	rn_step<<<blocks, threads, 0, s>>>(dx, n);
	CHECK(cudaStreamEndCapture(s, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	nvtxRangePushA("graphs");
	for (int i = 0; i < 4; i++)
		CHECK(cudaGraphLaunch(exec, s));
	nvtxRangePop();

	for (int i = 0; i < 3; i++)
		rn_step<<<blocks, threads, 0, s>>>(dx, n);
	CHECK(cudaGetLastError());
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(dx));
	CHECK(cudaFree(dy));
	printf("cuda_regions: done\n");
	return 0;
}
