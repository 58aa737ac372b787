#!/bin/sh
# Hostile targets, file systems and strings change nothing (docs/hardening.md):
#
#   - outputs are written through safely created temporaries (O_EXCL|O_NOFOLLOW, random name,
#     mode from the umask) and renamed into place; a final path that is a symlink is refused;
#     stale temporaries of killed runs are removed;
#   - a target cannot trace, stop or signal renacer (seccomp guard), so timeouts hold;
#   - SIGHUP/SIGQUIT end a run like SIGTERM (129/131, partial reports), SIGUSR1/SIGUSR2/SIGPIPE
#     are ignored;
#   - regexes are bounded (an interval over 255: a config error at once; matching: PCRE2's limits);
#     goldens must be regular files;
#   - NUL in env values is a config error; control characters never reach the output raw;
#   - secrets inside shell command strings are redacted in golden traces and OTLP files.
#
#     security_test.sh CASE BUILD_DIR SOURCE_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped.
set -u
case_name=$1
build=$2
src=${3:-}
renacer="$build/renacer"
sec="$build/security"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
marker="rnsec-$case_name-$$-$(date +%s)"
# A stuck renacer fails the test instead of hanging it (the old failures hung forever).
run_limit=${RN_SEC_RUN_LIMIT:-60}

cleanup() {
	for pid in $(pgrep -f -- "$marker" 2>/dev/null); do
		kill -CONT "$pid" 2>/dev/null
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

# Run renacer under a time limit, in a session of its own (a target that stops its whole
# process group must not stop this script): a renacer that is stopped or hung is killed, with
# its group, after $run_limit s and fails the test. Sets $rc.
run() {
	setsid "$renacer" "$@" >"$tmp/out" 2>"$tmp/err" &
	rpid=$!
	i=0
	while kill -0 "$rpid" 2>/dev/null && [ $i -lt $((run_limit * 10)) ]; do
		# a zombie has finished
		grep -q '^State:[[:space:]]*Z' "/proc/$rpid/status" 2>/dev/null && break
		sleep 0.1
		i=$((i + 1))
	done
	if [ $i -ge $((run_limit * 10)) ]; then
		kill -KILL -- "-$rpid" 2>/dev/null
		kill -KILL "$rpid" 2>/dev/null
		wait "$rpid"
		fail "renacer $* did not finish within $run_limit s (stopped or hung)"
	fi
	wait "$rpid"
	rc=$?
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# config COMMAND_TOML_ARRAY [EXTRA_TARGET_LINES]
config() {
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = [$1]
timeout_s = 30
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

# A pid that is not in use (for "a killed run left this").
dead_pid() {
	p=$(($(cat /proc/sys/kernel/pid_max) - 7))
	while kill -0 "$p" 2>/dev/null; do p=$((p - 1)); done
	echo "$p"
}

# Send SIG to renacer while it runs a 3 s target; sets $rc.
signal_renacer() {
	config "\"/bin/sh\", \"-c\", \"sleep 3\", \"$marker\""
	env --default-signal=INT,TERM,HUP,QUIT "$renacer" check --config "$tmp/renacer.toml" \
		>"$tmp/out" 2>"$tmp/err" &
	rpid=$!
	i=0
	while ! pgrep -f -- "$marker" >/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.3
	kill -"$1" "$rpid"
	wait "$rpid"
	rc=$?
}

golden_special() {
	config "\"/bin/true\""
	mkdir -p "$tmp/golden"
	eval "$1"
	run check --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "golden/t.json"
	expect_err "$2"
}

case $case_name in
tmp_final_symlink)
	# golden update where the golden trace is a symlink to another file: refused, exit 6,
	# the other file untouched and the link still a link.
	config "\"/bin/true\""
	mkdir -p "$tmp/golden"
	echo "precious" >"$tmp/victim"
	ln -s "$tmp/victim" "$tmp/golden/t.json"
	run golden update --config "$tmp/renacer.toml"
	expect_rc 6
	expect_err "symbolic link"
	[ "$(cat "$tmp/victim")" = precious ] || fail "the link's target was overwritten"
	[ -L "$tmp/golden/t.json" ] || fail "the symlink was replaced"
	[ "$(ls -A "$tmp/golden")" = "t.json" ] || fail "files left: $(ls -A "$tmp/golden")"
	# the same for the JUnit report
	ln -s "$tmp/victim" "$tmp/junit.xml"
	run check --config "$tmp/renacer.toml" --no-golden
	expect_err "symbolic link"
	[ "$(cat "$tmp/victim")" = precious ] || fail "JUnit: the link's target was overwritten"
	# and for `renacer trace -o`; a device is still written directly
	ln -s "$tmp/victim" "$tmp/trace.txt"
	run trace -o "$tmp/trace.txt" -- /bin/true
	expect_rc 6
	expect_err "symbolic link"
	[ "$(cat "$tmp/victim")" = precious ] || fail "trace -o: the link's target was overwritten"
	run trace -o /dev/null -- /bin/true
	expect_rc 0
	run trace -o "$tmp/new.txt" -- /bin/true
	expect_rc 0
	grep -q execve "$tmp/new.txt" || fail "trace -o wrote no trace"
	;;
tmp_mode_and_stale)
	# The new file's mode follows the umask; temporaries of a killed run are removed; the
	# temporary is never a predictable name (an attacker's link there is not followed).
	config "\"/bin/true\""
	mkdir -p "$tmp/golden"
	dp=$(dead_pid)
	echo stale >"$tmp/golden/.t.json.rn-tmp.$dp.0123456789abcdef"
	echo stale >"$tmp/golden/t.json.tmp.$dp"
	echo "precious" >"$tmp/victim"
	for p in $(seq $(($$ + 1)) $(($$ + 200))); do
		ln -s "$tmp/victim" "$tmp/golden/t.json.tmp.$p" 2>/dev/null
	done
	old_umask=$(umask)
	umask 077
	run golden update --config "$tmp/renacer.toml"
	umask "$old_umask"
	expect_rc 0
	[ "$(cat "$tmp/victim")" = precious ] || fail "a planted temporary link was followed"
	mode=$(stat -c %a "$tmp/golden/t.json")
	[ "$mode" = 600 ] || fail "golden trace mode $mode under umask 077, expected 600"
	[ -e "$tmp/golden/.t.json.rn-tmp.$dp.0123456789abcdef" ] && fail "stale temporary left"
	[ -e "$tmp/golden/t.json.tmp.$dp" ] && fail "stale old-style temporary left"
	ls -A "$tmp/golden" | grep -q 'rn-tmp' && fail "temporary left: $(ls -A "$tmp/golden")"
	;;
guard_stop_group)
	# SIGSTOP to the process group the target shares with renacer. The seccomp guard refuses
	# it (the run ends normally); a Landlock guard (Linux 6.12+) delivers it to the target's
	# own tree only: the target stops itself, renacer is not stopped and its timeout ends
	# the run.
	if [ "$("$sec/sec_attack" landlock-abi)" -ge 6 ]; then
		config "\"$sec/sec_attack\", \"stop-group\", \"$marker\"" 'timeout_s = 2'
		sed -i '/^timeout_s = 30$/d' "$tmp/renacer.toml"
		run check --config "$tmp/renacer.toml"
		expect_rc 4
		expect_err "timed out after 2.000 s"
	else
		config "\"$sec/sec_attack\", \"stop-group\", \"$marker\"" 'expect_exit = 0'
		run check --config "$tmp/renacer.toml"
		expect_rc 0
	fi
	;;
