#!/bin/sh
# install_test.sh - the install path a new user takes, without root or network: cpack builds
# the .deb and the tarball from this build, dpkg-deb -x unpacks the .deb into a scratch root
# (what `apt install ./renacer_*.deb` puts under /), and the unpacked renacer runs
# `renacer init -- /bin/ls` then `renacer check` in a fresh project directory. The .deb is
# one a distribution would accept: lintian reports no error; the copyright file and changelog
# are in its doc folder; its binaries are stripped, their debug information in the -dbgsym
# package; no binary has a RUNPATH; the man page is compressed; bash, zsh and fish completion
# are where each shell looks, and bash completes `renacer ch` to check once bash-completion
# has loaded it; installed and removed with dpkg (in a scratch root and database), it leaves
# no state behind (not 'rc', which maintainer scripts or conffiles would cause).
#
#     install_test.sh BUILD_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped (cpack, dpkg-deb or lintian missing).
set -u
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	for f in "$tmp/cpack.log" "$tmp/err"; do
		[ -f "$f" ] && sed 's/^/  | /' "$f" >&2
	done
	exit 1
}

for tool in cpack dpkg-deb dpkg lintian readelf; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "skip: $tool is not installed"
		exit 77
	fi
done
[ -x "$build/renacer" ] || fail "'$build/renacer' is not built"
[ -f "$build/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in '$build'"

# 1. The packages.
(cd "$build" && cpack --config CPackConfig.cmake -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1 ||
	fail "cpack failed"
deb=$(ls "$tmp"/pkg/renacer_*.deb 2>/dev/null | head -n 1)
tgz=$(ls "$tmp"/pkg/renacer-*.tar.gz 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack made no .deb"
[ -n "$tgz" ] || fail "cpack made no tarball"

# 2. The .deb: its control fields and its tree.
[ "$(dpkg-deb -f "$deb" Package)" = renacer ] || fail "the .deb is not package 'renacer'"
depends=$(dpkg-deb -f "$deb" Depends)
case $depends in
*libc6*) ;;
*) fail "the .deb's Depends lacks libc6: '$depends'" ;;
esac
# Everything else is linked in or loaded with dlopen: no -dev package, no jansson/libelf.
case $depends in
*-dev* | *jansson* | *libelf* | *libdw* | *sqlite*) fail "the .deb depends on '$depends'" ;;
esac
root=$tmp/root
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x failed"
for f in usr/bin/renacer usr/share/man/man1/renacer.1.gz usr/share/renacer/regenerate-golden.sh \
	usr/share/renacer/ci/action-run.sh usr/share/renacer/ci/action.yml \
	usr/share/renacer/ci/examples/renacer.yml usr/share/doc/renacer/renacer.toml.example \
	usr/share/doc/renacer/docs/README.md usr/share/doc/renacer/docs/config.md \
	usr/share/doc/renacer/copyright usr/share/doc/renacer/changelog.gz \
	usr/share/bash-completion/completions/renacer usr/share/zsh/vendor-completions/_renacer \
	usr/share/fish/vendor_completions.d/renacer.fish; do
	[ -e "$root/$f" ] || fail "the .deb lacks /$f"
done
[ -x "$root/usr/share/renacer/regenerate-golden.sh" ] || fail "regenerate-golden.sh is not executable"
gzip -dc "$root/usr/share/man/man1/renacer.1.gz" >"$tmp/renacer.1" || fail "renacer.1.gz is not gzip"
grep -q '^\.TH RENACER' "$tmp/renacer.1" || fail "renacer.1 is not a man page"
grep -q 'renacer init' "$tmp/renacer.1" || fail "the man page lacks init"

# 2b. What a distribution checks: lintian, stripped binaries, no RUNPATH, debug symbols.
lintian --tag-display-limit 0 "$deb" >"$tmp/lintian.log" 2>&1
if grep -q '^E: ' "$tmp/lintian.log"; then
	sed 's/^/  | /' "$tmp/lintian.log" >&2
	fail "lintian reports $(grep -c '^E: ' "$tmp/lintian.log") error(s) on $(basename "$deb")"
