// SPDX-License-Identifier: GPL-2.0
/*
 * counter.bpf.c - the in-kernel side of the eBPF driver: count the syscalls of one process
 * tree without stopping it.
 *
 * The tree is the thread groups in `tracked`. User space puts the spawned root there (ARMED)
 * while the root is stopped before its execve, so no call of the tree can run before the
 * counter knows it; the root turns ACTIVE at the entry of its first execve (the calls of the
 * spawn set-up before it are not the target's, as strace starts at the execve too).
 * sched_process_fork adds every new thread group whose parent is tracked, in the parent's
 * context, before the child can run; sched_process_exit removes a group when its last thread
 * is gone (so a recycled pid is not counted).
 *
 * All five programs are raw tracepoints: no tracefs is needed to attach them.
 * raw_syscalls:sys_exit counts a call at its exit, as strace -c does: exit/exit_group and
 * calls cut off by the process's death are not counted, a call that returned ERESTART* counts
 * once (with an error) and again when the kernel restarts it. With `time_calls` the entry
 * time of each thread's call is kept in `inflight` and the entry-to-exit time summed: real
 * time in the kernel plus the probe's own cost, without any tracer stop. The syscall number
 * is taken at the entry (kept per thread in `inflight`): at the exit of rt_sigreturn the
 * registers hold the interrupted call's. A call that returns ERESTART* while its thread is
 * being killed (exit_group, another thread's execve) is not counted: strace never sees it
 * return.
 *
 * Process events go to a ring buffer; a full buffer drops events and counts them in
 * `dropped_events`.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "counter.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile bool time_calls = false;  /* measure entry-to-exit time per call */
const volatile bool follow_forks = true; /* count the root's descendants too */
const volatile __u32 nr_execve = 59;     /* syscall numbers of the native ABI */
const volatile __u32 nr_execveat = 322;

/* A call in flight of one thread: what sys_exit needs (the number at the exit is not
 * reliable: rt_sigreturn restores the interrupted call's registers). */
struct inflight_call {
	__u64 start_ns; /* entry time, ns (0 when timing is off) */
	__s64 nr;       /* syscall number at entry, -1 when none is in flight */
};

/* Events the ring buffer had no room for. */
__u64 dropped_events = 0;
/* Counter, process or thread entries a full map had no room for. */
__u64 dropped_entries = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);   /* tgid */
	__type(value, __u32); /* enum rn_ebpf_state */
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 131072);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rn_ebpf_key);
	__type(value, struct rn_ebpf_stat);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32); /* tid */
	__type(value, struct inflight_call);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Process event `kind`; only exec events carry the path (the others are the header's
 * RN_EBPF_EVENT_HEAD bytes). */
static __always_inline void emit(__u32 kind, __u32 pid, __u32 ppid, __u32 tid, __s32 code,
				 const char *kpath)
{
	struct rn_ebpf_event *ev;

	if (kpath)
		ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	else
		ev = bpf_ringbuf_reserve(&events, RN_EBPF_EVENT_HEAD, 0);

	if (!ev) {
		__sync_fetch_and_add(&dropped_events, 1);
		return;
	}
	ev->ts_ns = bpf_ktime_get_ns();
	ev->kind = kind;
	ev->pid = pid;
	ev->ppid = ppid;
	ev->tid = tid;
	ev->code = code;
	ev->pad = 0;
	if (kpath)
		bpf_probe_read_kernel_str(ev->path, sizeof(ev->path), kpath);
	bpf_ringbuf_submit(ev, 0);
}

/* raw_syscalls:sys_enter(struct pt_regs *regs, long id) */
SEC("raw_tracepoint/sys_enter")
int rn_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	long nr = (long)ctx->args[1];
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	__u32 *st = bpf_map_lookup_elem(&tracked, &tgid);
	struct inflight_call *slot, call;

	if (!st)
		return 0;
	if (*st == RN_EBPF_ARMED) {
		if (nr != nr_execve && nr != nr_execveat)
			return 0;
		*st = RN_EBPF_ACTIVE;
	}
	call.start_ns = time_calls ? bpf_ktime_get_ns() : 0;
	call.nr = nr;
	slot = bpf_map_lookup_elem(&inflight, &tid);
	if (slot)
		*slot = call;
	else if (bpf_map_update_elem(&inflight, &tid, &call, BPF_ANY))
		__sync_fetch_and_add(&dropped_entries, 1);
	return 0;
}

