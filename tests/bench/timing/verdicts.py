#!/usr/bin/env python3
"""Timing verdicts on real third-party programs: false failures and detection, both ways.

Not a ctest: it takes many minutes and measures the machine it runs on. For each workload it
builds two trees, base/ and head/, that run the same program through a wrapper; a planted
regression is extra CPU work of a stated size in the head's root process (a preloaded
constructor that burns X% of the base's median CPU time in loop iterations calibrated here,
with no syscall, then removes itself from the environment, so children run as in the base). Then, with the default settings of renacer.toml:

  baseline, +0%     CHECKS checks of `check --baseline`: a FAIL is a false failure
  baseline, +P%     CHECKS checks with P% more CPU work: a FAIL of a time row is a detection
  baseline, 2x      3 checks with 100% more: must never end green
  golden, +0%       one `golden update`, then CHECKS checks: a FAIL is a false failure
  golden, 2x        3 checks with 100% more: must never end green
  mde (--mde)       CHECKS checks planted at the median detection limit the unchanged baseline
                    checks stated: detection must be >= 80% for the limit to be honest

--plant-by input plants, for the workloads that read the texts, texts grown by that much of
the program's own work instead (the burn's share moves with the machine's speed: a +2% burn
measured +1.3% outside renacer on one machine instance).

Per check it records the exit code, the time rows' verdicts, the pairs (runs) used, the wall
time of the check and the detection limit each row stated ("detects >= +X%"). Each planted
size is also measured outside renacer (the two trees run alternately, 10 rounds): the burn is
calibrated once, under the checks' own load, and a machine's speed moves (its calibration read
1005 and 1802 iterations per us on the same VM an hour apart), so the table says what was
actually planted.

    tests/bench/timing/verdicts.py [--renacer build/renacer] [--checks 20] [--plant 10]
        [--hog] [--only NAME,...] [--modes baseline,golden,mde] [--json FILE]
        [--tolerance PCT] [--max-runs N] [--burn-lib FILE] [--plant-by burn|input]

--hog runs a busy loop beside the checks for the whole benchmark (what a shared CI runner
looks like). Prints one Markdown table per mode. Exit 0 unless renacer could not be run.

Workloads (none of them in the other benchmarks): a make build (gcc, -j2, 3 files), xz -T2,
bzip2 -9, a perl script, a sort | uniq -c | sort -rn pipeline, awk word counting, sed
rewriting, cp -r of a 500-file tree (texts of 512 KiB, 2 MiB for xz).
"""
import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BURN_C = r"""
#include <stdlib.h>
/* Plain loop iterations: no clock is read (CLOCK_PROCESS_CPUTIME_ID is a real syscall, which
 * would plant a syscall count change beside the CPU work). */
__attribute__((constructor)) static void burn(void)
{
	const char *s = getenv("RN_BENCH_BURN_ITERS");
	unsigned long n = s ? strtoul(s, NULL, 10) : 0, i;
	volatile unsigned long x = 0;
	unsetenv("RN_BENCH_BURN_ITERS");
	unsetenv("LD_PRELOAD");
	for (i = 0; i < n; i++)
		x += i * i;
}
"""

ROW = re.compile(r"^  (\S+) (baseline|golden):(wall_time|critical_path|cpu_time) "
                 r"(PASS|FAIL|WARN): (.*)$")
GOLDEN_ROW = re.compile(r"^(FAIL|WARN|PASS) (\S+)/golden:(wall_time|critical_path|cpu_time): (.*)$")


def write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def make_text(path, size, seed=11):
    rnd = random.Random(seed)
    vocab = ["lorem", "ipsum", "dolor", "sit", "amet", "trace", "golden", "syscall",
             "verdict", "kernel", "buffer", "alpha", "beta", "gamma", "delta", "omega"]
    out, n = [], 0
    while n < size:
        line = " ".join(rnd.choice(vocab) for _ in range(rnd.randint(4, 14)))
        out.append(line)
        n += len(line) + 1
    write(path, "\n".join(out) + "\n")


def make_project(root):
    """3 small C files and a Makefile: a multi-process build."""
    os.makedirs(root, exist_ok=True)
    objs = []
    for i in range(2):
        body = "\n".join("int f%d_%d(int x) { return x * %d + %d; }" % (i, k, k + 1, i)
                         for k in range(10))
        write(os.path.join(root, "m%d.c" % i), "%s\n" % body)
        objs.append("m%d.o" % i)
    write(os.path.join(root, "main.c"), "int main(void) { return 0; }\n")
    write(os.path.join(root, "Makefile"),
          "all: app\napp: main.o %s\n\tgcc -o $@ $^\n%%.o: %%.c\n\tgcc -O0 -c -o $@ $<\n"
          % " ".join(objs))


