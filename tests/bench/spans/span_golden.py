#!/usr/bin/env python3
"""Span durations against a golden trace: a slowdown planted in one span, caught or not, and
false failures of unchanged checks.

Not a ctest: it takes minutes and measures the machine it runs on. The target is
tests/targets/sp_work (build/targets/sp_work): CPU work in three app spans (renacer_span.h)
one after the other, "load", "solve" and "store", of UNITS units each (a unit is a fixed count
of operations, about 1.25 ms of CPU on a 2-vCPU VM). One `golden update` records them; then

  slowed      CHECKS checks of the program whose "solve" does SLOW times its work: a check
              whose golden:span_time:app:solve row FAILs caught it; the rows of "load" and
              "store" must not FAIL (their work did not change)
  unchanged   CHECKS checks of the same program: any golden:span_time row that FAILs is a
              false failure

with the default [regression] settings but max_runs (--max-runs: adaptive repeats up to that
many timing runs; renacer's default when not given). Per check it records the span rows'
verdicts, the detection limit each row stated ("detects >= +X%"), golden:cpu_time's verdict
(on a loaded machine a span row, judged as a wall time, gates only beyond the drift limit and
only when the program's cpu_time fails beyond it), the CPU pressure the check measured and
its wall time.

    tests/bench/spans/span_golden.py [--renacer build/renacer] [--target build/targets/sp_work]
        [--units 20,40,20] [--slow 2] [--checks 20] [--runs 10] [--max-runs N]
        [--json FILE]

Prints a Markdown table. Exit 0 unless renacer could not be run.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SPANS = ("app:load", "app:solve", "app:store")


def pressure():
    """The machine's CPU pressure "some avg10" now, percent (None when unknown)."""
    try:
        with open("/proc/pressure/cpu") as f:
            return float(re.search(r"avg10=([0-9.]+)", f.readline()).group(1))
    except (OSError, AttributeError, ValueError):
        return None


def write_config(tmp, args, units):
    with open(os.path.join(tmp, "renacer.toml"), "w") as f:
        f.write('[[target]]\nname = "work"\ncommand = ["%s", "%d", "%d", "%d"]\n'
                % (args.target, units[0], units[1], units[2]))
        f.write('collectors = ["ptrace", "app"]\nruns = %d\n\n' % args.runs)
        f.write('[golden]\ndir = "%s/golden"\nruns = %d\n' % (tmp, args.runs))
        if args.max_runs:
            f.write('\n[regression]\nmax_runs = %d\n' % args.max_runs)


def one_check(tmp, args):
    """Run one check; return its rows: {name: (verdict, mde_pct, message)}, cpu_time's
    verdict, the CPU pressure and its wall time, s."""
    res = os.path.join(tmp, "results.json")
    t0 = time.monotonic()
    p = subprocess.run([args.renacer, "check", "--no-color", "--config",
                        os.path.join(tmp, "renacer.toml"), "--results", res],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit("renacer check failed (%d): %s" % (p.returncode, p.stderr[-2000:]))
    doc = json.load(open(res))
    rows, cpu, press = {}, None, None
    for t in doc["targets"]:
        for v in t["verdicts"]:
            a = v.get("assertion") or ""
            if a.startswith("golden:span_time:"):
                m = re.search(r"detects >= \+([0-9.]+)%", v.get("message", ""))
                rows[a[len("golden:span_time:"):]] = (v["verdict"],
                                                      float(m.group(1)) if m else None,
                                                      v.get("message", ""))
            elif a == "golden:cpu_time":
                cpu = v["verdict"]
    m = re.search(r"CPU pressure \(([0-9.]+)%", p.stderr) or \
        re.search(r"CPU pressure ([0-9.]+)%", p.stderr)
    press = float(m.group(1)) if m else pressure()
    return rows, cpu, press, wall


def summary(name, checks, slowed):
    n = len(checks)
    solve = [c[0].get("app:solve", ("missing", None, "")) for c in checks]
    others = [c[0].get(s, ("missing", None, "")) for c in checks
              for s in ("app:load", "app:store")]
    allrows = [c[0].get(s, ("missing", None, "")) for c in checks for s in SPANS]
    count = lambda rows, v: sum(1 for r in rows if r[0] == v)
    mdes = [r[1] for r in solve if r[1] is not None]
    cpu_fail = sum(1 for c in checks if c[1] == "FAIL")
    press = [c[2] for c in checks if c[2] is not None]
    line = "| %s | %d | %d | %d | %d | %d | %s | %d | %s | %.0f |" % (
        name, n, count(solve, "FAIL"), count(solve, "WARN"), count(solve, "PASS"),
        count(others if slowed else allrows, "FAIL"),
        "%+.0f%%" % statistics.median(mdes) if mdes else "-", cpu_fail,
        "%.0f%%" % statistics.median(press) if press else "-",
        statistics.median(c[3] for c in checks))
    return line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--renacer", default="build/renacer")
    ap.add_argument("--target", default="build/targets/sp_work")
    ap.add_argument("--units", default="20,40,20")
    ap.add_argument("--slow", type=float, default=2.0)
    ap.add_argument("--checks", type=int, default=20)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--max-runs", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args()
    args.renacer = os.path.abspath(args.renacer)
    args.target = os.path.abspath(args.target)
    units = [int(x) for x in args.units.split(",")]
    slowed = [units[0], int(round(units[1] * args.slow)), units[2]]
    tmp = tempfile.mkdtemp(prefix="span_golden.")
    try:
        write_config(tmp, args, units)
        p = subprocess.run([args.renacer, "golden", "update", "--config",
                            os.path.join(tmp, "renacer.toml")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            sys.exit("golden update failed: " + p.stderr[-2000:])
        out = {"units": units, "slow": args.slow, "slowed": [], "unchanged": []}
        # slowed and unchanged checks alternate, so that both see the same load
        for k in range(args.checks):
            write_config(tmp, args, slowed)
            out["slowed"].append(one_check(tmp, args))
            write_config(tmp, args, units)
            out["unchanged"].append(one_check(tmp, args))
            print("check %d/%d: slowed solve %s, unchanged %s" % (
                k + 1, args.checks, out["slowed"][-1][0].get("app:solve", ("missing",))[:2],
                sorted(v[0] for v in out["unchanged"][-1][0].values())), file=sys.stderr)
        print("spans load/solve/store = %s units; solve x%g in the slowed checks; %d runs; "
              "max_runs %s" % ("/".join(map(str, units)), args.slow, args.runs,
                               args.max_runs or "default"))
        print()
        print("| checks | n | solve FAIL (caught) | solve WARN | solve PASS | "
              "other span rows FAIL | solve row detects >= (median) | cpu_time FAIL | "
              "CPU pressure (median) | s per check |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        print(summary("solve x%g" % args.slow, out["slowed"], True))
        print(summary("unchanged", out["unchanged"], False))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
