/*
 * ptrace_syscall.c - the ptrace collector's syscall stops: reading the tracee (strings, argv,
 * socket addresses, paths, VmHWM), recording spans with their callers' stacks, resuming, and
 * tampering (--inject) (ptrace/internal.h).
 */
#include "ptrace/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "inject_rules.h"
#include "symbolize.h"
#include "unwind.h"
#include "xalloc.h"

/* ---- reading the tracee --------------------------------------------------------------- */

/* Read a NUL-terminated string of at most `size` - 1 bytes at `addr` of `tid` into `out`.
 * Returns 0, 1 when it was truncated, or negative errno. Reads up to page boundaries first
 * so a string near the end of a mapping is still read. */
static int read_string(pid_t tid, uint64_t addr, char *out, size_t size)
{
	size_t got = 0;

	while (got < size - 1) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		struct iovec local, remote;
		ssize_t n;
		char *nul;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		local.iov_base = out + got;
		local.iov_len = chunk;
		remote.iov_base = (void *)(uintptr_t)(addr + got);
		remote.iov_len = chunk;
		n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n <= 0) {
			out[got] = '\0';
			return got ? 1 : (n < 0 ? -errno : -EFAULT);
		}
		nul = memchr(out + got, '\0', (size_t)n);
		if (nul)
			return 0;
		got += (size_t)n;
	}
	out[size - 1] = '\0';
	return 1;
}

int rn_pt_read_mem(pid_t tid, uint64_t addr, void *out, size_t len)
{
	struct iovec local = { out, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* execve's argument vector at `vec` and the size of its environment vector at `env`, for
 * per-call lines (see rn_syscall_event.argv). */
static void decode_argv(struct task *tk, uint64_t vec, uint64_t env)
{
	const size_t slot = RN_ARGV_STR_MAX + 2;
	size_t len = 0;
	uint64_t p, chunk[64];
	uint32_t i;

	if (!tk->argv)
		tk->argv = rn_xmalloc(RN_ARGV_MAX * slot);
	tk->nargv = 0;
	tk->argv_more = false;
	for (i = 0; vec && i <= RN_ARGV_MAX; i++) {
		if (rn_pt_read_mem(tk->tid, vec + i * sizeof(p), &p, sizeof(p)) || !p)
			break;
		if (i == RN_ARGV_MAX) {
			tk->argv_more = true;
			break;
		}
		if (read_string(tk->tid, p, tk->argv + len, slot) < 0)
			tk->argv[len] = '\0';
		len += strlen(tk->argv + len) + 1;
		tk->nargv++;
	}
	tk->has_argv = vec != 0;
	/* the environment: only its size is shown */
	tk->env_known = false;
	tk->nenv = 0;
	for (p = env; env && tk->nenv < 1000000;) {
		size_t k, got = sizeof(chunk) / sizeof(chunk[0]);

		/* a whole chunk may cross into an unmapped page: then one pointer at a time */
		if (rn_pt_read_mem(tk->tid, p, chunk, sizeof(chunk))) {
			got = 1;
			if (rn_pt_read_mem(tk->tid, p, chunk, sizeof(chunk[0])))
				return;
		}
		p += got * sizeof(chunk[0]);
		for (k = 0; k < got; k++) {
			if (!chunk[k]) {
				tk->env_known = true;
				return;
			}
			tk->nenv++;
		}
	}
}

/* The destination of connect() and sendto() in tk->path, as "inet 127.0.0.1:9",
 * "inet6 [::1]:9", "unix /run/x.sock" or "unix @abstract" (other families are left out):
 * the network endpoints of behaviour equivalence (assertions/equivalence.h). */
static void decode_sockaddr(struct task *tk, uint64_t addr, uint64_t len)
{
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN];
	const struct sockaddr_un *un = (const void *)&ss;
	const struct sockaddr_in *in4 = (const void *)&ss;
	const struct sockaddr_in6 *in6 = (const void *)&ss;
	size_t n;

	if (!addr || len < sizeof(sa_family_t))
		return;
	if (len > sizeof(ss))
		len = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	if (rn_pt_read_mem(tk->tid, addr, &ss, (size_t)len))
		return;
	if (!tk->path)
		tk->path = rn_xmalloc(RN_PATH_MAX);
	if (ss.ss_family == AF_INET && inet_ntop(AF_INET, &in4->sin_addr, host, sizeof(host))) {
		snprintf(tk->path, RN_PATH_MAX, "inet %s:%u", host, ntohs(in4->sin_port));
	} else if (ss.ss_family == AF_INET6 &&
		   inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host))) {
		snprintf(tk->path, RN_PATH_MAX, "inet6 [%s]:%u", host, ntohs(in6->sin6_port));
	} else if (ss.ss_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path)) {
		n = (size_t)len - offsetof(struct sockaddr_un, sun_path);
		if (n > sizeof(un->sun_path) - 1)
			n = sizeof(un->sun_path) - 1;
		if (un->sun_path[0])
			snprintf(tk->path, RN_PATH_MAX, "unix %.*s", (int)strnlen(un->sun_path, n),
				 un->sun_path);
		else
			snprintf(tk->path, RN_PATH_MAX, "unix @%.*s", (int)(n ? n - 1 : 0),
				 un->sun_path + 1);
	} else {
		return;
	}
	tk->has_path = true;
}

