/*
 * test_vulkan_record.c - the layer's record format (collectors/vulkan/record.h) and the
 * loader (load.h): round trips, truncation at every byte, malformed records, and random
 * mutations that must never crash (run under ASan+UBSan in CI).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vulkan/load.h"
#include "vulkan/record.h"

struct file {
	uint8_t data[8192];
	size_t len;
};

static void add(struct file *f, const struct rn_vk_record *rec)
{
	size_t n = rn_vk_record_encode(rec, f->data + f->len, sizeof(f->data) - f->len);

	assert_true(n > 0);
	f->len += n;
}

/* A small realistic file: process, device, two calibrations, three spans, stats. */
static void make_file(struct file *f)
{
	struct rn_vk_record r;

	f->len = rn_vk_record_preamble(f->data, sizeof(f->data));
	assert_int_equal(f->len, RN_VK_PREAMBLE_BYTES);
	memset(&r, 0, sizeof(r));
	r.type = RN_VK_REC_PROCESS;
	r.u.process.pid = 4242;
	r.u.process.load_ns = 1000;
	snprintf(r.u.process.exe, sizeof(r.u.process.exe), "vk_compute");
	add(f, &r);

	memset(&r, 0, sizeof(r));
	r.type = RN_VK_REC_DEVICE;
	r.u.device.device = 1;
	r.u.device.vendor_id = 0x10de;
	r.u.device.driver_version = 7;
	r.u.device.uuid[3] = 0xab;
	r.u.device.timestamp_period_ns = 1.0;
	r.u.device.mode = RN_VK_MODE_DISPATCH;
	r.u.device.flags = RN_VK_DEV_CALIBRATED | RN_VK_DEV_HOST_RESET;
	r.u.device.nfamilies = 2;
	r.u.device.families[0].valid_bits = 64;
	r.u.device.families[1].valid_bits = 0;
	snprintf(r.u.device.name, sizeof(r.u.device.name), "test gpu");
	add(f, &r);

	memset(&r, 0, sizeof(r));
	r.type = RN_VK_REC_CALIBRATION;
	r.u.calibration.device = 1;
	r.u.calibration.gpu_ticks = 0;
	r.u.calibration.host_ns = 1000000;
	r.u.calibration.deviation_ns = 5;
	add(f, &r);
	r.u.calibration.gpu_ticks = 1000000;
	r.u.calibration.host_ns = 2000000;
	add(f, &r);

	for (int i = 0; i < 3; i++) {
		memset(&r, 0, sizeof(r));
		r.type = RN_VK_REC_SPAN;
		r.u.span.device = 1;
		r.u.span.kind = RN_VK_KIND_DISPATCH;
		r.u.span.flags = RN_VK_SPAN_SERIALIZED;
		r.u.span.begin_ticks = 100000 + (uint64_t)i * 1000;
		r.u.span.end_ticks = 100500 + (uint64_t)i * 1000;
		r.u.span.submit_ns = 1090000;
		r.u.span.harvest_ns = 1200000;
		r.u.span.groups[0] = 64;
		r.u.span.submit_seq = 1;
		snprintf(r.u.span.name, sizeof(r.u.span.name), "span%d", i);
		add(f, &r);
	}
	memset(&r, 0, sizeof(r));
	r.type = RN_VK_REC_STATS;
	r.u.stats.device = 1;
	r.u.stats.spans = 3;
	r.u.stats.untimed_secondary = 2;
	add(f, &r);
}

static void test_record_round_trip(void **state)
{
	struct file f;
	struct rn_vk_reader r;
	struct rn_vk_record rec;
	int types[16], n = 0, ret;

	(void)state;
	make_file(&f);
	assert_int_equal(rn_vk_reader_init(&r, f.data, f.len), 0);
	while ((ret = rn_vk_reader_next(&r, &rec)) > 0) {
		types[n++] = rec.type;
		if (rec.type == RN_VK_REC_DEVICE) {
			assert_int_equal(rec.u.device.vendor_id, 0x10de);
			assert_int_equal(rec.u.device.uuid[3], 0xab);
			assert_true(rec.u.device.timestamp_period_ns == 1.0);
			assert_int_equal(rec.u.device.nfamilies, 2);
			assert_string_equal(rec.u.device.name, "test gpu");
		} else if (rec.type == RN_VK_REC_SPAN) {
			assert_int_equal(rec.u.span.groups[0], 64);
			assert_int_equal(rec.u.span.flags, RN_VK_SPAN_SERIALIZED);
			assert_memory_equal(rec.u.span.name, "span", 4);
		} else if (rec.type == RN_VK_REC_PROCESS) {
			assert_int_equal(rec.u.process.pid, 4242);
			assert_string_equal(rec.u.process.exe, "vk_compute");
		}
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, 8);
	assert_int_equal(types[0], RN_VK_REC_PROCESS);
	assert_int_equal(types[7], RN_VK_REC_STATS);
}

