#!/bin/sh
# regenerate-golden.sh - re-record the golden traces of a renacer.toml and show what moved.
#
# Usage: regenerate-golden.sh [CONFIG] [-- extra `renacer golden update` options]
#   CONFIG defaults to renacer.toml in the current directory; a relative CONFIG is relative to
#   the current directory (run it from your repository), for example
#   path/to/regenerate-golden.sh perf/renacer.toml -- --target io_loop --runs 10
#
# Run it by hand when a change in syscalls, time or memory is intended (a failing golden:*
# verdict says so), review the table and `git diff`, then commit the golden files. It refuses
# to run in CI: re-recording there would silently accept the very regression the check caught.
# Set RN_REGENERATE_IN_CI=1 to override (for a job whose purpose is to propose new goldens).
#
# The renacer it runs: $RENACER when set, else `renacer` on PATH. Inside renacer's own source
# tree (the directory above this script is the current directory) it builds and runs the
# tree's renacer instead, and CONFIG defaults to renacer.toml.example there; BUILD (build
# directory, default build) and BUILD_TARGET (build only this target) apply to that case.
# The table uses the report's units: times in ms, memory in bytes, counts.
set -eu

if [ -n "${CI:-}${GITHUB_ACTIONS:-}${GITLAB_CI:-}${JENKINS_URL:-}" ] &&
	[ "${RN_REGENERATE_IN_CI:-0}" != 1 ]; then
	echo "regenerate-golden.sh: refusing to re-record golden traces in CI" \
		"(set RN_REGENERATE_IN_CI=1 to override)" >&2
	exit 2
fi

# renacer's own tree: the script's parent directory, when it is the current directory.
self_tree=
src=$(cd "$(dirname "$0")/.." 2>/dev/null && pwd -P) || src=
if [ -n "$src" ] && [ "$src" = "$(pwd -P)" ] && [ -f "$src/runner/check/check.c" ]; then
	self_tree=1
fi

if [ $# -gt 0 ] && [ "$1" != "--" ]; then
	config=$1
	shift
elif [ -n "$self_tree" ] && [ ! -f renacer.toml ]; then
	config=renacer.toml.example
else
	config=renacer.toml
fi
if [ "${1:-}" = "--" ]; then
	shift
fi

if [ ! -f "$config" ]; then
	echo "regenerate-golden.sh: config '$config' does not exist (relative to $(pwd))" >&2
	exit 2
fi
command -v python3 >/dev/null 2>&1 || {
	echo "regenerate-golden.sh: python3 is needed to compare the golden traces" >&2
	exit 2
}

if [ -n "${RENACER:-}" ]; then
	renacer=$RENACER
	if ! command -v "$renacer" >/dev/null 2>&1; then
		echo "regenerate-golden.sh: RENACER='$renacer' is not an executable" >&2
		exit 2
	fi
elif [ -n "$self_tree" ]; then
	BUILD=${BUILD:-build}
	if [ ! -d "$BUILD" ]; then
		echo "regenerate-golden.sh: build directory '$BUILD' does not exist;" \
			"configure it first: cmake -S . -B $BUILD" >&2
		exit 2
	fi
	cmake --build "$BUILD" -j"$(nproc 2>/dev/null || echo 2)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
	renacer=$BUILD/renacer
elif command -v renacer >/dev/null 2>&1; then
	renacer=renacer
else
	echo "regenerate-golden.sh: no renacer on PATH; install it or set RENACER=/path/to/renacer" >&2
	exit 2
fi

# The golden directory: [golden] dir of the config, relative to the config's directory.
golden_dir=$(python3 - "$config" <<'EOF'
import os, sys
try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ImportError:
        sys.exit("regenerate-golden.sh: python3 >= 3.11 (tomllib) or python3-tomli is needed "
                 "to read the config")
path = sys.argv[1]
with open(path, "rb") as f:
    cfg = tomllib.load(f)
d = cfg.get("golden", {}).get("dir", "golden_traces")
print(d if os.path.isabs(d) else os.path.join(os.path.dirname(path) or ".", d))
EOF
)

old=$(mktemp -d "${TMPDIR:-/tmp}/renacer-golden.XXXXXX")
trap 'rm -rf "$old"' EXIT INT TERM
if [ -d "$golden_dir" ]; then
	find "$golden_dir" -maxdepth 1 -name '*.json' -exec cp -p {} "$old"/ \;
fi

rc=0
"$renacer" golden update --config "$config" "$@" || rc=$?

python3 - "$old" "$golden_dir" <<'EOF'
# Per-target table of what changed between the saved and the new golden traces: the median of
# every metric, and each syscall's calls.
import json, os, statistics, sys

old_dir, new_dir = sys.argv[1], sys.argv[2]
# Units of the golden's samples (assertions/assertion.h RN_METRICS); the table shows them as
# the report does: ns as ms with 3 decimals, bytes as "N B", counts as plain numbers.
UNITS = {"wall_time": "ns", "critical_path": "ns", "cpu_time": "ns", "gpu_busy": "ns",
         "peak_rss": "bytes", "alloc_peak": "bytes", "alloc_total": "bytes",
         "gpu_copy_bytes": "bytes"}

def unit_of(metric):
    if metric in UNITS:
        return UNITS[metric]
    if (metric.endswith("_time") or metric.endswith("_ns") or metric.startswith("span_time:")
            or metric.startswith("span_cpu:")):
        return "ns"
    if metric.endswith("_bytes"):
        return "bytes"
    return None

def load(path):
    try:
        with open(path) as f:
            g = json.load(f)
    except (OSError, ValueError):
        return None
    if g.get("format") not in ("renacer-golden/1", "renacer-golden/2", "renacer-golden/3"):
        return None
    # renacer-golden/2 keeps the counting runs' samples apart: one table of metrics here;
    # renacer-golden/3 adds each app span's durations, shown as "span_time:app:<name>", and
    # where the spans carried it their thread CPU time, "span_cpu:app:<name>"
    g.setdefault("samples", {}).update(g.get("counting_samples", {}))
    for key, prefix in (("spans", "span_time:"), ("span_cpu", "span_cpu:")):
        for name, ns in g.get(key, {}).items():
            g["samples"][prefix + name] = ns
    return g

def human(v, unit):
    if v is None:
        return "-"
    if unit == "ns":
        return "%.3f ms" % (v / 1e6)
    if unit == "bytes":
        return "%.0f B" % v
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
            out.append((m, human(a, unit_of(m)), human(b, unit_of(m)), delta(a, b)))
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
