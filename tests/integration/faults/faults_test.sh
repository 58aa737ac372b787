#!/bin/sh
# Faults `renacer check` and `renacer golden update` must survive, and what renacer guarantees
# for each (docs/metrics.md "Verdicts and exit codes", runner/INTERNALS.md, util/exitcode.h):
#
#   - a target that cannot run, crashes, or breaks a limit is ERROR and exit 4, with a message
#     that says why; a target that merely exits non-zero is judged normally;
#   - when check returns, no process of the target's tree is left, whatever the tree did
#     (ignore or block signals, setsid and double-fork, fork without end), and none is left
#     in ptrace-stop; every test target carries a unique marker in its argv for pgrep -f;
#   - SIGINT/SIGTERM to renacer kill and reap the tree, write the partial JUnit report with
#     the interrupted target as ERROR, and exit 130/143;
#   - a golden trace that cannot be used is an error naming the file, exit 3, and check never
#     writes it; `golden update` that cannot write leaves the previous file byte-identical
#     and exits 6;
#   - an output (JUnit, timeline, OTLP file, benchmark JSON, golden) that cannot be written
#     is a clear error naming the path, exit 6.
#
#     faults_test.sh CASE BUILD_DIR SOURCE_DIR SHARED_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped (a needed tool or permission is missing).
set -u
case_name=$1
build=$2
src=$3
shared=$4
renacer="$build/renacer"
faults="$build/faults"
tmp=$(mktemp -d)
marker="rnfault-$case_name-$$-$(date +%s)"
# A stuck renacer fails the test instead of hanging it.
run_limit=${RN_FAULT_RUN_LIMIT:-120}

# Kill, by pid, whatever a failed case left behind; then remove the scratch directory.
cleanup() {
	for pid in $(pgrep -f -- "$marker" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null
	done
	rm -rf "$tmp" 2>/dev/null
}
trap cleanup EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" | head -40 >&2
	exit 1
}

