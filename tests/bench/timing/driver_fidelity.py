#!/usr/bin/env python3
"""driver_fidelity.py - timing runs free of collectors, per syscall driver.

A timing run should time the program, not the collector: with the default driver (ptrace)
timing runs stop only at process events; with `driver = "ebpf"` the kernel counter must not be
live during them either. For each round, in a rotating order: the program alone (wall time
from Python), then `renacer check --runs 1 --bench-json` with `driver = "ptrace"` and with
`driver = "ebpf"`; the reported wall_time is read from the benchmark JSON. The table gives the
median of the paired ratios reported / native per driver (bar: <= 1.05 at 1M syscalls).

Workload: tests/targets/pt_compute MILLIONS N (integer work with N getppid calls interleaved).

Usage: driver_fidelity.py --renacer PATH --targets DIR [--rounds N] [--millions M]
                          [--calls N] [--drivers ptrace,ebpf]
The eBPF driver needs root (or CAP_BPF + CAP_PERFMON). Not a ctest: it takes minutes.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def native(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1e3


def reported(renacer, cfg, out):
    subprocess.run([renacer, "check", "-c", cfg, "--no-color", "--runs", "1", "--bench-json",
                    out], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        for row in json.load(f):
            if row["name"].endswith(" wall_time"):
                return row["value"]
    raise RuntimeError("no wall_time in " + out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--millions", type=float, default=5.0)
    ap.add_argument("--calls", type=int, default=1000000)
    ap.add_argument("--drivers", default="ptrace,ebpf")
    a = ap.parse_args()
    cmd = [os.path.join(a.targets, "pt_compute"), str(a.millions), str(a.calls)]
    drivers = a.drivers.split(",")
    ratios = {d: [] for d in drivers}
    nat = []
    with tempfile.TemporaryDirectory() as tmp:
        cfgs = {}
        for d in drivers:
            cfgs[d] = os.path.join(tmp, d + ".toml")
            with open(cfgs[d], "w") as f:
                f.write('[[target]]\nname = "fid"\ncommand = %s\ndriver = "%s"\n'
                        % (json.dumps(cmd), d))
        for r in range(a.rounds):
            order = ["native"] + drivers
            order = order[r % len(order):] + order[:r % len(order)]
            got = {}
            for m in order:
                got[m] = native(cmd) if m == "native" else \
                    reported(a.renacer, cfgs[m], os.path.join(tmp, m + ".json"))
            nat.append(got["native"])
            for d in drivers:
                ratios[d].append(got[d] / got["native"])
            print("round %d: native %.1f ms, %s" % (r + 1, got["native"], ", ".join(
                "%s %.1f ms (%.3fx)" % (d, got[d], got[d] / got["native"]) for d in drivers)),
                flush=True)
    print("\n%d rounds, pt_compute %g million, %d getppid; native median %.1f ms" %
          (a.rounds, a.millions, a.calls, statistics.median(nat)))
    print("driver   reported/native (median of paired ratios)  range")
    for d in drivers:
        print("%-8s %.3fx  %45s" % (d, statistics.median(ratios[d]),
                                    "%.3f-%.3f" % (min(ratios[d]), max(ratios[d]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
