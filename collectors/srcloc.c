#include "srcloc.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "safefile.h"
#include "strmap.h"
#include "symbolize.h"
#include "xalloc.h"

/* Modules with debug information kept open; later ones are looked up without a cache slot. */
#define MAX_MODULES 128
/* Cached (module, vaddr) answers; the table is cleared when full (a bounded working set). */
#define CACHE_SLOTS 4096
/* Where distributions install separate debug files. */
#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

struct module {
	char *path;   /* the module (ELF) path, owned */
	int fd;       /* the file libdw reads (module or separate debug file), -1 if none */
	Elf *elf;     /* its ELF handle, or NULL */
	Dwarf *dwarf; /* its DWARF, or NULL when none was found */
	int err;      /* 0, or the negative errno of opening the module */
};

struct entry {
	int mod;                                  /* module index + 1; 0 = empty slot */
	uint64_t vaddr;                           /* looked-up address */
	int n;                                    /* frames (0: no information) */
	struct rn_src_frame f[RN_SRC_FRAMES_MAX]; /* frames; strings point into libdw's data */
};

struct rn_srcloc {
	char *debug_dirs;                 /* colon-separated folders, owned, "" for none */
	struct module *mods[MAX_MODULES]; /* opened modules */
	int nmods;                        /* modules used */
	struct entry *cache;              /* CACHE_SLOTS entries, owned */
	size_t cached;                    /* entries used */
	struct rn_strmap cxx;             /* a C++ function's linkage name -> its index in
					   * cxx_names (the key is that array's copy) */
	char **cxx_names;                 /* [2 * ncxx]: each linkage name and its readable
					   * name (rn_symbol_demangle), owned */
	size_t ncxx, cxx_cap;
};

struct rn_srcloc *rn_srcloc_new(const char *debug_dirs)
{
	struct rn_srcloc *s = rn_xcalloc(1, sizeof(*s));

	s->debug_dirs = rn_xstrdup(debug_dirs ? debug_dirs : "");
	s->cache = rn_xcalloc(CACHE_SLOTS, sizeof(*s->cache));
	rn_strmap_init(&s->cxx);
	return s;
}

static void module_close(struct module *m)
{
	if (m->dwarf)
		dwarf_end(m->dwarf);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	m->dwarf = NULL;
	m->elf = NULL;
	m->fd = -1;
}

void rn_srcloc_free(struct rn_srcloc *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nmods; i++) {
		module_close(s->mods[i]);
		free(s->mods[i]->path);
		free(s->mods[i]);
	}
	free(s->cache);
	free(s->debug_dirs);
	rn_strmap_release(&s->cxx);
	for (size_t k = 0; k < 2 * s->ncxx; k++)
		free(s->cxx_names[k]);
	free(s->cxx_names);
	free(s);
}

/* Open `path` as ELF with DWARF: 0 with m->fd/elf/dwarf set, or -1 with nothing held. A file
 * without .debug_info (a stripped module) gives -1. */
static int open_dwarf(struct module *m, const char *path)
{
	/* Debug files are found by name in folders anyone may fill: a FIFO there must not
	 * block the trace, nor a device or an endless file be read. */
	int fd = rn_open_regular(path, RN_ELF_MAX_FILE_BYTES);
	Elf *elf;
	Dwarf *dw;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw) {
		elf_end(elf);
		close(fd);
		return -1;
	}
	m->fd = fd;
	m->elf = elf;
	m->dwarf = dw;
	return 0;
}

