#include "symbolize.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "internal.h"
#include "safefile.h"
#include "xalloc.h"

/* /proc/PID/maps of a large process (many shared objects) is a few hundred KiB at most;
 * beyond this the snapshot is cut, which only costs attribution of the later mappings. */
#define MAPS_MAX_BYTES (4u << 20)
/* Modules cached per symbolizer; later ones are symbolized without a cache slot (-ENOENT). */
#define MAX_MODULES 256
/* PT_LOAD segments remembered per module. */
#define MAX_LOADS 16

/* ---- /proc/PID/maps ------------------------------------------------------------------------ */

bool rn_parse_hex(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	for (;; s++, n++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (n >= 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!n)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool parse_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

static void skip_field(const char **p)
{
	while (**p && **p != ' ' && **p != '\n')
		(*p)++;
	while (**p == ' ')
		(*p)++;
}

/* One line: "start-end perms offset dev inode   path". */
static bool parse_line(const char *s, const char *eol, struct rn_map *m)
{
	const char *p = s;
	uint64_t start, end, off;
	bool exec;

	if (!rn_parse_hex(&p, &start) || !parse_char(&p, '-') || !rn_parse_hex(&p, &end) ||
	    !parse_char(&p, ' ') || eol - p < 4)
		return false;
	exec = p[2] == 'x';
	skip_field(&p); /* perms */
	if (!rn_parse_hex(&p, &off))
		return false;
	while (*p == ' ')
		p++;
	skip_field(&p); /* dev */
	skip_field(&p); /* inode */
	m->start = start;
	m->end = end;
	m->offset = off;
	m->exec = exec;
	m->path = p < eol ? rn_xstrndup(p, (size_t)(eol - p)) : NULL;
	return end > start;
}

struct rn_maps *rn_maps_parse(const char *text)
{
	struct rn_maps *m = rn_xcalloc(1, sizeof(*m));
	size_t cap = 0;
	const char *s = text;

	while (*s) {
		const char *eol = strchr(s, '\n');
		struct rn_map e;

		if (!eol)
			eol = s + strlen(s);
		memset(&e, 0, sizeof(e));
		if (parse_line(s, eol, &e)) {
			m->v = rn_xgrow(m->v, &cap, m->n + 1, sizeof(*m->v));
			m->v[m->n++] = e;
		} else {
			free(e.path);
		}
		s = *eol ? eol + 1 : eol;
	}
	return m;
}

int rn_maps_read(pid_t pid, struct rn_maps **out)
{
	char path[64];
	struct rn_buf b;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	rn_buf_init(&b, MAPS_MAX_BYTES);
	rc = rn_buf_read_file(&b, path);
	/* over the cap: keep what was read (whole lines only are parsed) */
	if (rc && !(rc == -E2BIG && b.len)) {
		rn_buf_release(&b);
		return rc;
	}
	*out = rn_maps_parse(b.buf);
	rn_buf_release(&b);
	return 0;
}

void rn_maps_free(struct rn_maps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	free(m);
}

const struct rn_map *rn_maps_find(const struct rn_maps *m, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool rn_module_is_runtime(const char *path)
{
	const char *base;

	if (!path)
		return false;
	if (!strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]"))
		return true;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	/* libc.so.6, libc-2.31.so; ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-2.31.so */
	return has_prefix(base, "libc.so") || has_prefix(base, "libc-") ||
		has_prefix(base, "ld-linux") || has_prefix(base, "ld-") ||
		has_prefix(base, "ld64.so") || has_prefix(base, "libpthread") ||
		has_prefix(base, "libdl.") || has_prefix(base, "libdl-") ||
		has_prefix(base, "librt.") || has_prefix(base, "librt-");
}

bool rn_module_is_interpreter(const char *path)
{
	const char *base;

	if (!path)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return has_prefix(base, "libpython");
}

/* Whether the module basename [m, m + len) is the runtime's or an interpreter's. */
static bool system_module(const char *m, size_t len)
{
	char base[256];

	if (!len || len >= sizeof(base))
		return false;
	memcpy(base, m, len);
	base[len] = 0;
	return rn_module_is_runtime(base) || rn_module_is_interpreter(base);
}

bool rn_frame_is_system(const char *frame)
{
	size_t len = strlen(frame);
	const char *open, *plus;

	if (!strcmp(frame, "[kernel]"))
		return true;
	/* "name [jit]": code compiled at run time, named by the process's perf map
	 * (collectors/profile.h): the program's own, whatever its name ("PyThing (a.py) [jit]") */
	if (len > 6 && !strcmp(frame + len - 6, " [jit]"))
		return false;
	/* "function [module]": the profile's tag of a runtime or interpreter frame */
	if (len > 3 && frame[len - 1] == ']') {
		open = strrchr(frame, '[');
		if (open && open > frame && open[-1] == ' ' &&
		    system_module(open + 1, (size_t)(frame + len - 1 - open - 1)))
			return true;
	}
	/* "module+0xVADDR": a runtime module without a symbol there */
	plus = strstr(frame, "+0x");
	if (plus && !strchr(frame, ' ') && system_module(frame, (size_t)(plus - frame)))
		return true;
	/* CPython's internals: _Py*, and Py* followed by a capital or '_' (PyObject_Call,
	 * PyEval_EvalCode), not a program's "python_main" or "Pyramid" */
	if (has_prefix(frame, "_Py"))
		return true;
	return frame[0] == 'P' && frame[1] == 'y' &&
		((frame[2] >= 'A' && frame[2] <= 'Z') || frame[2] == '_');
}

/* ---- modules ------------------------------------------------------------------------------- */

struct sym {
	uint64_t addr; /* st_value */
	uint64_t size; /* st_size, 0 if unknown */
	size_t name;   /* offset into module.names */
};

struct load {
	uint64_t offset; /* p_offset */
	uint64_t vaddr;  /* p_vaddr */
	uint64_t filesz; /* p_filesz */
};

struct module {
	char *path; /* as /proc/PID/maps names it, owned */
	bool ok;    /* read as ELF */
	struct load loads[MAX_LOADS];
	int nloads;
	struct sym *syms; /* STT_FUNC symbols sorted by addr, owned */
	size_t nsyms;
	struct rn_buf names; /* NUL-separated names */
	char **pretty;       /* [nsyms], each C++ symbol's readable name (demangled) once asked
			      * for, owned, or NULL: allocated at the first C++ symbol */
};

struct rn_symbolizer {
	struct module *mods[MAX_MODULES]; /* owned, in order of first use */
	int nmods;
};

struct rn_symbolizer *rn_symbolizer_new(void)
{
	return rn_xcalloc(1, sizeof(struct rn_symbolizer));
}

void rn_symbolizer_free(struct rn_symbolizer *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nmods; i++) {
		for (size_t k = 0; s->mods[i]->pretty && k < s->mods[i]->nsyms; k++)
			free(s->mods[i]->pretty[k]);
		free(s->mods[i]->pretty);
		free(s->mods[i]->path);
		free(s->mods[i]->syms);
		rn_buf_release(&s->mods[i]->names);
		free(s->mods[i]);
	}
	free(s);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* among aliases, prefer the one with a size (a real definition) */
	return (x->size == 0) - (y->size == 0);
}

/* Collect the STT_FUNC symbols of one symbol table section. */
static void read_symtab(struct module *mod, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n, cap = 0;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		mod->syms = rn_xgrow(mod->syms, &cap, mod->nsyms + 1, sizeof(*mod->syms));
		mod->syms[mod->nsyms].addr = sym.st_value;
		mod->syms[mod->nsyms].size = sym.st_size;
		mod->syms[mod->nsyms].name = mod->names.len;
		if (rn_buf_add(&mod->names, name, strlen(name) + 1))
			return; /* over the names cap: the symbols kept so far stay valid */
		mod->nsyms++;
	}
}

static void load_module(struct module *mod)
{
	Elf_Scn *scn = NULL;
	Elf_Scn *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh_symtab, sh_dynsym;
	size_t i, nph;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	/* a module path read from a process's maps may name a FIFO or a device by now */
	fd = rn_open_regular(mod->path, RN_ELF_MAX_FILE_BYTES);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph))
		goto out_end;
	for (i = 0; i < nph && mod->nloads < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		mod->loads[mod->nloads].offset = ph.p_offset;
		mod->loads[mod->nloads].vaddr = ph.p_vaddr;
		mod->loads[mod->nloads].filesz = ph.p_filesz;
		mod->nloads++;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			sh_symtab = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			sh_dynsym = sh;
		}
	}
	/* .symtab is a superset of .dynsym when present (static functions included) */
	if (symtab)
		read_symtab(mod, elf, symtab, &sh_symtab);
	if (!mod->nsyms && dynsym)
		read_symtab(mod, elf, dynsym, &sh_dynsym);
	if (mod->nsyms)
		qsort(mod->syms, mod->nsyms, sizeof(*mod->syms), sym_cmp);
	mod->ok = mod->nloads > 0;
