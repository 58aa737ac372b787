/*
 * antipattern/fds.c - the fd tracker: per-(process, fd) state read by SmallIO, RedundantIO
 * (re-reads, paths relative to a directory fd) and SyncStorm. Declarations and contracts:
 * antipattern/pass.h.
 */
#include "pass.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "xalloc.h"

static uint64_t fd_key(pid_t pid, int64_t fd)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
}
/* Forget fd `fd` of a process (closed, or replaced by dup2), reporting what it did. */
static void fd_drop(struct rn_ap_pass *ps, pid_t pid, int64_t fd)
{
	struct rn_ap_fd *f;

	if (fd < 0 || fd > INT32_MAX)
		return;
	f = rn_antipattern_map_get(&ps->fds, fd_key(pid, fd), false);
	if (!f)
		return;
	rn_ap_small_fd_done(ps, f);
	rn_antipattern_map_del(&ps->fds, f);
}

/* The state of fd `fd` of process `proc`, set up when `create`; NULL when unknown or full. */
static struct rn_ap_fd *rn_ap_fd_get(struct rn_ap_pass *ps, int proc, pid_t pid, int64_t fd,
				     bool create)
{
	struct rn_ap_fd *f;

	if (fd < 0 || fd > INT32_MAX)
		return NULL;
	f = rn_antipattern_map_get(&ps->fds, fd_key(pid, fd), create);
	if (!f || f->used)
		return f;
	if (!create)
		return NULL;
	f->used = true;
	f->proc = proc;
	f->fd = (int)fd;
	return f;
}

/* Count a re-read of the file behind `f` for RedundantIO. */
static void fd_reread(struct rn_ap_pass *ps, const struct rn_ap_fd *f)
{
	struct rn_ap_path *e;

	if (!ps->want[RN_AP_REDUNDANT_IO] || !f->path_key)
		return;
	e = rn_antipattern_map_get(&ps->paths, f->path_key, false);
	if (e) {
		e->rereads++;
		rn_ap_callers_add(&e->cl, ps->ev_caller);
	}
}

/* An open, socket, accept or eventfd-like call returned a new fd. */
static void fd_opened(struct rn_ap_pass *ps, int proc, uint32_t fl,
		      const struct rn_syscall_event *ev)
{
	struct rn_ap_fd *f;

	fd_drop(ps, ev->pid, ev->ret); /* its close may not have been seen */
	f = rn_ap_fd_get(ps, proc, ev->pid, ev->ret, true);
	if (!f)
		return;
	f->kind = (fl & C_OPEN) ? FD_FILE : (fl & C_SOCKFD) ? FD_SOCKET : FD_EVENT;
	f->open_id = ++ps->next_open_id;
	if ((fl & C_OPEN) && ps->ev_has_path) {
		memcpy(f->path, ps->ev_disp, sizeof(f->path));
		f->path_key = ps->ev_key;
	}
}

/* dup, dup2, dup3, fcntl(F_DUPFD*): the new fd shares the old one's open. */
static void fd_duped(struct rn_ap_pass *ps, int proc, const struct rn_syscall_event *ev)
{
	int64_t oldfd = (int64_t)(int32_t)ev->args[0];
	struct rn_ap_fd *src, *dst, copy;

	if (ev->ret == oldfd)
		return;
	fd_drop(ps, ev->pid, ev->ret);
	src = rn_ap_fd_get(ps, proc, ev->pid, oldfd, false);
	if (!src)
		return;
	copy = *src; /* the insertion below may move it */
	dst = rn_ap_fd_get(ps, proc, ev->pid, ev->ret, true);
	if (dst) {
		dst->kind = copy.kind;
		dst->open_id = copy.open_id;
		dst->path_key = copy.path_key;
		memcpy(dst->path, copy.path, sizeof(dst->path));
	}
}

/* A read that moved data: a re-read when it starts where one of the last reads started (a
 * rewind, or pread64 of the same offset); random access to other offsets does not count. */
static void fd_read_at(struct rn_ap_pass *ps, struct rn_ap_fd *f, uint32_t fl,
		       const struct rn_syscall_event *ev, uint64_t moved)
{
	uint64_t off = (fl & C_POS) ? ev->args[3] : f->pos;
	int k;

	if (moved) {
		for (k = 0; k < 8; k++)
			if (f->rd_off[k] == off + 1) {
				fd_reread(ps, f);
				break;
			}
		if (k == 8) {
			f->rd_off[f->rd_i] = off + 1;
			f->rd_i = (f->rd_i + 1) & 7;
		}
	}
	if (!(fl & C_POS))
		f->pos += moved;
}

