#!/bin/sh
# bench-json.sh BINARY_DIR - `renacer check --bench-json FILE` writes what
# github-action-benchmark reads with `tool: customSmallerIsBetter`: a JSON array of objects
# with a string `name`, a string `unit`, a finite number `value`, and optionally string
# `range` and `extra` (its extractCustomBenchmarkResult keeps exactly those five keys).
# Names must be unique (the action keys its history by name). Exit 77 without python3 or
# without the ptrace collector.
set -eu

bin=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rn-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null 2>&1 || {
	echo "SKIP: no python3" >&2
	exit 77
}

cat >"$tmp/renacer.toml" <<CONFIG
[[target]]
name = "work"
command = ["$bin/targets/example_work", "5"]
runs = 3

[[assertion]]
name = "fsync_loose"
type = "span_count"
max_spans = 1000
span_name_pattern = "f(data)?sync"
CONFIG
set +e
"$bin/renacer" check --no-github --no-golden --quiet --config "$tmp/renacer.toml" \
	--bench-json "$tmp/bench.json" 2>"$tmp/stderr"
rc=$?
set -e
if [ "$rc" = 5 ]; then
	echo "SKIP: the ptrace collector is unavailable here" >&2
	exit 77
fi
if [ "$rc" != 0 ]; then
	cat "$tmp/stderr" >&2
	echo "FAIL: exit $rc" >&2
	exit 1
fi

python3 - "$tmp/bench.json" <<'PY'
import json, math, sys

with open(sys.argv[1]) as f:
    data = json.load(f)
assert isinstance(data, list) and data, "not a non-empty array"
names = set()
for e in data:
    assert isinstance(e, dict), e
    extra_keys = set(e) - {"name", "unit", "value", "range", "extra"}
    assert not extra_keys, f"keys the action drops: {extra_keys}"
    assert isinstance(e.get("name"), str) and e["name"], e
    assert isinstance(e.get("unit"), str) and e["unit"], e
    v = e.get("value")
    assert isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), e
    assert v >= 0, e
    for k in ("range", "extra"):
        assert k not in e or isinstance(e[k], str), e
    assert e["name"] not in names, f"duplicate name {e['name']}"
    names.add(e["name"])
by = {e["name"]: e for e in data}
want = {"work wall_time": "ms", "work critical_path": "ms", "work peak_rss": "bytes",
        "work syscalls": "syscalls"}
for name, unit in want.items():
    assert name in by, f"missing {name!r}; have {sorted(by)}"
    assert by[name]["unit"] == unit, by[name]
assert by["work syscalls"]["value"] >= 5, by["work syscalls"]  # at least the five fsync calls
assert 0 < by["work wall_time"]["value"] < 60000, by["work wall_time"]
assert by["work peak_rss"]["value"] > 0, by["work peak_rss"]
print(f"ok: {len(data)} entries in customSmallerIsBetter format")
PY