guard_mem)
	# Writing renacer's memory through /proc/PID/mem: the Landlock guard refuses it whatever
	# the target's capabilities (the seccomp guard does not see open(2): skipped there).
	[ "$("$sec/sec_attack" landlock-abi)" -ge 6 ] || { echo "SKIP: no Landlock ABI 6" >&2; exit 77; }
	config "\"$sec/sec_attack\", \"mem\", \"$marker\"" 'expect_exit = 0'
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	;;
guard_seize | guard_attach | guard_stop)
	# The target turns on renacer; renacer stays in control and the run ends normally.
	mode=${case_name#guard_}
	mode=$(echo "$mode" | tr _ -)
	# sec_attack exits 3 when the attack worked; expect_exit = 0 makes that an error
	config "\"$sec/sec_attack\", \"$mode\", \"$marker\"" 'expect_exit = 0'
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	;;
guard_trace_modes)
	# The same attacks under `renacer trace` (every stop), -c (seccomp count-only) and
	# a filtered trace: refused in each mode; the target's own output says so.
	for m in seize stop; do
		for opts in "" "-c" "-e trace=kill,ptrace"; do
			# shellcheck disable=SC2086
			run trace $opts -o "$tmp/trace.txt" -- "$sec/sec_attack" "$m" "$marker"
			grep -q "$m: refused" "$tmp/out" || fail "trace $opts: $m was not refused: $(cat "$tmp/out")"
		done
	done
	;;