/* A read or write: sizes for SmallIO, re-reads for RedundantIO, bytes for SyncStorm. */
static void fd_io(struct rn_ap_pass *ps, int proc, uint32_t fl, const struct rn_syscall_event *ev)
{
	struct rn_ap_proc *pp = &ps->procs[proc];
	int dir = (fl & C_WRITE) ? 1 : 0;
	uint64_t size = (fl & C_RETSIZE) ? (uint64_t)ev->ret : ev->args[2];
	uint64_t moved = ev->ret > 0 ? (uint64_t)ev->ret : 0;
	struct rn_ap_fd *f = rn_ap_fd_get(ps, proc, ev->pid, (int64_t)(int32_t)ev->args[0], true);

	if (!f)
		return;
	if (f->kind != FD_EVENT) {
		ps->io_calls++;
		if (size < RN_AP_SMALL_IO_BYTES)
			ps->io_small++;
	}
	f->n[dir]++;
	if (size < RN_AP_SMALL_IO_BYTES) {
		f->small[dir]++;
		rn_ap_callers_add(&f->cl[dir], ps->ev_caller);
	}
	f->bytes[dir] += moved;
	f->ns[dir] += ev->duration_ns;
	if (!dir) {
		fd_read_at(ps, f, fl, ev, moved);
		return;
	}
	f->sync_bytes += moved;
	pp->writes++;
	pp->write_bytes += moved;
	pp->bytes_since_sync += moved;
	if (!(fl & C_POS))
		f->pos += moved;
}

/* A sync: of fd args[0] (C_SYNC: small when little was written to it since its last sync) or
 * of something else (C_SYNC_ANY: small when the process wrote little since its last sync). */
static void fd_synced(struct rn_ap_pass *ps, int proc, uint32_t fl,
		      const struct rn_syscall_event *ev)
{
	struct rn_ap_proc *pp = &ps->procs[proc];
	struct rn_ap_fd *f = NULL;
	bool small;

	if (fl & C_SYNC)
		f = rn_ap_fd_get(ps, proc, ev->pid, (int64_t)(int32_t)ev->args[0], true);
	pp->syncs++;
	pp->sync_ns += ev->duration_ns;
	if (fl & C_SYNC)
		small = !f || f->sync_bytes < RN_AP_SYNC_SMALL_BYTES;
	else
		small = pp->bytes_since_sync < RN_AP_SYNC_SMALL_BYTES;
	if (small) {
		pp->small_syncs++;
		rn_ap_callers_add(&pp->sync_cl, ps->ev_caller);
	}
	if (f) {
		if (f->path[0])
			memcpy(pp->sync_path, f->path, sizeof(pp->sync_path));
		f->sync_bytes = 0;
	}
	pp->bytes_since_sync = 0;
}

void rn_ap_fd_span(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		   const struct rn_syscall_event *ev)
{
	uint32_t fl = si->flags;
	struct rn_ap_fd *f;

	if (ev->err || (ev->flags & RN_SC_UNFINISHED))
		return;
	if (fl & (C_OPEN | C_SOCKFD | C_EVFD)) {
		fd_opened(ps, proc, fl, ev);
	} else if (fl & C_CLOSE) {
		fd_drop(ps, ev->pid, (int64_t)(int32_t)ev->args[0]);
	} else if ((fl & C_DUP) || ((fl & C_FCNTL) && (ev->args[1] == 0 || ev->args[1] == 1030))) {
		/* fcntl(F_DUPFD = 0 / F_DUPFD_CLOEXEC = 1030) */
		fd_duped(ps, proc, ev);
	} else if (fl & C_LSEEK) {
		f = rn_ap_fd_get(ps, proc, ev->pid, (int64_t)(int32_t)ev->args[0], false);
		if (f)
			f->pos = (uint64_t)ev->ret;
	} else if (fl & (C_READ | C_WRITE)) {
		fd_io(ps, proc, fl, ev);
	} else if (fl & (C_SYNC | C_SYNC_ANY)) {
		fd_synced(ps, proc, fl, ev);
	}
}

/*
 * Resolve the path of an open/stat for RedundantIO: absolute paths stand for themselves; a
 * path relative to a directory fd is keyed on that particular open of the directory (fd
 * numbers are reused), and shown under the directory's path when known; a path relative to
 * the working directory is keyed on the process's chdir generation.
 */
void rn_ap_resolve_path(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
			const struct rn_syscall_event *ev)
{
	uint64_t seed = (uint64_t)(uint32_t)ev->pid;
	int32_t dirfd = (int32_t)(uint32_t)ev->args[0];

	ps->ev_has_path = true;
	if (ev->path[0] == '/') {
		rn_ap_keep_path(ps->ev_disp, sizeof(ps->ev_disp), ev->path);
	} else if ((si->flags & C_ATDIR) && dirfd != -100 /* AT_FDCWD */) {
		const struct rn_ap_fd *d = rn_ap_fd_get(ps, proc, ev->pid, dirfd, false);
		char tmp[RN_AP_PATH_KEEP + RN_PATH_MAX + 2];

		seed ^= mix64(d ? d->open_id : (1ULL << 63 | (uint32_t)dirfd));
		if (d && d->path[0]) {
			snprintf(tmp, sizeof(tmp), "%s/%s", d->path, ev->path);
			rn_ap_keep_path(ps->ev_disp, sizeof(ps->ev_disp), tmp);
		} else {
			rn_ap_keep_path(ps->ev_disp, sizeof(ps->ev_disp), ev->path);
		}
	} else {
		seed ^= mix64(ps->procs[proc].cwd_gen | 1ULL << 62);
		rn_ap_keep_path(ps->ev_disp, sizeof(ps->ev_disp), ev->path);
	}
	ps->ev_key = rn_ap_str_key(ev->path, seed);
}
