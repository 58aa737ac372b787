/*
 * counter.h - what the in-kernel syscall counter (counter.bpf.c) and its loader (ebpf.c)
 * share: map keys and values and the process events of the ring buffer.
 *
 * Included by the BPF program (after vmlinux.h, which defines the __u32 style types) and by
 * user space (after <linux/types.h>). Times are bpf_ktime_get_ns(), which is
 * CLOCK_MONOTONIC, in ns.
 */
#ifndef RN_EBPF_COUNTER_H
#define RN_EBPF_COUNTER_H

/* State of a followed thread group in the `tracked` map (enum rn_ebpf_state). */
enum rn_ebpf_state {
	RN_EBPF_ARMED = 1,  /* the spawned root before its execve: nothing is counted yet */
	RN_EBPF_ACTIVE = 2, /* counted */
};

/* Key of the per-process per-syscall counters (a per-CPU hash). */
struct rn_ebpf_key {
	__u32 tgid; /* thread group id */
	__u32 nr;   /* syscall number of the native ABI */
};

/* Value of the counters, per CPU; user space sums calls, errors and ns, and takes the
 * smallest min_ns and the largest max_ns. Durations are 0 when timing is off. */
struct rn_ebpf_stat {
	__u64 calls;    /* calls counted at their exit, as strace -c counts them */
	__u64 errors;   /* of which returned -1..-4095 (ERESTART* included) */
	__u64 total_ns; /* summed entry-to-exit time, ns */
	__u64 min_ns;   /* shortest, ns (valid when calls > 0) */
	__u64 max_ns;   /* longest, ns */
};

/* Kinds of process event (enum rn_ebpf_event_kind). */
enum rn_ebpf_event_kind {
	RN_EBPF_EV_FORK = 1,   /* a new thread group `pid` of parent `ppid` */
	RN_EBPF_EV_THREAD = 2, /* a new thread `tid` in thread group `pid` */
	RN_EBPF_EV_EXEC = 3,   /* `pid` exec'd `path` */
	RN_EBPF_EV_EXIT = 4,   /* the last thread of `pid` exited; `code` is a wait status */
};

/* Longest exec path kept, bytes including the NUL. */
#define RN_EBPF_PATH_MAX 256

/* One process event of the ring buffer. */
struct rn_ebpf_event {
	__u64 ts_ns; /* CLOCK_MONOTONIC, ns */
	__u32 kind;  /* enum rn_ebpf_event_kind */
	__u32 pid;   /* thread group id */
	__u32 ppid;  /* FORK: parent's thread group id */
	__u32 tid;   /* THREAD: the new thread's id */
	__s32 code;  /* EXIT: wait status (exit code << 8, or signal | 0x80 core) */
	__u32 pad;
	char path[RN_EBPF_PATH_MAX]; /* EXEC: the path given to execve, NUL-terminated;
				      * absent from the other kinds' records */
};

/* Bytes of an event record without `path`. */
#define RN_EBPF_EVENT_HEAD 32

#endif
