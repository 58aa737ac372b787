#!/bin/sh
# How fast is `renacer validate` on a large config (the pre-commit hook's cost)?
#
#     tests/bench/validate.sh [BUILD_DIR] [ASSERTIONS]     defaults: build, 200
#
# Generates a config with ASSERTIONS [[assertion]] tables (all four types, regexes compiled)
# and 10 targets, then reports the median and p95 wall time of 50 validations.
set -eu
build=$(cd "${1:-build}" && pwd)
n=${2:-200}
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
python3 - "$build/renacer" "$tmp/renacer.toml" "$n" <<'PY'
import statistics, subprocess, sys, time
exe, cfg, n = sys.argv[1], sys.argv[2], sys.argv[3]
times = []
for _ in range(50):
    t0 = time.perf_counter()
    subprocess.run([exe, "validate", "--config", cfg, "-q"], check=True)
    times.append((time.perf_counter() - t0) * 1000)
times.sort()
print(f"renacer validate, {n} assertions: median {statistics.median(times):.2f} ms, "
      f"p95 {times[int(0.95 * len(times)) - 1]:.2f} ms, min {times[0]:.2f} ms (50 runs, process "
      f"start included)")
PY
