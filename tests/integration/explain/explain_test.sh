#!/bin/sh
# Integration tests of explaining a failed timing row (runner/check/profile_check.h): a base and a
# head tree build tests/integration/explain/app.c with -g, the head with a planted hot function or a
# planted openat loop; `renacer check` fails on timing and the ranked explanation's first
# item must name what was planted, with its file:line, in the console, JUnit and the GitHub
# summary. Asserts are on names, lines and counts, never on durations.
#
#     explain_test.sh CASE BUILD_DIR C_COMPILER
#
# Exit 0 = pass, 1 = fail, 77 = skipped (no ptrace or no perf_event_open here).
set -u
case_name=$1
build=$2
cc=$3
renacer="$build/renacer"
src=$(cd "$(dirname "$0")" && pwd)/app.c
targets_src=$(cd "$(dirname "$0")/../../targets" && pwd)
tmp=$(mktemp -d)
# the perf maps that the jit and node cases' runs wrote (/tmp/perf-PID.map, PIDs listed in
# perfmap.pids of each tree) are the test's own: removed with it
cleanup() {
	cat "$tmp"/*/perfmap.pids 2>/dev/null | while read -r pid; do
		case $pid in
		*[!0-9]* | "") ;;
		*) rm -f "/tmp/perf-$pid.map" ;;
		esac
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	for f in out err; do
		[ -f "$tmp/$f" ] && sed "s/^/  $f| /" "$tmp/$f" >&2
	done
	exit 1
}

# Run renacer in the head tree; sets $rc. The console report is in $tmp/con (stdout and
# stderr: the verdict table and the failure details).
run() {
	(cd "$tmp/head" && COLUMNS=200 GITHUB_STEP_SUMMARY="$tmp/summary.md" "$renacer" "$@" \
		>"$tmp/out" 2>"$tmp/err")
	rc=$?
	cat "$tmp/out" "$tmp/err" >"$tmp/con"
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
}

# The first ranked item of the explanation in FILE (the line after "where the time went", or
# "why it may be slower" for a row that did not fail).
first_item() {
	awk '/where the time went|why it may be slower/ { f = 1; next } f && /1\. \+/ { print; exit }' "$1"
}

"$renacer" trace -c -o /dev/null -- /bin/true >/dev/null 2>&1 || {
	echo "SKIP: cannot trace here" >&2
	exit 77
}
# on-CPU samples need perf_event_open (kernel.perf_event_paranoid)
if [ "$case_name" = hot ] || [ "$case_name" = golden ] || [ "$case_name" = child ] ||
	[ "$case_name" = golden_warn ] || [ "$case_name" = stripped ] || [ "$case_name" = span ] ||
	[ "$case_name" = golden_span ] || [ "$case_name" = jit ] || [ "$case_name" = jit_py ] ||
	[ "$case_name" = node ] || [ "$case_name" = node_plain ] || [ "$case_name" = cpu_wait ] ||
	[ "$case_name" = cxx ] || [ "$case_name" = idle ] ||
	[ "$case_name" = one_run ] || [ "$case_name" = python ]; then
	"$renacer" trace -c -o /dev/null --profile "$tmp/probe" -- /bin/true 2>"$tmp/probe.err"
	if grep -q "no on-CPU samples" "$tmp/probe.err"; then
		echo "SKIP: perf_event_open is not permitted here" >&2
		exit 77
	fi
fi

# fn_lines FILE SIGNATURE: "FIRST LAST", the lines of the function whose definition holds
# SIGNATURE in FILE, from that line to its closing brace.
fn_lines() {
	awk -v sig="$2" '!f && index($0, sig) { f = NR } f && NR > f && /^}/ { print f, NR; exit }' \
		"$1"
}

# Lines of app.c: hot_parse's body, and the open() call.
read -r hot_first hot_last <<L
$(fn_lines "$src" 'static void hot_parse')
L
open_line=$(grep -n 'OPEN_LINE' "$src" | cut -d: -f1)

# tree DIR OPENS ROUNDS [CFLAGS]: a checkout with build/app (debug information, frame
# pointers).
tree() {
	mkdir -p "$tmp/$1/build"
	cp "$src" "$tmp/$1/app.c"
	(cd "$tmp/$1" && "$cc" -O1 -g -fno-omit-frame-pointer -DOPENS="$2" -DROUNDS="$3" \
		${4:-} -o build/app app.c) || fail "cannot compile the target"
}

# config [EXTRA]: the head's renacer.toml (10 timing pairs decide a 100x slowdown at once).
config() {
	cat >"$tmp/head/renacer.toml" <<T
[[target]]
name = "app"
command = ["./build/app"]
runs = 10
$1

[regression]
max_runs = 10

[profile]
frequency_hz = 999
T
}

# head_config NAME COMMAND [LINE]: the head's renacer.toml for one target NAME running
# COMMAND (a TOML array), with LINE in its table (collectors = [...]): 10 timing runs decide
# a large change in one look, profiled at 999 Hz.
head_config() {
	cat >"$tmp/head/renacer.toml" <<T
[[target]]
name = "$1"
command = $2
${3:-}
runs = 10

[regression]
max_runs = 10

[profile]
frequency_hz = 999
T
}

# golden_then_check PROGRAM N M: the golden trace (and profile) of `PROGRAM N` as target app,
# then a check of `PROGRAM M` that fails a golden timing row (its console in $tmp/con).
golden_then_check() {
	mkdir -p "$tmp/head"
	config ""
	sed -i "s|^command = .*|command = [\"$1\", \"$2\"]|" "$tmp/head/renacer.toml"
	run golden update
	expect_rc 0
	sed -i "s|^command = .*|command = [\"$1\", \"$3\"]|" "$tmp/head/renacer.toml"
	run check
	expect_rc 1
	grep -q "FAIL app/golden:" "$tmp/con" || fail "no failing golden timing row"
}

# The item's file:line must be app.c's: hot_parse's body for the hot case. hot_parse is the
# program's own function: never "no frame of the program's own", even when GCC's frameless
# leaf leaves only the C runtime's frame above it.
check_hot_item() {
	item=$(first_item "$1")
	case $item in
	*"no frame of the program's own"*) fail "$2: hot_parse labelled not the program's: '$item'" ;;
	esac
	line=$(echo "$item" | sed -n 's/.* on CPU in hot_parse (app\.c:\([0-9]*\)).*/\1/p')
	[ -n "$line" ] || fail "$2: the first item does not name hot_parse (app.c:LINE): '$item'"
	[ "$line" -gt "$hot_first" ] && [ "$line" -lt "$hot_last" ] ||
		fail "$2: line $line is not in hot_parse (lines $hot_first-$hot_last)"
}

