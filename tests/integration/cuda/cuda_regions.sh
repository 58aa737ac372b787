#!/bin/sh
# cuda_regions.sh BUILD_DIR - run targets/cuda_regions under `renacer check` with the CUDA
# collector and demand exact per-region counts (cuda_regions.cu says what each
# NVTX region holds): span_count with region_pattern, each asserted twice (max_spans = N
# must pass and N-1 must fail). Then: the 165-character templated kernel name is matched by
# an end-anchored pattern, kept whole in the trace JSON and shortened in the console
# message. Exits 77 (skip) without an NVIDIA GPU.
set -u
set -f # patterns below must not glob
build=$(cd "$1" && pwd) || exit 1
renacer=$build/renacer
target=$build/targets/cuda_regions
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU: skipped"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# name|span_name_pattern|region_pattern|count ("-" = no region filter)
cases='main_all|gpu:.*|main|40
main_step|gpu:rn_step\(.*\)|main|20
main_mix|gpu:rn_mix\(.*\)|main|20
worker_thread|gpu:rn_mix\(.*\)|worker|6
warmup|gpu:.*|warm-up|5
tail_startend|gpu:.*|tail|7
graph_kernels|gpu:rn_.*|graphs|12
graph_replays|graph:[0-9]+|graphs|4
long_name|gpu:void rn_long_templated_kernel_name_that_goes_on<.*>\(float\*, int\)|long|2
regions|region:.*|-|6
region_main|region:main|-|1
all_kernels|gpu:.*|-|75'

# write_config SLACK: every budget is the known count minus SLACK. Regions hold their own
# thread's work (region_scope "thread"): "worker" is open on a second thread while "main" is.
write_config() {
	slack=$1
	{
		printf '[[target]]\nname = "regions"\ncommand = ["%s"]\n' "$target"
		printf 'collectors = ["cuda"]\nregion_scope = "thread"\n'
		printf '%s\n' "$cases" | while IFS='|' read -r name pat region count; do
			printf '[[assertion]]\nname = "%s"\ntype = "span_count"\n' "$name"
			printf 'max_spans = %d\nspan_name_pattern = "%s"\n' $((count - slack)) \
				"$(printf '%s' "$pat" | sed 's/\\/\\\\/g')"
			[ "$region" = - ] || printf 'region_pattern = "%s"\n' "$region"
		done
	} >"$tmp/renacer.toml"
}

ncases=$(printf '%s\n' "$cases" | wc -l)
write_config 0
if ! "$renacer" check --config "$tmp/renacer.toml" --no-golden \
	--trace-out "$tmp/trace.json" >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "FAIL: exact per-region budgets did not pass"
	exit 1
fi
cat "$tmp/out"
write_config 1
"$renacer" check --config "$tmp/renacer.toml" --no-golden --junit "$tmp/junit.xml" \
	--otlp-file "$tmp/otlp.jsonl" >"$tmp/out1" 2>&1
fails=$(grep -c ' FAIL' "$tmp/out1")
if [ "$fails" -lt "$ncases" ]; then
	cat "$tmp/out1"
	echo "FAIL: expected all $ncases assertions to fail one below their counts, got $fails"
	exit 1
fi
full='void rn_long_templated_kernel_name_that_goes_on<rn_a_rather_long_policy_name_for_tests<float, 3, 7>, float, 4, rn_another_tag_type_with_a_long_name_too>(float*, int)'
if ! grep -qF "\"name\":\"gpu:$full\"" "$tmp/trace.json"; then
	echo "FAIL: the trace JSON does not hold the full 165-character kernel name"
	exit 1
fi
# The failure line of long_name (console) shows the shortened name; the JUnit body and the
# OTLP file keep the full one.
line=$(grep 'FAIL regions/long_name:' "$tmp/out1")
case $line in
*"$full"*)
	echo "FAIL: the console line of long_name shows the full name: $line"
	exit 1
	;;
*'void rn_long_templated_kernel_name_that_goes_on<'*'...'*'(float*, int)'*) ;;
*)
	echo "FAIL: the console line of long_name shows no shortened name: $line"
	exit 1
	;;
esac
for f in junit.xml otlp.jsonl; do
	if ! grep -qF "rn_another_tag_type_with_a_long_name_too" "$tmp/$f"; then
		echo "FAIL: $f does not keep the full kernel name"
		exit 1
	fi
done
# renacer trace --collectors cuda -c: the GPU table counts kernels per name (graph replays
# included: rn_step 5 + 20 + 8 + 3, rn_mix 20 + 6 + 7 + 4), shortens the long name, lists the
# regions and the graph replays; the per-kernel lines carry regions in full.
"$renacer" trace --collectors cuda -c -o "$tmp/sum" -- "$target" >/dev/null || {
	echo "FAIL: renacer trace --collectors cuda -c failed"
	exit 1
}
cat "$tmp/sum"
calls() { # KIND NAME-PREFIX -> calls column of the first matching row
	awk -v k="$1" -v n="$2" '$7 == k && index(substr($0, index($0, $7) + 12), n) == 1 {
		print $3; exit }' "$tmp/sum"
}
for want in 'dispatch rn_step(float*, 36' 'dispatch rn_mix(float*, 37' \
	'dispatch void 2' 'region main 1' 'region graphs 1'; do
	k=${want%% *}
	rest=${want#* }
	n=${rest##* }
	name=${rest% *}
	got=$(calls "$k" "$name")
	[ "$got" = "$n" ] || {
		echo "FAIL: trace -c: $k '$name' has $got calls, want $n"
		exit 1
	}
done
grep -q ' graph  *graph:[0-9]' "$tmp/sum" || { echo "FAIL: trace -c lists no graph replay"; exit 1; }
grep -q 'rn_long_templated_kernel_name_that_goes_on<.*\.\.\.' "$tmp/sum" || {
	echo "FAIL: trace -c does not shorten the long kernel name"
	exit 1
}
"$renacer" trace --collectors cuda -o "$tmp/lines" -- "$target" >/dev/null || exit 1
n=$(grep -c ' dispatch  *gpu:rn_step(float\*, int) <[0-9.]*> region=main ' "$tmp/lines")
[ "$n" = 20 ] || { echo "FAIL: $n rn_step lines in region main, want 20"; exit 1; }
grep -qF "$full" "$tmp/lines" || { echo "FAIL: per-kernel lines do not show the full name"; exit 1; }
echo "PASS: exact per-region counts, full names in JSON, JUnit and OTLP, short on the console"
