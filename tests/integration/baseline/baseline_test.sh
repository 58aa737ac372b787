#!/bin/sh
# Integration tests of `renacer check --baseline DIR`: two temporary trees (base and head)
# with a tiny C target built from the same source with a different number of fsync calls.
#
#     baseline_test.sh CASE BUILD_DIR C_COMPILER
#
# Exit 0 = pass, 1 = fail, 77 = skipped.
set -u
case_name=$1
build=$2
cc=$3
renacer="$build/renacer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

# Run renacer in the head tree with stderr captured; sets $rc.
run() {
	(cd "$tmp/head" && "$renacer" "$@" >"$tmp/out" 2>"$tmp/err")
	rc=$?
}

# run, with the whole check on CPU 0.
run_on_cpu0() {
	(cd "$tmp/head" && taskset -c 0 "$renacer" "$@" >"$tmp/out" 2>"$tmp/err")
	rc=$?
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

expect_no_err() {
	! grep -q -- "$1" "$tmp/err" || fail "stderr has '$1'"
}

"$renacer" trace -c -o /dev/null -- /bin/true >/dev/null 2>&1 || {
	echo "SKIP: cannot trace here" >&2
	exit 77
}

# The target: one write, NFSYNC fsync calls, exit status STATUS.
cat >"$tmp/app.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
int main(void)
{
	int fd = open("out.tmp", O_CREAT | O_WRONLY | O_TRUNC, 0644), i;

	if (fd < 0 || write(fd, "x", 1) != 1)
		return 3;
	for (i = 0; i < NFSYNC; i++)
		fsync(fd);
	close(fd);
	unlink("out.tmp");
	return STATUS;
}
C

# tree DIR NFSYNC STATUS [defaults]: a checkout with build/app and renacer.toml (exact counts,
# or the default [regression] tolerances with "defaults").
tree() {
	mkdir -p "$tmp/$1/build"
	"$cc" -O1 -DNFSYNC="$2" -DSTATUS="$3" -o "$tmp/$1/build/app" "$tmp/app.c" ||
		fail "cannot compile the target"
	cat >"$tmp/$1/renacer.toml" <<'T'
[[target]]
name = "app"
command = ["./build/app"]
runs = 3
warmup = 1

[regression]
count_tolerance = 0.0
count_floor = 0
T
	if [ "${4:-}" = defaults ]; then
		sed -i '/^\[regression\]/,$d' "$tmp/$1/renacer.toml"
	fi
}

# A CPU-bound target of N loop iterations (-DN=...) in $tmp/spin.c.
spin_source() {
	cat >"$tmp/spin.c" <<'C'
int main(void)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < N; i++)
		x += i * 7;
	return 0;
}
C
}

case $case_name in
fsync_count)
	# Head makes one more fsync per run than base: FAIL naming fsync, and only fsync.
	tree base 1 0
	tree head 2 0
	run check --no-color --baseline ../base --junit "$tmp/junit.xml" --otlp-file "$tmp/otlp.jsonl"
	expect_rc 1
	expect_err "FAIL *app/baseline:syscalls: fsync head 2 vs base 1 calls (+1)"
	# the table's columns: the syscall that grew (head 2, base 1), its limit 1, not the totals
	expect_err "app *baseline:syscalls *FAIL *2 calls *1 calls* *+100.0%"
	grep -q 'baseline:syscalls.*<failure[^>]*fsync head 2 vs base 1' "$tmp/junit.xml" ||
		tr -d '\n' <"$tmp/junit.xml" | grep -q 'name="baseline:syscalls"[^<]*<failure[^>]*fsync head 2 vs base 1' ||
		fail "JUnit lacks the failing baseline:syscalls case naming fsync"
	# the base runs are spans of their own target in OTLP
	grep -q '"app (base)"' "$tmp/otlp.jsonl" || fail "OTLP lacks the base side's spans"
	grep "FAIL app/baseline:syscalls" "$tmp/err" | grep -q "write" &&
		fail "a syscall that did not change is named"
	# both sides ran, interleaved: one progress line for the target in a log, not one per run
	# of either side
	expect_err "app vs base: [0-9]* timing pairs, [0-9]* counting runs* a side in "
	[ "$(grep -c "app (base): \|app: .*run [0-9]" "$tmp/err")" = 0 ] ||
		fail "a progress line per run in a log"
	expect_err "head vs base"
	# the two trees' configs agree: no note about the base's config
	expect_no_err "runs another command"
	;;
