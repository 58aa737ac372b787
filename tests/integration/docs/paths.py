#!/usr/bin/env python3
"""paths.py SOURCE_DIR | --self-test - no dead file path in the docs or in C comments.

git's lint-gitlink for this tree: a file moved or renamed leaves its old path behind in prose
("the engine: runner/check/judging.c") where no link check sees it. This reads the Markdown
pages (README.md, docs/*.md, runner/INTERNALS.md and every other tracked *.md) and the comments
of every *.c and *.h file, and picks out the words that look like paths of this tree: a
slash-separated word whose last part has a source extension (.c .h .md .sh .py .cmake .yml
.map .in, or CMakeLists.txt), optionally followed by :LINE. A path is dead when its first
folder exists here (beside the file, in a folder above it, at the top, or under runner/,
collectors/, assertions/ or tests/, the bases prose counts from) and the whole path exists
under none of them. A path whose first folder is not one of this tree (a user's src/jv.c, an
installed usr/share/...) is about another tree and is left alone, as are absolute paths,
globs and placeholders (<name>, $VAR, {a,b}, ...).
--self-test plants a dead path in a Markdown page and in a C comment of a scratch tree (and
live ones, relative to each base, and a path of another tree) and checks that exactly the two
dead ones are reported. Exit 0 = no dead path, 1 = some.
"""
import os
import re
import subprocess
import sys
import tempfile

EXTS = (".c", ".h", ".md", ".sh", ".py", ".cmake", ".yml", ".map", ".in")
# A word of path characters with at least one slash; the caller trims and filters it.
WORD = re.compile(r"(?<![\w./$<{~-])((?:\.\./|\./)*[A-Za-z0-9_][\w.+-]*(?:/[\w.+-]+)+/?)"
                  r"(?::\d+)?")
BASES = ("util", "runner", "collectors", "assertions", "tests")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def c_comments(text):
    """(line number, text) of each line of the comments of a C file (strings skipped)."""
    for m in COMMENT.finditer(text):
        if m.group(0)[0] in "\"'":
            continue
        first = text.count("\n", 0, m.start()) + 1
        for i, line in enumerate(m.group(0).split("\n")):
            yield first + i, line


def md_lines(text):
    """(line number, line) of every line of a Markdown page, code blocks included: a path in
    an example command must exist as much as one in prose."""
    return enumerate(text.splitlines(), 1)


def looks_like_path(word):
    base = os.path.basename(word.rstrip("/"))
    if word.endswith("/"):
        return False
    return base == "CMakeLists.txt" or base.endswith(EXTS)


def bases_of(root, where):
    """The folders a path written in file `where` may count from, nearest first."""
    out = []
    d = os.path.dirname(os.path.join(root, where))
    while True:
        out.append(d)
        if os.path.samefile(d, root) or len(d) <= len(root):
            break
        d = os.path.dirname(d)
    out += [os.path.join(root, b) for b in BASES]
    return out


def dead(root, where, word):
    """True when `word` names a file of this tree that is not there."""
    first = word.split("/")[0]
    relevant = False
    for base in bases_of(root, where):
        if first in (".", ".."):
            relevant = True
        elif not os.path.isdir(os.path.join(base, first)):
            continue
        relevant = True
        if os.path.exists(os.path.normpath(os.path.join(base, word))):
            return False
    return relevant


def tracked(root):
    """The tracked files (git ls-files), or every file when root is not a git checkout."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x != "build"]
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(files)


def check(root):
    """The dead paths under root, as 'file:line: path: no such file', and the files read."""
    bad, read = [], 0
    for rel in tracked(root):
        if rel.endswith(".md"):
            lines = md_lines
        elif rel.endswith((".c", ".h")):
            lines = c_comments
        else:
            continue
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        read += 1
        for n, line in lines(text):
            for m in WORD.finditer(line):
                word = m.group(1).rstrip(".")
                if any(c in line[m.end():m.end() + 1] for c in "*{<$"):
                    continue  # a glob or a placeholder goes on past the word
                if not looks_like_path(word) or not dead(root, rel, word):
                    continue
                bad.append("%s:%d: %s: no such file" % (rel, n, word))
    return read, bad


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for d in ("docs", "runner/check", "collectors/ptrace", "tests"):
            os.makedirs(os.path.join(root, d))
        for f in ("runner/check/check.c", "collectors/ptrace/ptrace.c", "runner/INTERNALS.md"):
            open(os.path.join(root, f), "w").close()
        with open(os.path.join(root, "docs", "a.md"), "w") as f:
            f.write("# A\n\nThe engine is runner/check/check.c; the probes were in\n"
                    "runner/check/judging.c. Your src/jv.c:123, /usr/lib/x.so, docs/*.md,\n"
                    "`collectors/<name>/sources.cmake` and ../runner/INTERNALS.md.\n")
        with open(os.path.join(root, "runner", "check", "check.c"), "w") as f:
            f.write("/* see check/check.c and ptrace/ptrace.c:12, ../INTERNALS.md */\n"
                    "static const char *s = \"check/gone.c\";\n"
                    "// the old name: collectors/ptrace/tracer.c\n")
        _, bad = check(root)
    want = ["docs/a.md:4: runner/check/judging.c: no such file",
            "runner/check/check.c:3: collectors/ptrace/tracer.c: no such file"]
    if bad != want:
        print("FAIL: self-test: reported %r, expected %r" % (bad, want))
        return 1
    print("ok: the self-test's two dead paths were reported, nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    read, bad = check(os.path.abspath(sys.argv[1]))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        return 1
    print("ok: every path of this tree named in %d pages and C files exists" % read)
    return 0


if __name__ == "__main__":
    sys.exit(main())
