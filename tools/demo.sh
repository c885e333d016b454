#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5's main job on a fresh Debian 12 machine (as root): install what is
# missing, build, run `gk5 demo` (a throwaway MIT KDC on loopback, gk5's
# own KDC client, initiator and acceptor against it and MIT's GSS-API per
# enctype, then MIT GSS-API contexts moved into gk5 for comparison, gk5
# and MIT exchanging tokens both ways, rc4 refused, gk5's RPCSEC_GSS
# client and server, NFS-Ganesha with gk5's NFSv4 client).
# A step that fails says which it was on stderr, and the status is not 0.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
    echo "demo.sh: FAILED: $*" >&2
    exit 1
}

tools/setup-debian.sh demo || fail "installing packages (tools/setup-debian.sh demo)"

# meson's messages are kept out of the way unless configuring fails; then
# they are what says why.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
setup=(meson setup build -Dmit=enabled -Dtools=enabled)
[ -f build/meson-private/cmd_line.txt ] && setup+=(--reconfigure)
if ! "${setup[@]}" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    fail "configuring build/ (${setup[*]}; full log: build/meson-logs/meson-log.txt)"
fi
ninja -C build || fail "building (ninja -C build)"
rm -f "$log"
trap - EXIT
exec build/tools/gk5 demo "$@"
