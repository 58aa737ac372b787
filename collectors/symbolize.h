/*
 * symbolize.h - attribute a syscall to the code that made it.
 *
 * The ptrace collector records, for every spooled span, up to RN_SYSCALL_STACK_MAX return addresses
 * taken at the syscall-entry stop (the word at the stack pointer, then a frame-pointer walk;
 * see struct rn_syscall_event). This module turns them into "function (module+0xVADDR)":
 *
 *   - struct rn_maps is a snapshot of /proc/PID/maps (the collector takes one per process,
 *     lazily, and again at its exit stop, and keeps it in rn_process.maps);
 *   - struct rn_symbolizer maps an address through the snapshot to a module and to the
 *     module's ELF virtual address (file offset -> PT_LOAD p_vaddr, so PIE and non-PIE images
 *     and shared objects are handled alike), then to the nearest preceding STT_FUNC symbol of
 *     .symtab (or .dynsym when the module is stripped), read with libelf and cached per module
 *     path for the life of the symbolizer.
 *
 * The C runtime's own frames (libc, ld.so, libpthread, libdl, librt, the vDSO) are skipped:
 * the caller of interest is the first frame outside them. No file:line (libdw is not used).
 *
 * Not thread safe. Strings returned through struct rn_frame are owned by the symbolizer and
 * valid until rn_symbolizer_free().
 */
#ifndef RN_SYMBOLIZE_H
#define RN_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The largest ELF or separate debug file read for symbols and source lines (large programs'
 * debug files reach gigabytes). Every such file is opened with rn_open_regular
 * (util/safefile.h): a FIFO, device or socket at a module or debug-file path is
 * skipped, never waited on. */
#define RN_ELF_MAX_FILE_BYTES ((uint64_t)4 << 30)

/* One line of /proc/PID/maps. */
struct rn_map {
	uint64_t start;  /* first address */
	uint64_t end;    /* one past the last address */
	uint64_t offset; /* file offset of `start` */
	bool exec;       /* mapped executable ('x') */
	char *path;      /* backing file or pseudo name ("[stack]"), owned; NULL if anonymous */
};

/* A snapshot of one process's mappings, sorted by start (as the kernel lists them). */
struct rn_maps {
	struct rn_map *v; /* mappings, owned */
	size_t n;         /* mappings used */
};

/* Read /proc/PID/maps of `pid`. 0 and *out set (owned by the caller), or negative errno. */
int rn_maps_read(pid_t pid, struct rn_maps **out);
/* Free a snapshot (NULL-safe). */
void rn_maps_free(struct rn_maps *m);
/* The mapping that holds `addr`, or NULL. O(log n). */
const struct rn_map *rn_maps_find(const struct rn_maps *m, uint64_t addr);

/* Whether `path` is part of the C runtime (libc, ld.so, libpthread, libdl, librt) or the
 * vDSO, whose frames attribution skips. Matches on the basename. */
bool rn_module_is_runtime(const char *path);

/*
 * Whether a frame of folded stacks (collectors/profile.h) is not the program's own code: a
 * frame of the C runtime, the dynamic loader or an interpreter library, which the profile
 * tags with its module ("_IO_new_file_write [libc.so.6]", "libc.so.6+0x2a1c0"), an
 * interpreter internal by name ("_PyEval_EvalFrameDefault", "PyObject_Call": a python binary
 * that links libpython statically has no module to tell), or the kernel ("[kernel]"). A frame
 * named from a perf map ("hot (/app/a.py) [jit]": collectors/profile.h) is the program's own.
 * Explanations name the first frame outside these (runner/check/profile_check.h).
 */
bool rn_frame_is_system(const char *frame);

/* A symbolized address. */
struct rn_frame {
	const char *module;      /* path of the module, owned by the symbolizer */
	const char *function;    /* name of the enclosing STT_FUNC symbol (a C++ one demangled,
				  * rn_symbol_demangle), owned by the symbolizer, or NULL when
				  * the module has no symbol for it */
	uint64_t vaddr;          /* the address in the module's ELF virtual address space */
	uint64_t function_off;   /* vaddr minus the function's start (0 when function is NULL) */
	uint64_t function_start; /* the function's start vaddr (0 when function is NULL) */
};

struct rn_symbolizer;

/*
 * The readable name of C++ symbol `name` (mangled by the Itanium C++ ABI, section 5.1
 * "External Names": "_Z..."), demangled by libstdc++'s __cxa_demangle (libstdc++.so.6, opened
 * at the first call; thread-safe) without its parameter
 * list (and a method's const/volatile/ref qualifiers): "_ZN4node5StartEiPPc" is "node::Start",
 * "_ZNK1S4sizeEv" "S::size". Owned by the caller (free()); NULL when `name` is not a mangled
 * C++ name, does not demangle, or libstdc++ cannot be opened.
 */
char *rn_symbol_demangle(const char *name);

/* A new, empty symbolizer (dies on out-of-memory). Free with rn_symbolizer_free(). */
struct rn_symbolizer *rn_symbolizer_new(void);
/* Free a symbolizer and every string it handed out (NULL-safe). */
void rn_symbolizer_free(struct rn_symbolizer *s);

/*
 * Attribute a syscall: the first of the `n` return addresses `stack` (innermost first) that
 * symbolizes to a module outside the C runtime (rn_module_is_runtime). Returns 0 and fills
 * `out`, or -ENOENT when none does.
 */
int rn_symbolize_caller(struct rn_symbolizer *s, const struct rn_maps *m, const uint64_t *stack,
			size_t n, struct rn_frame *out);

/* Parse 1 to 16 hex digits (no "0x") at *p into *out and move *p past them (/proc/PID/maps
 * fields, perf map addresses). false, with *p and *out unchanged, without a digit or with more
 * than 16. */
bool rn_parse_hex(const char **p, uint64_t *out);

#endif
