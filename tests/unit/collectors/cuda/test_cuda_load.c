/*
 * test_cuda_load.c - the CUDA record file reader (collectors/cuda/load.h): well-formed files,
 * truncation at every byte, and hostile input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cuda/load.h"

#define HEADER "{\"format\":\"renacer-cuda\",\"version\":1,\"pid\":4242}\n"
#define CLOCK_LOOSE "{\"type\":\"clock\",\"offset_ns\":1000,\"uncertainty_ns\":500}\n"
#define CLOCK_TIGHT "{\"type\":\"clock\",\"offset_ns\":2000,\"uncertainty_ns\":20}\n"
#define KERNEL                                                                                     \
	"{\"type\":\"kernel\",\"name\":\"rn_scale(float*, float, int)\",\"device\":0,"             \
	"\"context\":1,\"stream\":7,\"correlation\":3,\"start\":10000,\"end\":15000,"              \
	"\"grid\":[4096,1,1],\"block\":[256,1,1],\"registers\":16,\"static_shared\":0,"            \
	"\"dynamic_shared\":128}\n"
#define HTOD                                                                                       \
	"{\"type\":\"memcpy\",\"copy_kind\":\"htod\",\"bytes\":4194304,\"device\":0,"              \
	"\"stream\":7,\"start\":5000,\"end\":9000}\n"
#define MEMSET                                                                                     \
	"{\"type\":\"memset\",\"bytes\":64,\"device\":0,\"stream\":7,\"start\":16000,"             \
	"\"end\":16100}\n"

struct seen {
	size_t n;
	struct rn_gpu_span span[8];
	struct rn_cuda_span_info info[8];
	char names[8][64];
	char regions[8][64];
};

static int collect(void *ctx, const struct rn_gpu_span *span, const struct rn_cuda_span_info *info)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		s->span[s->n] = *span;
		s->info[s->n] = *info;
		strncpy(s->names[s->n], span->name, sizeof(s->names[0]) - 1);
		s->span[s->n].name = s->names[s->n];
		if (span->region) {
			strncpy(s->regions[s->n], span->region, sizeof(s->regions[0]) - 1);
			s->span[s->n].region = s->regions[s->n];
		}
	}
	s->n++;
	return 0;
}

static int load(const char *text, struct seen *s, struct rn_cuda_load_report *rep)
{
	memset(s, 0, sizeof(*s));
	rn_cuda_load_report_init(rep);
	return rn_cuda_load(text, strlen(text), collect, s, rep);
}

static void test_cuda_load_spans(void **state)
{
	const char *f = HEADER CLOCK_LOOSE HTOD KERNEL MEMSET CLOCK_TIGHT
		"{\"type\":\"future_kind\",\"x\":1}\n";
	struct rn_cuda_load_report rep;
	struct seen s;

	(void)state;
	assert_int_equal(load(f, &s, &rep), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(rep.files, 1);
	assert_int_equal(rep.spans, 3);
	assert_int_equal(rep.truncated, 0);
	/* The tightest calibration (offset 2000, +/- 20) maps every span, even earlier ones. */
	assert_int_equal(s.span[0].kind, RN_GPU_COPY);
	assert_string_equal(s.span[0].name, "memcpy_htod");
	assert_int_equal(s.span[0].dir, RN_GPU_DIR_HTOD);
	assert_int_equal(s.span[0].bytes, 4194304);
	assert_int_equal(s.span[0].start_ns, 7000);
	assert_int_equal(s.span[0].end_ns, 11000);
	assert_int_equal(s.span[0].uncertainty_ns, 20);
	assert_int_equal(s.span[0].pid, 4242);
	assert_int_equal(s.span[1].kind, RN_GPU_DISPATCH);
	assert_string_equal(s.span[1].name, "rn_scale(float*, float, int)");
	assert_int_equal(s.span[1].groups[0], 4096);
	assert_int_equal(s.span[1].queue_family, 7);
	assert_int_equal(s.info[1].block[0], 256);
	assert_int_equal(s.info[1].registers, 16);
	assert_int_equal(s.info[1].dynamic_shared, 128);
	assert_int_equal(s.span[1].start_ns, 12000);
	assert_string_equal(s.span[2].name, "memset");
	assert_int_equal(s.span[2].bytes, 64);
}