config_command)
	# A command changed in the head's renacer.toml alone runs on both sides (the config comes
	# from the head): the check says so, naming the target and the base's config file.
	tree base 1 0
	tree head 1 0
	sed -i 's|^command = .*|command = ["sh", "-c", "exec ./build/app"]|' "$tmp/head/renacer.toml"
	run check --no-color --baseline ../base
	expect_rc 0
	expect_err "note: --baseline: the base tree's $tmp/base/renacer.toml runs another command for 'app'; both sides run the head's"
	;;
new_syscall)
	# Head makes one fsync that base never made: a change of behaviour that fails even under
	# the default count_floor of 1, naming the syscall as new.
	tree base 0 0 defaults
	tree head 1 0 defaults
	grep -q count_floor "$tmp/head/renacer.toml" && fail "the config is not the default one"
	run check --no-color --baseline ../base
	expect_rc 1
	expect_err "FAIL *app/baseline:syscalls: fsync head 1 vs base 0 calls (+1, new)"
	# the reverse (a syscall the head no longer makes) is not a regression
	(cd "$tmp/base" && "$renacer" check --no-color --baseline ../head >"$tmp/out" 2>"$tmp/err")
	rc=$?
	expect_rc 0
	grep -q "baseline:syscalls *PASS" "$tmp/err" || fail "a syscall gone in the head failed"
	;;
shell_paths)
	# Paths under the head's root inside a word (a shell command, --flag=PATH) are re-rooted
	# too: the base side runs the base's build, not the head's (which made baseline:syscalls
	# compare the head with itself and pass).
	tree base 1 0
	tree head 2 0
	cat >"$tmp/head/renacer.toml" <<T
[[target]]
name = "app"
command = ["sh", "-c", "exec $tmp/head/build/app --out=$tmp/head/x $tmp/headless"]
runs = 3

[regression]
count_tolerance = 0.0
count_floor = 0
T
	run check --no-color --baseline ../base
	expect_rc 1
	expect_err "FAIL *app/baseline:syscalls: fsync head 2 vs base 1 calls (+1)"
	# the table's columns: the syscall that grew (head 2, base 1), its limit 1, not the totals
	expect_err "app *baseline:syscalls *FAIL *2 calls *1 calls* *+100.0%"
	;;
base_missing)
	tree head 1 0
	run check --no-color --baseline ../nowhere
	expect_rc 2
	expect_err "--baseline '../nowhere': base tree not found"
	expect_no_err "timing run"
	;;
base_unbuilt)
	tree base 1 0
	tree head 1 0
	rm "$tmp/base/build/app"
	run check --no-color --baseline ../base
	expect_rc 4
	expect_err "target 'app': base side: '$tmp/base/build/app' does not exist in the base tree"
	expect_no_err "timing run"
	;;
base_fails)
	# The target fails only in the base: an error naming the base side, nothing judged.
	tree base 1 1
	tree head 1 0
	run check --no-color --baseline ../base
	expect_rc 4
	expect_err "ERROR *app/baseline:run: base side failed: target 'app (base)' exited with status 1"
	expect_no_err "baseline:wall_time"
	expect_no_err "baseline:syscalls"
	;;