def make_tree(root, nfiles):
    rnd = random.Random(7)
    for i in range(nfiles):
        d = os.path.join(root, "d%02d" % (i % 20))
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "f%04d.txt" % i), "%d %s\n" % (i, "x" * rnd.randint(10, 400)))


def workloads(data):
    """name -> (argv run in data/, the programs it needs)."""
    return {
        "make_j2": (["make", "-s", "-B", "-j2", "-C", "project"], ["make", "gcc"]),
        "xz_T2": (["sh", "-c", "exec xz -T2 -3 -c text4m.txt > /dev/null"], ["xz"]),
        "bzip2": (["sh", "-c", "exec bzip2 -9 -c text1m.txt > /dev/null"], ["bzip2"]),
        "perl": (["perl", "-ne", 'for (split) { $c{$_}++ } END { print scalar(keys %c), "\\n" }',
                  "text1m.txt"], ["perl"]),
        "pipeline": (["sh", "-c", "sort text1m.txt | uniq -c | sort -rn | head -3 > /dev/null"],
                     ["sort", "uniq"]),
        "awk": (["awk", "{ for (i = 1; i <= NF; i++) c[$i]++ } END { n = 0; for (w in c) n++;"
                 " print n }", "text1m.txt"], ["awk"]),
        "sed": (["sh", "-c", "exec sed -E 's/([a-z]+) ([a-z]+)/\\2 \\1/g' text1m.txt > /dev/null"],
                ["sed"]),
        "cp_tree": (["sh", "-c", "rm -rf copy && exec cp -r tree copy"], ["cp"]),
    }


def prepare_data(data):
    os.makedirs(data, exist_ok=True)
    for fname, size, seed in TEXTS:
        make_text(os.path.join(data, fname), size, seed)
    make_project(os.path.join(data, "project"))
    make_tree(os.path.join(data, "tree"), 500)


def pin_one_cpu():
    """Run on one CPU, as renacer places a single-process pair: an unpinned program's CPU time
    moved by several percent from run to run on a quiet 16-core machine, more than a +2%
    plant (20 rounds read it at +3.0%, +6.5%, +9.3% and +2.2%)."""
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})


def child_cpu_us(argv, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True, preexec_fn=pin_one_cpu)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e6


def toml_list(argv):
    return ", ".join('"%s"' % a.replace("\\", "\\\\").replace('"', '\\"') for a in argv)


def make_tree_side(root, name, data, lib, burn_us):
    """A checkout: run.sh (the preload and its burn, or the data it reads) and renacer.toml
    (defaults)."""
    os.makedirs(root, exist_ok=True)
    write(os.path.join(root, "run.sh"),
          "#!/bin/sh\ncd '%s' || exit 1\nexport LD_PRELOAD='%s' RN_BENCH_BURN_ITERS=%d\n"
          "exec \"$@\"\n" % (data, lib, int(burn_us * ITERS_PER_US)), 0o755)
    write(os.path.join(root, "renacer.toml"),
          "[[target]]\nname = \"%s\"\ncommand = [\"./run.sh\", %s]\n" % (name, ARGV[name])
          + ("\n[regression]\nmax_runs = %d\n" % MAX_RUNS if MAX_RUNS else ""))


TEXTS = (("text1m.txt", 512 << 10, 11), ("text4m.txt", 2 << 20, 12))
# the workloads whose work grows with the texts they read (--plant-by input)
INPUT_WORKLOADS = ("xz_T2", "bzip2", "perl", "pipeline", "awk", "sed")


def grown_data(work, name, data, pct):
    """A data directory whose texts are pct% more of the program's own work: the same texts
    (same seed, so the base's text is a prefix) grown by pct% of the base's CPU time over what
    it spends on the text at all (its CPU time on one-line texts is the fixed part: exec,
    loading, the shell). Unlike the burn, the plant is the program's own kind of work, so it
    stays pct% of it when the machine's speed moves (a loop of plain iterations and bzip2's
    memory-bound sorting do not slow alike)."""
    tiny = os.path.join(work, "data-tiny")
    os.makedirs(tiny, exist_ok=True)
    for fname, _, seed in TEXTS:
        make_text(os.path.join(tiny, fname), 1, seed)
    argv = ARGV_LIST[name]
    full = statistics.median(child_cpu_us(argv, data) for _ in range(5))
    fixed = statistics.median(child_cpu_us(argv, tiny) for _ in range(5))
    grow = pct / 100.0 * full / max(full - fixed, full * 0.05)
    out = os.path.join(work, "data-%g" % pct)
    os.makedirs(out, exist_ok=True)
    for fname, size, seed in TEXTS:
        make_text(os.path.join(out, fname), int(size * (1.0 + grow)), seed)
    print("  %s: texts grown by %.2f%% (CPU %.1f ms, %.1f ms of it fixed)"
          % (name, grow * 100.0, full / 1e3, fixed / 1e3), file=sys.stderr, flush=True)
    return out


