/*
 * state.h - the layer's per-object state: devices, queues, command pools and buffers, and the
 * objects that name GPU work (shader modules, pipelines) or classify copies (memory, buffers).
 * Private to collectors/vulkan/layer.
 */
#ifndef RN_VK_LAYER_STATE_H
#define RN_VK_LAYER_STATE_H

#include "internal.h"

#define NAME_NONE UINT32_MAX /* "no name" offset into a command buffer's name arena */
#define LABEL_DEPTH 16       /* debug-utils label nesting tracked per command buffer */

/* A run of consecutive queries of one layer-owned pool. */
struct slot_chunk {
	VkQueryPool pool; /* layer-owned VK_QUERY_TYPE_TIMESTAMP pool */
	uint32_t first;   /* first query of the chunk */
	bool dirty;       /* may hold an available result from an earlier use */
};

/* One timed piece of a command buffer: queries q (begin) and q + 1 (end). */
struct region {
	uint8_t kind;       /* enum rn_vk_span_kind */
	uint8_t dir;        /* enum rn_vk_dir */
	uint16_t flags;     /* enum rn_vk_span_flags */
	uint32_t q;         /* begin query index within the command buffer's queries */
	uint32_t groups[3]; /* dispatch workgroup counts */
	uint64_t bytes;     /* copy size, bytes */
	uint32_t name;      /* offset into layer_cmdbuf.names, or NAME_NONE */
	uint32_t region;    /* innermost debug-utils label open when it began (name offset),
			     * or NAME_NONE */
};

/* The VkSubmitInfo a command buffer execution belongs to (submit mode). */
struct batch {
	uint32_t remaining;  /* executions not yet harvested or lost */
	bool lost;           /* an execution was lost: no span */
	bool have;           /* min_begin/max_end are set */
	bool waited;         /* harvested after a host wait */
	uint32_t family;     /* queue family */
	uint64_t submit_ns;  /* host time of the submit, ns */
	uint64_t harvest_ns; /* host time the last execution was read back, ns */
	uint64_t seq;        /* submit batch number */
	uint64_t min_begin;  /* earliest begin tick of its command buffers */
	uint64_t max_end;    /* latest end tick */
};

struct layer_device;
struct layer_pool;

/* A command buffer. Regions and names describe the current recording. */
struct layer_cmdbuf {
	VkCommandBuffer cb;           /* the handle */
	struct layer_device *dev;     /* owning device */
	struct layer_pool *pool;      /* owning command pool */
	bool primary;                 /* VK_COMMAND_BUFFER_LEVEL_PRIMARY */
	bool timed;                   /* the current recording writes timestamps */
	bool executed;                /* queries written by an execution since their reset */
	bool pending;                 /* submitted and not yet harvested */
	bool waited;                  /* set by the harvest: read after a host wait */
	bool have_stale;              /* stale_begin holds query 0's value before the submit */
	uint64_t stale_begin;         /* that value (in-stream reset mode) */
	uint32_t exec_family;         /* queue family of the pending execution */
	uint64_t submit_ns;           /* host time of the pending submit, ns */
	uint64_t submit_seq;          /* batch number of the pending submit */
	struct batch *batch;          /* submit mode: the pending execution's batch */
	struct slot_chunk *chunks;    /* query chunks owned (kept across recordings) */
	uint32_t nchunks;             /* chunks owned */
	uint32_t chunks_cap;          /* chunks allocated */
	uint32_t nqueries;            /* queries used by the current recording */
	struct region *regions;       /* regions of the current recording; [0] is the whole
				      * command buffer when timed */
	uint32_t nregions;            /* regions used */
	uint32_t regions_cap;         /* regions allocated */
	char *names;                  /* name arena: NUL-terminated strings */
	size_t names_len;             /* bytes used */
	size_t names_cap;             /* bytes allocated */
	uint32_t labels[LABEL_DEPTH]; /* open debug-utils labels (name offsets) */
	int32_t label_regions[LABEL_DEPTH]; /* their timed regions (dispatch mode), -1 if none */
	uint32_t label_depth;               /* open labels, may exceed LABEL_DEPTH */
	uint32_t insert_label;              /* label inserted since the last timed command */
	uint32_t first_label;               /* first label begun in the recording */
	uint64_t compute_pipeline;          /* bound compute VkPipeline */
	int32_t open_pass;                  /* region of the open render pass, -1 if none */
	char obj_name[RN_VK_NAME_MAX];      /* vkSetDebugUtilsObjectNameEXT name, "" if none */
	char queue_label[RN_VK_NAME_MAX];   /* innermost queue label open at the pending submit:
					   * the region of its spans outside any command
					   * buffer label, "" if none */
};

