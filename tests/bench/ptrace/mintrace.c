/*
 * mintrace.c - the floor of the filtered mode: the least a seccomp-bpf ptrace tracer can do to
 * follow a process tree and stop it at one syscall's entry and exit. bench.py builds it with
 * `cc -O2` and runs it beside `renacer trace -f -c -e trace=openat`, so the table shows what
 * the kernel costs (one more fork and exec, the filter on every syscall, the stops) apart from
 * what renacer adds. It records nothing but a count, and is not a tool.
 *
 * Usage: mintrace NR -- CMD [ARG...]   (NR: the syscall number to stop at, e.g. 257 = openat)
 *        mintrace all -- CMD [ARG...]  the floor of full tracing: no filter, a stop at every
 *                                      syscall's entry and exit, where it reads what any
 *                                      recording tracer must (PTRACE_GET_SYSCALL_INFO and the
 *                                      clock), then resumes; beside strace -f -c in bench.py
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

int main(int argc, char **argv)
{
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
		PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE;
	unsigned long calls = 0, check = 0; /* check: keeps the clock reads of `all` live */
	int go[2], status, root_status = 0;
	pid_t root, pid;
	bool all;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: mintrace NR|all -- CMD [ARG...]\n");
		return 2;
	}
	all = !strcmp(argv[1], "all");
	if (pipe(go))
		return 2;
	root = fork();
	if (root == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)atoi(argv[1]), 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (!all &&
		    (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		     syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)))
			_exit(127);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	close(go[0]);
	/* full tracing starts at a stop: interrupt the seized child (in its read of the go pipe) */
	if (root < 0 || ptrace(PTRACE_SEIZE, root, 0L, opts) ||
	    (all && ptrace(PTRACE_INTERRUPT, root, 0L, 0L)) || write(go[1], "g", 1) != 1)
		return 2;
	while ((pid = waitpid(-1, &status, __WALL)) > 0) {
		int sig = 0, event = status >> 16;

		if (!WIFSTOPPED(status)) {
			if (pid == root)
				root_status = status;
			continue;
		}
		if (event == PTRACE_EVENT_SECCOMP) {
			calls++;
			ptrace(PTRACE_SYSCALL, pid, 0L, 0L); /* on to the exit stop */
			continue;
		}
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			if (all) {
				struct __ptrace_syscall_info info;
				struct timespec ts;

				clock_gettime(CLOCK_MONOTONIC, &ts);
				if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info),
					   &info) > 0 &&
				    info.op == PTRACE_SYSCALL_INFO_ENTRY)
					calls++;
				check += (unsigned long)ts.tv_nsec;
				ptrace(PTRACE_SYSCALL, pid, 0L, 0L);
			} else {
				ptrace(PTRACE_CONT, pid, 0L, 0L); /* the exit stop */
			}
			continue;
		}
		if (event == PTRACE_EVENT_STOP) {
			int s = WSTOPSIG(status);

			if (s == SIGSTOP || s == SIGTSTP || s == SIGTTIN || s == SIGTTOU)
				ptrace(PTRACE_LISTEN, pid, 0L, 0L);
			else
				ptrace(all ? PTRACE_SYSCALL : PTRACE_CONT, pid, 0L, 0L);
			continue;
		}
		if (!event)
			sig = WSTOPSIG(status); /* signal-delivery-stop: re-inject */
		ptrace(all ? PTRACE_SYSCALL : PTRACE_CONT, pid, 0L, (long)sig);
	}
	fprintf(stderr, "mintrace: %lu calls (%lu)\n", calls, check & 1);
	return WIFEXITED(root_status) ? WEXITSTATUS(root_status) : 1;
}