case $case_name in
span)
	# a span_time row on app:solve fails: the explanation says where the samples taken
	# inside the solve span went (solve_step, with its file:line), and load_step, outside it,
	# is not there
	spsrc=$(dirname "$src")/span_app.c
	inc=$(cd "$(dirname "$0")/../../../collectors/app" && pwd)
	mkdir -p "$tmp/head/build"
	cp "$spsrc" "$tmp/head/span_app.c"
	(cd "$tmp/head" && "$cc" -O1 -g -fno-omit-frame-pointer -I"$inc" -o build/span_app \
		span_app.c) || fail "cannot compile the span target"
	read -r step_first step_last <<L
$(fn_lines "$spsrc" 'static uint64_t solve_step')
L
	cat >"$tmp/head/renacer.toml" <<T
[[target]]
name = "span_app"
command = ["./build/span_app", "100", "200"]
collectors = ["ptrace", "app"]
runs = 1

[[assertion]]
name = "solve_time"
type = "span_time"
span_name_pattern = "app:solve"
max_ms = 0.001

[profile]
frequency_hz = 999
T
	run check --no-golden --junit junit.xml
	expect_rc 1
	grep -q "FAIL span_app/solve_time" "$tmp/con" || fail "no failing span_time row"
	for f in "$tmp/con" "$tmp/head/.renacer/explain/span_app.explain.txt"; do
		line=$(grep "inside app:solve (3 profiled runs, [0-9]* samples): " "$f")
		[ -n "$line" ] || fail "$f: no line on the samples inside app:solve"
		n=$(echo "$line" | sed -n \
			's/.*: [0-9]*% of its samples in solve_step (span_app\.c:\([0-9]*\)).*/\1/p')
		[ -n "$n" ] || fail "$f: solve_step (span_app.c:LINE) is not first: '$line'"
		[ "$n" -gt "$step_first" ] && [ "$n" -lt "$step_last" ] ||
			fail "$f: line $n is not in solve_step ($step_first-$step_last)"
		case $line in
		*load_step*) fail "$f: load_step, outside the span, is inside it: '$line'" ;;
		esac
	done
	sed 's/&#10;/\n/g' "$tmp/head/junit.xml" | grep -q "inside app:solve (3 profiled runs" ||
		fail "JUnit lacks the line on the samples inside app:solve"
	;;
golden_span)
	# against a golden trace the head's solve span does 10x the work (CPU work, no sleeping;
	# the whole program about 5x, beyond the drift limit even when the golden was recorded on a
	# machine loaded enough to halve its speed): golden:cpu_time fails and is explained first,
	# golden:span_time:app:solve (or golden:span_cpu:app:solve) fails beside it, and the
	# explanation of the cpu_time row adds where the samples inside app:solve went (solve_step,
	# with its file:line); load_step, outside it, is not there
	spsrc=$(dirname "$src")/span_app.c
	inc=$(cd "$(dirname "$0")/../../../collectors/app" && pwd)
	mkdir -p "$tmp/head/build"
	cp "$spsrc" "$tmp/head/span_app.c"
	(cd "$tmp/head" && "$cc" -O1 -g -fno-omit-frame-pointer -I"$inc" -o build/span_app \
		span_app.c) || fail "cannot compile the span target"
	read -r step_first step_last <<L
