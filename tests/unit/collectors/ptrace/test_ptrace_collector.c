/*
 * test_ptrace_collector.c - rn_run_target with the ptrace collector on the pt_* targets
 * (tests/targets): the collector must see exactly the syscalls, paths, processes, exits,
 * reaping edges and memory those programs make, and the run loop must handle exec failures,
 * timeouts, process limits, the filtered and count-only modes and SIGINT.
 *
 * Needs permission to ptrace children; exits 77 (skip) without it.
 */
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "collector.h"
#include "collectors/ptrace/internal.h"
#include "ptrace/ptrace.h"
#include "trace.h"

static char target_dir[4096];

static const char *target(const char *name)
{
	static char path[8][4200];
	static int next;
	char *p = path[next++ % 8];

	snprintf(p, 4200, "%s/%s", target_dir, name);
	return p;
}

static void spec_init(struct rn_run_spec *s, char **argv)
{
	memset(s, 0, sizeof(*s));
	s->name = "t";
	s->argv = argv;
	s->collectors = RN_COLLECT_PTRACE;
	s->flags = RN_RUN_FOLLOW_FORKS | RN_RUN_PIN_CPU | RN_RUN_NO_PROPAGATE;
	s->stdio[1] = RN_STDIO_NULL;
	s->timeout_ns = 60ull * 1000000000u;
}

/* Run argv under spec `s` into `t` (initialized here unless `keep`). */
static int run(struct rn_run_spec *s, struct rn_trace *t, struct rn_run_result *res)
{
	return rn_run_target(s, t, res);
}

/* The process no longer runs and is in no ptrace-stop: it does not exist, or it is a zombie
 * left for a parent that is not ours (PID 1 here may not reap). */
static bool gone(pid_t pid)
{
	char path[64], buf[512];
	const char *st;
	FILE *f;
	size_t n;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	st = strrchr(buf, ')');
	return st && (st[2] == 'Z' || st[2] == 'X');
}

static void all_gone(const struct rn_trace *t)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		assert_int_not_equal(t->procs[i].end, RN_PROC_RUNNING);
		assert_true(gone(t->procs[i].pid));
	}
	/* nothing left to wait for: no tracee stuck in ptrace-stop */
	assert_int_equal(waitpid(-1, NULL, WNOHANG | __WALL), -1);
	assert_int_equal(errno, ECHILD);
}

static int group_setup(void **state)
{
	const char *bin = getenv("RN_BINARY_DIR");
	char *argv[] = { (char *)"/bin/true", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	int rc;

	(void)state;
	snprintf(target_dir, sizeof(target_dir), "%s/targets", bin ? bin : RN_BINARY_DIR);
	spec_init(&s, argv);
	rn_trace_init(&t);
	rc = run(&s, &t, &res);
	if (rc || t.status != RN_RUN_OK) {
		fprintf(stderr, "SKIP: cannot trace here: %s\n", t.error ? t.error : "?");
		exit(77);
	}
	rn_trace_release(&t);
	rn_run_result_release(&res);
	return 0;
}

static void test_ptrace_collector_file_io(void **state)
{
	char *argv[] = { (char *)target("pt_fileio"), NULL, NULL };
	char dir[64];
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	const struct rn_process *p;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rn-test-fileio-%d", (int)getpid());
	argv[1] = dir;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.nprocs, 1);
	p = &t.procs[0];
	assert_int_equal(p->end, RN_PROC_EXITED);
	assert_int_equal(p->exit_code, 0);
	assert_true(WIFEXITED(res.root_status));
	assert_non_null(p->exe);
	assert_string_equal(p->comm, "pt_fileio");
#if defined(__x86_64__)
	assert_int_equal(p->elf_machine, EM_X86_64);
#elif defined(__aarch64__)
	assert_int_equal(p->elf_machine, EM_AARCH64);
#endif
	assert_int_equal(strlen(p->build_id), 40);
	assert_true(p->start_ns <= p->exec_ns && p->exec_ns < p->end_ns);
	assert_true(p->vm_hwm_bytes > 100 * 1024);
	/* the calls of pt_fileio.c */
	assert_int_equal(rn_trace_syscall_total(&t, SYS_execve).calls, 1);
	assert_true(rn_trace_syscall_total(&t, SYS_write).calls >= 10);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_fsync).calls, 1);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_close).errors, 1);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_read).errors, 1);
	assert_true(rn_trace_syscall_total(&t, SYS_pread64).calls >= 1);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_exit_group).calls, 0); /* never returns */