ARGV = {}
ARGV_LIST = {}
PLANT_BY = "burn"
TOLERANCE = []
MAX_RUNS = 0
ITERS_PER_US = 0.0


def calibrate_burn(lib):
    """Loop iterations of burn.so per us of CPU time on this machine."""
    def cpu(n):
        env = dict(os.environ, LD_PRELOAD=lib, RN_BENCH_BURN_ITERS=str(n))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(["/bin/true"], env=env, check=True, preexec_fn=pin_one_cpu)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e6
    n = 200000000
    burn = statistics.median(cpu(n) for _ in range(5))
    idle = statistics.median(cpu(0) for _ in range(5))
    return n / max(burn - idle, 1.0)


def measure_plant(work, name, data, rounds=20):
    """The planted share actually added, % of the base's CPU time: the two trees' run.sh run
    alternately outside renacer (head, base, base, head, ...), the median of each round's
    head / base ratio (a machine whose speed moves between rounds moves both sides of a round
    alike). What a row of planted checks was measured against: the burn's calibration moves
    with the machine's state."""
    argv = lambda side: [os.path.join(work, side, "run.sh")] + ARGV_LIST[name]
    ratios = []
    for i in range(rounds):
        t = {}
        for side in (("head", "base") if i % 2 == 0 else ("base", "head")):
            t[side] = child_cpu_us(argv(side), data)
        if t["base"] > 0:
            ratios.append(t["head"] / t["base"])
    return (statistics.median(ratios) - 1.0) * 100.0 if ratios else 0.0


def run_check(renacer, args, cwd):
    t0 = time.monotonic()
    p = subprocess.run([renacer] + args, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=dict(os.environ, CI="", NO_COLOR="1"))
    return p.returncode, p.stderr, time.monotonic() - t0


def parse_rows(err, kind):
    """time rows: metric -> (verdict, runs, mde%)"""
    rows = {}
    for line in err.splitlines():
        if kind == "baseline":
            m = ROW.match(line)
            if not m or m.group(2) != "baseline":
                continue
            metric, verdict, msg = m.group(3), m.group(4), m.group(5)
        else:
            m = GOLDEN_ROW.match(line)
            if not m:
                continue
            metric, verdict, msg = m.group(3), m.group(1), m.group(4)
        n = re.search(r"(\d+) (?:(?:sequential |duet )?pairs|runs\))", msg)
        mde = re.search(r"detects >= \+([\d.]+)%", msg)
        rows[metric] = (verdict, int(n.group(1)) if n else 0, float(mde.group(1)) if mde else None)
    return rows


def golden_rows(err):
    rows = {}
    for line in err.splitlines():
        m = re.match(r"^\S+\s+golden:(wall_time|critical_path|cpu_time)\s+(PASS|FAIL|WARN)\s", line)
        if m:
            rows[m.group(1)] = (m.group(2), 0, None)
    for line in err.splitlines():
        m = GOLDEN_ROW.match(line)
        if m:
            n = re.search(r"(\d+) runs\)", m.group(4))
            mde = re.search(r"detects >= \+([\d.]+)%", m.group(4))
            rows[m.group(3)] = (m.group(1), int(n.group(1)) if n else 0,
                                float(mde.group(1)) if mde else None)
    return rows