$(fn_lines "$spsrc" 'static uint64_t solve_step')
L
	# span_config SOLVE_UNITS: 10 timing runs decide a 10x span in one look
	span_config() {
		head_config span_app "[\"./build/span_app\", \"20\", \"$1\"]" \
			'collectors = ["ptrace", "app"]'
	}
	span_config 20
	run golden update
	expect_rc 0
	span_config 200
	run check --junit junit.xml
	expect_rc 1
	grep -q "FAIL span_app/golden:cpu_time" "$tmp/con" || fail "golden:cpu_time did not fail"
	# (on a machine loaded enough to hold the span's wall time within the drift limit its
	# span_time row is advisory, and the span_cpu row beside it fails)
	grep -Eq "FAIL span_app/golden:span_(time|cpu):app:solve" "$tmp/con" ||
		fail "neither golden:span_time:app:solve nor golden:span_cpu:app:solve failed"
	grep -q "golden:cpu_time failed: profiling" "$tmp/con" ||
		fail "the cpu_time row is not the one explained"
	for f in "$tmp/con" "$tmp/head/.renacer/explain/span_app.explain.txt"; do
		line=$(grep "inside app:solve (3 profiled runs, [0-9]* samples): " "$f")
		[ -n "$line" ] || fail "$f: no line on the samples inside app:solve"
		n=$(echo "$line" | sed -n \
			's/.*: [0-9]*% of its samples in solve_step (span_app\.c:\([0-9]*\)).*/\1/p')
		[ -n "$n" ] || fail "$f: solve_step (span_app.c:LINE) is not first: '$line'"
		[ "$n" -gt "$step_first" ] && [ "$n" -lt "$step_last" ] ||
			fail "$f: line $n is not in solve_step ($step_first-$step_last)"
		case $line in
		*load_step*) fail "$f: load_step, outside the span, is inside it: '$line'" ;;
		esac
	done
	sed 's/&#10;/\n/g' "$tmp/head/junit.xml" | grep -q "inside app:solve (3 profiled runs" ||
		fail "JUnit lacks the line on the samples inside app:solve"
	;;
hot)
	tree base 10 0
	tree head 10 1500
	config "[history]"
	run check --baseline ../base --junit junit.xml --github
	expect_rc 1
	grep -q "FAIL app/baseline:" "$tmp/con" || fail "no failing baseline timing row"
	check_hot_item "$tmp/con" console
	# JUnit's failure text carries the same ranked list (XML-escaped, one line per item)
	sed 's/&#10;/\n/g' "$tmp/head/junit.xml" >"$tmp/junit.txt"
	check_hot_item "$tmp/junit.txt" JUnit
	check_hot_item "$tmp/summary.md" "GitHub summary"
	for f in app.base.folded app.head.folded app.base.calls.folded app.head.calls.folded \
		app.diff.svg app.explain.txt; do
		[ -s "$tmp/head/.renacer/explain/$f" ] || fail "no .renacer/explain/$f"
	done
	grep -q "hot_parse (app.c:" "$tmp/head/.renacer/explain/app.diff.svg" ||
		fail "the flame graph has no hot_parse box"
	grep -q "flame graph: .renacer/explain/app.diff.svg" "$tmp/con" ||
		fail "the console does not name the flame graph"
	# the report page shows the last check's explanation and links the flame graph
	mkdir -p "$tmp/head/page"
	run report --html page/index.html
	expect_rc 0
	grep -q "<h2>Where the time went</h2>" "$tmp/head/page/index.html" || fail "page: no section"
	grep -q "on CPU in hot_parse (app.c:" "$tmp/head/page/index.html" || fail "page: no item"
	grep -q 'href="../.renacer/explain/app.diff.svg"' "$tmp/head/page/index.html" ||
		fail "page: no link to the flame graph"
	# a later check whose timing row fails again, with explaining off for the target: the
	# page shows no explanation under it, although the earlier check's files are still on
	# disk (the page read them before the store kept explanations); the earlier run keeps
	# its own (the store's, shown in that run's details)
	config "profile = false
[history]"
	run check --baseline ../base
	expect_rc 1
	grep -q "FAIL app/baseline:" "$tmp/con" || fail "later check: no failing timing row"
	grep -q "where the time went" "$tmp/con" && fail "later check: explained with profile = false"
	run report --html page/later.html
	expect_rc 0
	! grep -q "<h2>Where the time went</h2>" "$tmp/head/page/later.html" ||
		fail "later page: an explanation shown under a run that had none"
	grep -q "on CPU in hot_parse (app.c:" "$tmp/head/page/later.html" ||
		fail "later page: the earlier run's explanation is gone"
	# the base never ran hot_parse's loop: its profile has no sample there
	! grep -q "hot_parse (app.c:" "$tmp/head/.renacer/explain/app.base.folded" ||
		fail "the base profile has samples in hot_parse"
	;;
