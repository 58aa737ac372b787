/*
 * regressions.c - cmocka cases for what the fuzzers found, where replaying the input through
 * the harness is not enough to show the bug in an ordinary build:
 *
 * - undefined behaviour that gives the expected bits on common compilers (signed overflow):
 *   this binary compiles the module under test itself with -fsanitize=undefined
 *   -fsanitize-undefined-trap-on-error, so the case traps in every build, not only under the
 *   ASan/UBSan CI job;
 * - diagnostics that are wrong but do not crash (a wrong offset, a misleading word).
 *
 * The inputs the fuzzers saved are in tests/fuzz/regressions/<harness>/ and are replayed by
 * ctest fuzz.replay.<harness> as well.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "clock.h"
#include "golden.h"
#include "load.h"
#include "record.h"

/*
 * fuzz_vk_record, regressions/vk_record/clock-delta-63-valid-bits.rnvk: a DEVICE record whose
 * queue family has timestampValidBits = 63 (the reader accepts 0..64). rn_vk_ticks_delta()
 * then folds the upper half of the ring with (int64_t)d - (int64_t)(1 << 63), i.e.
 * d - INT64_MIN: signed overflow (collectors/vulkan/clock.c, rn_vk_ticks_delta).
 */
static void test_regressions_ticks_delta_63_bits(void **state)
{
	uint64_t half = UINT64_C(1) << 62;

	(void)state;
	/* 2^62 + 5 ticks forward on a 63-bit ring is 2^62 - 5 ticks backward. */
	assert_true(rn_vk_ticks_delta(0, half + 5, 63) == -(int64_t)(half - 5));
	assert_true(rn_vk_ticks_delta(half + 5, 0, 63) == (int64_t)(half - 5));
	assert_true(rn_vk_ticks_delta(0, 7, 63) == 7);
	/* The neighbours for reference: 62 and 64 bits. */
	assert_true(rn_vk_ticks_delta(0, (UINT64_C(1) << 61) + 1, 62) ==
		    -(int64_t)((UINT64_C(1) << 61) - 1));
	assert_true(rn_vk_ticks_delta(1, 0, 64) == -1);
}

/* The whole record file of the fuzzer's input loads without undefined behaviour. */
static int count_span(void *ctx, const struct rn_gpu_span *span, const struct rn_vk_rec_span *raw)
{
	(void)span;
	(void)raw;
	(*(size_t *)ctx)++;
	return 0;
}

static void test_regressions_load_63_bit_family(void **state)
{
	struct rn_vk_load_report rep;
	struct rn_buf b;
	size_t spans = 0;

	(void)state;
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b,
					  RN_SOURCE_DIR "/tests/fuzz/regressions/vk_record/"
							"clock-delta-63-valid-bits.rnvk"),
			 0);
	rn_vk_load_report_init(&rep);
	rn_vk_load(b.buf, b.len, count_span, &spans, &rep);
	rn_buf_release(&b);
}

/* Append one record to a file being built in `f`. */
static void add_record(struct rn_buf *f, const struct rn_vk_record *rec)
{
	uint8_t tmp[RN_VK_RECORD_MAX_BYTES];
	size_t n = rn_vk_record_encode(rec, tmp, sizeof(tmp));

	assert_true(n > 0);
	rn_buf_add(f, tmp, n);
}

/*
 * fuzz_vk_record: a CALIBRATION record naming a device no DEVICE record introduced makes the
 * file malformed (by design), but rn_vk_load reports error_offset 0 (the magic) instead of
 * the offset of the offending record: pass_meta() returns -RN_VK_EMALFORMED without calling
 * fail() with the reader's offset, and rn_vk_load() then records offset 0
 * (collectors/vulkan/load.c). load.h: "error_offset: byte offset of that error in its file".
 */
static void test_regressions_load_error_offset(void **state)
{
	uint8_t pre[RN_VK_PREAMBLE_BYTES];
	struct rn_vk_load_report rep;
	struct rn_vk_record rec;
	struct rn_buf f;
	size_t spans = 0, bad_at;
	int rc;

	(void)state;
	rn_buf_init(&f, 0);
	assert_int_equal(rn_vk_record_preamble(pre, sizeof(pre)), RN_VK_PREAMBLE_BYTES);
	rn_buf_add(&f, pre, sizeof(pre));
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_PROCESS;
	rec.u.process.pid = 42;
	snprintf(rec.u.process.exe, sizeof(rec.u.process.exe), "app");
	add_record(&f, &rec);
	bad_at = f.len;
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_CALIBRATION;
	rec.u.calibration.device = 5; /* never introduced */
	add_record(&f, &rec);
	rn_vk_load_report_init(&rep);
	rc = rn_vk_load(f.buf, f.len, count_span, &spans, &rep);
	assert_int_equal(rc, -RN_VK_EMALFORMED);
	assert_int_equal(rep.error, -RN_VK_EMALFORMED);
	assert_int_equal(spans, 0);
	assert_int_equal(rep.error_offset, bad_at);
	rn_buf_release(&f);
}

/*
 * tests/faults golden_corrupt_variants, and fuzz_golden's seeds: a golden trace with a NUL
 * byte is reported as "truncated golden trace: ... near end of file", because jansson stops
 * at the NUL and rn_golden_read() classifies any "end of file" text as truncation
 * (assertions/golden_read.c). golden.h reserves "truncated" for input that ends early; this file
 * does not end early, it is corrupt.
 */
static void test_regressions_golden_nul_is_corrupt(void **state)
{
	static const char text[] = "{\"format\": \"renacer-golden/1\",\0 \"runs\": 1}\n";
	char path[] = "/tmp/renacer-regress-XXXXXX";
	struct rn_golden g;
	struct rn_diag d;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	assert_int_equal(rn_golden_read(path, &g, &d), -EINVAL);
	unlink(path);
	if (strncmp(d.msg, "corrupt golden trace: ", 22))
		fail_msg("a NUL inside the file is diagnosed as: %s", d.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regressions_ticks_delta_63_bits),
		cmocka_unit_test(test_regressions_load_63_bit_family),
		cmocka_unit_test(test_regressions_load_error_offset),
		cmocka_unit_test(test_regressions_golden_nul_is_corrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