out_end:
	if (elf)
		elf_end(elf);
	close(fd);
}

static struct module *module_get(struct rn_symbolizer *s, const char *path)
{
	struct module *mod;
	int i;

	for (i = 0; i < s->nmods; i++)
		if (!strcmp(s->mods[i]->path, path))
			return s->mods[i];
	if (s->nmods == MAX_MODULES)
		return NULL;
	mod = rn_xcalloc(1, sizeof(*mod));
	mod->path = rn_xstrdup(path);
	rn_buf_init(&mod->names, 0);
	load_module(mod);
	s->mods[s->nmods++] = mod;
	return mod;
}

/* The nearest symbol at or before `vaddr` whose extent (when known) holds it, or NULL. */
/* libstdc++'s demangler, the Itanium C++ ABI's __cxa_demangle (section 3.4, "Demangler API"):
 * C linkage, the result malloc'ed, *status 0 on success. */
typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

/* libstdc++ is opened at the first C++ name, not linked: its start-up (locales, iostreams)
 * would add about a megabyte to every renacer process's peak RSS, and so to the pre-exec
 * image that timing runs read a target's peak against (collectors/run.c). Debian's apt
 * needs libstdc++6, so it is there; without it names stay mangled. */
static void open_demangler(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	void *fn = h ? dlsym(h, "__cxa_demangle") : NULL;

	memcpy(&cxa_demangle, &fn, sizeof(fn)); /* POSIX: a data pointer to a function's */
}

