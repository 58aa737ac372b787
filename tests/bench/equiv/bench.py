#!/usr/bin/env python3
"""bench.py - the cost of `renacer trace --source` and of the behaviour-equivalence check.

1. --source: tests/targets/src_lines N makes N write(2) calls from one call site (put_marker
   inlined into report()). Interleaved runs of
     plain   renacer trace -o /dev/null -- src_lines N
     spool   renacer trace --format json -o /dev/null -- src_lines N   (spool + stacks, no DWARF)
     source  renacer trace --source -o /dev/null -- src_lines N
   report the median wall time of each and the extra cost per call of --source over plain.
2. equivalence: `renacer diff A B` on two recorded JSONL traces of src_lines N (N writes
   each: the per-file I/O sequence merges them), and on eq_orig vs eq_rewrite.

Timings on a shared machine are noisy: runs are interleaved and medians reported.
Usage: bench.py --renacer PATH --targets DIR [--calls 40000] [--runs 7]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


CPU = []


def wall(args):
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((ru1.ru_utime - ru0.ru_utime, ru1.ru_stime - ru0.ru_stime))
    if r.returncode not in (0, 1):
        sys.exit("failed: %s: %s" % (" ".join(args), r.stderr.decode()[-400:]))
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--calls", type=int, default=40000)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    R, T, N = a.renacer, a.targets, a.calls
    prog = [os.path.join(T, "src_lines"), str(N)]
    modes = {
        "plain": [R, "trace", "-o", "/dev/null", "--"] + prog,
        "spool": [R, "trace", "--format", "json", "-o", "/dev/null", "--"] + prog,
        "source": [R, "trace", "--source", "-o", "/dev/null", "--"] + prog,
    }
    times = {k: [] for k in modes}
    cpu = {k: [] for k in modes}
    wall(modes["source"])  # warm the page cache
    for _ in range(a.runs):
        for k, args in modes.items():
            times[k].append(wall(args))
            cpu[k].append(CPU[-1])
    med = {k: statistics.median(v) for k, v in times.items()}
    print("trace of %d write calls from one call site, median of %d interleaved runs:" %
          (N, a.runs))
    for k in modes:
        print("  %-7s %8.3f s wall (%.2f us/call); CPU of renacer + target: user %.3f s, "
              "sys %.3f s" % (k, med[k], med[k] / N * 1e6,
                              statistics.median(c[0] for c in cpu[k]),
                              statistics.median(c[1] for c in cpu[k])))
    print("  --source over plain: %+.3f s, %+.2f us/call, x%.2f" %
          (med["source"] - med["plain"], (med["source"] - med["plain"]) / N * 1e6,
           med["source"] / med["plain"]))
    print("  --source over spool (the DWARF part): %+.3f s, %+.2f us/call" %
          (med["source"] - med["spool"], (med["source"] - med["spool"]) / N * 1e6))

    work = tempfile.mkdtemp(prefix="rn-bench-eq-")
    ja, jb = os.path.join(work, "a.jsonl"), os.path.join(work, "b.jsonl")
    for j in (ja, jb):
        wall([R, "trace", "-f", "--format", "jsonl", "-o", j, "--"] + prog)
    size = os.path.getsize(ja)
    d = [wall([R, "diff", ja, jb]) for _ in range(a.runs)]
    print("renacer diff of two recorded traces of %d calls (%.1f MB each): median %.3f s "
          "(%.2f us/call)" % (N, size / 1e6, statistics.median(d),
                              statistics.median(d) / N * 1e6))
    oa, ob = os.path.join(work, "o.jsonl"), os.path.join(work, "r.jsonl")
    for j, p in ((oa, "eq_orig"), (ob, "eq_rewrite")):
        d1 = tempfile.mkdtemp(prefix="rn-bench-run-")
        wall([R, "trace", "-f", "--format", "jsonl", "-o", j, "--", os.path.join(T, p), d1])
    d = [wall([R, "diff", oa, ob]) for _ in range(a.runs)]
    print("renacer diff eq_orig vs eq_rewrite (%d + %d bytes): median %.4f s" %
          (os.path.getsize(oa), os.path.getsize(ob), statistics.median(d)))
    subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