skip() {
	echo "SKIP: $case_name: $*"
	exit 77
}

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# Run renacer with output captured, under a time limit; sets $rc and $elapsed_ms.
run() {
	t0=$(now_ms)
	timeout -s KILL "$run_limit" "$renacer" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	elapsed_ms=$(($(now_ms) - t0))
	[ "$rc" = 137 ] && fail "renacer $* did not finish within $run_limit s"
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

expect_faster_than() {
	[ "$elapsed_ms" -lt "$(($1 * 1000))" ] || fail "took ${elapsed_ms} ms, more than $1 s"
}

# No process of the test is left, and none sits in ptrace-stop (checked right after renacer
# returned: it promises to have killed and reaped the tree by then).
expect_no_leftovers() {
	left=$(pgrep -f -- "$marker")
	if [ -n "$left" ]; then
		for pid in $left; do
			printf '  left: %s %s %s\n' "$pid" \
				"$(sed -n 's/^State:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)" \
				"$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
		done
		fail "processes of the target are left after renacer returned: $(echo $left)"
	fi
	for st in /proc/[0-9]*/status; do
		if grep -q '^State:[[:space:]]*t' "$st" 2>/dev/null; then
			pid=${st#/proc/}
			pid=${pid%/status}
			if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$marker"; then
				fail "process $pid of the target is left in ptrace-stop"
			fi
		fi
	done
}

# The JUnit report is well-formed XML, and valid against the shared schemas when present.
expect_junit_valid() {
	[ -s "$1" ] || fail "no JUnit report at $1"
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$1" 2>"$tmp/xmllint" || fail "JUnit report is not well-formed: $(head -3 "$tmp/xmllint")"
		if [ -d "$shared/junit" ]; then
			for xsd in "$shared"/junit/*.xsd; do
				[ -f "$xsd" ] || continue
				xmllint --noout --schema "$xsd" "$1" 2>"$tmp/xmllint" ||
					fail "JUnit report does not validate against $xsd: $(head -3 "$tmp/xmllint")"
			done
		fi
	fi
}

# A config with one target: target_config COMMAND_TOML_ARRAY [EXTRA_TARGET_LINES]; the JUnit
# report goes to $tmp/junit.xml and golden traces to $tmp/golden.
target_config() {
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = [$1]
${2:-}
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100000
[golden]
dir = "$tmp/golden"
[report]
junit = "$tmp/junit.xml"
EOT
}

# A target that fails to run: ERROR verdict, exit 4, the message, an <error> in the JUnit.
expect_target_error() {
	run check --config "$tmp/renacer.toml"
	expect_rc 4
	expect_err "$1"
	expect_err "ERROR"
	expect_junit_valid "$tmp/junit.xml"
	grep -q '<error' "$tmp/junit.xml" || fail "JUnit has no <error> for the failed target"
	expect_no_leftovers
}

# Build the 32-bit target: with the 32-bit libc if there is one, else without any libc.
build_m32() {
	command -v gcc >/dev/null 2>&1 || return 1
	gcc -m32 -o "$tmp/m32_exit" "$src/tests/integration/faults/targets/m32_exit.c" -nostdlib \
		-static -ffreestanding -O1 2>"$tmp/gcc.log" && "$tmp/m32_exit" >/dev/null 2>&1
}

# Run a shell snippet in a private mount namespace (tmpfs mounts vanish with it).
can_unshare_mount() {
	command -v unshare >/dev/null 2>&1 || return 1
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$tmp' 2>/dev/null" 2>/dev/null
}

# Send `sig` to renacer 1 s into a run of a sleeping tree; renacer must exit `code`. With
# `group`, renacer runs in a session of its own and the signal goes to its whole process
# group, targets included, as a terminal's Ctrl-C or a CI job's cancellation delivers it.
interrupt_case() {
	sig=$1
	code=$2
	to=${3:-renacer}
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "sleepers"
command = ["$faults/ft_stubborn", "$marker", "plain", "3"]
timeout_s = 120
[[target]]
name = "after"
command = ["$faults/ft_exit", "0"]
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100000
[report]
junit = "$tmp/junit.xml"
EOT
	# Non-interactive shells start background jobs with SIGINT ignored; a CI runner's
	# foreground process gets the default, so restore it.
	default_sig=""
	env --default-signal=INT true 2>/dev/null && default_sig="env --default-signal=INT,TERM"
	session=""
	if [ "$to" = group ]; then
		command -v setsid >/dev/null 2>&1 || skip "setsid not found"
		session=setsid
	fi
	$session $default_sig "$renacer" check --config "$tmp/renacer.toml" >"$tmp/out" 2>"$tmp/err" &
	rpid=$!
	sleep 1
	pgrep -f -- "$marker" >/dev/null || { kill -KILL "$rpid"; fail "the target did not start within 1 s"; }
	t0=$(now_ms)
	if [ "$to" = group ]; then
		[ "$(ps -o pgid= -p "$rpid" | tr -d ' ')" = "$rpid" ] ||
			{ kill -KILL "$rpid"; fail "renacer is not the leader of its process group"; }
		kill -"$sig" -"$rpid"
	else
		kill -"$sig" "$rpid"
	fi
	# Wait at most 30 s for renacer to finish.
	i=0
	while kill -0 "$rpid" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$rpid" 2>/dev/null; then
		kill -KILL "$rpid"
		wait "$rpid"
		fail "renacer did not exit within 30 s of SIG$sig"
	fi
	wait "$rpid"
	rc=$?
	elapsed_ms=$(($(now_ms) - t0))
	expect_no_leftovers
	expect_rc "$code"
	expect_faster_than 10
	expect_junit_valid "$tmp/junit.xml"
	grep -q '<error' "$tmp/junit.xml" || fail "partial JUnit has no <error>"
	grep -q 'interrupted' "$tmp/junit.xml" || fail "partial JUnit does not say it was interrupted"
	grep -q '<testsuite name="sleepers"' "$tmp/junit.xml" || fail "JUnit lacks the interrupted target"
}

# One golden trace variant for golden_corrupt_variants ($tmp/variant holds its bytes): check
# exits 3 with `expect` on stderr, names the file, leaves it byte-identical and alone in its
# directory, and reports it in the JUnit. Problems are collected in $tmp/problems so that
# every variant is tried.
golden_variant() {
	name=$1
	expect=$2
	rm -rf "$tmp/golden"
	mkdir -p "$tmp/golden"
	cp "$tmp/variant" "$tmp/golden/t.json"
	cp "$tmp/variant" "$tmp/before"
	rm -f "$tmp/junit.xml"
	run check --config "$tmp/renacer.toml"
	{
		[ "$rc" = 3 ] || echo "golden '$name': expected exit 3, got $rc"
		grep -q -- "$tmp/golden/t.json" "$tmp/err" || echo "golden '$name': the error does not name the file"
		grep -q -- "$expect" "$tmp/err" ||
			echo "golden '$name': stderr lacks '$expect': $(grep -m1 'error:' "$tmp/err")"
		cmp -s "$tmp/golden/t.json" "$tmp/before" || echo "golden '$name': check modified the golden trace"
		[ "$(ls -A "$tmp/golden")" = "t.json" ] ||
			echo "golden '$name': check left files in the golden dir: $(ls -A "$tmp/golden")"
		grep -q 'testcase name="golden"' "$tmp/junit.xml" 2>/dev/null ||
			echo "golden '$name': JUnit lacks the golden error"
	} >>"$tmp/problems"
	expect_junit_valid "$tmp/junit.xml"
}

[ -x "$renacer" ] || fail "no renacer binary at $renacer"

case $case_name in
target_missing)
	target_config "\"$tmp/nowhere/does-not-exist\", \"$marker\""
	expect_target_error "cannot execute '$tmp/nowhere/does-not-exist': No such file or directory"
	target_config "\"renacer-no-such-program-$$\", \"$marker\""
	expect_target_error "cannot execute 'renacer-no-such-program-$$': No such file or directory"
	mkdir "$tmp/adir"
	target_config "\"$tmp/adir\", \"$marker\""
	expect_target_error "cannot execute '$tmp/adir': Permission denied"
	;;
target_not_executable)
	cp "$faults/ft_exit" "$tmp/noexec"
	chmod 644 "$tmp/noexec"
	target_config "\"$tmp/noexec\", \"$marker\""
	expect_target_error "cannot execute '$tmp/noexec': Permission denied"
	;;
target_not_elf)
	printf 'echo this is not a program\nexit 0\n' >"$tmp/notelf"
	chmod 755 "$tmp/notelf"
	target_config "\"$tmp/notelf\", \"$marker\""
	expect_target_error "cannot execute '$tmp/notelf': Exec format error"
	;;
target_i386)
	build_m32 || skip "gcc -m32 cannot build a 32-bit program here: $(head -2 "$tmp/gcc.log" 2>/dev/null)"
	# Timing runs make no syscall stop: a 32-bit program is timed like any other.
	target_config "\"$tmp/m32_exit\", \"$marker\""
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	# A counting run stops at its syscalls, which renacer cannot decode.
	target_config "\"$tmp/m32_exit\", \"$marker\"" '[[assertion]]
name = "calls"
type = "span_count"
span_name_pattern = ".*"
max_spans = 1000000'
	expect_target_error "makes i386 (32-bit) system calls, which renacer does not support"
	;;
target_exit_nonzero)
	# A failing program's numbers are not trusted: ERROR and exit 4 unless the target says
	# which status it expects (expect_exit), or that any will do (expect_exit = -1).
	for code in 3 255; do
		target_config "\"$faults/ft_exit\", \"$code\", \"$marker\""
		expect_target_error "exited with status $code (expected 0"
		target_config "\"$faults/ft_exit\", \"$code\", \"$marker\"" "expect_exit = $code"
		run check --config "$tmp/renacer.toml"
		expect_rc 0
		expect_err "cp  *PASS"
		expect_junit_valid "$tmp/junit.xml"
		target_config "\"$faults/ft_exit\", \"$code\", \"$marker\"" "expect_exit = -1"
		run check --config "$tmp/renacer.toml"
		expect_rc 0
	done
	;;
target_without_verdicts)
	# A target with no assertion and no golden trace that runs cleanly has no verdict at
	# all: the reports must cope with an empty list (run this under RN_SANITIZE=undefined).
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["$faults/ft_exit", "0", "$marker"]
[report]
junit = "$tmp/junit.xml"
EOT
	run check --config "$tmp/renacer.toml" --no-golden --trace-out "$tmp/trace.json" \
		--otlp-file "$tmp/otlp.jsonl"
	expect_no_leftovers
	expect_rc 0
	expect_junit_valid "$tmp/junit.xml"
	;;
target_sigsegv)
	target_config "\"$faults/ft_signal\", \"segv\", \"$marker\""
	expect_target_error "was killed by signal 11"
	;;
target_sigabrt)
	target_config "\"$faults/ft_signal\", \"abrt\", \"$marker\""
	expect_target_error "was killed by signal 6"
	;;
target_sigkill)
	target_config "\"$faults/ft_signal\", \"kill\", \"$marker\""
	expect_target_error "was killed by signal 9"
	;;
target_ignores_sigterm)
	target_config "\"$faults/ft_stubborn\", \"$marker\", \"ignore-term\", \"3\"" "timeout_s = 1"
	expect_target_error "timed out after 1.000 s"
	expect_faster_than 15
	;;
target_blocks_signals)
	target_config "\"$faults/ft_stubborn\", \"$marker\", \"block-all\", \"3\"" "timeout_s = 1"
	expect_target_error "timed out after 1.000 s"
	expect_faster_than 15
	;;
timeout_tree)
	target_config "\"$faults/ft_stubborn\", \"$marker\", \"plain\", \"8\"" "timeout_s = 1.5"
	expect_target_error "timed out after 1.500 s"
	expect_faster_than 15
	;;
grandchild_outlives)
	# The root exits at once; its setsid'ed grandchild lives 2 s more. The run is the whole
	# tree, so check returns after it, and nothing is left.
	target_config "\"$faults/ft_daemon\", \"$marker\", \"2\"" "timeout_s = 60"
	run check --config "$tmp/renacer.toml"
	expect_no_leftovers
	expect_rc 0
	expect_junit_valid "$tmp/junit.xml"
	;;
grandchild_forever)
	# A grandchild that never ends: the timeout kills it, setsid or not.
	target_config "\"$faults/ft_daemon\", \"$marker\", \"100000\"" "timeout_s = 2"
	expect_target_error "timed out after 2.000 s"
	expect_faster_than 20
	;;
fork_bomb)
	target_config "\"$faults/ft_forkbomb\", \"$marker\", \"9\"" "max_processes = 50
timeout_s = 60"
	expect_target_error "more than 50 processes (max_procs)"
	expect_faster_than 30
	;;
output_flood_null)
	target_config "\"$faults/ft_spew\", \"1024\", \"$marker\"" 'stdout = "null"
stderr = "null"'
	run check --config "$tmp/renacer.toml"
	expect_no_leftovers
	expect_rc 0
	expect_junit_valid "$tmp/junit.xml"
	;;
output_flood_capture)
	# 64 MiB on stdout and 16 MiB on stderr, both captured (renacer keeps at most 16 MiB of
	# each): the run completes, renacer's memory stays bounded, no capture file is left.
	ls /tmp/renacer-capture-* >"$tmp/captures-before" 2>/dev/null
	target_config "\"$faults/ft_spew\", \"64\", \"$marker\"" 'stdout = "capture"
stderr = "capture"'
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M' -o "$tmp/maxrss" timeout -s KILL "$run_limit" "$renacer" check \
			--config "$tmp/renacer.toml" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		maxrss_kb=$(tail -1 "$tmp/maxrss")
		# 16 MiB kept per stream, plus the runner itself (ASan builds included).
		[ "$maxrss_kb" -lt 400000 ] 2>/dev/null || fail "renacer's peak RSS was ${maxrss_kb} KiB for captured output"
	else
		run check --config "$tmp/renacer.toml"
	fi
	expect_no_leftovers
	expect_rc 0
	expect_junit_valid "$tmp/junit.xml"
	ls /tmp/renacer-capture-* >"$tmp/captures-after" 2>/dev/null
	cmp -s "$tmp/captures-before" "$tmp/captures-after" || fail "capture files left in /tmp"
	;;
target_closes_stdio)
	for mode in inherit null capture; do
		target_config "\"$faults/ft_closeout\", \"$marker\"" "stdout = \"$mode\"
stderr = \"$mode\""
		run check --config "$tmp/renacer.toml"
		expect_no_leftovers
		expect_rc 0
		expect_junit_valid "$tmp/junit.xml"
	done
	;;
renacer_stdio_closed)
	# renacer started with stdin and stdout closed (a CI step with redirections gone
	# wrong): its first files take fds 0 and 1. The target inherits stdout and writes to
	# it; the JUnit report and the config must not receive those bytes.
	target_config "\"$faults/ft_spew\", \"1\", \"$marker\"" 'stdout = "inherit"'
	cp "$tmp/renacer.toml" "$tmp/config-before"
	t0=$(now_ms)
	timeout -s KILL "$run_limit" "$renacer" check --config "$tmp/renacer.toml" <&- >&- 2>"$tmp/err"
	rc=$?
	expect_no_leftovers
	expect_rc 0
	expect_junit_valid "$tmp/junit.xml"
	grep -q xxxxxxxx "$tmp/junit.xml" && fail "the target's stdout went into the JUnit report"
	cmp -s "$tmp/renacer.toml" "$tmp/config-before" || fail "the target's stdout went into the config"
	;;
memory_limit)
	# RLIMIT_AS of 256 MiB: the hog gets less than that, then aborts; reported as a crash.
	target_config "\"$faults/ft_hog\", \"$tmp/hog.txt\", \"4096\", \"$marker\"" "max_memory_bytes = 268435456"
	expect_target_error "was killed by signal 6"
	got=$(cat "$tmp/hog.txt" 2>/dev/null)
	[ -n "$got" ] || fail "the hog did not report"
	[ "$got" -lt 256 ] || fail "the hog got $got MiB under a 256 MiB limit"
	[ "$got" -gt 16 ] || fail "the hog got only $got MiB: the limit is far below 256 MiB"
	;;
rss_excludes_runner)
	# The peak RSS of a target is the target's: not the memory of the renacer process it was
	# forked from. A 40 MB comment in the config makes renacer big at fork time; a target
	# that uses about 1 MiB must still measure far below 16 MiB. (Linux carries ru_maxrss
	# across execve, so wait4's ru_maxrss includes the runner's pre-exec copy.)
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	{
		sed -e 's/^name = "cp"/name = "rss"/' -e 's/^type = "critical_path"/type = "memory_usage"/' \
			-e 's/^max_duration_ms = .*/max_bytes = 16777216\ntracking_mode = "rss"/' \
			"$tmp/renacer.toml"
		head -c 40000000 /dev/zero | tr '\0' x | fold -w 1000 | sed 's/^/# /'
	} >"$tmp/big.toml"
	run check --config "$tmp/big.toml" --no-golden
	expect_no_leftovers
	expect_err "rss  *PASS"
	expect_rc 0
	;;
renacer_sigint)
	interrupt_case INT 130
	;;
renacer_sigterm)
	interrupt_case TERM 143
	;;
