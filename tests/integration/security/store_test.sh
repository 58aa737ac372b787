#!/bin/sh
# The history store against hostile names, permissions, paths, credentials and servers
# (docs/history.md, runner/history/history.h):
#
#   - branch, commit and machine names are stored as UTF-8 cut between characters: a long
#     non-ASCII name or one with invalid bytes keeps its run (SQLite and PostgreSQL);
#   - readers open the store read-only: a store in a read-only directory can be listed;
#   - a symlink loop as the store is an error naming it, not "no history store yet";
#   - credentials of a PostgreSQL location are masked in every form libpq accepts;
#   - a PostgreSQL store that holds a lock or never answers costs a check a bounded time:
#     the verdict is printed first, the failure is one warning naming the store;
#   - `history import` applies check's target name rule; list/show print stored strings
#     escaped; `report --last` has a limit.
#
#     store_test.sh CASE BUILD_DIR SOURCE_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped (PostgreSQL or a way to drop root is missing).
set -u
case_name=$1
build=$2
renacer="$build/renacer"
tmp=$(mktemp -d /tmp/renacer-store.XXXXXX)
chmod 755 "$tmp"
# A store that does not answer must not hang the test: each renacer run is limited.
run_limit=${RN_STORE_RUN_LIMIT:-60}
pgdir=
bg_pid=

cleanup() {
	[ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null
	if [ -n "$pgdir" ] && [ -f "$pgdir/data/postmaster.pid" ]; then
		as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1
	fi
	chmod -R u+w "$tmp" 2>/dev/null
	rm -rf "$tmp"
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

# Run renacer in $tmp/work with output captured, under a time limit; sets $rc.
run() {
	(cd "$tmp/work" && timeout -s KILL "$run_limit" "$renacer" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 137 ] && fail "renacer $* did not finish within $run_limit s"
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# PostgreSQL refuses to run as root: the cluster belongs to 'nobody' when we are root.
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}

pg_user() {
	if [ "$(id -u)" = 0 ]; then echo nobody; else id -un; fi
}

start_postgres() {
	pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] || skip "PostgreSQL server programs not found"
	pgdir=$tmp/pg
	mkdir -p "$pgdir"
	[ "$(id -u)" = 0 ] && chown nobody "$pgdir"
	as_pg "$pgbin/initdb" -D "$pgdir/data" -A trust -U "$(pg_user)" >"$tmp/initdb.log" 2>&1 ||
		{ cat "$tmp/initdb.log" >&2; fail "initdb failed"; }
	as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
		-o "-k $pgdir -c listen_addresses=" start >/dev/null ||
		{ cat "$pgdir/log" >&2; fail "postgres did not start"; }
	pg_url="postgresql:///postgres?host=$pgdir&user=$(pg_user)"
}

psql_do() {
	as_pg "$pgbin/psql" -X -q -A -t -h "$pgdir" -U "$(pg_user)" -d postgres -c "$1"
}

# work/renacer.toml: one passing target, history on, extra [history] lines.
config() {
	mkdir -p "$tmp/work"
	cat >"$tmp/work/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["/bin/true"]
runs = 1
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100000
[history]
${1:-}
EOT
}

# The console verdict line comes before the history warning, and there is one warning that
# names the store ($1: a text the warning must hold).
expect_verdict_then_warning() {
	expect_rc 0
	v=$(grep -n '^result: ' "$tmp/err" | head -1 | cut -d: -f1)
	w=$(grep -n 'history: not recorded in' "$tmp/err" | head -1 | cut -d: -f1)
	[ -n "$v" ] || fail "no verdict line"
	[ -n "$w" ] || fail "no history warning"
	[ "$v" -lt "$w" ] || fail "the history warning came before the verdict"
	[ "$(grep -c 'history: not recorded' "$tmp/err")" = 1 ] || fail "not one warning"
	expect_err "$1"
}

long_branch=$(printf 'é%.0s' $(seq 1 200))

case $case_name in
utf8_names_sqlite | utf8_names_postgres)
	# 200 two-byte characters (400 bytes, cut at 255 used to split one) and invalid bytes.
	config
	if [ "$case_name" = utf8_names_postgres ]; then
		start_postgres
		export RENACER_HISTORY_URL="$pg_url"
	fi
	RENACER_BRANCH="$long_branch" RENACER_COMMIT="$(printf 'feat\377x')" \
		RENACER_MACHINE="$(printf 'm\300\257')" run check --no-color
	expect_rc 0
	grep -q "not recorded" "$tmp/err" && fail "the run was not recorded"
	expect_err "history: recorded run 1"
	run history list
	expect_rc 0
	grep -q "feat�x" "$tmp/out" || fail "the invalid byte was not repaired: $(cat "$tmp/out")"
	run report --html "$tmp/page.html"
	expect_rc 0
	grep -q "has no recorded run" "$tmp/err" && fail "the report lost the run"
	[ -s "$tmp/page.html" ] || fail "no page"
	run history export --format json
	python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
