/*
 * load.h - the CUDA record files: format and bounds-checked reader.
 *
 * The injection library (inject/inject.c) writes one file per process,
 * "<RENACER_CUDA_DIR>/cuda-<pid>.jsonl": JSON Lines, one object per line, each line written
 * whole with one write(2) so a crash leaves at most the last line cut short. Version 1:
 *
 *   {"format":"renacer-cuda","version":1,"pid":P}                        first line, once
 *   {"type":"clock","offset_ns":O,"uncertainty_ns":U}                    clock.h calibration
 *   {"type":"kernel","name":S,"device":D,"context":C,"stream":T,"correlation":K,
 *    "start":NS,"end":NS,"grid":[X,Y,Z],"block":[X,Y,Z],"registers":R,
 *    "static_shared":B,"dynamic_shared":B}                               CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
 *   {"type":"memcpy","copy_kind":"htod|dtoh|dtod|htoh|other","bytes":B,"device":D,
 *    "stream":T,"start":NS,"end":NS}                                     CUPTI_ACTIVITY_KIND_MEMCPY
 *   {"type":"memset","bytes":B,"device":D,"stream":T,"start":NS,"end":NS}  CUPTI_ACTIVITY_KIND_MEMSET
 *   {"type":"dropped","count":N}                                         cuptiActivityGetNumDroppedRecords
 *   {"type":"region_begin","id":I,"parent":P,"name":S,"tid":T,"start":NS} an NVTX range opened
 *   {"type":"region_end","id":I,"end":NS}                                 ... and closed
 *   {"type":"launch","correlation":K,"region":I,"t":T}                   a launch while a region
 *                                                                        was open: I the
 *                                                                        launching thread's
 *                                                                        innermost (0 none), T
 *                                                                        its CUPTI time (newer
 *                                                                        files)
 *   {"type":"region_lost","count":N}                                     unbalanced NVTX calls
 *
 * Kernel records also carry "graph" and "graph_node" (CUPTI graphId/graphNodeId, 0 when not
 * replayed from a graph); memcpy and memset records carry "correlation", "graph" and
 * "graph_node". These fields are optional for the reader (files of the first release lack
 * them). Region ids increase in file order; a launch's region is joined with the span whose
 * correlation id it names, so a kernel is attributed to the innermost region open on the
 * launching thread at the launch, whenever the kernel ran. The reader delivers, after the
 * file's kernels and copies, one RN_GPU_REGION span per region (an unclosed one ends at the
 * file's latest time and is flagged RN_GPU_UNCLOSED) and one RN_GPU_GRAPH span per graph
 * replay named "graph:<graphId>" (the kernels of one graph with one launch correlation id).
 *   {"type":"error","what":S}                                            the library stopped tracing
 *
 * Times are CUPTI timestamps (ns, the CUPTI Activity API's clock); the reader maps them to
 * CLOCK_MONOTONIC with the file's tightest "clock" record (clock.h). Kernel names are demangled
 * by the injection library when the target's process has __cxa_demangle (libstdc++), else they
 * stay mangled. Unknown "type"s and unknown keys are ignored (forward compatibility); a
 * different "format" or "version" is an error.
 *
 * The reader trusts nothing: a line longer than RN_CUDA_MAX_LINE_BYTES, invalid JSON, a
 * missing or mistyped field, a negative or oversized number, an end before its start are
 * errors carrying the 1-based line number. A last line without its newline is a truncated
 * write (a process killed mid-write): it is skipped and counted, never an error.
 */
#ifndef RN_CUDA_LOAD_H
#define RN_CUDA_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#define RN_CUDA_FORMAT "renacer-cuda" /* value of "format" in the first line */
#define RN_CUDA_VERSION 1             /* value of "version" this reader understands */
#define RN_CUDA_MAX_LINE_BYTES 65536  /* longest line accepted, bytes */

