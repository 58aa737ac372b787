/*
 * elf_id.c - ELF identity of exec'd binaries (e_machine, GNU build-id, .bss size) through
 * libelf, cached by path: a build that runs the same compiler a thousand times reads its ELF
 * header once. Shared by the run loop, the ptrace and the eBPF collectors (elf_id.h).
 */
#include "elf_id.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

struct elf_entry {
	char *path;         /* key, owned */
	uint16_t machine;   /* e_machine, 0 if unknown */
	char build_id[41];  /* lowercase hex, "" if none */
	uint64_t zero_fill; /* sum of p_memsz - p_filesz over PT_LOAD, bytes */
	int rc;             /* 0 or the negative errno of the first attempt */
};

struct rn_elf_cache {
	struct elf_entry *v; /* entries, linear (a run execs few distinct binaries) */
	size_t n, cap;
};

static void hex(char *out, size_t out_size, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (n > (out_size - 1) / 2)
		n = (out_size - 1) / 2;
	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* First NT_GNU_BUILD_ID note of owner "GNU" in the PT_NOTE segments. */
static void read_build_id(Elf *e, char *out)
{
	size_t i, nph;

	if (elf_getphdrnum(e, &nph))
		return;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
				hex(out, 41, (const unsigned char *)d->d_buf + desc_off,
				    nh.n_descsz);
				return;
			}
		}
	}
}

/* Zero-filled bytes of the PT_LOAD segments (the .bss the kernel maps at exec). */
static uint64_t read_zero_fill(Elf *e)
{
	uint64_t sum = 0;
	size_t i, nph;

	if (elf_getphdrnum(e, &nph))
		return 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_memsz > ph.p_filesz)
			sum += ph.p_memsz - ph.p_filesz;
	}
	return sum;
}

static int identify(const char *path, uint16_t *machine, char *build_id, uint64_t *zero_fill)
{
	GElf_Ehdr eh;
	Elf *e;
	int fd, rc = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		rc = -ENOEXEC;
		goto out_end;
	}
	*machine = eh.e_machine;
	read_build_id(e, build_id);
	*zero_fill = read_zero_fill(e);
out_end:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* Append the distinct strings of .comment data d[0..n) to out[cap] ("; " between them). */
static void join_comments(const char *d, size_t n, char *out, size_t cap)
{
	size_t i = 0, len = 0;

	out[0] = '\0';
	while (i < n) {
		const char *s = d + i;
		size_t sl = strnlen(s, n - i);

		i += sl + 1;
		if (!sl || sl >= cap)
			continue;
		/* the same compiler string comes from every object file it built */
		if (len && (strstr(out, s) != NULL))
			continue;
		if (len + (len ? 2 : 0) + sl >= cap)
			break;
		if (len) {
			memcpy(out + len, "; ", 2);
			len += 2;
		}
		memcpy(out + len, s, sl);
		len += sl;
		out[len] = '\0';
	}
}

int rn_elf_compiler(const char *path, char *out, size_t cap)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;
	int fd, rc = -ENOENT;

	if (cap)
		out[0] = '\0';
	if (!cap || elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		rc = -ENOEXEC;
		goto out_end;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".comment"))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size) {
			join_comments(d->d_buf, d->d_size, out, cap);
			rc = out[0] ? 0 : -ENOENT;
		}
		break;
	}
out_end:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* The cache entry of `path`, read on first use. */
static const struct elf_entry *lookup(struct rn_elf_cache **cache, const char *path)
{
	struct rn_elf_cache *c = *cache;
	struct elf_entry *en;
	size_t i;

	if (!c) {
		c = rn_xcalloc(1, sizeof(*c));
		*cache = c;
	}
	for (i = 0; i < c->n; i++) {
		if (!strcmp(c->v[i].path, path)) {
			return &c->v[i];
		}
	}
	c->v = rn_xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	en = &c->v[c->n++];
	memset(en, 0, sizeof(*en));
	en->path = rn_xstrdup(path);
	en->rc = identify(path, &en->machine, en->build_id, &en->zero_fill);
	return en;
}

int rn_elf_identify(struct rn_elf_cache **cache, const char *path, uint16_t *machine,
		    char build_id[41])
{
	const struct elf_entry *en = lookup(cache, path);

	*machine = en->machine;
	memcpy(build_id, en->build_id, sizeof(en->build_id));
	return en->rc;
}

int rn_elf_zero_fill(struct rn_elf_cache **cache, const char *path, uint64_t *bytes)
{
	const struct elf_entry *en = lookup(cache, path);

	*bytes = en->zero_fill;
	return en->rc;
}

void rn_elf_cache_free(struct rn_elf_cache *cache)
{
	size_t i;

	if (!cache)
		return;
	for (i = 0; i < cache->n; i++)
		free(cache->v[i].path);
	free(cache->v);
	free(cache);
}
