/*
 * ebpf.h - the eBPF driver: count the syscalls of a process tree in the kernel, without
 * stopping it.
 *
 * A BPF program (counter.bpf.c, CO-RE, compiled with clang -target bpf when renacer is built,
 * its skeleton embedded in renacer; nothing is compiled when it runs) is loaded with libbpf
 * and attached to five raw tracepoints: sys_enter, sys_exit, sched_process_fork,
 * sched_process_exec and sched_process_exit. Raw tracepoints need no tracefs.
 *
 * Life of one run (collector.h), with the plain driver of run.c (no ptrace):
 *
 *     create   -> open, load and attach the program (the start-up cost, tens of ms)
 *                 (RN_RUN_COUNT_ONLY: no times; without RN_RUN_FOLLOW_FORKS only the root
 *                 process is counted)
 *     on_spawn -> the root exists, stopped before its execve: put its pid in the `tracked`
 *                 map; from the entry of its execve on, its calls are counted, and every
 *                 process it forks is followed from its birth (no race: the fork handler
 *                 runs in the parent before the child can run)
 *     finish   -> read the process events (fork, thread, exec with its path, exit with its
 *                 wait status) from the ring buffer into the trace's process tree, then the
 *                 per-process per-syscall counters into rn_process.sc and the totals
 *     destroy  -> detach and unload
 *
 * What it gives, in the trace model: processes with parent, birth, exec (exe = the path given
 * to execve, not /proc/PID/exe), end and exit status; per-process per-syscall calls, errors
 * and (unless RN_RUN_COUNT_ONLY) entry-to-exit time, counted as strace -c counts them.
 * What it cannot give (no tracer stop, no access to the tracee's memory): syscall arguments,
 * decoded paths and argv, per-call spans (no sinks' syscall callbacks, no spool, so no
 * anti-pattern evidence, timeline or OTLP spans), stacks, allocation accounting
 * (alloc_peak/alloc_total) and per-process VmHWM (the root's ru_maxrss only). Calls made by
 * descendants after the root has exited are not counted (the run ends with the root).
 *
 * Requirements: root, or CAP_BPF + CAP_PERFMON; a kernel with BTF (/sys/kernel/btf/vmlinux);
 * renacer built with RN_WITH_EBPF (clang, bpftool and libbpf found). Built without it, the
 * same symbols are a stub whose unavailable() says why.
 */
#ifndef RN_EBPF_H
#define RN_EBPF_H

#include <stdbool.h>

#include "collector.h"

/* The eBPF collector's operations (listed in the registry as "ebpf"). */
extern const struct rn_collector_ops rn_ebpf_collector;

/* The kernel's own BTF, which relocates the counter to the running kernel. */
#define RN_EBPF_KERNEL_BTF "/sys/kernel/btf/vmlinux"

/*
 * Can the eBPF driver run here? NULL when it can, else a one-line reason in static storage
 * ("not built (RN_WITH_EBPF=OFF)", "needs root or CAP_BPF and CAP_PERFMON", "the kernel has no
 * BTF (/sys/kernel/btf/vmlinux is missing)", "the BTF file 'F' is not usable BTF: ..."). Checks
 * the build, the capabilities and that the BTF file (rn_ebpf_btf_path) parses; it does not
 * load the program, so a load can still fail (create() then returns the error). `check` and
 * `trace` turn a reason into exit 5 for driver = "ebpf" and into ptrace for "auto".
 */
const char *rn_ebpf_unavailable(void);

/* The BTF file the counter is relocated with: $RENACER_BTF when set and not empty, else
 * RN_EBPF_KERNEL_BTF. Static or environment storage. */
const char *rn_ebpf_btf_path(void);

#endif
