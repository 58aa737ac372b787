#!/usr/bin/env python3
"""Duet against sequential timing pairs of the same-job baseline, on the machine it runs on.

Two trees of one CPU-bound program (a counting loop, ITERS iterations compiled into the binary,
or bzip2 -9 of a text in the tree, so that the base and head trees differ in their files, not in
renacer.toml) are compared by `renacer check --baseline` with `pairs = "sequential"` and
`pairs = "duet"`:

    A/A      head = base: every FAIL of a time row is a false fail
    plant    head does PLANT% more work: a check with a FAIL time row detected it

The cells are interleaved check by check (A/A sequential, A/A duet, plant sequential, plant
duet, then again), so drift of the machine's load falls on all of them. Per cell it prints the
false-fail or detection count, the median and total check time, the median pairs, and the CPU
pressure (/proc/pressure/cpu "some" avg10) sampled at the end of each check. Not a ctest.

    tests/bench/timing/duet.py --renacer build/renacer [--checks 10] [--plant 10] [--hog]
                               [--program loop|bzip2]

--hog runs a shell busy loop beside the checks (`sh -c 'while :; do :; done'`). The CPU lock
files go to a folder of the benchmark's own (XDG_RUNTIME_DIR), so checks of other users'
renacer on the machine do not take the CPUs the pairs are pinned to.
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

PROGRAM = r"""
int main(void)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < ITERS; i++)
		x += i;
	return 0;
}
"""

ROW = re.compile(r"^\S+\s+baseline:(wall_time|cpu_time|critical_path)\s+(PASS|FAIL|WARN)\b",
                 re.M)
PAIRS = re.compile(r"(\d+) (duet|sequential) pairs")


def pressure():
    try:
        with open("/proc/pressure/cpu") as f:
            return float(f.readline().split()[1].split("=")[1])
    except (OSError, IndexError, ValueError):
        return float("nan")


def text(lines):
    """A fixed text of `lines` lines of 8 words from a vocabulary of 500."""
    r = random.Random(3)
    words = ["w%d" % i for i in range(500)]
    return "\n".join(" ".join(r.choice(words) for _ in range(8)) for _ in range(lines))


def tree(root, name, work, scheme, a):
    """A tree: the loop of `work` iterations, or bzip2's input of `work` lines."""
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "build"), exist_ok=True)
    if a.program == "loop":
        src = os.path.join(root, "loop.c")
        with open(src, "w") as f:
            f.write(PROGRAM)
        subprocess.run([a.cc, "-O1", "-DITERS=%dUL" % work, "-o",
                        os.path.join(d, "build", "loop"), src], check=True)
        command = '["./build/loop"]'
    else:
        with open(os.path.join(d, "input.txt"), "w") as f:
            f.write(text(work))
        command = '["bzip2", "-9", "-c", "input.txt"]'
    with open(os.path.join(d, "renacer.toml"), "w") as f:
        f.write('[[target]]\nname = "%s"\ncommand = %s\nwarmup = 1\n'
                '\n[regression]\npairs = "%s"\n' % (a.program, command, scheme))
    os.makedirs(os.path.join(d, ".git"), exist_ok=True)
    return d


def check(renacer, head, base, env):
    t0 = time.monotonic()
    p = subprocess.run([renacer, "check", "--no-color", "--quiet", "--baseline", base],
                       cwd=head, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    secs = time.monotonic() - t0
    rows = dict(ROW.findall(p.stderr))
    m = PAIRS.search(p.stderr)
    return {"fail": "FAIL" in rows.values(), "cpu": rows.get("cpu_time", "-"), "secs": secs,
            "pairs": int(m.group(1)) if m else 0, "scheme": m.group(2) if m else "?",
            "psi": pressure(), "rc": p.returncode}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--checks", type=int, default=10, help="checks per cell (default 10)")
    ap.add_argument("--plant", type=float, default=10.0, help="planted slowdown, %% (10)")
    ap.add_argument("--program", choices=("loop", "bzip2"), default="loop",
                    help="a counting loop (default), or bzip2 -9 of a fixed text")
    ap.add_argument("--work", type=int, default=0,
                    help="the base's work: loop iterations (default 80M, ~35 ms of CPU) or "
                    "bzip2's input lines (default 13000, ~0.5 MB, ~45 ms of CPU)")
    ap.add_argument("--hog", action="store_true", help="a shell busy loop beside the checks")
    ap.add_argument("--cc", default="cc")
    a = ap.parse_args()
    renacer = os.path.abspath(a.renacer)
    root = tempfile.mkdtemp(prefix="duet-")
    env = dict(os.environ, XDG_RUNTIME_DIR=os.path.join(root, "run"))
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    cells = {}
    work = a.work or (80_000_000 if a.program == "loop" else 13000)
    planted = int(work * (1 + a.plant / 100.0))
    for scen, w in (("A/A", work), ("plant", planted)):
        for scheme in ("sequential", "duet"):
            base = tree(root, "%s-%s-base" % (scen[0], scheme), work, scheme, a)
            head = tree(root, "%s-%s-head" % (scen[0], scheme), w, scheme, a)
            cells[(scen, scheme)] = (head, base, [])
    hog = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if a.hog else None
    try:
        for i in range(a.checks):
            for key, (head, base, out) in cells.items():
                r = check(renacer, head, base, env)
                out.append(r)
                print("%d %-5s %-10s fail=%d cpu_time %-4s %5.1fs %2d %s pairs psi %.0f%%" %
                      (i + 1, key[0], key[1], r["fail"], r["cpu"], r["secs"], r["pairs"],
                       r["scheme"], r["psi"]), flush=True)
    finally:
        if hog:
            hog.kill()
            hog.wait()
    # fails: checks with a FAIL time row (A/A: false fails; plant: detections); cpu_time
    # PASS/FAIL: checks whose cpu_time row (the primary metric of a CPU-bound program) decided
    print("\ncell              fails  cpu_time PASS FAIL  check s (median, total)  pairs  psi")
    for (scen, scheme), (_, _, out) in cells.items():
        n = len(out)
        secs = [r["secs"] for r in out]
        print("%-5s %-10s  %2d/%-2d       %2d   %2d       %5.1f %6.0f            %4.0f  %3.0f%%" %
              (scen, scheme, sum(r["fail"] for r in out), n,
               sum(r["cpu"] == "PASS" for r in out), sum(r["cpu"] == "FAIL" for r in out),
               statistics.median(secs), sum(secs), statistics.median(r["pairs"] for r in out),
               statistics.mean(r["psi"] for r in out)))
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