static int count_span(void *ctx, const struct rn_gpu_span *span, const struct rn_vk_rec_span *raw)
{
	(void)raw;
	(void)span;
	(*(size_t *)ctx)++;
	return 0;
}

static int check_span(void *ctx, const struct rn_gpu_span *span, const struct rn_vk_rec_span *raw)
{
	(void)ctx;
	/* Calibration: host = 1000000 + ticks (interpolated), duration exactly 500 ticks. */
	assert_int_equal(span->start_ns, 1000000 + raw->begin_ticks);
	assert_int_equal(span->end_ns - span->start_ns, 500);
	assert_int_equal(span->uncertainty_ns, 5);
	assert_int_equal(span->pid, 4242);
	assert_int_equal(span->kind, RN_GPU_DISPATCH);
	assert_true(span->flags & RN_GPU_SERIALIZED);
	assert_int_equal(span->submit_ns, 1090000);
	return 0;
}

static void test_record_load_maps_spans(void **state)
{
	struct rn_vk_load_report rep;
	struct file f;

	(void)state;
	make_file(&f);
	rn_vk_load_report_init(&rep);
	assert_int_equal(rn_vk_load(f.data, f.len, check_span, NULL, &rep), 0);
	assert_int_equal(rep.spans, 3);
	assert_int_equal(rep.devices, 1);
	assert_int_equal(rep.calibrations, 2);
	assert_int_equal(rep.stats.untimed_secondary, 2);
	assert_int_equal(rep.truncated, 0);
}

/* Every prefix of a valid file: a clean end, or a truncation, never anything else. */
static void test_record_truncated_at_every_byte(void **state)
{
	struct file f;

	(void)state;
	make_file(&f);
	for (size_t len = 0; len <= f.len; len++) {
		struct rn_vk_load_report rep;
		uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any over-read */
		size_t spans = 0;
		int ret;

		memcpy(copy, f.data, len);
		rn_vk_load_report_init(&rep);
		ret = rn_vk_load(copy, len, count_span, &spans, &rep);
		assert_int_equal(ret, 0);
		assert_true(spans <= 3);
		assert_int_equal(rep.error, 0);
		assert_true(rep.truncated <= 1);
		if (len == f.len)
			assert_int_equal(spans, 3);
		free(copy);
	}
}

static void test_record_rejects_malformed(void **state)
{
	struct file f;
	struct rn_vk_reader r;
	struct rn_vk_record rec;
	uint8_t bad[64];

	(void)state;
	/* Bad magic, future version. */
	memset(bad, 0, sizeof(bad));
	memcpy(bad, "NOTAFILE", 8);
	assert_int_equal(rn_vk_reader_init(&r, bad, sizeof(bad)), -RN_VK_EMAGIC);
	rn_vk_record_preamble(bad, sizeof(bad));
	bad[8] = 99;
	assert_int_equal(rn_vk_reader_init(&r, bad, sizeof(bad)), -RN_VK_EVERSION);

	/* A span with an out-of-range kind. */
	make_file(&f);
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_SPAN;
	rec.u.span.device = 1;
	add(&f, &rec);
	/* kind byte of the last span's payload: before the empty name and region strings */
	f.data[f.len - 2 - 2 - 80 + 4] = 77;
	assert_int_equal(rn_vk_reader_init(&r, f.data, f.len), 0);
	{
		int ret;

		while ((ret = rn_vk_reader_next(&r, &rec)) > 0)
			;
		assert_int_equal(ret, -RN_VK_EMALFORMED);
		/* The reader stays on the bad record. */
		assert_int_equal(rn_vk_reader_next(&r, &rec), -RN_VK_EMALFORMED);
	}

	/* A payload larger than the cap; a string running past its payload; a NaN period. */
	{
		size_t n = rn_vk_record_preamble(bad, sizeof(bad));
		uint8_t *p = bad + n;

		p[0] = RN_VK_REC_SPAN;
		p[1] = 0;
		p[2] = p[3] = 0;
		p[4] = 0;
		p[5] = 0;
		p[6] = 2; /* 128 KiB */
		p[7] = 0;
		assert_int_equal(rn_vk_reader_init(&r, bad, n + 8), 0);
		assert_int_equal(rn_vk_reader_next(&r, &rec), -RN_VK_EMALFORMED);
	}
	{
		struct file g;
		struct rn_vk_record d;

		g.len = rn_vk_record_preamble(g.data, sizeof(g.data));
		memset(&d, 0, sizeof(d));
		d.type = RN_VK_REC_PROCESS;
		snprintf(d.u.process.exe, sizeof(d.u.process.exe), "abc");
		add(&g, &d);
		g.data[g.len - 4] = 200; /* string length 200 in a 3-byte string */
		assert_int_equal(rn_vk_reader_init(&r, g.data, g.len), 0);
		assert_int_equal(rn_vk_reader_next(&r, &rec), -RN_VK_EMALFORMED);

		g.len = rn_vk_record_preamble(g.data, sizeof(g.data));
		memset(&d, 0, sizeof(d));
		d.type = RN_VK_REC_DEVICE;
		d.u.device.timestamp_period_ns = NAN;
		add(&g, &d);
		assert_int_equal(rn_vk_reader_init(&r, g.data, g.len), 0);
		assert_int_equal(rn_vk_reader_next(&r, &rec), -RN_VK_EMALFORMED);
	}
}

