#!/usr/bin/env python3
"""private_decls.py [--count] [--tests] [--all] [SOURCE_DIR] - functions a public header declares that
no other folder calls: candidates for the folder's internal.h (docs/layout.md, "Layers";
CONVENTIONS.md: "the public header only what other folders call").

A report, not a test. For each header under util/, collectors/ (and its collector folders),
assertions/ and runner/<layer>/ that is not folder-private (internal.h, *_internal.h), every
function prototype at the start of a line (rn_*) is looked up, as a whole word, in the C
sources of the tree outside the header's own folder. A function found nowhere else is listed
as "folder:header: name". The unit tests and fuzzers (tests/unit, tests/fuzz) include private
headers by design and do not count as a use unless --tests is given. The Vulkan layer and
the CUDA injection library run inside the target and are left out. Only headers that another
folder includes are read: a module header included from its own folder alone is private in
effect (--all reads those too). --count prints only the number. Exit 0 always.
"""
import os
import re
import sys

ROOTS = ["util", "collectors", "assertions", "runner", "tests", "tools"]
SKIP = ("collectors/vulkan/layer", "collectors/cuda/inject")
PROTO = re.compile(r"^(?!typedef|static|#|\s)[A-Za-z_][^;{}()#=]*?\b(rn_\w+)\s*\([^;{}]*\)"
                   r"[^;{}]*;", re.M)
WORD = re.compile(r"\brn_\w+\b")


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    # Drop preprocessor lines with their continuations (X-macro tables hold no prototypes).
    return re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)


def sources(top):
    for root in ROOTS:
        for d, _, files in os.walk(os.path.join(top, root)):
            rel = os.path.relpath(d, top)
            if rel.startswith("build") or rel.startswith(SKIP):
                continue
            for f in files:
                if f.endswith((".c", ".h", ".cc", ".cpp")):
                    yield os.path.join(rel, f)


INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:[^"]*/)?([^"/]+)"', re.M)


def private(top, with_tests, all_headers=False):
    files = list(sources(top))
    uses = {}      # name -> set of folders where it appears
    includers = {}  # header base name -> set of folders that include it
    for path in files:
        folder = os.path.dirname(path)
        if not with_tests and path.startswith(("tests/unit/", "tests/fuzz/")):
            continue
        with open(os.path.join(top, path), errors="replace") as fh:
            text = fh.read()
        for base in INCLUDE.findall(text):
            includers.setdefault(base, set()).add(folder)
        for name in set(WORD.findall(strip(text))):
            uses.setdefault(name, set()).add(folder)
    out = []
    for path in sorted(files):
        folder, base = os.path.split(path)
        if not path.endswith(".h") or path.startswith("tests/"):
            continue
        if base == "internal.h" or base.endswith("_internal.h"):
            continue
        # A module header that no other folder includes is private in effect (a layer's
        # module headers beside its one public header): listed only with --all.
        if not all_headers and not includers.get(base, set()) - {folder}:
            continue
        with open(os.path.join(top, path), errors="replace") as fh:
            text = strip(fh.read())
        for m in PROTO.finditer(text):
            name = m.group(1)
            if not uses.get(name, set()) - {folder}:
                out.append("%s: %s" % (path, name))
    return out


def main(argv):
    count = "--count" in argv
    with_tests = "--tests" in argv
    args = [a for a in argv if not a.startswith("--")]
    top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "..", "..", "..")
    out = private(top, with_tests, "--all" in argv)
    if count:
        print(len(out))
    else:
        for line in out:
            print(line)
        print("%d folder-private functions in public headers" % len(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