/* Is the current thread being killed (SIGKILL pending: exit_group or another thread's
 * execve)? strace does not see such a call return, so it is not counted. */
static __always_inline bool dying(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	unsigned long pending = BPF_CORE_READ(task, pending.signal.sig[0]);
	unsigned int flags = BPF_CORE_READ(task, signal, flags);

	return (pending & (1ul << (9 - 1))) || (flags & 0x4 /* SIGNAL_GROUP_EXIT */);
}

/* raw_syscalls:sys_exit(struct pt_regs *regs, long ret) */
SEC("raw_tracepoint/sys_exit")
int rn_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	long ret = (long)ctx->args[1], nr;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	__u32 *st = bpf_map_lookup_elem(&tracked, &tgid);
	struct inflight_call *slot;
	struct rn_ebpf_key key;
	struct rn_ebpf_stat *s;
	__u64 dur = 0;

	if (!st || *st != RN_EBPF_ACTIVE)
		return 0;
	slot = bpf_map_lookup_elem(&inflight, &tid);
	if (!slot || slot->nr < 0)
		return 0; /* an exit whose entry was not seen */
	nr = slot->nr;
	slot->nr = -1;
	/* ERESTARTSYS..ERESTART_RESTARTBLOCK of a thread being killed: cut off by its death */
	if (ret <= -512 && ret >= -516 && dying())
		return 0;
	if (time_calls)
		dur = bpf_ktime_get_ns() - slot->start_ns;
	key.tgid = tgid;
	key.nr = (__u32)nr;
	s = bpf_map_lookup_elem(&counts, &key);
	if (!s) {
		struct rn_ebpf_stat zero = {};

		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&counts, &key);
		if (!s) {
			__sync_fetch_and_add(&dropped_entries, 1);
			return 0;
		}
	}
	s->calls++;
	if (ret < 0 && ret >= -4095)
		s->errors++;
	s->total_ns += dur;
	if (s->calls == 1 || dur < s->min_ns)
		s->min_ns = dur;
	if (dur > s->max_ns)
		s->max_ns = dur;
	return 0;
}

SEC("raw_tracepoint/sched_process_fork")
int rn_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 ctid = BPF_CORE_READ(child, pid);
	__u32 *st = bpf_map_lookup_elem(&tracked, &ptgid);
	__u32 state;

	if (!st)
		return 0;
	if (ctgid == ptgid) {
		emit(RN_EBPF_EV_THREAD, ctgid, ptgid, ctid, 0, NULL);
		return 0;
	}
	if (!follow_forks)
		return 0;
	state = *st;
	if (bpf_map_update_elem(&tracked, &ctgid, &state, BPF_ANY))
		__sync_fetch_and_add(&dropped_entries, 1);
	emit(RN_EBPF_EV_FORK, ctgid, ptgid, ctid, 0, NULL);
	return 0;
}

/* sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) */
SEC("raw_tracepoint/sched_process_exec")
int rn_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct linux_binprm *bprm = (struct linux_binprm *)ctx->args[2];
	__u32 old_tid = (__u32)ctx->args[1];
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct inflight_call *slot;
	const char *filename;

	if (!bpf_map_lookup_elem(&tracked, &tgid))
		return 0;
	/* A thread other than the leader exec'd: it took the leader's id; its execve returns
	 * under that id. */
	if (old_tid != tid) {
		slot = bpf_map_lookup_elem(&inflight, &old_tid);
		if (slot) {
			struct inflight_call call = *slot;

			bpf_map_update_elem(&inflight, &tid, &call, BPF_ANY);
			bpf_map_delete_elem(&inflight, &old_tid);
		}
	}
	filename = BPF_CORE_READ(bprm, filename);
	emit(RN_EBPF_EV_EXEC, tgid, 0, 0, 0, filename);
	return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int rn_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	int live;

	(void)ctx;
	if (!bpf_map_lookup_elem(&tracked, &tgid))
		return 0;
	bpf_map_delete_elem(&inflight, &tid);
	live = BPF_CORE_READ(task, signal, live.counter);
	if (live > 0)
		return 0; /* another thread of the group is still alive */
	emit(RN_EBPF_EV_EXIT, tgid, 0, 0, BPF_CORE_READ(task, exit_code), NULL);
	bpf_map_delete_elem(&tracked, &tgid);
	return 0;
}
