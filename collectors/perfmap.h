/*
 * perfmap.h - names of just-in-time compiled code, read from a process's perf map.
 *
 * A runtime that compiles code into anonymous executable memory has no ELF file to name it
 * from. Many write what they compiled to `/tmp/perf-PID.map` instead, one line per code region
 * (Linux perf, tools/perf/Documentation/jit-interface.txt):
 *
 *     START SIZE name
 *
 * START and SIZE in hex (with or without "0x"), the name the rest of the line (it may hold
 * spaces). Writers: Node.js (`node --perf-basic-prof`: "JS:*hotLoop file:///app/a.js:3:1",
 * "LazyCompile:*hotLoop /app/a.js:3" before V8 11), CPython 3.12+ (`python3 -X perf`,
 * PYTHONPERFSUPPORT=1: "py::hot:/app/a.py", one trampoline per Python function), the JVM's
 * perf agents, LuaJIT, .NET (DOTNET_PerfMapEnabled=1) and others.
 *
 * The file is the user's: it is only read (O_NOFOLLOW, O_NONBLOCK, a regular file), never
 * changed or removed. It is trusted only when owned by the reading user or root (perf's rule:
 * anyone can write /tmp) and when its mtime is not older than the run's start: a file of
 * an earlier process with the same pid (pid reuse) names other code. At most
 * RN_PERFMAP_MAX_BYTES are read (whole lines); malformed lines (no hex start or size, a size of
 * 0, no name, a region that wraps around) are skipped. Regions may overlap (code freed and
 * compiled again at the same address): the lookup answers the region that starts last at or
 * before the address and holds it, and of regions that start at the same address the one
 * written last.
 *
 * Not thread safe. Names are owned by the map and valid until rn_perfmap_free().
 */
#ifndef RN_PERFMAP_H
#define RN_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The most bytes of a perf map read (a long-running Node.js process writes one line per
 * compiled function, some 100 bytes each); the lines past it are not read. */
#define RN_PERFMAP_MAX_BYTES (64u << 20)

struct rn_perfmap;

/* Parse perf map text text[len] (need not be NUL-terminated). Returns a new map, possibly
 * empty, owned by the caller (rn_perfmap_free). Dies on out-of-memory (the names' buffer,
 * which may fail, ends the parse: the regions before it stay). */
struct rn_perfmap *rn_perfmap_parse(const char *text, size_t len);

/*
 * Read the perf map at `path` (rn_perfmap_path gives a pid's). 0 and *out set (owned by the
 * caller), or: -ENOENT (no file), -ELOOP (a symbolic link), -EINVAL (not a regular file),
 * -EPERM (owned by another user than the caller and root), -ESTALE (modified before
 * `not_before_ns`, CLOCK_REALTIME ns: the file of an earlier process of that pid), or another
 * negative errno. Dies on out-of-memory.
 */
int rn_perfmap_read(const char *path, uint64_t not_before_ns, struct rn_perfmap **out);

/* "/tmp/perf-PID.map" of `pid` into buf[cap]. */
void rn_perfmap_path(pid_t pid, char *buf, size_t cap);

/* The name of the region that holds `addr` ([START, START + SIZE)), owned by the map, or NULL.
 * O(log n) plus the overlapping regions passed by. NULL-safe. */
const char *rn_perfmap_lookup(const struct rn_perfmap *m, uint64_t addr);

/* Regions held (malformed lines not counted). */
size_t rn_perfmap_count(const struct rn_perfmap *m);

/* Free a map (NULL-safe). */
void rn_perfmap_free(struct rn_perfmap *m);

/* Below: the maps of a run's processes, each read once, when first asked. */
struct rn_perfmaps;

/* A new, empty set that trusts files modified at or after `not_before_ns` (CLOCK_REALTIME ns,
 * the run's start: rn_perfmap_now); `root` (copied; NULL: none), the run's working directory as
 * an absolute path, for rn_perfmap_frame_name. Dies on out-of-memory. */
struct rn_perfmaps *rn_perfmaps_new(uint64_t not_before_ns, const char *root);
/* The set's root (rn_perfmaps_new), or NULL. */
const char *rn_perfmaps_root(const struct rn_perfmaps *s);
/* The name of the JIT region of process `pid` (its thread group id) that holds `addr`, from
 * /tmp/perf-PID.map read on the first call for `pid` (a missing or untrusted file answers NULL
 * for that pid from then on); owned by the set, valid until rn_perfmaps_free(). */
const char *rn_perfmaps_lookup(struct rn_perfmaps *s, pid_t pid, uint64_t addr);
/* Free the set and its maps (NULL-safe). */
void rn_perfmaps_free(struct rn_perfmaps *s);

/* The realtime clock as file timestamps read it (CLOCK_REALTIME_COARSE: the kernel stamps
 * files from the coarse clock, which may lag CLOCK_REALTIME by a tick), ns. */
uint64_t rn_perfmap_now(void);

/*
 * How a perf map name reads as a folded-stack frame (collectors/profile.h), into buf[cap]:
 * CPython's trampoline "py::NAME:FILE" as "NAME (FILE)"; V8's "KIND:[*~^+]NAME LOCATION"
 * ("JS:*hotLoop file:///app/a.js:3:1") as "NAME (LOCATION)" without the tier mark and the
 * "file://" scheme ("hotLoop (/app/a.js:3:1)"), so a function's samples stay one item across
 * tiers; V8's other kinds ("Builtin:ArrayPush") and other runtimes' names as written. A file
 * under `root` (an absolute directory, or NULL) reads relative to it, so the same function in
 * two checkouts (a head tree and its base) is one frame: "hotLoop (a.js:3:1)". The profile
 * adds its " [jit]" marker after it. Returns buf.
 */
char *rn_perfmap_frame_name(const char *name, const char *root, char *buf, size_t cap);

#endif