b = rows[0]["branch"]
assert b == "é" * (len(b) // 1) and len(b.encode()) <= 255 and len(b.encode()) >= 254, b
' "$tmp/out" || fail "the branch was not cut between characters at 255 bytes"
	# A store written before names were repaired: readers repair what they show.
	if [ "$case_name" = utf8_names_sqlite ] && command -v sqlite3 >/dev/null 2>&1; then
		sqlite3 "$tmp/work/.renacer/history.db" \
			"UPDATE runs SET branch = CAST(X'66FF' AS TEXT), commit_sha = CAST(X'C3' AS TEXT)"
		run history export --format json
		expect_rc 0
		grep -q '"branch": "f�"' "$tmp/out" || fail "export dropped an invalid branch"
		for sub in "list" "show t wall_time"; do
			# shellcheck disable=SC2086
			run history $sub
			expect_rc 0
			python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' \
				"$tmp/out" || fail "history $sub printed invalid UTF-8"
		done
		run report --html "$tmp/page.html"
		expect_rc 0
	fi
	;;
readonly_store)
	# 444 store in a 555 directory: history list and report read it.
	command -v setpriv >/dev/null 2>&1 || skip "setpriv not found"
	config
	run check --no-color
	expect_rc 0
	chmod 444 "$tmp/work/.renacer/history.db"
	chmod 555 "$tmp/work/.renacer" "$tmp/work"
	as=""
	[ "$(id -u)" = 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# shellcheck disable=SC2086
	(cd "$tmp/work" && $as "$renacer" history list) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	grep -q "readonly database" "$tmp/err" && fail "opened read-write"
	grep -q "check" "$tmp/out" || fail "the run is not listed"
	mkdir -p "$tmp/page"
	chmod 777 "$tmp/page"
	# shellcheck disable=SC2086
	(cd "$tmp/work" && $as "$renacer" report --html "$tmp/page/p.html") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	;;
symlink_loop)
	config
	ln -s loop "$tmp/work/loop"
	run history list --db "$tmp/work/loop"
	expect_rc 6
	expect_err "Too many levels of symbolic links"
	grep -q "no history store yet" "$tmp/err" && fail "a loop read as no store"
	run report --html "$tmp/page.html" --db "$tmp/work/loop"
	expect_rc 6
	expect_err "Too many levels of symbolic links"
	;;
special_files)
	# A FIFO as the store blocked a reader's open forever; a device is no store either.
	config
	mkfifo "$tmp/work/fifo.db"
	run history list --db "$tmp/work/fifo.db"
	expect_rc 6
	expect_err "not a regular file"
	run report --html "$tmp/page.html" --db /dev/zero
	expect_rc 6
	expect_err "not a regular file"
	config "url = \"$tmp/work/fifo.db\""
	run check --no-color
	expect_rc 0
	expect_err "history: not recorded in '$tmp/work/fifo.db': cannot open '$tmp/work/fifo.db': not a regular file"
	;;
pg_credentials)
	# Every form libpq takes a password in; nothing listens on port 1.
	config "busy_timeout_ms = 2000"
	for url in "postgresql://u:Hunter2Secret@127.0.0.1:1/db" \
		"postgresql://u:Hunter2@Secret@127.0.0.1:1/db" \
		"postgresql://u@127.0.0.1:1/db?password=Hunter2Secret" \
		"postgresql://u@127.0.0.1:1/db?sslmode=disable&sslpassword=Hunter2Secret" \
		"postgresql://u@127.0.0.1:1/db?%70assword=Hunter2Secret" \
		"host=127.0.0.1 port=1 password='Hunter2 Secret' dbname=x"; do
		RENACER_HISTORY_URL="$url" run check --no-color
		expect_rc 0
		grep -q "Hunter2\|Secret" "$tmp/err" && fail "check printed a secret of '$url'"
		expect_err "history: not recorded in"
		run history list --db "$url"
		grep -q "Hunter2\|Secret" "$tmp/err" && fail "history printed a secret of '$url'"
		run report --html "$tmp/page.html" --db "$url"
		grep -q "Hunter2\|Secret" "$tmp/err" && fail "report printed a secret of '$url'"
		expect_err "\*\*\*"
	done
	;;
