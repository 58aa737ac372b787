/*
 * recdir.h - the private directory through which an injected collector (the Vulkan layer,
 * the CUDA injection library) hands its record files back to the runner.
 *
 * The runner creates one directory per run under $TMPDIR (or /tmp), names it in the target's
 * environment, reads the files the target's processes wrote at finish(), and removes it in
 * destroy(). Files inside are flat (no subdirectories).
 */
#ifndef RN_RECDIR_H
#define RN_RECDIR_H

#include <stddef.h>

#include "trace.h"

/*
 * Create a fresh directory "$TMPDIR/renacer-<tag>-XXXXXX" (mode 0700, mkdtemp). On success
 * returns 0 and sets *out to its path (caller frees). On failure prints
 * "<tag>: cannot create record directory ...", returns negative errno, *out untouched.
 */
int rn_recdir_create(const char *tag, char **out);

/*
 * Read every file of `dir` whose name starts with `prefix` and ends with `suffix` (at most
 * `max_bytes` each) and hand its contents to `load(ctx, path, data, len)`; a negative return
 * from `load` stops the walk and is returned. A directory or file that cannot be read fails the
 * trace (`tag` names the collector in the message) and returns negative errno. Returns 0.
 */
int rn_recdir_foreach(const char *dir, const char *prefix, const char *suffix, size_t max_bytes,
		      const char *tag, struct rn_trace *t,
		      int (*load)(void *ctx, const char *path, const char *data, size_t len),
		      void *ctx);

/* Remove every file in `dir`, then `dir` itself. Errors are ignored (best effort). */
void rn_recdir_remove(const char *dir);

#endif