def scenario(renacer, work, name, data, lib, base_cpu, pct, checks, mode):
    """`checks` checks with the head planted at pct% more CPU work; a list of dicts."""
    if pct > 0:
        # the base's CPU time now: an I/O-heavy program's drifts with the file system's state
        # (cp -r read 67 ms at one start and 338 ms at another), and pct is of what it takes now
        base_cpu = statistics.median(child_cpu_us([os.path.join(work, "base", "run.sh")]
                                                  + ARGV_LIST[name], data) for _ in range(5))
    if pct > 0 and PLANT_BY == "input" and name in INPUT_WORKLOADS:
        make_tree_side(os.path.join(work, "head"), name, grown_data(work, name, data, pct),
                       lib, 0)
    else:
        make_tree_side(os.path.join(work, "head"), name, data, lib, base_cpu * pct / 100.0)
    out = []
    measured = measure_plant(work, name, data) if pct > 0 else 0.0
    if pct > 0:
        print("  %s: planted +%g%%, measured outside renacer +%.1f%%" % (name, pct, measured),
              file=sys.stderr, flush=True)
    for _ in range(checks):
        if mode == "baseline":
            rc, err, secs = run_check(renacer, ["check", "--no-color", "--baseline", "../base"]
                                      + TOLERANCE, os.path.join(work, "head"))
            rows = parse_rows(err, "baseline")
        else:
            rc, err, secs = run_check(renacer, ["check", "--no-color"], os.path.join(work, "head"))
            rows = golden_rows(err)
        time_fail = any(v[0] == "FAIL" for v in rows.values())
        if (pct >= 100 and rc == 0) or (pct == 0 and rc == 1):
            # a 2x that ended green or an unchanged program that failed: say why
            for line in err.splitlines():
                if re.match(r"^(FAIL|WARN) \S+/(golden|baseline):", line) or \
                        (line.startswith("    ") and len(line) < 200):
                    sys.stderr.write("    | " + line + "\n")
        out.append({"rc": rc, "secs": secs, "rows": rows, "time_fail": time_fail,
                    "plant_measured": measured,
                    "runs": max([v[1] for v in rows.values()] or [0]),
                    "mde": min([v[2] for v in rows.values() if v[2] is not None]
                               or [None], key=lambda x: 1e9 if x is None else x)})
        if rc not in (0, 1):
            sys.stderr.write(err[-2000:])
        print("  %s %s +%g%%: exit %d, %d runs, %.1f s, %s" % (
            name, mode, pct, rc, out[-1]["runs"], secs,
            " ".join("%s=%s" % (k, v[0]) for k, v in sorted(rows.items()))),
            file=sys.stderr, flush=True)
    return out