/* NVTX regions: launches joined with kernels by correlation id (records in any order),
 * nesting, an unclosed region, a graph replay as one span, and the unbalanced counter. */
static void test_cuda_load_regions_and_graphs(void **state)
{
	const char *f = HEADER CLOCK_TIGHT
		"{\"type\":\"region_begin\",\"id\":1,\"parent\":0,\"name\":\"main\",\"tid\":9,"
		"\"start\":1000}\n"
		"{\"type\":\"kernel\",\"name\":\"k_in\",\"device\":0,\"context\":1,\"stream\":7,"
		"\"correlation\":5,\"start\":3000,\"end\":4000,\"grid\":[1,1,1],\"block\":[1,1,1],"
		"\"registers\":1,\"static_shared\":0,\"dynamic_shared\":0,\"graph\":0,"
		"\"graph_node\":0}\n"
		"{\"type\":\"kernel\",\"name\":\"k_main\",\"device\":0,\"context\":1,\"stream\":7,"
		"\"correlation\":6,\"start\":5000,\"end\":6000,\"grid\":[1,1,1],\"block\":[1,1,1],"
		"\"registers\":1,\"static_shared\":0,\"dynamic_shared\":0}\n"
		"{\"type\":\"memset\",\"bytes\":64,\"device\":0,\"stream\":7,\"start\":6100,"
		"\"end\":6200,\"correlation\":7,\"graph\":0,\"graph_node\":0}\n"
		"{\"type\":\"kernel\",\"name\":\"g1\",\"device\":0,\"context\":1,\"stream\":7,"
		"\"correlation\":8,\"start\":7000,\"end\":7500,\"grid\":[1,1,1],\"block\":[1,1,1],"
		"\"registers\":1,\"static_shared\":0,\"dynamic_shared\":0,\"graph\":3,"
		"\"graph_node\":11}\n"
		"{\"type\":\"kernel\",\"name\":\"g2\",\"device\":0,\"context\":1,\"stream\":7,"
		"\"correlation\":8,\"start\":7600,\"end\":8000,\"grid\":[1,1,1],\"block\":[1,1,1],"
		"\"registers\":1,\"static_shared\":0,\"dynamic_shared\":0,\"graph\":3,"
		"\"graph_node\":12}\n"
		"{\"type\":\"region_begin\",\"id\":2,\"parent\":1,\"name\":\"inner\",\"tid\":9,"
		"\"start\":2000}\n"
		"{\"type\":\"launch\",\"correlation\":5,\"region\":2}\n"
		"{\"type\":\"region_end\",\"id\":2,\"end\":2500}\n"
		"{\"type\":\"launch\",\"correlation\":6,\"region\":1}\n"
		"{\"type\":\"launch\",\"correlation\":8,\"region\":1}\n"
		"{\"type\":\"region_lost\",\"count\":2}\n";
	struct rn_cuda_load_report rep;
	struct seen s;

	(void)state;
	assert_int_equal(load(f, &s, &rep), 0);
	/* 4 kernels + 1 memset, then 2 regions and 1 graph replay */
	assert_int_equal(s.n, 8);
	assert_int_equal(rep.spans, 8);
	assert_int_equal(rep.regions, 2);
	assert_int_equal(rep.graph_replays, 1);
	assert_int_equal(rep.regions_lost, 2);
	assert_string_equal(s.span[0].name, "k_in");
	assert_string_equal(s.span[0].region, "inner");
	assert_int_equal(s.span[0].launch_id, 5);
	assert_string_equal(s.span[1].region, "main");
	assert_null(s.span[2].region); /* the memset was launched outside any region */
	assert_int_equal(s.span[3].graph_id, 3);
	assert_int_equal(s.span[3].graph_node_id, 11);
	assert_string_equal(s.span[3].region, "main");
	assert_int_equal(s.span[5].kind, RN_GPU_REGION);
	assert_string_equal(s.span[5].name, "main");
	assert_null(s.span[5].region);
	/* never closed: ends at the file's latest time (8000), flagged */
	assert_true(s.span[5].flags & RN_GPU_UNCLOSED);
	assert_int_equal(s.span[5].start_ns, 3000);
	assert_int_equal(s.span[5].end_ns, 10000);
	assert_int_equal(s.span[6].kind, RN_GPU_REGION);
	assert_string_equal(s.span[6].name, "inner");
	assert_string_equal(s.span[6].region, "main");
	assert_false(s.span[6].flags & RN_GPU_UNCLOSED);
	assert_int_equal(s.span[6].end_ns - s.span[6].start_ns, 500);
	assert_int_equal(s.span[7].kind, RN_GPU_GRAPH);
	assert_string_equal(s.span[7].name, "graph:3");
	assert_string_equal(s.span[7].region, "main");
	assert_int_equal(s.span[7].start_ns, 9000);
	assert_int_equal(s.span[7].end_ns, 10000);
}