base_child_fails)
	# A command inside `sh -c` fails in the base tree only (its input is missing there) while
	# the shell exits 0: the base did not do the head's work, so nothing is judged against
	# it, one WARN says why, and the check does not fail.
	tree base 1 0
	tree head 1 0
	echo data >"$tmp/head/input.txt"
	sed -i 's|^command = .*|command = ["sh", "-c", "cat input.txt >/dev/null; ./build/app; true"]|' \
		"$tmp/head/renacer.toml"
	run check --no-color --baseline ../base
	expect_rc 0
	expect_err "app/baseline:base_side"
	expect_err "not judged against the base: 1 process of the base side failed ('cat' (pid [0-9]*) exited with status 1), 0 of the head's"
	expect_no_err "baseline:wall_time"
	expect_no_err "baseline:syscalls"
	;;
head_fails)
	tree base 1 0
	tree head 1 1
	run check --no-color --baseline ../base
	expect_rc 4
	expect_err "ERROR *app/baseline:run: head side failed"
	expect_no_err "base side failed"
	expect_no_err "baseline:syscalls"
	;;
fingerprint_compiler)
	# The head spins 10x the base's CPU work: its time rows FAIL. The same trees with the base
	# binary's .comment naming another compiler: the sides' environment fingerprints differ,
	# and the time rows are INCONCLUSIVE naming the compiler, never FAIL.
	command -v objcopy >/dev/null 2>&1 || { echo "SKIP: no objcopy" >&2; exit 77; }
	spin_source
	for side in base:4000000 head:40000000; do
		mkdir -p "$tmp/${side%%:*}/build"
		"$cc" -O1 -DN="${side#*:}" -o "$tmp/${side%%:*}/build/app" "$tmp/spin.c" ||
			fail "cannot compile the target"
		printf '[[target]]\nname = "app"\ncommand = ["./build/app"]\nruns = 6\nwarmup = 1\n' \
			>"$tmp/${side%%:*}/renacer.toml"
	done
	run check --no-color --baseline ../base
	expect_rc 1
	grep -Eq "baseline:cpu_time +FAIL" "$tmp/err" || fail "cpu_time does not FAIL as a control"
	printf 'GCC: (Imaginary 1.0) 99.0\0' >"$tmp/comment"
	objcopy --remove-section=.comment --add-section .comment="$tmp/comment" \
		--set-section-flags .comment=contents,readonly "$tmp/base/build/app" ||
		fail "objcopy"
	run check --no-color --baseline ../base
	grep -Eq "baseline:(cpu_time|wall_time|critical_path) +FAIL" "$tmp/err" &&
		fail "a time row FAILs across compilers"
	grep -Eq "baseline:cpu_time +WARN" "$tmp/err" || fail "cpu_time is not INCONCLUSIVE"
	grep -Eq "baseline:cpu_time +WARN .* inconclusive: compiler differs" "$tmp/err" ||
		fail "the cpu_time row does not name the compiler"
	expect_err "the environment differs between the sides (base compiler 'GCC: (Imaginary 1.0) 99.0', head '"
	expect_rc 0
	;;
