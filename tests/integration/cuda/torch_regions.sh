#!/bin/sh
# torch_regions.sh BUILD_DIR PYTHON - the kernels renacer attributes to a torch.cuda.nvtx.range
# region against torch.profiler's count of the same range (torch_regions.py):
# the profiler runs alone first (it would compete with renacer for CUPTI), then renacer check
# runs the same script with a span_count region assertion whose budget is the profiler's
# count (must pass) and that count minus one (must fail). Exits 77 (skip) without an NVIDIA
# GPU or without torch.
set -u
build=$(cd "$1" && pwd) || exit 1
py=$2
renacer=$build/renacer
script=$(cd "$(dirname "$0")" && pwd)/torch_regions.py
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU: skipped"
	exit 77
fi
if ! "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
	>/dev/null 2>&1; then
	echo "no PyTorch with CUDA for $py: skipped"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$py" "$script" profile >"$tmp/prof" 2>&1 || {
	cat "$tmp/prof"
	echo "FAIL: the profiler run failed"
	exit 1
}
want=$(sed -n 's/^profiler_kernels=//p' "$tmp/prof")
if [ -z "$want" ] || [ "$want" -lt 1 ]; then
	cat "$tmp/prof"
	echo "FAIL: torch.profiler saw no kernels in the range"
	exit 1
fi
echo "torch.profiler: $want kernels in range \"main\""

# Kernels only: copies and memsets are "gpu:memcpy_*" / "gpu:memset".
write_config() {
	printf '[[target]]\nname = "torch"\ncommand = ["%s", "%s"]\n' "$py" "$script"
	printf 'collectors = ["cuda"]\ntimeout_s = 300\n'
	printf '[[assertion]]\nname = "main_kernels"\ntype = "span_count"\n'
	printf 'max_spans = %d\nregion_pattern = "main"\n' "$1"
	printf 'span_name_pattern = "gpu:([^m].*|m[^e].*|me[^m].*|mem[^cs].*|m|me|mem)"\n'
}
write_config "$want" >"$tmp/renacer.toml"
if ! "$renacer" check --config "$tmp/renacer.toml" --no-golden \
	--trace-out "$tmp/trace.json" >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "FAIL: renacer's count of kernels in \"main\" exceeds torch.profiler's $want"
	exit 1
fi
cat "$tmp/out"
got=$("$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
print(sum(1 for e in ev if isinstance(e.get("args"), dict)
          and e["args"].get("kind") == "dispatch" and e["args"].get("region") == "main"))
' "$tmp/trace.json")
echo "renacer: $got kernels in region \"main\" (torch.profiler: $want)"
if [ "$got" != "$want" ]; then
	echo "FAIL: renacer counted $got kernels in \"main\", torch.profiler $want"
	exit 1
fi
write_config $((want - 1)) >"$tmp/renacer.toml"
if "$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out1" 2>&1; then
	cat "$tmp/out1"
	echo "FAIL: a budget one below the profiler's count passed"
	exit 1
fi
echo "PASS: renacer and torch.profiler agree: $want kernels in \"main\""