jit | jit_py)
	# code compiled at run time (tests/integration/explain/jit.c: a spin loop copied into an
	# anonymous page, named jit_spin_loop in /tmp/perf-PID.map): the head spins longer, and
	# the first item names the region from the perf map, called from main. jit_py: the shape
	# of CPython 3.12's perf trampolines (a region "py::hot_loop:/app/spin.py" that calls
	# _PyEval_EvalFrameDefault, which spins): the item names the Python function as
	# "hot_loop (/app/spin.py)", inside the interpreter's frame, and the note under the list
	# says the names come from the perf map
	[ "$(uname -m)" = x86_64 ] || {
		echo "SKIP: the JIT target's machine code is x86-64" >&2
		exit 77
	}
	jsrc=$(dirname "$src")/jit.c
	flags=
	[ "$case_name" = jit_py ] && flags=-DPY_TRAMPOLINE
	for side in base:5 head:1500; do
		mkdir -p "$tmp/${side%:*}/build"
		"$cc" -O1 -g -fno-omit-frame-pointer $flags -DROUNDS="${side#*:}" \
			-o "$tmp/${side%:*}/build/app" "$jsrc" || fail "cannot compile the JIT target"
	done
	config ""
	run check --baseline ../base
	expect_rc 1
	grep -q "FAIL app/baseline:" "$tmp/con" || fail "no failing baseline timing row"
	item=$(first_item "$tmp/con")
	folded="$tmp/head/.renacer/explain/app.head.folded"
	if [ "$case_name" = jit_py ]; then
		case $item in
		*"1. +"*" on CPU in hot_loop (/app/spin.py) [jit], inside _PyEval_EvalFrameDefault"*) ;;
		*) fail "the first item does not name hot_loop (/app/spin.py): '$item'" ;;
		esac
		grep -q ";main ([^;]*jit\.c:[0-9]*);hot_loop (/app/spin.py) \[jit\];_PyEval" \
			"$folded" || fail "the head's folded stacks have no main;hot_loop [jit];_PyEval"
		note="Python functions named from the interpreter's perf map"
		grep -qF "$note" "$tmp/con" || fail "the console does not say '$note'"
		grep -qF "$note" "$tmp/head/.renacer/explain/app.explain.txt" ||
			fail "app.explain.txt does not say '$note'"
		! grep -q "interpreter frames only" "$tmp/con" ||
			fail "the console says interpreter frames only"
	else
		case $item in
		*"1. +"*" on CPU in jit_spin_loop [jit], from main"*) ;;
		*) fail "the first item does not name jit_spin_loop from main: '$item'" ;;
		esac
		# (the file as DWARF names it: the path it was compiled with)
		grep -q ";main ([^;]*jit\.c:[0-9]*);jit_spin_loop \[jit\] [0-9]*$" "$folded" ||
			fail "the head's folded stacks have no main (jit.c:N);jit_spin_loop [jit] stack"
	fi
	[ -s "$tmp/head/perfmap.pids" ] || fail "the target wrote no perf map"
	for pid in $(cat "$tmp/head/perfmap.pids"); do
		[ -f "/tmp/perf-$pid.map" ] || fail "/tmp/perf-$pid.map is gone: renacer removed it"
	done
	;;
node | node_plain)
	# Node.js with --perf-basic-prof: V8 names its compiled functions in /tmp/perf-PID.map,
	# and the first item names the JavaScript function that grew, hotLoop, with its file;
	# the explanation says where the names come from. Without the flag (node_plain) the
	# items are V8's frames, and the explanation says how to name the functions.
	command -v node >/dev/null 2>&1 || {
		echo "SKIP: no node" >&2
		exit 77
	}
	for side in base:1 head:20; do
		mkdir -p "$tmp/${side%:*}"
		cat >"$tmp/${side%:*}/hot.js" <<JS
function hotLoop(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + i * i) % 1000003;
  return s;
}
let t = 0;
for (let r = 0; r < ${side#*:}; r++) t += hotLoop(1000000);
if (t < 0) console.log(t);
JS
	done
	config ""
	if [ "$case_name" = node_plain ]; then
		sed -i 's|^command = .*|command = ["node", "hot.js"]|' "$tmp/head/renacer.toml"
		run check --baseline ../base
		expect_rc 1
		grep -q "FAIL app/baseline:" "$tmp/con" || fail "no failing baseline timing row"
		note="interpreter frames only: node names its JavaScript functions with --perf-basic-prof"
		tr '\n' ' ' <"$tmp/con" | tr -s ' ' | grep -q "$note" ||
			fail "no note on naming the JavaScript functions"
		grep -q "$note" "$tmp/head/.renacer/explain/app.explain.txt" ||
			fail ".explain.txt lacks the note"
		! grep -q " \[jit\]" "$tmp/con" || fail "a function named without a perf map"
		echo "PASS: $case_name"
		exit 0
	fi
	# through sh, which records the pid that node then takes over (exec), for the cleanup
	sed -i "s|^command = .*|command = [\"sh\", \"-c\", \"echo \$\$ >>perfmap.pids; exec node --perf-basic-prof hot.js\"]|" \
		"$tmp/head/renacer.toml"
	run check --baseline ../base
	expect_rc 1
	grep -q "FAIL app/baseline:" "$tmp/con" || fail "no failing baseline timing row"
	tr '\n' ' ' <"$tmp/con" | tr -s ' ' |
		grep -q "JavaScript functions named from node's perf map" ||
		fail "no note that the functions are named from node's perf map"
	# (node's threads wait in futex meanwhile: a wall-time row's list may rank that first)
	item=$(awk '/where the time went/ { f = 1; next } f && /^ *[0-9]+\. \+.* on CPU in / { print; exit }' \
		"$tmp/con")
	case $item in
	# named relative to each tree, so the head's and the base's hotLoop are one item
	*" on CPU in hotLoop (hot.js:"*") [jit]"*) ;;
	*) fail "the first CPU item does not name hotLoop (hot.js:...) [jit]: '$item'" ;;
	esac
	;;