instructions)
	# instructions = true: one Valgrind run a side after the pairs (not one per run), a
	# baseline:instructions row that FAILs on +10% work however noisy the time rows are, and
	# every inconclusive time row names the count's change; the same work on both sides PASSes.
	command -v valgrind >/dev/null 2>&1 || { echo "SKIP: no valgrind" >&2; exit 77; }
	spin_source
	for side in base:1000000 head:1100000; do
		mkdir -p "$tmp/${side%%:*}"
		"$cc" -O1 -DN="${side#*:}" -o "$tmp/${side%%:*}/app" "$tmp/spin.c" ||
			fail "cannot compile the target"
		printf '[[target]]\nname = "app"\ncommand = ["./app"]\ninstructions = true\n' \
			>"$tmp/${side%%:*}/renacer.toml"
	done
	run check --no-color --baseline ../base --runs 6
	expect_rc 1
	grep -Eq "baseline:instructions +FAIL" "$tmp/err" || fail "+10% instructions do not FAIL"
	expect_err "decided by instructions (Valgrind, one run a side"
	n=$(grep -c "counting instructions under Valgrind" "$tmp/err")
	[ "$n" = 2 ] || fail "$n Valgrind runs, expected 2 (one a side)"
	if grep -Eq "baseline:(wall_time|cpu_time) +WARN" "$tmp/err"; then
		grep -Eq "baseline:cpu_time +WARN.*instructions \+[0-9.]+% \(Valgrind\): baseline:instructions decides|baseline:cpu_time +(PASS|FAIL)" "$tmp/err" ||
			fail "an inconclusive cpu_time row does not name the instruction count"
	fi
	cp "$tmp/base/app" "$tmp/head/app"
	run check --no-color --baseline ../base --runs 6
	grep -Eq "baseline:instructions +PASS" "$tmp/err" || fail "the same work does not PASS"
	;;
two_modes)
	# The modes must stand apart in the samples: with other tests sharing the CPUs (ctest -j2
	# beside another suite) they blur, and 4 of 6 checks read a FAIL. A loaded machine skips.
	p=$(sed -n 's/^some avg10=\([0-9]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null)
	if [ "${p:-0}" -ge 5 ]; then
		echo "SKIP: CPU pressure ${p}% (avg10): the two modes would blur" >&2
		exit 77
	fi
	# The head's run time alternates between two modes (a counter file in its cwd: odd runs
	# spin twice as long, about 35 and 70 ms of CPU time: long enough for the modes to stand
	# out of a loaded machine's noise), the base's has one: every time row
	# is INCONCLUSIVE saying "two modes" with the sides' modes, never FAIL (the rule:
	# runner/check/baseline.c, modes_of; the test: assertions/stats.c, rn_stats_modality).
	cat >"$tmp/modes.c" <<'C'
#include <stdio.h>
int main(void)
{
	volatile unsigned long x = 0;
	unsigned long i, n = N, k = 0;
	FILE *f = fopen("count", "r");

	if (f) {
		if (fscanf(f, "%lu", &k) != 1)
			k = 0;
		fclose(f);
	}
	f = fopen("count", "w");
	if (!f)
		return 3;
	fprintf(f, "%lu\n", k + 1);
	fclose(f);
	if (ALTERNATE && k % 2)
		n *= 2;
	for (i = 0; i < n; i++)
		x += i * 7;
	return 0;
}
C
	for side in base:0 head:1; do
		mkdir -p "$tmp/${side%%:*}/build"
		"$cc" -O1 -DN=90000000 -DALTERNATE="${side#*:}" -o "$tmp/${side%%:*}/build/app" \
			"$tmp/modes.c" || fail "cannot compile the target"
		printf '[[target]]\nname = "app"\ncommand = ["./build/app"]\nruns = 16\nwarmup = 1\n' \
			>"$tmp/${side%%:*}/renacer.toml"
	done
	run check --no-color --baseline ../base
	grep -Eq "baseline:(cpu_time|wall_time|critical_path) +FAIL" "$tmp/err" &&
		fail "a time row FAILs on two modes"
	grep -Eq "baseline:cpu_time +WARN .* inconclusive: two modes" "$tmp/err" ||
		fail "the cpu_time row does not say two modes"
	# the head's modes, or on a loaded machine the base's blurred into two as well
	grep -Eq "(head|base) two modes \([0-9]+ runs near [0-9.]+ ms, [0-9]+ near" "$tmp/err" ||
		fail "the row does not name the modes"
	expect_err ": a shift between modes is no regression"
	expect_rc 0
	;;
identical)
	# Identical trees: no FAIL (times may be PASS or inconclusive, counts PASS).
	tree base 1 0
	tree head 1 0
	run check --no-color --baseline ../base --runs 8
	grep -E "^FAIL app/|baseline:[a-z_]+ +FAIL " "$tmp/err" && fail "a FAIL verdict"
	expect_err "PASS *[0-9]* calls"
	grep -q "baseline:syscalls *PASS" "$tmp/err" || fail "syscalls not judged PASS"
	grep -q "baseline:wall_time" "$tmp/err" || fail "wall_time not judged"
	[ "$rc" = 0 ] || fail "expected exit 0, got $rc"
	;;
