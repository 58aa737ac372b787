#!/usr/bin/env python3
"""layers.py SOURCE_DIR | layers.py --self-test - the include rules of docs/layout.md
("Layers"), checked.

Each source folder is a layer (one static library each, runner/CMakeLists.txt); a file may
include headers of its own layer and of the layers below it, never of a layer above:

    util < collectors < assertions < input < {report, history} < check < cli

(report and history are siblings: neither includes the other; util = util/, input = runner/input, report = runner/report, history = runner/history,
check = runner/check, cli = runner/cli). A source file straight under runner/ belongs to no
layer and is a breach. Includes are resolved by path, as the compiler does: the
including file's folder first, then the include folders its library gets from the build
(INCLUDE_ROOTS, in CMake's order), so "clock.h" in collectors/cuda/ is collectors/cuda/clock.h
and "ptrace/internal.h" is collectors/ptrace/internal.h. An include that resolves to no file of
the tree (a system or generated header) is not checked; one that resolves only outside the
file's include folders (reachable through a relative path, or not at all) is a breach when it
names a header of the tree.

More rules of the architecture:
  - a folder-private header (internal.h, *_internal.h) is included only from its own folder
    and the folders below it;
  - a specific collector (a folder under collectors/: ptrace, ebpf, vulkan, cuda, app,
    cachegrind; each row of RN_COLLECTORS in collectors/collector.h must have one) is reached from
    outside its folder only by the registries (collectors/registry.c, collectors/driver.c),
    the engine and the commands (runner/check, runner/cli), and only through its public
    header <name>/<name>.h (ptrace/drivers.h for the loop registry): not by another collector, the
    run loop, the trace model, the assertions, input, reports or history;
  - collectors/run.c (the event loop) and the trace model (collectors/trace.c, trace.h)
    include no header of a specific collector.
The Vulkan layer and the CUDA injection library run inside the target and are left out.
Exit 0 when every rule holds, else 1 with one line per breach. --self-test plants breaches in
a scratch tree and checks that each is reported (and that a clean tree passes).
"""
import os
import re
import shutil
import sys
import tempfile

# Each layer and the layers right below it (runner/CMakeLists.txt; layer_links.py checks the
# libraries' links): a file may include headers of its own layer and of every layer under it.
LOWER = {"util": [], "collectors": ["util"], "assertions": ["collectors"], "input": ["assertions"],
         "report": ["input"], "history": ["input"], "check": ["report", "history"],
         "cli": ["check"]}
ORDER = list(LOWER)
RUNNER_LAYERS = ("input", "report", "history", "check", "cli")


def below(name):
    """The layers under `name`, nearest first (the include folders' order)."""
    out, todo = [], list(LOWER[name])
    while todo:
        x = todo.pop(0)
        if x not in out:
            out.append(x)
            todo += LOWER[x]
    return out


# The specific collectors are the folders under collectors/ (one per collector: those of the
# RN_COLLECTORS table in collectors/collector.h, and cachegrind, the Valgrind run), read from
# the tree: nothing here lists them. A row of the table without its folder is a breach.
COLLECTOR_TABLE = "collectors/collector.h"


def specific_collectors(root):
    """The names of the folders under collectors/, sorted."""
    top = os.path.join(root, "collectors")
    return tuple(sorted(n for n in os.listdir(top) if os.path.isdir(os.path.join(top, n))))


