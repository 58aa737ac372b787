/*
 * elf_id.h - the ELF identity of an executable (collectors/elf_id.c), used by the ptrace and
 * eBPF collectors at each exec and by the run loop for a root it does not trace.
 */
#ifndef RN_ELF_ID_H
#define RN_ELF_ID_H

#include <stddef.h>
#include <stdint.h>

/*
 * ELF identity of an executable: e_machine and the GNU build-id as lowercase hex ("" if none).
 * Results are cached by path for the life of the cache, so a fork-exec-heavy tree reads each
 * binary once. `path` is opened as given (use /proc/PID/exe's target). Returns 0, or negative
 * errno (the outputs are then zero/empty and the failure is cached too).
 */
struct rn_elf_cache;
int rn_elf_identify(struct rn_elf_cache **cache, const char *path, uint16_t *machine,
		    char build_id[41]);
/*
 * Zero-filled bytes of an executable's loadable segments (the sum over PT_LOAD of p_memsz -
 * p_filesz: its .bss), which the kernel maps anonymously at exec without a syscall the tracer
 * could see. Same cache as rn_elf_identify (one read per binary). Returns 0 with *bytes set,
 * or negative errno with *bytes = 0.
 */
int rn_elf_zero_fill(struct rn_elf_cache **cache, const char *path, uint64_t *bytes);
/*
 * The compilers that built the executable at `path`: the distinct NUL-separated strings of its
 * .comment section ("GCC: (Debian 12.2.0-14) 12.2.0"), joined by "; ", into out[cap]. Not
 * cached (read once per target). Returns 0, -ENOENT when the file has no .comment (stripped
 * of it, or not built by a compiler that writes one: out is then ""), or another negative errno.
 */
int rn_elf_compiler(const char *path, char *out, size_t cap);
/* Free a cache made by rn_elf_identify (NULL-safe). */
void rn_elf_cache_free(struct rn_elf_cache *cache);

#endif