/* Decode the path arguments of the call in flight into tk->path/path2. */
void rn_pt_decode_paths(struct task *tk)
{
	int a0 = rn_syscall_path_arg(tk->nr, 0);
	int a1 = rn_syscall_path_arg(tk->nr, 1);
	const struct rn_sysnrs *n = rn_sysnrs();
	int rc;

	if (tk->nr == n->execve)
		decode_argv(tk, tk->args[1], tk->args[2]);
	else if (tk->nr == n->execveat)
		decode_argv(tk, tk->args[2], tk->args[3]);
	else if (tk->nr == SYS_connect)
		decode_sockaddr(tk, tk->args[1], tk->args[2]);
	else if (tk->nr == SYS_sendto)
		decode_sockaddr(tk, tk->args[4], tk->args[5]);
	if (a0 < 0)
		return;
	if (!tk->path)
		tk->path = rn_xmalloc(RN_PATH_MAX);
	rc = read_string(tk->tid, tk->args[a0], tk->path, RN_PATH_MAX);
	tk->has_path = rc >= 0;
	if (rc == 1)
		tk->sc_flags |= RN_SC_PATH_TRUNC;
	if (a1 < 0)
		return;
	if (!tk->path2)
		tk->path2 = rn_xmalloc(RN_PATH_MAX);
	rc = read_string(tk->tid, tk->args[a1], tk->path2, RN_PATH_MAX);
	tk->has_path2 = rc >= 0;
	if (rc == 1)
		tk->sc_flags |= RN_SC_PATH_TRUNC;
}

