#!/usr/bin/env python3
"""bench.py - measurement fidelity: does `renacer check` time the program, not the tracer?

Timing runs stop only at process events (the ptrace-events driver), so the critical path
renacer reports should be the program's own wall time. For each workload the commands run
interleaved, round after round, in a rotating order:

  native     the command alone (wall time of the process, from Python)
  renacer    `renacer check` with one timing run and a critical_path assertion; the reported
             critical path is read from its verdict line
  hyperfine  `hyperfine -N --runs 1` of the command (the reference for run-to-run spread)

Workloads: pt_compute (tests/targets) with about 70 ms of computing (calibrated here) and
N = 0, 20,000 and 100,000 getppid calls, each also with 30% more computing; then
`find /usr -name '*.h'` and `tar cf /dev/null /usr/share/doc`.

Table per workload: median native, median reported, median of the paired ratios
reported/native (bar <= 1.10), CV (stdev/mean) of native, reported and hyperfine's times
(bar: reported no worse than hyperfine's). For the +30% workloads the change of the medians
(bar: >= +25% in the reported critical path). Last, the cost of a whole check with a time and a
count assertion (`runs` timing runs plus one counting run) against runs x native plus the wall
time of a count-only check (one counting run).

Every measurement runs unpinned and under `taskset -c 0` (the whole command on one CPU).

Usage: bench.py --renacer PATH --targets DIR [--rounds N] [--runs N] [--json FILE]
                [--no-pin] [--only compute,real,check] [--getppid 0,20000,100000] [--no-guard]
Not a ctest: it takes minutes and wants a quiet machine.
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

CP_LINE = re.compile(r"\bcp\s+(?:PASS|FAIL|WARN)\s+([0-9.]+) ms")


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("command failed (%d): %s" % (r.returncode, " ".join(cmd)))
    return dt


def toml_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_config(path, argv, runs, count, time=True):
    with open(path, "w") as f:
        f.write("[[target]]\nname = \"w\"\ncommand = [%s]\nruns = %d\nstdout = \"null\"\n\n"
                % (", ".join(toml_str(a) for a in argv), runs))
        if time:
            f.write("[[assertion]]\nname = \"cp\"\ntype = \"critical_path\"\n"
                    "max_duration_ms = 1000000\n")
        if count:
            f.write("\n[[assertion]]\nname = \"calls\"\ntype = \"span_count\"\n"
                    "span_name_pattern = \".*\"\nmax_spans = 100000000\n")
        f.write("\n[regression]\nenabled = false\n")
        if NO_GUARD:
            f.write("timing_guard = false\n")


NO_GUARD = False


def reported_cp(renacer, config, prefix):
    env = dict(os.environ, NO_COLOR="1")
    r = subprocess.run(prefix + [renacer, "check", "--quiet", "--no-color", "--config", config],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    m = CP_LINE.search(r.stdout)
    if r.returncode != 0 or not m:
        raise RuntimeError("renacer check failed (%d):\n%s" % (r.returncode, r.stdout))
    return float(m.group(1)) / 1e3


def hyperfine_one(cmd, prefix, work):
    out = os.path.join(work, "hf.json")
    subprocess.run(["hyperfine", "-N", "--runs", "1", "--style", "none", "--export-json", out,
                    " ".join(prefix + cmd)], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    with open(out) as f:
        return json.load(f)["results"][0]["times"][0]


def cv(xs):
    return statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else 0.0


def measure(renacer, argv, rounds, prefix, work, hyperfine):
    config = os.path.join(work, "w.toml")
    write_config(config, argv, 1, False)
    modes = ["native", "renacer"] + (["hyperfine"] if hyperfine else [])
    res = {m: [] for m in modes}
    for r in range(rounds):
        order = modes[r % len(modes):] + modes[:r % len(modes)]
        for m in order:
            if m == "native":
                res[m].append(timed(prefix + argv))
            elif m == "renacer":
                res[m].append(reported_cp(renacer, config, prefix))
            else:
                res[m].append(hyperfine_one(argv, prefix, work))
    return res


def row(name, res):
    nat, rep = res["native"], res["renacer"]
    ratios = [b / a for a, b in zip(nat, rep)]
    out = {
        "workload": name,
        "native_ms": statistics.median(nat) * 1e3,
        "reported_ms": statistics.median(rep) * 1e3,
        "ratio": statistics.median(ratios),
        "cv_native": cv(nat),
        "cv_reported": cv(rep),
    }
    if "hyperfine" in res:
        out["cv_hyperfine"] = cv(res["hyperfine"])
        out["hyperfine_ms"] = statistics.median(res["hyperfine"]) * 1e3
    return out


def calibrate(compute):
    """Millions of rounds of pt_compute that take about 70 ms here (median of 5)."""
    t = statistics.median(timed([compute, "70", "0"]) for _ in range(5))
    return max(1.0, 70.0 * 0.070 / t)


def print_rows(rows):
    print("| workload | native ms | reported ms | reported/native | CV native | CV reported |"
          " CV hyperfine |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %.1f | %.1f | %.3f | %.2f%% | %.2f%% | %s |" % (
            r["workload"], r["native_ms"], r["reported_ms"], r["ratio"], 100 * r["cv_native"],
            100 * r["cv_reported"],
            "%.2f%%" % (100 * r["cv_hyperfine"]) if "cv_hyperfine" in r else "-"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5, help="timing runs of the whole-check test")
    ap.add_argument("--json")
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--only", default="compute,real,check")
    ap.add_argument("--no-guard", action="store_true",
                    help="timing runs without the guard's seccomp filter ([regression] "
                    "timing_guard = false)")
    ap.add_argument("--getppid", default="0,20000,100000",
                    help="getppid counts of the compute workloads (1000000: the 1M bar)")
    args = ap.parse_args()
    args.getppid = [int(x) for x in args.getppid.split(",") if x]
    global NO_GUARD
    NO_GUARD = args.no_guard
    only = set(args.only.split(","))
    renacer = os.path.abspath(args.renacer)
    compute = os.path.join(os.path.abspath(args.targets), "pt_compute")
    hyperfine = shutil.which("hyperfine") is not None
    if not hyperfine:
        print("hyperfine not found: no CV reference (ci/install-deps.sh installs it)",
              file=sys.stderr)
    conditions = [("unpinned", [])] + ([] if args.no_pin else [("pinned", ["taskset", "-c", "0"])])
    report = {"rounds": args.rounds, "conditions": {}}
    work = tempfile.mkdtemp(prefix="rn-timing-bench-")
    try:
        millions = calibrate(compute)
        report["compute_millions"] = millions
        print("pt_compute: %.1f million rounds for ~70 ms of computing; %d rounds per "
              "workload, interleaved" % (millions, args.rounds))
        for cname, prefix in conditions:
            rows, extra = [], {}
            if "compute" in only:
                for n in args.getppid:
                    base = measure(renacer, [compute, "%.2f" % millions, str(n)], args.rounds,
                                   prefix, work, hyperfine)
                    more = measure(renacer, [compute, "%.2f" % (millions * 1.3), str(n)],
                                   args.rounds, prefix, work, hyperfine)
                    rows.append(row("compute, %d getppid" % n, base))
                    rows.append(row("compute +30%%, %d getppid" % n, more))
                    extra["+30%% seen, %d getppid" % n] = {
                        "native": statistics.median(more["native"]) /
                        statistics.median(base["native"]) - 1,
                        "reported": statistics.median(more["renacer"]) /
                        statistics.median(base["renacer"]) - 1,
                    }
            if "real" in only:
                rounds = max(5, args.rounds // 2)
                for name, argv in (("find /usr -name '*.h'", ["find", "/usr", "-name", "*.h"]),
                                   ("tar cf /dev/null /usr/share/doc",
                                    ["tar", "cf", "/dev/null", "/usr/share/doc"])):
                    rows.append(row(name, measure(renacer, argv, rounds, prefix, work,
                                                  hyperfine)))
            if "check" in only:
                # A check with a time and a count assertion: runs x native + one counting run.
                argv = [compute, "%.2f" % millions, "20000"]
                config = os.path.join(work, "both.toml")
                write_config(config, argv, args.runs, True)
                counting = os.path.join(work, "count.toml")
                write_config(counting, argv, 1, True, time=False)
                walls, natives, counts = [], [], []
                for _ in range(max(3, args.rounds // 4)):
                    natives.append(timed(prefix + argv))
                    walls.append(timed(prefix + [renacer, "check", "--quiet", "--config",
                                                 config]))
                    counts.append(timed(prefix + [renacer, "check", "--quiet", "--config",
                                                  counting]))
                nat = statistics.median(natives)
                extra["whole check"] = {
                    "check_s": statistics.median(walls),
                    "runs_x_native_s": args.runs * nat,
                    "counting_check_s": statistics.median(counts),
                    "runs": args.runs,
                }
            report["conditions"][cname] = {"rows": rows, "extra": extra}
            print("\n### %s\n" % cname)
            print_rows(rows)
            for k, v in extra.items():
                if k == "whole check":
                    bound = v["runs_x_native_s"] + v["counting_check_s"]
                    print("\nwhole check (%d timing runs + 1 counting run, 20,000 getppid): "
                          "%.3f s; runs x native %.3f s + a count-only check (one counting "
                          "run) %.3f s = %.3f s (check / that bound %.2f)" % (
                              v["runs"], v["check_s"], v["runs_x_native_s"],
                              v["counting_check_s"], bound, v["check_s"] / bound))
                else:
                    print("%s: native %+.1f%%, reported %+.1f%%" % (
                        k.replace("%%", "%"), 100 * v["native"], 100 * v["reported"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