def summary(res):
    secs = [r["secs"] for r in res]
    runs = [r["runs"] for r in res]
    mdes = [r["mde"] for r in res if r["mde"] is not None]
    return {
        "checks": len(res),
        "fail": sum(1 for r in res if r["rc"] == 1),
        "time_fail": sum(1 for r in res if r["time_fail"]),
        "green": sum(1 for r in res if r["rc"] == 0),
        "plant_measured_pct": res[0]["plant_measured"] if res else 0.0,
        "runs_median": statistics.median(runs) if runs else 0,
        "runs_max": max(runs) if runs else 0,
        "secs_median": statistics.median(secs) if secs else 0,
        "secs_max": max(secs) if secs else 0,
        "mde_median": statistics.median(mdes) if mdes else None,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", default="build/renacer")
    ap.add_argument("--checks", type=int, default=20)
    ap.add_argument("--plant", type=float, default=10.0)
    ap.add_argument("--hog", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--modes", default="baseline,golden")
    ap.add_argument("--json", default="")
    ap.add_argument("--tolerance", type=int, default=0,
                    help="--baseline-tolerance PCT of the checks (default: renacer's, 3)")
    ap.add_argument("--max-runs", type=int, default=0,
                    help="[regression] max_runs of both trees (default: renacer's, 60)")
    ap.add_argument("--burn-lib", default="", help="a prebuilt burn.so (no compiler there)")
    ap.add_argument("--plant-by", choices=("burn", "input"), default="burn",
                    help="the planted work: a burn in the root process (default), or, for the "
                    "workloads that read the texts, texts grown to that much more work")
    ap.add_argument("--scenarios", default="0,plant,2x",
                    help="baseline mode: which of the unchanged (0), planted and 2x checks")
    a = ap.parse_args()
    global TOLERANCE, MAX_RUNS, PLANT_BY
    PLANT_BY = a.plant_by
    TOLERANCE = ["--baseline-tolerance", str(a.tolerance)] if a.tolerance else []
    MAX_RUNS = a.max_runs
    renacer = os.path.abspath(a.renacer)
    modes = a.modes.split(",")
    tmp = tempfile.mkdtemp(prefix="rn-verdicts-")
    hog = None
    results = {}
    try:
        data = os.path.join(tmp, "data")
        prepare_data(data)
        lib = os.path.join(tmp, "burn.so")
        if a.burn_lib:
            shutil.copy(a.burn_lib, lib)
        else:
            write(os.path.join(tmp, "burn.c"), BURN_C)
            subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", lib,
                            os.path.join(tmp, "burn.c")], check=True)
        if a.hog:
            hog = subprocess.Popen(["sh", "-c", "while :; do :; done"])
        global ITERS_PER_US
        ITERS_PER_US = calibrate_burn(lib)  # under the checks' own conditions
        print("burn.so: %.0f iterations per us of CPU" % ITERS_PER_US, file=sys.stderr)
        wl = workloads(data)
        for name, (argv, needs) in wl.items():
            if a.only and name not in a.only.split(","):
                continue
            if any(shutil.which(p) is None for p in needs):
                print("skip %s: needs %s" % (name, ", ".join(needs)), file=sys.stderr)
                continue
            ARGV[name] = toml_list(argv)
            ARGV_LIST[name] = argv
            work = os.path.join(tmp, name)
            os.makedirs(work)
            cpu = statistics.median(child_cpu_us(argv, data) for _ in range(5))
            make_tree_side(os.path.join(work, "base"), name, data, lib, 0)
            r = results[name] = {"base_cpu_ms": cpu / 1e3}
            print("%s: base CPU %.1f ms" % (name, cpu / 1e3), file=sys.stderr, flush=True)
            sc = a.scenarios.split(",")
            if "baseline" in modes:
                for key, pct, n in (("0", 0, a.checks), ("plant", a.plant, a.checks),
                                    ("2x", 100, 3)):
                    r["baseline_" + key] = summary(scenario(
                        renacer, work, name, data, lib, cpu, pct, n, "baseline")) \
                        if key in sc else summary([])
            if "mde" in modes and r.get("baseline_0", {}).get("mde_median"):
                pct = r["baseline_0"]["mde_median"]
                r["mde_at"] = pct
                r["mde_check"] = summary(scenario(renacer, work, name, data, lib, cpu, pct,
                                                  a.checks, "baseline"))
            if "golden" in modes:
                make_tree_side(os.path.join(work, "head"), name, data, lib, 0)
                rc, err, _ = run_check(renacer, ["golden", "update"],
                                       os.path.join(work, "head"))
                if rc != 0:
                    sys.stderr.write(err[-2000:])
                r["golden_0"] = summary(scenario(renacer, work, name, data, lib, cpu, 0, a.checks,
                                                 "golden"))
                r["golden_2x"] = summary(scenario(renacer, work, name, data, lib, cpu, 100, 3,
                                                  "golden"))
            print(json.dumps({name: r}), file=sys.stderr, flush=True)
    finally:
        if hog:
            hog.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    fmt = lambda x: "-" if x is None else ("%.1f" % x if isinstance(x, float) else str(x))
    if "baseline" in modes:
        print("\n### same-job baseline (%s, %d checks; plant +%g%% CPU work; tolerance %s)\n"
              % ("busy loop beside" if a.hog else "no load added", a.checks, a.plant,
                 "%d%%" % a.tolerance if a.tolerance else "default 3%"))
        print("| workload | CPU ms | +0%%: FAIL | +0%%: median MDE | +%g%%: caught | +%g%% measured "
              "outside | runs median/max | s median/max | 2x caught |" % (a.plant, a.plant))
        print("|---|---|---|---|---|---|---|---|---|")
        for n, r in results.items():
            if "baseline_0" not in r:
                continue
            z, p, x = r["baseline_0"], r["baseline_plant"], r["baseline_2x"]
            print("| %s | %.0f | %d/%d | %s%% | %d/%d | %+.1f%% | %s/%s | %.1f/%.1f | %d/%d |" % (
                n, r["base_cpu_ms"], z["fail"], z["checks"], fmt(z["mde_median"]),
                p["time_fail"], p["checks"], p["plant_measured_pct"], fmt(p["runs_median"]),
                fmt(p["runs_max"]),
                p["secs_median"], p["secs_max"], x["fail"], x["checks"]))
    if "mde" in modes:
        print("\n### honesty of the stated detection limit\n")
        print("| workload | planted at the median stated MDE | caught |")
        print("|---|---|---|")
        for n, r in results.items():
            if "mde_check" in r:
                print("| %s | +%.1f%% | %d/%d |" % (n, r["mde_at"], r["mde_check"]["time_fail"],
                                                 r["mde_check"]["checks"]))
    if "golden" in modes:
        print("\n### against a golden trace (%d checks)\n" % a.checks)
        print("| workload | +0%: FAIL | +0%: WARN rows seen | 2x: caught (never green) |")
        print("|---|---|---|---|")
        for n, r in results.items():
            if "golden_0" not in r:
                continue
            z, x = r["golden_0"], r["golden_2x"]
            print("| %s | %d/%d | %d/%d checks not green | %d/%d |" % (
                n, z["fail"], z["checks"], z["checks"] - z["green"], z["checks"], x["fail"],
                x["checks"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