renacer_sigint_group)
	interrupt_case INT 130 group
	;;
renacer_sigterm_group)
	interrupt_case TERM 143 group
	;;
golden_corrupt_variants)
	# Extends tests/integration/check golden_corrupt (truncated JSON, renacer-golden/7): every
	# other way a golden trace can be unusable. First a real one to derive variants from.
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	cp "$tmp/golden/t.json" "$tmp/good.json"
	size=$(wc -c <"$tmp/good.json")
	: >"$tmp/problems"
	printf 'this is not JSON {{{\n' >"$tmp/variant"
	golden_variant garbage "corrupt golden trace"
	: >"$tmp/variant"
	golden_variant empty "truncated golden trace: empty file"
	printf '\n\t  \n' >"$tmp/variant"
	golden_variant blank "truncated golden trace"
	head -c $((size / 2)) "$tmp/good.json" >"$tmp/variant"
	golden_variant half "truncated golden trace"
	head -c $((size - 3)) "$tmp/good.json" >"$tmp/variant"
	golden_variant cut_at_end "truncated golden trace"
	printf '\000\377\376binary\001\002' >"$tmp/variant"
	golden_variant binary "corrupt golden trace"
	sed 's|"renacer-golden/3"|"renacer-golden/0"|' "$tmp/good.json" >"$tmp/variant"
	golden_variant version_0 "not a golden trace: unknown format \"renacer-golden/0\""
	sed 's|"renacer-golden/3"|"renacer-golden/one"|' "$tmp/good.json" >"$tmp/variant"
	golden_variant version_word "not a golden trace: unknown format"
	sed 's|"renacer-golden/3"|"renacer-golden/4"|' "$tmp/good.json" >"$tmp/variant"
	golden_variant newer_4 "written by a newer renacer (format renacer-golden/4)"
	sed 's|"renacer-golden/3"|"renacer-golden/10"|' "$tmp/good.json" >"$tmp/variant"
	golden_variant newer_10 "written by a newer renacer (format renacer-golden/10)"
	grep -v '"format"' "$tmp/good.json" >"$tmp/variant"
	golden_variant no_format "not a golden trace: missing \"format\""
	sed 's|"runs": [0-9]*|"runs": "many"|' "$tmp/good.json" >"$tmp/variant"
	golden_variant runs_string "corrupt golden trace: \"runs\" must be an integer >= 1"
	sed 's|"target": "t"|"target": "t", "target": "u"|' "$tmp/good.json" >"$tmp/variant"
	golden_variant duplicate_key "corrupt golden trace"
	printf '[1, 2, 3]\n' >"$tmp/variant"
	golden_variant not_object "corrupt golden trace: top level is not a JSON object"
	printf '{"format": "renacer-golden/1",\000 "runs": 1}\n' >"$tmp/variant"
	golden_variant nul_inside "corrupt golden trace"
	if [ -s "$tmp/problems" ]; then
		rm -f "$tmp/err"
		fail "$(cat "$tmp/problems")"
	fi
	;;
