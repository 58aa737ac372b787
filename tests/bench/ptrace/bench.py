#!/usr/bin/env python3
"""bench.py - what tracing costs: renacer trace against strace on the same workloads.

Workloads: (a) 40,000 getppid, (b) 40,000 one-byte writes, (c) 200 forked children making
200 syscalls each, (d) 4 threads of 10,000 calls, (e) gzip, tar and find on generated data.

For every workload and CPU condition (unpinned, and `taskset -c 0` around the whole command),
the modes run interleaved, round after round, in a rotating order; each round gives a paired
ratio (renacer / strace, filtered / untraced) and the table shows the median of the ratios.

Modes:  untraced | strace -f -c | renacer trace -f -c | renacer trace -f -c -e trace=openat
        (filtered: seccomp-bpf) | renacer trace -f -c --count-only. With --slim PATH, the
        same for a second build of renacer (to compare two versions side by side).
Floors: mintrace.c (built here with cc). `mintrace all` is the least a full tracer that
        records anything can do: a stop at every syscall's entry and exit, reading
        PTRACE_GET_SYSCALL_INFO and the clock there; fl/str is that floor against strace and
        ren/fl what renacer adds to it. On the filtered workloads, `mintrace 257` is the least
        a seccomp tracer can do: seize, filter openat, stop at its entry and exit, follow the
        tree, record nothing. floor/untr is the kernel's price (one more fork and exec, the
        filter on every syscall, the stops); filt/floor is what renacer adds to it.

Memory: renacer's peak RSS (VmHWM, polled from /proc) tracing 10k and 10M getppid calls.

Usage: bench.py --renacer PATH --targets DIR [--slim PATH] [--rounds N] [--only a,b,..]
                [--no-memory] [--memory-calls N] [--json FILE]
Not a ctest: it takes minutes and wants a quiet machine.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def make_data(work):
    data = os.path.join(work, "data")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "big.txt"), "w") as f:
        for i in range(200000):
            f.write("line %d of a file that gzip and tar will read, %x\n" % (i, i * 7919))
    for i in range(400):
        d = os.path.join(data, "tree", "d%d" % (i % 20), "e%d" % (i % 7))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f%d.txt" % i), "w") as f:
            f.write("x" * (i * 13 % 4000))
    return data


def workloads(targets, work, data):
    t = lambda n: os.path.join(targets, n)
    gz = os.path.join(work, "out.gz")
    return [
        ("a", "40,000 getppid", [t("pt_loop"), "getppid", "40000"]),
        ("b", "40,000 small writes", [t("pt_loop"), "write", "40000"]),
        ("c", "200 children x 200 calls", [t("pt_forkwork"), "200", "200"]),
        ("d", "4 threads x 10,000 calls", [t("pt_threads"), "4", "10000"]),
        ("e-gzip", "gzip 10 MB", ["sh", "-c", "exec gzip -c -1 %s > %s" %
                                   (os.path.join(data, "big.txt"), gz)]),
        ("e-tar", "tar 400 files", ["tar", "-cf", os.path.join(work, "o.tar"), "-C",
                                    data, "tree"]),
        ("e-find", "find 400 files", ["find", os.path.join(data, "tree"), "-name", "*.txt"]),
    ]


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("command failed (%d): %s" % (r.returncode, " ".join(cmd)))
    return dt


OPENAT = {"x86_64": 257, "aarch64": 56}


def build_floor(work):
    """Compile mintrace.c next to this script; None when cc or the source is missing."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mintrace.c")
    out = os.path.join(work, "mintrace")
    cc = shutil.which("cc")
    if not cc or not os.path.exists(src) or platform.machine() not in OPENAT:
        return None
    r = subprocess.run([cc, "-O2", "-o", out, src])
    return out if r.returncode == 0 else None


def bench(renacer, slim, argv, pin, rounds, filtered, floor=None):
    pre = ["taskset", "-c", "0"] if pin else []
    tr = lambda binary, *opts: pre + [binary, "trace", "-f", "-c", *opts, "-o", os.devnull,
                                      "--"] + argv
    modes = {
        "untraced": pre + argv,
        "strace": pre + ["strace", "-f", "-c", "-o", os.devnull, "--"] + argv,
        "renacer": tr(renacer),
        "count": tr(slim or renacer, "--count-only"),
    }
    if floor:
        modes["fullfloor"] = pre + [floor, "all", "--"] + argv
    if filtered:
        modes["filtered"] = tr(renacer, "-e", "trace=openat")
        if floor:
            modes["floor"] = pre + [floor, str(OPENAT[platform.machine()]), "--"] + argv
    if slim:
        modes["slim"] = tr(slim)
        if filtered:
            modes["slim_filtered"] = tr(slim, "-e", "trace=openat")
    names = list(modes)
    times = {m: [] for m in names}
    for m in names:  # warm-up: page cache, binaries
        timed(modes[m])
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for m in order:
            times[m].append(timed(modes[m]))
    ratio = lambda a, b: statistics.median(x / y for x, y in zip(times[a], times[b]))
    out = {m: statistics.median(v) for m, v in times.items()}
    out["r_strace"] = ratio("renacer", "strace")
    out["r_count"] = ratio("count", "strace")
    if floor:
        out["r_fullfloor"] = ratio("fullfloor", "strace")
        out["r_ren_fullfloor"] = ratio("renacer", "fullfloor")
    if filtered:
        out["r_filtered"] = ratio("filtered", "untraced")
        if floor:
            out["r_floor"] = ratio("floor", "untraced")
            out["r_filt_floor"] = ratio("filtered", "floor")
    if slim:
        out["r_slim"] = ratio("slim", "strace")
        if filtered:
            out["r_slim_filtered"] = ratio("slim_filtered", "untraced")
    return out


