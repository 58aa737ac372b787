#!/bin/sh
# Install the Debian packages renacer needs to build, test and run its examples.
# Debian 12 (bookworm) or newer. Run as root, or with sudo available.
set -eu
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
install() {
	$SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
$SUDO apt-get update -qq
# Build and run.
install build-essential cmake pkg-config git ca-certificates \
	libjansson-dev libelf-dev libdw-dev libcurl4-openssl-dev zlib1g-dev libvulkan-dev \
	libsqlite3-dev libpq-dev libpcre2-dev
# The eBPF driver: clang compiles the counter (-target bpf), bpftool makes vmlinux.h and the
# skeleton, libbpf loads it (built without them, renacer has a stub that says so).
install clang bpftool libbpf-dev
# The house style: ci/format.sh checks every C file against .clang-format.
install clang-format
# Tests: cmocka, lavapipe and the validation layers, strace to compare with, xmllint for the
# JUnit schemas, real programs to trace, clang for the fuzzers, valgrind, pre-commit.
install libcmocka-dev mesa-vulkan-drivers glslang-tools vulkan-validationlayers \
	strace libxml2-utils python3 python3-yaml gzip tar findutils sqlite3 \
	clang valgrind pre-commit
# The history store's tests: a real PostgreSQL server (the test creates its own cluster), and
# headless Chromium to render the report page. The page inlines Debian's Chart.js when
# libjs-chart.js is installed (without it, the page draws its own SVG).
install postgresql chromium libjs-chart.js
# Benchmarks (tests/bench/timing): hyperfine, the reference for run-to-run spread.
install hyperfine
# Harness targets and suites (tests/integration/harness, docs/harness.md): a Google Benchmark
# program, a pytest-benchmark suite and a Go benchmark, each built or run by its harness.
install libbenchmark-dev python3-pytest-benchmark golang-go
# Node.js for the OTLP receiver test: keep a Node.js that is already there (another
# distribution's nodejs package ships npm itself and conflicts with Debian's npm).
if ! command -v npm >/dev/null 2>&1; then
	install nodejs npm
fi
# The JUnit reporter test (check.console_reporters): xml2js, the XML library of
# dorny/test-reporter's JUnit parser.
install node-xml2js