#ifdef SYS_rename
	assert_int_equal(rn_trace_syscall_total(&t, SYS_rename).calls, 1);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_mkdir).calls, 3);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_mkdir).errors, 1);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_unlink).errors, 1);
#endif
	assert_int_equal(t.status, RN_RUN_OK);
	assert_null(t.error);
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

/* A sink that keeps the paths of the calls of interest. */
struct path_log {
	char paths[16][RN_PATH_MAX + 8];
	uint32_t flags[16];
	int n;
	int nulls; /* path-taking calls whose path could not be read */
};

static void log_paths(void *ctx, const struct rn_trace *t, const struct rn_syscall_event *ev)
{
	struct path_log *l = ctx;

	(void)t;
	if (rn_syscall_path_arg(ev->nr, 0) < 0 || l->n >= 15)
		return;
	if (!ev->path) {
		l->nulls++;
		return;
	}
	if (!strncmp(ev->path, "/rn-", 4) || !strncmp(ev->path, "/aaa", 4) || !ev->path[0]) {
		snprintf(l->paths[l->n], sizeof(l->paths[0]), "%s%s%s", ev->path,
			 ev->path2 ? ">" : "", ev->path2 ? ev->path2 : "");
		l->flags[l->n++] = ev->flags;
	}
}

static void test_ptrace_collector_paths(void **state)
{
	char *argv[] = { (char *)target("pt_paths"), NULL };
	static struct path_log log;
	struct rn_trace_sink sink = { NULL, NULL, &log };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	int i, found = 0;

	(void)state;
	memset(&log, 0, sizeof(log));
	sink.syscall = log_paths;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(rn_trace_add_sink(&t, &sink), 0);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	for (i = 0; i < log.n; i++) {
		if (!strcmp(log.paths[i], "/rn-plain/path") ||
		    !strcmp(log.paths[i], "/rn-edge-of-page"))
			found++;
		if (!strcmp(log.paths[i], "/rn-from>/rn-to"))
			found++;
		if (log.paths[i][0] == '/' && log.paths[i][1] == 'a') {
			/* 4999 bytes: truncated to RN_PATH_MAX - 1 and flagged */
			assert_int_equal(strlen(log.paths[i]), RN_PATH_MAX - 1);
			assert_true(log.flags[i] & RN_SC_PATH_TRUNC);
			found++;
		}
	}
	assert_int_equal(found, 4);
	assert_true(log.nulls >= 1); /* open(NULL) */
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_fork_tree(void **state)
{
	char *argv[] = { (char *)target("pt_forktree"), (char *)"4", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	size_t i;
	int children = 0, grandchildren = 0;

	(void)state;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.nprocs, 9);
	for (i = 1; i < t.nprocs; i++) {
		const struct rn_process *p = &t.procs[i];

		assert_true(p->parent >= 0);
		assert_int_equal(p->ppid, t.procs[p->parent].pid);
		/* every process was reaped by its parent (wait4 of a traced process) */
		assert_int_equal(p->reaped_by, p->parent);
		assert_true(p->reaped_ns >= p->end_ns);
		assert_int_equal(p->end, RN_PROC_EXITED);
		assert_string_equal(p->comm, "pt_forktree"); /* inherited image */
		if (p->parent == 0) {
			children++;
			assert_int_equal(p->exit_code, 0);
		} else {
			grandchildren++;
			assert_int_equal(p->exit_code, 3);
			assert_int_equal(t.procs[p->parent].parent, 0);
		}
	}
	assert_int_equal(children, 4);
	assert_int_equal(grandchildren, 4);
	assert_int_equal(t.procs[0].reaped_by, -1);
	/* 3 getpid in the root, 10 in each child, 5 in each grandchild */
	assert_int_equal(rn_trace_syscall_total(&t, SYS_getpid).calls, 3 + 4 * 10 + 4 * 5);
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_threads(void **state)
{
	char *argv[] = { (char *)target("pt_threads"), (char *)"4", (char *)"250", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	(void)state;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.procs[0].nthreads, 5);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_getppid).calls, 1000);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_clone3).calls +
				 rn_trace_syscall_total(&t, SYS_clone).calls,
			 4);
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_signals(void **state)
{
	char *argv[] = { (char *)target("pt_signals"), NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	size_t i;
	int segv = 0, killed = 0, stopped_child = 0;

	(void)state;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.procs[0].end, RN_PROC_EXITED);
	assert_int_equal(t.procs[0].exit_code, 0); /* the handler ran 4 times */
	for (i = 1; i < t.nprocs; i++) {
		if (t.procs[i].end == RN_PROC_SIGNALED && t.procs[i].term_signal == SIGSEGV)
			segv++;
		if (t.procs[i].end == RN_PROC_SIGNALED && t.procs[i].term_signal == SIGKILL)
			killed++;
		if (t.procs[i].end == RN_PROC_EXITED && t.procs[i].exit_code == 7)
			stopped_child++; /* stopped itself, was continued by its parent */
	}
	assert_int_equal(segv, 1);
	assert_int_equal(killed, 1);
	assert_int_equal(stopped_child, 1);
	/* the reads: ERESTARTSYS twice (once restarted, once turned into EINTR) */
	assert_int_equal(rn_trace_syscall_total(&t, SYS_read).errors, 2);
	/* the nanosleep stopped by a SIGWINCH without handler resumes through restart_syscall */
	assert_int_equal(rn_trace_syscall_total(&t, SYS_restart_syscall).calls, 1);
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_crash(void **state)
{
	char *argv[] = { (char *)target("pt_loop"), (char *)"segv", (char *)"10", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	(void)state;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_CRASHED);
	assert_non_null(strstr(t.error, "killed by signal 11"));
	assert_int_equal(t.procs[0].end, RN_PROC_SIGNALED);
	assert_int_equal(t.procs[0].term_signal, SIGSEGV);
	assert_true(WIFSIGNALED(res.root_status));
	assert_int_equal(rn_trace_syscall_total(&t, SYS_getppid).calls, 10);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_exec_chain(void **state)
{
	char *argv[] = { (char *)target("pt_execchain"), (char *)"2", NULL };
	char *targv[] = { (char *)target("pt_execchain"), (char *)"thread", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	(void)state;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.nprocs, 1);
	/* the first exec, then per level a failing one and a re-exec, then /bin/true */
	assert_int_equal(rn_trace_syscall_total(&t, SYS_execve).calls, 6);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_execve).errors, 2);
	assert_string_equal(t.procs[0].comm, "true");
	assert_true(t.procs[0].exec_ns > t.procs[0].start_ns);
	rn_trace_release(&t);
	rn_run_result_release(&res);

	/* a non-leader thread execs: it takes over the leader's pid */
	spec_init(&s, targv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.procs[0].end, RN_PROC_EXITED);
	assert_int_equal(t.procs[0].exit_code, 0);
	assert_string_equal(t.procs[0].comm, "true");
	assert_int_equal(rn_trace_syscall_total(&t, SYS_pause).calls, 0); /* cut off */
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void expect_exec_failure(char **argv, const char *msg, int err)
{
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	spec_init(&s, argv);
	s.name = "x";
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), -err);
	assert_int_equal(t.status, RN_RUN_EXEC_FAILED);
	assert_string_equal(t.error, msg);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_exec_failures(void **state)
{
	char *a1[] = { (char *)"./no-such-program", NULL };
	char *a2[] = { (char *)"no-such-command-rn", NULL };
	char *a3[] = { (char *)"/etc/passwd", NULL };

	(void)state;
	expect_exec_failure(a1,
			    "target 'x': cannot execute './no-such-program': "
			    "No such file or directory",
			    ENOENT);
	expect_exec_failure(a2,
			    "target 'x': cannot execute 'no-such-command-rn': "
			    "No such file or directory",
			    ENOENT);
	expect_exec_failure(a3, "target 'x': cannot execute '/etc/passwd': Permission denied",
			    EACCES);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void test_ptrace_collector_timeout_kills_setsid_tree(void **state)
{
	char *argv[] = { (char *)target("pt_setsid_sleep"), (char *)"30", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	uint64_t t0;

	(void)state;
	spec_init(&s, argv);
	s.timeout_ns = 300000000u;
	rn_trace_init(&t);
	t0 = mono_ns();
	assert_int_equal(run(&s, &t, &res), 0);
	assert_true(mono_ns() - t0 < 5000000000u);
	assert_int_equal(t.status, RN_RUN_TIMED_OUT);
	assert_string_equal(t.error, "target 't' timed out after 0.300 s");
	assert_int_equal(t.nprocs, 3); /* root, the setsid child, its child */
	assert_int_equal(t.procs[0].end, RN_PROC_LOST);
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_process_limit(void **state)
{
	char *argv[] = { (char *)target("pt_forktree"), (char *)"8", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	(void)state;
	spec_init(&s, argv);
	s.max_procs = 3;
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_LIMIT);
	assert_non_null(strstr(t.error, "more than 3 processes"));
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_filtered_and_count_only(void **state)
{
	char *argv[] = { (char *)target("pt_forktree"), (char *)"3", NULL };
	struct rn_run_spec s;
	struct rn_trace full, filt, cnt;
	struct rn_run_result res;
	bool *set = calloc((size_t)rn_syscall_table_size(), sizeof(bool));
	int nr;
	size_t i;

	(void)state;
	spec_init(&s, argv);
	rn_trace_init(&full);
	assert_int_equal(run(&s, &full, &res), 0);
	rn_run_result_release(&res);

	set[SYS_getpid] = true;
	set[SYS_openat] = true;
	s.syscall_filter = set;
	rn_trace_init(&filt);
	assert_int_equal(run(&s, &filt, &res), 0);
	rn_run_result_release(&res);
	assert_int_equal(filt.status, RN_RUN_OK);
	assert_true(filt.filtered);
	assert_int_equal(rn_trace_syscall_total(&filt, SYS_getpid).calls,
			 rn_trace_syscall_total(&full, SYS_getpid).calls);
	assert_int_equal(rn_trace_syscall_total(&filt, SYS_openat).calls,
			 rn_trace_syscall_total(&full, SYS_openat).calls);
	assert_int_equal(rn_trace_total_syscalls(&filt),
			 rn_trace_syscall_total(&full, SYS_getpid).calls +
				 rn_trace_syscall_total(&full, SYS_openat).calls);
	/* the tree is complete even though fork is not in the set; who reaped whom is known
	 * only from wait4/waitid, which are not; every process has a peak RSS (forked children
	 * without exit stops: from wait4's ru_maxrss) */
	assert_int_equal(filt.nprocs, full.nprocs);
	for (i = 0; i < filt.nprocs; i++) {
		assert_int_equal(filt.procs[i].reaped_by, -1);
		assert_int_equal(filt.procs[i].end, RN_PROC_EXITED);
		assert_true(filt.procs[i].vm_hwm_bytes > 0);
	}

	s.syscall_filter = NULL;
	s.flags |= RN_RUN_COUNT_ONLY;
	rn_trace_init(&cnt);
	assert_int_equal(run(&s, &cnt, &res), 0);
	rn_run_result_release(&res);
	assert_true(cnt.counts_only);
	for (nr = 0; nr < rn_syscall_table_size(); nr++)
		assert_int_equal(rn_trace_syscall_total(&cnt, nr).calls,
				 rn_trace_syscall_total(&full, nr).calls);
	/* count-only sees the waits: the reaping edges are complete */
	assert_int_equal(cnt.nprocs, full.nprocs);
	for (i = 1; i < cnt.nprocs; i++)
		assert_int_equal(cnt.procs[i].reaped_by, cnt.procs[i].parent);
	all_gone(&cnt);
	rn_trace_release(&full);
	rn_trace_release(&filt);
	rn_trace_release(&cnt);
	free(set);
}

static void test_ptrace_collector_memory(void **state)
{
	char *argv[] = { (char *)target("pt_mmapchurn"), (char *)"20", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	(void)state;
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	/* the largest round maps 1 MiB and grows it to 2 MiB */
	assert_true(t.alloc_peak_bytes >= (2u << 20));
	assert_true(t.alloc_total_bytes >= 20 * (64u << 10));
	assert_true(t.peak_rss_bytes >= (1u << 20));
	assert_int_equal(t.max_rss_bytes, t.procs[0].vm_hwm_bytes);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_mremap).calls, 20);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_mmap).errors, 1);
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

static void test_ptrace_collector_stdio_cwd_env_affinity(void **state)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"pwd; echo $RN_TEST_VAR", NULL };
	char *nproc[] = { (char *)"nproc", NULL };
	char *busy[] = { (char *)target("pt_loop"), (char *)"affinity", (char *)"2000", NULL };
	char *env[] = { (char *)"RN_TEST_VAR=forty-two", NULL };
	char expect[32];
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	cpu_set_t cpus;

	(void)state;
	spec_init(&s, argv);
	s.cwd = "/tmp";
	s.env_add = env;
	s.stdio[1] = RN_STDIO_CAPTURE;
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_non_null(res.out);
	assert_string_equal(res.out, "/tmp\nforty-two\n");
	assert_false(res.out_truncated);
	rn_trace_release(&t);
	rn_run_result_release(&res);

	/* Pinning must not show: a lone task asking for its affinity (nproc does) while it
	 * shares one CPU with the tracer sees the mask it would have untraced. */
	sched_getaffinity(0, sizeof(cpus), &cpus);
	snprintf(expect, sizeof(expect), "%d\n", CPU_COUNT(&cpus));
	spec_init(&s, nproc);
	s.stdio[1] = RN_STDIO_CAPTURE;
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_string_equal(res.out, expect);
	assert_int_equal(rn_trace_syscall_total(&t, SYS_sched_getaffinity).calls, 1);
	rn_trace_release(&t);
	rn_run_result_release(&res);

	/* certainly pinned: 2000 fast syscalls first; also in the count-only mode */
	for (int mode = 0; mode < 2; mode++) {
		spec_init(&s, busy);
		s.stdio[1] = RN_STDIO_CAPTURE;
		if (mode)
			s.flags |= RN_RUN_COUNT_ONLY;
		rn_trace_init(&t);
		assert_int_equal(run(&s, &t, &res), 0);
		assert_string_equal(res.out, expect);
		rn_trace_release(&t);
		rn_run_result_release(&res);
	}
}