stripped)
	# A stripped program (a distribution's binary): its own time is one item named by its
	# module, which says how to get the function's name.
	tree base 10 0
	tree head 10 1500
	strip "$tmp/base/build/app" "$tmp/head/build/app" || fail "cannot strip the target"
	config ""
	run check --baseline ../base
	expect_rc 1
	item=$(first_item "$tmp/con")
	case $item in
	*"on CPU in app+? (stripped: a -dbgsym package or -g names it)"*) ;;
	*) fail "the first item does not name the stripped module with the hint: '$item'" ;;
	esac
	;;
openat)
	tree base 10 0
	tree head 4010 0
	config ""
	run check --baseline ../base --junit junit.xml
	expect_rc 1
	want="1. +4,000 openat from load_cfg (app.c:$open_line)"
	item=$(first_item "$tmp/con")
	case $item in
	*"$want"*) ;;
	*) fail "console: the first item is '$item', expected '$want'" ;;
	esac
	sed 's/&#10;/\n/g' "$tmp/head/junit.xml" >"$tmp/junit.txt"
	item=$(first_item "$tmp/junit.txt")
	case $item in
	*"$want"*) ;;
	*) fail "JUnit: the first item is '$item', expected '$want'" ;;
	esac
	# exact counts by stack: 4010 calls from load_cfg in the head, 10 in the base
	grep -q ";load_cfg (app.c:$open_line);openat 4010\$" \
		"$tmp/head/.renacer/explain/app.head.calls.folded" || fail "head calls by stack"
	grep -q ";load_cfg (app.c:$open_line);openat 10\$" \
		"$tmp/head/.renacer/explain/app.base.calls.folded" || fail "base calls by stack"
	;;
child)
	# the planted work runs in a child: its time on the critical path is an item, and the
	# parent's wait4 (the child's time again) is not
	tree base 10 0 -DCHILD
	tree head 10 1500 -DCHILD
	config ""
	run check --baseline ../base
	expect_rc 1
	awk '/where the time went/ { f = 1; next } f && /^ *[0-9]+\. / { print } f && /flame graph/ { exit }' \
		"$tmp/con" >"$tmp/items"
	grep -q "child app +[0-9.]* m\?s on the critical path" "$tmp/items" ||
		fail "no critical path item for the child"
	grep -q "on CPU in hot_parse (app.c:" "$tmp/items" || fail "no item for the child's hot_parse"
	# the wait's syscall time is the child's time again: never an item. A CPU sample that
	# lands in libc's wait4 (the parent between runs of the loop, 1 ms at 999 Hz) is not that.
	! grep -Eq "(wait4|waitid)( \(same calls\))? from .*in the calls" \
		"$tmp/head/.renacer/explain/app.explain.txt" || fail "a wait for the child is ranked"
	;;
one_run)
	# the head's hot_parse grew in every profiled run, rare_spike in one of the three: the
	# real regression ranks first, the one-run spike is listed as not ranked, never numbered
	tree base 10 0
	tree head 10 1500 -DSPIKE=400
	config ""
	echo "runs = 3" >>"$tmp/head/renacer.toml" # (the last table is [profile])
	run check --baseline ../base
	expect_rc 1
	grep -q "FAIL app/baseline:" "$tmp/con" || fail "no failing baseline timing row"
	grep -q "3 profiled runs a side" "$tmp/con" || fail "the header does not say 3 runs a side"
	check_hot_item "$tmp/con" console
	txt="$tmp/head/.renacer/explain/app.explain.txt"
	! grep -q "^[0-9]*\. .*rare_spike" "$txt" || fail "the one-run spike is ranked: $(cat "$txt")"
	! grep -q "^ *[0-9]*\. .*rare_spike" "$tmp/con" || fail "the console ranks the one-run spike"
	grep -q "^not ranked: seen in 1 of 3 runs: +[0-9.]* m\?s on CPU in rare_spike (app\.c:" \
		"$txt" || fail "the spike is not listed as seen in 1 of 3 runs: $(cat "$txt")"
	grep -q "not ranked: seen in 1 of 3 runs: .*rare_spike" "$tmp/con" ||
		fail "the console does not list the spike as not ranked"
	grep -o '^[0-9]*\. ' "$txt" | tr -d '. ' | awk '$1 != NR { exit 1 }' ||
		fail "app.explain.txt is not numbered 1, 2, 3, ..."
	;;
