#!/bin/sh
# How fast is `renacer validate` on a large config (the pre-commit hook's cost)?
#
#     tests/bench/validate.sh [BUILD_DIR] [ASSERTIONS] [RUNS]     defaults: build, 200, 50
#
# Generates a config with ASSERTIONS [[assertion]] tables (all four types, regexes compiled)
# and 10 targets, then reports the median and p95 wall time of RUNS validations and the
# median CPU time (user + system; what a busy machine does not inflate). The bar for
# validation being linear: `tests/bench/validate.sh build 100000 5` under 1 s.
set -eu
build=$(cd "${1:-build}" && pwd)
n=${2:-200}
runs=${3:-50}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/renacer.toml" "$n" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    for t in range(10):
        f.write(f'[[target]]\nname = "t{t}"\ncommand = ["./bin/app{t}", "--input", "data/{t}.csv"]\n'
                f'runs = 5\nwarmup = 1\nenv = {{ LC_ALL = "C" }}\n\n')
    kinds = [
        'type = "critical_path"\nmax_duration_ms = 100\ntrace_name_pattern = "t[0-9]+"\n',
        'type = "span_count"\nmax_spans = 1000\nspan_name_pattern = "(open|close|read)(at)?"\n',
        'type = "memory_usage"\nmax_bytes = 104857600\ntracking_mode = "rss"\n',
        'type = "anti_pattern"\npattern = "TightLoop"\nthreshold = 0.7\nprocess_name_pattern = "app.*"\n',
    ]
    for i in range(n):
        f.write(f'[[assertion]]\nname = "a{i}"  # assertion {i}\n{kinds[i % 4]}'
                f'targets = ["t{i % 10}"]\nfail_on_violation = true\n\n')
PY
python3 - "$build/renacer" "$tmp/renacer.toml" "$n" "$runs" <<'PY'
import os, statistics, subprocess, sys, time
exe, cfg, n, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
times, cpus = [], []
for _ in range(runs):
    r0 = os.times()
    t0 = time.perf_counter()
    subprocess.run([exe, "validate", "--config", cfg, "-q"], check=True)
    times.append((time.perf_counter() - t0) * 1000)
    r1 = os.times()
    cpus.append((r1.children_user - r0.children_user + r1.children_system - r0.children_system) * 1000)
times.sort()
print(f"renacer validate, {n} assertions: median {statistics.median(times):.2f} ms, "
      f"p95 {times[max(int(0.95 * len(times)) - 1, 0)]:.2f} ms, min {times[0]:.2f} ms, "
      f"median CPU {statistics.median(cpus):.2f} ms ({runs} runs, process start included)")
PY
