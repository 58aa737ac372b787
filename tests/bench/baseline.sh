#!/bin/sh
# Same-job baseline benchmark: does `renacer check --baseline` catch a 10% slowdown, stay
# quiet when nothing changed, and never PASS a 5% slowdown, with a CPU-heavy process competing
# for the machine?
#
#     tests/bench/baseline.sh [BUILD_DIR] [CHECKS] [PAIRS]      defaults: build, 20, 10
#
# Base: pt_compute 70 20000 (about 70 ms of computing, 20,000 syscalls). Heads: the same with
# +10% computing (77), +0% and +5% (73.5). Each scenario runs CHECKS checks of PAIRS timing
# pairs each and classifies each check by its baseline time rows (wall_time, critical_path,
# cpu_time): FAIL if any failed, else INCONCLUSIVE if any was inconclusive, else PASS.
# A busy loop runs on the side for the whole benchmark (killed at the end).
set -u
build=$(cd "${1:-build}" && pwd)
checks=${2:-20}
pairs=${3:-10}
tmp=$(mktemp -d)
hog=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null; rm -rf "$tmp"' EXIT

# tree DIR MILLIONS: a checkout whose build/app computes MILLIONS million rounds.
tree() {
	mkdir -p "$tmp/$1/build"
	printf '#!/bin/sh\nexec %s %s 20000\n' "$build/targets/pt_compute" "$2" >"$tmp/$1/build/app"
	chmod +x "$tmp/$1/build/app"
	cat >"$tmp/$1/renacer.toml" <<T
[[target]]
name = "compute"
command = ["./build/app"]
runs = $pairs
warmup = 1
T
}

sh -c 'while :; do :; done' &
hog=$!

tree base 70
printf '%-10s %6s %6s %13s %6s\n' head checks FAIL INCONCLUSIVE PASS
for scenario in "+10%:77" "+0%:70" "+5%:73.5"; do
	label=${scenario%%:*}
	rm -rf "$tmp/head"
	tree head "${scenario#*:}"
	nfail=0 ninc=0 npass=0
	for i in $(seq "$checks"); do
		(cd "$tmp/head" && "$build/renacer" check --no-color -q --baseline ../base \
			2>"$tmp/err" >/dev/null)
		rows=$(grep -E "baseline:(wall_time|critical_path|cpu_time) " "$tmp/err" | grep -v '^  ')
		if echo "$rows" | grep -q " FAIL "; then
			nfail=$((nfail + 1))
		elif echo "$rows" | grep -q " WARN "; then
			ninc=$((ninc + 1))
		elif echo "$rows" | grep -q " PASS "; then
			npass=$((npass + 1))
		else
			echo "check $i of head $label judged nothing:" >&2
			tail -5 "$tmp/err" >&2
		fi
	done
	printf '%-10s %6s %6s %13s %6s\n' "$label" "$checks" "$nfail" "$ninc" "$npass"
done
