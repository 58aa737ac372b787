#!/bin/sh
# needed.sh RENACER LIB... - fail if RENACER's dynamic section names one of LIB (a prefix of
# the soname, e.g. libcurl); print the libraries it does name. 77 without readelf.
set -u
bin=$1
shift
command -v readelf >/dev/null 2>&1 || { echo "readelf not found" >&2; exit 77; }
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || { echo "no NEEDED entries read from $bin" >&2; exit 1; }
echo "renacer needs:" $needed
rc=0
for lib in "$@"; do
	for n in $needed; do
		case $n in
		"$lib".so*)
			echo "FAIL: $bin needs $n at start; expected $lib to be loaded later or linked in" >&2
			rc=1
			;;
		esac
	done
done
[ $rc -eq 0 ] && echo "none of: $*"
exit $rc
