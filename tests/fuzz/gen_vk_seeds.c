/*
 * gen_vk_seeds.c - write seed inputs for fuzz_vk_record: small, valid Vulkan layer record
 * files (one of every record type, a calibrated device with spans, a file cut inside a
 * record, a file with a record type from the future).
 *
 *     fuzz_vk_seeds DIR
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "record.h"

static uint8_t file[1 << 16];
static size_t flen;

static void begin(void)
{
	flen = rn_vk_record_preamble(file, sizeof(file));
}

static void add(const struct rn_vk_record *rec)
{
	flen += rn_vk_record_encode(rec, file + flen, sizeof(file) - flen);
}

static int save(const char *dir, const char *name, size_t len)
{
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = rn_write_file_atomic(path, file, len);
	if (rc)
		fprintf(stderr, "fuzz_vk_seeds: cannot write '%s': %s\n", path, strerror(-rc));
	return rc;
}

static void device(uint32_t id, uint32_t flags)
{
	struct rn_vk_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_DEVICE;
	rec.u.device.device = id;
	rec.u.device.vendor_id = 0x10005;
	rec.u.device.timestamp_period_ns = 1.0;
	rec.u.device.mode = RN_VK_MODE_DISPATCH;
	rec.u.device.flags = flags;
	rec.u.device.nfamilies = 2;
	rec.u.device.families[0].valid_bits = 64;
	rec.u.device.families[0].queue_flags = 7;
	rec.u.device.families[1].valid_bits = 36;
	rec.u.device.families[1].queue_flags = 4;
	snprintf(rec.u.device.name, sizeof(rec.u.device.name), "llvmpipe (LLVM 15.0.6, 256 bits)");
	add(&rec);
}

static void span(uint32_t dev, uint8_t kind, uint64_t begin_ticks, uint64_t end_ticks,
		 const char *name)
{
	struct rn_vk_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_SPAN;
	rec.u.span.device = dev;
	rec.u.span.kind = kind;
	rec.u.span.dir = kind == RN_VK_KIND_COPY ? RN_VK_DIR_HTOD : RN_VK_DIR_NONE;
	rec.u.span.begin_ticks = begin_ticks;
	rec.u.span.end_ticks = end_ticks;
	rec.u.span.submit_ns = 1000;
	rec.u.span.harvest_ns = 5000000;
	rec.u.span.groups[0] = 64;
	rec.u.span.groups[1] = 1;
	rec.u.span.groups[2] = 1;
	rec.u.span.bytes = kind == RN_VK_KIND_COPY ? 4096 : 0;
	rec.u.span.submit_seq = 1;
	snprintf(rec.u.span.name, sizeof(rec.u.span.name), "%s", name);
	add(&rec);
}

int main(int argc, char **argv)
{
	struct rn_vk_record rec;
	size_t whole;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_vk_seeds DIR\n");
		return 2;
	}
	begin();
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_PROCESS;
	rec.u.process.pid = 4242;
	rec.u.process.load_ns = 1000;
	snprintf(rec.u.process.exe, sizeof(rec.u.process.exe), "vk_compute");
	add(&rec);
	device(1, RN_VK_DEV_HOST_RESET | RN_VK_DEV_CALIBRATED | RN_VK_DEV_UUID);
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_CALIBRATION;
	rec.u.calibration.device = 1;
	rec.u.calibration.gpu_ticks = 100000;
	rec.u.calibration.host_ns = 2000;
	rec.u.calibration.deviation_ns = 50;
	add(&rec);
	span(1, RN_VK_KIND_DISPATCH, 100500, 101500, "add");
	span(1, RN_VK_KIND_COPY, 101600, 101900, "copy");
	span(1, RN_VK_KIND_CMDBUF, 100400, 102000, "cmdbuf");
	span(1, RN_VK_KIND_SUBMIT, 100300, 102100, "submit");
	span(1, RN_VK_KIND_RENDER_PASS, 0xFFFFFFFFFull - 10, 20, "wrap");
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_STATS;
	rec.u.stats.device = 1;
	rec.u.stats.spans = 5;
	rec.u.stats.lost = 1;
	add(&rec);
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_DISABLED;
	rec.u.disabled.device = 1;
	rec.u.disabled.reason = RN_VK_DIS_QUERY_RESULT;
	rec.u.disabled.vk_result = -4;
	snprintf(rec.u.disabled.message, sizeof(rec.u.disabled.message), "device lost");
	add(&rec);
	whole = flen;
	rc |= save(argv[1], "all_types.rnvk", whole);
	rc |= save(argv[1], "truncated.rnvk", whole - 7);
	rc |= save(argv[1], "preamble_only.rnvk", RN_VK_PREAMBLE_BYTES);

	/* An uncalibrated device: spans mapped by the causal fallback. */
	begin();
	device(7, RN_VK_DEV_HOST_RESET);
	span(7, RN_VK_KIND_DISPATCH, 10, 20, "first");
	span(7, RN_VK_KIND_DISPATCH, 30, 45, "second");
	span(9, RN_VK_KIND_DISPATCH, 30, 45, "unknown_device");
	/* A record type from a newer layer: skipped by the reader. */
	file[flen + 0] = 99;
	file[flen + 1] = 0;
	memset(file + flen + 2, 0, 2);
	file[flen + 4] = 4;
	memset(file + flen + 5, 0, 3);
	memset(file + flen + 8, 0xAB, 4);
	flen += 12;
	rc |= save(argv[1], "uncalibrated.rnvk", flen);
	return rc ? 1 : 0;
}
