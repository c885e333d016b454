#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The throwaway MIT realm, by its old name: a wrapper over `gk5 realm`
# (tools/cli_realm.c, support/realm/realm.c), which is the implementation.
#
#   kdc.sh start DIR | stop DIR | run [--tap] -- CMD ...
#
# Same operations, environment (GK5_KDC_ENCTYPES, GK5_KDC_PORT) and exit
# statuses as `gk5 realm` (see `gk5 realm --help`).  The gk5 binary: $GK5,
# else $GK5_CLI (what the meson tests set), else gk5 on PATH.
set -u

gk5=${GK5:-${GK5_CLI:-$(command -v gk5)}}
if [ -z "$gk5" ] || [ ! -x "$gk5" ]; then
    echo "kdc.sh: no gk5 binary: set GK5=path/to/build/tools/gk5" >&2
    exit 1
fi
exec "$gk5" realm "$@"