def table_collectors(root):
    """The collector names of the rows of RN_COLLECTORS (X(name, ID, "what it records"))."""
    with open(os.path.join(root, COLLECTOR_TABLE), errors="replace") as fh:
        text = fh.read()
    names = []
    for macro in ("RN_TARGET_COLLECTORS", "RN_DRIVER_COLLECTORS"):
        m = re.search(r"#define " + macro + r"\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
        if m:
            names += re.findall(r"\bX\((\w+),\s*\w+,", m.group(1))
    return names
# The include folders of each layer's library (runner/CMakeLists.txt and the folders' own):
# its own folder, then those of the libraries it links, in link order (each layer links the
# one below it, which brings the rest).
_FOLDER = {"util": "util", "collectors": "collectors", "assertions": "assertions",
           "input": "runner/input", "report": "runner/report", "history": "runner/history",
           "check": "runner/check", "cli": "runner/cli"}
INCLUDE_ROOTS = {name: [_FOLDER[n] for n in [name] + below(name)] for name in ORDER}
REGISTRIES = ("collectors/registry.c", "collectors/driver.c")
LOOP_AND_MODEL = ("collectors/run.c", "collectors/trace.c", "collectors/trace.h")


def layer(folder):
    for name in RUNNER_LAYERS:
        if folder == "runner/" + name or folder.startswith("runner/" + name + "/"):
            return name
    if folder == "util" or folder.startswith("util/"):
        return "util"
    if folder.startswith("collectors/vulkan/layer") or folder.startswith("collectors/cuda/inject"):
        return None
    if folder == "collectors" or folder.startswith("collectors/"):
        return "collectors"
    if folder == "assertions" or folder.startswith("assertions/"):
        return "assertions"
    return None


def collector_of(path, specific):
    """The specific collector a file belongs to ("ptrace"), or None."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == "collectors" and parts[1] in specific:
        return parts[1]
    return None


def under(path, folder):
    return path.startswith(folder + "/")


def resolve(root, f, inc, roots, tree):
    """The tree path `#include "inc"` in file `f` names, and whether the build reaches it."""
    for base in [os.path.dirname(f)] + roots:
        cand = os.path.normpath(os.path.join(base, inc))
        if cand in tree:
            return cand, True
    # Not reachable through the include folders: a header of the tree with that path or
    # name is a breach of the layer's reach (it compiles only through a relative path, or not).
    tail = "/" + inc.lstrip("./")
    for t in sorted(tree):
        if t.endswith(tail) or t == inc:
            return t, False
    return None, False


def check(root):
    files = []
    for top in ("util", "runner", "collectors", "assertions"):
        for dp, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    files.append(os.path.relpath(os.path.join(dp, n), root).replace(os.sep, "/"))
    tree = set(files)
    breaches = []
    checked = 0
    specific = specific_collectors(root)
    table = table_collectors(root)
    if not table:
        breaches.append(f"{COLLECTOR_TABLE}: no row of RN_COLLECTORS found")
    for name in table:
        if name not in specific:
            breaches.append(f"{COLLECTOR_TABLE}: collector '{name}' has no folder "
                            f"collectors/{name}/")
    for f in sorted(files):
        src = layer(os.path.dirname(f))
        if os.path.dirname(f) == "runner":
            breaches.append(f"{f}: straight under runner/, in no layer's folder (input, report, "
                            "history, check, cli)")
        if src is None:
            continue
        with open(os.path.join(root, f), errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                hdr, reachable = resolve(root, f, m.group(1), INCLUDE_ROOTS[src], tree)
                if hdr is None:
                    continue
                checked += 1
                where = f"{f}:{lineno}"
                dst = layer(os.path.dirname(hdr))
                if dst is not None and dst != src and dst not in below(src):
                    rel = "a layer above" if src in below(dst) else "a sibling layer"
                    breaches.append(f"{where}: {src} includes {hdr} ({dst}, {rel})")
                elif not reachable:
                    breaches.append(f"{where}: includes {hdr}, outside the include folders "
                                    f"of {src}")
                base = os.path.basename(hdr)
                if base == "internal.h" or base.endswith("_internal.h"):
                    own = os.path.dirname(hdr)
                    if os.path.dirname(f) != own and not under(f, own):
                        breaches.append(f"{where}: includes {hdr}, private to {own}/")
                coll = collector_of(hdr, specific)
                if coll and collector_of(f, specific) != coll:
                    public = (f"collectors/{coll}/{coll}.h", "collectors/ptrace/drivers.h")
                    if f in LOOP_AND_MODEL:
                        breaches.append(f"{where}: includes {hdr}, a specific collector's "
                                        "header (the loop and the trace model reach "
                                        "collectors through their ops tables)")
                    elif not (f in REGISTRIES or src in ("check", "cli")):
                        breaches.append(f"{where}: includes {hdr}: only the registries and "
                                        "the commands reach a specific collector")
                    elif hdr not in public:
                        breaches.append(f"{where}: includes {hdr}, not the public header of "
                                        f"collectors/{coll}/")
    return checked, breaches


PLANTS = [
    # (file, include line, expected words of the breach)
    ("assertions/evaluate.c", '#include "ptrace/ptrace.h"', "only the registries"),
    ("collectors/ebpf/ebpf.c", '#include "ptrace/internal.h"', "private to collectors/ptrace/"),
    ("collectors/run.c", '#include "cuda/clock.h"', "a specific collector's header"),
    ("assertions/stats.c", '#include "../runner/input/config.h"', "a layer above"),
    ("util/buf.c", '#include "history.h"', "a layer above"),
    ("runner/cli/cmd_diff.c", '#include "vulkan/load.h"', "not the public header"),
    ("runner/report/junit.c", '#include "check.h"', "a layer above"),
    ("runner/history/history.c", '#include "reporter.h"', "a layer above"),
    ("runner/check/baseline.c", '#include "cmd_trace.h"', "a layer above"),
    ("runner/input/config.c", '#include "otlp.h"', "a layer above"),
    ("assertions/stats.c", '#include "app/renacer_span.h"', "only the registries"),
    ("runner/history/history.c", '#include "console.h"', "a sibling layer"),
    ("runner/report/junit.c", '#include "ledger.h"', "a sibling layer"),
]
# A file planted straight under runner/ (no layer's folder) is reported as such.
LOOSE_PLANT = ("runner/loose.c", "in no layer's folder")
# A row planted in the collector table without its folder is reported.
ROW_PLANT = ("#define RN_DRIVER_COLLECTORS(X)", '\tX(planted, PLANTED, "no folder")',
             "collector 'planted' has no folder")


def self_test():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.normpath(os.path.join(here, "..", "..", ".."))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for top in ("util", "runner", "collectors", "assertions"):
            shutil.copytree(os.path.join(src, top), os.path.join(tmp, top),
                            ignore=shutil.ignore_patterns("*.md", "*.cmake", "*.txt", "*.cu"))
        checked, clean = check(tmp)
        if clean:
            print("self-test: the tree is not clean to begin with:")
            for b in clean:
                print("  " + b)
            return 1
        for f, inc, words in PLANTS:
            path = os.path.join(tmp, f)
            with open(path) as fh:
                orig = fh.read()
            with open(path, "w") as fh:
                fh.write(inc + "\n" + orig)
            _, found = check(tmp)
            with open(path, "w") as fh:
                fh.write(orig)
            hit = [b for b in found if b.startswith(f + ":1:") and words in b]
            if not hit:
                print(f"self-test: FAIL: {inc} planted in {f} was not reported ({words!r}); "
                      f"got: {found}")
                failures += 1
        f, words = LOOSE_PLANT
        with open(os.path.join(tmp, f), "w") as fh:
            fh.write('#include "buf.h"\n')
        _, found = check(tmp)
        os.remove(os.path.join(tmp, f))
        if not [b for b in found if b.startswith(f + ":") and words in b]:
            print(f"self-test: FAIL: {f} planted was not reported ({words!r}); got: {found}")
            failures += 1
        macro, row, words = ROW_PLANT
        path = os.path.join(tmp, COLLECTOR_TABLE)
        with open(path) as fh:
            orig = fh.read()
        at = orig.index("\n", orig.index(macro)) + 1
        with open(path, "w") as fh:
            fh.write(orig[:at] + row + " \\\n" + orig[at:])
        if table_collectors(tmp)[-2:] != ["planted", "ebpf"]:
            print(f"self-test: FAIL: the planted row was not read: {table_collectors(tmp)}")
            failures += 1
        _, found = check(tmp)
        with open(path, "w") as fh:
            fh.write(orig)
        if not [b for b in found if words in b]:
            print(f"self-test: FAIL: {row} planted was not reported ({words!r}); got: {found}")
            failures += 1
    print(f"layers self-test: {len(PLANTS) + 2} planted breaches, {failures} missed")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    checked, breaches = check(sys.argv[1])
    for b in breaches:
        print(b)
    print(f"layers: {checked} includes checked, {len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