/* Try DIR/.build-id/xx/rest.debug for each folder of the colon-separated `dirs`. */
static int try_build_id_dirs(struct module *m, const char *dirs, const char *hex)
{
	const char *p = dirs;
	char path[4096];

	while (*p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len && len < 3000) {
			snprintf(path, sizeof(path), "%.*s/.build-id/%.2s/%s.debug", (int)len, p,
				 hex, hex + 2);
			if (!open_dwarf(m, path))
				return 0;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return -1;
}

/* The module's separate debug file: by build-id, then by .gnu_debuglink (GDB's search
 * order, without debuginfod). */
static void find_separate(struct rn_srcloc *s, struct module *m, Elf *elf)
{
	const void *id = NULL;
	ssize_t idlen = dwelf_elf_gnu_build_id(elf, &id);
	const char *link;
	GElf_Word crc;
	char path[4096];

	if (idlen > 1 && idlen <= 64) {
		char hex[130];
		ssize_t i;

		for (i = 0; i < idlen; i++)
			snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
		if (!try_build_id_dirs(m, s->debug_dirs, hex) ||
		    !try_build_id_dirs(m, SYSTEM_DEBUG_DIR, hex))
			return;
	}
	link = dwelf_elf_gnu_debuglink(elf, &crc);
	if (link && !strchr(link, '/')) {
		const char *slash = strrchr(m->path, '/');
		int dlen = slash ? (int)(slash - m->path) : 0;

		snprintf(path, sizeof(path), "%.*s/%s", dlen, m->path, link);
		if (strcmp(path, m->path) && !open_dwarf(m, path))
			return;
		snprintf(path, sizeof(path), "%.*s/.debug/%s", dlen, m->path, link);
		if (!open_dwarf(m, path))
			return;
		snprintf(path, sizeof(path), SYSTEM_DEBUG_DIR "%.*s/%s", dlen, m->path, link);
		if (!open_dwarf(m, path))
			return;
	}
}

static void module_load(struct rn_srcloc *s, struct module *m)
{
	int fd;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		m->err = -ENOTSUP;
		return;
	}
	if (!open_dwarf(m, m->path))
		return;
	/* no DWARF of its own: a stripped module, maybe with a separate debug file */
	fd = rn_open_regular(m->path, RN_ELF_MAX_FILE_BYTES);
	if (fd < 0) {
		m->err = fd;
		return;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		find_separate(s, m, elf);
	else
		m->err = -ENOEXEC;
	if (elf)
		elf_end(elf);
	close(fd);
}

static int module_get(struct rn_srcloc *s, const char *path)
{
	struct module *m;
	int i;

	for (i = 0; i < s->nmods; i++)
		if (!strcmp(s->mods[i]->path, path))
			return i;
	if (s->nmods == MAX_MODULES)
		return -1;
	m = rn_xcalloc(1, sizeof(*m));
	m->path = rn_xstrdup(path);
	m->fd = -1;
	module_load(s, m);
	s->mods[s->nmods] = m;
	return s->nmods++;
}

/* The compilation unit that holds `addr`: through .debug_aranges, else by scanning the units'
 * ranges (compilers that emit no aranges). */
static bool find_cu(Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) == 1)
			return true;
		off = next;
	}
	return false;
}

/* `file` relative to the unit's compilation directory when it lies under it. */
static const char *show_path(const char *file, const char *comp_dir)
{
	size_t n;

	if (!file || !comp_dir || file[0] != '/')
		return file;
	n = strlen(comp_dir);
	while (n > 1 && comp_dir[n - 1] == '/')
		n--;
	if (n && !strncmp(file, comp_dir, n) && file[n] == '/' && file[n + 1])
		return file + n + 1;
	return file;
}

/* The name of subprogram or inlined subroutine `die`: a C++ function's qualified name, from
 * its DW_AT_linkage_name demangled ("app::Parser::parse", where DW_AT_name says "parse"),
 * kept in s->cxx_names; else DW_AT_name (owned by libdw); NULL without one. */
static const char *die_function(struct rn_srcloc *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	size_t k;
	char *d;

	if (!link || strncmp(link, "_Z", 2))
		return dwarf_diename(die);
	if (rn_strmap_get(&s->cxx, link, &k))
		return s->cxx_names[2 * k + 1];
	d = rn_symbol_demangle(link);
	if (!d)
		return dwarf_diename(die);
	s->cxx_names = rn_xgrow(s->cxx_names, &s->cxx_cap, 2 * s->ncxx + 2, sizeof(*s->cxx_names));
	s->cxx_names[2 * s->ncxx] = rn_xstrdup(link);
	s->cxx_names[2 * s->ncxx + 1] = d;
	rn_strmap_put(&s->cxx, s->cxx_names[2 * s->ncxx], s->ncxx, NULL);
	return s->cxx_names[2 * s->ncxx++ + 1];
}

