#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# An unmodified python-gssapi program (Debian's python3-gssapi on MIT's
# libgssapi_krb5) through the gk5_mech interposer (meson suite
# 'interposer'): TAP.
#
#   gk5 realm run --tap -- python_gssapi.sh BUILD_DIR_OR_GK5_MECH_SO PY
#
# PY is python_gssapi.py.  Run inside the throwaway realm of `gk5 realm
# run` (GK5_REALM_DIR, KRB5_CONFIG): the initiator's credential comes from
# the realm's client keytab, the acceptor's from its service keytab.
#   1  MIT alone (no GSS_MECH_CONFIG): `PY check` exits 0 (every call gave
#      what GSS-API requires), and GK5_TRACE stays empty
#   2  the same with GSS_MECH_CONFIG naming gk5_mech.so: exits 0, and its
#      stdout (what each call returned, or the major status and exception
#      it was refused with) is the same as MIT's, line for line
#   3  the trace: both contexts served by gk5 (initiator and acceptor),
#      and each context's counts on deletion are exactly the calls the
#      program made on it
#
# Python is /usr/bin/python3 (or GK5_PYTHON): where it cannot import
# gssapi, the test says SKIP and why.  Every command runs under timeout(1).
set -u

USAGE="usage: python_gssapi.sh BUILD_DIR_OR_GK5_MECH_SO PYTHON_GSSAPI_PY"
SO_ARG=${1:?$USAGE}
PY_ARG=${2:?$USAGE}
DIR=${GK5_REALM_DIR:?run through gk5 realm run --tap}
: "${KRB5_CONFIG:?run through gk5 realm run --tap}"
T=${GK5_PYTHON_TIMEOUT:-60}

PYTHON=${GK5_PYTHON:-/usr/bin/python3}
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "1..0 # SKIP $PYTHON not found"
    exit 0
fi
if ! why=$(timeout 30 "$PYTHON" -c 'import gssapi' 2>&1); then
    echo "1..0 # SKIP $PYTHON cannot import gssapi (apt-get install python3-gssapi): $(echo "$why" | tail -n 1)"
    exit 0
fi

if [ -d "$SO_ARG" ]; then
    SO_ARG=$SO_ARG/src/interposer/gk5_mech.so
fi
# The mechglue dlopen()s the path of the config line: it must be absolute.
SO=$(realpath -e -- "$SO_ARG" 2>/dev/null)
if [ -z "$SO" ] || [ ! -f "$SO" ]; then
    echo "Bail out! gk5_mech.so not found: $SO_ARG"
    echo "python_gssapi.sh: gk5_mech.so not found: $SO_ARG" >&2
    exit 1