/* CUDA details of a span that the trace model has no field for (passed to the callback). */
struct rn_cuda_span_info {
	uint32_t device;         /* CUDA device ordinal */
	uint32_t stream;         /* CUPTI stream id */
	uint32_t block[3];       /* kernel block dims (0 for copies) */
	uint32_t registers;      /* registers per thread (kernels) */
	uint64_t static_shared;  /* static shared memory per block, bytes (kernels) */
	uint64_t dynamic_shared; /* dynamic shared memory per block, bytes (kernels) */
	uint64_t cupti_start_ns; /* start on the CUPTI clock, ns */
	uint64_t cupti_end_ns;   /* end on the CUPTI clock, ns */
};

/* What loading one or more files found. Initialize with rn_cuda_load_report_init(). */
struct rn_cuda_load_report {
	size_t files;          /* files loaded */
	size_t spans;          /* spans handed to the callback */
	size_t truncated;      /* files whose last line was cut short */
	size_t unmapped;       /* spans dropped: no clock record, zero times, or out of range */
	uint64_t dropped;      /* records CUPTI reported as dropped (buffers full) */
	size_t regions;        /* NVTX region spans delivered or unmapped */
	uint64_t regions_lost; /* NVTX pops/ends without an open region, pushes past the
				  * library's depth, lines that did not fit (region_lost) */
	size_t graph_replays;  /* graph replay spans delivered or unmapped */
	size_t error_line;     /* 1-based line of the error when rn_cuda_load() failed */
	char error[160];       /* what was wrong, NUL-terminated, when it failed */
	char stopped[160];     /* the last "error" record's text, "" if none */
};

/* Zero `rep`. */
void rn_cuda_load_report_init(struct rn_cuda_load_report *rep);

/*
 * Called once per mapped span. `span` (borrowed, valid during the call) has pid, kind
 * (RN_GPU_DISPATCH for kernels, RN_GPU_COPY for memcpy/memset, RN_GPU_REGION for NVTX
 * ranges, RN_GPU_GRAPH for graph replays), name (without "gpu:"), region (borrowed, or NULL),
 * graph_id, graph_node_id, launch_id (correlation id), times on CLOCK_MONOTONIC,
 * uncertainty, groups (grid dims), bytes and dir; queue_family carries the CUDA stream id.
 * Return 0 to go on, negative to stop loading with that code.
 */
typedef int (*rn_cuda_span_fn)(void *ctx, const struct rn_gpu_span *span,
			       const struct rn_cuda_span_info *info);

/*
 * Parse the record file `data` (`len` bytes, need not be NUL-terminated) and call `fn` for
 * each span. Adds to `rep` (files, spans, truncated, unmapped, dropped, stopped).
 * Returns 0; -EBADMSG for a malformed file (rep->error, rep->error_line say why and where;
 * spans of lines before it may already have been delivered); -ENOMEM; or fn's negative code.
 */
int rn_cuda_load(const char *data, size_t len, rn_cuda_span_fn fn, void *ctx,
		 struct rn_cuda_load_report *rep);

/* Which NVTX region GPU work belongs to (enum rn_cuda_region_scope). */
enum rn_cuda_region_scope {
	RN_CUDA_REGION_PROCESS = 0, /* the innermost region of any thread of the process open when
				     * the work was launched (by launch time: Nsight Systems'
				     * projection; autograd's backward launches from its own
				     * thread land in the step's range); the default */
	RN_CUDA_REGION_THREAD,      /* the innermost region open on the launching thread */
};

/* rn_cuda_load() with the region attribution `scope` (rn_cuda_load uses
 * RN_CUDA_REGION_PROCESS). Files written before launch records carried their time ("t")
 * are attributed per thread whatever the scope. */
int rn_cuda_load_scoped(const char *data, size_t len, enum rn_cuda_region_scope scope,
			rn_cuda_span_fn fn, void *ctx, struct rn_cuda_load_report *rep);

#endif
