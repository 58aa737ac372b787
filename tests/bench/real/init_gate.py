#!/usr/bin/env python3
"""The gate `renacer init` writes, on third-party programs, under load: false alarms and cost.

Not a ctest: it takes minutes to hours and measures the machine it runs on. For each workload
it makes a scratch repository, runs `renacer init -- CMD` there (the config and golden trace a
new user gets), then N unchanged checks against the golden trace and N unchanged checks with
`--baseline` against an identical copy of the tree, each with a busy loop on every CPU but one
beside it when --hog is given (what a shared CI runner looks like). It counts the checks that
exited 1 (false alarms: nothing changed), the rows by verdict, and the wall time of each check.
With --plant PCT it then plants PCT% more of the program's own work in the head's input (never
in the config) and counts the `--baseline` checks that catch it (exit 1).

Workloads (none of them used by the other benchmarks):
  lz4      compressor   lz4 -9 of 8 MiB of text                 plant: a larger input
  tclsh    interpreter  a Tcl loop over a string map             plant: more iterations
  tcc      compiler     tcc -c of a generated 6,000-function C file  plant: more functions
  lmdb     database     mdb_load of 40,000 key/value pairs       plant: more pairs
  jq       JSON         jq reduce over 60,000 objects            plant: more objects

Usage: tests/bench/real/init_gate.py [--renacer build/renacer] [--checks 20] [--hog | --hogs N]
       [--modes golden,baseline] [--plant 10] [--plant-checks N] [--only NAME,...] [--keep DIR]
Prints one Markdown table per mode. Exit 0 unless renacer itself could not be run.
"""
import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def text_blob(size, seed=11):
    rnd = random.Random(seed)
    vocab = ["lorem", "ipsum", "dolor", "renacer", "trace", "golden", "kernel", "buffer",
             "alpha", "beta", "gamma", "delta", "syscall", "verdict"]
    out, n = [], 0
    while n < size:
        line = " ".join(rnd.choice(vocab) for _ in range(10)) + " %d\n" % rnd.randrange(10**6)
        out.append(line)
        n += len(line)
    return "".join(out)


# name -> (tool, make(dir, scale) writing the inputs, argv); scale 1.0 is the unchanged program,
# 1.1 plants +10% of its own work.
def make_lz4(d, scale):
    write(os.path.join(d, "data.txt"), text_blob(int(8 * 2**20 * scale)))


def make_tcl(d, scale):
    write(os.path.join(d, "work.tcl"),
          "set s {}\nfor {set i 0} {$i < %d} {incr i} {\n"
          "  set s [string map {a b c d} \"x$i abc $i\"]\n  lappend l [string length $s]\n}\n"
          "puts [llength $l]\n" % int(150000 * scale))


def make_tcc(d, scale):
    fns = ["int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }"
           % (i, i) for i in range(int(6000 * scale))]
    write(os.path.join(d, "gen.c"), "\n".join(fns) + "\n")


def make_lmdb(d, scale):
    n = int(40000 * scale)
    lines = ["VERSION=3", "format=print", "type=btree", "mapsize=1073741824", "HEADER=END"]
    for i in range(n):
        lines += [" key%08d" % i, " value %d %s" % (i, "v" * 40)]
    lines.append("DATA=END")
    write(os.path.join(d, "dump.txt"), "\n".join(lines) + "\n")


def make_jq(d, scale):
    rnd = random.Random(5)
    rows = ['{"id":%d,"name":"n%d","tags":["a","b"],"v":%d}' % (i, i, rnd.randrange(1000))
            for i in range(int(60000 * scale))]
    write(os.path.join(d, "data.json"), "[" + ",".join(rows) + "]\n")


WORKLOADS = {
    "lz4": ("lz4", make_lz4, ["sh", "-c", "exec lz4 -9 -c -q data.txt > /dev/null"]),
    "tclsh": ("tclsh", make_tcl, ["tclsh", "work.tcl"]),
    # tcc replaces its output file (unlink, create): never /dev/null, which as root it would
    # turn into a regular file
    "tcc": ("tcc", make_tcc, ["tcc", "-c", "gen.c", "-o", "gen.o"]),
    "lmdb": ("mdb_load", make_lmdb,
             ["sh", "-c", "rm -f db db-lock && exec mdb_load -n -f dump.txt db"]),
    "jq": ("jq", make_jq, ["jq", "[.[] | .v] | add", "data.json"]),
}


def hog_start(n):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def hog_stop(hogs):
    for h in hogs:
        h.kill()
        h.wait()


