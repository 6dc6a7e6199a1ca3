#!/usr/bin/env bash
# A Debian 13 (trixie) root holding today's containers/image clients, for the
# project's oracles: skopeo 1.18 and podman 5.4 (containers/image 5.34), Go
# 1.24 and the containers/image 5.34 source (golang-github-containers-image-dev).
# Everything comes from Debian's own package archive and goes into one folder;
# nothing on the host changes but that folder and two mounts in it.
#
# Usage:
#   scripts/debian13-root.sh build         make the root when it is missing (about 4-6 minutes, 3 GB)
#   scripts/debian13-root.sh path          print the root's folder
#   scripts/debian13-root.sh run CMD ARG.. run a command inside the root
#   scripts/debian13-root.sh umount        undo the mounts `run` made
#
# The root is MIRRORPOLICY_DEBIAN13_ROOT, else /var/cache/kubectl-mirrorpolicy/debian13.
# `run` mounts /proc and bind-mounts the host's temporary folder (TMPDIR, else
# /tmp) at the same path, so files made by the host's tests are seen at the
# same paths inside; the command keeps the environment and the working folder
# (when it is under that temporary folder), and reaches the host's loopback
# (a chroot shares the network). Needs root (or a password-less sudo),
# mmdebstrap for `build`, and Debian's archive (DEBIAN13_MIRROR, else
# http://deb.debian.org/debian).
set -euo pipefail

ROOT=${MIRRORPOLICY_DEBIAN13_ROOT:-/var/cache/kubectl-mirrorpolicy/debian13}
MIRROR=${DEBIAN13_MIRROR:-http://deb.debian.org/debian}
PACKAGES=skopeo,podman,golang-go,golang-github-containers-image-dev,ca-certificates
HOST_TMP=$(cd "${TMPDIR:-/tmp}" && pwd -P)

as_root=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        echo "debian13-root: needs root or a password-less sudo (chroot and mount)" >&2
        exit 2
    fi
fi

complete() { [ -f "$ROOT/.mirrorpolicy-complete" ]; }

build() {
    complete && return 0
    command -v mmdebstrap >/dev/null || {
        echo "debian13-root: mmdebstrap is not installed (Debian package mmdebstrap)" >&2
        exit 2
    }
    local parent partial
    parent=$(dirname "$ROOT")
    partial="$ROOT.partial"
    "${as_root[@]}" mkdir -p "$parent"
    # A build cut short leaves only the partial folder, never a root that looks whole.
    "${as_root[@]}" rm -rf "$partial"
    echo "debian13-root: building $ROOT (mmdebstrap trixie: $PACKAGES)" >&2
    local log
    log=$(mktemp)
    if ! "${as_root[@]}" mmdebstrap --variant=apt --include="$PACKAGES" trixie "$partial" "$MIRROR" \
        </dev/null >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        rm -f "$log"
        echo "debian13-root: mmdebstrap failed" >&2
        exit 1
    fi
    rm -f "$log"
    "${as_root[@]}" rm -rf "$ROOT"
    "${as_root[@]}" mv "$partial" "$ROOT"
    "${as_root[@]}" touch "$ROOT/.mirrorpolicy-complete"
}

mounted() { mountpoint -q "$1"; }

mount_all() {
    complete || {
        echo "debian13-root: $ROOT is not built: run scripts/debian13-root.sh build" >&2
        exit 2
    }
    # Concurrent runs (parallel tests) mount once.
    exec 9>"$HOST_TMP/.mirrorpolicy-debian13.lock"
    flock 9
    if ! mounted "$ROOT/proc"; then
        "${as_root[@]}" mount -t proc proc "$ROOT/proc"
    fi
    "${as_root[@]}" mkdir -p "$ROOT$HOST_TMP"
    if ! mounted "$ROOT$HOST_TMP"; then
        "${as_root[@]}" mount --bind "$HOST_TMP" "$ROOT$HOST_TMP"
    fi
    flock -u 9
    exec 9>&-
}

umount_all() {
    for m in "$ROOT$HOST_TMP" "$ROOT/proc"; do
        if mounted "$m"; then "${as_root[@]}" umount "$m"; fi
    done
}

case "${1:-}" in
build) build ;;
path) echo "$ROOT" ;;
run)
    shift
    [ $# -gt 0 ] || { echo "debian13-root: run needs a command" >&2; exit 2; }
    mount_all
    # The working folder is kept where it exists inside (under the shared temporary folder).
    [ ${#as_root[@]} -eq 0 ] || as_root=(sudo -n -E)
    exec "${as_root[@]}" chroot "$ROOT" /usr/bin/env PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
        /bin/sh -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' sh "$PWD" "$@"
    ;;
umount) umount_all ;;
*)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