golden_unreadable)
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	mkdir -p "$tmp/golden/t.json"
	run check --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "$tmp/golden/t.json"
	expect_err "cannot read golden trace: Is a directory"
	[ -d "$tmp/golden/t.json" ] || fail "check replaced the golden path"
	if [ "$(id -u)" != 0 ]; then
		rmdir "$tmp/golden/t.json"
		printf '{}' >"$tmp/golden/t.json"
		chmod 000 "$tmp/golden/t.json"
		run check --config "$tmp/renacer.toml"
		expect_rc 3
		expect_err "cannot read golden trace: Permission denied"
	fi
	;;
golden_update_ulimit)
	# The file size limit is hit while the new golden trace is written: exit 6, a clear
	# error, the previous golden byte-identical, no temporary file left. stderr goes through
	# a pipe, which the limit does not apply to.
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	cp "$tmp/golden/t.json" "$tmp/before"
	size=$(wc -c <"$tmp/before")
	[ "$size" -gt 1024 ] || fail "golden trace too small ($size bytes) for this test"
	(
		ulimit -f 1 || exit 99
		timeout -s KILL "$run_limit" "$renacer" golden update --config "$tmp/renacer.toml" 2>&1
		echo $? >"$tmp/rc"
	) | cat >"$tmp/err"
	rc=$(cat "$tmp/rc" 2>/dev/null)
	[ "$rc" = "" ] && fail "could not run under ulimit -f"
	expect_rc 6
	expect_err "$tmp/golden/t.json"
	expect_err "cannot write golden trace"
	expect_err "File too large"
	cmp -s "$tmp/golden/t.json" "$tmp/before" || fail "the previous golden trace was changed"
	[ "$(ls -A "$tmp/golden")" = "t.json" ] || fail "files left in the golden dir: $(ls -A "$tmp/golden")"
	;;
