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

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "collector.h"
#include "strvec.h"
#include "trace.h"

/* Largest record file read, bytes (a hostile or runaway file fails cleanly past it). */
#define RN_RECDIR_MAX_FILE_BYTES ((size_t)1 << 30)

/*
 * The skeleton every injected collector shares (collectors/vulkan/vulkan.c,
 * collectors/cuda/cuda.c): where its artifact is, its record directory's life, its no-op
 * event hooks and the warnings and gaps of known loss.
 */

/*
 * Where the injected artifact (the layer's manifest directory, the injection library) is:
 * the value of environment variable `env_var` when set (NULL when `usable` rejects it); else
 * `build` when renacer itself runs from the build tree `binary_dir` (so the artifact beside
 * it is used); else `install`; else `build`. Each candidate must pass `usable` (non-empty,
 * readable...). Returns one of the strings given (or getenv's), or NULL when none is usable.
 */
const char *rn_inject_locate(const char *env_var, const char *build, const char *install,
			     const char *binary_dir, bool (*usable)(const char *path));

struct rn_injected;

/* What an injected collector tells the shared skeleton below (one static const each). */
struct rn_injected_kind {
	const char *tag;         /* "vulkan", "cuda": messages, the record directory's name */
	const char *file_prefix; /* its record files' names start with this ("vk-") ... */
	const char *file_suffix; /* ... and end with this (".rnvk") */
	const char *missing;     /* why it cannot run when `artifact` finds nothing (static) */
	/* The located artifact (layer manifest directory, injection library), or NULL. */
	const char *(*artifact)(void);
	/* Name `artifact` and the record directory ic->dir in the target's environment. */
	void (*set_env)(const struct rn_injected *ic, const char *artifact, struct rn_strvec *env);
	/* Free the collector's own state at destroy (NULL: it has none beyond the head). */
	void (*release)(struct rn_injected *ic);
};

/* The head of an injected collector's state: its first member, so that the ops reach it by a
 * cast of the struct rn_collector pointer. */
struct rn_injected {
	const struct rn_injected_kind *kind; /* static */
	char *dir;                           /* the record directory, owned; NULL before prepare */
};

/* The `unavailable` of `kind`: NULL when its artifact is found, else kind->missing. */
const char *rn_injected_unavailable(const struct rn_injected_kind *kind);
/* The ops' prepare of every injected collector (`c` starts with a struct rn_injected): locate
 * the artifact (none: prints "<tag>: <missing>", -ENOENT), renew the record directory, set
 * the target's environment. 0 or negative errno. */
int rn_injected_prepare(struct rn_collector *c, struct rn_strvec *env);
/* At finish(): hand every record file of the directory to `load` (rn_recdir_foreach, at most
 * RN_RECDIR_MAX_FILE_BYTES each). Returns 0, 1 when there is no directory (prepare did not
 * run: nothing to read, nothing to report), or the negative errno of the walk or of `load`. */
int rn_injected_load(const struct rn_injected *ic, struct rn_trace *t,
		     int (*load)(void *ctx, const char *path, const char *data, size_t len),
		     void *ctx);
/* The ops' destroy of every injected collector (NULL-safe): kind->release, then the record
 * directory removed, then the collector (one rn_xcalloc block) freed. */
void rn_injected_destroy(struct rn_collector *c);

/* The on_spawn and on_event of a collector that only reads files at finish: nothing to do,
 * 0. */
int rn_recdir_on_spawn(struct rn_collector *c, pid_t pid, struct rn_trace *t);
int rn_recdir_on_event(struct rn_collector *c, struct rn_trace *t, pid_t tid, int status);

/* `files` record files of collector `tag` end inside a record (`how` says why, e.g. "a
 * process died between flushes"): warn and record an RN_GAP_DROPPED gap (`tag` is kept: a
 * static string). 0 does nothing. */
void rn_recdir_truncated(struct rn_trace *t, const char *tag, size_t files, const char *how);

/* `spans` spans of collector `tag` were dropped for `why` (no clock, no timestamps): warn
 * and record an RN_GAP_DROPPED gap of that count (`tag` static). 0 does nothing. */
void rn_recdir_unmapped(struct rn_trace *t, const char *tag, size_t spans, const char *why);

#endif