concurrent)
	# Two checks at once (a matrix job, ctest -j): their timing pairs never share a pinned CPU
	# (each claims its own, util/cpuset.h); the results name where the pairs ran.
	[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU" >&2; exit 77; }
	tree base 1 0
	tree head 1 0
	(cd "$tmp/head" && "$renacer" check --no-color --baseline ../base --runs 8 \
		--results "$tmp/a.json" >/dev/null 2>&1) &
	(cd "$tmp/head" && "$renacer" check --no-color --baseline ../base --runs 8 \
		--results "$tmp/b.json" >/dev/null 2>&1)
	wait
	a=$(grep -o "pairs on CPU [0-9]*" "$tmp/a.json" | sort -u)
	b=$(grep -o "pairs on CPU [0-9]*" "$tmp/b.json" | sort -u)
	grep -q "sequential pairs" "$tmp/a.json" || fail "a's results lack the placement"
	grep -q "sequential pairs" "$tmp/b.json" || fail "b's results lack the placement"
	[ -n "$a" ] && [ "$a" = "$b" ] && fail "both checks pinned their pairs to the same CPU: $a"
	;;
calibrate)
	# renacer calibrate: A/A noise of a CPU-bound target, then a planted slowdown of twice its
	# CPU time (a shell loop before exec), which the adaptive comparison must catch.
	mkdir -p "$tmp/head"
	cat >"$tmp/head/renacer.toml" <<T
[[target]]
name = "compute"
command = ["$build/targets/pt_compute", "4", "0"]
T
	run calibrate --no-color --pairs 10 --plant 100 --junit "$tmp/junit.xml"
	expect_rc 0
	expect_err "compute/calibrate:noise: [a-z_]* noise +-[0-9.]*% a pair"
	expect_err "detects >= +[0-9.]*% at 10 pairs"
	expect_err "PASS compute/calibrate:plant: planted +100.0% CPU work"
	expect_err "caught after [0-9]* pairs"
	expect_err "baseline:cpu_time FAIL"
	grep -q 'name="calibrate:plant"' "$tmp/junit.xml" || fail "junit lacks calibrate:plant"
	# the help names what it does
	"$renacer" calibrate --help | grep -q "planted slowdown" || fail "calibrate --help"
	run calibrate --effect 0
	expect_rc 2
	expect_err "--effect needs a whole percentage"
	;;