off)
	tree base 10 0
	tree head 4010 0
	config "profile = false"
	run check --baseline ../base
	expect_rc 1
	grep -q "FAIL app/baseline:" "$tmp/con" || fail "no failing baseline timing row"
	! grep -q "where the time went" "$tmp/con" || fail "explained although profile = false"
	[ ! -e "$tmp/head/.renacer/explain" ] || fail "profiles written although profile = false"
	;;
golden)
	# the golden side is the base build, recorded with its profile; then the head is checked
	tree head 10 0
	config ""
	run golden update
	expect_rc 0
	[ -s "$tmp/head/golden_traces/app.folded" ] || fail "golden update wrote no app.folded"
	[ -s "$tmp/head/golden_traces/app.calls.folded" ] || fail "no app.calls.folded"
	(cd "$tmp/head" && "$cc" -O1 -g -fno-omit-frame-pointer -DOPENS=10 -DROUNDS=1500 \
		-o build/app app.c) || fail "cannot compile the head"
	run check
	expect_rc 1
	grep -q "FAIL app/golden:" "$tmp/con" || fail "no failing golden timing row"
	grep -q "head against the golden profile" "$tmp/con" || fail "not explained by the golden"
	check_hot_item "$tmp/con" console
	;;
scanf)
	# reads made deep in stdio (tests/targets/ex_scanf.c: fscanf on an unbuffered stream, one
	# read(2) a byte, through __vfscanf_internal, which keeps a frame pointer): the read
	# item names read_in with its file:line, the call-frame walk having followed rbp
	scan_line=$(grep -n 'SCAN_LINE' "$targets_src/ex_scanf.c" | cut -d: -f1)
	golden_then_check "$build/targets/ex_scanf" 10 20000
	grep -q "read from read_in (.*ex_scanf.c:$scan_line)" \
		"$tmp/head/.renacer/explain/app.explain.txt" ||
		fail "no read item named read_in (ex_scanf.c:$scan_line)"
	! grep -q "read from no frame of the program's own" \
		"$tmp/head/.renacer/explain/app.explain.txt" ||
		fail "a read item without the program's frame"
	;;
stdio)
	# the extra writes come from write_out() through fprintf/fwrite (tests/targets/ex_stdio.c):
	# the first item names write_out with its file:line, not the C runtime's frame that made
	# the call (_IO_new_file_write); the .explain.txt list is numbered without gaps
	write_line=$(grep -n 'WRITE_LINE' "$targets_src/ex_stdio.c" | cut -d: -f1)
	golden_then_check "$build/targets/ex_stdio" 10 30000
	[ -s "$tmp/head/golden_traces/app.folded" ] || fail "golden update wrote no app.folded"
	# (the file as DWARF names it: relative to where it was compiled)
	want="write from write_out ("
	item=$(first_item "$tmp/con")
	case $item in
	*"1. +"[0-9]*"$want"*"ex_stdio.c:$write_line)"*) ;;
	*) fail "the first item is '$item', expected '+N $want...ex_stdio.c:$write_line)'" ;;
	esac
	txt="$tmp/head/.renacer/explain/app.explain.txt"
	[ -s "$txt" ] || fail "no app.explain.txt"
	case $(sed -n 1p "$txt") in
	"1. +"*"$want"*"ex_stdio.c:$write_line)"*) ;;
	*) fail "app.explain.txt's first item is '$(sed -n 1p "$txt")'" ;;
	esac
	# its items are numbered 1, 2, 3, ... (items below 0.5% of the growth are not listed)
	grep -o '^[0-9]*\. ' "$txt" | tr -d '. ' | awk '$1 != NR { exit 1 }' ||
		fail "app.explain.txt is not numbered 1, 2, 3, ...: $(grep -o '^[0-9]*\. ' "$txt" | tr '\n' ' ')"
	;;
python)
	# a python3 target whose regression is in Python code: the items name the interpreter's
	# frames, and the explanation says why (Python < 3.12 has no perf trampoline; 3.12+
	# writes its perf map only with PYTHONPERFSUPPORT=1, which this target's env does not
	# set). The interpreter by its real path (not a pyenv shim's script).
	py=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
	[ -x "$py" ] || {
		echo "SKIP: no python3" >&2
		exit 77
	}
	minor=$("$py" -c 'import sys; print(sys.version_info[1])')
	# the base's spin.py makes 1000 rounds, the head's 1500000 (the command is the same)
	for side in base:1000 head:1500000; do
		mkdir -p "$tmp/${side%:*}"
		cat >"$tmp/${side%:*}/spin.py" <<PY
