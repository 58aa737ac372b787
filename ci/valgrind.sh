#!/bin/sh
# Run renacer's main scenarios under valgrind memcheck: `renacer validate` and `renacer check`
# on the example config (against the committed golden traces, with every output file),
# `renacer golden update` and a check against what it wrote, a check whose target cannot run,
# and `renacer trace -c` on a small program. A scenario fails when memcheck reports an error
# or a definite leak, or when renacer's exit code is not the expected one. Prints each
# scenario's memcheck summary and a final verdict.
#
#     ci/valgrind.sh            (BUILD=build-valgrind: a plain build, no sanitizers)
#
# Targets run natively (memcheck does not follow exec) in the environment the script was
# started with, so what they do is what they do without valgrind; renacer itself is slowed
# down, which can only make a golden timing look worse: a check accepts exit 0 or 1, and the
# memcheck verdict is what this script judges.
#
# Memcheck does not model every ptrace request: valgrind 3.19 does not know that
# PTRACE_GET_SYSCALL_INFO fills its buffer, so every use of the syscall information would
# read as uninitialised. A small LD_PRELOAD shim, built here, tells memcheck what the kernel
# wrote (VALGRIND_MAKE_MEM_DEFINED on the bytes ptrace returns) and removes itself from the
# environment the targets inherit. With it, any memcheck report is renacer's.
set -u
cd "$(dirname "$0")/.."
src=$(pwd)
BUILD=${BUILD:-build-valgrind}

command -v valgrind >/dev/null 2>&1 || { echo "valgrind.sh: valgrind not found" >&2; exit 2; }
# (valgrind runs no general clone(): the target is spawned with fork here, RN_SPAWN_FORK)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRN_BUILD_TESTS=ON -DRN_SANITIZE= \
	-DCMAKE_C_FLAGS=-DRN_SPAWN_FORK=1 >"$BUILD.cmake.log" 2>&1 || { tail -20 "$BUILD.cmake.log" >&2; exit 2; }
cmake --build "$BUILD" -j"$(nproc)" >"$BUILD.build.log" 2>&1 ||
	{ grep -E "error" "$BUILD.build.log" | head -20 >&2; exit 2; }
rm -f "$BUILD.cmake.log" "$BUILD.build.log"
build=$(cd "$BUILD" && pwd)
renacer="$build/renacer"
targets="$build/targets"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/ptrace_shim.c" <<'EOT'
/* Tell memcheck which bytes PTRACE_GET_SYSCALL_INFO wrote (it does not model the request). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <valgrind/memcheck.h>

#ifndef PTRACE_GET_SYSCALL_INFO
#define PTRACE_GET_SYSCALL_INFO 0x420e
#endif

long ptrace(enum __ptrace_request request, ...)
{
	static long (*real)(enum __ptrace_request, ...);
	va_list ap;
	pid_t pid;
	void *addr, *data;
	long r;

	va_start(ap, request);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (long (*)(enum __ptrace_request, ...))dlsym(RTLD_NEXT, "ptrace");
	r = real(request, pid, addr, data);
	if ((int)request == PTRACE_GET_SYSCALL_INFO && r > 0)
		VALGRIND_MAKE_MEM_DEFINED(data, (size_t)r < (size_t)addr ? (size_t)r : (size_t)addr);
	return r;
}

/* Restore variable `name` to what the script saw (RN_VG_SET_<name> says whether it was set,
 * RN_VG_VAL_<name> its value). */
static void restore(const char *name)
{
	char set[64], val[64];
	const char *was_set, *value;

	snprintf(set, sizeof(set), "RN_VG_SET_%s", name);
	snprintf(val, sizeof(val), "RN_VG_VAL_%s", name);
	was_set = getenv(set);
	value = getenv(val);
	if (was_set && !strcmp(was_set, "1") && value)
		setenv(name, value, 1);
	else if (was_set)
		unsetenv(name);
	unsetenv(set);
	unsetenv(val);
}

/* The targets renacer starts run natively and must see the environment of a run without
 * valgrind: not this shim, nor what a distribution's valgrind wrapper adds (Debian's sets
 * LD_LIBRARY_PATH=/usr/lib/debug, which changes the targets' library lookups and so their
 * syscall counts). The launchers before valgrind (timeout, the wrapper) must pass it all on. */
__attribute__((constructor)) static void forget_preload(void)
{
	if (!RUNNING_ON_VALGRIND)
		return;
	restore("LD_PRELOAD");
	restore("LD_LIBRARY_PATH");
	restore("GLIBCPP_FORCE_NEW");
}
EOT
${CC:-cc} -shared -fPIC -O1 -o "$tmp/ptrace_shim.so" "$tmp/ptrace_shim.c" -ldl ||
	{ echo "valgrind.sh: cannot build the ptrace shim (is valgrind/memcheck.h installed?)" >&2; exit 2; }