signal_hup)
	signal_renacer HUP
	expect_rc 129
	[ -s "$tmp/junit.xml" ] || fail "no partial JUnit report after SIGHUP"
	expect_err "SIGHUP"
	;;
signal_quit)
	signal_renacer QUIT
	expect_rc 131
	[ -s "$tmp/junit.xml" ] || fail "no partial JUnit report after SIGQUIT"
	;;
signal_usr1 | signal_usr2 | signal_pipe)
	sig=$(echo "${case_name#signal_}" | tr a-z A-Z)
	signal_renacer "$sig"
	expect_rc 0
	[ -s "$tmp/junit.xml" ] || fail "no JUnit report after SIG$sig"
	;;
regex_catastrophic)
	cat >"$tmp/renacer.toml" <<'EOT'
[[assertion]]
name = "a"
type = "span_count"
max_spans = 1
span_name_pattern = "(.*){1,32000}"

[[assertion]]
name = "b"
type = "span_count"
max_spans = 1
span_name_pattern = "open|read(at)?"
EOT
	# refused at once: an interval over POSIX's RE_DUP_MAX (255)
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:5:21: error: 'span_name_pattern'"
	expect_err "repetition bound 32000 is over 255"
	# nested repetitions compile quickly in PCRE2 (their matching is bounded by its limits;
	# tests/unit/util/test_rn_regex.c), and "b" stays valid
	sed -i 's/{1,32000}/{1,255}/' "$tmp/renacer.toml"
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	sed -i 's/"(.\*){1,255}"/"((a|.?)*){1,20}"/' "$tmp/renacer.toml"
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	# a pattern longer than 1024 bytes is refused
	long=$(printf 'a%.0s' $(seq 1 1100))
	sed -i "s/\"((a|.?)\*){1,20}\"/\"$long\"/" "$tmp/renacer.toml"
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:5:21: error:"
	expect_err "longer than 1024 bytes"
	;;
regex_backref)
	cat >"$tmp/renacer.toml" <<'EOT'
[[assertion]]
name = "a"
type = "span_count"
max_spans = 1
span_name_pattern = 'read|(a*)*\2'
EOT
	# back-references are PCRE2 syntax (their matching is bounded); one to a missing group
	# is an error at the pattern
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:5:21: error:"
	expect_err "non-existent subpattern"
	sed -i 's/\\2/\\1/' "$tmp/renacer.toml"
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	;;
golden_fifo)
	golden_special 'mkfifo "$tmp/golden/t.json"' "not a regular file"
	;;
golden_dev_zero)
	golden_special 'ln -s /dev/zero "$tmp/golden/t.json"' "not a regular file"
	;;
golden_dev_urandom)
	golden_special 'ln -s /dev/urandom "$tmp/golden/t.json"' "not a regular file"
	;;
golden_symlink_loop)
	golden_special 'ln -s t.json "$tmp/golden/t.json"' "cannot read golden trace"
	;;