golden_update_disk_full)
	# The same on a full file system: a tiny tmpfs in a private mount namespace.
	can_unshare_mount || skip "cannot mount a tmpfs in a private mount namespace here"
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	mkdir -p "$tmp/golden"
	cat >"$tmp/ns.sh" <<EOT
mount -t tmpfs -o size=64k tmpfs "$tmp/golden" || exit 99
"$renacer" golden update --config "$tmp/renacer.toml" >/dev/null 2>&1 || exit 98
cp "$tmp/golden/t.json" "$tmp/before"
dd if=/dev/zero of="$tmp/golden/fill" bs=4096 2>/dev/null
sync
timeout -s KILL $run_limit "$renacer" golden update --config "$tmp/renacer.toml" >"$tmp/out" 2>"$tmp/err"
echo \$? >"$tmp/rc"
rm -f "$tmp/golden/fill"
cmp -s "$tmp/golden/t.json" "$tmp/before" && echo same >"$tmp/cmp"
ls -A "$tmp/golden" >"$tmp/ls"
EOT
	unshare -m sh "$tmp/ns.sh"
	case $? in
	99) skip "cannot mount the tmpfs" ;;
	98) fail "golden update failed on the empty tmpfs" ;;
	esac
	rc=$(cat "$tmp/rc" 2>/dev/null)
	expect_rc 6
	expect_err "$tmp/golden/t.json"
	expect_err "cannot write golden trace"
	expect_err "No space left on device"
	[ -f "$tmp/cmp" ] || fail "the previous golden trace was changed"
	[ "$(cat "$tmp/ls")" = "t.json" ] || fail "files left in the golden dir: $(cat "$tmp/ls")"
	;;
