/*
 * record.h - the record files the Vulkan layer writes and the runner reads.
 *
 * The layer (collectors/vulkan/layer, loaded into the target) appends records to one file per
 * process, "<dir>/vk-<pid>.rnvk", where <dir> is RENACER_VK_DIR. The runner's Vulkan collector
 * reads every file after the process tree is gone (collector.h, finish).
 *
 * Wire format, version RN_VK_RECORD_VERSION, all integers little-endian, no padding:
 *
 *     file     := preamble record*
 *     preamble := magic[8] = "RNVKREC\0", u32 version, u32 preamble_bytes (>= 16)
 *     record   := u16 type, u16 reserved (0), u32 payload_bytes, payload[payload_bytes]
 *     string   := u16 length (<= RN_VK_NAME_MAX - 1), bytes[length] (no NUL on the wire)
 *
 * Records are self-describing: a reader skips types it does not know, and a payload longer
 * than the fields a reader knows is accepted (fields are only ever appended), so an older
 * reader can read a newer file of the same major version. A payload shorter than its type's
 * fixed fields, a string running past its payload, or a payload larger than
 * RN_VK_RECORD_MAX_PAYLOAD is malformed. A file that ends inside a record is truncated (the
 * target crashed or was killed between two flushes): everything before it is valid.
 *
 * The layer writes a PROCESS record first, a DEVICE record for each VkDevice before anything
 * that names that device, then CALIBRATION, SPAN, STATS and DISABLED records as they come.
 * Spans carry raw GPU ticks; the reader maps them to CLOCK_MONOTONIC with clock.h, using the
 * device's calibration records (which may come after the spans they serve).
 *
 * This file and record.c depend on libc only: the layer links them too, and the fuzzer feeds
 * rn_vk_reader_next() arbitrary bytes.
 */
#ifndef RN_VK_RECORD_H
#define RN_VK_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RN_VK_RECORD_MAGIC "RNVKREC"    /* 7 chars + the NUL = the 8 magic bytes */
#define RN_VK_RECORD_VERSION 1u         /* bumped when a field's meaning changes */
#define RN_VK_PREAMBLE_BYTES 16u        /* magic + version + preamble_bytes */
#define RN_VK_RECORD_HEADER_BYTES 8u    /* type + reserved + payload_bytes */
#define RN_VK_RECORD_MAX_PAYLOAD 65536u /* larger payloads are malformed */
#define RN_VK_NAME_MAX 256u             /* longest string including the NUL, bytes */
#define RN_VK_MAX_FAMILIES 32u          /* queue families described in a DEVICE record */

/* Record types (enum rn_vk_record_type). Values are on the wire: never renumber. */
enum rn_vk_record_type {
	RN_VK_REC_PROCESS = 1,     /* who wrote the file: pid, exe, layer load time */
	RN_VK_REC_DEVICE = 2,      /* one VkDevice: identity, timestamp properties, mode */
	RN_VK_REC_CALIBRATION = 3, /* one GPU/host clock sample (VK_EXT_calibrated_timestamps) */
	RN_VK_REC_SPAN = 4,        /* one timed piece of GPU work, in raw ticks */
	RN_VK_REC_STATS = 5,       /* counters of untimed/lost work, at device destruction */
	RN_VK_REC_DISABLED = 6,    /* the layer stopped timing a device, and why */
};

/* Flags of a DEVICE record (enum rn_vk_device_flags). */
enum rn_vk_device_flags {
	RN_VK_DEV_HOST_RESET = 1 << 0, /* queries reset on the host (vkResetQueryPool) */
	RN_VK_DEV_CALIBRATED = 1 << 1, /* VK_EXT_calibrated_timestamps with CLOCK_MONOTONIC */
	RN_VK_DEV_UUID = 1 << 2,       /* uuid is VkPhysicalDeviceIDProperties::deviceUUID */
};

/* Timing modes on the wire (same values as enum rn_gpu_mode in collector.h). */
enum rn_vk_mode {
	RN_VK_MODE_CMDBUF = 0,   /* a timestamp pair per primary command buffer */
	RN_VK_MODE_SUBMIT = 1,   /* one span per VkSubmitInfo batch */
	RN_VK_MODE_DISPATCH = 2, /* a pair per dispatch/copy/render pass (+ command buffers) */
};

/* Why the layer stopped timing a device (enum rn_vk_disable_reason). */
enum rn_vk_disable_reason {
	RN_VK_DIS_NO_MEMORY = 1,    /* host allocation failed */
	RN_VK_DIS_QUERY_POOL = 2,   /* vkCreateQueryPool failed (vk_result says how) */
	RN_VK_DIS_QUERY_RESULT = 3, /* vkGetQueryPoolResults failed, e.g. VK_ERROR_DEVICE_LOST */
	RN_VK_DIS_WRITE = 4,        /* the record file could not be written */
	RN_VK_DIS_OTHER = 5,        /* anything else; see the message */
};