/* Drop the return type that a function template's demangled name begins with ("int
 * ns::read<T>": ns::read<T>): the text up to the last space outside brackets, unless that space
 * is an operator's ("operator new", "operator int"). */
static void drop_return_type(char *d)
{
	char *cut = NULL;
	int depth = 0;

	for (char *p = d; *p; p++) {
		if (*p == '<' || *p == '(' || *p == '[' || *p == '{')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']' || *p == '}') && depth > 0)
			depth--;
		else if (*p == ' ' && !depth && !(p - d >= 8 && !strncmp(p - 8, "operator", 8)))
			cut = p;
	}
	if (cut)
		memmove(d, cut + 1, strlen(cut + 1) + 1);
}

/* "std::map<int, std::vector<int> >" as "std::map<int,std::vector<int>>": a folded frame
 * holds no space (collectors/profile.c turns the rest into '_'). */
static void compact_spaces(char *d)
{
	char *w = d;

	for (const char *r = d; *r; r++)
		if (!(*r == ' ' && r > d && (r[-1] == ',' || r[1] == '>')))
			*w++ = *r;
	*w = '\0';
}

char *rn_symbol_demangle(const char *name)
{
	char *d, *end;
	int status = -1;
	size_t n;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	pthread_once(&cxa_once, open_demangler);
	if (!cxa_demangle)
		return NULL;
	d = cxa_demangle(name, NULL, NULL, &status);
	if (status || !d) {
		free(d);
		return NULL;
	}
	/* the parameter list is the balanced "(...)" that ends the name, before a method's
	 * qualifiers: "node::Start(int, char**)" is node::Start, "S::operator()(int) const"
	 * S::operator(), "(anonymous namespace)::f(int)" (anonymous namespace)::f */
	n = strlen(d);
	for (;;) {
		static const char *const quals[] = { " const", " volatile", " &&", " &" };
		size_t k;

		for (k = 0; k < sizeof(quals) / sizeof(quals[0]); k++) {
			size_t q = strlen(quals[k]);

			if (n > q && !memcmp(d + n - q, quals[k], q)) {
				n -= q;
				break;
			}
		}
		if (k == sizeof(quals) / sizeof(quals[0]))
			break;
	}
	if (n && d[n - 1] == ')') {
		int depth = 0;

		for (end = d + n; end-- > d;) {
			depth += *end == ')' ? 1 : *end == '(' ? -1 : 0;
			if (!depth)
				break;
		}
		if (end > d && !depth)
			*end = '\0';
	}
	drop_return_type(d);
	compact_spaces(d);
	return d;
}