output_missing_dir)
	# A missing output directory is created before the first run (mkdir -p); one that
	# cannot be created (a file in the way) fails with exit 6 before the first run.
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	run check --config "$tmp/renacer.toml" --junit "$tmp/missing/junit.xml"
	expect_rc 0
	[ -s "$tmp/missing/junit.xml" ] || fail "the JUnit directory was not created"
	sed -i "s|^junit = .*|junit = \"$tmp/missing2/a/report.xml\"|" "$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	[ -s "$tmp/missing2/a/report.xml" ] || fail "[report] junit's directory was not created"
	sed -i "s|^junit = .*|junit = \"$tmp/junit.xml\"|" "$tmp/renacer.toml"
	: >"$tmp/blocker"
	for opt in --trace-out --otlp-file --bench-json; do
		run check --config "$tmp/renacer.toml" "$opt" "$tmp/m3$opt/out"
		[ "$rc" = 0 ] || fail "$opt into a missing directory: expected exit 0, got $rc"
		[ -s "$tmp/m3$opt/out" ] || fail "$opt: its directory was not created"
		run check --config "$tmp/renacer.toml" "$opt" "$tmp/blocker/out$opt"
		[ "$rc" = 6 ] || fail "$opt under a file: expected exit 6, got $rc"
		grep -q -- "$tmp/blocker/out$opt" "$tmp/err" || fail "$opt: the error does not name the path"
		grep -q "run 1/1" "$tmp/err" && fail "$opt: the target ran before the output error"
	done
	mkdir -p "$tmp/missing"
	sed -i "s|^dir = .*|dir = \"$tmp/missing/deeper/golden\"|" "$tmp/renacer.toml"
	run golden update --config "$tmp/renacer.toml"
	expect_rc 6
	expect_err "cannot create golden trace directory '$tmp/missing/deeper/golden'"
	;;
