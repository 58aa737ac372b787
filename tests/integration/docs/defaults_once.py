#!/usr/bin/env python3
"""defaults_once.py SOURCE_DIR | --self-test - every default number of a config key is typed
once, in the macro the code assigns.

The key tables of runner/input/config.h (X(key, type, doc) rows of the *_KEYS macros) feed
`renacer help config` and docs/config.md (docs.readme_tables). A doc string that types its
default ("(default 60)") beside the code's own constant drifts when one of them changes; the
doc writes it as "(default " RN_CFG_STR(RN_REGRESSION_MAX_RUNS) ")" instead. This reads the
string literals of every row and reports a typed default that is a number other than a bare
0 (the zero of an unset field is no constant: memset gives it). Exit 0 when none is typed,
else 1 with one line per typed default. --self-test plants one in a scratch copy and checks
that it is reported (and that a default through RN_CFG_STR is not).
"""
import os
import re
import sys
import tempfile

HEADER = "runner/input/config.h"
TYPED = re.compile(r"\(default (?!0(?![.\d]))[0-9][0-9.]*")


def tables(text):
    """(table macro, line number, joined string literals of the line) of each key-table line."""
    out = []
    name = None
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(r"#define (RN_\w+_KEYS)\(X\)", line)
        if m:
            name = m.group(1)
            continue
        if name is None:
            continue
        lits = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', line))
        out.append((name, no, lits))
        if not line.rstrip().endswith("\\"):
            name = None
    return out


def check(root):
    path = os.path.join(root, HEADER)
    with open(path) as f:
        rows = tables(f.read())
    bad = []
    # A doc string continues over lines: join each table's literals, keep the first line.
    for name, no, lits in rows:
        for m in TYPED.finditer(lits):
            bad.append("%s:%d: %s: '%s' is typed; print the code's constant with RN_CFG_STR"
                       % (HEADER, no, name, m.group(0)))
    return len(rows), bad


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "runner", "input"))
        with open(os.path.join(root, HEADER), "w") as f:
            f.write('#define RN_DEMO_KEYS(X) \\\n'
                    '\tX(a, "integer", "runs (default " RN_CFG_STR(RN_A) ")") \\\n'
                    '\tX(b, "integer", "wait (default 0; -1 accepts any)") \\\n'
                    '\tX(c, "number", "a fraction (default 0.10)") \\\n'
                    '\tX(d, "integer", "most runs (default 60)")\n'
                    'int rn_after(void); /* (default 7) outside a table */\n')
        n, bad = check(root)
    want = ["%s:4: RN_DEMO_KEYS: '(default 0.10' is typed; print the code's constant with "
            "RN_CFG_STR" % HEADER,
            "%s:5: RN_DEMO_KEYS: '(default 60' is typed; print the code's constant with "
            "RN_CFG_STR" % HEADER]
    if bad != want or n != 4:
        print("FAIL: self-test: reported %r over %d lines, expected %r" % (bad, n, want))
        return 1
    print("ok: the self-test's two typed defaults were reported, nothing else")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().split("\n")[0])
        return 2
    n, bad = check(argv[1])
    for line in bad:
        print("FAIL: " + line)
    if bad:
        return 1
    print("ok: %d lines of the key tables of %s type no default number" % (n, HEADER))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