/* VmHWM of `tid` from /proc/TID/status, bytes; 0 if unreadable. */
uint64_t rn_pt_read_vm_hwm(pid_t tid)
{
	char path[64], buf[4096];
	const char *p;
	uint64_t kb = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	if (!p)
		return 0;
	for (p += 7; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		kb = kb * 10 + (uint64_t)(*p - '0');
	return kb * 1024;
}

/* ---- recording ------------------------------------------------------------------------ */

struct rn_process *rn_pt_proc_of(struct rn_collector *c, const struct task *tk)
{
	return &c->t->procs[tk->proc];
}

/*
 * Caller capture (spooled spans only). At a syscall-entry stop the registers are the user's:
 * the syscall instruction sits in a libc wrapper, and libc is usually built without frame
 * pointers, so the wrapper's caller is taken first (the word at rsp plus the offset the
 * wrapper's CFI row gives for the instruction, 0 for a wrapper that pushed nothing,
 * collectors/unwind.h; the link register on aarch64), then
 * the frame-pointer chain from rbp (x29), which such a wrapper leaves untouched, gives the
 * callers above it. One PTRACE_GETREGSET and one process_vm_readv of at most STACK_WINDOW
 * bytes per span bound the cost; a chain that leaves the window, goes down or is misaligned
 * ends the walk.
 */
#define STACK_WINDOW 4096
#define STACK_FRAMES 8

static void push_ret(struct task *tk, uint64_t ret)
{
	if (!ret || tk->nstack >= RN_SYSCALL_STACK_MAX ||
	    (tk->nstack && tk->stack[tk->nstack - 1] == ret))
		return;
	tk->stack[tk->nstack++] = ret;
}

#if defined(__x86_64__)
static uint64_t ra_offset(struct rn_collector *c, struct task *tk, uint64_t pc);
static void cfi_walk(struct rn_collector *c, struct task *tk, uint64_t pc, uint64_t sp,
		     uint64_t fp);
static bool in_runtime(struct rn_collector *c, struct task *tk, uint64_t addr);
#endif

void rn_pt_capture_stack(struct rn_collector *c, struct task *tk)
{
	uint64_t win[STACK_WINDOW / 8], top = 0, sp, fp, cur;
	struct iovec local[2], remote[3];
	unsigned long nremote = 0, nlocal = 0;
	bool have_win = false;
	size_t win_len, first;
	ssize_t n;
	int k;
#if defined(__x86_64__)
	struct user_regs_struct regs;
#else
	struct user_pt_regs regs;
#endif
	struct iovec rv = { &regs, sizeof(regs) };

	tk->nstack = 0;
	if (ptrace(PTRACE_GETREGSET, tk->tid, (void *)NT_PRSTATUS, &rv))
		return;
#if defined(__x86_64__)
	sp = regs.rsp;
	fp = regs.rbp;
	local[nlocal++] = (struct iovec){ &top, sizeof(top) };
	remote[nremote++] =
		(struct iovec){ (void *)(uintptr_t)(sp + ra_offset(c, tk, regs.rip)), sizeof(top) };
#else
	(void)c;
	sp = regs.sp;
	fp = regs.regs[29];
	push_ret(tk, regs.regs[30]);
#endif
	local[nlocal++] = (struct iovec){ win, sizeof(win) };
	/* The frame chain is above the stack pointer. Split the window at its first page end, so
	 * a window that runs past the top of the stack still yields its first page (the kernel
	 * stops at the first remote iovec it cannot read in full). */
	if (fp >= sp && !(fp & 7) && fp - sp < (64u << 20)) {
		first = 4096 - (fp & 4095);
		if (first > STACK_WINDOW)
			first = STACK_WINDOW;
		remote[nremote++] = (struct iovec){ (void *)(uintptr_t)fp, first };
		have_win = true;
		if (first < STACK_WINDOW)
			remote[nremote++] = (struct iovec){ (void *)(uintptr_t)(fp + first),
							    STACK_WINDOW - first };
	}
	if (!nremote)
		return;
	n = process_vm_readv(tk->tid, local, nlocal, remote, nremote, 0);
	if (n <= 0)
		return;
#if defined(__x86_64__)
	if (n < (ssize_t)sizeof(top))
		return;
	push_ret(tk, top);
	n -= (ssize_t)sizeof(top);
	/* made deeper inside the C runtime (stdio's fopen calls open64): its frames' CFI leads
	 * to the first caller outside it */
	if (in_runtime(c, tk, top))
		cfi_walk(c, tk, regs.rip, sp, fp);
#endif
	if (!have_win)
		return;
	win_len = (size_t)n;
	/* a frame record at fp: the saved fp, then the return address */
	cur = fp;
	for (k = 0; k < STACK_FRAMES && tk->nstack < RN_SYSCALL_STACK_MAX; k++) {
		uint64_t off = cur - fp, next;

		if (cur < fp || (cur & 7) || off + 16 > win_len)
			break;
		next = win[off / 8];
		push_ret(tk, win[off / 8 + 1]);
		if (next <= cur)
			break;
		cur = next;
	}
}

/* Keep a /proc/PID/maps snapshot that covers the captured addresses: taken at the first
 * captured span of the image and again when an address falls outside every mapping (a
 * library loaded since), at most MAPS_READS times per image; the exit stop takes the last. */
#define MAPS_READS 32

void rn_pt_refresh_maps(struct rn_collector *c, struct task *tk)
{
	struct rn_process *p = rn_pt_proc_of(c, tk);
	struct rn_maps *m;

	if (rn_maps_read(p->pid, &m))
		return;
	rn_maps_free(p->maps);
	p->maps = m;
}

#if defined(__x86_64__)
/* How far above the stack pointer the return address of the function that holds the
 * syscall instruction is: its CFI row says (collectors/unwind.h), so a libc wrapper with a
 * frame of its own (open64) still names its caller; 0, the word at rsp, when unknown. */
static uint64_t ra_offset(struct rn_collector *c, struct task *tk, uint64_t pc)
{
	struct rn_process *p = rn_pt_proc_of(c, tk);
	struct proc_state *ps = rn_pt_ps_of(c, tk->proc);
	uint64_t off;

	if (!c->unwind)
		c->unwind = rn_unwinder_new();
	if ((!p->maps || !rn_maps_find(p->maps, pc)) && ps->maps_reads < MAPS_READS) {
		ps->maps_reads++;
		rn_pt_refresh_maps(c, tk);
	}
	if (!p->maps || rn_unwind_ra_offset(c->unwind, p->maps, pc, &off) || off >= STACK_WINDOW)
		return 0;
	return off;
}

/* Whether `addr` lies in a C runtime module (rn_module_is_runtime) of tk's process. */
static bool in_runtime(struct rn_collector *c, struct task *tk, uint64_t addr)
{
	const struct rn_maps *m = rn_pt_proc_of(c, tk)->maps;
	const struct rn_map *map = m ? rn_maps_find(m, addr) : NULL;

	return map && map->path && rn_module_is_runtime(map->path);
}

/* Follow the call-frame information from the syscall instruction at `pc` (stack pointer
 * `sp`, frame pointer `fp`) through frames of the C runtime, at most CFI_FRAMES of them within
 * one CFI_WINDOW read from sp, and keep the first return address outside it. A frame's CFA is
 * rsp or rbp plus a constant (collectors/unwind.h); rbp is followed through the frames that
 * saved it, so a function that keeps a frame pointer (glibc's __vfscanf_internal under
 * fscanf's reads) does not end the walk. Any other rule does. */
#define CFI_FRAMES 12
#define CFI_WINDOW 4096

static void cfi_walk(struct rn_collector *c, struct task *tk, uint64_t pc, uint64_t sp, uint64_t fp)
{
	uint64_t win[CFI_WINDOW / 8], cur = sp, cfa, ra;
	struct iovec local = { win, sizeof(win) }, remote[2];
	size_t first = 4096 - (sp & 4095), len;
	unsigned long nremote = 1;
	struct rn_unwind_row row;
	ssize_t n;
	int k;

	if (!rn_pt_proc_of(c, tk)->maps || (sp & 7))
		return;
	if (first > CFI_WINDOW)
		first = CFI_WINDOW;
	remote[0] = (struct iovec){ (void *)(uintptr_t)sp, first };
	if (first < CFI_WINDOW)
		remote[nremote++] =
			(struct iovec){ (void *)(uintptr_t)(sp + first), CFI_WINDOW - first };
	n = process_vm_readv(tk->tid, &local, 1, remote, nremote, 0);
	if (n <= 0)
		return;
	len = (size_t)n;
	for (k = 0; k < CFI_FRAMES; k++) {
		/* a return address is looked up at the call instruction before it */
		if (rn_unwind_row(c->unwind, rn_pt_proc_of(c, tk)->maps, k ? pc - 1 : pc, &row))
			return;
		cfa = (row.cfa_rbp ? fp : cur) + (uint64_t)row.cfa_off;
		/* the return address at CFA - 8 must lie in the window, above this frame */
		if ((cfa & 7) || cfa < cur + 8 || cfa - sp > len)
			return;
		ra = win[(cfa - 8 - sp) / 8];
		if (row.rbp_saved) {
			uint64_t at = cfa + (uint64_t)row.rbp_off;

			if ((at & 7) || at < sp || at - sp + 8 > len)
				return;
			fp = win[(at - sp) / 8];
		}
		cur = cfa;
		if (!in_runtime(c, tk, ra)) {
			push_ret(tk, ra);
			return;
		}
		pc = ra;
	}
}
#endif

/* Descriptors at or above this one are not kept open across calls: a program of thousands of
 * threads must not take the tracer's descriptors; its threads' reads open and close. */
#define SCHED_FD_KEEP 512

uint64_t rn_pt_task_cpu_ns(struct task *tk)
{
	char buf[96];
	ssize_t n;
	int fd = tk->sched_fd;

	if (fd == -2)
		return 0;
	if (fd < 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/schedstat", (int)tk->tid);
		fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			tk->sched_fd = errno == EMFILE || errno == ENFILE ? -1 : -2;
			return 0;
		}
		tk->sched_fd = fd < SCHED_FD_KEEP ? fd : -1;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (tk->sched_fd != fd)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

void rn_pt_note_maps(struct rn_collector *c, struct task *tk)
{
	struct rn_process *p = rn_pt_proc_of(c, tk);
	struct proc_state *ps = rn_pt_ps_of(c, tk->proc);
	int i;

	if (p->maps) {
		for (i = 0; i < tk->nstack; i++)
			if (!rn_maps_find(p->maps, tk->stack[i]))
				break;
		if (i == tk->nstack)
			return;
	}
	if (ps->maps_reads >= MAPS_READS)
		return;
	ps->maps_reads++;
	rn_pt_refresh_maps(c, tk);
}

/* Hand the span of tk's call to the model. */
void rn_pt_emit(struct rn_collector *c, struct task *tk, int64_t ret, int err, uint32_t flags,
		uint64_t end_ns)
{
	struct rn_syscall_event ev;
	struct rn_process *p = rn_pt_proc_of(c, tk);

	ev.pid = p->pid;
	ev.tid = tk->tid;
	ev.nr = tk->nr;
	ev.flags = flags | tk->sc_flags;
	memcpy(ev.args, tk->args, sizeof(ev.args));
	ev.ret = ret;
	ev.err = err;
	ev.start_ns = tk->start_ns;
	ev.duration_ns = end_ns > tk->start_ns ? end_ns - tk->start_ns : 0;
	ev.path = tk->has_path ? tk->path : NULL;
	ev.path2 = tk->has_path2 ? tk->path2 : NULL;
	ev.argv = tk->has_argv ? tk->argv : NULL;
	ev.nargv = tk->has_argv ? tk->nargv : 0;
	ev.argv_more = tk->has_argv && tk->argv_more;
	ev.env_known = tk->env_known;
	ev.nenv = tk->nenv;
	ev.nstack = tk->nstack;
	memcpy(ev.stack, tk->stack, sizeof(ev.stack));
	ev.cpu_ns = 0;
	if ((tk->flags & TASK_SC_CPU) && !(flags & RN_SC_UNFINISHED)) {
		uint64_t now = rn_pt_task_cpu_ns(tk);

		if (now >= tk->cpu_entry_ns) {
			ev.cpu_ns = now - tk->cpu_entry_ns;
			ev.flags |= RN_SC_CPU;
		}
	}
	tk->flags &= ~(uint32_t)TASK_SC_CPU;
	rn_trace_syscall(c->t, p, &ev);
}

/* Close tk's call in flight as one that never returned. */
void rn_pt_close_unfinished(struct rn_collector *c, struct task *tk)
{
	rn_pt_set_waiting(c, tk, false);
	if (!(tk->flags & TASK_IN_SYSCALL))
		return;
	tk->flags &= ~(uint32_t)(TASK_IN_SYSCALL | TASK_WANT_EXIT);
	if (!(tk->flags & TASK_SC_HIDDEN))
		rn_pt_emit(c, tk, 0, 0, RN_SC_UNFINISHED, tk->start_ns);
}

int rn_pt_fail_arch(struct rn_collector *c, struct task *tk, const char *what)
{
	struct rn_process *p = rn_pt_proc_of(c, tk);

	rn_trace_fail(c->t, RN_RUN_ERROR,
		      "target '%s': process %d ('%s') makes %s system calls, which renacer does "
		      "not support (it traces " NATIVE_ARCH_NAME " system calls only)",
		      c->spec->name ? c->spec->name : "?", (int)p->pid, p->comm ? p->comm : "?",
		      what);
	return -ENOTSUP;
}

/* ---- resuming --------------------------------------------------------------------------- */

void rn_pt_resume(struct rn_collector *c, struct task *tk, int sig)
{
	int req = PTRACE_SYSCALL;

	if (c->killing)
		req = PTRACE_CONT;
	else if ((c->seccomp || c->events_only) && !(tk->flags & TASK_WANT_EXIT))
		req = PTRACE_CONT;
	/* ESRCH: the task was killed meanwhile; its exit status follows */
	ptrace(req, tk->tid, 0L, (long)sig);
}

/* ---- syscall stops ---------------------------------------------------------------------- */

static bool filtered_out(const struct rn_collector *c, int nr)
{
	const bool *f = c->spec->syscall_filter;

	return f && (nr < 0 || nr >= rn_syscall_table_size() || !f[nr]);
}

/* ---- tampering (--inject, inject_rules.h) ---------------------------------------------- */

/* Hold the stopped task `ns` nanoseconds: the tracer sleeps (an interrupt cuts it short). */
static void inject_sleep(uint64_t ns)
{
	struct timespec d = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&d, NULL);
}

/* Make the kernel skip the call at this entry stop: syscall number -1, as strace does (the
 * kernel reads the number again after a syscall-entry or seccomp stop). 0 or -errno. */
static int skip_syscall(pid_t tid)
{
#if defined(__x86_64__)
	if (ptrace(PTRACE_POKEUSER, tid, (void *)offsetof(struct user, regs.orig_rax), (void *)-1L))
		return -errno;
	return 0;
#else
	int nr = -1;
	struct iovec io = { &nr, sizeof(nr) };

	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL, &io) ? -errno : 0;
#endif
}

