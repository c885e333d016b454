#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5's main job on a fresh Debian 12 machine (as root): install what is
# missing, build, run `gk5 demo` (a throwaway MIT KDC on loopback, MIT
# GSS-API contexts per enctype, gk5 and MIT exchanging tokens both ways,
# gk5's RPCSEC_GSS client and server, NFS-Ganesha with gk5's NFSv4 client).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup-debian.sh
if [ -d build ]; then
    meson setup --reconfigure build -Dmit=enabled >/dev/null
else
    meson setup build -Dmit=enabled >/dev/null
fi
ninja -C build
exec build/tools/gk5 demo "$@"