static void test_ptrace_collector_plain_driver(void **state)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"echo hi; exit 3", NULL };
	char *sleeper[] = { (char *)target("pt_setsid_sleep"), (char *)"30", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;

	(void)state;
	spec_init(&s, argv);
	s.collectors = 0;
	s.stdio[1] = RN_STDIO_CAPTURE;
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_OK);
	assert_int_equal(t.nprocs, 1);
	assert_int_equal(t.procs[0].end, RN_PROC_EXITED);
	assert_int_equal(t.procs[0].exit_code, 3);
	/* wait4's ru_maxrss holds the image the child had before its exec (this program's):
	 * a small sh's peak is unknown (0), never this program's memory */
	assert_int_equal(t.procs[0].vm_hwm_bytes, 0);
	assert_true(t.procs[0].elf_machine != 0);
	assert_true(t.procs[0].exec_ns >= t.procs[0].start_ns);
	assert_string_equal(res.out, "hi\n");
	rn_trace_release(&t);
	rn_run_result_release(&res);
	{
		/* a peak above the runner's own is the target's: dd's 256 MiB buffer */
		char *dd[] = { (char *)"dd",
			       (char *)"if=/dev/zero",
			       (char *)"of=/dev/null",
			       (char *)"bs=256M",
			       (char *)"count=1",
			       (char *)"status=none",
			       NULL };

		spec_init(&s, dd);
		s.collectors = 0;
		rn_trace_init(&t);
		assert_int_equal(run(&s, &t, &res), 0);
		assert_int_equal(t.status, RN_RUN_OK);
		assert_true(t.procs[0].vm_hwm_bytes >= (uint64_t)256 << 20);
		rn_trace_release(&t);
		rn_run_result_release(&res);
	}

	spec_init(&s, sleeper);
	s.collectors = 0;
	s.timeout_ns = 200000000u;
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_TIMED_OUT);
	assert_int_equal(t.procs[0].end, RN_PROC_LOST);
	assert_true(gone(t.procs[0].pid));
	rn_trace_release(&t);
	rn_run_result_release(&res);
}