/* Set the return value the task sees at this exit stop. 0 or -errno. */
static int set_return(pid_t tid, int64_t v)
{
#if defined(__x86_64__)
	if (ptrace(PTRACE_POKEUSER, tid, (void *)offsetof(struct user, regs.rax), (void *)v))
		return -errno;
	return 0;
#else
	struct user_regs_struct regs;
	struct iovec io = { &regs, sizeof(regs) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &io))
		return -errno;
	regs.regs[0] = (uint64_t)v;
	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &io) ? -errno : 0;
#endif
}

/* The rule that applies to this invocation of `nr`, counted: the last rule naming the call
 * (strace's order), if its when= takes this invocation; else NULL. */
static const struct rn_inject *inject_match(struct rn_collector *c, int nr)
{
	const struct rn_run_spec *spec = c->spec;
	int n = rn_syscall_table_size();

	if (nr < 0 || nr >= n)
		return NULL;
	for (size_t r = spec->ninject; r-- > 0;) {
		if (!spec->inject[r].set[nr])
			continue;
		return rn_inject_when(&spec->inject[r],
				      ++c->inj_counts[r * (size_t)n + (size_t)nr]) ?
			&spec->inject[r] :
			NULL;
	}
	return NULL;
}

/* At the entry stop of a call of the traced program: apply the rule that matches. */
static void inject_entry(struct rn_collector *c, struct task *tk, int nr)
{
	const struct rn_inject *inj = inject_match(c, nr);

	tk->inj = inj;
	if (!inj)
		return;
	/* signal=: queued to the stopped thread now, delivered as the call returns (or
	 * interrupting it, as strace's). A resume with the signal would do at a syscall-entry
	 * stop, but the kernel drops the signal of a resume from a seccomp stop. */
	if (inj->actions & RN_INJECT_SIGNAL)
		syscall(SYS_tgkill, rn_pt_proc_of(c, tk)->pid, tk->tid, inj->signo);
	if (inj->actions & RN_INJECT_DELAY_ENTER)
		inject_sleep(inj->delay_enter_ns);
	if ((inj->actions & (RN_INJECT_ERROR | RN_INJECT_RETVAL)) && skip_syscall(tk->tid))
		tk->inj = NULL; /* the task is gone (killed meanwhile): its exit follows */
	if (inj->actions & (RN_INJECT_ERROR | RN_INJECT_RETVAL | RN_INJECT_DELAY_EXIT))
		tk->flags |= TASK_WANT_EXIT;
}

