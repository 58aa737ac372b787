/*
 * fuzz_vk_record.c - the Vulkan layer's record reader (collectors/vulkan/record.h) and the
 * loader built on it (load.h) on arbitrary file contents.
 *
 * Properties:
 * - rn_vk_reader_init/next never read outside the input (ASan) and return only documented
 *   codes; after an error, calling next again returns the same error (the reader stays put);
 *   the offset only moves forward and stays within the file;
 * - decoded strings are NUL-terminated within RN_VK_NAME_MAX, enums are in range;
 * - encode/decode round trip: a decoded record encodes (into RN_VK_RECORD_MAX_BYTES) and
 *   decodes again to a record that encodes to the same bytes;
 * - rn_vk_load agrees with the reader: a file the reader finds malformed (or not a record
 *   file, or of a newer version) is an error and delivers no span; a file it reads to the
 *   end loads with 0 unless its records break the order rules (then it is malformed); an
 *   error code is reported in rep->error with an offset inside the file.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "load.h"
#include "record.h"

#define MAX_RECORDS 100000

static bool is_error(int rc)
{
	return rc == -RN_VK_EMAGIC || rc == -RN_VK_EVERSION || rc == -RN_VK_ETRUNC ||
		rc == -RN_VK_EMALFORMED;
}

static void check_string(const char *s, const char *what)
{
	FUZZ_CHECK(memchr(s, '\0', RN_VK_NAME_MAX) != NULL, what);
}

static void check_record(const struct rn_vk_record *rec)
{
	switch (rec->type) {
	case RN_VK_REC_PROCESS:
		check_string(rec->u.process.exe, "process exe not terminated");
		break;
	case RN_VK_REC_DEVICE:
		FUZZ_CHECK(rec->u.device.nfamilies <= RN_VK_MAX_FAMILIES, "too many families");
		FUZZ_CHECK(rec->u.device.timestamp_period_ns > 0, "period not positive");
		FUZZ_CHECK(rec->u.device.mode <= RN_VK_MODE_DISPATCH, "mode out of range");
		check_string(rec->u.device.name, "device name not terminated");
		break;
	case RN_VK_REC_SPAN:
		FUZZ_CHECK(rec->u.span.kind < RN_VK_KIND_COUNT, "span kind out of range");
		FUZZ_CHECK(rec->u.span.dir < RN_VK_DIR_COUNT, "span dir out of range");
		check_string(rec->u.span.name, "span name not terminated");
		break;
	case RN_VK_REC_DISABLED:
		check_string(rec->u.disabled.message, "disabled message not terminated");
		break;
	case RN_VK_REC_CALIBRATION:
	case RN_VK_REC_STATS:
		break;
	default:
		fuzz_fail("reader returned unknown record type %d", (int)rec->type);
	}
}

/* encode(decode(encode(rec))) == encode(rec) */
static void check_round_trip(const struct rn_vk_record *rec)
{
	static uint8_t pre_and_rec[RN_VK_PREAMBLE_BYTES + RN_VK_RECORD_MAX_BYTES];
	static uint8_t again[RN_VK_RECORD_MAX_BYTES];
	struct rn_vk_record back;
	struct rn_vk_reader r;
	size_t n, m;

	FUZZ_CHECK(rn_vk_record_preamble(pre_and_rec, sizeof(pre_and_rec)) == RN_VK_PREAMBLE_BYTES,
		   "preamble not written");
	n = rn_vk_record_encode(rec, pre_and_rec + RN_VK_PREAMBLE_BYTES, RN_VK_RECORD_MAX_BYTES);
	FUZZ_CHECK(n > 0, "a decoded record does not encode within RN_VK_RECORD_MAX_BYTES");
	FUZZ_CHECK(rn_vk_reader_init(&r, pre_and_rec, RN_VK_PREAMBLE_BYTES + n) == 0,
		   "own preamble rejected");
	FUZZ_CHECK(rn_vk_reader_next(&r, &back) == 1, "an encoded record does not decode");
	FUZZ_CHECK(back.type == rec->type, "record type changed in the round trip");
	m = rn_vk_record_encode(&back, again, sizeof(again));
	FUZZ_CHECK(m == n && !memcmp(again, pre_and_rec + RN_VK_PREAMBLE_BYTES, n),
		   "encode/decode round trip is not stable");
	FUZZ_CHECK(rn_vk_reader_next(&r, &back) == 0, "one record encoded, more decoded");
}

