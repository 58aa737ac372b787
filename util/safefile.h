/*
 * safefile.h - files the user owns, written and read without trusting the file system.
 *
 * Writing (struct rn_safefile): the data goes to a fresh temporary in the directory of the
 * final path, named ".<name>.rn-tmp.<pid>.<16 random hex digits>" and created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (so nothing placed there beforehand, symlink or file, is ever
 * opened) and mode 0666 minus the umask; commit fsyncs it and renames it over the final path.
 * A final path that is a symbolic link is refused (-ELOOP, see rn_safefile_strerror): the
 * rename would replace the link itself, and following it would write wherever it points.
 * Opening also removes stale temporaries of the same final path left by killed runs (their
 * pid no longer exists).
 *
 * Reading (rn_read_regular_file): the file is opened O_NONBLOCK (a FIFO cannot block the open
 * or the read), must be a regular file by fstat, and must hold at most `max_bytes`.
 */
#ifndef RN_SAFEFILE_H
#define RN_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"

/* One write in progress. Fields are read-only for callers. */
struct rn_safefile {
	char *path;     /* final path, owned */
	char *tmp_path; /* temporary path, owned; NULL once committed or aborted */
	int fd;         /* the temporary's descriptor, -1 once handed to `f` or closed */
	FILE *f;        /* stream over fd after rn_safefile_stream(), or NULL */
};

/* Create the temporary for `path`. 0, -ELOOP when `path` is a symbolic link, -ENXIO when it
 * is a device, FIFO or socket (the rename would replace the node), or negative
 * errno (the directory is missing or not writable, ...). On failure nothing is left to
 * release and no file was created. */
int rn_safefile_open(struct rn_safefile *sf, const char *path);
/* A stdio stream over the temporary (opened once, owned by `sf`), or NULL with errno set. */
FILE *rn_safefile_stream(struct rn_safefile *sf);
/* Write all `len` bytes to the temporary (not through the stream). 0 or negative errno. */
int rn_safefile_write(struct rn_safefile *sf, const void *data, size_t len);
/* Flush, fsync, close and rename the temporary over the final path. 0 or negative errno;
 * on failure the temporary is removed and the final path untouched. Releases `sf` either
 * way. */
int rn_safefile_commit(struct rn_safefile *sf);
/* As rn_safefile_commit, but never replaces: the temporary is linked to the final path
 * (link(2) fails when the path exists, even one created while we wrote), then removed.
 * -EEXIST when the final path exists; the temporary is removed and `sf` released either way. */
int rn_safefile_commit_new(struct rn_safefile *sf);
/* Remove the temporary and release `sf`; the final path is untouched. Safe after commit. */
void rn_safefile_abort(struct rn_safefile *sf);
/* strerror() for the codes above, with -ELOOP and -ENXIO read as "is a symbolic link" and
 * "is not a regular file" (not replaced). */
const char *rn_safefile_strerror(int rc);

/* Open the regular file at `path` for reading, as rn_read_regular_file does (O_NONBLOCK: a
 * FIFO neither blocks the open nor is accepted; fstat; at most `max_bytes`). The descriptor
 * (O_CLOEXEC, still O_NONBLOCK, which a regular file ignores) or the same negative codes. */
int rn_open_regular(const char *path, uint64_t max_bytes);

/* Read the regular file at `path` (at most `max_bytes`) into `b`, appending. 0, -EISDIR for
 * a directory, -EINVAL when it is another non-regular file (FIFO, device, socket), -EFBIG when it is larger than
 * `max_bytes`, or negative errno (-ELOOP for a symlink loop, -ENOENT, ...). Never blocks on
 * a FIFO. */
int rn_read_regular_file(struct rn_buf *b, const char *path, size_t max_bytes);

#endif