def hash_rounds(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


hash_rounds(${side#*:})
PY
	done
	config ""
	sed -i "s|^command = .*|command = [\"$py\", \"spin.py\"]|" "$tmp/head/renacer.toml"
	run check --baseline ../base
	expect_rc 1
	grep -q "FAIL app/baseline:" "$tmp/con" || fail "no failing baseline timing row"
	if [ "$minor" -lt 12 ]; then
		want="interpreter frames only: Python < 3.12 cannot name its functions (this is Python 3.$minor)"
	else
		want="interpreter frames only: Python 3.$minor names its functions with PYTHONPERFSUPPORT=1 in the target's env"
	fi
	grep -qF "$want" "$tmp/con" || fail "the console does not say '$want'"
	grep -qF "$want" "$tmp/head/.renacer/explain/app.explain.txt" ||
		fail "app.explain.txt does not say '$want'"
	;;
golden_warn | golden_warn_same)
	# a golden recorded under another kernel (its environment fingerprint edited): timing
	# rows are INCONCLUSIVE (WARN), never FAIL. A head that slowed down (estimate beyond the
	# limit) is explained all the same, labelled as a row that did not fail; an unchanged head
	# (estimate within the limit) is not profiled at all.
	tree head 10 0
	config ""
	run golden update
	expect_rc 0
	[ -s "$tmp/head/golden_traces/app.folded" ] || fail "golden update wrote no app.folded"
	python3 - "$tmp/head/golden_traces/app.json" <<'PY' || fail "cannot edit the golden trace"
import json, sys
g = json.load(open(sys.argv[1]))
g["conditions"]["fingerprint"]["kernel"] = "0.0.1-other"
json.dump(g, open(sys.argv[1], "w"), indent=2, sort_keys=True)
PY
	if [ "$case_name" = golden_warn ]; then
		(cd "$tmp/head" && "$cc" -O1 -g -fno-omit-frame-pointer -DOPENS=10 -DROUNDS=1500 \
			-o build/app app.c) || fail "cannot compile the head"
	fi
	run check
	expect_rc 0
	grep -q "WARN app/golden:" "$tmp/con" || fail "no WARN golden timing row"
	! grep -q "FAIL app/golden:" "$tmp/con" || fail "a golden row failed"
	if [ "$case_name" = golden_warn_same ]; then
		! grep -q "why it may be slower\|where the time went\|profiling .* to explain" \
			"$tmp/con" || fail "an unchanged WARN row was explained"
		[ ! -e "$tmp/head/.renacer/explain/app.head.folded" ] || fail "profiled an unchanged head"
	else
		grep -q "why it may be slower (the row did not fail) (head against the golden profile" \
			"$tmp/con" || fail "the WARN row is not explained as one that did not fail"
		! grep -q "where the time went" "$tmp/con" || fail "labelled as a failed row"
		check_hot_item "$tmp/con" console
	fi
	;;
golden_missing)
	# without [profile], golden update records no profile: the row says so, nothing is faked
	tree head 10 0
	config ""
	sed -i '/^\[profile\]/,$d' "$tmp/head/renacer.toml"
	run golden update
	expect_rc 0
	[ ! -e "$tmp/head/golden_traces/app.folded" ] || fail "a golden profile without [profile]"
	(cd "$tmp/head" && "$cc" -O1 -g -DOPENS=10 -DROUNDS=1500 -o build/app app.c) ||
		fail "cannot compile the head"
	run check
	expect_rc 1
	n=$(grep -c "no golden profile to explain it with: golden_traces/app.folded does not exist" \
		"$tmp/con")
	[ "$n" = 1 ] || fail "expected the missing golden profile said once, found $n"
	! grep -q "where the time went" "$tmp/con" || fail "a diff without a golden profile"
	;;
idle)
	# a wall-time row of a program whose main thread computes 3x longer while four idle
	# threads wait (idle_app.c): their waits grew by about four times the run's growth, so
	# they rank after the main thread's CPU, marked as threads waiting at once; the first
	# item is compute with its file:line
	isrc=$(dirname "$src")/idle_app.c
	for side in base:40 head:120; do
		d="$tmp/${side%:*}"
		mkdir -p "$d/build"
		cp "$isrc" "$d/idle_app.c"
		(cd "$d" && "$cc" -O1 -g -fno-omit-frame-pointer -pthread -DWORK="${side#*:}" \
			-o build/idle_app idle_app.c) || fail "cannot compile the idle program"
	done
	read -r comp_first comp_last <<L
$(fn_lines "$isrc" 'static uint64_t compute')
L
	head_config idle '["./build/idle_app", "4"]'
	run check --baseline ../base
	expect_rc 1
	grep -q "baseline:wall_time failed: profiling" "$tmp/con" ||
		fail "the wall_time row is not the one explained"
	item=$(first_item "$tmp/con")
	n=$(echo "$item" | sed -n 's/.* on CPU in compute (idle_app\.c:\([0-9]*\)).*/\1/p')
	[ -n "$n" ] || fail "the first item is not compute (idle_app.c:LINE): '$item'"
	[ "$n" -gt "$comp_first" ] && [ "$n" -lt "$comp_last" ] ||
		fail "line $n is not in compute ($comp_first-$comp_last)"
	tr '\n' ' ' <"$tmp/con" | tr -s ' ' |
		grep -q "futex from idler (idle_app.c:[0-9]*), +[0-9.]* [mu]*s waiting in the calls (threads at once: more than the run grew)" ||
		fail "the idle threads' waits are not marked as threads waiting at once"
	;;