# What the targets' environment must be restored to (see the shim).
for var in LD_PRELOAD LD_LIBRARY_PATH GLIBCPP_FORCE_NEW; do
	if eval "[ -n \"\${$var+x}\" ]"; then
		eval "export RN_VG_SET_$var=1 RN_VG_VAL_$var=\"\$$var\""
	else
		export "RN_VG_SET_$var=0"
	fi
done
failed=0
summary=""

# scenario NAME EXPECTED_EXIT_CODES -- renacer ARGS...: run under memcheck, judge, summarize.
scenario() {
	name=$1
	expected=$2
	shift 3
	mkdir -p "$tmp/vg/$name"
	LD_PRELOAD="$tmp/ptrace_shim.so" timeout -s KILL 1800 valgrind --tool=memcheck --error-exitcode=1 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite --track-origins=yes \
		--child-silent-after-fork=yes --track-fds=no --num-callers=30 \
		--log-file="$tmp/vg/$name/memcheck.%p.log" \
		"$renacer" "$@" >"$tmp/vg/$name/stdout" 2>"$tmp/vg/$name/stderr"
	rc=$?
	errors=0
	definite=0
	for log in "$tmp/vg/$name"/memcheck.*.log; do
		[ -f "$log" ] || continue
		e=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -1)
		l=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -1 | tr -d ,)
		errors=$((errors + ${e:-0}))
		definite=$((definite + ${l:-0}))
	done
	verdict=ok
	case " $expected " in
	*" $rc "*) ;;
	*) verdict="FAIL (renacer exit $rc, expected $expected)" ;;
	esac
	if [ "$errors" != 0 ] || [ "$definite" != 0 ]; then
		verdict="FAIL (memcheck)"
	fi
	[ "$rc" = 137 ] && verdict="FAIL (timed out)"
	line=$(printf '%-22s exit %-3s  memcheck errors %-5s  definitely lost %-9s  %s' \
		"$name" "$rc" "$errors" "$definite B" "$verdict")
	summary="$summary$line
"
	echo "$line"
	if [ "$verdict" != ok ]; then
		failed=1
		for log in "$tmp/vg/$name"/memcheck.*.log; do
			grep -q -E "ERROR SUMMARY: [1-9]|definitely lost: [1-9]" "$log" &&
				sed 's/^==[0-9]*== //' "$log" | awk '/^(Invalid|Conditional|Use of|Syscall param|Mismatched|Source and|Jump to)|definitely lost in loss record/ { p = 1 } p { print "    " $0 } /^$/ { p = 0 }' |
				head -80
		done
		sed 's/^/    renacer: /' "$tmp/vg/$name/stderr" | tail -15
	fi
}

# The example config with its paths pointed at this build and a scratch directory.
sed -e "s|build/targets/|$targets/|g" -e "s|build/renacer-junit.xml|$tmp/junit.xml|" \
	-e "s|dir = \"golden_traces\"|dir = \"$src/golden_traces\"|" \
	renacer.toml.example >"$tmp/example.toml"
cat >"$tmp/work.toml" <<EOT
[[target]]
name = "work"
command = ["$targets/example_work", "5"]
runs = 3
[[assertion]]
name = "fsync"
type = "span_count"
max_spans = 100
span_name_pattern = "f(data)?sync"
[[assertion]]
name = "no_tight_loop"
type = "anti_pattern"
pattern = "TightLoop"
[golden]
dir = "$tmp/golden"
[report]
junit = "$tmp/work-junit.xml"
EOT
cat >"$tmp/missing.toml" <<EOT
[[target]]
name = "missing"
command = ["$tmp/does-not-exist"]
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100
EOT

echo "valgrind.sh: memcheck on renacer ($build)"
scenario validate_example 0 -- validate --config "$tmp/example.toml"
scenario check_example "0 1" -- check --config "$tmp/example.toml" --no-color \
	--trace-out "$tmp/timeline.json" --otlp-file "$tmp/otlp.jsonl" --bench-json "$tmp/bench.json"
scenario golden_update 0 -- golden update --config "$tmp/work.toml"
scenario check_golden "0 1" -- check --config "$tmp/work.toml" --no-color
scenario check_missing_target 4 -- check --config "$tmp/missing.toml" --no-color
scenario trace_c 0 -- trace -c -- "$targets/example_work" 3
scenario trace_c_tree 0 -- trace -c -f -- "$targets/example_tree" 2

echo
echo "== memcheck summary"
printf '%s' "$summary"
if [ "$failed" = 0 ]; then
	echo "valgrind.sh: ok: no memcheck error, no definite leak"
else
	echo "valgrind.sh: FAILED"
fi
exit $failed
