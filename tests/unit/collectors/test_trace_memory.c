/*
 * test_trace_memory.c - memory accounting follows the process image (collectors/trace.h
 * rn_trace_image_*): an exec restarts the image's count and program break, a process's peak
 * is the largest of its images', a fork child starts with a copy of its parent's count that
 * the tree does not count twice, and an ended process leaves the tree's current total.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "trace.h"

#define MIB ((uint64_t)1 << 20)

static void sc(struct rn_trace *t, struct rn_process *p, int nr, uint64_t a0, uint64_t a1,
	       uint64_t a2, uint64_t a3, int64_t ret)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = p->pid;
	ev.nr = nr;
	ev.args[0] = a0;
	ev.args[1] = a1;
	ev.args[2] = a2;
	ev.args[3] = a3;
	ev.ret = ret;
	rn_trace_syscall(t, p, &ev);
}

static void brk_call(struct rn_trace *t, struct rn_process *p, uint64_t addr, uint64_t answer)
{
	sc(t, p, SYS_brk, addr, 0, 0, 0, (int64_t)answer);
}

static void mmap_anon(struct rn_trace *t, struct rn_process *p, uint64_t len)
{
	sc(t, p, SYS_mmap, 0, len, 3, 0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */, 0x7f0000000000);
}

/* A wrapper whose break lies far above the new image's: the new image's first brk answer
 * must not be taken as growth from the old break (that gave hundreds of GB). */
static void test_exec_restarts_the_image(void **state)
{
	struct rn_trace t;
	struct rn_process *p;

	(void)state;
	rn_trace_init(&t);
	p = rn_trace_add_process(&t, 100, 0, 1);
	brk_call(&t, p, 0, 0x7ff000000000); /* the shell's break */
	brk_call(&t, p, 0x7ff000000000 + 2 * MIB, 0x7ff000000000 + 2 * MIB);
	assert_int_equal(p->alloc_peak_bytes, 2 * MIB);
	rn_trace_image_end(&t, p); /* exec */
	assert_int_equal(p->alloc_cur_bytes, 0);
	assert_int_equal(t.alloc_cur_bytes, 0);
	brk_call(&t, p, 0, 0x555500000000); /* the new image's break, far below */
	brk_call(&t, p, 0x555500000000 + MIB, 0x555500000000 + MIB);
	assert_int_equal(p->alloc_cur_bytes, MIB);
	assert_int_equal(p->alloc_peak_bytes, 2 * MIB); /* the largest of its images' */
	assert_int_equal(t.alloc_peak_bytes, 2 * MIB);
	/* the other way round: a new break far above the old one */
	rn_trace_image_end(&t, p);
	brk_call(&t, p, 0, 0x7fff00000000);
	assert_int_equal(p->alloc_cur_bytes, 0);
	assert_int_equal(p->alloc_peak_bytes, 2 * MIB);
	/* the kernel-mapped .bss of the new image counts */
	rn_trace_image_map(&t, p, 3 * MIB);
	assert_int_equal(p->alloc_peak_bytes, 3 * MIB);
	assert_int_equal(t.alloc_peak_bytes, 3 * MIB);
	rn_trace_release(&t);
}

/* fork copies the image: the child's own count holds the copy, the tree does not count it
 * twice, and bytes the child maps itself are counted; a CLONE_VM child starts empty. */
static void test_fork_copies_the_image(void **state)
{
	struct rn_trace t;
	struct rn_process *parent, *child;

	(void)state;
	rn_trace_init(&t);
	parent = rn_trace_add_process(&t, 100, 0, 1);
	mmap_anon(&t, parent, 8 * MIB);
	child = rn_trace_add_process(&t, 101, 100, 2);
	parent = &t.procs[0];
	rn_trace_image_fork(&t, child, parent, false);
	assert_int_equal(child->alloc_cur_bytes, 8 * MIB);
	assert_int_equal(child->alloc_peak_bytes, 8 * MIB);
	assert_int_equal(t.alloc_cur_bytes, 8 * MIB);
	sc(&t, child, SYS_munmap, 0x7f0000000000, 8 * MIB, 0, 0, 0);
	mmap_anon(&t, child, 2 * MIB);
	assert_int_equal(t.alloc_cur_bytes, 10 * MIB);
	assert_int_equal(t.alloc_peak_bytes, 10 * MIB);
	/* the child ends: its bytes leave the tree's current total */
	rn_trace_image_end(&t, child);
	assert_int_equal(t.alloc_cur_bytes, 8 * MIB);
	/* vfork / CLONE_VM: shares the parent's image, starts with nothing of its own */
	child = rn_trace_add_process(&t, 102, 100, 3);
	parent = &t.procs[0];
	rn_trace_image_fork(&t, child, parent, true);
	assert_int_equal(child->alloc_cur_bytes, 0);
	assert_int_equal(child->brk_cur, 0);
	rn_trace_release(&t);
}