env_nul)
	config "\"/bin/true\"" 'env = { A = "x\u0000y" }'
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:5:13: error: env value 'A'"
	expect_err "NUL"
	;;
name_newline_injection)
	# An assertion name with newlines and an escape sequence: no output line starts a
	# workflow command, and no raw ESC reaches the log.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["/bin/true"]
[[assertion]]
name = "x\n::error::injected\n::add-mask::secret\u001b[2J"
type = "critical_path"
max_duration_ms = 0.000001
[golden]
dir = "$tmp/golden"
EOT
	run check --config "$tmp/renacer.toml" --github
	grep -q '^::error::injected' "$tmp/out" "$tmp/err" && fail "an ::error command was injected"
	grep -q '^::add-mask::' "$tmp/out" "$tmp/err" && fail "an ::add-mask command was injected"
	grep -q "$(printf '\033')" "$tmp/out" "$tmp/err" && fail "a raw escape character reached the output"
	grep -q 'x\\n::error::injected' "$tmp/err" || fail "the name is not shown escaped"
	;;
shell_secrets)
	config "\"/bin/sh\", \"-c\", \"exec true --password=hunter2 TOKEN=tok3n --token 's3cr3t' x\"" \
		"runs = 1"
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	grep -q 'hunter2\|tok3n\|s3cr3t' "$tmp/golden/t.json" && fail "a secret is in the golden trace"
	grep -q 'password=\[REDACTED\]' "$tmp/golden/t.json" || fail "no redaction in the golden trace"
	run check --config "$tmp/renacer.toml" --otlp-file "$tmp/otlp.jsonl"
	[ -s "$tmp/otlp.jsonl" ] || fail "no OTLP file"
	grep -q 'hunter2\|tok3n\|s3cr3t' "$tmp/otlp.jsonl" && fail "a secret is in the OTLP file"
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["exec true --password=hunter2 TOKEN=tok3n --token s3cr3t"]
shell = true
[golden]
dir = "$tmp/golden"
EOT
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	grep -q 'hunter2\|tok3n\|s3cr3t' "$tmp/golden/t.json" && fail "shell = true: a secret is in the golden trace"
	grep -q 'TOKEN=\[REDACTED\]' "$tmp/golden/t.json" || fail "shell = true: no redaction"
	;;
merge_forged_names)
	# Results files come from jobs that ran a pull request's code: a target name check
	# rejects is rejected by merge too, and never printed as a line of its own.
	python3 - "$src/tests/integration/shard/seeds" "$tmp" <<'EOF' || fail "cannot forge the results"
import json, sys
for k in (1, 2):
    d = json.load(open("%s/shard-%d-of-2.json" % (sys.argv[1], k)))
    d["suite"] = ["x\n::error::FORGED3" if s == "plain" else s for s in d["suite"]]
    for t in d["targets"]:
        if t["name"] == "plain":
            t["name"] = "x\n::error::FORGED3"
    json.dump(d, open("%s/f-%d.json" % (sys.argv[2], k), "w"))
EOF
	run merge "$tmp/f-1.json" "$tmp/f-2.json"
	expect_rc 3
	expect_err "must match \[A-Za-z0-9_.-\]+"
	grep -q '^::error::FORGED3' "$tmp/out" "$tmp/err" && fail "a workflow command was printed"
	;;
merge_options_after_files)
	# `renacer merge a.json b.json --junit FILE`: the option is an option, not a file.
	run merge "$src/tests/integration/shard/seeds/shard-1-of-2.json" \
		"$src/tests/integration/shard/seeds/shard-2-of-2.json" --junit "$tmp/junit.xml" --no-color
	expect_rc 4
	grep -q "cannot read results file '--junit'" "$tmp/err" && fail "--junit read as a file"
	[ -s "$tmp/junit.xml" ] || fail "no JUnit report"
	;;