/* At the exit stop: the injected result (*rval, *is_error), the exit delay. Returns the
 * enum rn_syscall_flags to add to the span. */
uint32_t rn_pt_inject_exit(struct task *tk, int64_t *rval, bool *is_error)
{
	const struct rn_inject *inj = tk->inj;
	uint32_t flags = 0;

	tk->inj = NULL;
	if (!inj)
		return 0;
	if (inj->actions & (RN_INJECT_ERROR | RN_INJECT_RETVAL)) {
		int64_t v = inj->actions & RN_INJECT_ERROR ? -(int64_t)inj->error : inj->retval;

		if (!set_return(tk->tid, v)) {
			*rval = v;
			*is_error = (inj->actions & RN_INJECT_ERROR) != 0;
			flags |= RN_SC_INJECTED;
		}
	}
	if (inj->actions & RN_INJECT_DELAY_EXIT)
		inject_sleep(inj->delay_exit_ns);
	if (inj->actions & (RN_INJECT_DELAY_ENTER | RN_INJECT_DELAY_EXIT))
		flags |= RN_SC_DELAYED;
	return flags;
}

/* At the entry stop of call nr, an execve or execveat when `exec`: the root stays hidden until
 * its execve; an image the process got by exec leaves its peak RSS in the process's. */
static void entry_exec(struct rn_collector *c, struct task *tk, bool exec)
{
	if (tk->flags & TASK_HIDDEN) {
		/* strace shows the root from its execve on; so do the counts */
		if (exec)
			tk->flags &= ~(uint32_t)TASK_HIDDEN;
		else
			tk->flags |= TASK_SC_HIDDEN;
	} else if (exec && rn_pt_proc_of(c, tk)->exec_ns) {
		/* An image the process got by exec is about to be replaced: its peak RSS is part
		 * of the process's (the largest of its images'), and VmHWM restarts with the new
		 * mm. A fork child's first image is a copy of its parent's memory and is left
		 * out, as wait4's ru_maxrss is for a process that exec'd. */
		struct rn_process *p = rn_pt_proc_of(c, tk);
		uint64_t hwm = rn_pt_read_vm_hwm(tk->tid);

		if (hwm > p->vm_hwm_bytes)
			p->vm_hwm_bytes = hwm;
	}
}

