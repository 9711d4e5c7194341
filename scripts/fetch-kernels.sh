#!/usr/bin/env bash
# fetch-kernels.sh - fetches the Debian bookworm kernels the VM tests boot:
# the newest 6.12 cloud kernel that has a matching -dbg package (kprobe.multi,
# DWARF vmlinux) and the newest 6.1.0-N cloud kernel (older-kernel check).
# Versions are resolved from the apt indexes at run time, never hard-coded.
#
#   scripts/fetch-kernels.sh            # fetch into ${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
#
# Layout:  $RETSNOOP_KERNELS/dl/*.deb            downloaded packages (reused if present)
#          $RETSNOOP_KERNELS/<release>/          dpkg-deb -x of the image (+ depmod)
#          $RETSNOOP_KERNELS/<release>/usr/lib/debug/boot/{vmlinux,System.map}-<release>
#          $RETSNOOP_KERNELS/<release>/usr/lib/debug/lib/modules/<release>/  a few module
#                                                  debug files ($DBG_MODULES below)
#          $RETSNOOP_KERNELS/6.12.env, 6.1.env   KREL= KIMG= KMODS= VMLINUX_DBG= SYSMAP=
#                                                  (6.12 also KMODS_DBG=)
# Idempotent: whatever is already extracted is kept.
set -euo pipefail

KDIR=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
DL=$KDIR/dl
PROG=fetch-kernels
say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

for t in apt-cache apt-get dpkg-deb tar; do
    command -v "$t" >/dev/null || die "'$t' not found (run scripts/setup.sh)"
done
DEPMOD=$(command -v depmod || true)
[ -n "$DEPMOD" ] || { [ -x /sbin/depmod ] && DEPMOD=/sbin/depmod; } || die "depmod not found (apt-get install kmod)"
mkdir -p "$DL" || die "cannot create $DL"

APT_UPDATED=0
# pkg_known NAME: the apt indexes know package NAME
pkg_known() { apt-cache show "$1" >/dev/null 2>&1; }
# search_releases REGEX SUFFIX: releases (kernel version strings) of packages
# whose names match ^linux-image-REGEX-SUFFIX$, newest first
search_releases() {
    local re=$1 suf=$2
    apt-cache search --names-only "^linux-image-${re}-${suf}\$" 2>/dev/null \
        | awk '{ print $1 }' | sed -e 's/^linux-image-//' -e "s/-${suf}\$//" | sort -Vr -u
}
# local_releases GLOB: releases of image .debs already in $DL, newest first
local_releases() {
    local f
    for f in "$DL"/linux-image-$1-unsigned_*.deb; do
        [ -e "$f" ] || continue
        f=${f##*/}; f=${f#linux-image-}; echo "${f%%-unsigned_*}"
    done | sort -Vr -u
}
have_deb() { compgen -G "$DL/$1_*.deb" >/dev/null; }
deb_of()   { compgen -G "$DL/$1_*.deb" | sort -V | tail -n 1; }

# download PKG: PKG's .deb into $DL unless one is there already
download() {
    local pkg=$1
    if have_deb "$pkg"; then say "reusing $(deb_of "$pkg")"; return 0; fi
    say "downloading $pkg"
    # apt-get download writes into the current directory; _apt may not be able
    # to write to $DL (it then downloads unsandboxed as root, which is fine)
    ( cd "$DL" && apt-get download -q "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 ) || true
    have_deb "$pkg" || die "download of $pkg failed"
}

# resolve MAJOR: prints the release to use for kernel line MAJOR (6.12 | 6.1)
resolve() {
    local major=$1 re glob rel
    case "$major" in
        6.12) re='6\.12\.[0-9]+\+deb12-cloud-amd64'; glob='6.12.*+deb12-cloud-amd64' ;;
        6.1)  re='6\.1\.0-[0-9]+-cloud-amd64';       glob='6.1.0-*-cloud-amd64' ;;
        *) die "internal: unknown kernel line $major" ;;
    esac
    local cands
    cands=$(search_releases "$re" unsigned)
    if [ -z "$cands" ] && [ "$APT_UPDATED" = 0 ] && [ "$(id -u)" = 0 ]; then
        say "apt indexes know no linux-image-$glob: running apt-get update"
        apt-get update -q >&2 || true
        APT_UPDATED=1
        cands=$(search_releases "$re" unsigned)
    fi
    if [ -z "$cands" ]; then
        # offline: fall back on packages already downloaded
        cands=$(local_releases "$glob")
        [ -n "$cands" ] || die "no linux-image-$glob-unsigned package found (is bookworm-security in sources.list? run apt-get update)"
        say "apt indexes unavailable; using downloaded packages"
    fi
    for rel in $cands; do
        if [ "$major" = 6.12 ]; then
            # the DWARF vmlinux is needed: the -dbg package must exist too
            if pkg_known "linux-image-$rel-dbg" || have_deb "linux-image-$rel-dbg"; then echo "$rel"; return 0; fi
            say "skipping $rel: no linux-image-$rel-dbg package"
        else
            echo "$rel"; return 0
        fi
    done
    die "no linux-image-$glob-unsigned with a matching -dbg package found"
}