def check(renacer, cwd, extra):
    t0 = time.monotonic()
    p = subprocess.run([renacer, "check", "--no-color"] + extra, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.monotonic() - t0
    rows = {}
    for line in p.stderr.splitlines():
        # the console table: TARGET ASSERTION VERDICT ...
        m = re.match(r"^(\S+)\s+(\S+)\s+(PASS|FAIL|WARN|NO DATA|NOT JUDGED|ERROR|SKIP)\s", line)
        if m:
            rows.setdefault(m.group(3), []).append(m.group(2))
    return p.returncode, dt, rows, p.stderr


def pressure():
    try:
        with open("/proc/pressure/cpu") as f:
            return f.readline().split()[1]  # avg10=...
    except OSError:
        return "avg10=?"


def stall_us():
    """The CPU pressure counter (us some task waited for a CPU), or None without PSI."""
    try:
        with open("/proc/pressure/cpu") as f:
            return int(f.readline().split()[4].split("=")[1])  # total=...
    except (OSError, IndexError, ValueError):
        return None


def gate_line(err):
    """The console's statement of what the check could detect ("timing gated at ...")."""
    for line in err.splitlines():
        if line.startswith("timing "):
            return line.strip()
    return "no gate statement"


def med_max(secs):
    """'median / max' of a cell's check times in seconds, '-' when it ran none (--checks 0)."""
    return "%.1f / %.1f" % (statistics.median(secs), max(secs)) if secs else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", default="build/renacer")
    ap.add_argument("--checks", type=int, default=20)
    ap.add_argument("--hog", action="store_true", help="busy loops on all CPUs but one")
    ap.add_argument("--hogs", type=int, default=0, help="this many busy loops (instead of --hog's)")
    ap.add_argument("--modes", default="golden,baseline")
    ap.add_argument("--plant", type=float, default=0.0, help="percent of own work planted")
    ap.add_argument("--plant-checks", type=int, default=0,
                    help="planted checks (default: --checks)")
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", default="")
    ap.add_argument("--log", default="", help="append every failing check's stderr here")
    a = ap.parse_args()
    renacer = os.path.abspath(a.renacer)
    only = [w for w in a.only.split(",") if w]
    root = a.keep or tempfile.mkdtemp(prefix="renacer-init-gate-")
    modes = a.modes.split(",")
    results = []
    hogs = (hog_start(a.hogs) if a.hogs else
            hog_start(max(1, (os.cpu_count() or 2) - 1)) if a.hog else [])
    try:
        for name in only or list(WORKLOADS):
            tool, make, argv = WORKLOADS[name]
            if not shutil.which(tool):
                print("skip %s: %s is not installed" % (name, tool), file=sys.stderr)
                continue
            head = os.path.join(root, name, "head")
            base = os.path.join(root, name, "base")
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
            os.makedirs(head)
            make(head, 1.0)
            p = subprocess.run([renacer, "init", "--"] + argv, cwd=head,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if p.returncode:
                print("init failed for %s: %s" % (name, p.stderr[-500:]), file=sys.stderr)
                continue
            shutil.copytree(head, base)
            for mode in modes:
                extra = ["--baseline", base] if mode == "baseline" else []
                res = {"name": name, "mode": mode, "exit1": 0, "other": 0, "times": [],
                       "rows": {}, "caught": None, "plant_times": [], "missed": []}
                t_cell, s_cell = time.monotonic(), stall_us()
                for _ in range(a.checks):
                    rc, dt, rows, err = check(renacer, head, extra)
                    res["times"].append(dt)
                    print("  %s %s: exit %d, %.1f s, %s" % (name, mode, rc, dt, pressure()),
                          file=sys.stderr, flush=True)
                    if rc == 1:
                        res["exit1"] += 1
                        if a.log:
                            with open(a.log, "a") as f:
                                f.write("== %s %s (%s)\n%s\n" % (name, mode, pressure(), err))
                    elif rc:
                        res["other"] += 1
                    for v, names in rows.items():
                        res["rows"][v] = res["rows"].get(v, 0) + len(names)
                if a.plant and mode == "baseline":
                    make(head, 1.0 + a.plant / 100.0)
                    caught = 0
                    for _ in range(a.plant_checks or a.checks):
                        rc, dt, rows, err = check(renacer, head, extra)
                        caught += rc == 1
                        print("  %s %s +%g%%: exit %d, %.1f s, %s" % (
                            name, mode, a.plant, rc, dt, pressure()), file=sys.stderr, flush=True)
                        res["plant_times"].append(dt)
                        if rc != 1:
                            res["missed"].append(gate_line(err))
                    res["caught"] = caught
                    make(head, 1.0)
                s_end = stall_us()
                res["pressure"] = (None if s_cell is None or s_end is None else
                                   (s_end - s_cell) / 1e6 / (time.monotonic() - t_cell))
                results.append(res)
                print("%s %s: %d/%d exit 1, median %s s" % (
                    name, mode, res["exit1"], a.checks, med_max(res["times"])), file=sys.stderr)
    finally:
        hog_stop(hogs)
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("| workload | mode | exit 1 (unchanged) | other exit | rows | check time median / max (s) |"
          " +%g%% caught | planted check time median / max (s) | CPU pressure |" % a.plant)
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        rows = ", ".join("%s %d" % (k, v) for k, v in sorted(r["rows"].items()))
        pt = r["plant_times"]
        print("| %s | %s | %d of %d | %d | %s | %s | %s | %s | %s |" % (
            r["name"], r["mode"], r["exit1"], len(r["times"]), r["other"], rows,
            med_max(r["times"]),
            "-" if r["caught"] is None else "%d of %d" % (r["caught"], len(pt)),
            med_max(pt),
            "-" if r["pressure"] is None else "%.0f%%" % (100 * r["pressure"])))
    for r in results:
        for m in r["missed"]:
            print("missed (%s %s): %s" % (r["name"], r["mode"], m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
