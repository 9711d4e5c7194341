#!/usr/bin/env bash
# setup.sh - installs every build and test dependency on a fresh Debian 12
# (as root, non-interactive, idempotent) and fetches the test kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
PKGS=(
	build-essential make pkg-config clang llvm bpftool
	libbpf-dev libelf-dev zlib1g-dev libzstd-dev libdw-dev libdebuginfod-dev
	debuginfod elfutils binutils
	qemu-system-x86 busybox-static cpio xz-utils zstd kmod
	jq python3 time
)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	$SUDO apt-get update -q
	$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
scripts/fetch-kernels.sh
echo "setup: done"
