#!/usr/bin/env python3
"""page_store.py OUT.json - a synthetic renacer-history/1 store for the report page tests.

40 runs of target "app" on machine "m1" (branch main; every fifth on branch "feature"), one
commit each with a subject; the commit subject of run 7 is an HTML injection attempt. Metrics:
wall_time around 100 ms with a 10x outlier at run 12 and a +10% step at run 25; peak_rss around
18 MB; processes flat at 3. Per-syscall counts: openat 100 per run, doubled to 200 from run 30
(the planted regression); read 500, mmap 40 with +-1 noise; close flat 100. Verdicts: a budget
on wall_time (FAIL at the outlier) and one on openat. Each run has a two-segment critical path.
Run ids in the store follow the order of the file (a fresh store: 1..40).
"""
import json, random, sys

rnd = random.Random(3)
runs = []
for i in range(1, 41):
    wall = 100e6 * (1.10 if i >= 25 else 1.0) * (1 + 0.01 * rnd.gauss(0, 1))
    if i == 12:
        wall *= 10
    samples = [wall * (1 + 0.005 * rnd.gauss(0, 1)) for _ in range(3)]
    rss = 18042880 + rnd.randint(-4096, 4096)
    openat = 200 if i >= 30 else 100
    subject = "speed up the parser (%d)" % i
    if i == 7:
        subject = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>'
    runs.append({
        "uid": "page-%02d" % i, "created_ns": 1763000000000000000 + i * 3600 * 10**9,
        "commit": "%02d%038x" % (i, i * 7919), "branch": "feature" if i % 5 == 0 else "main",
        "machine": "m1", "machine_desc": "synthetic", "source": "check",
        "config": "renacer.toml", "renacer_version": "test", "exit_code": 1 if i == 12 else 0,
        "subject": subject, "author_ns": 1763000000000000000 + i * 3600 * 10**9 - 600 * 10**9,
        "rerun_of": None,
        "results": [
            {"target": "app", "metric": "wall_time", "unit": "ns", "nsamples": 3,
             "median": sorted(samples)[1], "min": min(samples), "max": max(samples),
             "samples": samples},
            {"target": "app", "metric": "peak_rss", "unit": "bytes", "nsamples": 1,
             "median": rss, "min": rss, "max": rss, "samples": [rss]},
            {"target": "app", "metric": "processes", "unit": "count", "nsamples": 1,
             "median": 3, "min": 3, "max": 3, "samples": [3]},
        ],
        "verdicts": [
            {"target": "app", "assertion": "fast", "type": "critical_path",
             "verdict": "FAIL" if i == 12 else "PASS", "observed": sorted(samples)[1] / 1e6,
             "budget": 500.0, "golden": None, "unit": "ms", "message": "critical path"},
            {"target": "app", "assertion": "few_opens", "type": "span_count",
             "verdict": "PASS", "observed": openat, "budget": 1000.0, "golden": None,
             "unit": "calls", "message": "openat spans"},
        ],
        "critical_path": [
            {"target": "app", "seq": 0, "process": "app", "pid": 100 + i, "start_ns": 0,
             "end_ns": 40000000},
            {"target": "app", "seq": 1, "process": "worker", "pid": 200 + i,
             "start_ns": 40000000, "end_ns": int(wall)},
        ],
        "syscalls": [
            {"target": "app", "syscall": "close", "calls": 100, "errors": 0, "time_ns": None},
            {"target": "app", "syscall": "mmap", "calls": 40 + rnd.randint(-1, 1), "errors": 0,
             "time_ns": None},
            {"target": "app", "syscall": "openat", "calls": openat, "errors": 2,
             "time_ns": None},
            {"target": "app", "syscall": "read", "calls": 500 + rnd.randint(-1, 1), "errors": 0,
             "time_ns": None},
        ],
    })
json.dump({"format": "renacer-history/1", "runs": runs}, open(sys.argv[1], "w"))