pg_lock_held)
	# Another session holds an exclusive lock on runs: the check ends, verdict first.
	start_postgres
	config "busy_timeout_ms = 1000"
	RENACER_HISTORY_URL="$pg_url" run check --no-color
	expect_rc 0
	expect_err "history: recorded run 1"
	as_pg "$pgbin/psql" -X -q -h "$pgdir" -U "$(pg_user)" -d postgres \
		-c "BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(300);" \
		>/dev/null 2>&1 &
	bg_pid=$!
	i=0
	until [ "$(psql_do "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND granted AND relation = 'runs'::regclass")" = 1 ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the lock was not taken"
		sleep 0.1
	done
	RENACER_HISTORY_URL="$pg_url" run check --no-color
	expect_verdict_then_warning "canceling statement due to"
	expect_err "postgresql:///postgres"
	;;
pg_silent_server)
	# A server that completes the handshake and then never answers.
	command -v python3 >/dev/null 2>&1 || skip "python3 not found"
	python3 - "$tmp/port" <<'EOF' &
import socket, struct, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
conns = []
while True:
    c, _ = s.accept()
    conns.append(c)
    while True:
        n, code = struct.unpack("!ii", c.recv(8, socket.MSG_WAITALL))
        if code in (80877103, 80877104):  # SSL or GSS encryption request: no
            c.sendall(b"N")
            continue
        c.recv(n - 8, socket.MSG_WAITALL)
        break
    # AuthenticationOk, BackendKeyData, ReadyForQuery (idle); then silence
    c.sendall(b"R" + struct.pack("!ii", 8, 0) + b"K" + struct.pack("!iii", 12, 1, 2) +
              b"Z" + struct.pack("!i", 5) + b"I")
EOF
	bg_pid=$!
	i=0
	while [ ! -s "$tmp/port" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the silent server did not start"
		sleep 0.1
	done
	config "busy_timeout_ms = 1000"
	RENACER_HISTORY_URL="postgresql://u@127.0.0.1:$(cat "$tmp/port")/db?sslmode=disable" \
		run check --no-color
	expect_verdict_then_warning "no answer from the server within"
	;;
import_names)
	# A golden trace naming its target "x\n::error::FORGED": refused; stored names with
	# control characters are printed escaped.
	config
	run golden update
	expect_rc 0
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["target"] = "x\n::error::FORGED"
json.dump(d, open(sys.argv[2], "w"))
' "$tmp/work/golden_traces/t.json" "$tmp/forged.json" || fail "cannot forge"
	run history import "$tmp/forged.json"
	expect_rc 2
	expect_err "must match \[A-Za-z0-9_.-\]+"
	grep -q '^::error::FORGED' "$tmp/out" "$tmp/err" && fail "a workflow command was printed"
	RENACER_BRANCH="$(printf 'b\n::error::FORGED2')" RENACER_COMMIT="$(printf 'c\n::warning::X')" \
		RENACER_MACHINE="$(printf 'm\n::error::FORGED3\033[2J')" run check --no-color
	expect_rc 0
	for sub in "list" "show t wall_time" "changes"; do
		# shellcheck disable=SC2086
		run history $sub
		expect_rc 0
		grep -q '^::' "$tmp/out" "$tmp/err" && fail "history $sub printed a workflow command"
		grep -q "$(printf '\033')" "$tmp/out" "$tmp/err" && fail "history $sub printed ESC"
	done
	run history list
	grep -q 'b\\n::error' "$tmp/out" || fail "the branch is not shown escaped: $(cat "$tmp/out")"
	;;
report_last_cap)
	config
	run check --no-color
	run report --html "$tmp/page.html" --last 100000
	expect_rc 2
	expect_err "at most 5000 runs per chart"
	run report --html "$tmp/page.html" --last 5000
	expect_rc 0
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