/* At the entry stop of call nr in a seccomp mode: whether the exit stop is wanted, else the
 * call is counted now. */
static void seccomp_entry(struct rn_collector *c, struct task *tk, int nr, uint64_t ts)
{
	const struct rn_sysnrs *n = rn_sysnrs();

	/* The exit stop is needed for a duration (filtered mode), or for a result the model
	 * needs (reaping, allocations, the affinity answer). */
	if ((!c->count_only && !(tk->flags & TASK_SC_HIDDEN)) || (tk->flags & TASK_WANT_EXIT) ||
	    (nr >= 0 && nr < rn_syscall_table_size() && c->want_exit[nr])) {
		tk->flags |= TASK_WANT_EXIT;
		return;
	}
	/* Count-only: the call is counted at its entry, without duration or result; exit and
	 * exit_group never return, and strace -c does not count them. */
	tk->flags &= ~(uint32_t)TASK_IN_SYSCALL;
	if (!(tk->flags & TASK_SC_HIDDEN))
		rn_pt_emit(c, tk, 0, 0, nr == n->exit || nr == n->exit_group ? RN_SC_UNFINISHED : 0,
			   ts);
}

static int syscall_entry(struct rn_collector *c, struct task *tk, int nr, const uint64_t *args,
			 uint64_t ts)
{
	const struct rn_sysnrs *n = rn_sysnrs();

	tk->nr = nr;
	memcpy(tk->args, args, sizeof(tk->args));
	tk->start_ns = ts;
	tk->sc_flags = 0;
	tk->flags |= TASK_IN_SYSCALL;
	tk->flags &= ~(uint32_t)(TASK_SC_HIDDEN | TASK_WANT_EXIT);
	tk->has_path = false;
	tk->has_path2 = false;
	tk->has_argv = false;
	tk->env_known = false;
	entry_exec(c, tk, nr == n->execve || nr == n->execveat);
	if (filtered_out(c, nr) || c->events_only)
		tk->flags |= TASK_SC_HIDDEN; /* a timing run stops only for --inject */
	tk->inj = NULL;
	/* strace tampers with the calls it traces (-e trace=SET) only, from the exec on */
	if (c->inj_counts && !(tk->flags & TASK_HIDDEN) && !filtered_out(c, nr))
		inject_entry(c, tk, nr);
	tk->nstack = 0;
	if (c->need_paths && !(tk->flags & TASK_SC_HIDDEN))
		rn_pt_decode_paths(tk);
	/* the caller is kept with spooled spans only: the counting path stays as cheap as
	 * strace's */
	if (c->t->spool && !(tk->flags & TASK_SC_HIDDEN)) {
		rn_pt_capture_stack(c, tk);
		if (tk->nstack)
			rn_pt_note_maps(c, tk);
		/* and the CPU it has used so far: a profile tells a call's work from its wait */
		tk->cpu_entry_ns = tk->nstack && c->t->syscall_cpu ? rn_pt_task_cpu_ns(tk) : 0;
		if (tk->cpu_entry_ns)
			tk->flags |= TASK_SC_CPU;
	}
	if ((nr == n->wait4 && !(args[2] & WNOHANG)) || (nr == n->waitid && !(args[3] & WNOHANG))) {
		rn_pt_set_waiting(c, tk, true);
		rn_pt_balance(c);
	}
	if (c->seccomp)
		seccomp_entry(c, tk, nr, ts);
	return 0;
}

