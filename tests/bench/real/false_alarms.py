#!/usr/bin/env python3
"""False alarms and caught regressions of `renacer check` on real third-party programs.

Not a ctest: it takes minutes and measures the machine it runs on. For each workload it records
a golden trace (`renacer golden update`, [golden] runs, default 10), runs N unchanged checks and
counts the false alarms (exit code not 0), the INCONCLUSIVE timing verdicts (WARN) and NOT
JUDGED rows among them; then it plants a regression in the workload's input (never in the
config: the target's argv stays the same) and says whether one check catches it (exit 1).

Workloads (all through the wrappers CI uses):
  sqlite_txn    sqlite3 inserting rows in one transaction     planted: autocommit (no BEGIN)
  sqlite_auto   sqlite3 inserting rows in autocommit mode     (unchanged only)
  gzip1/3/9     sh -c 'exec gzip -N -c data > /dev/null'      planted (gzip1): -1 -> -3
                (3 MiB of text; 1 MiB for -9)
  python_shim   a python3 script through an exec'ing shim     planted: one new os.sync();
                                                              stat-before-open of every file
  git_status    git status in a repository of 2,000 files     (unchanged only)
  tar           sh -c 'exec tar -cf out.tar tree'             (unchanged only)
  find          find tree -type f -name '*.c'                 (unchanged only)

Usage: tests/bench/real/false_alarms.py [--renacer build/renacer] [--checks 10] [--runs 5]
       [--only NAME,...] [--keep DIR]
Prints one Markdown table. Exit 0 unless renacer itself could not be run.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROWS = 150  # sqlite rows: autocommit makes each one an fdatasync


def write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def make_tree(root, nfiles):
    """nfiles small C-like files in 40 directories, deterministic."""
    rnd = random.Random(7)
    for i in range(nfiles):
        d = os.path.join(root, "d%02d" % (i % 40))
        os.makedirs(d, exist_ok=True)
        ext = ".c" if i % 3 else ".h"
        words = " ".join(rnd.choice(("int", "x", "return", "for", "if", "0", "1"))
                         for _ in range(40))
        write(os.path.join(d, "f%04d%s" % (i, ext)), "/* %d */\n%s\n" % (i, words))


def make_text(path, size):
    rnd = random.Random(11)
    vocab = ["lorem", "ipsum", "dolor", "sit", "amet", "renacer", "trace", "golden",
             "syscall", "verdict", "kernel", "buffer", "0x%x" % 4096, "alpha", "beta"]
    out, n = [], 0
    while n < size:
        line = " ".join(rnd.choice(vocab) for _ in range(12)) + " %d\n" % rnd.randrange(10**6)
        out.append(line)
        n += len(line)
    write(path, "".join(out))


def sqlite_script(txn):
    lines = ["CREATE TABLE t(a INTEGER, b TEXT);"]
    if txn:
        lines.append("BEGIN;")
    lines += ["INSERT INTO t VALUES(%d, 'row %d');" % (i, i) for i in range(ROWS)]
    if txn:
        lines.append("COMMIT;")
    return "\n".join(lines) + "\n"


PY_SCRIPT = """import os, json, sys
root = sys.argv[1]
total = 0
for dirpath, dirs, files in sorted(os.walk(root)):
    if not os.path.basename(dirpath).startswith(("d0", "tree")):
        continue
    for name in sorted(files):
        p = os.path.join(dirpath, name)
        {stat}with open(p) as f:
            total += len(f.read())