duet)
	# pairs = "duet": base and head of a pair run at the same moment. Each run sleeps 300 ms
	# between its CLOCK_MONOTONIC start and end stamps (stamps.txt in its own tree), so that
	# the pair's intervals overlap whenever the sides started together, and never when one
	# ran after the other. On one CPU the pairs fall back to sequential ones and say so.
	[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU" >&2; exit 77; }
	cat >"$tmp/stamp.c" <<'C'
#include <stdio.h>
#include <time.h>
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
int main(void)
{
	struct timespec nap = { 0, 300000000 };
	double start = now();
	FILE *f;

	nanosleep(&nap, NULL);
	f = fopen("stamps.txt", "a");
	if (!f)
		return 3;
	fprintf(f, "%.6f %.6f\n", start, now());
	return fclose(f) ? 3 : 0;
}
C
	for side in base head; do
		mkdir -p "$tmp/$side/build"
		"$cc" -O1 -o "$tmp/$side/build/stamp" "$tmp/stamp.c" || fail "cannot compile"
		printf '[[target]]\nname = "app"\ncommand = ["./build/stamp"]\npairs = "duet"\n' \
			>"$tmp/$side/renacer.toml"
	done
	# a lock folder of its own: checks of other tests do not hold the CPUs
	mkdir -m 700 "$tmp/run"
	XDG_RUNTIME_DIR="$tmp/run"
	export XDG_RUNTIME_DIR
	run check --no-color --baseline ../base --runs 4 \
		--junit "$tmp/junit.xml"
	expect_rc 0
	expect_err "baseline:wall_time [A-Z]*: .*; 4 duet pairs"
	expect_no_err "sequential pairs"
	grep -q "4 duet pairs on CPUs [0-9]*,[0-9]*" "$tmp/junit.xml" ||
		fail "the JUnit detail lacks the duet's CPUs"
	# the first 4 runs of each tree are the timing pairs (no warmup), by index
	paste "$tmp/base/stamps.txt" "$tmp/head/stamps.txt" | head -4 >"$tmp/pairs"
	[ "$(wc -l <"$tmp/pairs")" = 4 ] || fail "fewer than 4 timing runs a side"
	# sequential pairs never overlap; a duet's sides start together, though on a loaded
	# machine one side may start late (seen once under a loaded ASan run: 0.3 s after the
	# other ended), so most pairs must overlap, not every one
	awk '{ s = $1 > $3 ? $1 : $3; e = $2 < $4 ? $2 : $4; if (s < e) ok++ }
		END { exit ok >= 2 ? 0 : 1 }' "$tmp/pairs" ||
		fail "fewer than 2 of 4 duet pairs' runs overlapped: $(cat "$tmp/pairs")"
	# --pairs overrides the target's pairs
	run check --no-color --baseline ../base --runs 4 --pairs sequential
	expect_rc 0
	expect_err "baseline:wall_time [A-Z]*: .*; 4 sequential pairs"
	expect_no_err "duet"
	run check --no-color --baseline ../base --pairs trio
	expect_rc 2
	expect_err "--pairs needs 'duet' or 'sequential', found 'trio'"
	# one CPU: sequential pairs, and the rows say why (duet asked by [regression] this time)
	command -v taskset >/dev/null || { echo "SKIP: no taskset" >&2; exit 77; }
	rm -f "$tmp/base/stamps.txt" "$tmp/head/stamps.txt"
	printf '[[target]]\nname = "app"\ncommand = ["./build/stamp"]\n\n[regression]\npairs = "duet"\n' \
		>"$tmp/head/renacer.toml"
	run_on_cpu0 check --no-color --baseline ../base --runs 4 \
		--junit "$tmp/junit.xml"
	expect_rc 0
	expect_err "4 sequential pairs (duet asked: fewer than 2 usable CPUs)"
	expect_no_err "duet pairs;"
	grep -q "4 sequential pairs on CPU 0 (duet pairs asked: fewer than 2 usable CPUs" \
		"$tmp/junit.xml" || fail "the JUnit detail lacks the fallback"
	paste "$tmp/base/stamps.txt" "$tmp/head/stamps.txt" | head -4 >"$tmp/pairs"
	awk '{ s = $1 > $3 ? $1 : $3; e = $2 < $4 ? $2 : $4; if (s < e) met++ }
		END { exit met ? 1 : 0 }' "$tmp/pairs" ||
		fail "sequential pairs overlapped: $(cat "$tmp/pairs")"
	;;
confirm_usage)
	tree head 1 0
	run check --no-color --confirm
	expect_rc 2
	expect_err "need --baseline DIR"
	run check --no-color --pairs duet
	expect_rc 2
	expect_err "need --baseline DIR"
	run check --no-color --no-ratchet
	expect_rc 2
	expect_err "need --baseline DIR"
	;;
*)
	echo "unknown case '$case_name'" >&2
	exit 1
	;;
esac
exit 0