fi
PY=$(realpath -e -- "$PY_ARG" 2>/dev/null) || {
    echo "Bail out! python_gssapi.py not found: $PY_ARG"
    echo "python_gssapi.sh: python_gssapi.py not found: $PY_ARG" >&2
    exit 1
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-python.XXXXXX") || exit 1
trap 'rm -rf -- "$WORK"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
MECH_CONF=$WORK/mech.conf
echo "gk5_mech 1.3.6.1.4.1.32473.4121.1 $SO <interposer>" >"$MECH_CONF"

echo "1..3"
N=0
FAILED=0
# A failed line and its diagnostics (its stdin) go to stdout and stderr:
# meson shows a failed TAP test's stderr.  (Written twice rather than
# through tee /dev/stderr, which reopens stderr and truncates it when that
# is a file.)
ok() {
    N=$((N + 1))
    echo "ok $N - $1"
}
not_ok() {
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    echo "not ok $N - $1"
    echo "not ok $N - $1" >&2
    local text
    text=$(sed 's/^/# /')
    echo "$text"
    echo "$text" >&2
}

# run NAME [ENV...]: PY check with the realm's keytabs, a ccache of its
# own, GK5_TRACE=$WORK/NAME.trace; stdout, stderr and status in
# $WORK/NAME.{out,err,rc}.
run() {
    local name=$1
    shift
    timeout -k 5 "$T" env "$@" GK5_TRACE="$WORK/$name.trace" \
        KRB5_CLIENT_KTNAME="$DIR/client.keytab" \
        KRB5CCNAME="FILE:$WORK/$name.ccache" \
        KRB5_KTNAME="$DIR/service.keytab" \
        "$PYTHON" "$PY" check >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null
    echo $? >"$WORK/$name.rc"
}

run mit -u GSS_MECH_CONFIG
run gk5 GSS_MECH_CONFIG="$MECH_CONF"

rc=$(cat "$WORK/mit.rc")
if [ "$rc" = 0 ] && [ ! -s "$WORK/mit.trace" ]; then
    ok "MIT alone: every call as GSS-API requires, nothing traced"
else
    {
        echo "status $rc"
        cat "$WORK/mit.out" "$WORK/mit.err"
        [ ! -s "$WORK/mit.trace" ] || echo "the trace is not empty:"
        cat "$WORK/mit.trace" 2>/dev/null
    } >"$WORK/diag"
    not_ok "MIT alone: every call as GSS-API requires, nothing traced" <"$WORK/diag"
fi

rc=$(cat "$WORK/gk5.rc")
if [ "$rc" = 0 ] && cmp -s "$WORK/mit.out" "$WORK/gk5.out" &&
    [ -s "$WORK/mit.out" ]; then
    ok "gk5_mech.so: the same results as MIT, line for line"
    sed 's/^/# /' "$WORK/gk5.out"
else
    {
        echo "status $rc"
        diff -u "$WORK/mit.out" "$WORK/gk5.out"
        cat "$WORK/gk5.err"
    } >"$WORK/diag"
    not_ok "gk5_mech.so: the same results as MIT, line for line" <"$WORK/diag"
fi

# The trace: each context served by gk5, and its counts when the program
# deleted it.  The calls python_gssapi.py makes on each context:
#   initiator  wrap 3 (unwrapped; tampered; unwrapped, then replayed),
#              unwrap 1, get_mic 4 (verified; 2 tampered; after the gap,
#              then replayed), verify_mic 1
#   acceptor   wrap 1, unwrap 4 (one, tampered, fresh, replayed), get_mic
#              1, verify_mic 5 (one, 2 tampered, after the gap, replayed)
TRACE=$WORK/gk5.trace
why=""
addr_of() {
    sed -nE "s/.*gk5_mech: context (0x[0-9a-f]+) served by gk5: [a-z0-9-]+ \([0-9]+\), $1, flags 0x[0-9a-f]+\$/\1/p" \
        "$TRACE" 2>/dev/null
}
counts() {
    grep -F "gk5_mech: context $1 deleted; gk5 served wrap $2, unwrap $3, get_mic $4, verify_mic $5, wrap_iov 0, unwrap_iov 0, get_mic_iov 0, verify_mic_iov 0" \
        "$TRACE" >/dev/null 2>&1
}
ini=$(addr_of initiator)
acc=$(addr_of acceptor)
if [ "$(echo "$ini" | grep -c .)" != 1 ] || [ "$(echo "$acc" | grep -c .)" != 1 ]; then
    why="not one initiator and one acceptor context served by gk5"
elif ! counts "$ini" 3 1 4 1; then
    why="the initiator's counts are not wrap 3, unwrap 1, get_mic 4, verify_mic 1"
elif ! counts "$acc" 1 4 1 5; then
    why="the acceptor's counts are not wrap 1, unwrap 4, get_mic 1, verify_mic 5"
fi
if [ -z "$why" ]; then
    ok "GK5_TRACE: both contexts served by gk5, every call counted"
    grep -E 'served by gk5|deleted;' "$TRACE" | sed 's/^/# /'
else
    {
        echo "$why"
        cat "$TRACE" 2>/dev/null
    } >"$WORK/diag"
    not_ok "GK5_TRACE: both contexts served by gk5, every call counted" <"$WORK/diag"
fi

[ $FAILED = 0 ]
