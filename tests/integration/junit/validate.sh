#!/bin/sh
# validate.sh - write sample JUnit reports and validate them against both schemas of
# shared/junit/ (windyroad JUnit.xsd and jenkins junit-10.xsd) with xmllint.
#
# Usage: validate.sh JUNIT_SAMPLE SCHEMA_DIR OUT_DIR
# Exits 77 (skip, with the reason) when the schema directory or xmllint is missing, 1 when
# the sample writer is not built.
set -u

sample=$1
schemas=$2
out=$3

# A missing build is a failure, never a skip.
if [ ! -x "$sample" ]; then
	echo "FAIL: '$sample' is not built"
	exit 1
fi
if [ ! -d "$schemas" ]; then
	echo "skip: schema directory '$schemas' is absent"
	exit 77
fi
if ! command -v xmllint >/dev/null 2>&1; then
	echo "skip: xmllint is not installed"
	exit 77
fi

status=0
rm -rf "$out"
mkdir -p "$out/c"

# Validate every report in directory $1 against both schemas.
validate_dir() {
	for f in "$1"/*.xml; do
		for xsd in windyroad-JUnit.xsd jenkins-junit-10.xsd; do
			if ! xmllint --noout --schema "$schemas/$xsd" "$f" 2>"$out/xmllint.err"; then
				echo "FAIL: $f does not validate against $xsd:"
				cat "$out/xmllint.err"
				status=1
			fi
		done
	done
}

if ! LC_ALL=C "$sample" "$out/c" >/dev/null; then
	echo "FAIL: $sample could not write its reports"
	exit 1
fi
validate_dir "$out/c"

# Negative control: the check must be able to fail. <testsuites> takes no attributes in the
# windyroad schema, and a suite without hostname is invalid there.
sed 's/<testsuites>/<testsuites name="x">/' "$out/c/mix.xml" >"$out/bad-root.xml"
sed 's/ hostname="[^"]*"//' "$out/c/mix.xml" >"$out/bad-host.xml"
for f in "$out/bad-root.xml" "$out/bad-host.xml"; do
	if xmllint --noout --schema "$schemas/windyroad-JUnit.xsd" "$f" 2>/dev/null; then
		echo "FAIL: the broken report $f validates: the schema check proves nothing"
		status=1
	fi
done

# A decimal-comma locale must not leak into numbers. Build one when the system has none.
mkdir -p "$out/locale" "$out/de"
loc=""
for l in de_DE.UTF-8 de_DE.utf8; do
	if LC_ALL=$l "$sample" "$out/de" 2>/dev/null | grep -q 'decimal point: ,'; then
		loc=$l
		break
	fi
done
if [ -z "$loc" ] && command -v localedef >/dev/null 2>&1 &&
	localedef -i de_DE -f UTF-8 "$out/locale/de_DE.UTF-8" >/dev/null 2>&1; then
	loc=de_DE.UTF-8
	export LOCPATH="$out/locale"
fi
if [ -n "$loc" ] && LC_ALL=$loc "$sample" "$out/de" | grep -q 'decimal point: ,'; then
	validate_dir "$out/de"
	if grep -n 'time="[0-9]*,' "$out/de"/*.xml; then
		echo "FAIL: a time attribute uses the locale's decimal comma"
		status=1
	fi
else
	echo "note: no decimal-comma locale available; locale check skipped"
fi

[ "$status" -eq 0 ] && echo "all JUnit reports validate against both schemas"
exit "$status"
