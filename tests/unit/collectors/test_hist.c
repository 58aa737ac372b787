/*
 * test_hist.c - the log-linear latency histogram (collectors/hist.h): quantiles within 1/256
 * of the exact nearest-rank value over many magnitudes, exact min and max, merging, bounded
 * memory, and the trace model's per-syscall histograms (rn_trace_latency).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "collectors/internal.h"
#include "hist.h"
#include "trace.h"

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact nearest-rank quantile of sorted v[n]. */
static uint64_t exact_q(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n);

	if ((double)rank < q * (double)n)
		rank++;
	if (!rank)
		rank = 1;
	return v[rank - 1];
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_hist_quantiles_within_bound(void **state)
{
	enum {
		N = 20000
	};
	static const double qs[] = { 0.01, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999 };
	uint64_t *v = malloc(N * sizeof(*v)), seed = 88172645463325252ull;
	struct rn_hist h;

	(void)state;
	rn_hist_init(&h);
	for (size_t i = 0; i < N; i++) {
		/* log-uniform between 1 ns and ~1e12 ns: every bucket shape is visited */
		unsigned shift = (unsigned)(next_rand(&seed) % 40);

		v[i] = (next_rand(&seed) >> (63 - shift)) + 1;
		rn_hist_record(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), u64_cmp);
	assert_int_equal(h.count, N);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.max, v[N - 1]);
	assert_int_equal(rn_hist_quantile(&h, 1.0), v[N - 1]);
	assert_int_equal(rn_hist_quantile(&h, 0.0), v[0]);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t want = exact_q(v, N, qs[k]), got = rn_hist_quantile(&h, qs[k]);
		double err = got > want ? (double)(got - want) : (double)(want - got);

		/* values below 256 are exact; above, half a bucket is <= 1/256 of the value */
		assert_true(err <= (double)want / 256.0);
	}
	rn_hist_release(&h);
	free(v);
}

static void test_hist_small_values_exact(void **state)
{
	struct rn_hist h;

	(void)state;
	rn_hist_init(&h);
	for (uint64_t i = 1; i <= 100; i++)
		rn_hist_record(&h, i);
	assert_int_equal(rn_hist_quantile(&h, 0.5), 50);
	assert_int_equal(rn_hist_quantile(&h, 0.9), 90);
	assert_int_equal(rn_hist_quantile(&h, 0.99), 99);
	assert_int_equal(h.sum, 5050);
	rn_hist_release(&h);
	assert_int_equal(rn_hist_quantile(&h, 0.5), 0); /* empty */
}

static void test_hist_memory_bounded(void **state)
{
	struct rn_hist h;
	int chunks = 0;

	(void)state;
	rn_hist_init(&h);
	/* a million values between 1 us and 1 s: one 1 KiB chunk per power of two, not 8 MB */
	for (uint64_t i = 0; i < 1000000; i++)
		rn_hist_record(&h, 1000 + (i * 999983) % 1000000000);
	for (int k = 0; k < RN_HIST_CHUNKS; k++)
		chunks += h.chunk[k] != NULL;
	assert_true(chunks <= 22);
	rn_hist_record(&h, UINT64_MAX); /* the top bucket exists */
	assert_int_equal(rn_hist_quantile(&h, 1.0), UINT64_MAX);
	rn_hist_release(&h);
}

static void test_hist_merge(void **state)
{
	struct rn_hist a, b;

	(void)state;
	rn_hist_init(&a);
	rn_hist_init(&b);
	for (uint64_t i = 0; i < 90; i++)
		rn_hist_record(&a, 1000000); /* 1 ms */
	for (uint64_t i = 0; i < 10; i++)
		rn_hist_record(&b, 50000000); /* 50 ms */
	rn_hist_merge(&a, &b);
	assert_int_equal(a.count, 100);
	assert_int_equal(a.max, 50000000);
	assert_true(rn_hist_quantile(&a, 0.9) <= 1000000 + 1000000 / 256);
	assert_true(rn_hist_quantile(&a, 0.91) >= 50000000 - 50000000 / 256);
	rn_hist_release(&a);
	rn_hist_release(&b);
}

static void test_hist_trace_latency(void **state)
{
	struct rn_trace t;
	struct rn_process *p;
	struct rn_syscall_event ev;

	(void)state;
	rn_trace_init(&t);
	p = rn_trace_add_process(&t, 1, 0, 1);
	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = 1;
	ev.nr = SYS_fsync;
	ev.duration_ns = 5;
	rn_trace_syscall(&t, p, &ev);
	assert_null(rn_trace_latency(&t, SYS_fsync)); /* not kept unless enabled */
	rn_trace_latency_enable(&t);
	for (int i = 0; i < 10; i++) {
		ev.duration_ns = (uint64_t)(i + 1) * 1000;
		rn_trace_syscall(&t, p, &ev);
	}
	ev.flags = RN_SC_UNFINISHED; /* not counted, not timed */
	ev.duration_ns = 1000000000;
	rn_trace_syscall(&t, p, &ev);
	assert_non_null(rn_trace_latency(&t, SYS_fsync));
	assert_int_equal(rn_trace_latency(&t, SYS_fsync)->count, 10);
	assert_int_equal(rn_hist_quantile(rn_trace_latency(&t, SYS_fsync), 1.0), 10000);
	assert_null(rn_trace_latency(&t, SYS_read));
	assert_null(rn_trace_latency(&t, -1));
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_quantiles_within_bound),
		cmocka_unit_test(test_hist_small_values_exact),
		cmocka_unit_test(test_hist_memory_bounded),
		cmocka_unit_test(test_hist_merge),
		cmocka_unit_test(test_hist_trace_latency),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