trace_source_fifo)
	# FIFOs where trace --source looks for debug files (the build-id path under --debug-dir
	# and the .gnu_debuglink name): skipped, never waited on.
	command -v objcopy >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 ||
		skip "needs gcc and objcopy"
	printf '#include <unistd.h>\nint main(void){return write(1, "x", 1) != 1;}\n' >"$tmp/s.c"
	gcc -g -Wl,--build-id -o "$tmp/s" "$tmp/s.c" || skip "cannot build a test program"
	objcopy --only-keep-debug "$tmp/s" "$tmp/s.debug"
	objcopy --strip-debug --add-gnu-debuglink="$tmp/s.debug" "$tmp/s" "$tmp/s3"
	rm -f "$tmp/s.debug"
	mkfifo "$tmp/s.debug"
	id=$(readelf -n "$tmp/s3" | sed -n 's/.*Build ID: *//p')
	[ -n "$id" ] || skip "no build-id"
	mkdir -p "$tmp/dbg/.build-id/$(echo "$id" | cut -c1-2)"
	mkfifo "$tmp/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
	run trace --source --debug-dir "$tmp/dbg" -o "$tmp/trace.txt" -- "$tmp/s3" "$marker"
	expect_rc 0
	grep -q '^write(1' "$tmp/trace.txt" || fail "no trace written"
	;;
diff_deep_chain)
	# A chain of 16,000 forks diffed with itself in 512 MiB of address space (every full
	# role of the chain took 2 GB), and 128,000 sibling processes in 1 GiB.
	# AddressSanitizer reserves terabytes of shadow address space: no ulimit -v under it. The
	# build says whether it is one (RN_SANITIZE), whatever ASAN_OPTIONS the caller set.
	if [ -n "${ASAN_OPTIONS:-}" ] ||
		grep -q '^RN_SANITIZE:STRING=.*address' "$build/CMakeCache.txt" 2>/dev/null; then
		echo "SKIP: an address-space limit cannot hold an ASan build" >&2
		exit 77
	fi
	python3 - "$tmp" <<'EOF' || fail "cannot write the traces"
import json, sys
def write(path, n, chain):
    with open(path, "w") as f:
        f.write(json.dumps({"type": "header", "schema": "renacer-trace"}) + "\n")
        f.write(json.dumps({"type": "process", "event": "exec", "pid": 1, "ppid": 0,
                            "exe": "/bin/sh"}) + "\n")
        for i in range(2, n + 2):
            f.write(json.dumps({"type": "process", "event": "fork", "pid": i,
                                "ppid": i - 1 if chain else 1}) + "\n")
        f.write(json.dumps({"type": "end", "processes": [
            {"pid": i, "end": "exited", "exit_code": 0} for i in range(1, n + 2)]}) + "\n")
write(sys.argv[1] + "/chain.jsonl", 16000, True)
write(sys.argv[1] + "/wide.jsonl", 128000, False)
EOF
	(ulimit -v 524288 && exec "$renacer" diff "$tmp/chain.jsonl" "$tmp/chain.jsonl") \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	grep -q "equivalent: all 32002 facts match" "$tmp/out" || fail "chain: $(tail -1 "$tmp/out")"
	(ulimit -v 1048576 && exec "$renacer" diff "$tmp/wide.jsonl" "$tmp/wide.jsonl") \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	grep -q "equivalent: all 256002 facts match" "$tmp/out" || fail "wide: $(tail -1 "$tmp/out")"
	;;
diff_input_limits)
	# Larger than 256 MiB: a one-line error naming the limit, exit 3.
	truncate -s 257M "$tmp/big.jsonl"
	printf '{"type":"header","schema":"renacer-trace"}\n' >"$tmp/small.jsonl"
	run diff "$tmp/big.jsonl" "$tmp/small.jsonl"
	expect_rc 3
	expect_err "is larger than 256 MiB"
	;;