/* PROCESS record. */
struct rn_vk_rec_process {
	uint32_t pid;             /* getpid() of the writer */
	uint64_t load_ns;         /* CLOCK_MONOTONIC when the file was opened, ns */
	char exe[RN_VK_NAME_MAX]; /* program_invocation_short_name, NUL-terminated */
};

/* Per-queue-family timestamp facts of a DEVICE record. */
struct rn_vk_rec_family {
	uint32_t valid_bits;  /* VkQueueFamilyProperties::timestampValidBits (0 = no timestamps) */
	uint32_t queue_flags; /* VkQueueFlags of the family */
};

/* DEVICE record. */
struct rn_vk_rec_device {
	uint32_t device;         /* layer-assigned id, unique within the file (from 1) */
	uint32_t vendor_id;      /* VkPhysicalDeviceProperties::vendorID */
	uint32_t device_id;      /* VkPhysicalDeviceProperties::deviceID */
	uint32_t driver_version; /* VkPhysicalDeviceProperties::driverVersion (vendor encoding) */
	uint32_t api_version;    /* VkPhysicalDeviceProperties::apiVersion */
	uint8_t uuid[16];        /* deviceUUID when flags has RN_VK_DEV_UUID, else zero */
	double timestamp_period_ns; /* VkPhysicalDeviceLimits::timestampPeriod, ns per tick (> 0) */
	uint32_t mode;              /* enum rn_vk_mode */
	uint32_t flags;             /* enum rn_vk_device_flags */
	uint32_t nfamilies;         /* entries of families[], <= RN_VK_MAX_FAMILIES */
	struct rn_vk_rec_family families[RN_VK_MAX_FAMILIES]; /* indexed by queue family */
	char name[RN_VK_NAME_MAX]; /* VkPhysicalDeviceProperties::deviceName */
};

/* CALIBRATION record: the GPU and host clocks read together (Vulkan 1.3 with
 * VK_EXT_calibrated_timestamps, vkGetCalibratedTimestampsEXT). */
struct rn_vk_rec_calibration {
	uint32_t device;       /* device id */
	uint64_t gpu_ticks;    /* VK_TIME_DOMAIN_DEVICE_EXT value, raw (each family masks it
				* to its own valid bits when mapping) */
	uint64_t host_ns;      /* VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT value, ns */
	uint64_t deviation_ns; /* pMaxDeviation of the best of several samples, ns */
};

/* Flags of a SPAN record (enum rn_vk_span_flags); the low bits are enum rn_gpu_flags. */
enum rn_vk_span_flags {
	RN_VK_SPAN_INDIRECT = 1 << 0,   /* = RN_GPU_INDIRECT */
	RN_VK_SPAN_SERIALIZED = 1 << 1, /* = RN_GPU_SERIALIZED */
	RN_VK_SPAN_WAITED = 1 << 2,     /* = RN_GPU_WAITED: harvested after a host wait */
};

/* Span kinds on the wire (same values as enum rn_gpu_kind in trace.h). */
enum rn_vk_span_kind {
	RN_VK_KIND_DISPATCH = 0,
	RN_VK_KIND_COPY = 1,
	RN_VK_KIND_RENDER_PASS = 2,
	RN_VK_KIND_CMDBUF = 3,
	RN_VK_KIND_SUBMIT = 4,
	RN_VK_KIND_REGION = 5, /* a debug-utils label range (dispatch mode), = RN_GPU_REGION */
	RN_VK_KIND_COUNT = 6,  /* first invalid value */
};

/* Copy directions on the wire (same values as enum rn_gpu_dir in trace.h). */
enum rn_vk_dir {
	RN_VK_DIR_NONE = 0,
	RN_VK_DIR_HTOD = 1,
	RN_VK_DIR_DTOH = 2,
	RN_VK_DIR_DTOD = 3,
	RN_VK_DIR_HTOH = 4,
	RN_VK_DIR_COUNT = 5, /* first invalid value */
};

/* SPAN record. Ticks are raw timestamp query values masked to the family's valid bits
 * (Vulkan 1.3, 17.5 Timestamp Queries); begin <= end modulo wrap-around. */
struct rn_vk_rec_span {
	uint32_t device;           /* device id */
	uint8_t kind;              /* enum rn_vk_span_kind */
	uint8_t dir;               /* enum rn_vk_dir */
	uint16_t flags;            /* enum rn_vk_span_flags */
	uint32_t queue_family;     /* queue family index it ran on */
	uint64_t begin_ticks;      /* GPU timestamp at the start, ticks */
	uint64_t end_ticks;        /* GPU timestamp at the end, ticks */
	uint64_t submit_ns;        /* CLOCK_MONOTONIC at the vkQueueSubmit that carried it, ns */
	uint64_t harvest_ns;       /* CLOCK_MONOTONIC when the results were read back, ns: the work
				  * had ended by then */
	uint32_t groups[3];        /* workgroup counts of a dispatch (0 when indirect) */
	uint64_t bytes;            /* bytes moved by a copy, 0 otherwise */
	uint64_t submit_seq;       /* per-device submit batch number, from 1 */
	char name[RN_VK_NAME_MAX]; /* span name, NUL-terminated */
	char region[RN_VK_NAME_MAX]; /* innermost debug-utils label open where the work was
				      * recorded (for a REGION span: the label around it), ""
				      * for none; appended field, "" when a file lacks it */
};

