#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "symbolize.h"
#include "xalloc.h"

/* Modules with CFI kept open. */
#define MAX_MODULES 64
/* Answers cached per absolute instruction address; cleared when half full. */
#define CACHE_SLOTS 1024
/* The frame and stack pointers' DWARF register numbers on x86_64 (System V psABI, DWARF
 * register map). */
#define DWARF_REG_RBP 6
#define DWARF_REG_RSP 7

struct module {
	char *path;     /* owned */
	int fd;         /* -1 if not open */
	Elf *elf;       /* or NULL */
	Dwarf_CFI *cfi; /* .eh_frame CFI, owned by elf's handle, or NULL */
};

struct slot {
	uint64_t pc;              /* 0: empty */
	int rc;                   /* cached answer */
	struct rn_unwind_row row; /* cached row */
};

struct rn_unwinder {
	struct rn_symbolizer *sym; /* pc -> module and vaddr */
	struct module mods[MAX_MODULES];
	int nmods;
	struct slot *cache; /* CACHE_SLOTS */
	size_t cached;
};

struct rn_unwinder *rn_unwinder_new(void)
{
	struct rn_unwinder *u = rn_xcalloc(1, sizeof(*u));

	u->sym = rn_symbolizer_new();
	u->cache = rn_xcalloc(CACHE_SLOTS, sizeof(*u->cache));
	return u;
}

void rn_unwinder_free(struct rn_unwinder *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < u->nmods; i++) {
		if (u->mods[i].cfi)
			dwarf_cfi_end(u->mods[i].cfi);
		if (u->mods[i].elf)
			elf_end(u->mods[i].elf);
		if (u->mods[i].fd >= 0)
			close(u->mods[i].fd);
		free(u->mods[i].path);
	}
	rn_symbolizer_free(u->sym);
	free(u->cache);
	free(u);
}

#if defined(__x86_64__)
static struct module *module_get(struct rn_unwinder *u, const char *path)
{
	struct module *m;
	int i;

	for (i = 0; i < u->nmods; i++)
		if (!strcmp(u->mods[i].path, path))
			return &u->mods[i];
	if (u->nmods == MAX_MODULES || elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	m = &u->mods[u->nmods++];
	m->path = rn_xstrdup(path);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0)
		return m;
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (m->elf && elf_kind(m->elf) == ELF_K_ELF)
		m->cfi = dwarf_getcfi_elf(m->elf);
	return m;
}

/* The CFA rule of `frame` into `row`: register plus offset, the register rsp or rbp (libdw
 * states it as DW_OP_bregx (reg, offset) or DW_OP_bregN offset). 0 or -ENOENT. */
static int cfa_rule(Dwarf_Frame *frame, struct rn_unwind_row *row)
{
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	uint64_t reg;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 1)
		return -ENOENT;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return -ENOENT;
	}
	/* the call pushed the return address: the CFA is at least 8 above rsp, 16 above an rbp
	 * that the function pushed after it */
	if ((reg != DWARF_REG_RSP || off < 8) && (reg != DWARF_REG_RBP || off < 16))
		return -ENOENT;
	row->cfa_rbp = reg == DWARF_REG_RBP;
	row->cfa_off = off;
	return 0;
}

/* The rule of the caller's rbp in `frame` into `row`: saved at CFA + N ("offset(N)", which
 * libdw gives as DW_OP_call_frame_cfa then DW_OP_plus_uconst N, or DW_OP_consts N, DW_OP_plus),
 * else unchanged. */
static void rbp_rule(Dwarf_Frame *frame, struct rn_unwind_row *row)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;

	row->rbp_saved = false;
	if (dwarf_frame_register(frame, DWARF_REG_RBP, mem, &ops, &nops) || !ops || !nops ||
	    ops[0].atom != DW_OP_call_frame_cfa)
		return;
	if (nops == 1) {
		row->rbp_off = 0;
	} else if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		row->rbp_off = (int64_t)ops[1].number;
	} else if (nops == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus) {
		row->rbp_off = (int64_t)ops[1].number;
	} else {
		return;
	}
	row->rbp_saved = true;
}

static int lookup(struct rn_unwinder *u, const struct rn_maps *m, uint64_t pc,
		  struct rn_unwind_row *row)
{
	struct rn_frame fr;
	struct module *mod;
	Dwarf_Frame *frame = NULL;
	int rc;

	if (rn_symbolize(u->sym, m, pc, false, &fr))
		return -ENOENT;
	mod = module_get(u, fr.module);
	if (!mod || !mod->cfi || dwarf_cfi_addrframe(mod->cfi, fr.vaddr, &frame))
		return -ENOENT;
	rc = cfa_rule(frame, row);
	if (!rc)
		rbp_rule(frame, row);
	free(frame);
	return rc;
}

#endif

int rn_unwind_row(struct rn_unwinder *u, const struct rn_maps *m, uint64_t pc,
		  struct rn_unwind_row *row)
{
#if defined(__x86_64__)
	size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 54) % CACHE_SLOTS, k;
	struct slot *s;

	memset(row, 0, sizeof(*row));
	if (!pc || !m)
		return -ENOENT;
	for (k = 0; k < CACHE_SLOTS; k++) {
		s = &u->cache[(i + k) % CACHE_SLOTS];
		if (s->pc == pc) {
			*row = s->row;
			return s->rc;
		}
		if (!s->pc)
			break;
	}
	if (u->cached >= CACHE_SLOTS / 2) {
		memset(u->cache, 0, CACHE_SLOTS * sizeof(*u->cache));
		u->cached = 0;
		s = &u->cache[i];
	}
	s->pc = pc;
	memset(&s->row, 0, sizeof(s->row));
	s->rc = lookup(u, m, pc, &s->row);
	u->cached++;
	*row = s->row;
	return s->rc;
#else
	(void)u;
	(void)m;
	(void)pc;
	memset(row, 0, sizeof(*row));
	return -ENOTSUP;
#endif
}

int rn_unwind_ra_offset(struct rn_unwinder *u, const struct rn_maps *m, uint64_t pc,
			uint64_t *sp_off)
{
	struct rn_unwind_row row;
	int rc = rn_unwind_row(u, m, pc, &row);

	*sp_off = 0;
	if (rc)
		return rc;
	if (row.cfa_rbp)
		return -ENOENT;
	*sp_off = (uint64_t)row.cfa_off - 8;
	return 0;
}