/* A region_end naming no region, and one ending before it starts, are malformed. */
static void test_cuda_load_bad_regions(void **state)
{
	struct rn_cuda_load_report rep;
	struct seen s;

	(void)state;
	assert_int_equal(load(HEADER CLOCK_TIGHT "{\"type\":\"region_end\",\"id\":4,\"end\":9}\n",
			      &s, &rep),
			 -EBADMSG);
	assert_int_equal(rep.error_line, 3);
	assert_int_equal(load(HEADER CLOCK_TIGHT
			      "{\"type\":\"region_begin\",\"id\":1,\"parent\":0,\"name\":\"a\","
			      "\"tid\":1,\"start\":50}\n"
			      "{\"type\":\"region_end\",\"id\":1,\"end\":9}\n",
			      &s, &rep),
			 -EBADMSG);
	assert_int_equal(rep.error_line, 4);
}

static void test_cuda_load_without_clock_is_unmapped(void **state)
{
	struct rn_cuda_load_report rep;
	struct seen s;

	(void)state;
	assert_int_equal(load(HEADER KERNEL, &s, &rep), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(rep.unmapped, 1);
}

static void test_cuda_load_dropped_and_error(void **state)
{
	struct rn_cuda_load_report rep;
	struct seen s;

	(void)state;
	assert_int_equal(load(HEADER "{\"type\":\"dropped\",\"count\":12}\n"
				     "{\"type\":\"error\",\"what\":\"cuptiActivityEnable: no\"}\n",
			      &s, &rep),
			 0);
	assert_int_equal(rep.dropped, 12);
	assert_string_equal(rep.stopped, "cuptiActivityEnable: no");
}

/* Every prefix of a good file loads without error; cut inside a line it counts truncated. */
static void test_cuda_load_truncated_everywhere(void **state)
{
	const char *f = HEADER CLOCK_TIGHT HTOD KERNEL MEMSET;
	size_t len = strlen(f);

	(void)state;
	for (size_t cut = 0; cut <= len; cut++) {
		struct rn_cuda_load_report rep;
		struct seen s;
		char *copy = malloc(cut ? cut : 1);

		assert_non_null(copy);
		memcpy(copy, f, cut);
		memset(&s, 0, sizeof(s));
		rn_cuda_load_report_init(&rep);
		assert_int_equal(rn_cuda_load(copy, cut, collect, &s, &rep), 0);
		if (cut && f[cut - 1] != '\n')
			assert_int_equal(rep.truncated, 1);
		else
			assert_int_equal(rep.truncated, 0);
		assert_true(s.n <= 3);
		free(copy);
	}
}

static void expect_bad(const char *f, size_t line)
{
	struct rn_cuda_load_report rep;
	struct seen s;

	assert_int_equal(load(f, &s, &rep), -EBADMSG);
	assert_int_equal(rep.error_line, line);
	assert_true(rep.error[0] != 0);
}

static void test_cuda_load_hostile(void **state)
{
	char *huge;
	size_t n = RN_CUDA_MAX_LINE_BYTES + 100;

	(void)state;
	expect_bad("{\"format\":\"other\",\"version\":1,\"pid\":1}\n", 1);
	expect_bad("{\"format\":\"renacer-cuda\",\"version\":2,\"pid\":1}\n", 1);
	expect_bad("{\"format\":\"renacer-cuda\",\"version\":1,\"pid\":-1}\n", 1);
	expect_bad("[1,2,3]\n", 1);
	expect_bad(HEADER "not json\n", 2);
	expect_bad(HEADER "{\"type\":5}\n", 2);
	expect_bad(HEADER "{\"type\":\"clock\",\"offset_ns\":\"x\",\"uncertainty_ns\":1}\n", 2);
	expect_bad(HEADER CLOCK_TIGHT "{\"type\":\"kernel\",\"name\":\"k\"}\n", 3);
	/* Negative, oversized and mistyped numbers. */
	expect_bad(HEADER CLOCK_TIGHT "{\"type\":\"memcpy\",\"copy_kind\":\"htod\",\"bytes\":-1,"
				      "\"device\":0,\"stream\":0,\"start\":1,\"end\":2}\n",
		   3);
	expect_bad(HEADER CLOCK_TIGHT "{\"type\":\"memset\",\"bytes\":1,\"device\":99999999999,"
				      "\"stream\":0,\"start\":1,\"end\":2}\n",
		   3);
	expect_bad(HEADER CLOCK_TIGHT "{\"type\":\"memset\",\"bytes\":1.5,\"device\":0,"
				      "\"stream\":0,\"start\":1,\"end\":2}\n",
		   3);
	/* End before start. */
	expect_bad(HEADER CLOCK_TIGHT "{\"type\":\"memset\",\"bytes\":1,\"device\":0,"
				      "\"stream\":0,\"start\":9,\"end\":2}\n",
		   3);
	/* Grid with the wrong shape; duplicate keys; an embedded NUL. */
	expect_bad(HEADER CLOCK_TIGHT "{\"type\":\"kernel\",\"name\":\"k\",\"device\":0,"
				      "\"stream\":0,\"start\":1,\"end\":2,\"grid\":[1,1],"
				      "\"block\":[1,1,1],\"registers\":1,\"static_shared\":0,"
				      "\"dynamic_shared\":0}\n",
		   3);
	expect_bad(HEADER "{\"type\":\"dropped\",\"count\":1,\"count\":2}\n", 2);
	expect_bad(HEADER "{\"type\":\"error\",\"what\":\"a\\u0000b\"}\n", 2);
	/* Deep nesting. */
	{
		char deep[4200];
		size_t o = 0;

		o += (size_t)snprintf(deep, sizeof(deep), "%s{\"type\":\"x\",\"v\":", HEADER);
		for (int i = 0; i < 2000; i++)
			deep[o++] = '[';
		deep[o++] = '\n';
		deep[o] = 0;
		expect_bad(deep, 2);
	}
	/* A line over the limit. */
	huge = malloc(sizeof(HEADER) + n + 2);
	assert_non_null(huge);
	memcpy(huge, HEADER, sizeof(HEADER) - 1);
	memset(huge + sizeof(HEADER) - 1, ' ', n);
	huge[sizeof(HEADER) - 1 + n] = '\n';
	huge[sizeof(HEADER) + n] = 0;
	expect_bad(huge, 2);
	free(huge);
}

/* Lines in buf[len]: the 1-based number of the last one (a last line without '\n' counts). */
static size_t count_lines(const char *buf, size_t len)
{
	size_t n = 1;

	for (size_t i = 0; i + 1 < len; i++)
		n += buf[i] == '\n';
	return n;
}

/* Random text after a valid header: every input is either read (every span counted, a cut
 * last line counted as truncated, no error text) or rejected with -EBADMSG naming a line
 * after the header and saying why; the same bytes give the same result. Both outcomes must
 * occur, so the input does reach both paths. */
static void test_cuda_load_random_bytes(void **state)
{
	unsigned seed = 12345;
	char buf[512];
	int accepted = 0, rejected = 0;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		struct rn_cuda_load_report rep, rep2;
		struct seen s, s2;
		size_t len = sizeof(HEADER) - 1 + (size_t)(round % 200);
		int rc, rc2;

		memcpy(buf, HEADER, sizeof(HEADER) - 1);
		for (size_t i = sizeof(HEADER) - 1; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = "{}[]\":,0123456789-eE.tfnul\\ \nabcdeyp"[(seed >> 16) % 37];
		}
		memset(&s, 0, sizeof(s));
		rn_cuda_load_report_init(&rep);
		rc = rn_cuda_load(buf, len, collect, &s, &rep);
		assert_int_equal(rep.spans, s.n);
		if (rc == 0) {
			accepted++;
			assert_int_equal(rep.files, 1);
			assert_int_equal(rep.error[0], 0);
			assert_int_equal(rep.error_line, 0);
			assert_int_equal(rep.truncated, buf[len - 1] != '\n' ? 1 : 0);
		} else {
			rejected++;
			assert_int_equal(rc, -EBADMSG);
			assert_true(rep.error[0] != 0);
			assert_true(memchr(rep.error, 0, sizeof(rep.error)) != NULL);
			assert_true(rep.error_line >= 2); /* the header is valid */
			assert_true(rep.error_line <= count_lines(buf, len));
		}
		memset(&s2, 0, sizeof(s2));
		rn_cuda_load_report_init(&rep2);
		rc2 = rn_cuda_load(buf, len, collect, &s2, &rep2);
		assert_int_equal(rc2, rc);
		assert_int_equal(s2.n, s.n);
		assert_int_equal(rep2.error_line, rep.error_line);
	}
	assert_true(accepted > 0);
	assert_true(rejected > 0);
}

