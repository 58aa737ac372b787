#!/bin/sh
# How fast is `renacer merge` on a sharded suite (the merge job's own cost)?
#
#     tests/bench/merge.sh [BUILD_DIR] [TARGETS] [RUNS]     defaults: build, 100, 10
#
# Generates a suite of TARGETS targets (`sh -c`, `true`) with RUNS measured runs each and four
# assertions that apply to every target, checks it as 3 shards (`renacer check --shard k/3
# --results`), then times `renacer merge` of the 3 results files writing the console report and
# JUnit XML: the median, p95 and min wall time of 30 merges, process start included, and their
# CPU time (user + system: the figure to trust on a loaded machine). Also prints the results
# files' sizes. The bar of the sharding issue: under 200 ms for 100 targets.
set -eu
build=$(cd "${1:-build}" && pwd)
n=${2:-100}
runs=${3:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 - renacer.toml "$n" "$runs" <<'PY'
import sys
path, n, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "w") as f:
    for t in range(n):
        cmd = '["true"]' if t % 2 else '["sh", "-c", "echo x >/dev/null"]'
        f.write(f'[[target]]\nname = "t{t:03d}"\ncommand = {cmd}\nruns = {runs}\n\n')
    f.write('[[assertion]]\nname = "quick"\ntype = "critical_path"\nmax_duration_ms = 60000\n\n'
            '[[assertion]]\nname = "few_execs"\ntype = "span_count"\n'
            'span_name_pattern = "execve"\nmax_spans = 5\n\n'
            '[[assertion]]\nname = "rss"\ntype = "memory_usage"\nmax_bytes = 1073741824\n\n'
            '[[assertion]]\nname = "no_loop"\ntype = "anti_pattern"\npattern = "TightLoop"\n')
PY
for k in 1 2 3; do
	"$build/renacer" check -q --no-github --shard "$k/3" --results "s$k.json" >/dev/null 2>&1 ||
		[ $? -le 1 ] || { echo "shard $k failed" >&2; exit 1; }
done
python3 - "$build/renacer" "$n" "$runs" <<'PY'
import os, resource, statistics, subprocess, sys, time
exe, n, runs = sys.argv[1], sys.argv[2], sys.argv[3]
files = ["s1.json", "s2.json", "s3.json"]
size = sum(os.path.getsize(f) for f in files)
wall, cpu = [], []
for _ in range(30):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([exe, "merge", "--no-github", "--no-color", "--junit", "merged.xml"] + files,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall.append((time.perf_counter() - t0) * 1000)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    if r.returncode > 1:
        sys.exit(f"renacer merge exited {r.returncode}")
wall.sort()
cpu.sort()
print(f"renacer merge, 3 shards of {n} targets x {runs} runs ({size / 1024:.0f} KiB of results), "
      f"30 merges, process start included (bar: 200 ms):\n"
      f"  wall: median {statistics.median(wall):.2f} ms, p95 {wall[int(0.95 * len(wall)) - 1]:.2f} ms, "
      f"min {wall[0]:.2f} ms\n"
      f"  cpu (user+sys): median {statistics.median(cpu):.2f} ms, max {cpu[-1]:.2f} ms; "
      f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
PY
