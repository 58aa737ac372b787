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
/* The stack pointer's DWARF register number on x86_64 (System V psABI, DWARF register map). */
#define DWARF_REG_RSP 7

struct module {
	char *path;     /* owned */
	int fd;         /* -1 if not open */
	Elf *elf;       /* or NULL */
	Dwarf_CFI *cfi; /* .eh_frame CFI, owned by elf's handle, or NULL */
};

struct slot {
	uint64_t pc;  /* 0: empty */
	int rc;       /* cached answer */
	uint64_t off; /* cached offset */
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

static int lookup(struct rn_unwinder *u, const struct rn_maps *m, uint64_t pc, uint64_t *off)
{
	struct rn_frame fr;
	struct module *mod;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	int rc = -ENOENT;

	if (rn_symbolize(u->sym, m, pc, false, &fr))
		return -ENOENT;
	mod = module_get(u, fr.module);
	if (!mod || !mod->cfi || dwarf_cfi_addrframe(mod->cfi, fr.vaddr, &frame))
		return -ENOENT;
	/* CFA = rsp + N, the row of every function that addresses its frame from rsp */
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1) {
		/* libdw states a register+offset rule as DW_OP_bregx (reg, offset) */
		if (ops[0].atom == DW_OP_bregx && ops[0].number == DWARF_REG_RSP &&
		    (int64_t)ops[0].number2 >= 8) {
			*off = ops[0].number2 - 8;
			rc = 0;
		} else if (ops[0].atom == DW_OP_breg0 + DWARF_REG_RSP &&
			   (int64_t)ops[0].number >= 8) {
			*off = ops[0].number - 8;
			rc = 0;
		}
	}
	free(frame);
	return rc;
}

#endif

int rn_unwind_ra_offset(struct rn_unwinder *u, const struct rn_maps *m, uint64_t pc,
			uint64_t *sp_off)
{
#if defined(__x86_64__)
	size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 54) % CACHE_SLOTS, k;
	struct slot *s;

	if (!pc || !m)
		return -ENOENT;
	for (k = 0; k < CACHE_SLOTS; k++) {
		s = &u->cache[(i + k) % CACHE_SLOTS];
		if (s->pc == pc) {
			*sp_off = s->off;
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
	s->off = 0;
	s->rc = lookup(u, m, pc, &s->off);
	u->cached++;
	*sp_off = s->off;
	return s->rc;
#else
	(void)u;
	(void)m;
	(void)pc;
	*sp_off = 0;
	return -ENOTSUP;
#endif
}
