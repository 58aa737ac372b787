#!/bin/sh
# regenerate-golden.sh - rebuild renacer, re-record the golden traces and show what moved.
#
# Usage: ci/regenerate-golden.sh [CONFIG] [-- extra `renacer golden update` options]
#   CONFIG defaults to renacer.toml.example; for example
#   ci/regenerate-golden.sh renacer.toml -- --target io_loop --runs 10
#
# Run it by hand when a change in syscalls, time or memory is intended (a failing golden:*
# verdict says so), review the table and `git diff`, then commit the golden files. It refuses
# to run in CI: re-recording there would silently accept the very regression the check caught.
# Set RN_REGENERATE_IN_CI=1 to override (for a job whose purpose is to propose new goldens).
#
# Environment: BUILD (build directory, default build); BUILD_TARGET (build only this target,
# for example renacer, instead of everything: the measured programs are part of the build).
set -eu

cd "$(dirname "$0")/.."

if [ -n "${CI:-}${GITHUB_ACTIONS:-}${GITLAB_CI:-}${JENKINS_URL:-}" ] &&
	[ "${RN_REGENERATE_IN_CI:-0}" != 1 ]; then
	echo "regenerate-golden.sh: refusing to re-record golden traces in CI" \
		"(set RN_REGENERATE_IN_CI=1 to override)" >&2
	exit 2
fi

config=${1:-renacer.toml.example}
if [ $# -gt 0 ]; then
	shift
fi
if [ "${1:-}" = "--" ]; then
	shift
fi
BUILD=${BUILD:-build}

if [ ! -f "$config" ]; then
	echo "regenerate-golden.sh: config '$config' does not exist" >&2
	exit 2
fi
if [ ! -d "$BUILD" ]; then
	echo "regenerate-golden.sh: build directory '$BUILD' does not exist;" \
		"configure it first: cmake -S . -B $BUILD" >&2
	exit 2
fi
command -v python3 >/dev/null 2>&1 || {
	echo "regenerate-golden.sh: python3 is needed to compare the golden traces" >&2
	exit 2
}

# The golden directory: [golden] dir of the config, relative to the config's directory.
golden_dir=$(python3 - "$config" <<'EOF'
import os, sys, tomllib
path = sys.argv[1]
with open(path, "rb") as f:
    cfg = tomllib.load(f)
d = cfg.get("golden", {}).get("dir", "golden_traces")
print(d if os.path.isabs(d) else os.path.join(os.path.dirname(path) or ".", d))
EOF
)

cmake --build "$BUILD" -j"$(nproc 2>/dev/null || echo 2)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}

old=$(mktemp -d "${TMPDIR:-/tmp}/renacer-golden.XXXXXX")
trap 'rm -rf "$old"' EXIT INT TERM
if [ -d "$golden_dir" ]; then
	find "$golden_dir" -maxdepth 1 -name '*.json' -exec cp -p {} "$old"/ \;
fi

rc=0
"$BUILD/renacer" golden update --config "$config" "$@" || rc=$?

python3 - "$old" "$golden_dir" <<'EOF'
# Per-target table of what changed between the saved and the new golden traces: the median of
# every metric, and each syscall's calls.
import json, os, statistics, sys

old_dir, new_dir = sys.argv[1], sys.argv[2]
UNITS = {"wall_time": "ns", "critical_path": "ns", "gpu_busy": "ns", "peak_rss": "bytes",
         "alloc_peak": "bytes", "alloc_total": "bytes", "gpu_copy_bytes": "bytes"}

def load(path):
    try:
        with open(path) as f:
            g = json.load(f)
    except (OSError, ValueError):
        return None
    if g.get("format") not in ("renacer-golden/1", "renacer-golden/2"):
        return None
    # renacer-golden/2 keeps the counting runs' samples apart: one table of metrics here
    g.setdefault("samples", {}).update(g.get("counting_samples", {}))
    return g

def human(v, unit):
    if v is None:
        return "-"
    if unit == "ns":
        return "%.2f ms" % (v / 1e6)
    if unit == "bytes":
        for scale, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if abs(v) >= scale:
                return "%.1f %s" % (v / scale, name)
        return "%d bytes" % v
    return ("%d" % v) if v == int(v) else ("%.1f" % v)

def delta(a, b):
    if a is None:
        return "new"
    if b is None:
        return "gone"
    if a == 0:
        return "+inf%" if b else "0.0%"
    return "%+.1f%%" % ((b - a) / a * 100.0)

def rows(old, new):
    out = []
    samples_old = old.get("samples", {}) if old else {}
    for m in sorted(new.get("samples", {})):
        a = statistics.median(samples_old[m]) if samples_old.get(m) else None
        b = statistics.median(new["samples"][m]) if new["samples"][m] else None
        if a != b:
            out.append((m, human(a, UNITS.get(m)), human(b, UNITS.get(m)), delta(a, b)))
    if old is None:
        # A new golden trace: its metrics, not a line per syscall.
        out.append(("(syscalls recorded)", "-", human(len(new.get("syscalls", {})), None), ""))
        return out
    sc_old = old.get("syscalls", {})
    sc_new = new.get("syscalls", {})
    for name in sorted(set(sc_old) | set(sc_new)):
        a = sc_old[name]["calls"] if name in sc_old else None
        b = sc_new[name]["calls"] if name in sc_new else None
        if a != b:
            out.append(("syscall " + name, human(a, None), human(b, None), delta(a, b)))
    return out

changed = 0
names = sorted(f for f in os.listdir(new_dir) if f.endswith(".json")) if os.path.isdir(new_dir) else []
for f in names:
    new = load(os.path.join(new_dir, f))
    if new is None:
        continue
    old = load(os.path.join(old_dir, f))
    if old is not None and old == new:
        continue
    changed += 1
    print()
    print("%s (%s)%s" % (new.get("target", f), os.path.join(new_dir, f),
                         "" if old is not None else ": new golden trace"))
    if old is not None:
        po, pn = old.get("provenance", {}), new.get("provenance", {})
        for k in ("cpu_model", "kernel", "machine", "build_id"):
            if po.get(k) != pn.get(k):
                print("  %s: %s -> %s" % (k, po.get(k), pn.get(k)))
        if old.get("runs") != new.get("runs"):
            print("  runs: %s -> %s" % (old.get("runs"), new.get("runs")))
    table = rows(old, new)
    if not table:
        print("  no metric changed")
        continue
    w = max(len(r[0]) for r in table + [("metric",)])
    print("  %-*s %14s %14s %9s" % (w, "metric", "old", "new", "delta"))
    for r in table:
        print("  %-*s %14s %14s %9s" % (w, r[0], r[1], r[2], r[3]))
print()
if changed:
    print("%d golden trace%s changed; review with `git diff %s` and commit if intended"
          % (changed, "" if changed == 1 else "s", new_dir))
else:
    print("no golden trace changed")
EOF

exit "$rc"