/* The break a fork child inherits is its parent's: its first brk is growth from there. */
static void test_fork_inherits_the_break(void **state)
{
	struct rn_trace t;
	struct rn_process *parent, *child;

	(void)state;
	rn_trace_init(&t);
	parent = rn_trace_add_process(&t, 100, 0, 1);
	brk_call(&t, parent, 0, 0x560000000000);
	child = rn_trace_add_process(&t, 101, 100, 2);
	parent = &t.procs[0];
	rn_trace_image_fork(&t, child, parent, false);
	brk_call(&t, child, 0x560000000000 + MIB, 0x560000000000 + MIB);
	assert_int_equal(child->alloc_cur_bytes, MIB);
	assert_int_equal(t.alloc_cur_bytes, MIB);
	rn_trace_release(&t);
}

static void sc5(struct rn_trace *t, struct rn_process *p, int nr, uint64_t a0, uint64_t a1,
		uint64_t a2, uint64_t a3, uint64_t a4, int64_t ret)
{
	struct rn_syscall_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = p->pid;
	ev.nr = nr;
	ev.args[0] = a0;
	ev.args[1] = a1;
	ev.args[2] = a2;
	ev.args[3] = a3;
	ev.args[4] = a4;
	ev.ret = ret;
	rn_trace_syscall(t, p, &ev);
}

/* glibc's arenas and thread stacks reserve address space with PROT_NONE mappings and open
 * what they use with mprotect: the reservation is no allocation (a 128 MiB reservation per
 * thread arena gave false alarms of 64 MiB steps), the opened part is, and munmap gives back
 * only what was counted. */
static void test_prot_none_reservations(void **state)
{
	const uint64_t base = 0x7f0000000000, heap = base + 32 * MIB;
	struct rn_trace t;
	struct rn_process *p, *c;

	(void)state;
	rn_trace_init(&t);
	p = rn_trace_add_process(&t, 100, 0, 1);
	mmap_anon(&t, p, 1 * MIB); /* ordinary anonymous memory */
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB);
	/* new_heap: 128 MiB PROT_NONE, the unaligned head and tail unmapped, 132 KiB opened */
	sc(&t, p, SYS_mmap, 0, 128 * MIB, 0, 0x4022, (int64_t)base);
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB);
	sc(&t, p, SYS_munmap, base, 32 * MIB, 0, 0, 0);
	sc(&t, p, SYS_munmap, heap + 64 * MIB, 32 * MIB, 0, 0, 0);
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB); /* nothing counted was given back */
	sc(&t, p, SYS_mprotect, heap, 132 * 1024, 3, 0, 0);
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB + 132 * 1024);
	sc(&t, p, SYS_mprotect, heap, 132 * 1024, 3, 0, 0); /* opened twice: counted once */
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB + 132 * 1024);
	sc(&t, p, SYS_mprotect, heap + 1 * MIB, 1000, 3, 0, 0); /* a partial page counts whole */
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB + 132 * 1024 + 4096);
	/* a fork child inherits the reservations: opening them in the child counts there */
	c = rn_trace_add_process(&t, 101, 100, 2);
	p = &t.procs[0];
	rn_trace_image_fork(&t, c, p, false);
	sc(&t, c, SYS_mprotect, heap + 2 * MIB, 2 * MIB, 3, 0, 0);
	assert_int_equal(c->alloc_cur_bytes - c->alloc_inherited_bytes, 2 * MIB);
	/* the arena unmapped whole: the opened bytes go, the reservation was never counted */
	sc(&t, p, SYS_munmap, heap, 64 * MIB, 0, 0, 0);
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB);
	/* a reservation moved by mremap stays a reservation */
	sc(&t, p, SYS_mmap, 0, 8 * MIB, 0, 0x22, (int64_t)base);
	sc5(&t, p, SYS_mremap, base, 8 * MIB, 16 * MIB, 1, 0, (int64_t)(base + 256 * MIB));
	assert_int_equal(p->alloc_cur_bytes, 1 * MIB);
	sc(&t, p, SYS_mprotect, base + 256 * MIB, 16 * MIB, 3, 0, 0);
	assert_int_equal(p->alloc_cur_bytes, 17 * MIB);
	/* an exec forgets them */
	rn_trace_image_end(&t, p);
	assert_int_equal(p->nreserved, 0);
	assert_int_equal(p->alloc_peak_bytes, 17 * MIB);
	rn_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_restarts_the_image),
		cmocka_unit_test(test_prot_none_reservations),
		cmocka_unit_test(test_fork_copies_the_image),
		cmocka_unit_test(test_fork_inherits_the_break),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