# modules_dir ROOT REL: the module tree inside an extracted package
modules_dir() {
    local d
    for d in "$1/lib/modules/$2" "$1/usr/lib/modules/$2"; do
        if [ -d "$d" ]; then echo "$d"; return 0; fi
    done
    return 1
}

# extract_image REL: unpack the image package into $KDIR/REL and run depmod
extract_image() {
    local rel=$1 root=$KDIR/$1 pkg=linux-image-$1-unsigned tmp mods
    if [ -f "$root/.image-complete" ]; then say "$rel: image already extracted"; return 0; fi
    download "$pkg"
    tmp=$KDIR/.tmp-$rel.$$
    rm -rf -- "$tmp"
    mkdir -p "$tmp"
    say "$rel: extracting $(basename "$(deb_of "$pkg")")"
    dpkg-deb -x "$(deb_of "$pkg")" "$tmp"
    [ -f "$tmp/boot/vmlinuz-$rel" ] || die "$pkg has no boot/vmlinuz-$rel"
    mods=$(modules_dir "$tmp" "$rel") || die "$pkg has no module tree for $rel"
    # the package ships no modules.dep; -b wants the directory holding lib/modules
    "$DEPMOD" -b "${mods%/lib/modules/$rel}" "$rel" || die "depmod failed for $rel"
    [ -s "$mods/modules.dep" ] || die "depmod wrote no modules.dep for $rel"
    mkdir -p "$root"
    cp -a "$tmp/." "$root/"
    rm -rf -- "$tmp"
    touch "$root/.image-complete"
}

# extract_dbg REL: only vmlinux and System.map out of the (1.8 GB) -dbg package
extract_dbg() {
    local rel=$1 root=$KDIR/$1 pkg=linux-image-$1-dbg
    if [ -f "$root/.dbg-complete" ]; then say "$rel: debug vmlinux already extracted"; return 0; fi
    download "$pkg"
    say "$rel: extracting vmlinux and System.map from $(basename "$(deb_of "$pkg")") (takes ~30 s)"
    mkdir -p "$root"
    dpkg-deb --fsys-tarfile "$(deb_of "$pkg")" \
        | tar -x -C "$root" --wildcards \
              "./usr/lib/debug/boot/vmlinux-$rel" "./usr/lib/debug/boot/System.map-$rel"
    [ -s "$root/usr/lib/debug/boot/vmlinux-$rel" ] || die "$pkg gave no vmlinux-$rel"
    touch "$root/.dbg-complete"
}

# debug files of the modules the module symbolization tests load
# (tests/dwarf/run_module.sh), relative to lib/modules/REL
DBG_MODULES="kernel/fs/overlayfs/overlay.ko"

# extract_dbg_modules REL: those module debug files out of the -dbg package
extract_dbg_modules() {
    local rel=$1 root=$KDIR/$1 pkg=linux-image-$1-dbg m want=()
    local mark=$root/.dbg-modules-complete
    if [ -f "$mark" ] && [ "$(cat "$mark")" = "$DBG_MODULES" ]; then
        say "$rel: module debug files already extracted"; return 0
    fi
    download "$pkg"
    for m in $DBG_MODULES; do want+=("./usr/lib/debug/lib/modules/$rel/$m"); done
    say "$rel: extracting $DBG_MODULES from $(basename "$(deb_of "$pkg")") (takes ~30 s)"
    dpkg-deb --fsys-tarfile "$(deb_of "$pkg")" | tar -x -C "$root" "${want[@]}"
    for m in $DBG_MODULES; do
        [ -s "$root/usr/lib/debug/lib/modules/$rel/$m" ] || die "$pkg gave no $m"
    done
    echo "$DBG_MODULES" >"$mark"
}

# write_env MAJOR REL WITH_DBG
write_env() {
    local major=$1 rel=$2 dbg=$3 root=$KDIR/$2 mods vml="" smap=""
    mods=$(modules_dir "$root" "$rel") || die "no module tree in $root"
    if [ "$dbg" = 1 ]; then
        vml=$root/usr/lib/debug/boot/vmlinux-$rel
        smap=$root/usr/lib/debug/boot/System.map-$rel
    fi
    local tmp=$KDIR/.$major.env.$$
    {
        echo "# written by scripts/fetch-kernels.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "KREL=$rel"
        echo "KIMG=$root/boot/vmlinuz-$rel"
        echo "KMODS=$mods"
        echo "VMLINUX_DBG=$vml"
        echo "SYSMAP=$smap"
        if [ "$dbg" = 1 ]; then echo "KMODS_DBG=$root/usr/lib/debug/lib/modules/$rel"; fi
    } >"$tmp"
    mv -f "$tmp" "$KDIR/$major.env"
    say "wrote $KDIR/$major.env (KREL=$rel)"
}

for major in 6.12 6.1; do
    rel=$(resolve "$major")
    say "kernel line $major: $rel"
    extract_image "$rel"
    if [ "$major" = 6.12 ]; then
        extract_dbg "$rel"
        extract_dbg_modules "$rel"
        write_env "$major" "$rel" 1
    else
        write_env "$major" "$rel" 0
    fi
done