/* The name to show of symbol `sym` of `mod`: a C++ symbol demangled (once, kept in
 * mod->pretty), any other as the ELF symbol table names it. */
static const char *readable_name(struct module *mod, const struct sym *sym)
{
	const char *name = mod->names.buf + sym->name;
	size_t k = (size_t)(sym - mod->syms);

	if (strncmp(name, "_Z", 2))
		return name;
	if (!mod->pretty)
		mod->pretty = rn_xcalloc(mod->nsyms, sizeof(*mod->pretty));
	if (!mod->pretty[k])
		mod->pretty[k] = rn_symbol_demangle(name);
	if (!mod->pretty[k])
		mod->pretty[k] = rn_xstrdup(name); /* not a C++ name after all */
	return mod->pretty[k];
}

static const struct sym *sym_find(const struct module *mod, uint64_t vaddr)
{
	size_t lo = 0, hi = mod->nsyms;
	const struct sym *best;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mod->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* lo - 1 is the last symbol at or before vaddr; among aliases at that address the
	 * sort put the sized one first */
	best = &mod->syms[lo - 1];
	while (best > mod->syms && best[-1].addr == best->addr)
		best--;
	if (best->size && vaddr >= best->addr + best->size)
		return NULL;
	return best;
}

int rn_symbolize(struct rn_symbolizer *s, const struct rn_maps *m, uint64_t addr, bool is_return,
		 struct rn_frame *out)
{
	const struct rn_map *map = rn_maps_find(m, addr);
	const struct sym *sym;
	struct module *mod;
	uint64_t file_off, vaddr, look;
	int i;

	if (!map || !map->exec || !map->path || map->path[0] != '/')
		return -ENOENT;
	mod = module_get(s, map->path);
	if (!mod || !mod->ok)
		return -ENOENT;
	/* address -> file offset through the mapping, then -> vaddr through the PT_LOAD that
	 * holds that offset: this subtracts the load bias of PIE images and shared objects */
	file_off = addr - map->start + map->offset;
	for (i = 0; i < mod->nloads; i++)
		if (file_off >= mod->loads[i].offset &&
		    file_off < mod->loads[i].offset + mod->loads[i].filesz)
			break;
	if (i == mod->nloads)
		return -ENOENT;
	vaddr = file_off - mod->loads[i].offset + mod->loads[i].vaddr;
	look = is_return && vaddr ? vaddr - 1 : vaddr;
	sym = sym_find(mod, look);
	memset(out, 0, sizeof(*out));
	out->module = mod->path;
	out->vaddr = vaddr;
	if (sym) {
		out->function = readable_name(mod, sym);
		out->function_start = sym->addr;
		out->function_off = vaddr - sym->addr;
	}
	return 0;
}

int rn_symbolize_caller(struct rn_symbolizer *s, const struct rn_maps *m, const uint64_t *stack,
			size_t n, struct rn_frame *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct rn_map *map = rn_maps_find(m, stack[i]);

		if (!map || !map->exec || rn_module_is_runtime(map->path))
			continue;
		if (!rn_symbolize(s, m, stack[i], true, out))
			return 0;
	}
	return -ENOENT;
}
