/*
 * fuzz_span_pipe.c - the app collector's reader of renacer_span.h records (the span pipe) and
 * its fold of them into the trace (rn_app_replay, collectors/app/app.c) on arbitrary bytes.
 * The first byte chooses the run's window (bit 0: the whole clock, so spans at any time are
 * kept; else the last second), the rest is what the pipe carried. Properties: every app span
 * in the trace has a name that is valid UTF-8 without control characters, an end not before
 * its start and times within the run; a parent, when there is one, is such a name too; no
 * more spans than records; nothing leaks. Seeds: tests/fuzz/regressions/span_pipe/.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "app/renacer_span.h"
#include "escape.h"
#include "fuzz.h"
#include "trace.h"
#include "utf8.h"

static void check_text(const char *s, const char *what)
{
	FUZZ_CHECK(s != NULL, what);
	FUZZ_CHECK(rn_utf8_valid(s), what);
	FUZZ_CHECK(!rn_has_ctl(s), what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_trace t;
	struct timespec now;
	uint8_t *copy;
	size_t i;

	if (!size)
		return 0;
	rn_trace_init(&t);
	if (data[0] & 1) {
		t.start_ns = 0;
		t.end_ns = UINT64_MAX - 1;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &now);
		t.end_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
		t.start_ns = t.end_ns - 1000000000ull;
	}
	/* an exact-size copy, so a read past the bytes is caught by the sanitizers */
	copy = malloc(size - 1 ? size - 1 : 1);
	memcpy(copy, data + 1, size - 1);
	rn_app_replay(copy, size - 1, NULL, 0, false, &t);
	FUZZ_CHECK(t.napp <= (size - 1) / sizeof(struct renacer_span_rec),
		   "no more spans than records");
	for (i = 0; i < t.napp; i++) {
		const struct rn_app_span *a = &t.app[i];

		check_text(a->name, "a span name is one line of UTF-8");
		if (a->parent)
			check_text(a->parent, "a parent name is one line of UTF-8");
		FUZZ_CHECK(a->end_ns >= a->start_ns, "a span ends after it starts");
		FUZZ_CHECK(a->start_ns >= t.start_ns || t.start_ns - a->start_ns <= 60000000000ull,
			   "a span starts in the run");
	}
	rn_trace_release(&t);
	free(copy);
	return 0;
}
