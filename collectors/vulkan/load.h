/*
 * load.h - turn one record file of the Vulkan layer into GPU spans on the host timeline.
 *
 * rn_vk_load() decodes a whole file (record.h) in three passes: devices, calibration samples,
 * statistics and disable notices first; then, for devices without calibration, the causal
 * fallback bounds of clock.h from their spans; then every span, mapped to CLOCK_MONOTONIC and
 * handed to a callback as a `struct rn_gpu_span` (trace.h) together with its raw record.
 *
 * A span's start is its begin tick mapped through the device's clock; its end is the start
 * plus the measured duration (rn_vk_ticks_elapsed_ns), so durations are exactly what the GPU
 * counted, independent of the mapping. The uncertainty is that of the mapped start.
 *
 * Runner side: allocates with rn_x* (dies on out-of-memory), never prints.
 */
#ifndef RN_VK_LOAD_H
#define RN_VK_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "trace.h"

/* What loading one or more files found besides spans. Zero it before the first file; each
 * rn_vk_load() adds to it. */
struct rn_vk_load_report {
	size_t files;                 /* files loaded */
	size_t devices;               /* DEVICE records */
	size_t spans;                 /* spans handed to the callback */
	size_t unmapped;              /* spans dropped: unknown device, no timestamps, no clock */
	size_t calibrations;          /* CALIBRATION records */
	uint64_t max_deviation_ns;    /* largest deviation among the calibration samples, ns */
	uint64_t min_deviation_ns;    /* smallest, ns (UINT64_MAX if none) */
	size_t uncalibrated;          /* devices mapped with the causal fallback */
	struct rn_vk_rec_stats stats; /* sums of each device's last STATS record (device = 0) */
	size_t disabled;              /* DISABLED records */
	char disabled_msg[2 * RN_VK_NAME_MAX + 16]; /* the first one: "device 'NAME': MESSAGE" */
	size_t truncated;    /* files that end inside a record (a crash between flushes) */
	int error;           /* first hard error of a file: -RN_VK_E* (record.h), or 0 */
	size_t error_offset; /* byte offset of that error in its file */
};

/* Receives one mapped span (`span->name` is borrowed for the call) and its raw record.
 * Return 0 to go on, non-zero to stop loading (rn_vk_load then returns that value). */
typedef int (*rn_vk_span_fn)(void *ctx, const struct rn_gpu_span *span,
			     const struct rn_vk_rec_span *raw);

/*
 * Load the record file `data` (`len` bytes, borrowed). Returns 0 when the file was read to its
 * end or to a truncated last record (counted in rep->truncated; the spans before it are
 * delivered); a negative -RN_VK_E* code when the file is not a record file or a record is
 * malformed (nothing of that file is delivered; rep->error and error_offset are set); or the
 * callback's non-zero value. Never crashes on hostile input; work is O(n log n) in its size.
 */
int rn_vk_load(const void *data, size_t len, rn_vk_span_fn fn, void *ctx,
	       struct rn_vk_load_report *rep);

/* Make `rep` empty (min_deviation_ns = UINT64_MAX). */
void rn_vk_load_report_init(struct rn_vk_load_report *rep);

#endif
