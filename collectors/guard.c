#include "guard.h"

#include <endian.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#if defined(__x86_64__)
#define GUARD_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GUARD_ARCH AUDIT_ARCH_AARCH64
#else
#error "renacer supports x86_64 and aarch64"
#endif

/* Offset of the low 32 bits of argument `i` in struct seccomp_data. */
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

/* Jump targets, resolved once the program is laid out. */
enum label {
	L_NONE,
	L_ALLOW,
	L_DENY,
	L_KILL,
	L_ARG0,
	L_ARG1,
	L_COUNT
};

struct prog {
	struct sock_filter *f;
	unsigned char jt[RN_GUARD_MAX_INSNS], jf[RN_GUARD_MAX_INSNS]; /* labels to resolve */
	size_t at[L_COUNT];                                           /* where each label is */
	size_t n;
};

static void stmt(struct prog *p, uint16_t code, uint32_t k)
{
	p->f[p->n] = (struct sock_filter)BPF_STMT(code, k);
	p->jt[p->n] = p->jf[p->n] = L_NONE;
	p->n++;
}

/* if (A == k) goto t; else goto f (labels; L_NONE = the next instruction) */
static void jeq(struct prog *p, uint32_t k, enum label t, enum label f)
{
	p->f[p->n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0);
	p->jt[p->n] = (unsigned char)t;
	p->jf[p->n] = (unsigned char)f;
	p->n++;
}

static void label(struct prog *p, enum label l)
{
	p->at[l] = p->n;
}

size_t rn_guard_filter(pid_t protect, pid_t pgrp, struct sock_filter *out)
{
	static const long arg0_calls[] = {
		SYS_tkill,
		SYS_tgkill,
		SYS_rt_sigqueueinfo,
		SYS_rt_tgsigqueueinfo,
		SYS_process_vm_readv,
		SYS_process_vm_writev,
#ifdef SYS_pidfd_open
		SYS_pidfd_open,
#endif
	};
	struct prog p = { .f = out };
	size_t i;

	stmt(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	jeq(&p, GUARD_ARCH, L_NONE, L_ALLOW);
	stmt(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	jeq(&p, SYS_kill, L_KILL, L_NONE);
	jeq(&p, SYS_ptrace, L_ARG1, L_NONE);
	for (i = 0; i < sizeof(arg0_calls) / sizeof(arg0_calls[0]); i++)
		jeq(&p, (uint32_t)arg0_calls[i], L_ARG0, L_NONE);
	stmt(&p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);

	label(&p, L_KILL);
	stmt(&p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
	jeq(&p, (uint32_t)-1, L_DENY, L_NONE);
	if (pgrp > 0) {
		jeq(&p, 0, L_DENY, L_NONE);
		jeq(&p, (uint32_t)-pgrp, L_DENY, L_NONE);
	}
	jeq(&p, (uint32_t)protect, L_DENY, L_ALLOW);

	label(&p, L_ARG1);
	stmt(&p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
	jeq(&p, (uint32_t)protect, L_DENY, L_ALLOW);

	label(&p, L_ARG0);
	stmt(&p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
	jeq(&p, (uint32_t)protect, L_DENY, L_ALLOW);

	label(&p, L_ALLOW); /* BPF jumps only forward: the shared returns come last */
	stmt(&p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	label(&p, L_DENY);
	stmt(&p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));

	/* resolve the forward jumps */
	for (i = 0; i < p.n; i++) {
		if (BPF_CLASS(out[i].code) != BPF_JMP)
			continue;
		out[i].jt = p.jt[i] == L_NONE ? 0 : (uint8_t)(p.at[p.jt[i]] - i - 1);
		out[i].jf = p.jf[i] == L_NONE ? 0 : (uint8_t)(p.at[p.jf[i]] - i - 1);
	}
	return p.n;
}

/* Landlock's system calls and ABI-6 ruleset (Linux include/uapi/linux/landlock.h); defined
 * here since the C library's headers may predate them. The numbers are the same on every
 * architecture (the unified table from 424 on). */
#define RN_SYS_landlock_create_ruleset 444
#define RN_SYS_landlock_restrict_self 446
#define RN_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define RN_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

struct rn_landlock_ruleset_attr {
	uint64_t handled_access_fs;  /* none: files are not the guard's business */
	uint64_t handled_access_net; /* none */
	uint64_t scoped;             /* LANDLOCK_SCOPE_SIGNAL */
};

int rn_guard_landlock_abi(void)
{
	static int abi = -1;

	if (abi < 0) {
		long v = syscall(RN_SYS_landlock_create_ruleset, NULL, 0,
				 RN_LANDLOCK_CREATE_RULESET_VERSION);

		abi = v > 0 ? (int)v : 0;
	}
	return abi;
}

int rn_guard_landlock(void)
{
	struct rn_landlock_ruleset_attr attr = { .scoped = RN_LANDLOCK_SCOPE_SIGNAL };
	long fd = syscall(RN_SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (syscall(RN_SYS_landlock_restrict_self, (int)fd, 0)) {
		/* Without CAP_SYS_ADMIN the domain needs no_new_privs, as a seccomp filter does;
		 * retried whatever the error (errno is not the child's own, see run.c) */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(RN_SYS_landlock_restrict_self, (int)fd, 0))
			rc = -errno;
	}
	close((int)fd);
	return rc;
}