output_unwritable_dir)
	# A directory the outputs cannot be created in: a read-only tmpfs when running as root
	# (root writes through any mode bits), else a mode-555 directory.
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	mkdir -p "$tmp/ro" "$tmp/golden"
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	sed -i "s|^dir = .*|dir = \"$tmp/ro\"|" "$tmp/renacer.toml"
	cat >"$tmp/cases.sh" <<EOT
r() { n=\$1; shift; timeout -s KILL $run_limit "$renacer" "\$@" >"$tmp/out.\$n" 2>"$tmp/err.\$n"; echo \$? >"$tmp/rc.\$n"; }
r junit check --config "$tmp/renacer.toml" --no-golden --junit "$tmp/ro/junit.xml"
r trace check --config "$tmp/renacer.toml" --no-golden --trace-out "$tmp/ro/trace.json"
r otlp check --config "$tmp/renacer.toml" --no-golden --otlp-file "$tmp/ro/otlp.jsonl"
r bench check --config "$tmp/renacer.toml" --no-golden --bench-json "$tmp/ro/bench.json"
r golden golden update --config "$tmp/renacer.toml"
EOT
	if [ "$(id -u)" = 0 ]; then
		can_unshare_mount || skip "running as root without a way to make a read-only directory"
		printf 'mount -t tmpfs -o ro,size=64k tmpfs "%s" || exit 99\n. "%s"\n' "$tmp/ro" \
			"$tmp/cases.sh" >"$tmp/ns.sh"
		unshare -m sh "$tmp/ns.sh"
		[ $? = 99 ] && skip "cannot mount a read-only tmpfs"
	else
		chmod 555 "$tmp/ro"
		sh "$tmp/cases.sh"
	fi
	for n in junit trace otlp bench golden; do
		cp "$tmp/err.$n" "$tmp/err"
		rc=$(cat "$tmp/rc.$n")
		[ "$rc" = 6 ] || fail "$n into an unwritable directory: expected exit 6, got $rc"
		grep -q -- "$tmp/ro/" "$tmp/err" || fail "$n: the error does not name the path"
		grep -q -e "Read-only file system" -e "Permission denied" "$tmp/err" ||
			fail "$n: the error does not say why"
	done
	;;
