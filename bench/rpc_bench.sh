#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# RPCSEC_GSS benchmark: gk5's client and libtirpc's MIT-based client against
# gk5's server and libtirpc's own server, in one run, in a throwaway realm.
#
#   bench/rpc_bench.sh [--seconds S] [--quick] [--csv] [--inflight N] BUILD_DIR
#
# BUILD_DIR is a configured and built tree (tools/gk5, tests/rpc/tirpc_*).
# For sys, krb5, krb5i and krb5p, and for each pair
#     gk5->gk5    gk5 rpc echo      -> gk5 rpc serve
#     gk5->tirpc  gk5 rpc echo      -> tirpc_server (svc_auth_gss)
#     tirpc->gk5  tirpc_client      -> gk5 rpc serve (rpc_gss_seccreate)
#     tirpc->tirpc tirpc_client     -> tirpc_server
# it measures NULL and 1 KiB ECHO calls/s, and 128 KiB / 1 MiB SINK and
# SOURCE MB/s (one connection, one call at a time), and prints them with
# the ratios gk5->gk5 / tirpc->tirpc and (for gk5->gk5) service / sys.
# A cell libtirpc cannot carry (krb5i/krb5p bodies over ~256 KiB) shows
# "n/a" with the reason below the table.  --quick: 0.3 s per cell (the
# CI smoke run); default 2 s.  --inflight N: gk5's client keeps N calls
# out on its own transport (libtirpc's, one at a time).  Every reply is
# checked by both clients.
set -u
set -o pipefail

seconds=2
csv=0
inflight=()
build=""
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --quick) seconds=0.3; shift ;;
    --csv) csv=1; shift ;;
    --inflight) inflight=(--inflight "$2"); shift 2 ;;
    -h | --help) sed -n '4,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "rpc_bench: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
[ -n "$build" ] || { echo "usage: $0 [--seconds S] [--quick] [--csv] BUILD_DIR" >&2; exit 2; }
build=$(cd "$build" && pwd) || exit 2
gk5=$build/tools/gk5
tsrv=$build/tests/rpc/tirpc_server
tcli=$build/tests/rpc/tirpc_client
for p in "$gk5" "$tsrv" "$tcli"; do
    [ -x "$p" ] || { echo "rpc_bench: $p not built" >&2; exit 2; }
done

# A realm of our own unless we already run inside one.
if [ -z "${GK5_REALM_DIR:-}" ]; then
    exec "$build/tools/gk5" realm run -- bash "$0" --seconds "$seconds" \
        $([ $csv = 1 ] && echo --csv) "${inflight[@]}" "$build"
fi
realm=$GK5_REALM_DIR
work=$(mktemp -d)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in "${pids[@]}"; do
        wait "$p" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME CMD...: run a server, wait for "listening on 127.0.0.1:PORT";
# PORT set.  Not in a subshell: its PID must reach the cleanup.
start() {
    local name=$1 i
    shift
    PORT=""
    "$@" >"$work/$name.out" 2>"$work/$name.err" &
    pids+=($!)
    for i in $(seq 1 100); do
        PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/$name.out" | head -n 1)
        [ -n "$PORT" ] && break
        sleep 0.05
    done
    [ -n "$PORT" ] || { echo "rpc_bench: $name did not start:" >&2; cat "$work/$name.err" >&2; exit 1; }
}
start gk5 "$gk5" rpc serve --listen 127.0.0.1:0 --keytab "$realm/service.keytab" --principal gk5@localhost --sec sys,krb5,krb5i,krb5p
gport=$PORT
KRB5_KTNAME=$realm/service.keytab start tirpc "$tsrv" --port 0 --keytab "$realm/service.keytab" --principal gk5@localhost
tport=$PORT

creds=(--client-keytab "$realm/client.keytab" --client-principal gk5-client@GK5.TEST)
touch "$work/notes"

