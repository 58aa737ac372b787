#!/bin/sh
# vk_trace.sh BUILD_DIR - `renacer trace --collectors vulkan` on targets/vk_compute (dispatch
# timing, the default of trace): the -c table counts each dispatch name and label exactly
# (vk_regions.sh lists them), per-dispatch lines carry their region, and the
# JSON output holds every GPU span. Exits 77 (skip) without a Vulkan device.
set -u
build=$(cd "$1" && pwd) || exit 1
renacer=$build/renacer
target=$build/targets/vk_compute
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

"$target" >/dev/null 2>&1
if [ $? -eq 77 ]; then
	echo "no Vulkan device: skipped"
	exit 77
fi
"$renacer" trace --collectors vulkan -c -o "$tmp/sum" -- "$target" >/dev/null ||
	fail "renacer trace -c failed"
cat "$tmp/sum"
# calls column ($3), kind ($7), name ($8) of the table rows
row() {
	awk -v k="$1" -v n="$2" '$7 == k && $8 == n { print $3 }' "$tmp/sum"
}
[ "$(row dispatch scale_pass)" = 6 ] || fail "scale_pass dispatches: $(row dispatch scale_pass), want 6"
[ "$(row dispatch add_pipeline)" = 3 ] || fail "add_pipeline dispatches, want 3"
[ "$(row region scale_pass)" = 3 ] || fail "scale_pass regions, want 3"
[ "$(row cmdbuf frame_cb)" = 3 ] || fail "frame_cb command buffers, want 3"
grep -q '^100.00 .* 30  .*total (GPU work)$' "$tmp/sum" || fail "total is not 30 GPU spans"
# syscalls were not traced: no syscall table
grep -q 'syscall' "$tmp/sum" && fail "a syscall table without the ptrace collector"

"$renacer" trace --collectors vulkan -o "$tmp/lines" -- "$target" >/dev/null ||
	fail "renacer trace failed"
n=$(grep -c '^\[gpu [0-9]*\] [0-9.]* dispatch  *gpu:scale_pass <[0-9.]*> region=scale_pass' \
	"$tmp/lines")
[ "$n" = 6 ] || fail "$n scale_pass dispatch lines in region scale_pass, want 6"
n=$(grep -c '^\[gpu ' "$tmp/lines")
[ "$n" = 37 ] || fail "$n GPU lines, want 37 (30 spans of work, 7 regions)"
n=$(grep -c ' region=frame3' "$tmp/lines")
[ "$n" = 11 ] || fail "$n lines in queue label frame3, want 11 (8 spans, 3 label regions)"

"$renacer" trace --collectors vulkan --format json -o "$tmp/json" -- "$target" >/dev/null ||
	fail "renacer trace --format json failed"
python3 - "$tmp/json" <<'PY' || fail "JSON output"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["gpu"]
assert len(g) == 37, len(g)
assert sum(1 for s in g if s["kind"] == "dispatch" and s["region"] == "scale_pass") == 6
PY
echo "PASS: renacer trace --collectors vulkan"
