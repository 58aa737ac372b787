/*
 * unwind.h - where a syscall's return address is, read from the call-frame information
 * (.eh_frame) of the code that made the syscall instruction.
 *
 * The ptrace collector takes the caller of a libc wrapper from the word at the stack pointer,
 * which is right only for wrappers without a stack frame of their own (read, write). A
 * wrapper that keeps one (glibc's open64/openat keep a va_list frame) has its return address
 * higher up: the CFI row of the syscall instruction gives the canonical frame address as
 * rsp + N (x86_64; DWARF 5 section 6.4), and the return address sits at CFA - 8, pushed by
 * the call. This module answers N - 8 per instruction address, with libdw's CFI reader
 * (dwarf_getcfi_elf) and a cache per address, so a call site costs one lookup per run; and,
 * for a walk through several frames of the C runtime, the whole row: a CFA of rsp or rbp plus
 * a constant, and where the caller's rbp was saved (rn_unwind_row).
 *
 * x86_64 only (elsewhere every lookup is -ENOTSUP: aarch64 takes the link register). Not
 * thread safe.
 */
#ifndef RN_UNWIND_H
#define RN_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

struct rn_maps;
struct rn_unwinder;

/* A new unwinder (dies on out-of-memory); free with rn_unwinder_free(). */
struct rn_unwinder *rn_unwinder_new(void);
/* Free it and the modules it opened (NULL-safe). */
void rn_unwinder_free(struct rn_unwinder *u);

/*
 * For the instruction at `pc` of a process whose mappings are `m`: 0 and *sp_off set to the
 * offset from the stack pointer, in bytes, of the return address of the function that holds
 * it (0 for a function without a frame); -ENOENT when no CFI row describes it or the CFA is
 * not the stack pointer plus a constant; -ENOTSUP off x86_64.
 */
int rn_unwind_ra_offset(struct rn_unwinder *u, const struct rn_maps *m, uint64_t pc,
			uint64_t *sp_off);

/* One row of the call-frame information (DWARF 5, section 6.4.1 "Structure of Call Frame
 * Information"): the canonical frame address (CFA) of the function that holds an instruction
 * is rsp or rbp plus `cfa_off` bytes, its return address is at CFA - 8, and its caller's rbp
 * is at CFA + `rbp_off` when `rbp_saved` (else the function left rbp as it was). */
struct rn_unwind_row {
	bool cfa_rbp;    /* the CFA is rbp + cfa_off (a function that keeps a frame pointer);
			  * else rsp + cfa_off */
	int64_t cfa_off; /* bytes, >= 8 from rsp, >= 16 from rbp */
	bool rbp_saved;  /* the caller's rbp is saved at CFA + rbp_off */
	int64_t rbp_off; /* bytes, usually negative */
};

/*
 * The row of the instruction at `pc` of a process whose mappings are `m` into `row` (cached
 * per address, as rn_unwind_ra_offset). 0; -ENOENT when no CFI row describes it or its CFA
 * is not rsp or rbp plus a constant (*row zeroed); -ENOTSUP off x86_64.
 */
int rn_unwind_row(struct rn_unwinder *u, const struct rn_maps *m, uint64_t pc,
		  struct rn_unwind_row *row);

#endif
