#!/usr/bin/env python3
"""explain_cli.py - `renacer trace` options that explain where time goes: -c --percentiles
(per-syscall latency percentiles), --inject (faults and delays, against strace's own
--inject), -p PID (attach and detach) and --format csv.

Timing bounds stay in tests/bench/ptrace/explain_bench.py; here a percentile must land in the
right class of planted latencies (a 40 ms sleep is never reported below 40 ms, nor as 100 ms).

Usage: explain_cli.py --renacer PATH --targets DIR
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL " + what)
    return cond


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                          **kw)


def pct_rows(text):
    """syscall -> (calls, p50, p90, p99, max) in us from a -c --percentiles table."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*\d+\.\d+\s+\d+\.\d+\s+\d+\s+(\d+)\s+(?:\d+\s+)?"
                     r"(\d+\.\d)\s+(\d+\.\d)\s+(\d+\.\d)\s+(\d+\.\d)\s+(\S+)\s*$", line)
        if m:
            rows[m.group(6)] = (int(m.group(1)),) + tuple(float(m.group(i)) for i in range(2, 6))
    return rows


def test_percentiles(R, T, work):
    sleeps = os.path.join(T, "pt_sleeps")
    # 5 x 40 ms, 4 x 100 ms, 1 x 200 ms: p50 = 40 ms, p90 = 100 ms, p99 = max = 200 ms
    r = run([R, "trace", "-c", "--percentiles", "--", sleeps, "40:5", "100:4", "200:1"])
    text = r.stderr.decode()
    check(r.returncode == 0, "percentiles: exit 0")
    check(re.search(r"^% time +seconds +usecs/call +calls +errors +p50 us +p90 us +p99 us "
                    r"+max us syscall$", text, re.M) is not None, "percentiles: header")
    rows = pct_rows(text)
    sl = rows.get("clock_nanosleep") or rows.get("nanosleep")
    if check(sl is not None, "percentiles: a nanosleep row: %s" % text):
        calls, p50, p90, p99, mx = sl
        check(calls == 10, "percentiles: 10 sleeps (%d)" % calls)
        # the histogram's error is <= 0.4%; a sleep never ends early
        check(40000 * 0.996 <= p50 < 100000 * 0.996, "percentiles: p50 is a 40 ms sleep: %s" % p50)
        check(100000 * 0.996 <= p90 < 200000 * 0.996, "percentiles: p90 is a 100 ms sleep: %s" % p90)
        check(p99 >= 200000 * 0.996 and mx >= 200000, "percentiles: p99/max are the 200 ms one")
        check(p50 <= p90 <= p99 <= mx, "percentiles: ordered")
    check(re.search(r"^100\.00 .* total$", text, re.M) is not None, "percentiles: total line")
    # without --percentiles: strace's layout unchanged
    r = run([R, "trace", "-c", "--", sleeps, "1:1"])
    check(b"p50 us" not in r.stderr and
          b"% time     seconds  usecs/call     calls    errors syscall\n" in r.stderr,
          "no --percentiles: strace's columns only")
    # JSON summary carries them
    out = os.path.join(work, "p.json")
    r = run([R, "trace", "-c", "--percentiles", "--format", "json", "-o", out, "--", sleeps,
             "20:3", "60:1"])
    doc = json.load(open(out))
    row = [s for s in doc["summary"] if s["syscall"] in ("clock_nanosleep", "nanosleep")]
    if check(len(row) == 1, "percentiles json: one sleep row"):
        s = row[0]
        check(20e6 * 0.996 <= s["p50_ns"] < 60e6 * 0.996, "json p50_ns: %d" % s["p50_ns"])
        check(s["p99_ns"] >= 60e6 * 0.996 and s["max_ns"] >= 60e6, "json p99_ns/max_ns")
        check(s["p50_ns"] <= s["p90_ns"] <= s["p99_ns"] <= s["max_ns"], "json: ordered")
    # durations are needed
    r = run([R, "trace", "-c", "--percentiles", "--count-only", "--", "true"])
    check(r.returncode == 2 and b"--percentiles needs durations" in r.stderr,
          "--percentiles --count-only is a usage error: %r" % r.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--renacer", required=True)
    ap.add_argument("--targets", required=True)
    a = ap.parse_args()
    R, T = a.renacer, a.targets
    work = tempfile.mkdtemp(prefix="rn-explain-")
    try:
        probe = run([R, "trace", "-c", "--", "true"])
        if probe.returncode != 0 and b"not permitted" in probe.stderr:
            print("SKIP: ptrace is not permitted here")
            return 77
        test_percentiles(R, T, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