/* A wait4/waitid of a traced process returned a child: remember who reaped whom (the
 * critical-path metric follows these edges). The tracer always sees a traced child's exit
 * before its real parent can reap it, so the child has ended in the model already. */
static void note_reap(struct rn_collector *c, struct task *tk, int64_t ret, uint64_t ts)
{
	const struct rn_sysnrs *n = rn_sysnrs();
	pid_t child = 0;
	int idx;

	if (tk->nr == n->wait4) {
		child = (pid_t)ret;
	} else if (tk->nr == n->waitid && ret == 0 && tk->args[2]) {
		int32_t pid_field;

		if (tk->args[3] & WNOWAIT)
			return;
		/* siginfo_t: si_signo, si_errno, si_code, padding, then si_pid at offset 16 */
		if (rn_pt_read_mem(tk->tid, tk->args[2] + 16, &pid_field, sizeof(pid_field)))
			return;
		child = pid_field;
	}
	if (child <= 0)
		return;
	idx = rn_trace_find_process(c->t, child);
	if (idx < 0 || c->t->procs[idx].end == RN_PROC_RUNNING || c->t->procs[idx].reaped_by >= 0)
		return;
	c->t->procs[idx].reaped_by = tk->proc;
	c->t->procs[idx].reaped_ns = ts;
}