/* A command pool: its family and its command buffers (freed with it). */
struct layer_pool {
	VkCommandPool pool;        /* the handle */
	struct layer_device *dev;  /* owning device */
	uint32_t family;           /* queueFamilyIndex */
	struct layer_cmdbuf **cbs; /* command buffers allocated from it */
	size_t ncbs;               /* used */
	size_t cbs_cap;            /* allocated */
	struct layer_pool *next;   /* device's list of pools */
};

/* A queue. */
struct layer_queue {
	struct layer_device *dev;                 /* owning device */
	uint32_t family;                          /* queue family index */
	struct layer_queue *next;                 /* device's list of queues */
	char labels[LABEL_DEPTH][RN_VK_NAME_MAX]; /* open vkQueueBeginDebugUtilsLabelEXT labels
						   * (externally synchronized with the queue) */
	uint32_t label_depth;                     /* open queue labels, may exceed LABEL_DEPTH */
};

/* A device. Fields below `lock` are protected by it. */
struct layer_device {
	VkDevice device;                         /* the handle */
	struct layer_instance *inst;             /* owning instance */
	struct dev_table vk;                     /* next functions */
	bool configured;                         /* timing configured for the process at creation */
	enum rn_vk_mode mode;                    /* timing mode */
	bool host_reset;                         /* hostQueryReset is enabled */
	bool calibrated;                         /* calibrated timestamps with CLOCK_MONOTONIC */
	uint32_t id;                             /* record device id */
	uint32_t chunk_queries;                  /* queries per chunk (even) */
	uint32_t nfamilies;                      /* families known */
	uint32_t valid_bits[RN_VK_MAX_FAMILIES]; /* timestampValidBits per family */
	VkPhysicalDeviceMemoryProperties mem;    /* memory types, for copy directions */
	pthread_mutex_t lock;                    /* protects what follows */
	bool timing;                             /* false once disabled: new work is not timed */
	VkQueryPool *pools;                      /* layer-owned query pools */
	uint32_t npools;                         /* pools created */
	struct slot_chunk *free_chunks;          /* chunks ready for a command buffer */
	size_t nfree;                            /* used */
	size_t free_cap;                         /* allocated */
	struct layer_cmdbuf **pending;           /* submitted executions, oldest first */
	size_t npending;                         /* used */
	size_t pending_cap;                      /* allocated */
	uint64_t *scratch;                       /* query results being read */
	size_t scratch_cap;                      /* uint64 entries allocated */
	uint64_t submit_seq;                     /* last batch number */
	uint64_t last_calib_ns;                  /* host time of the last calibration, ns */
	struct rn_vk_rec_stats stats;            /* counters (updated atomically where recording) */
	struct layer_pool *pools_list;           /* command pools */
	struct layer_queue *queues;              /* queues handed out */
};

/* A shader module: identity and debug name. */
struct layer_module {
	uint32_t hash;             /* FNV-1a of the SPIR-V words */
	char name[RN_VK_NAME_MAX]; /* debug-utils object name, "" if none */
};

/* A compute pipeline: what names its dispatches. */
struct layer_pipeline {
	uint32_t identity;                /* hash of SPIR-V, entry point, specialization */
	char name[RN_VK_NAME_MAX];        /* debug-utils object name, "" if none */
	char module_name[RN_VK_NAME_MAX]; /* the module's name at pipeline creation */
	char entry[RN_VK_NAME_MAX];       /* entry point */
};

/* Device memory: its memory type. */
struct layer_memory {
	uint32_t type_index; /* VkMemoryAllocateInfo::memoryTypeIndex */
};

/* A buffer: its size and bound memory. */
struct layer_buffer {
	VkDeviceSize size;     /* VkBufferCreateInfo::size */
	VkDeviceMemory memory; /* bound memory, VK_NULL_HANDLE until bound */
};

/* Every device hook, layer_<Name>, with the type of its PFN_vk<Name> (layer.c, timing.c). */
#define X(n, when) __typeof__(*(PFN_vk##n)0) layer_##n;
RN_DEVICE_HOOKS(X)
#undef X

/* After vkCreateDevice succeeded with timing configured: write the DEVICE record `rec`,
 * calibrate, flush. Query pools are created with the first timed command buffer. */
void timing_device_start(struct layer_device *dev, const struct rn_vk_rec_device *rec);
/* Before vkDestroyDevice: harvest what is available, count the rest as lost, write STATS,
 * destroy the layer's query pools and free command pool, command buffer and queue state. */
void timing_device_stop(struct layer_device *dev);
/* The device that owns dispatchable `handle` (queue or command buffer), found by the loader's
 * dispatch key (the first pointer-sized word of every dispatchable object); NULL if unknown. */
struct layer_device *device_of_dispatchable(const void *handle);

#endif
