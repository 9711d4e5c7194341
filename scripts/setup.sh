#!/usr/bin/env bash
# setup.sh - prepares a fresh Debian 12 (bookworm) machine (as root, or via sudo) for
# building and testing retsnoop: installs every build and test dependency
# with apt-get (non-interactive, idempotent), makes sure bookworm-security is
# in the apt sources (the 6.12 test kernels live there), then fetches the
# VM test kernels with scripts/fetch-kernels.sh.
#
#   sudo scripts/setup.sh            # then: make && make test
#   SETUP_NO_KERNELS=1 scripts/setup.sh   # packages only
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

SUDO=()
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "run as root (apt-get install needs it)"
    SUDO=(sudo -E)
fi
command -v apt-get >/dev/null || die "apt-get not found: this script is for Debian 12"
if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    [ "${VERSION_CODENAME:-}" = bookworm ] || say "warning: made for Debian 12 (bookworm), this is '${PRETTY_NAME:-unknown}'"
fi
export DEBIAN_FRONTEND=noninteractive

# the 6.12 cloud kernels come from bookworm-security: make sure apt sees it
security_listed() {
    # -q: a match wins even if a file is missing (no /etc/apt/sources.list on deb822 systems)
    grep -rqsE '^[^#]*(deb |URIs:).*(-security|bookworm/updates)' /etc/apt/sources.list /etc/apt/sources.list.d/
}
if ! security_listed; then
    say "adding bookworm-security to /etc/apt/sources.list.d/retsnoop-security.list"
    echo 'deb http://deb.debian.org/debian-security bookworm-security main' \
        | "${SUDO[@]}" tee /etc/apt/sources.list.d/retsnoop-security.list >/dev/null
fi

PKGS=(
    # build
    build-essential gcc make pkg-config clang llvm
    # tests/fuzz: libFuzzer's runtime for clang -fsanitize=fuzzer
    libclang-rt-14-dev
    libbpf-dev libelf-dev zlib1g-dev libzstd-dev libdw-dev libdebuginfod-dev
    bpftool binutils
    # tests and tools used by them
    debuginfod elfutils jq python3 time curl
    # CLI tests: man pages (groff, man -w), setpriv and script (util-linux, bsdutils)
    groff-base man-db util-linux bsdutils
    # VM harness (tests/vm/vmrun) and kernel fetching
    qemu-system-x86 busybox-static cpio xz-utils zstd kmod
    coreutils tar
    # bench/record_overhead.sh: the peer in the same VM boot
    bpftrace
    # bench/record_profile.sh: per-program counters and a start-up profile in the VM
    linux-perf
    # bench/writer_profile.sh: the consumer's instructions per session (callgrind)
    valgrind
)
say "apt-get update"
"${SUDO[@]}" apt-get update -q
missing=()
for p in "${PKGS[@]}"; do
    # dpkg-query says "install ok installed" for packages that are in place
    if [ "$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then missing+=("$p"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing: ${missing[*]}"
    "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    say "all ${#PKGS[@]} packages already installed"
fi

if [ -z "${SETUP_NO_KERNELS:-}" ]; then
    say "fetching the VM test kernels"
    "${SUDO[@]}" env RETSNOOP_KERNELS="${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}" scripts/fetch-kernels.sh
fi
say "done: now run 'make' and 'make test'"