/* A narrowed task must still see its real affinity: rewrite the answer. */
static void fix_affinity_answer(struct rn_collector *c, struct task *tk, int64_t ret)
{
	struct iovec local, remote;
	size_t len = (size_t)ret;

	if (!(tk->flags & TASK_NARROW) || ret <= 0)
		return;
	if (len > sizeof(c->cpus_orig))
		len = sizeof(c->cpus_orig);
	local.iov_base = &c->cpus_orig;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)tk->args[2];
	remote.iov_len = len;
	process_vm_writev(tk->tid, &local, 1, &remote, 1, 0);
}

static void syscall_exit(struct rn_collector *c, struct task *tk, int64_t rval, bool is_error,
			 uint64_t ts)
{
	const struct rn_sysnrs *n = rn_sysnrs();
	int err = is_error ? (int)-rval : 0;
	uint32_t flags = 0;

	if (!(tk->flags & TASK_IN_SYSCALL))
		return; /* an exit whose entry was not seen (attach mid-call) */
	tk->flags &= ~(uint32_t)(TASK_IN_SYSCALL | TASK_WANT_EXIT);
	if (tk->inj) {
		flags |= rn_pt_inject_exit(tk, &rval, &is_error);
		err = is_error ? (int)-rval : 0;
	}
	if (tk->flags & TASK_WAITING) {
		rn_pt_set_waiting(c, tk, false);
		rn_pt_balance(c);
	}
	if (err && rn_errno_is_restart(err))
		flags |= RN_SC_RESTARTED;
	if (!err) {
		if (tk->nr == n->wait4 || tk->nr == n->waitid)
			note_reap(c, tk, rval, ts);
		else if (tk->nr == n->sched_getaffinity)
			fix_affinity_answer(c, tk, rval);
	}
	if (!(tk->flags & TASK_SC_HIDDEN))
		rn_pt_emit(c, tk, rval, err, flags, ts);
}

int rn_pt_syscall_stop(struct rn_collector *c, struct task *tk)
{
	struct __ptrace_syscall_info info;
	uint64_t ts = rn_mono_ns();
	long n;

	c->t->unfiltered_stops++;
	n = ptrace(PTRACE_GET_SYSCALL_INFO, tk->tid, (void *)sizeof(info), &info);
	if (n <= 0)
		return 0; /* killed meanwhile */
	if (info.arch != NATIVE_AUDIT_ARCH)
		return rn_pt_fail_arch(c, tk,
				       info.arch == AUDIT_ARCH_I386 ? "i386 (32-bit)" : "foreign");
	switch (info.op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
#ifdef X32_SYSCALL_BIT
		if (info.entry.nr & X32_SYSCALL_BIT)
			return rn_pt_fail_arch(c, tk, "x32");
#endif
		return syscall_entry(c, tk, (int)info.entry.nr, info.entry.args, ts);
	case PTRACE_SYSCALL_INFO_SECCOMP:
#ifdef X32_SYSCALL_BIT
		if (info.seccomp.nr & X32_SYSCALL_BIT)
			return rn_pt_fail_arch(c, tk, "x32");
#endif
		return syscall_entry(c, tk, (int)info.seccomp.nr, info.seccomp.args, ts);
	case PTRACE_SYSCALL_INFO_EXIT:
		syscall_exit(c, tk, info.exit.rval, info.exit.is_error, ts);
		return 0;
	default:
		return 0;
	}
}