output_is_directory)
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\""
	mkdir -p "$tmp/adir"
	run check --config "$tmp/renacer.toml" --junit "$tmp/adir"
	expect_rc 6
	expect_err "cannot write JUnit report '$tmp/adir'"
	expect_err "Is a directory"
	[ -d "$tmp/adir" ] || fail "the directory was replaced"
	;;
instructions_child_sigkill)
	# A child killed by SIGKILL writes no count: the total lacks it, so the instructions
	# verdict is NO DATA (exit 1) naming the process, never a PASS on a partial count.
	command -v valgrind >/dev/null 2>&1 || skip "valgrind not found"
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["$faults/ft_killchild", "$marker"]
[[assertion]]
name = "ins"
type = "instructions"
max_instructions = 100000000000
EOT
	run check --config "$tmp/renacer.toml" --no-color
	expect_rc 1
	expect_err "NO DATA t/ins"
	expect_err "wrote no instruction count"
	grep -q "PASS *[0-9]* instructions" "$tmp/err" && fail "a partial count passed"
	expect_no_leftovers
	;;
valgrind_bogus_summary)
	# What an external tool prints is checked: "summary: -5" is not 2^64 - 5 instructions.
	mkdir -p "$tmp/bin"
	cat >"$tmp/bin/valgrind" <<'EOT'
#!/bin/sh
out=
while [ $# -gt 0 ]; do
	case $1 in
	--cachegrind-out-file=*) out=${1#*=} ;;
	--) shift; break ;;
	esac
	shift
done
"$@"
printf 'cmd: %s\nevents: Ir\nsummary: -5\n' "$1" >"$(echo "$out" | sed "s/%p/$$/")"
EOT
	chmod +x "$tmp/bin/valgrind"
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["$faults/ft_exit", "0", "$marker"]
[[assertion]]
name = "ins"
type = "instructions"
max_instructions = 9000000000000000000
EOT
	PATH="$tmp/bin:$PATH" run check --config "$tmp/renacer.toml" --no-color
	expect_rc 4
	expect_err "summary is not a count of instructions"
	grep -q "18446744073709551611" "$tmp/err" && fail "-5 was read as 2^64 - 5"
	;;
ebpf_bad_btf)
	# An unusable BTF file: driver = "ebpf" is a collector error (exit 5) naming the file;
	# "auto" falls back to ptrace and says why.
	"$renacer" trace --driver ebpf -c -o /dev/null -- true >/dev/null 2>&1 ||
		skip "the eBPF driver is not built or cannot load here"
	printf 'not BTF\n' >"$tmp/bogus.btf"
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\"" 'driver = "ebpf"'
	RENACER_BTF="$tmp/bogus.btf" run check --config "$tmp/renacer.toml" --no-color
	expect_rc 5
	expect_err "driver ebpf cannot be used: the BTF file '$tmp/bogus.btf' is not usable BTF"
	grep -q "No such process" "$tmp/err" && fail "the old message"
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\"" 'driver = "auto"'
	RENACER_BTF="$tmp/bogus.btf" run check --config "$tmp/renacer.toml" --no-color
	expect_rc 0
	expect_err "driver auto uses ptrace: the BTF file"
	RENACER_BTF="$tmp/missing.btf" run check --config "$tmp/renacer.toml" --no-color
	expect_rc 0
	expect_err "cannot be read: No such file or directory"
	;;
golden_update_no_color)
	# golden update takes the output options check takes.
	target_config "\"$faults/ft_exit\", \"0\", \"$marker\"" "runs = 1"
	run golden update --config "$tmp/renacer.toml" --no-color
	expect_rc 0
	[ -s "$tmp/golden/t.json" ] || fail "no golden trace written"
	;;
*)
	echo "unknown case $case_name" >&2
	exit 2
	;;
esac
echo "ok: $case_name"
exit 0
