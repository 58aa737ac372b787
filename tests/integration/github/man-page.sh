#!/bin/sh
# man-page.sh BINARY_DIR - the build leaves BINARY_DIR/renacer.1, identical to
# `renacer man`, naming every subcommand and every option of `renacer check`; groff (when
# present) reads it without a warning; `cmake --install` puts it in share/man/man1,
# compressed (renacer.1.gz) as Debian policy asks, with the same text.
set -eu

bin=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rn-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ -s "$bin/renacer.1" ] || fail "the build did not generate $bin/renacer.1"
"$bin/renacer" man >"$tmp/man.1"
cmp -s "$tmp/man.1" "$bin/renacer.1" || fail "renacer.1 differs from 'renacer man' (stale?)"
for word in '.TH RENACER 1' '.SH check' '.SH validate' '.SH golden' '.SH EXIT STATUS'; do
	grep -qF -- "$word" "$bin/renacer.1" || fail "renacer.1 lacks '$word'"
done
# Every long option of `renacer check --help` appears in the man page (man(7) may write '-'
# as '\-').
"$bin/renacer" check --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$tmp/options"
[ -s "$tmp/options" ] || fail "no options in 'renacer check --help'"
sed 's/\\-/-/g' "$bin/renacer.1" >"$tmp/plain.1"
while read -r opt; do
	grep -qF -- "$opt" "$tmp/plain.1" || fail "renacer.1 lacks option $opt"
done <"$tmp/options"

if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww -z "$bin/renacer.1" 2>"$tmp/groff" || fail "groff failed"
	if [ -s "$tmp/groff" ]; then
		cat "$tmp/groff" >&2
		fail "groff warns about renacer.1"
	fi
fi

DESTDIR="$tmp/dest" cmake --install "$bin" --prefix /usr >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log" >&2
	fail "cmake --install failed"
}
gz=$tmp/dest/usr/share/man/man1/renacer.1.gz
[ -f "$gz" ] || fail "renacer.1.gz not installed to share/man/man1"
gzip -dc "$gz" | cmp -s - "$bin/renacer.1" || fail "the installed renacer.1.gz differs from renacer.1"
[ -x "$tmp/dest/usr/bin/renacer" ] || fail "renacer not installed to bin"
echo "ok: renacer.1 generated, complete and installed"
