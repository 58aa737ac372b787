#!/bin/sh
# completion_test.sh RENACER - `renacer completion` against the commands table it is written
# from: bash completes every command of `renacer --help` from its first letters and every
# option of every `renacer help COMMAND` after the command; a path option (--config FILE)
# completes file names; the zsh and fish scripts parse (when those shells are installed) and
# fish completes the commands too; an unknown shell is a usage error (exit 2).
set -u
renacer=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
"$renacer" completion bash >"$tmp/renacer.bash" || fail "completion bash exited $?"
bash -n "$tmp/renacer.bash" || fail "the bash completion does not parse"
# complete WORD...: what bash offers for the last word after `renacer WORD...`.
complete() {
	bash -c '. "$1"; shift; COMP_WORDS=(renacer "$@"); COMP_CWORD=$#; _renacer
		printf "%s\n" "${COMPREPLY[@]}"' complete "$tmp/renacer.bash" "$@"
}
commands=$("$renacer" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 10 ] || fail "read no command list from --help"
n=0
for c in $commands; do
	complete "$(echo "$c" | cut -c1-3)" | grep -qx "$c" || fail "'${c%???}...' does not complete to $c"
	for opt in $("$renacer" help "$c" | sed -n 's/^  \(-[a-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p'); do
		complete "$c" "$opt" | grep -qx -- "$opt" || fail "renacer $c $opt is not completed"
		n=$((n + 1))
	done
done
[ $n -ge 30 ] || fail "only $n options were read from the help pages"
mkdir -p "$tmp/dir" && : >"$tmp/dir/my.toml"
(cd "$tmp/dir" && complete check --config m) | grep -qx my.toml ||
	fail "check --config does not complete file names"
"$renacer" completion zsh >"$tmp/_renacer" || fail "completion zsh exited $?"
"$renacer" completion fish >"$tmp/renacer.fish" || fail "completion fish exited $?"
grep -q '^#compdef renacer' "$tmp/_renacer" || fail "the zsh completion lacks #compdef"
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$tmp/_renacer" || fail "the zsh completion does not parse"
fi
if command -v fish >/dev/null 2>&1; then
	fish -n "$tmp/renacer.fish" || fail "the fish completion does not parse"
	fish -c "source '$tmp/renacer.fish'; complete -C 'renacer che'" | grep -q '^check' ||
		fail "fish does not complete renacer che"
fi
"$renacer" completion tcsh >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "an unknown shell did not exit 2"
grep -q "bash, zsh or fish" "$tmp/err" || fail "an unknown shell's error does not name the shells"
echo "ok: $(echo "$commands" | wc -l) commands and $n options completed in bash; zsh and fish parse"
