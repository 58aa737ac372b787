/*
 * sample_cost.c - what one on-CPU sample of `renacer trace --profile` costs the sampled
 * program: the same perf event (PERF_COUNT_SW_CPU_CLOCK, a fixed period of 1e9 / HZ ns of CPU time, IP | TID | CALLCHAIN
 * with user chains) opened on this process, switched on and off between equal chunks of
 * arithmetic, alternately, so both conditions share the machine's state; each chunk is timed
 * in thread CPU time (the samples' interrupts are charged to the sampled thread; other
 * programs' preemption is not), and the minimum of each condition is compared. Built and run
 * by explain_bench.py.
 * Usage: sample_cost HZ CHUNKS     prints "off_ns on_ns samples_per_chunk"
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void chunk(void)
{
	for (int i = 0; i < 20000000; i++)
		sink += (uint64_t)i * 2654435761u;
}

/* Records in the ring since the last call (its tail is advanced). */
static uint64_t drain(struct perf_event_mmap_page *meta)
{
	uint8_t *data = (uint8_t *)meta + meta->data_offset;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail,
		 n = 0;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail % meta->data_size;

		if (off + sizeof(h) > meta->data_size)
			break; /* a header across the end: a ring this size is drained far sooner */
		memcpy(&h, data + off, sizeof(h));
		if (!h.size)
			break;
		n += h.type == PERF_RECORD_SAMPLE;
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	return n;
}

int main(int argc, char **argv)
{
	unsigned hz = argc > 1 ? (unsigned)atoi(argv[1]) : 4999;
	int chunks = argc > 2 ? atoi(argv[2]) : 60;
	struct perf_event_attr a;
	uint64_t best[2] = { UINT64_MAX, UINT64_MAX }, samples = 0;
	long page = sysconf(_SC_PAGESIZE);
	void *ring;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 0;
	a.sample_period = 1000000000ull / hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a.disabled = 1;
	a.exclude_callchain_kernel = 1;
	a.sample_max_stack = 64;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 77;
	}
	ring = mmap(NULL, (size_t)page * 129, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		perror("mmap");
		return 77;
	}
	chunk(); /* warm up */
	for (int i = 0; i < 2 * chunks; i++) {
		int on = i & 1;
		uint64_t t0, t;

		if (on)
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t0 = now_ns();
		chunk();
		t = now_ns() - t0;
		if (on) {
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			samples += drain(ring);
		}
		if (t < best[on])
			best[on] = t;
	}
	printf("%llu %llu %.1f\n", (unsigned long long)best[0], (unsigned long long)best[1],
	       (double)samples / chunks);
	return 0;
}