/* STATS record: what the layer could not time. Counters only ever grow; the last STATS record
 * of a device holds its totals. */
struct rn_vk_rec_stats {
	uint32_t device;               /* device id */
	uint64_t spans;                /* SPAN records written */
	uint64_t untimed_secondary;    /* work recorded in secondary command buffers */
	uint64_t untimed_simultaneous; /* command buffers with SIMULTANEOUS_USE */
	uint64_t untimed_family;       /* command buffers of families without timestamps */
	uint64_t untimed_no_slots;     /* work not timed because the query slot cap was reached */
	uint64_t lost;                 /* executions whose results were overwritten or never became
				      * available before reset/destroy */
};

/* DISABLED record. */
struct rn_vk_rec_disabled {
	uint32_t device;              /* device id */
	uint32_t reason;              /* enum rn_vk_disable_reason */
	int32_t vk_result;            /* VkResult of the failing call, 0 if none */
	char message[RN_VK_NAME_MAX]; /* what failed, NUL-terminated */
};

/* One decoded record (a tagged union). */
struct rn_vk_record {
	enum rn_vk_record_type type; /* which member of the union is valid */
	union {
		struct rn_vk_rec_process process;
		struct rn_vk_rec_device device;
		struct rn_vk_rec_calibration calibration;
		struct rn_vk_rec_span span;
		struct rn_vk_rec_stats stats;
		struct rn_vk_rec_disabled disabled;
	} u;
};

/* Reader errors (returned negated). */
enum rn_vk_record_error {
	RN_VK_EMAGIC = 1000, /* not a record file (bad magic or preamble) */
	RN_VK_EVERSION,      /* a version this reader does not understand */
	RN_VK_ETRUNC,        /* the file ends inside a record */
	RN_VK_EMALFORMED,    /* a record violates the format */
};

/*
 * A reader over one record file held in memory. Borrowing: `data` must outlive the reader.
 * All fields are private.
 */
struct rn_vk_reader {
	const uint8_t *data; /* the file, borrowed */
	size_t len;          /* bytes in data */
	size_t off;          /* offset of the next record */
	uint32_t version;    /* version from the preamble */
	size_t nrecords;     /* records returned so far (unknown types included) */
};

/*
 * Check the preamble of `data` (`len` bytes) and position the reader on the first record.
 * Returns 0, -RN_VK_EMAGIC, -RN_VK_EVERSION (a newer major format), or -RN_VK_ETRUNC (shorter
 * than the preamble). Allocates nothing; never reads outside [data, data + len).
 */
int rn_vk_reader_init(struct rn_vk_reader *r, const void *data, size_t len);

/*
 * Decode the next record into `*rec`. Returns 1 with a record, 0 at a clean end of file,
 * -RN_VK_ETRUNC when the data ends inside a record, -RN_VK_EMALFORMED when a record breaks the
 * format (the reader then stays at that record: calling again returns the same error).
 * Records of unknown types are skipped. Decoded strings are NUL-terminated copies; enum fields
 * are range-checked (an out-of-range kind or direction is malformed). Never crashes on any
 * input: every length is bounds-checked before use.
 */
int rn_vk_reader_next(struct rn_vk_reader *r, struct rn_vk_record *rec);

/* Byte offset of the record the next rn_vk_reader_next() call decodes (for messages). */
size_t rn_vk_reader_offset(const struct rn_vk_reader *r);

/* Static text for a reader error code (negative or positive), "unknown error" otherwise. */
const char *rn_vk_record_strerror(int err);

/*
 * Write the preamble into `out` (`cap` bytes). Returns the bytes written
 * (RN_VK_PREAMBLE_BYTES) or 0 when `cap` is too small.
 */
size_t rn_vk_record_preamble(uint8_t *out, size_t cap);

/*
 * Encode `rec` into `out` (`cap` bytes) as one record: header and payload. Strings longer
 * than RN_VK_NAME_MAX - 1 bytes are cut (at a byte boundary). Returns the bytes written, or 0
 * when `cap` is too small or `rec->type` is unknown. Used by the layer and by tests.
 */
size_t rn_vk_record_encode(const struct rn_vk_record *rec, uint8_t *out, size_t cap);

/* Largest encoding of any record, bytes: a buffer this big always suffices. */
#define RN_VK_RECORD_MAX_BYTES (RN_VK_RECORD_HEADER_BYTES + 512u + RN_VK_MAX_FAMILIES * 8u)

#endif