app_span_names)
	# Span names are the program's text (the row names the hostile span alone: under load the
	# other span can be the longest): a newline cannot start a workflow command line in
	# check's GitHub output, ESC and BEL never reach a log raw, and a name cut at 96 bytes
	# stays UTF-8 (renacer_span.h cuts between characters; the receiver repairs the rest).
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["$sec/sec_spans", "names", "$marker"]
collectors = ["ptrace", "app"]
[[assertion]]
name = "budget"
type = "span_time"
span_name_pattern = "(?s)app:x.*"
max_ms = 0.000001
EOT
	run check --config "$tmp/renacer.toml" --no-golden --github
	expect_rc 1
	grep -q '^[[:space:]]*::error::FORGED4' "$tmp/out" "$tmp/err" &&
		fail "a span name started an ::error command"
	grep -q "$(printf '\033')\|$(printf '\007')" "$tmp/out" "$tmp/err" &&
		fail "a raw ESC or BEL reached check's output"
	grep -q 'x\\n::error::FORGED4\\e\[2J\\x07' "$tmp/err" || fail "the name is not shown escaped"
	run trace --collectors app -o "$tmp/lines" -- "$sec/sec_spans" names "$marker"
	expect_rc 0
	grep -q "$(printf '\033')\|$(printf '\007')" "$tmp/lines" && fail "trace printed ESC or BEL raw"
	grep -q '^::error::FORGED4' "$tmp/lines" && fail "trace printed the name's newline raw"
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$tmp/lines" ||
		fail "trace printed invalid UTF-8"
	grep -q ' app:a\{95\} <' "$tmp/lines" || fail "the long name is not cut before its last character"
	;;
app_open_cap)
	# 10,050 nested pushes: 10,000 stay open, 50 are refused and said so; every pop still
	# closes the span it belongs to.
	config "\"$sec/sec_spans\", \"open\", \"10050\", \"$marker\"" \
		'collectors = ["ptrace", "app"]
[[assertion]]
name = "deep"
type = "span_count"
span_name_pattern = "app:deep"
max_spans = 100000
[[assertion]]
name = "deep_time"
type = "span_time"
span_name_pattern = "app:deep"
max_ms = 100000'
	run check --config "$tmp/renacer.toml" --no-golden
	expect_err "50 renacer_span_push() call(s) refused: more than 10000 app spans open at once"
	expect_err "9999 spans matching /app:deep/"
	run trace --collectors app -o "$tmp/lines" -- "$sec/sec_spans" open 10050 "$marker"
	expect_rc 0
	grep -Eq 'app:outer <[0-9.]*>( cpu=[0-9.]*)?$' "$tmp/lines" || fail "app:outer was not closed by its pop"
	grep -q 'unclosed' "$tmp/lines" && fail "a span was left unclosed"
	;;
app_otlp_times)
	# OTLP times at and past 2^63 ns, at 0, a day old or ending before they start: the
	# impossible ones are dropped and counted with the reason, never wrapped into budgets.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["python3", "$here/otlp_post.py", "times", "$marker"]
collectors = ["ptrace", "app"]
[[assertion]]
name = "total"
type = "span_time"
span_name_pattern = "app:.*"
stat = "total"
max_ms = 1000
EOT
	run check --config "$tmp/renacer.toml" --no-golden
	expect_err "app: 4 dropped (4 app span(s) dropped: their times lie outside the run"
	expect_err "total of 2 spans matching /app:.\*/"
	grep -q 'app:huge_start\|app:max_start\|app:epoch\|app:long_ago' "$tmp/err" &&
		fail "an impossible span reached the verdict"
	;;
app_orphan_parents)
	# 60,000 spans whose parents never came cost what 60,000 spans under one root cost (the
	# parents were looked up by a scan of every span: 18 s against 4.6 s for 60,000). CPU
	# time of the whole run, sender included, compared as a ratio.
	python3 - "$renacer" "$here/otlp_post.py" "$tmp" <<'EOF' || fail "orphan spans cost more than their count"
