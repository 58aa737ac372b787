#!/usr/bin/env python3
"""defaults_once.py SOURCE_DIR | --self-test - every default number of a config key or of a
command-line option is typed once, in the macro the code assigns.

The key tables of runner/input/config.h (X(key, type, doc) rows of the *_KEYS macros) feed
`renacer help config` and docs/config.md (docs.readme_tables). A doc string that types its
default ("(default 60)") beside the code's own constant drifts when one of them changes; the
doc writes it as "(default " RN_CFG_STR(RN_REGRESSION_MAX_RUNS) ")" instead. This reads the
string literals of every row and reports a typed default that is a number other than a bare
0 (the zero of an unset field is no constant: memset gives it). The help strings of the
command-line options (the rows of each `struct rn_option` table in runner/cli/*.c and the
RN_*_OPTIONS(X) row macros of runner/check/report_opts.h, which feed --help and the man
page) are read the same way: "(default 50" or "(changes: default 500" typed there is
reported too. Exit 0 when none is typed, else 1 with one line per typed default. --self-test
plants one in a key table and one in an option table of a scratch copy and checks that both
are reported (and that a default through RN_CFG_STR is not).
"""
import os
import re
import sys
import tempfile

HEADER = "runner/input/config.h"
TYPED = re.compile(r"\(default (?!0(?![.\d]))[0-9][0-9.]*")
# In option help a default may follow a qualifier: "(changes: default 500)".
TYPED_OPTION = re.compile(r"\bdefault (?!0(?![.\d]))[0-9][0-9.]*")
OPTION_DIRS = ["runner/cli"]
OPTION_FILES = ["runner/check/report_opts.h"]


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


def option_rows(text):
    """(table name, line number, string literals of the line) of each line of an option table:
    a `struct rn_option NAME[] = {` array up to its `};`, or an RN_*_OPTIONS(X) row macro."""
    out = []
    name = None
    macro = False
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(r"(?:static )?const struct rn_option (\w+)\[\]", line)
        if m:
            name, macro = m.group(1), False
            continue
        m = re.match(r"#define (RN_\w+_OPTIONS)\(X\)", line)
        if m:
            name, macro = m.group(1), True
            continue
        if name is None:
            continue
        if not macro and line.startswith("};"):
            name = None
            continue
        out.append((name, no, "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', line))))
        if macro and not line.rstrip().endswith("\\"):
            name = None
    return out


def check_options(root):
    files = [os.path.join(d, f) for d in OPTION_DIRS
             for f in sorted(os.listdir(os.path.join(root, d))) if f.endswith(".c")]
    files += [f for f in OPTION_FILES if os.path.exists(os.path.join(root, f))]
    n, bad = 0, []
    for rel in files:
        with open(os.path.join(root, rel)) as f:
            rows = option_rows(f.read())
        n += len(rows)
        for name, no, lits in rows:
            for m in TYPED_OPTION.finditer(lits):
                bad.append("%s:%d: %s: '%s' is typed; print the code's constant with RN_CFG_STR"
                           % (rel, no, name, m.group(0)))
    return n, bad


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
        os.makedirs(os.path.join(root, "runner", "cli"))
        with open(os.path.join(root, "runner", "cli", "cmd_demo.c"), "w") as f:
            f.write('static const struct rn_option demo_options[] = {\n'
                    '\t{ 1, "max", 0, RN_OPT_REQUIRED, "N", "at most N (default 50, 0 = all)" },\n'
                    '\t{ 2, "top", 0, RN_OPT_REQUIRED, "N",\n'
                    '\t  "at most N (default " RN_CFG_STR(RN_TOP) ", 0 = all)" },\n'
                    '\t{ 3, "last", 0, RN_OPT_REQUIRED, "N", "runs (changes: default 500)" },\n'
                    '\t{ 4, "wait", 0, RN_OPT_REQUIRED, "S", "seconds (default 0: none)" },\n'
                    '};\n'
                    'static const char *usage = "(default 9) outside a table";\n')
        no, obad = check_options(root)
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
    owant = ["runner/cli/cmd_demo.c:2: demo_options: 'default 50' is typed; print the code's "
             "constant with RN_CFG_STR",
             "runner/cli/cmd_demo.c:5: demo_options: 'default 500' is typed; print the "
             "code's constant with RN_CFG_STR"]
    if obad != owant or no != 5:
        print("FAIL: self-test: options: reported %r over %d lines, expected %r"
              % (obad, no, owant))
        return 1
    print("ok: the self-test's typed defaults (two of keys, two of options) were reported, "
          "nothing else")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().split("\n")[0])
        return 2
    n, bad = check(argv[1])
    no, obad = check_options(argv[1])
    bad += obad
    for line in bad:
        print("FAIL: " + line)
    if bad:
        return 1
    print("ok: %d lines of the key tables of %s and %d lines of option tables type no "
          "default number" % (n, HEADER, no))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