# cell CLIENT PORT SEC PROC SIZE UNIT: prints calls/s or MB/s, or n/a (and
# the reason into $work/notes).
cell() {
    local client=$1 port=$2 sec=$3 proc=$4 size=$5 unit=$6 out rc cmd
    local gss=()
    if [ "$sec" != sys ]; then
        gss=(--target gk5@localhost "${creds[@]}")
        [ "$client" = gk5 ] && gss+=(--ccache "MEMORY:bench$$")
    fi
    if [ "$client" = gk5 ]; then
        cmd=("$gk5" rpc echo "127.0.0.1:$port" --sec "$sec" "${gss[@]}" --proc "$proc" --size "$size" --seconds "$seconds" "${inflight[@]}")
    else
        cmd=("$tcli" "127.0.0.1:$port" --sec "$sec" "${gss[@]}" --proc "$proc" --size "$size" --seconds "$seconds")
    fi
    out=$("${cmd[@]}" 2>"$work/cell.err")
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "n/a"
        printf '%s -> %s, %s %s %s: %s\n' "$client" "$port" "$sec" "$proc" "$size" \
            "$( (echo "$out"; cat "$work/cell.err") | grep -v '^$' | head -n 1 | cut -c1-200)" >>"$work/notes"
        return
    fi
    if [ "$unit" = calls/s ]; then
        echo "$out" | sed -n 's/.* \([0-9.]*\) calls\/s.*/\1/p' | tail -n 1
    else
        echo "$out" | sed -n 's/.* \([0-9.]*\) MB\/s.*/\1/p' | tail -n 1
    fi
}

ratio() { # a b -> a/b with 2 decimals, or -
    awk -v a="$1" -v b="$2" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else printf "-" }'
}

ops=("null 0 calls/s" "echo 1k calls/s" "sink 128k MB/s" "source 128k MB/s" "sink 1m MB/s" "source 1m MB/s")
secs=(sys krb5 krb5i krb5p)
declare -A gg sysv
if [ $csv = 1 ]; then
    echo "op,size,unit,sec,gk5_gk5,gk5_tirpc,tirpc_gk5,tirpc_tirpc,gk5_over_tirpc,over_sys"
else
    printf 'RPCSEC_GSS echo program, one connection, %s, %s s per cell\n' \
        "$([ ${#inflight[@]} -gt 0 ] && echo "gk5's client ${inflight[1]} calls in flight (libtirpc's one)" || echo "one call at a time")" "$seconds"
    printf '%-7s %-5s %-7s %-6s %10s %10s %10s %12s %8s %8s\n' op size unit sec gk5-gk5 gk5-tirpc tirpc-gk5 tirpc-tirpc gk5/tirpc vs-sys
fi
for op in "${ops[@]}"; do
    set -- $op
    proc=$1 size=$2 unit=$3
    for sec in "${secs[@]}"; do
        a=$(cell gk5 "$gport" "$sec" "$proc" "$size" "$unit")
        b=$(cell gk5 "$tport" "$sec" "$proc" "$size" "$unit")
        c=$(cell tirpc "$gport" "$sec" "$proc" "$size" "$unit")
        d=$(cell tirpc "$tport" "$sec" "$proc" "$size" "$unit")
        [ "$sec" = sys ] && sysv[$proc$size]=$a
        r=$(ratio "$a" "$d")
        s=$(ratio "$a" "${sysv[$proc$size]}")
        if [ $csv = 1 ]; then
            echo "$proc,$size,$unit,$sec,$a,$b,$c,$d,$r,$s"
        else
            printf '%-7s %-5s %-7s %-6s %10s %10s %10s %12s %8s %8s\n' "$proc" "$size" "$unit" "$sec" "$a" "$b" "$c" "$d" "$r" "$s"
        fi
    done
done
if [ -s "$work/notes" ] && [ $csv = 0 ]; then
    echo
    echo "n/a cells (port $gport: gk5 rpc serve, $tport: tirpc_server):"
    sed 's/^/  /' "$work/notes"
fi
exit 0
