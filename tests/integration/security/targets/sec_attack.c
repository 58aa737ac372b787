/*
 * sec_attack - a target that turns on the process that runs it (renacer, its parent):
 *
 *     sec_attack MODE [MARKER]
 *
 * MODE: "seize" (PTRACE_SEIZE + PTRACE_INTERRUPT the parent, then sleep), "attach"
 * (PTRACE_ATTACH), "stop" (SIGSTOP to the parent), "stop-group" (SIGSTOP to the process group),
 * "hup", "usr1", "usr2", "pipe", "quit" (that signal to the parent), "mem" (open the parent's
 * /proc/PID/mem for writing). Prints "MODE: refused" or "MODE: done" on stdout, then sleeps
 * 3 s so a stopped parent would hold the run past any short timeout. Exit 0 when the call
 * was refused, 3 when it worked.
 *
 *     sec_attack landlock-abi
 *
 * prints the kernel's Landlock ABI version (0: none) and exits 0: which guard renacer uses
 * (collectors/guard.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "seize";
	pid_t parent = getppid();
	int rc;

	if (!strcmp(mode, "landlock-abi")) {
		long v = syscall(444 /* landlock_create_ruleset */, NULL, 0, 1U /* VERSION */);

		printf("%ld\n", v > 0 ? v : 0);
		return 0;
	}
	if (!strcmp(mode, "mem")) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)parent);
		fd = open(path, O_RDWR);
		rc = fd < 0 ? -1 : 0;
	} else if (!strcmp(mode, "seize")) {
		rc = (int)ptrace(PTRACE_SEIZE, parent, 0, 0);
		if (!rc)
			ptrace(PTRACE_INTERRUPT, parent, 0, 0);
	} else if (!strcmp(mode, "attach")) {
		rc = (int)ptrace(PTRACE_ATTACH, parent, 0, 0);
	} else if (!strcmp(mode, "stop")) {
		rc = kill(parent, SIGSTOP);
	} else if (!strcmp(mode, "stop-group")) {
		rc = kill(0, SIGSTOP);
	} else {
		static const struct {
			const char *name;
			int sig;
		} sigs[] = { { "hup", SIGHUP },
			     { "usr1", SIGUSR1 },
			     { "usr2", SIGUSR2 },
			     { "pipe", SIGPIPE },
			     { "quit", SIGQUIT } };
		size_t i;

		rc = -1;
		errno = EINVAL;
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (!strcmp(mode, sigs[i].name))
				rc = kill(parent, sigs[i].sig);
	}
	printf("%s: %s (%s)\n", mode, rc ? "refused" : "done", rc ? strerror(errno) : "-");
	fflush(stdout);
	sleep(3);
	return rc ? 0 : 3;
}
