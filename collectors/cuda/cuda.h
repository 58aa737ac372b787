/*
 * cuda.h - the CUDA collector: GPU spans from the CUPTI Activity API, through an injection
 * library the CUDA driver loads into the target (CUDA_INJECTION64_PATH).
 *
 * Life of one run (collector.h):
 *
 *     create   -> nothing but the state
 *     prepare  -> make a private record directory (mkdtemp under $TMPDIR or /tmp) and set
 *                 CUDA_INJECTION64_PATH=<librenacer_cuda_inject.so> and RENACER_CUDA_DIR=<dir>
 *                 in the target's environment (replacing entries of the same name)
 *     on_spawn, on_event -> nothing (the library works inside the target)
 *     finish   -> read every "cuda-<pid>.jsonl" of the directory (load.h) and add each span
 *                 with rn_trace_add_gpu(): kernels as RN_GPU_DISPATCH named by the kernel,
 *                 memcpy as RN_GPU_COPY "memcpy_htod"/"memcpy_dtoh"/..., memset as
 *                 RN_GPU_COPY "memset"; names carry no "gpu:" prefix
 *     destroy  -> remove the directory and its files
 *
 * The injection library is found as $RENACER_CUDA_INJECTION if set; else the build tree's
 * when renacer runs from its build tree; else the installed one; else the build tree's.
 *
 * finish() fails the trace (rn_trace_fail, RN_RUN_ERROR) and returns a negative code when a
 * record file is malformed, when CUPTI dropped records, or when the library stopped tracing:
 * GPU assertions would otherwise judge partial data. A last line cut short by a crash warns.
 *
 * Built without a CUDA toolkit (no cupti.h / libcupti), the same symbol is a stub whose
 * unavailable() says "not built (no CUDA toolkit with CUPTI found)".
 */
#ifndef RN_CUDA_H
#define RN_CUDA_H

#include "collector.h"

#define RN_CUDA_ENV_INJECTION_PATH "CUDA_INJECTION64_PATH" /* read by the CUDA driver */
#define RN_CUDA_ENV_NVTX_INJECTION_PATH                                                            \
	"NVTX_INJECTION64_PATH"                        /* read by NVTX: the same
								     * library, for NVTX ranges */
#define RN_CUDA_ENV_DIR "RENACER_CUDA_DIR"             /* record directory (library input) */
#define RN_CUDA_ENV_FLUSH_MS "RENACER_CUDA_FLUSH_MS"   /* flush period, ms (library input) */
#define RN_CUDA_ENV_DEBUG "RENACER_CUDA_DEBUG"         /* non-empty: the library prints to stderr */
#define RN_CUDA_ENV_INJECTION "RENACER_CUDA_INJECTION" /* overrides the library path */

/* The CUDA collector's operations (listed in the registry). */
extern const struct rn_collector_ops rn_cuda_collector;

/* Path of the injection library renacer would inject (see above): a static string, or NULL
 * when none is found (or the collector is a stub). */
const char *rn_cuda_injection_path(void);

#endif