static int lookup_dwarf(struct rn_srcloc *s, Dwarf *dw, Dwarf_Addr addr, struct rn_src_frame *out,
			int max)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Attribute attr;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	const char *comp_dir, *file = NULL;
	Dwarf_Line *row;
	int line = 0, col = 0, nscopes, i, n = 0;

	if (!find_cu(dw, addr, &cu))
		return 0;
	comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
	row = dwarf_getsrc_die(&cu, addr);
	if (row) {
		file = dwarf_linesrc(row, NULL, NULL);
		dwarf_lineno(row, &line);
		dwarf_linecol(row, &col);
	}
	/* dwarf_getscopes() follows an inlined instance to its abstract definition; the chain of
	 * concrete DIEs around the innermost scope (what eu-addr2line -i walks) has the callers */
	nscopes = dwarf_getscopes(&cu, addr, &scopes);
	if (nscopes > 0) {
		Dwarf_Die inner;

		if (dwarf_offdie(dw, dwarf_dieoffset(&scopes[0]), &inner)) {
			free(scopes);
			scopes = NULL;
			nscopes = dwarf_getscopes_die(&inner, &scopes);
		}
		dwarf_getsrcfiles(&cu, &files, &nfiles);
	}
	/* scopes run from the innermost out: each inlined subroutine is a frame whose caller's
	 * location is its DW_AT_call_file:DW_AT_call_line; the subprogram ends the chain */
	for (i = 0; i < nscopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Word w;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n].function = die_function(s, &scopes[i]);
		out[n].file = show_path(file, comp_dir);
		out[n].line = line;
		out[n].column = col;
		out[n].inlined = tag == DW_TAG_inlined_subroutine;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		file = NULL;
		line = col = 0;
		if (files &&
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &w) == 0 &&
		    w < nfiles)
			file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &w) == 0)
			line = (int)w;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_column, &attr), &w) == 0)
			col = (int)w;
	}
	free(scopes);
	if (!n && file && max > 0) {
		/* a line-table row outside any subprogram DIE (assembly, say) */
		out[0] = (struct rn_src_frame){ NULL, show_path(file, comp_dir), line, col, false };
		n = 1;
	}
	return n;
}

int rn_srcloc_lookup(struct rn_srcloc *s, const char *module, uint64_t vaddr,
		     struct rn_src_frame *out, int max)
{
	int mi = module_get(s, module), n;
	size_t slot, probes;
	struct entry *e;

	if (mi < 0)
		return -ENOSPC;
	if (s->mods[mi]->err)
		return s->mods[mi]->err;
	if (!s->mods[mi]->dwarf)
		return 0;
	slot = (size_t)((vaddr * 0x9e3779b97f4a7c15ull) >> 52) % CACHE_SLOTS;
	for (probes = 0; probes < CACHE_SLOTS; probes++) {
		e = &s->cache[(slot + probes) % CACHE_SLOTS];
		if (!e->mod)
			break;
		if (e->mod == mi + 1 && e->vaddr == vaddr)
			goto out_copy;
	}
	if (s->cached >= CACHE_SLOTS / 2) {
		memset(s->cache, 0, CACHE_SLOTS * sizeof(*s->cache));
		s->cached = 0;
		e = &s->cache[slot];
	}
	e->mod = mi + 1;
	e->vaddr = vaddr;
	e->n = lookup_dwarf(s, s->mods[mi]->dwarf, vaddr, e->f, RN_SRC_FRAMES_MAX);
	s->cached++;
out_copy:
	n = e->n < max ? e->n : max;
	if (n > 0)
		memcpy(out, e->f, (size_t)n * sizeof(*out));
	return n;
}

int rn_srcloc_caller(struct rn_srcloc *s, struct rn_symbolizer *sym, const struct rn_maps *m,
		     const uint64_t *stack, size_t n, struct rn_src_frame *out, int max,
		     const char **module_out, const char **function_out, uint64_t *vaddr_out)
{
	struct rn_frame fr;
	int k;

	if (!m || !n || rn_symbolize_caller(sym, m, stack, n, &fr))
		return -ENOENT;
	if (module_out)
		*module_out = fr.module;
	if (function_out)
		*function_out = fr.function;
	if (vaddr_out)
		*vaddr_out = fr.vaddr;
	k = rn_srcloc_lookup(s, fr.module, fr.vaddr ? fr.vaddr - 1 : 0, out, max);
	return k < 0 ? 0 : k;
}

void rn_src_frame_format(struct rn_buf *b, const struct rn_src_frame *f)
{
	rn_buf_adds(b, f->function ? f->function : "??");
	if (!f->file)
		return;
	if (f->line)
		rn_buf_addf(b, " (%s:%d)", f->file, f->line);
	else
		rn_buf_addf(b, " (%s)", f->file);
}

static void json_str_or_null(struct rn_buf *b, const char *s)
{
	if (s)
		rn_json_add_string(b, s);
	else
		rn_buf_adds(b, "null");
}

void rn_src_frames_json(struct rn_buf *b, const struct rn_src_frame *f, int n)
{
	int i;

	rn_buf_addc(b, '[');
	for (i = 0; i < n; i++) {
		rn_buf_adds(b, i ? ",{\"function\":" : "{\"function\":");
		json_str_or_null(b, f[i].function);
		rn_buf_adds(b, ",\"file\":");
		json_str_or_null(b, f[i].file);
		rn_buf_addf(b, ",\"line\":%d,\"column\":%d,\"inlined\":%s}", f[i].line, f[i].column,
			    f[i].inlined ? "true" : "false");
	}
	rn_buf_addc(b, ']');
}
