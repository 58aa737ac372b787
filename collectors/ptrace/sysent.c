/*
 * sysent.c - the strace classes of syscalls (%file, %desc, ...) used by -e trace=SET, and
 * the path arguments the collector decodes, both read from the argument kinds of
 * collectors/syscall_args.h.
 *
 * Names and numbers come from the generated table; this file only attaches knowledge to names,
 * so a name missing on an architecture (open on aarch64) is simply skipped.
 */
#include "ptrace/ptrace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "log.h"
#include "ptrace/internal.h"
#include "syscall_args.h"
#include "xalloc.h"

/* strace's syscall classes, by name (file and desc are derived from the argument kinds). */
static const char *const class_process[] = {
	"clone",
	"clone3",
	"fork",
	"vfork",
	"execve",
	"execveat",
	"exit",
	"exit_group",
	"wait4",
	"waitid",
	"kill",
	"tkill",
	"tgkill",
	"rt_sigqueueinfo",
	"rt_tgsigqueueinfo",
	"pidfd_open",
	"pidfd_send_signal",
	"unshare",
	NULL,
};
static const char *const class_network[] = {
	"socket",      "socketpair",  "bind",       "listen",     "accept",  "accept4", "connect",
	"getsockname", "getpeername", "sendto",     "recvfrom",   "sendmsg", "recvmsg", "sendmmsg",
	"recvmmsg",    "shutdown",    "setsockopt", "getsockopt", NULL,
};
static const char *const class_signal[] = {
	"rt_sigaction",
	"rt_sigprocmask",
	"rt_sigreturn",
	"rt_sigpending",
	"rt_sigtimedwait",
	"rt_sigsuspend",
	"rt_sigqueueinfo",
	"rt_tgsigqueueinfo",
	"sigaltstack",
	"kill",
	"tkill",
	"tgkill",
	"pause",
	"signalfd",
	"signalfd4",
	"pidfd_send_signal",
	NULL,
};
static const char *const class_ipc[] = {
	"msgget",     "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semctl",
	"semtimedop", "shmget", "shmat",  "shmctl", "shmdt",  NULL,
};
static const char *const class_memory[] = {
	"mmap",
	"munmap",
	"mremap",
	"mprotect",
	"brk",
	"madvise",
	"mlock",
	"mlock2",
	"munlock",
	"mlockall",
	"munlockall",
	"mincore",
	"msync",
	"remap_file_pages",
	"mbind",
	"set_mempolicy",
	"get_mempolicy",
	"migrate_pages",
	"move_pages",
	"pkey_mprotect",
	"process_madvise",
	"mseal",
	NULL,
};
static const char *const class_creds[] = {
	"getuid",    "geteuid",   "getgid",    "getegid",   "setuid",    "setgid",   "setreuid",
	"setregid",  "setresuid", "setresgid", "getresuid", "getresgid", "setfsuid", "setfsgid",
	"getgroups", "setgroups", "capget",    "capset",    NULL,
};
static const char *const class_clock[] = {
	"clock_gettime", "clock_settime", "clock_adjtime", "clock_getres", "gettimeofday",
	"settimeofday",  "time",          "adjtimex",      NULL,
};
static const char *const class_stat[] = {
	"stat", "lstat", "newfstatat", "statx", NULL,
};

int rn_syscall_path_arg(int nr, int which)
{
	const char *sig = rn_syscall_signature(nr);
	int i;

	if (!sig)
		return -1;
	for (i = 0; sig[i]; i++)
		if (sig[i] == 'p' && which-- == 0)
			return i;
	return -1;
}

const struct rn_sysnrs *rn_sysnrs(void)
{
	static struct rn_sysnrs n;
	static bool done;

	if (done)
		return &n;
	n.execve = rn_syscall_lookup("execve");
	n.execveat = rn_syscall_lookup("execveat");
	n.wait4 = rn_syscall_lookup("wait4");
	n.waitid = rn_syscall_lookup("waitid");
	n.clone = rn_syscall_lookup("clone");
	n.clone3 = rn_syscall_lookup("clone3");
	n.fork = rn_syscall_lookup("fork");
	n.vfork = rn_syscall_lookup("vfork");
	n.exit = rn_syscall_lookup("exit");
	n.exit_group = rn_syscall_lookup("exit_group");
	n.sched_getaffinity = rn_syscall_lookup("sched_getaffinity");
	n.mmap = rn_syscall_lookup("mmap");
	n.munmap = rn_syscall_lookup("munmap");
	n.mremap = rn_syscall_lookup("mremap");
	n.brk = rn_syscall_lookup("brk");
	n.restart_syscall = rn_syscall_lookup("restart_syscall");
	done = true;
	return &n;
}

