#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# NFS-Ganesha with gk5_mech.so (TAP): Ganesha runs with a GSS_MECH_CONFIG
# that names the interposer, so its libntirpc RPCSEC_GSS calls MIT's
# GSS-API (gss_get_mic, gss_verify_mic and the gss_*_iov family) and gk5
# serves them.  Clients: libtirpc's own (rpc_gss_seccreate, MIT without the
# interposer) at 64 KiB, and gk5's at 1 MiB; each does NULL, SETCLIENTID,
# PUTROOTFH+GETATTR, OPEN, WRITE, READ (compared), CLOSE, REMOVE with sys,
# krb5, krb5i and krb5p (tests/peers/test_ganesha).  Then Ganesha's trace
# must show that gk5 served its contexts and which calls.  The same again
# with [accept=native] on the module's config line: Ganesha, unmodified,
# then accepts its RPCSEC_GSS contexts with gk5's own acceptor (its
# gss_acquire_cred credential for nfs@, its KeytabPath registered with
# krb5_gss_register_acceptor_identity), and the trace must say so for
# every context.
#
#   gk5 realm run --tap -- ganesha.sh GK5_MECH_SO GANESHA_SH TEST_GANESHA
set -u

MODULE=${1:?usage: ganesha.sh GK5_MECH_SO GANESHA_SH TEST_GANESHA}
GANESHA_SH=${2:?}
TEST_GANESHA=${3:?}
: "${GK5_REALM_DIR:?run through gk5 realm run --tap}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-ganesha-interposer.XXXXXX") || exit 1
trap 'rm -rf -- "$WORK"' EXIT
MODULE=$(cd "$(dirname "$MODULE")" && pwd)/$(basename "$MODULE")
printf 'gk5_mech 1.3.6.1.4.1.32473.4121.1 %s <interposer>\n' "$MODULE" >"$WORK/mech.conf"
printf 'gk5_mech 1.3.6.1.4.1.32473.4121.1 %s [accept=native] <interposer>\n' \
    "$MODULE" >"$WORK/mech-native.conf"

. "$(dirname "$0")/../tap.sh"

# run_client LABEL CONF ARGS...: Ganesha with the interposer (config
# WORK/CONF), test_ganesha's TAP cells renumbered into ours; the trace is
# kept in WORK/LABEL.trace.
run_client() {
    local label=$1 conf=$2 out=$WORK/$1.out rc line
    shift 2
    : >"$WORK/$label.trace"
    GK5_GANESHA_MECH_CONFIG=$WORK/$conf GK5_GANESHA_TRACE=$WORK/$label.trace \
        timeout -k 5 100 bash "$GANESHA_SH" run --tap -- "$TEST_GANESHA" "$@" \
        >"$out" 2>"$WORK/$label.err"
    rc=$?
    if grep -q '^1\.\.0 # SKIP' "$out"; then
        echo "1..0 # SKIP $(sed -n 's/^1\.\.0 # SKIP //p' "$out" | head -n 1)"
        exit 0
    fi
    while IFS= read -r line; do
        case $line in
        "ok "*) ok "$label: ${line#ok * - }" ;;
        "not ok "*) not_ok "$label: ${line#not ok * - }" ;;
        "#"*) echo "$line" ;;
        esac
    done <"$out"
    if [ $rc != 0 ]; then
        not_ok "$label: test_ganesha exited with status $rc"
        tail -n 20 "$WORK/$label.err" | sed 's/^/# /' | tee /dev/stderr
    fi
}

# check_trace LABEL [native]: Ganesha loaded the module, gk5 served its
# krb5 contexts (taken over from MIT's acceptor, or with native: accepted
# by gk5's own, none by MIT's), and the calls each service makes: header
# MICs (krb5), integrity bodies (get_mic_iov/verify_mic_iov: krb5i),
# privacy bodies (wrap_iov/unwrap_iov: krb5p).
check_trace() {
    local label=$1 native=${2-} t=$WORK/$1.trace call n
    if grep -q 'gk5_mech: loaded' "$t"; then
        ok "$label: ganesha.nfsd loaded gk5_mech.so"
    else
        not_ok "$label: ganesha.nfsd loaded gk5_mech.so"
        sed 's/^/# /' "$t" | tee /dev/stderr
        return
    fi
    if [ -n "$native" ]; then
        n=$(grep -c 'accepted natively: ' "$t")
        if [ "$n" -ge 3 ] && grep -q 'gk5_mech: accept: native (config line' "$t" &&
            ! grep -qE 'accept by MIT|stays with MIT|served by gk5: .*, acceptor' "$t"; then
            ok "$label: gk5's own acceptor accepted Ganesha's $n krb5 contexts ($(grep -o 'accepted natively: .*, [a-z0-9-]* ([0-9]*)' "$t" | sed 's/.*, \([a-z0-9-]*\) (.*/\1/' | sort -u | paste -sd, -))"
        else
            not_ok "$label: gk5's own acceptor accepted Ganesha's krb5 contexts (got $n)"
            sed 's/^/# /' "$t" | tee /dev/stderr
        fi
    else
        n=$(grep -c 'served by gk5: ' "$t")
    fi
    if [ -n "$native" ]; then
        :
    elif [ "$n" -ge 3 ] && ! grep -q 'stays with MIT' "$t"; then
        ok "$label: gk5 served Ganesha's $n krb5 contexts ($(grep -o 'served by gk5: [^,]*' "$t" | sort -u | sed 's/served by gk5: //' | paste -sd, -))"
    else
        not_ok "$label: gk5 served Ganesha's krb5 contexts (got $n)"
        sed 's/^/# /' "$t" | tee /dev/stderr
    fi
    for call in gss_get_mic gss_verify_mic gss_get_mic_iov gss_verify_mic_iov gss_wrap_iov gss_unwrap_iov; do
        if grep -q "gk5 serves $call\$" "$t"; then
            ok "$label: gk5 served Ganesha's $call"
        else
            not_ok "$label: gk5 served Ganesha's $call"
        fi
    done
}

run_client libtirpc mech.conf --via libtirpc --size 65536
check_trace libtirpc
run_client gk5 mech.conf --size 1048576
check_trace gk5
run_client libtirpc-native mech-native.conf --via libtirpc --size 65536
check_trace libtirpc-native native
run_client gk5-native mech-native.conf --size 1048576
check_trace gk5-native native

tap_done
