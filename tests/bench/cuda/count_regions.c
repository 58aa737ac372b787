/*
 * count_regions.c - the GPU work the runner's loader (collectors/cuda/load.c) attributes to
 * each NVTX region of a CUDA record file, by time window (region_scope "process") and by
 * thread ("thread"); for tests/bench/cuda/collector_cost.sh's record files.
 *
 *     count_regions FILE.jsonl REGION
 *
 * Prints "process=N thread=M work=W": kernels, copies and sets in REGION by each scope, and
 * all of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cuda/load.h"

struct count {
	const char *region;
	size_t in, work;
};

static int count(void *ctx, const struct rn_gpu_span *s, const struct rn_cuda_span_info *info)
{
	struct count *c = ctx;

	(void)info;
	if (!rn_gpu_kind_is_work(s->kind))
		return 0;
	c->work++;
	if (s->region && !strcmp(s->region, c->region))
		c->in++;
	return 0;
}

int main(int argc, char **argv)
{
	struct count p = { 0 }, t = { 0 };
	struct rn_cuda_load_report rep;
	struct rn_buf b;

	if (argc != 3) {
		fprintf(stderr, "usage: count_regions FILE.jsonl REGION\n");
		return 2;
	}
	rn_buf_init(&b, 0);
	if (rn_buf_read_file(&b, argv[1])) {
		perror(argv[1]);
		return 1;
	}
	p.region = t.region = argv[2];
	rn_cuda_load_report_init(&rep);
	if (rn_cuda_load_scoped(b.buf, b.len, RN_CUDA_REGION_PROCESS, count, &p, &rep) < 0)
		return 1;
	rn_cuda_load_report_init(&rep);
	if (rn_cuda_load_scoped(b.buf, b.len, RN_CUDA_REGION_THREAD, count, &t, &rep) < 0)
		return 1;
	printf("process=%zu thread=%zu work=%zu\n", p.in, t.in, p.work);
	rn_buf_release(&b);
	return 0;
}