fi
ls "$tmp"/pkg/renacer-dbgsym_*.ddeb >/dev/null 2>&1 || fail "cpack made no -dbgsym package"
elves=0
for f in $(find "$root" -type f); do
	head -c 4 "$f" | grep -q 'ELF' || continue
	elves=$((elves + 1))
	rel=${f#"$root"}
	readelf -d "$f" | grep -Eq '\((RUNPATH|RPATH)\)' && fail "$rel has a RUNPATH or RPATH"
	readelf -S "$f" | grep -q '\.debug_info' && fail "$rel is not stripped"
done
[ $elves -gt 0 ] || fail "no ELF file found in the .deb"

# 2c. Installed and removed with dpkg in a scratch root: no state left (not 'rc').
admin=$tmp/dpkg
mkdir -p "$admin/info" "$admin/updates" "$admin/triggers" "$tmp/inst"
: >"$admin/status"
dpkg_s() {
	dpkg --admindir="$admin" --instdir="$tmp/inst" --force-not-root --force-depends \
		--force-script-chrootless --log=/dev/null "$@" >"$tmp/err" 2>&1
}
dpkg_s -i "$deb" || fail "dpkg -i failed"
[ "$(dpkg-query --admindir="$admin" -W -f='${db:Status-Abbrev}' renacer)" = "ii " ] ||
	fail "renacer is not installed after dpkg -i"
dpkg_s -r renacer || fail "dpkg -r failed"
state=$(dpkg-query --admindir="$admin" -W -f='${db:Status-Abbrev}' renacer 2>/dev/null)
[ -z "$state" ] || fail "after dpkg -r renacer is in state '$state', not gone (conffiles or postrm)"
[ -z "$(find "$tmp/inst" -type f)" ] || fail "dpkg -r left files: $(find "$tmp/inst" -type f)"

# 2d. Completion from the commands table: bash-completion loads it as a TAB after `renacer`
# would (bash -i, the .deb's share/ first in XDG_DATA_DIRS), then it completes.
home=$tmp/home
mkdir -p "$home"
if [ -f /usr/share/bash-completion/bash_completion ]; then
	echo '. /usr/share/bash-completion/bash_completion' >"$home/.bashrc"
	load='__load_completion renacer'
else
	echo "note: bash-completion is not installed; sourcing the completion file" >&2
	load=". '$root/usr/share/bash-completion/completions/renacer'"
fi
HOME=$home XDG_DATA_DIRS=$root/usr/share bash -ic "$load; complete -p renacer" \
	>"$tmp/out" 2>"$tmp/err" || fail "bash has no completion for renacer after loading it"
grep -q '_renacer renacer$' "$tmp/out" || fail "unexpected completion: $(cat "$tmp/out")"
words=$(HOME=$home XDG_DATA_DIRS=$root/usr/share bash -ic "$load; COMP_WORDS=(renacer ch); \
	COMP_CWORD=1; _renacer; echo \"\${COMPREPLY[*]}\"" 2>/dev/null)
[ "$words" = check ] || fail "renacer ch<TAB> completes to '$words', not check"
words=$(HOME=$home XDG_DATA_DIRS=$root/usr/share bash -ic "$load; \
	COMP_WORDS=(renacer check --jun); COMP_CWORD=2; _renacer; echo \"\${COMPREPLY[*]}\"" \
	2>/dev/null)
[ "$words" = --junit ] || fail "renacer check --jun<TAB> completes to '$words', not --junit"
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$root/usr/share/zsh/vendor-completions/_renacer" 2>"$tmp/err" ||
		fail "the zsh completion does not parse"
fi
if command -v fish >/dev/null 2>&1; then
	fish -n "$root/usr/share/fish/vendor_completions.d/renacer.fish" 2>"$tmp/err" ||
		fail "the fish completion does not parse"
	fish -c "source '$root/usr/share/fish/vendor_completions.d/renacer.fish'; complete -C 'renacer vali'" \
		2>"$tmp/err" | grep -q '^validate' || fail "fish does not complete renacer vali"
fi
renacer=$root/usr/bin/renacer
"$renacer" --version >"$tmp/err" 2>&1 || fail "the unpacked renacer does not run"

# 3. The first hour: init, then check, in a project of one's own.
proj=$tmp/proj
mkdir -p "$proj"
(cd "$proj" && "$renacer" init -- /bin/ls) >"$tmp/out" 2>"$tmp/err" ||
	fail "renacer init -- /bin/ls exited $?"
[ -f "$proj/renacer.toml" ] || fail "init wrote no renacer.toml"
[ -f "$proj/golden_traces/ls.json" ] || fail "init recorded no golden trace"
ls -a "$proj" | grep -q '^\.renacer-init' && fail "init left its measuring config behind"
grep -q "^next:" "$tmp/err" || fail "init did not print the next commands"
grep -q "renacer check" "$tmp/err" || fail "init's next commands lack renacer check"
# The workflow to copy is the installed one, found beside the binary.
grep -q "$root/usr/share/renacer/ci/examples/renacer.yml" "$tmp/err" ||
	fail "init does not name the installed example workflow"
grep -q "^max_duration_ms = " "$proj/renacer.toml" || fail "no critical path budget"
grep -q "headroom" "$proj/renacer.toml" || fail "the budgets do not state their headroom"
cp "$proj/renacer.toml" "$tmp/before.toml"
(cd "$proj" && "$renacer" init -- /bin/true) >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] || fail "a second init did not exit 2"
grep -q "never overwrites" "$tmp/err" || fail "a second init did not say why"
cmp -s "$proj/renacer.toml" "$tmp/before.toml" || fail "a second init changed renacer.toml"
(cd "$proj" && "$renacer" validate) >"$tmp/out" 2>"$tmp/err" || fail "validate rejected init's config"
(cd "$proj" && "$renacer" check) >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || fail "renacer check after init exited $rc"
grep -q "ls_critical_path *PASS" "$tmp/err" || fail "the critical path budget did not pass"
grep -q "golden:syscall_counts *PASS" "$tmp/err" || fail "the golden trace was not compared"
[ -f "$proj/renacer-junit.xml" ] || fail "check wrote no JUnit report"

# 4. The tarball is relocatable: unpacked anywhere, its renacer runs.
mkdir -p "$tmp/tgz"
tar -xzf "$tgz" -C "$tmp/tgz" || fail "cannot unpack the tarball"
bin=$(ls "$tmp"/tgz/*/bin/renacer 2>/dev/null | head -n 1)
[ -n "$bin" ] || fail "the tarball lacks bin/renacer"
"$bin" validate --config "$proj/renacer.toml" >"$tmp/out" 2>"$tmp/err" ||
	fail "the tarball's renacer does not run"
echo "ok: $(basename "$deb") (Depends: $depends), init -- /bin/ls and check from the unpacked tree"
