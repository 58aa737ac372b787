/*
 * srcloc.h - source locations (file:line, function, inlined frames) of code addresses, read
 * from DWARF debug information with libdw.
 *
 * collectors/symbolize.h turns a captured return address into a module (an ELF file) and an
 * address in the module's ELF virtual address space (`struct rn_frame.vaddr`; the load bias of
 * PIE images and shared objects is already taken off). This module maps such a (module, vaddr)
 * to source frames:
 *
 *   - the debug information is read from the module itself when it carries .debug_info, else
 *     from a separate debug file found through its GNU build-id, as
 *     DIR/.build-id/xx/yyyy...debug for each configured DIR and then /usr/lib/debug (the
 *     layout of Debian's -dbgsym packages and of `objcopy --only-keep-debug`), else through
 *     .gnu_debuglink beside the module, in its .debug/ folder and under /usr/lib/debug.
 *     Nothing is fetched over the network: debuginfod is never consulted (libdwfl, which would
 *     consult it when DEBUGINFOD_URLS is set, is not used);
 *   - the compilation unit that holds the address gives the line-table row (file, line,
 *     column) and the chain of scopes (DWARF 5 section 3.3.8: an inlined subroutine's
 *     DW_AT_call_file/DW_AT_call_line say where it was inlined), so an address inside code
 *     inlined from f() into g() yields two frames: f at the row's file:line, then g at the
 *     call site;
 *   - file names are shown relative to the compilation directory when they lie under it
 *     ("src/hosts.c"), absolute otherwise.
 *
 * Results are cached per (module, vaddr) for the life of the object, so 40,000 calls from one
 * call site cost one DWARF lookup. Not thread safe. Strings handed out are owned by the
 * object and valid until rn_srcloc_free().
 */
#ifndef RN_SRCLOC_H
#define RN_SRCLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rn_symbolizer;
struct rn_maps;
struct rn_buf;

/* Source frames kept per address, innermost (deepest inlined) first. */
#define RN_SRC_FRAMES_MAX 8

/* One source frame. */
struct rn_src_frame {
	const char *function; /* the subprogram's or inlined subroutine's name: a C++ one's
			       * DW_AT_linkage_name demangled (rn_symbol_demangle: "app::Parser::
			       * parse"), else DW_AT_name (DWARF 5, section 2.22); or NULL. Owned
			       * by the rn_srcloc */
	const char *file;     /* source file (relative to the compilation directory when under
			       * it), or NULL when the line table has no row for the address */
	int line;             /* 1-based line, 0 if unknown */
	int column;           /* 1-based column, 0 if unknown */
	bool inlined;         /* this frame's code was inlined into the next frame */
};

struct rn_srcloc;

/*
 * A new, empty resolver. `debug_dirs` is a colon-separated list of folders searched for
 * DIR/.build-id/xx/yyyy.debug before /usr/lib/debug (NULL or "" for none); copied. Dies on
 * out-of-memory. Free with rn_srcloc_free().
 */
struct rn_srcloc *rn_srcloc_new(const char *debug_dirs);
/* Free the resolver, its libdw handles and every string it handed out (NULL-safe). */
void rn_srcloc_free(struct rn_srcloc *s);

/*
 * Source frames of `vaddr` in the ELF file `module` (an absolute path), innermost first, at
 * most `max` into `out`. Give the address of the instruction itself: for a return address,
 * pass vaddr - 1 so the call instruction, not the one after it, is looked up. Returns the
 * number of frames (>= 1), 0 when the module has no debug information for the address, or a
 * negative errno when the module cannot be read (cached: a module is opened once).
 */
int rn_srcloc_lookup(struct rn_srcloc *s, const char *module, uint64_t vaddr,
		     struct rn_src_frame *out, int max);

/*
 * The source frames of a syscall's caller: the frame rn_symbolize_caller() attributes the
 * return addresses `stack` (innermost first, `n` of them) to, through the mappings `m`, then
 * rn_srcloc_lookup() at its return address minus one. Fills *fn_out with the ELF symbol's
 * frame (module, function) when the caller was found at all. Returns the number of source
 * frames (0 when the caller has no debug information), or -ENOENT when no caller was found.
 */
int rn_srcloc_caller(struct rn_srcloc *s, struct rn_symbolizer *sym, const struct rn_maps *m,
		     const uint64_t *stack, size_t n, struct rn_src_frame *out, int max,
		     const char **module_out, const char **function_out, uint64_t *vaddr_out);

/* Append "function (file:line)" for a frame (the parts that are known; "??" for a missing
 * function, the file without ":line" when the line is 0). */
void rn_src_frame_format(struct rn_buf *b, const struct rn_src_frame *f);

/*
 * Append a JSON array of frames: [{"function":"f","file":"a.c","line":3,"column":5,
 * "inlined":true},...], null for a missing function or file. Strings are escaped with
 * rn_json_add_string() (collectors/ptrace/ptrace.h).
 */
void rn_src_frames_json(struct rn_buf *b, const struct rn_src_frame *f, int n);

#endif
