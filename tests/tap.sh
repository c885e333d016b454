# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# TAP for gk5's shell tests (sourced): one line per cell, the plan last.
#   ok DESC           "ok N - DESC"
#   not_ok DESC       "not ok N - DESC", also on stderr (meson prints a
#                     failed TAP test's stderr, not its stdout), with the
#                     last lines of the file $TAP_ERR when it is set and
#                     not empty
#   tap_skip DESC WHY "ok N - DESC # SKIP WHY"
#   tap_done          the count, the plan; status 0 when no cell failed
TAP_N=0
TAP_FAILED=0
TAP_ERR=${TAP_ERR-}

ok() {
    TAP_N=$((TAP_N + 1))
    echo "ok $TAP_N - $1"
}

not_ok() {
    TAP_N=$((TAP_N + 1))
    TAP_FAILED=$((TAP_FAILED + 1))
    echo "not ok $TAP_N - $1"
    echo "not ok $TAP_N - $1" >&2
    if [ -n "$TAP_ERR" ] && [ -s "$TAP_ERR" ]; then
        tail -n 5 "$TAP_ERR" | sed 's/^/# /' | tee /dev/stderr
    fi
}

tap_skip() {
    TAP_N=$((TAP_N + 1))
    echo "ok $TAP_N - $1 # SKIP $2"
}

tap_done() {
    echo "# $TAP_N cells, $TAP_FAILED failed"
    echo "1..$TAP_N"
    [ $TAP_FAILED = 0 ]
}
