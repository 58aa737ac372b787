#!/bin/sh
# Install the Debian packages renacer needs to build, test and run its examples.
# Debian 12 (bookworm) or newer. Run as root, or with sudo available.
#
#     ci/install-deps.sh          everything: build, run, the test suite, format, benchmarks
#     ci/install-deps.sh --gate   only what building renacer and running the gate need (the
#                                 GitHub Action's cold job), under names that Debian 12 and
#                                 Ubuntu 24.04 both ship; an optional group whose packages the
#                                 archive lacks (Ubuntu has no bpftool package) is left out
#                                 with a note, and renacer builds that collector's stub
set -eu
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
install() {
	$SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
# install_optional WHAT PACKAGE...: install the group when the archive has every package of it,
# else say what is left out (never a failure).
install_optional() {
	what=$1
	shift
	for p in "$@"; do
		if ! apt-cache show "$p" >/dev/null 2>&1; then
			echo "install-deps: $what left out: no package '$p' in this archive"
			return 0
		fi
	done
	install "$@" || echo "install-deps: $what left out: apt-get could not install $*"
}
gate=false
case ${1:-} in
--gate) gate=true ;;
'') ;;
*)
	echo "usage: ci/install-deps.sh [--gate]" >&2
	exit 2
	;;
esac
$SUDO apt-get update -qq
# Build and run.
install build-essential cmake pkg-config git ca-certificates \
	libjansson-dev libelf-dev libdw-dev libcurl4-openssl-dev zlib1g-dev libvulkan-dev \
	libsqlite3-dev libpq-dev libpcre2-dev
# The eBPF driver: clang compiles the counter (-target bpf), bpftool makes vmlinux.h and the
# skeleton, libbpf loads it (built without them, renacer has a stub that says so). Ubuntu
# ships bpftool only inside linux-tools-<kernel>: there the driver is left out.
if $gate; then
	install_optional "the eBPF driver" clang bpftool libbpf-dev
	exit 0
fi
install clang bpftool libbpf-dev
# The house style: ci/format.sh checks every C file against .clang-format, and
# ci/complexity.sh (ctest docs.complexity) every function's length and complexity with pmccabe.
install clang-format pmccabe
# The package a distribution would accept: tests/integration/install runs lintian on the .deb
# and loads its completion in bash (through bash-completion), zsh and fish.
install lintian bash-completion zsh fish
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
