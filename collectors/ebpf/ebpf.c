/*
 * ebpf.c - the eBPF driver's user-space side: load the embedded counter, seed the root, read
 * the kernel's maps into the trace model. See ebpf.h.
 */
#include "ebpf.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "counter.h"
#include "counter.skel.h"
#include "log.h"
#include "elf_id.h"
#include "now.h"
#include "xalloc.h"

_Static_assert(offsetof(struct rn_ebpf_event, path) == RN_EBPF_EVENT_HEAD,
	       "process events without a path are RN_EBPF_EVENT_HEAD bytes");

struct rn_collector {
	struct rn_counter *skel;  /* the loaded, attached program */
	struct ring_buffer *rb;   /* reader of the process events */
	struct rn_trace *t;       /* the trace being filled (set at on_spawn) */
	struct rn_elf_cache *elf; /* build-ids of exec'd images */
	bool time_calls;          /* entry-to-exit times are measured */
	bool events_only;         /* a timing run: process events, no syscall program */
	pid_t root;               /* the seeded root */
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	const char *dbg = getenv("RENACER_EBPF_DEBUG");

	if (!dbg || !*dbg || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Capability `cap` (linux/capability.h numbering) in the effective set. */
static bool have_cap(int cap)
{
	struct {
		__u32 version;
		int pid;
	} hdr = { 0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0 };
	struct {
		__u32 effective, permitted, inheritable;
	} data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return (data[cap / 32].effective >> (cap % 32)) & 1;
}

const char *rn_ebpf_btf_path(void)
{
	const char *p = getenv("RENACER_BTF");

	return p && *p ? p : RN_EBPF_KERNEL_BTF;
}

/* Can the BTF that relocates the counter be parsed? NULL, or a reason in a static buffer.
 * Parsed once per process (the kernel's is some 5 MiB: a few ms). A file that is missing,
 * not BTF or cut short failed the load with "No such process" (libbpf's -ESRCH) and an
 * exit code of a target that failed, instead of saying which file is unusable. */
static const char *btf_unusable(void)
{
	static char why[512];
	static int state; /* 0 not checked, 1 usable, 2 unusable */
	const char *path = rn_ebpf_btf_path();
	struct btf *btf;
	int err;

	if (state)
		return state == 1 ? NULL : why;
	if (access(path, R_OK)) {
		err = errno;
		if (!strcmp(path, RN_EBPF_KERNEL_BTF) && err == ENOENT)
			snprintf(why, sizeof(why), "the kernel has no BTF (%s is missing)", path);
		else
			snprintf(why, sizeof(why), "the BTF file '%s' cannot be read: %s", path,
				 strerror(err));
		state = 2;
		return why;
	}
	libbpf_set_print(libbpf_print);
	btf = btf__parse(path, NULL);
	err = libbpf_get_error(btf);
	if (!btf || err) {
		char msg[128];

		libbpf_strerror(err ? (int)err : -EINVAL, msg, sizeof(msg));
		snprintf(why, sizeof(why), "the BTF file '%s' is not usable BTF: %s", path, msg);
		state = 2;
		return why;
	}
	btf__free(btf);
	state = 1;
	return NULL;
}

const char *rn_ebpf_unavailable(void)
{
	enum {
		CAP_SYS_ADMIN_ = 21,
		CAP_PERFMON_ = 38,
		CAP_BPF_ = 39
	};

	if (!have_cap(CAP_SYS_ADMIN_) && !(have_cap(CAP_BPF_) && have_cap(CAP_PERFMON_)))
		return "loading BPF needs root, or CAP_BPF and CAP_PERFMON";
	return btf_unusable();
}

static void eb_destroy(struct rn_collector *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	rn_counter__destroy(c->skel);
	rn_elf_cache_free(c->elf);
	free(c);
}

static int eb_create(struct rn_collector **out, const struct rn_run_spec *spec)
{
	struct rn_collector *c;
	int rc;

	*out = NULL;
	libbpf_set_print(libbpf_print);
	c = rn_xcalloc(1, sizeof(*c));
	c->time_calls = !(spec->flags & RN_RUN_COUNT_ONLY);
	{
		/* The kernel's BTF unless RENACER_BTF names another (a kernel built without
		 * /sys/kernel/btf/vmlinux, with its BTF from the distribution's package). */
		const char *btf = rn_ebpf_btf_path();
		LIBBPF_OPTS(bpf_object_open_opts, opts,
			    .btf_custom_path = strcmp(btf, RN_EBPF_KERNEL_BTF) ? btf : NULL);

		c->skel = rn_counter__open_opts(&opts);
	}
	if (!c->skel) {
		rc = errno ? -errno : -EINVAL;
		goto fail;
	}
	c->skel->rodata->time_calls = c->time_calls;
	c->skel->rodata->follow_forks = (spec->flags & RN_RUN_FOLLOW_FORKS) != 0;
	c->skel->rodata->nr_execve = SYS_execve;
	c->skel->rodata->nr_execveat = SYS_execveat;
	/* A timing run wants the process tree alone (its fork, exec and exit events): the
	 * syscall programs would run at every syscall of the machine and slow the program
	 * being timed (1M getppid: 1.86x native with them, the same as ptrace without). */
	c->events_only = spec->flags & RN_RUN_EVENTS_ONLY;
	if (c->events_only) {
		bpf_program__set_autoattach(c->skel->progs.rn_sys_enter, false);
		bpf_program__set_autoattach(c->skel->progs.rn_sys_exit, false);
	}
	rc = rn_counter__load(c->skel);
	if (rc)
		goto fail;
	rc = rn_counter__attach(c->skel);
	if (rc)
		goto fail;
	*out = c;
	return 0;
fail:
	if (rc > 0)
		rc = -rc;
	eb_destroy(c);
	return rc ? rc : -EINVAL;
}

static int eb_on_spawn(struct rn_collector *c, pid_t pid, struct rn_trace *t)
{
	__u32 key = (__u32)pid, state = RN_EBPF_ARMED;

	c->t = t;
	c->root = pid;
	t->events_only = c->events_only; /* its counts are not measured: a timing run's trace */
	if (bpf_map__update_elem(c->skel->maps.tracked, &key, sizeof(key), &state, sizeof(state),
				 BPF_ANY))
		return -errno;
	return 0;
}

/* The newest process of the trace with thread-group id `pid`, or NULL. */
static struct rn_process *proc_of(struct rn_trace *t, __u32 pid)
{
	int idx = rn_trace_find_process(t, (pid_t)pid);

	return idx >= 0 ? &t->procs[idx] : NULL;
}

static void on_fork(struct rn_collector *c, const struct rn_ebpf_event *ev)
{
	struct rn_trace *t = c->t;
	int pidx = rn_trace_find_process(t, (pid_t)ev->ppid);
	struct rn_process *p = rn_trace_add_process(t, (pid_t)ev->pid, (pid_t)ev->ppid, ev->ts_ns);

	p->parent = pidx;
	if (pidx >= 0) {
		const struct rn_process *pp = &t->procs[pidx];

		if (pp->exe)
			rn_process_set_exe(p, pp->exe);
		memcpy(p->build_id, pp->build_id, sizeof(p->build_id));
		p->elf_machine = pp->elf_machine;
	}
	rn_trace_process_event(t, p, 'f');
}

static void on_exec(struct rn_collector *c, const struct rn_ebpf_event *ev)
{
	struct rn_process *p = proc_of(c->t, ev->pid);
	char path[RN_EBPF_PATH_MAX];

	if (!p)
		return;
	memcpy(path, ev->path, sizeof(path));
	path[sizeof(path) - 1] = 0;
	p->exec_ns = ev->ts_ns;
	if (path[0] && (!p->exe || strcmp(p->exe, path))) {
		p->build_id[0] = 0;
		p->elf_machine = 0;
		rn_process_set_exe(p, path);
		rn_elf_identify(&c->elf, path, &p->elf_machine, p->build_id);
	}
	rn_trace_process_event(c->t, p, 'e');
}

static void on_exit_ev(struct rn_collector *c, const struct rn_ebpf_event *ev)
{
	struct rn_process *p = proc_of(c->t, ev->pid);
	int status = ev->code;

	if (!p)
		return;
	if (p->end == RN_PROC_RUNNING) { /* the root's end comes from wait4 */
		if (status & 0x7f) {
			p->end = RN_PROC_SIGNALED;
			p->term_signal = status & 0x7f;
			p->core_dumped = (status & 0x80) != 0;
		} else {
			p->end = RN_PROC_EXITED;
			p->exit_code = (status >> 8) & 0xff;
		}
		rn_trace_process_event(c->t, p, 'x');
	}
	if (!p->end_ns || p != &c->t->procs[0])
		p->end_ns = ev->ts_ns;
	if (p->end_ns > c->t->end_ns)
		c->t->end_ns = p->end_ns;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct rn_collector *c = ctx;
	const struct rn_ebpf_event *ev = data;
	struct rn_process *p;

	if (size < RN_EBPF_EVENT_HEAD || (ev->kind == RN_EBPF_EV_EXEC && size < sizeof(*ev)))
		return 0;
	switch (ev->kind) {
	case RN_EBPF_EV_FORK:
		on_fork(c, ev);
		break;
	case RN_EBPF_EV_THREAD:
		p = proc_of(c->t, ev->pid);
		if (p)
			p->nthreads++;
		break;
	case RN_EBPF_EV_EXEC:
		on_exec(c, ev);
		break;
	case RN_EBPF_EV_EXIT:
		on_exit_ev(c, ev);
		break;
	default:
		break;
	}
	return 0;
}

/* Sum the per-CPU counters into the processes' per-syscall stats. */
static int read_counts(struct rn_collector *c, struct rn_trace *t)
{
	int fd = bpf_map__fd(c->skel->maps.counts), ncpu = libbpf_num_possible_cpus();
	int ntab = rn_syscall_table_size(), i;
	struct rn_ebpf_key key, next, *prev = NULL;
	struct rn_ebpf_stat *vals;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = rn_xcalloc((size_t)ncpu, sizeof(*vals));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct rn_syscall_stat s = { 0, 0, 0, 0, 0 };
		struct rn_process *p;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		for (i = 0; i < ncpu; i++) {
			if (!vals[i].calls)
				continue;
			if (!s.calls || vals[i].min_ns < s.min_ns)
				s.min_ns = vals[i].min_ns;
			if (vals[i].max_ns > s.max_ns)
				s.max_ns = vals[i].max_ns;
			s.calls += vals[i].calls;
			s.errors += vals[i].errors;
			s.total_ns += vals[i].total_ns;
		}
		p = proc_of(t, key.tgid);
		if (!p || !s.calls)
			continue;
		p->syscalls += s.calls;
		p->syscall_errors += s.errors;
		p->syscall_ns += s.total_ns;
		if ((int)key.nr >= ntab)
			continue;
		if (!p->sc)
			p->sc = rn_xcalloc((size_t)ntab, sizeof(*p->sc));
		p->sc[key.nr] = s;
	}
	free(vals);
	return 0;
}

static int eb_finish(struct rn_collector *c, struct rn_trace *t)
{
	int rc;

	/* stop counting before reading: nothing changes under the reader */
	rn_counter__detach(c->skel);
	c->t = t;
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events), on_event, c, NULL);
	if (!c->rb)
		return errno ? -errno : -ENOMEM;
	rc = ring_buffer__consume(c->rb);
	if (rc < 0)
		return rc;
	rc = read_counts(c, t);
	if (rc)
		return rc;
	t->counts_only = !c->time_calls;
	if (c->skel->bss->dropped_events)
		rn_trace_fail(t, RN_RUN_ERROR,
			      "eBPF driver: %llu process events did not fit the ring buffer",
			      (unsigned long long)c->skel->bss->dropped_events);
	else if (c->skel->bss->dropped_entries)
		rn_trace_fail(t, RN_RUN_ERROR,
			      "eBPF driver: %llu counter entries did not fit the kernel maps "
			      "(too many processes or threads for the eBPF driver; use ptrace)",
			      (unsigned long long)c->skel->bss->dropped_entries);
	if (!t->end_ns)
		t->end_ns = rn_mono_ns();
	return 0;
}

const struct rn_collector_ops rn_ebpf_collector = {
	.name = "ebpf",
	.unavailable = rn_ebpf_unavailable,
	.create = eb_create,
	.on_spawn = eb_on_spawn,
	.finish = eb_finish,
	.destroy = eb_destroy,
};