data = [{{"i": i, "s": str(i) * 3}} for i in range(5000)]
text = json.dumps(data)
{sync}print(total, len(text))
"""


def py_script(sync=False, stat=False):
    return PY_SCRIPT.format(stat="os.stat(p)\n        " if stat else "",
                            sync="os.sync()\n" if sync else "")


def setup(work):
    """Create every workload's files; returns {name: (command, plants)}; a plant is
    (label, function that changes the input)."""
    tree = os.path.join(work, "tree")
    make_tree(tree, 2000)
    make_text(os.path.join(work, "data.txt"), 3 << 20)
    make_text(os.path.join(work, "data9.txt"), 1 << 20)
    write(os.path.join(work, "txn.sql"), sqlite_script(True))
    write(os.path.join(work, "auto.sql"), sqlite_script(False))
    write(os.path.join(work, "work.py"), py_script())
    shim_dir = os.path.join(work, "shim")
    os.makedirs(shim_dir)
    real_py = shutil.which("python3.11") or "/usr/bin/python3"
    write(os.path.join(shim_dir, "python3"), "#!/bin/sh\n# a version manager's shim\nexec %s \"$@\"\n"
          % real_py, 0o755)
    write(os.path.join(work, "gzip_level"), "-1\n")
    repo = os.path.join(work, "repo")
    shutil.copytree(tree, repo)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "tree"], cwd=repo, check=True)
    # a few modified and untracked files, so status has something to say
    for i in range(5):
        write(os.path.join(repo, "d%02d" % i, "untracked%d.c" % i), "x\n")
    with open(os.path.join(repo, "d07", "f0007.c"), "a") as f:
        f.write("changed\n")

    def set_text(name, text):
        return lambda: write(os.path.join(work, name), text)

    return {
        "sqlite_txn": (["sh", "-c", "rm -f txn.db && exec sqlite3 txn.db < txn.sql"],
                       [("autocommit", set_text("txn.sql", sqlite_script(False)))]),
        "sqlite_auto": (["sh", "-c", "rm -f auto.db && exec sqlite3 auto.db < auto.sql"], []),
        "gzip1": (["sh", "-c", "exec gzip $(cat gzip_level) -c data.txt > /dev/null"],
                  [("gzip -1 -> -3", set_text("gzip_level", "-3\n"))]),
        "gzip3": (["sh", "-c", "exec gzip -3 -c data.txt > /dev/null"], []),
        "gzip9": (["sh", "-c", "exec gzip -9 -c data9.txt > /dev/null"], []),
        "python_shim": ([os.path.join(shim_dir, "python3"), "work.py", "tree"],
                        [("one new sync()", set_text("work.py", py_script(sync=True))),
                         ("stat before every open", set_text("work.py", py_script(stat=True)))]),
        "git_status": (["git", "-C", "repo", "status", "--porcelain"], []),
        "tar": (["sh", "-c", "exec tar -cf out.tar tree"], []),
        "find": (["find", "tree", "-type", "f", "-name", "*.c"], []),
    }


def config(work, name, argv, runs, metrics):
    q = ", ".join('"%s"' % a.replace("\\", "\\\\").replace('"', '\\"') for a in argv)
    text = ('[[target]]\nname = "%s"\ncommand = [%s]\nruns = %d\nstdout = "null"\n'
            'stderr = "null"\n' % (name, q, runs))
    if metrics:
        text += "\n[golden]\nmetrics = [%s]\n" % ", ".join('"%s"' % m for m in metrics)
    path = os.path.join(work, name + ".toml")
    write(path, text)
    return path


def run(renacer, args, cwd):
    p = subprocess.run([renacer] + args, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stderr


def counts(stderr, why=None):
    """(warn, not_judged, failing rows) from the console table; WARN rows and their REASON
    column are appended to `why` when given."""
    warn = nj = 0
    failing = []
    at = None
    for line in stderr.splitlines():
        if line.startswith("TARGET") and "REASON" in line:
            at = line.index("REASON")
        cols = line.split()
        if len(cols) < 3 or not cols[1].startswith(("golden:", "run")):
            continue
        if cols[2] == "WARN":
            warn += 1
            if why is not None:
                why.append("%s: %s" % (cols[1], line[at:].strip() if at else "?"))
        elif cols[2] == "NOT":
            nj += 1
        elif cols[2] in ("FAIL", "ERROR", "NO"):
            failing.append(cols[1])
    return warn, nj, failing


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--renacer", default="build/renacer")
    ap.add_argument("--checks", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5, help="measured runs of each check")
    ap.add_argument("--only", default="")
    ap.add_argument("--golden-metrics", default="",
                    help="comma-separated [golden] metrics (default: all)")
    ap.add_argument("--keep", default="", help="work in DIR and keep it")
    a = ap.parse_args()
    renacer = os.path.abspath(a.renacer)
    work = a.keep or tempfile.mkdtemp(prefix="renacer-false-alarms-")
    os.makedirs(work, exist_ok=True)
    t0 = time.monotonic()
    workloads = setup(work)
    only = [x for x in a.only.split(",") if x]
    rows = []
    for name, (argv, plants) in workloads.items():
        if only and name not in only:
            continue
        cfg = config(work, name, argv, a.runs, [m for m in a.golden_metrics.split(",") if m])
        rc, err = run(renacer, ["golden", "update", "--config", cfg], work)
        if rc:
            print("%s: golden update failed (exit %d):\n%s" % (name, rc, err), file=sys.stderr)
            rows.append((name, "golden update failed", "", "", "", ""))
            continue
        noisy = "spread" in err
        alarms, warns, njs, why = 0, 0, 0, {}
        for _ in range(a.checks):
            rc, err = run(renacer, ["check", "--config", cfg, "--no-github"], work)
            w, nj, failing = counts(err)
            warns += w
            njs += nj
            if rc:
                alarms += 1
                for f in failing or ["exit %d" % rc]:
                    why[f] = why.get(f, 0) + 1
        caught = []
        for label, plant in plants:
            snapshot = {}
            for fname in ("txn.sql", "gzip_level", "work.py"):
                with open(os.path.join(work, fname)) as f:
                    snapshot[fname] = f.read()
            plant()
            rc, err = run(renacer, ["check", "--config", cfg, "--no-github"], work)
            warned = []
            w, _, failing = counts(err, warned)
            outcome = ("caught" if rc == 1 else
                       "only WARN (%s), exit 0" % "; ".join(warned) if w else "MISSED, exit %d" % rc)
            caught.append("%s: %s (%s)" % (label, outcome, ", ".join(failing) or "-"))
            for fname, text in snapshot.items():
                write(os.path.join(work, fname), text)
        rows.append((name, "%d/%d" % (alarms, a.checks),
                     ", ".join("%s x%d" % kv for kv in sorted(why.items())) or "-",
                     "%d" % warns, "%d%s" % (njs, "; golden noisy" if noisy else ""),
                     "; ".join(caught) or "-"))
        print("%-12s done (%.0f s)" % (name, time.monotonic() - t0), file=sys.stderr)
    print("| workload | false alarms | failing rows | INCONCLUSIVE (WARN) rows | NOT JUDGED rows "
          "| planted regression |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print("\n%d checks of %d runs per workload after a golden update; %.0f s in all; %s"
          % (a.checks, a.runs, time.monotonic() - t0, os.getloadavg()))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