static void set_names(bool *set, const char *const *names)
{
	for (; *names; names++) {
		int nr = rn_syscall_lookup(*names);

		if (nr >= 0)
			set[nr] = true;
	}
}

/* Add class `cls` (without the '%') to `set`; false when the class is unknown. */
static bool set_class(bool *set, const char *cls)
{
	int nr, n = rn_syscall_table_size();

	if (!strcmp(cls, "file")) {
		for (nr = 0; nr < n; nr++)
			if (rn_syscall_path_arg(nr, 0) >= 0)
				set[nr] = true;
	} else if (!strcmp(cls, "desc")) {
		for (nr = 0; nr < n; nr++) {
			const char *sig = rn_syscall_signature(nr);

			if (sig && (strchr(sig, 'f') || strchr(sig, 'd')))
				set[nr] = true;
		}
	} else if (!strcmp(cls, "process")) {
		set_names(set, class_process);
	} else if (!strcmp(cls, "network") || !strcmp(cls, "net")) {
		set_names(set, class_network);
	} else if (!strcmp(cls, "signal")) {
		set_names(set, class_signal);
	} else if (!strcmp(cls, "ipc")) {
		set_names(set, class_ipc);
	} else if (!strcmp(cls, "memory")) {
		set_names(set, class_memory);
	} else if (!strcmp(cls, "creds")) {
		set_names(set, class_creds);
	} else if (!strcmp(cls, "clock")) {
		set_names(set, class_clock);
	} else if (!strcmp(cls, "stat")) {
		set_names(set, class_stat);
	} else {
		return false;
	}
	return true;
}

/* Did-you-mean over the syscall names of the table. */
static const char *suggest_syscall(const char *word)
{
	int i, n = rn_syscall_table_size(), k = 0;
	const char **names = rn_xcalloc((size_t)n + 1, sizeof(*names));
	const char *hint;

	for (i = 0; i < n; i++)
		if (rn_syscall_has_name(i))
			names[k++] = rn_syscall_name(i);
	names[k] = NULL;
	hint = rn_suggest(word, names);
	free(names);
	return hint;
}

int rn_syscall_set_parse(const char *expr, bool *set, struct rn_diag *diag)
{
	int n = rn_syscall_table_size(), i, rc = 0;
	bool negate = false;
	char *copy, *p, *next;

	memset(set, 0, (size_t)n * sizeof(*set));
	if (*expr == '!') {
		negate = true;
		expr++;
	}
	copy = rn_xstrdup(expr);
	for (p = copy; p; p = next) {
		size_t len;

		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		len = strlen(p);
		if (len && p[len - 1] == '?') {
			p[--len] = '\0';
			if (rn_syscall_lookup(p) < 0 && *p != '%')
				continue; /* '?': no error for names unknown here */
		}
		if (!*p) {
			rc = rn_diag_set(diag, 0, 0, "empty syscall name in '%s'", expr);
			break;
		}
		if (!strcmp(p, "all")) {
			for (i = 0; i < n; i++)
				set[i] = true;
		} else if (!strcmp(p, "none")) {
			continue;
		} else if (*p == '%') {
			if (!set_class(set, p + 1)) {
				rc = rn_diag_set(diag, 0, 0,
						 "unknown syscall class '%s' (known: "
						 "%%file %%desc %%process %%network %%signal %%ipc "
						 "%%memory %%creds %%clock %%stat)",
						 p);
				break;
			}
		} else {
			int nr = rn_syscall_lookup(p);
			const char *hint;

			if (nr < 0) {
				hint = suggest_syscall(p);
				if (hint)
					rc = rn_diag_set(diag, 0, 0,
							 "unknown syscall '%s' "
							 "(did you mean '%s'?)",
							 p, hint);
				else
					rc = rn_diag_set(diag, 0, 0, "unknown syscall '%s'", p);
				break;
			}
			set[nr] = true;
		}
	}
	free(copy);
	if (rc)
		return -1;
	if (negate)
		for (i = 0; i < n; i++)
			set[i] = !set[i];
	return 0;
}