#if defined(__x86_64__)
/*
 * Runs `path` untraced and says whether it exits 0. pt_int80 needs a kernel that serves
 * `int $0x80` (CONFIG_IA32_EMULATION, not turned off with ia32_emulation=0): elsewhere it dies
 * of SIGSEGV with or without a tracer, and the case has nothing to show. On false, `why`
 * holds how it ended.
 */
static bool runs_untraced(const char *path, char *why, size_t len)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFSIGNALED(status))
		snprintf(why, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(why, len, "exit status %d", WEXITSTATUS(status));
	return false;
}
#endif

static void test_ptrace_collector_unsupported_arch(void **state)
{
#if defined(__x86_64__)
	char *argv[] = { (char *)target("pt_int80"), NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	char why[128];

	(void)state;
	if (!runs_untraced(argv[0], why, sizeof(why))) {
		/* as faults.target_i386 does: no i386 syscall to trace on this kernel */
		print_message("skip: %s cannot run untraced: %s; this kernel does not serve "
			      "int $0x80 (ia32 emulation off)\n",
			      argv[0], why);
		skip();
	}
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), 0);
	assert_int_equal(t.status, RN_RUN_ERROR);
	assert_non_null(strstr(t.error,
			       "makes i386 (32-bit) system calls, which renacer does "
			       "not support"));
	all_gone(&t);
	rn_trace_release(&t);
	rn_run_result_release(&res);
