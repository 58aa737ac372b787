#!/bin/sh
# vk_span_time.sh BUILD_DIR - span_time on GPU spans of targets/vk_compute (dispatch mode; the
# span counts are those of vk_regions.sh): the statistic is taken over exactly
# the matching spans (the message counts them), in a region when asked, and a budget the
# spans exceed fails. Exits 77 (skip) without a Vulkan device.
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

fail() {
	cat "$tmp/out"
	echo "FAIL: $*"
	exit 1
}

# name;span_name_pattern;region_pattern;stat;max_ms
{
	printf '[[target]]\nname = "vk"\ncommand = ["%s"]\n' "$target"
	printf 'collectors = ["vulkan"]\ngpu_timing = "dispatch"\n'
	printf '%s\n' 'all_work;gpu:.*;-;max;60000' 'scale_pass;gpu:.*;scale_pass;p95;60000' \
		'regions_total;region:.*;-;total;0' 'upload_p50;gpu:.*;upload;p50;60000' |
		while IFS=';' read -r name pat region stat max; do
			printf '[[assertion]]\nname = "%s"\ntype = "span_time"\n' "$name"
			printf 'span_name_pattern = "%s"\nstat = "%s"\nmax_ms = %s\n' "$pat" "$stat" "$max"
			[ "$region" = - ] || printf 'region_pattern = "%s"\n' "$region"
		done
} >"$tmp/renacer.toml"
"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "exit $rc, want 1 (regions_total fails)"
grep -q 'max of 30 spans matching /gpu:\.\*/' "$tmp/out" || fail "all_work: not over 30 GPU spans"
grep -q 'p95 of 6 spans matching /gpu:\.\*/ in region /scale_pass/' "$tmp/out" ||
	fail "scale_pass: not over its 6 dispatches"
grep -q 'p50 of 3 spans matching /gpu:\.\*/ in region /upload/' "$tmp/out" ||
	fail "upload: not over its 3 copies"
grep -q 'total of 7 spans matching /region:\.\*/' "$tmp/out" || fail "regions: not 7 spans"
[ "$(grep -c '^vk  *[a-z_0-9]*  *PASS' "$tmp/out")" = 3 ] || fail "want 3 PASS rows"
grep -q '^vk  *regions_total  *FAIL' "$tmp/out" || fail "regions_total did not fail"
echo "PASS: span_time on GPU spans"
