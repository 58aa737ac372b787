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

/*
 * Create a fresh directory "$TMPDIR/renacer-<tag>-XXXXXX" (mode 0700, mkdtemp). On success
 * returns 0 and sets *out to its path (caller frees). On failure prints
 * "<tag>: cannot create record directory ...", returns negative errno, *out untouched.
 */
int rn_recdir_create(const char *tag, char **out);

/* Remove every file in `dir`, then `dir` itself. Errors are ignored (best effort). */
void rn_recdir_remove(const char *dir);

#endif
