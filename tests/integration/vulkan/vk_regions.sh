#!/bin/sh
# vk_regions.sh BUILD_DIR - per-label counts of targets/vk_compute (tests/targets/vk_compute.c)
# under `renacer check` with the Vulkan collector in dispatch mode: GPU work is attributed to
# the innermost debug-utils label open where it was recorded, and each label is a region span.
# cb_a runs 3 times, cb_b once:
#   "scale_pass" 2 dispatches x 3 = 6     "upload" 1 copy x 3 = 3     "indirect_pass" 1
#   region spans: upload 3, scale_pass 3, indirect_pass 1 = 7
#   queue label "frame3" around submit 3, outside command buffer labels: 3 dispatches (add,
#   reduce, square), 3 copies (fill, copy, update), 2 command buffers = 8; the three label
#   regions of submit 3 lie in it too
# Each count is asserted twice: max_spans = N must pass and N-1 must fail. Exits 77 (skip)
# without a Vulkan device (vk_compute itself exits 77 then; renacer reports the target's exit).
set -u
set -f
build=$(cd "$1" && pwd) || exit 1
renacer=$build/renacer
target=$build/targets/vk_compute
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$target" >/dev/null 2>&1
if [ $? -eq 77 ]; then
	echo "no Vulkan device: skipped"
	exit 77
fi

# name;span_name_pattern;region_pattern;count ("-" = no region filter)
cases='scale_pass;gpu:.*;scale_pass;6
upload;gpu:.*;upload;3
indirect_pass;gpu:.*;indirect_pass;1
labelled;gpu:.*;scale_pass|indirect_pass|upload;10
any_region;gpu:.*;.*;18
region_scale_pass;region:scale_pass;-;3
regions;region:.*;-;7
frame3;gpu:.*;frame3;8
frame3_regions;region:.*;frame3;3
all_work;gpu:.*;-;30'

write_config() {
	slack=$1
	{
		printf '[[target]]\nname = "vk"\ncommand = ["%s"]\n' "$target"
		printf 'collectors = ["vulkan"]\ngpu_timing = "dispatch"\n'
		printf '%s\n' "$cases" | while IFS=';' read -r name pat region count; do
			printf '[[assertion]]\nname = "%s"\ntype = "span_count"\n' "$name"
			printf 'max_spans = %d\nspan_name_pattern = "%s"\n' $((count - slack)) "$pat"
			[ "$region" = - ] || printf 'region_pattern = "%s"\n' "$region"
		done
	} >"$tmp/renacer.toml"
}

ncases=$(printf '%s\n' "$cases" | wc -l)
write_config 0
if ! "$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "FAIL: exact per-label budgets did not pass"
	exit 1
fi
cat "$tmp/out"
write_config 1
"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out1" 2>&1
fails=$(grep -c ' FAIL' "$tmp/out1")
if [ "$fails" -lt "$ncases" ]; then
	cat "$tmp/out1"
	echo "FAIL: expected all $ncases assertions to fail one below their counts, got $fails"
	exit 1
fi
echo "PASS: exact per-label counts"
