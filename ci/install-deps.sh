#!/bin/sh
# Install the Debian packages renacer needs to build, test and run its examples.
# Debian 12 (bookworm) or newer. Run as root, or with sudo available.
set -eu
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential cmake pkg-config git ca-certificates \
	libjansson-dev libelf-dev libcurl4-openssl-dev zlib1g-dev libcmocka-dev \
	libvulkan-dev mesa-vulkan-drivers glslang-tools vulkan-validationlayers \
	strace libxml2-utils python3 gzip tar findutils sqlite3 \
	clang valgrind nodejs npm pre-commit python3-yaml >/dev/null