struct load_ctx {
	size_t spans;
};

static int on_span(void *ctx, const struct rn_gpu_span *span, const struct rn_vk_rec_span *raw)
{
	struct load_ctx *c = ctx;

	FUZZ_CHECK(span && raw, "callback without a span");
	FUZZ_CHECK(span->name != NULL, "span without a name");
	FUZZ_CHECK((int)span->kind >= 0 && (int)span->kind < RN_VK_KIND_COUNT, "kind out of range");
	FUZZ_CHECK((int)span->dir >= 0 && (int)span->dir < RN_VK_DIR_COUNT, "dir out of range");
	c->spans++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_vk_reader r;
	struct rn_vk_record rec;
	struct rn_vk_load_report rep;
	struct load_ctx lc = { 0 };
	int rc, end, lrc;
	size_t k = 0, prev;

	rc = rn_vk_reader_init(&r, data, size);
	FUZZ_CHECK(rc == 0 || rc == -RN_VK_EMAGIC || rc == -RN_VK_EVERSION || rc == -RN_VK_ETRUNC,
		   "undocumented init result");
	end = rc;
	if (!rc) {
		prev = rn_vk_reader_offset(&r);
		FUZZ_CHECK(prev >= RN_VK_PREAMBLE_BYTES && prev <= size,
			   "first offset out of range");
		for (k = 0; k < MAX_RECORDS; k++) {
			end = rn_vk_reader_next(&r, &rec);
			if (end != 1)
				break;
			check_record(&rec);
			check_round_trip(&rec);
			FUZZ_CHECK(rn_vk_reader_offset(&r) > prev &&
					   rn_vk_reader_offset(&r) <= size,
				   "offset did not advance within the file");
			prev = rn_vk_reader_offset(&r);
		}
		FUZZ_CHECK(end == 1 || end == 0 || is_error(end), "undocumented next result");
		if (end < 0) {
			/* Unknown records before the bad one may have been skipped. */
			prev = rn_vk_reader_offset(&r);
			FUZZ_CHECK(prev <= size, "error offset outside the file");
			FUZZ_CHECK(rn_vk_reader_next(&r, &rec) == end,
				   "a second call after an error gives another result");
			FUZZ_CHECK(rn_vk_reader_offset(&r) == prev,
				   "a repeated error moved the reader");
		}
		FUZZ_CHECK(rn_vk_record_strerror(end) != NULL, "no error text");
	}

	rn_vk_load_report_init(&rep);
	lrc = rn_vk_load(data, size, on_span, &lc, &rep);
	if (lrc < 0) {
		FUZZ_CHECK(is_error(lrc), "undocumented load result");
		FUZZ_CHECK(lc.spans == 0, "a failed load delivered spans");
		FUZZ_CHECK(rep.error == lrc, "load error not in the report");
	}
	if (end == -RN_VK_EMALFORMED || end == -RN_VK_EMAGIC || end == -RN_VK_EVERSION)
		FUZZ_CHECK(lrc < 0, "the reader rejects the file, the loader accepts it");
	/* A file the reader walks cleanly may still break the loader's rules on record order
	 * (record.h: a DEVICE record comes before anything naming that device): malformed. */
	if (end == 0 && k < MAX_RECORDS)
		FUZZ_CHECK((lrc == 0 && rep.truncated == 0) || lrc == -RN_VK_EMALFORMED,
			   "a clean file fails to load for another reason than record order");
	if (lrc < 0)
		FUZZ_CHECK(rep.error_offset <= size, "error offset outside the file");
	return 0;
}
