#!/bin/sh
# Integration tests of the instructions metric (Valgrind's cachegrind) and of the eBPF
# driver in `renacer check`.
#
#     instr_test.sh CASE BUILD_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped (with the reason on stdout).
set -u
case_name=$1
build=$2
renacer="$build/renacer"
work="$build/targets/example_work"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	[ -f "$tmp/out" ] && sed 's/^/  | /' "$tmp/out" >&2
	exit 1
}

run() {
	"$renacer" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# What the last command printed on both streams (the report goes to stderr).
all() {
	cat "$tmp/out" "$tmp/err"
}

need_valgrind() {
	command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind is not installed"; exit 77; }
}

# config ASSERTION_BUDGET [EXTRA TARGET KEYS]
config() {
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$work", "3"]
${2:-}
[[assertion]]
name = "work_instructions"
type = "instructions"
max_instructions = $1
[golden]
dir = "$tmp/golden"
EOT
}

# The count of the last check's Valgrind run, from the verdict line.
count_of() {
	all | sed -n 's/.*work_instructions *[A-Z]* *\([0-9][0-9]*\) instructions.*/\1/p' | head -n 1
}

case $case_name in
repeat)
	# A deterministic program executes the same number of instructions run after run, up
	# to a few tens in libc's start-up (mkstemp's random name, for one) on a busy machine:
	# the spread must stay within 1e-6 of the count.
	need_valgrind
	config 1000000000000
	min="" max=""
	for i in 1 2 3; do
		run check --no-color -q --no-golden --config "$tmp/renacer.toml"
		[ "$rc" = 0 ] || fail "run $i: exit $rc"
		n=$(count_of)
		[ -n "$n" ] && [ "$n" -gt 1000000 ] || fail "run $i: no instruction count read"
		{ [ -z "$min" ] || [ "$n" -lt "$min" ]; } && min=$n
		{ [ -z "$max" ] || [ "$n" -gt "$max" ]; } && max=$n
	done
	# (max - min) <= max / 1e6, in integers
	[ $(((max - min) * 1000000)) -le "$max" ] ||
		fail "3 runs counted $min to $max instructions: spread over 1e-6 of the count"
	echo "ok: 3 runs, $min to $max instructions"
	;;
budget)
	# The same count against a budget just above it passes, just below fails (exit 1).
	# Just = the 1e-6 of the count that runs may differ by (see repeat).
	need_valgrind
	config 1000000000000
	run check --no-color -q --no-golden --config "$tmp/renacer.toml"
	n=$(count_of)
	[ -n "$n" ] || fail "no count"
	slack=$((n / 1000000 + 1))
	config $((n + slack))
	run check --no-color -q --no-golden --config "$tmp/renacer.toml"
	[ "$rc" = 0 ] || fail "budget = count + $slack: exit $rc, expected 0"
	all | grep -q "work_instructions *PASS" || fail "budget = count + $slack is not PASS"
	config $((n - slack))
	run check --no-color -q --no-golden --config "$tmp/renacer.toml"
	[ "$rc" = 1 ] || fail "budget = count - $slack: exit $rc, expected 1"
	all | grep -q "work_instructions *FAIL" || fail "budget = count - $slack is not FAIL"
	# tolerance: 1% over a budget 0.5% below the count passes
	config "$((n - n / 200))
tolerance = 0.01"
	run check --no-color -q --no-golden --config "$tmp/renacer.toml"
	[ "$rc" = 0 ] || fail "tolerance 1%: exit $rc, expected 0"
	echo "ok: $n instructions; PASS just above the count, FAIL just below, PASS within tolerance"
	;;
golden)
	# A golden trace records the count; 5% more work fails, the same work passes.
	need_valgrind
	config 1000000000000 "instructions = true"
	run golden update --config "$tmp/renacer.toml" -q
	[ "$rc" = 0 ] || fail "golden update: exit $rc"
	grep -q '"instructions"' "$tmp/golden/work.json" || fail "golden trace has no instructions"
	run check --no-color -q --config "$tmp/renacer.toml"
	all | grep -q "golden:instructions *PASS" || fail "same work is not PASS"
	RN_EXAMPLE_CPU=1.05 "$renacer" check --no-color -q --config "$tmp/renacer.toml" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 1 ] || fail "5% more work: exit $rc, expected 1"
	all | grep -q "golden:instructions *FAIL" || fail "5% more work is not FAIL"
	echo "ok: same work PASS, 5% more work FAIL"
	;;
no_valgrind)
	# Without valgrind in PATH: exit 5 and the install hint, before any run.
	config 1000
	mkdir "$tmp/bin"
	PATH="$tmp/bin" "$renacer" check --no-color -q --config "$tmp/renacer.toml" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 5 ] || fail "exit $rc, expected 5"
	grep -q "apt-get install valgrind" "$tmp/err" || fail "no install hint"
	echo "ok: exit 5 with the install hint"
	;;