#define KERNEL_C(name, corr, start)                                                                \
	"{\"type\":\"kernel\",\"name\":\"" name "\",\"device\":0,\"context\":1,\"stream\":7,"      \
	"\"correlation\":" #corr ",\"start\":" #start ",\"end\":" #start "0,\"grid\":[1,1,1],"     \
	"\"block\":[1,1,1],\"registers\":1,\"static_shared\":0,\"dynamic_shared\":0}\n"

/* Regions across threads: "step" is open on thread 9 while thread 10 launches k_bwd outside
 * any range of its own (autograd's backward thread); thread 10's range "w" opens inside
 * step's window and thread 9 launches k_in in it. By time window (process scope, the
 * default), k_bwd is step's and k_in is w's (the latest opened); by thread, k_bwd has no
 * region and k_in is step's. A launch record without a time keeps its thread's region. */
static void test_cuda_load_regions_across_threads(void **state)
{
	const char *f = HEADER CLOCK_TIGHT
		"{\"type\":\"region_begin\",\"id\":1,\"parent\":0,\"name\":\"step\",\"tid\":9,"
		"\"start\":1000}\n"
		"{\"type\":\"region_begin\",\"id\":2,\"parent\":0,\"name\":\"w\",\"tid\":10,"
		"\"start\":2500}\n"
		"{\"type\":\"region_end\",\"id\":2,\"end\":3000}\n"
		"{\"type\":\"region_end\",\"id\":1,\"end\":5000}\n"
		"{\"type\":\"launch\",\"correlation\":7,\"region\":0,\"t\":2000}\n"
		"{\"type\":\"launch\",\"correlation\":8,\"region\":1,\"t\":2600}\n"
		"{\"type\":\"launch\",\"correlation\":9,\"region\":1}\n"
		"{\"type\":\"launch\",\"correlation\":10,\"region\":0,\"t\":6000}\n" KERNEL_C(
			"k_bwd", 7, 3000) KERNEL_C("k_in", 8, 3100) KERNEL_C("k_old", 9, 3200)
			KERNEL_C("k_after", 10, 7000);
	struct rn_cuda_load_report rep;
	struct seen s;

	(void)state;
	assert_int_equal(load(f, &s, &rep), 0);
	assert_int_equal(s.n, 6); /* 4 kernels, 2 regions */
	assert_string_equal(s.span[0].name, "k_bwd");
	assert_string_equal(s.span[0].region, "step");
	assert_string_equal(s.span[1].region, "w");
	assert_string_equal(s.span[2].region, "step"); /* no time: its thread's */
	assert_null(s.span[3].region);                 /* launched after every range closed */

	memset(&s, 0, sizeof(s));
	rn_cuda_load_report_init(&rep);
	assert_int_equal(rn_cuda_load_scoped(f, strlen(f), RN_CUDA_REGION_THREAD, collect, &s,
					     &rep),
			 0);
	assert_int_equal(s.n, 6);
	assert_null(s.span[0].region);
	assert_string_equal(s.span[1].region, "step");
	assert_string_equal(s.span[2].region, "step");
	assert_null(s.span[3].region);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda_load_spans),
		cmocka_unit_test(test_cuda_load_regions_and_graphs),
		cmocka_unit_test(test_cuda_load_bad_regions),
		cmocka_unit_test(test_cuda_load_without_clock_is_unmapped),
		cmocka_unit_test(test_cuda_load_dropped_and_error),
		cmocka_unit_test(test_cuda_load_truncated_everywhere),
		cmocka_unit_test(test_cuda_load_hostile),
		cmocka_unit_test(test_cuda_load_random_bytes),
		cmocka_unit_test(test_cuda_load_regions_across_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