cxx)
	# a C++ program: its frames are named as C++ names them, qualified and demangled
	# (app::Parser::parse, from the DWARF linkage name; DW_AT_name alone says "parse"), with
	# the file:line, and nothing of the item is a mangled symbol (_ZN...)
	command -v c++ >/dev/null 2>&1 || {
		echo "SKIP: no C++ compiler" >&2
		exit 77
	}
	xsrc=$(dirname "$src")/cxx_app.cc
	mkdir -p "$tmp/head/build"
	cp "$xsrc" "$tmp/head/cxx_app.cc"
	(cd "$tmp/head" && c++ -O1 -g -fno-omit-frame-pointer -o build/cxx_app cxx_app.cc) ||
		fail "cannot compile the C++ target"
	head_config cxx '["./build/cxx_app", "20"]'
	run golden update
	expect_rc 0
	sed -i 's|"20"|"200"|' "$tmp/head/renacer.toml"
	run check
	expect_rc 1
	item=$(first_item "$tmp/con")
	case $item in
	*" on CPU in app::Parser::parse (cxx_app.cc:"*) ;;
	*) fail "the first item is not app::Parser::parse (cxx_app.cc:LINE): '$item'" ;;
	esac
	! grep -q "_ZN" "$tmp/con" || fail "a mangled name in the explanation"
	grep -q ";app::Parser::parse (cxx_app.cc:[0-9]*) [0-9]*$" \
		"$tmp/head/.renacer/explain/cxx.head.folded" ||
		fail "the profile's stacks do not name app::Parser::parse"
	! grep -q "_Z" "$tmp/head/.renacer/explain/cxx.head.folded" ||
		fail "a mangled name in the head's profile"
	;;
cpu_wait)
	# a pipeline inside a sleep (pipe_app.c): the head's reader digests each block with 4x
	# the CPU work and its writers write 25% more blocks, so golden:cpu_time fails while the
	# wall time stays the sleep's. The writers' blocked write() calls grew by more time than
	# the reader's CPU (their wait follows it, three writers over), but a cpu_time row is
	# explained by time on CPU: the first item is the reader's digest with its file:line,
	# and the writes count their threads' CPU time in the calls, not their wait
	psrc=$(dirname "$src")/pipe_app.c
	mkdir -p "$tmp/head/build"
	cp "$psrc" "$tmp/head/pipe_app.c"
	(cd "$tmp/head" && "$cc" -O1 -g -fno-omit-frame-pointer -o build/pipe_app pipe_app.c) ||
		fail "cannot compile the pipeline"
	read -r dig_first dig_last <<L
$(fn_lines "$psrc" 'static uint64_t digest')
L
	# pipe_config CHUNKS WORK: 10 timing runs decide a 4x CPU change in one look
	pipe_config() {
		head_config pipe "[\"./build/pipe_app\", \"3\", \"$1\", \"$2\", \"1000\"]"
	}
	pipe_config 64 10
	run golden update
	expect_rc 0
	[ -s "$tmp/head/golden_traces/pipe.oncpu.folded" ] || fail "no golden on-CPU profile"
	pipe_config 80 40
	run check
	expect_rc 1
	grep -q "FAIL pipe/golden:cpu_time" "$tmp/con" || fail "golden:cpu_time did not fail"
	grep -q "golden:cpu_time failed: profiling" "$tmp/con" ||
		fail "the cpu_time row is not the one explained"
	grep -q "a syscall's time: the thread's CPU time in the call" "$tmp/con" ||
		fail "the explanation does not say its syscall time is CPU time"
	item=$(first_item "$tmp/con")
	n=$(echo "$item" | sed -n 's/.* on CPU in digest (pipe_app\.c:\([0-9]*\)).*/\1/p')
	[ -n "$n" ] || fail "the first item is not digest (pipe_app.c:LINE): '$item'"
	[ "$n" -gt "$dig_first" ] && [ "$n" -lt "$dig_last" ] ||
		fail "line $n is not in digest ($dig_first-$dig_last)"
	# the writes' CPU time is a small part of their time at ptrace stops (they waited)
	dir="$tmp/head/.renacer/explain"
	wall=$(awk '/;writer \(pipe_app\.c:[0-9]*\);write / { s += $NF } END { print s + 0 }' \
		"$dir/pipe.head.folded")
	cpu=$(awk '/;writer \(pipe_app\.c:[0-9]*\);write / { s += $NF } END { print s + 0 }' \
		"$dir/pipe.head.oncpu.folded")
	[ "$wall" -gt 0 ] && [ "$cpu" -gt 0 ] || fail "no write stack: wall $wall, on CPU $cpu"
	[ $((cpu * 2)) -lt "$wall" ] || fail "the blocked writes' CPU $cpu ns is not under half \
their time $wall ns"
	;;
*)
	fail "unknown case"
	;;
esac
echo "PASS: $case_name"
