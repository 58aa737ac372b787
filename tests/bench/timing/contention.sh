#!/bin/sh
# contention.sh - what a neighbour does to a golden trace's time rows: the README's quick-start
# program (about 30 ms of CPU in a loop, 100 writes) recorded on a quiet machine, then checked
# N times with nothing beside it, with a busy loop beside it, and with a cache-heavy neighbour
# (xz -9 on incompressible data) beside it. Prints each check's golden:cpu_time and
# golden:wall_time rows that did not pass (the console prints those; verdict and shift) and a
# summary line per neighbour: how many checks exited 1.
#
# Usage: tests/bench/timing/contention.sh [RENACER] [N]   (default build/renacer, 10)
# Not a ctest: it takes minutes and measures the machine it runs on.
set -u
R=$(realpath "${1:-build/renacer}")
N=${2:-10}
W=$(mktemp -d /tmp/rn-contention.XXXXXX)
nb=
cleanup() {
	[ -n "$nb" ] && kill "$nb" 2> /dev/null
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
cd "$W" || exit 1
cat > app.c << 'EOF'
#include <unistd.h>

int main(void)
{
	volatile unsigned long sum = 0;

	for (int i = 0; i < 100; i++) {
		for (int j = 0; j < 500000; j++)
			sum += j;
		if (write(1, "renacer\n", 8) != 8)
			return 1;
	}
	return 0;
}
EOF
cc -O2 -o app app.c || exit 1
head -c 64M /dev/urandom > noise.bin
"$R" init -- ./app > /dev/null 2>&1 || {
	echo "contention.sh: renacer init failed" >&2
	exit 1
}

for who in none busy xz; do
	case $who in
	busy) sh -c 'while :; do :; done' & nb=$! ;;
	xz) sh -c 'while :; do xz -9 -T1 -c noise.bin > /dev/null; done' & nb=$! ;;
	esac
	sleep 1
	f=0
	i=0
	while [ $i -lt "$N" ]; do
		out=$("$R" check --no-color 2>&1)
		[ $? -eq 1 ] && f=$((f + 1))
		echo "$out" | grep -E '^(PASS|FAIL|WARN|NOT JUDGED) +app/golden:(cpu|wall)_time' |
			sed "s/^/$who: /" | cut -c1-160
		i=$((i + 1))
	done
	echo "== $who: $f/$N checks exit 1"
	[ -n "$nb" ] && kill "$nb" 2> /dev/null && pkill -f "xz -9 -T1 -c noise.bin" 2> /dev/null
	nb=
done
