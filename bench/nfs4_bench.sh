#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# NFSv4 against NFS-Ganesha on loopback, in one run and one throwaway
# realm: `gk5 nfs4 bench` with gk5's client and with libtirpc's MIT-based
# client against stock Ganesha (MIT's crypto on the server), then gk5's
# client against Ganesha with gk5_mech.so in its GSS_MECH_CONFIG (gk5's
# crypto on both ends).  WRITE/READ MB/s and GETATTR calls/s for sys,
# krb5, krb5i, krb5p, as ratios to sys.  --inflight N: gk5's client runs on
# its own RPC transport with N calls outstanding (libtirpc's client keeps
# one at a time).
#
#   bench/nfs4_bench.sh [--seconds S] [--quick] [--threads N] [--size LIST]
#                       [--inflight N] BUILD_DIR
set -u
set -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
seconds=2
threads=1
sizes=4k,64k,1m
inflight=()
build=""
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --quick) seconds=0.2; sizes=64k; shift ;;
    --threads) threads=$2; shift 2 ;;
    --size) sizes=$2; shift 2 ;;
    --inflight) inflight=(--inflight "$2"); shift 2 ;;
    -h | --help) sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "nfs4_bench: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
[ -n "$build" ] || { echo "usage: $0 [--seconds S] [--quick] BUILD_DIR" >&2; exit 2; }
build=$(cd "$build" && pwd) || exit 2
gk5=$build/tools/gk5
module=$build/src/interposer/gk5_mech.so
for f in "$gk5" "$module"; do
    [ -e "$f" ] || { echo "nfs4_bench: $f not built" >&2; exit 2; }
done

if [ -z "${GK5_REALM_DIR:-}" ]; then
    exec "$build/tools/gk5" realm run -- bash "$0" --seconds "$seconds" \
        --threads "$threads" --size "$sizes" "${inflight[@]}" "$build"
fi

work=$(mktemp -d) || exit 1
trap 'rm -rf -- "$work"' EXIT
printf 'gk5_mech 1.3.6.1.4.1.32473.4121.1 %s <interposer>\n' "$module" >"$work/mech.conf"
creds=(--target nfs@localhost --client-keytab "$GK5_REALM_DIR/client.keytab")
common=(--seconds "$seconds" --threads "$threads" --size "$sizes")

run() { # TITLE GANESHA_ENV... -- BENCH_ARGS...
    local title=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo
    echo "== $title"
    env "${envs[@]}" bash "$here/tests/peers/ganesha.sh" run -- \
        bash -c '"$0" nfs4 bench "127.0.0.1:$GK5_GANESHA_PORT:/" "$@"' "$gk5" "$@"
}

run "stock Ganesha (MIT crypto on the server), gk5's client" GK5_BENCH=1 -- \
    "${common[@]}" "${creds[@]}" --client-principal gk5-client@GK5.TEST \
    "${inflight[@]}" || exit 1
run "stock Ganesha, libtirpc's client (rpc_gss_seccreate, MIT)" GK5_BENCH=1 -- \
    "${common[@]}" "${creds[@]}" --via libtirpc || exit 1
run "Ganesha with gk5_mech.so (gk5 crypto on the server), gk5's client" \
    GK5_GANESHA_MECH_CONFIG="$work/mech.conf" GK5_GANESHA_TRACE="$work/trace" -- \
    "${common[@]}" "${creds[@]}" --client-principal gk5-client@GK5.TEST \
    "${inflight[@]}" || exit 1
if ! grep -q 'served by gk5' "$work/trace"; then
    echo "nfs4_bench: Ganesha's contexts were not served by gk5:" >&2
    cat "$work/trace" >&2
    exit 1
fi