def peak_rss_kb(cmd):
    """Peak RSS of the command's own process (not its children): VmHWM polled from /proc."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while p.poll() is None:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.01)
    if p.returncode != 0:
        raise RuntimeError("command failed: %s" % " ".join(cmd))
    return peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--slim")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--only")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--memory-calls", type=int, default=10000000)
    ap.add_argument("--compare-calls", type=int, default=1000000)
    ap.add_argument("--json")
    args = ap.parse_args()
    for tool in ("strace", "taskset", "gzip", "tar", "find"):
        if not shutil.which(tool):
            print("bench.py: %s is missing" % tool, file=sys.stderr)
            return 2

    work = tempfile.mkdtemp(prefix="rn-bench-")
    results = {"cpus": os.cpu_count(), "rounds": args.rounds, "rows": []}
    try:
        data = make_data(work)
        floor = build_floor(work)
        print("renacer trace vs strace -f -c: median of %d paired ratios per cell "
              "(%d CPUs)" % (args.rounds, os.cpu_count()))
        print("%-7s %-25s %-8s %9s %9s %9s %9s | %7s %7s %7s %7s %7s | %9s %9s %10s %10s" %
              ("load", "workload", "cpu", "untraced", "strace", "renacer", "slim",
               "ren/str", "slim/st", "cnt/str", "fl/str", "ren/fl", "filt/untr", "sfilt/unt",
               "floor/untr", "filt/floor"))
        f = lambda r, k: "%.3f" % r[k] if k in r else "-"
        for key, label, argv in workloads(args.targets, work, data):
            if args.only and key not in args.only.split(","):
                continue
            for pin in (False, True):
                filtered = key in ("a", "c", "d")
                r = bench(args.renacer, args.slim, argv, pin, args.rounds, filtered, floor)
                row = dict(r, load=key, workload=label, pinned=pin)
                results["rows"].append(row)
                print("%-7s %-25s %-8s %7.1fms %7.1fms %7.1fms %9s | %7s %7s %7s %7s %7s | "
                      "%9s %9s %10s %10s" %
                      (key, label, "taskset0" if pin else "unpinned", r["untraced"] * 1e3,
                       r["strace"] * 1e3, r["renacer"] * 1e3,
                       "%7.1fms" % (r["slim"] * 1e3) if "slim" in r else "-",
                       f(r, "r_strace"), f(r, "r_slim"), f(r, "r_count"),
                       f(r, "r_fullfloor"), f(r, "r_ren_fullfloor"),
                       f(r, "r_filtered"), f(r, "r_slim_filtered"), f(r, "r_floor"),
                       f(r, "r_filt_floor")), flush=True)
        if not args.no_memory:
            loop = os.path.abspath(os.path.join(args.targets, "pt_loop"))
            small = peak_rss_kb([args.renacer, "trace", "-f", "-c", "-o", os.devnull, "--",
                                 loop, "getppid", "10000"])
            big = peak_rss_kb([args.renacer, "trace", "-f", "-c", "-o", os.devnull, "--",
                               loop, "getppid", str(args.memory_calls)])
            results["memory"] = {"calls_small": 10000, "rss_small_kb": small,
                                 "calls_big": args.memory_calls, "rss_big_kb": big}
            print("memory: renacer peak RSS %d KiB tracing 10k calls, %d KiB tracing %d calls "
                  "(ratio %.2f)" % (small, big, args.memory_calls, big / small))
            # The same workload under strace -f -c, and under `renacer check` (the runner with
            # its config, metrics and reports), peak RSS side by side in one run.
            n = str(args.compare_calls)
            st = peak_rss_kb(["strace", "-f", "-c", "-o", os.devnull, loop, "getppid", n])
            rt = peak_rss_kb([args.renacer, "trace", "-f", "-c", "-o", os.devnull, "--",
                              loop, "getppid", n])
            cfg = os.path.join(work, "mem.toml")
            with open(cfg, "w") as f:
                f.write('[[target]]\nname = "loop"\ncommand = ["%s", "getppid", "%s"]\n'
                        '[[assertion]]\nname = "calls"\ntype = "span_count"\n'
                        'max_spans = 100000000\nspan_name_pattern = "getppid"\n' % (loop, n))
            rc_ = peak_rss_kb([args.renacer, "check", "--config", cfg, "--no-golden", "-q"])
            results["memory"].update({"compare_calls": args.compare_calls, "strace_kb": st,
                                      "trace_kb": rt, "check_kb": rc_})
            print("memory, %s getppid: strace -f -c %d KiB, renacer trace -f -c %d KiB "
                  "(%.2fx), renacer check %d KiB (%.2fx)" % (n, st, rt, rt / st, rc_, rc_ / st))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