#else
	(void)state;
	skip();
#endif
}

/* Last: the interrupted flag is sticky for the life of the process. */
static void test_ptrace_collector_sigint(void **state)
{
	char *argv[] = { (char *)target("pt_setsid_sleep"), (char *)"30", NULL };
	struct rn_run_spec s;
	struct rn_trace t;
	struct rn_run_result res;
	pid_t killer, me = getpid();

	(void)state;
	killer = fork();
	if (killer == 0) {
		usleep(300000);
		kill(me, SIGINT);
		_exit(0);
	}
	spec_init(&s, argv);
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), -ECANCELED);
	assert_int_equal(t.status, RN_RUN_INTERRUPTED);
	assert_int_equal(rn_run_interrupted(), SIGINT);
	assert_int_equal(t.nprocs, 3);
	for (size_t i = 0; i < t.nprocs; i++)
		assert_true(gone(t.procs[i].pid));
	rn_trace_release(&t);
	rn_run_result_release(&res);
	/* the killer helper was reaped by the run loop (wait4(-1)) or is still ours */
	waitpid(killer, NULL, 0);
	/* a later run refuses to start */
	rn_trace_init(&t);
	assert_int_equal(run(&s, &t, &res), -ECANCELED);
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptrace_collector_file_io),
		cmocka_unit_test(test_ptrace_collector_paths),
		cmocka_unit_test(test_ptrace_collector_fork_tree),
		cmocka_unit_test(test_ptrace_collector_threads),
		cmocka_unit_test(test_ptrace_collector_signals),
		cmocka_unit_test(test_ptrace_collector_crash),
		cmocka_unit_test(test_ptrace_collector_exec_chain),
		cmocka_unit_test(test_ptrace_collector_exec_failures),
		cmocka_unit_test(test_ptrace_collector_timeout_kills_setsid_tree),
		cmocka_unit_test(test_ptrace_collector_process_limit),
		cmocka_unit_test(test_ptrace_collector_filtered_and_count_only),
		cmocka_unit_test(test_ptrace_collector_memory),
		cmocka_unit_test(test_ptrace_collector_stdio_cwd_env_affinity),
		cmocka_unit_test(test_ptrace_collector_plain_driver),
		cmocka_unit_test(test_ptrace_collector_unsupported_arch),
		cmocka_unit_test(test_ptrace_collector_sigint),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
