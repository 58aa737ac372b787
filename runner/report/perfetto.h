/*
 * perfetto.h - the timeline file of a check, in the Chrome Trace Event JSON format, which
 * Perfetto (ui.perfetto.dev) and chrome://tracing open.
 *
 * Format (Trace Event Format, "JSON Object Format"):
 *
 *     {"traceEvents": [ ... ], "displayTimeUnit": "ns"}
 *
 * Tracks: each process of each target's last measured run is one track (one "pid": a
 * sequential number, since real pids may repeat across targets), named by "M" metadata events
 * "process_name" ("<comm> (pid <pid>) [<target>]") with "process_labels" (the target) and
 * "thread_name" for each thread seen. GPU spans of a target go to a track of their own named
 * "GPU" (labelled with the target), one thread per queue family ("queue family <n>").
 *
 * Slices: one complete event (ph "X", "ts" and "dur" in microseconds as decimals, relative to
 * the earliest start in the file) per recorded span:
 *   - per process: "process:<comm>" (cat "process") on its main thread, birth to exit;
 *   - syscalls (cat "syscall"): with the spool enabled for the run, one slice per spooled span
 *     on its thread, named by the syscall; without it, one slice "syscalls" per process that
 *     made syscalls, from its birth for the summed syscall time (clamped to its life), whose
 *     args list calls, errors and time per syscall name;
 *   - GPU spans (cat "gpu"): "gpu:<name>" on the GPU track.
 * Each slice's "args" hold the span's attributes (pid, exit code, errno name, path, kind,
 * workgroups, bytes, direction...).
 */
#ifndef RN_PERFETTO_H
#define RN_PERFETTO_H

#include <stddef.h>

#include "outcome.h"

/*
 * Write the timeline of the outcome's sides (the head targets, then the base sides with
 * --baseline: rn_outcome_side) to `path`, one set of tracks per side from its `last` trace;
 * reads nothing else of `oc`. Events are streamed to
 * "<path>.tmp.<pid>" with jansson (which does the JSON escaping; strings that are not UTF-8
 * get U+FFFD for each bad byte), synced and renamed over `path`, so a failed write leaves
 * `path` untouched. Reads the spools of the traces (moving their file offset, nothing else).
 * Returns 0, or a negative errno after rn_error() naming the file.
 */
int rn_perfetto_write(const char *path, const struct rn_outcome *oc);

#endif
