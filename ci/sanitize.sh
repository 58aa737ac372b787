#!/bin/sh
# The two extra builds CI makes: every warning an error (-Werror), and AddressSanitizer +
# UndefinedBehaviorSanitizer with the unit tests run under them.
set -eu
cd "$(dirname "$0")/.."
echo "== -Werror build"
cmake -S . -B build-werror -DRN_WERROR=ON -DRN_BUILD_TESTS=ON >/dev/null
cmake --build build-werror -j"$(nproc)"
echo "== ASan+UBSan build, every test but the slow harness cases"
cmake -S . -B build-asan -DRN_WERROR=ON -DRN_SANITIZE='address;undefined' \
	-DCMAKE_BUILD_TYPE=Debug -DRN_BUILD_TESTS=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
# Label "slow": tests whose time goes to a third-party interpreter or toolchain (the pytest
# and go harness cases, about 280 s), not to renacer's code; ci/test.sh runs them.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --output-on-failure -j2 --timeout 600 -LE slow)