ebpf_check)
	# check with driver = "ebpf" counts the syscalls ptrace counts, and "auto" falls back to
	# ptrace with a note when an assertion needs per-call spans.
	probe=$("$renacer" trace --driver ebpf -c -o /dev/null -- true 2>&1) ||
		{ echo "SKIP: the eBPF driver cannot run here: $probe"; exit 77; }
	for d in ptrace ebpf; do
		cat >"$tmp/$d.toml" <<EOT
[[target]]
name = "work"
command = ["$work", "4"]
driver = "$d"
[[assertion]]
name = "opens"
type = "span_count"
span_name_pattern = "openat"
max_spans = 1000000
EOT
		run check --no-color -q --no-golden --config "$tmp/$d.toml"
		[ "$rc" = 0 ] || fail "driver $d: exit $rc"
		all | sed -n 's/.*opens *PASS *\([0-9][0-9]*\) .*/\1/p' >"$tmp/$d.count"
		[ -s "$tmp/$d.count" ] || fail "driver $d: no openat count"
	done
	cmp -s "$tmp/ptrace.count" "$tmp/ebpf.count" ||
		fail "openat: ptrace $(cat "$tmp/ptrace.count"), ebpf $(cat "$tmp/ebpf.count")"
	cat >"$tmp/auto.toml" <<EOT
[[target]]
name = "work"
command = ["$work", "2"]
driver = "auto"
[[assertion]]
name = "loop"
type = "anti_pattern"
pattern = "TightLoop"
EOT
	run check --no-color --no-golden --config "$tmp/auto.toml"
	grep -q "driver auto uses ptrace: an anti_pattern assertion" "$tmp/err" ||
		fail "auto with an anti_pattern assertion did not say it falls back"
	RENACER_DISABLE_COLLECTORS=ebpf "$renacer" check --no-color -q --no-golden \
		--config "$tmp/ebpf.toml" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 5 ] || fail "ebpf disabled: exit $rc, expected 5"
	echo "ok: openat $(cat "$tmp/ebpf.count") under both drivers; auto falls back; exit 5"
	;;
ebpf_rss)
	# Under eBPF the root's ru_maxrss holds the image of renacer it was cloned from: a
	# memory_usage (rss) assertion runs the target under ptrace, which reads each image's
	# VmHWM, so `true` stays under a budget far below renacer's own RSS.
	cat >"$tmp/rss.toml" <<EOT
[[target]]
name = "t"
command = ["true"]
driver = "ebpf"
[[assertion]]
name = "mem"
type = "memory_usage"
max_bytes = 4000000
EOT
	run check --no-color --no-golden --config "$tmp/rss.toml"
	note="driver ebpf, but a memory_usage assertion on rss needs each process's VmHWM"
	grep -q "target 't': $note: it runs under ptrace" "$tmp/err" ||
		fail "no note that the rss assertion runs under ptrace"
	[ "$rc" = 0 ] || fail "exit $rc: true measured over 4 MB"
	all | grep -q "mem  *PASS" || fail "mem not PASS"
	echo "ok: rss under driver ebpf measured by ptrace"
	;;
trace_cli)
	# renacer trace --instructions: one row per process image, the total, CMD's exit status.
	need_valgrind
	run trace --instructions -- sh -c "$work 1 >/dev/null; exit 3"
	[ "$rc" = 3 ] || fail "exit $rc, expected CMD's 3"
	all | grep -q "example_work 1" || fail "no row for example_work"
	total=$(all | sed -n 's/^ *total *\([0-9][0-9]*\) .*(2 process images)/\1/p')
	[ -n "$total" ] && [ "$total" -gt 1000000 ] || fail "no total of 2 process images"
	run trace --instructions -c -- true
	[ "$rc" = 2 ] || fail "--instructions with -c: exit $rc, expected 2"
	echo "ok: $total instructions in sh and example_work; exit status kept"
	;;
ebpf_unprivileged)
	# Without root or CAP_BPF + CAP_PERFMON: --driver ebpf exits 5 saying why; auto falls
	# back to ptrace, says why, and counts.
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 ||
		{ echo "SKIP: needs root and setpriv to drop to an unprivileged user"; exit 77; }
	"$renacer" trace --driver ebpf -c -o /dev/null -- true >/dev/null 2>&1 ||
		{ echo "SKIP: the eBPF driver is not built or cannot load even as root"; exit 77; }
	drop="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
	$drop "$renacer" trace --driver ebpf -c -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 5 ] || fail "unprivileged --driver ebpf: exit $rc, expected 5"
	all | grep -q "needs root, or CAP_BPF and CAP_PERFMON" || fail "no reason given"
	$drop "$renacer" trace --driver auto -c -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 0 ] || fail "unprivileged --driver auto: exit $rc"
	all | grep -q "driver auto uses ptrace: loading BPF needs root" || fail "no fallback note"
	all | grep -q " execve$" || fail "the ptrace fallback counted nothing"
	echo "ok: ebpf exit 5 with the reason; auto falls back to ptrace and says why"
	;;
*)
	echo "unknown case $case_name" >&2
	exit 1
	;;
esac
exit 0
