#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# `gk5 nfs4 storm` and bench/storm.sh refuse bad options with exit status 2
# and a message naming the option (TAP; no server needed).
#
#   storm_usage.sh GK5 STORM_SH
set -u
gk5=${1:?usage: storm_usage.sh GK5 STORM_SH}
storm_sh=${2:?}
. "$(dirname "$0")/../tests/tap.sh"

# expect STATUS TEXT CMD...: CMD exits with STATUS and its stderr holds TEXT.
expect() {
    local want=$1 text=$2 err rc
    shift 2
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" = "$want" ] && [[ $err == *"$text"* ]]; then
        ok "$* -> $want: $text"
    else
        not_ok "$* -> $want: $text (got $rc: $err)"
    fi
}

loc=127.0.0.1:1:/
expect 2 "nfs4 storm: --contexts: '0' is not 1 to 1000000" "$gk5" nfs4 storm $loc --contexts 0
expect 2 "nfs4 storm: --contexts: 'x' is not 1 to 1000000" "$gk5" nfs4 storm $loc --contexts x
expect 2 "nfs4 storm: --connections: '65' is not 1 to 64" "$gk5" nfs4 storm $loc --connections 65
expect 2 "nfs4 storm: --repeat: '101' is not 1 to 100" "$gk5" nfs4 storm $loc --repeat 101
expect 2 "nfs4 storm: --server-pid: 'abc' is not a process id" "$gk5" nfs4 storm $loc --server-pid abc
expect 2 "nfs4 storm: --contexts 2 is fewer than --connections 4" "$gk5" nfs4 storm $loc --contexts 2 --connections 4
expect 2 "nfs4 storm: --sec: the storm's contexts are krb5p" "$gk5" nfs4 storm $loc --sec krb5i
expect 2 "nfs4 storm: --establish: the storm measures gk5's own initiator" "$gk5" nfs4 storm $loc --establish mit
expect 2 "nfs4 storm: --seconds: '1' is not a time" "$gk5" nfs4 storm $loc --seconds 1
expect 2 "nfs4 storm: option '--repeat' needs an argument" "$gk5" nfs4 storm $loc --repeat
expect 2 "nfs4 storm: missing HOST:PORT:/PATH" "$gk5" nfs4 storm
expect 2 "nfs4 bench: --contexts applies to nfs4 storm" "$gk5" nfs4 bench $loc --contexts 5
expect 2 "nfs4 cat: --server-pid applies to nfs4 storm" "$gk5" nfs4 cat ${loc}x --server-pid 3
expect 1 "nfs4 storm: kinit with the keytab /nonexistent/kt:" "$gk5" nfs4 storm $loc --client-keytab /nonexistent/kt
expect 2 "storm: --contexts 20000 --connections 8: at most 10000 contexts" bash "$storm_sh" --contexts 20000 .
expect 2 "storm: --modes: 'fast' is not stock, interposer or native" bash "$storm_sh" --modes fast .
expect 2 "storm: unknown option --frobnicate" bash "$storm_sh" --frobnicate .
tap_done