import resource, subprocess, sys
renacer, sender, tmp = sys.argv[1:4]
def cpu(mode):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([renacer, "trace", "--collectors", "app", "-o", tmp + "/" + mode, "--",
                    "python3", sender, mode, "60000"], check=True, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    n = sum(1 for line in open(tmp + "/" + mode) if " app:leaf " in line)
    assert n == 60000, "%s: %d leaf spans" % (mode, n)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
parents, orphans = cpu("parents"), cpu("orphans")
print("CPU s: parents %.2f, orphans %.2f" % (parents, orphans))
sys.exit(0 if orphans < 2 * max(parents, 0.5) else 1)
EOF
	;;
explain_deep_stack)
	# A folded stack of 200,000 frames: the flame graph is drawn to 1024 frames and says so;
	# the drawing recursed once per frame and overflowed the stack.
	python3 -c 'print(";".join("f%d" % i for i in range(200000)) + " 5")' >"$tmp/head.folded"
	printf 'f0;f1 3\n' >"$tmp/base.folded"
	run explain --svg "$tmp/d.svg" "$tmp/base.folded" "$tmp/head.folded"
	expect_rc 0
	grep -q 'stacks cut at 1024 frames' "$tmp/d.svg" || fail "the graph does not say it was cut"
	[ "$(grep -c '^<g>' "$tmp/d.svg")" -le 1025 ] || fail "more than 1024 frames drawn"
	;;
explain_hostile_names)
	# Frame names from a folded file are data (ESC, BEL, invalid UTF-8, C1 controls, bidi
	# overrides), and values near 2^64 neither wrap nor print as "-1 ns".
	printf 'a;\033[2J\007b;\377\376 18446744073709551615\nz 5\n' >"$tmp/head.folded"
	printf 'gpj\342\200\256exe;x\302\233\062J 7\n' >"$tmp/bidi.folded"
	printf 'a;\033[2J\007b;\377\376 1\nq 18446744073709551615\nq 5\n' >"$tmp/base.folded"
	run explain --top 0 --svg "$tmp/d.svg" "$tmp/base.folded" "$tmp/head.folded"
	expect_rc 0
	grep -q "$(printf '\033')\|$(printf '\007')" "$tmp/out" && fail "a raw ESC or BEL was printed"
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$tmp/out" ||
		fail "invalid UTF-8 was printed"
	grep -q ': 18446744073709551615 -> 18446744073709551615 samples' "$tmp/out" ||
		fail "the totals wrapped: $(head -1 "$tmp/out")"
	grep -q '+18446744073709551614 samples in .*, from \\e\[2J\\x07b' "$tmp/out" ||
		fail "the growth wrapped or the name is raw"
	grep -q -- ' -1 ' "$tmp/out" && fail "a count printed as -1"
	run explain --svg "$tmp/b.svg" "$tmp/base.folded" "$tmp/bidi.folded"
	expect_rc 0
	grep -q "$(printf '\342\200\256')\\|$(printf '\302\233')" "$tmp/out" "$tmp/b.svg" &&
		fail "a bidi override or a C1 control was written raw"
	grep -q 'x\\u009b2J' "$tmp/out" || fail "the C1 control is not shown escaped"
	grep -q 'gpj\\u202eexe' "$tmp/b.svg" || fail "the SVG does not show the override escaped"
	;;
explain_wide_profile)
	# 40,000 distinct stacks under one frame cost about 4 times what 10,000 cost (each frame
	# was found by a scan of its siblings: quadratic, minutes for 200,000). CPU time of
	# explain --svg, compared as a ratio.
	python3 - "$renacer" "$tmp" <<'EOF' || fail "a wide profile costs more than its size"
import resource, subprocess, sys
renacer, tmp = sys.argv[1:3]
open(tmp + "/base.folded", "w").write("main;f 1\n")
def cpu(n):
    head = "%s/w%d.folded" % (tmp, n)
    with open(head, "w") as f:
        f.write("".join("main;s%d 1\n" % i for i in range(n)))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([renacer, "explain", "--top", "1", "--svg", tmp + "/w.svg",
                    tmp + "/base.folded", head], check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
small, big = cpu(10000), cpu(40000)
print("CPU s: 10,000 stacks %.2f, 40,000 stacks %.2f" % (small, big))
sys.exit(0 if big < 8 * max(small, 0.1) else 1)
EOF
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