/* Unknown record types are skipped; payloads longer than known are accepted. */
static void test_record_forward_compatible(void **state)
{
	struct file f;
	struct rn_vk_reader r;
	struct rn_vk_record rec;
	uint8_t *p;
	size_t spans = 0;
	struct rn_vk_load_report rep;

	(void)state;
	make_file(&f);
	p = f.data + f.len;
	memset(p, 0, 20);
	p[0] = 200; /* unknown type 200, 12-byte payload */
	p[4] = 12;
	f.len += 20;
	assert_int_equal(rn_vk_reader_init(&r, f.data, f.len), 0);
	while (rn_vk_reader_next(&r, &rec) > 0)
		;
	assert_int_equal(rn_vk_reader_offset(&r), f.len);
	rn_vk_load_report_init(&rep);
	assert_int_equal(rn_vk_load(f.data, f.len, count_span, &spans, &rep), 0);
	assert_int_equal(spans, 3);
}

/* What a mutated file delivered: spans seen by the callback, each checked. */
struct fuzz_seen {
	size_t spans;
	size_t len; /* bytes of the file, to bound the span count */
};

/* Each delivered span is a mapped span: end = start + the measured duration, so never before
 * its start; its name is a string. */
static int fuzz_span(void *ctx, const struct rn_gpu_span *span, const struct rn_vk_rec_span *raw)
{
	struct fuzz_seen *seen = ctx;

	assert_non_null(raw);
	assert_non_null(span->name);
	assert_true(span->end_ns >= span->start_ns);
	seen->spans++;
	assert_true(seen->spans * RN_VK_RECORD_HEADER_BYTES <= seen->len);
	return 0;
}

/* The loader's contract (load.h) for one input: 0 with no error recorded and every span
 * counted, or a -RN_VK_E* code recorded in the report at an offset inside the file with
 * nothing delivered. Returns the result so callers can tell which path was taken. */
static int fuzz_load_checked(const uint8_t *data, size_t len)
{
	struct rn_vk_load_report rep, rep2;
	struct fuzz_seen seen = { 0, len }, seen2 = { 0, len };
	int rc, rc2;

	rn_vk_load_report_init(&rep);
	rc = rn_vk_load(data, len, fuzz_span, &seen, &rep);
	assert_true(rc <= 0);
	assert_int_equal(rep.files, 1);
	if (rc == 0) {
		assert_int_equal(rep.error, 0);
		assert_int_equal(rep.spans, seen.spans);
		assert_true(rep.truncated <= 1);
	} else {
		assert_true(rc <= -RN_VK_EMAGIC && rc >= -RN_VK_EMALFORMED);
		assert_int_equal(rep.error, rc);
		assert_true(rep.error_offset <= len);
		assert_int_equal(seen.spans, 0);
		assert_int_equal(rep.spans, 0);
	}
	/* The same bytes load the same way. */
	rn_vk_load_report_init(&rep2);
	rc2 = rn_vk_load(data, len, fuzz_span, &seen2, &rep2);
	assert_int_equal(rc2, rc);
	assert_int_equal(seen2.spans, seen.spans);
	return rc;
}

/* Random byte mutations and truncations of a valid file: every input either loads (spans
 * bounded by its size, no error) or is rejected with a record error and delivers nothing.
 * Both outcomes must occur, so the mutations do reach the checks (run under ASan+UBSan in
 * CI for memory errors). */
static void test_record_fuzz_mutations(void **state)
{
	struct file f;
	uint32_t seed = 12345;
	int loaded = 0, rejected = 0;

	(void)state;
	make_file(&f);
	assert_int_equal(fuzz_load_checked(f.data, f.len), 0);
	for (int iter = 0; iter < 20000; iter++) {
		uint8_t *copy = malloc(f.len);
		size_t len = f.len;
		int flips;

		assert_non_null(copy);
		memcpy(copy, f.data, f.len);
		seed = seed * 1103515245u + 12345u;
		flips = 1 + (int)(seed >> 28);
		for (int k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % len] = (uint8_t)(seed >> 3);
		}
		if (iter % 3 == 0) {
			seed = seed * 1103515245u + 12345u;
			len = (seed >> 8) % (f.len + 1);
		}
		if (fuzz_load_checked(copy, len) == 0)
			loaded++;
		else
			rejected++;
		free(copy);
	}
	assert_true(loaded > 0);
	assert_true(rejected > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_record_load_maps_spans),
		cmocka_unit_test(test_record_truncated_at_every_byte),
		cmocka_unit_test(test_record_rejects_malformed),
		cmocka_unit_test(test_record_forward_compatible),
		cmocka_unit_test(test_record_fuzz_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
