#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# `gk5 nfs4` against NFS-Ganesha (TAP), inside gk5 realm run and ganesha.sh
# run (GK5_REALM_DIR, GK5_GANESHA_PORT).
#   basic     every service (sys, krb5, krb5i, krb5p): put, cat (compared
#             byte for byte), ls (names and sizes), rm, and ls again, for
#             files of 0 B, 1 B, 64 KiB and 1 MiB + 1 (the MEM FSAL keeps at
#             most 2 MiB a file); a put over an existing longer file
#             truncates it; small rsize/wsize (many READs and WRITEs);
#             every enctype the KDC issues, under krb5, krb5i and krb5p:
#             put, cat, ls, rm; errors: a missing file (NFS4ERR_NOENT with
#             words), an rc4-hmac session key refused before any NFS call,
#             a wrong target principal, bad usage; gk5's own RPC client
#             (--transport gk5) for every service: put, cat, ls, rm; and
#             --inflight 4 and 16 (WRITEs and READs kept out on one
#             connection): 2 MiB files compared byte for byte; nfs4 bench
#             --inflight 4 prints its ratios to sys
#   vfs       (GK5_GANESHA_FSAL=VFS: a real folder) files of 5 MiB + 1 for
#             every service, compared byte for byte, one call at a time and
#             with --inflight 4 and 16; a server that stops
#             answering mid-transfer (SIGSTOP) gives a timeout error within
#             --timeout, and one that dies mid-transfer (SIGKILL, last) a
#             connection error, never a hang
#   wrongsec  (GK5_GANESHA_SECTYPE=krb5p) flavours the export does not
#             allow are refused with their own words; krb5p works; and an
#             expired ticket is refused with its own words
#
#   nfs4_cli.sh basic|vfs|wrongsec GK5
set -u

MODE=${1:?usage: nfs4_cli.sh basic|vfs|wrongsec GK5}
GK5=${2:?usage: nfs4_cli.sh basic|vfs|wrongsec GK5}
: "${GK5_REALM_DIR:?run through gk5 realm run}" "${GK5_GANESHA_PORT:?run through ganesha.sh run}"
SERVER=127.0.0.1:$GK5_GANESHA_PORT
KRB=(--target nfs@localhost --client-keytab "$GK5_REALM_DIR/client.keytab"
    --client-principal gk5-client@GK5.TEST)
ENCTYPES="aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 aes256-cts-hmac-sha384-192 aes128-cts-hmac-sha256-128 camellia256-cts-cmac camellia128-cts-cmac"

GANESHA_PID=$(cat "$GK5_REALM_DIR/ganesha/ganesha.pid.ours" 2>/dev/null)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-nfs4-cli.XXXXXX") || exit 1
cleanup() {
    # Never leave Ganesha stopped: ganesha.sh stops it by its PID.
    [ -n "$GANESHA_PID" ] && kill -CONT "$GANESHA_PID" 2>/dev/null
    rm -rf -- "$WORK"
}
trap cleanup EXIT
. "$(dirname "$0")/../tap.sh"
TAP_ERR=$WORK/err

# nfs SEC ARGS...: gk5 nfs4 with the credentials SEC needs; stdout to
# WORK/out, stderr to WORK/err; its exit status.
nfs() {
    local sec=$1 sub=$2
    shift 2
    local creds=()
    [ "$sec" != sys ] && creds=("${KRB[@]}")
    timeout -k 5 120 "$GK5" nfs4 "$sub" "$@" --sec "$sec" "${creds[@]}" \
        >"$WORK/out" 2>"$WORK/err"
}

# put_cat SEC SIZE NAME [ARGS...]: put a random file, cat it back, compare.
put_cat() {
    local sec=$1 size=$2 name=$3
    shift 3
    head -c "$size" /dev/urandom >"$WORK/in"
    if ! nfs "$sec" put "$WORK/in" "$SERVER:/$name" "$@"; then
        not_ok "$sec: put $size bytes as /$name $*"
        return 1
    fi
    if ! nfs "$sec" cat "$SERVER:/$name" "$@"; then
        not_ok "$sec: cat /$name ($size bytes) $*"
        return 1
    fi
    if cmp -s "$WORK/in" "$WORK/out"; then
        ok "$sec: put + cat /$name: $size bytes, the same $*"
    else
        not_ok "$sec: put + cat /$name: $size bytes came back different ($(stat -c %s "$WORK/out") bytes) $*"
        return 1
    fi
}

# The bench's table: a header naming the client and the calls in flight,
# and a line with a ratio to sys for every service, size and operation
# asked for.  bench_ok CLIENT INFLIGHT SECS SIZES
bench_ok() {
    local client=$1 inflight=$2 secs=$3 sizes=$4 sec size op missing=""
    grep -q "^gk5 nfs4 bench: $SERVER, client $client, $inflight calls\? in flight" "$WORK/out" ||
        missing="$missing header"
    for sec in ${secs//,/ }; do
        for size in ${sizes//,/ }; do
            for op in WRITE READ; do
                grep -qE "^$sec +$size +$op +[0-9.]+ MB/s +[0-9]+\.[0-9]{2}\$" "$WORK/out" ||
                    missing="$missing $sec/$size/$op"
            done
        done
        grep -qE "^$sec +- +GETATTR +[0-9]+/s +[0-9]+\.[0-9]{2}\$" "$WORK/out" ||
            missing="$missing $sec/GETATTR"
    done
    echo "$missing"
}

# gk5's own RPC client: --transport gk5 for every service, then --inflight.
transport_cells() {
    local sec n missing
    for sec in sys krb5 krb5i krb5p; do
        put_cat "$sec" 65537 "gk5t-$sec" --transport gk5
        put_cat "$sec" 300000 "gk5t-$sec-small-io" --transport gk5 --rsize 4096 --wsize 65536
        if nfs "$sec" ls "$SERVER:/" --transport gk5 &&
            grep -qE '^- +65537 gk5t-'"$sec"'$' "$WORK/out" &&
            grep -qE '^- +300000 gk5t-'"$sec"'-small-io$' "$WORK/out"; then
            ok "$sec, --transport gk5: ls / lists the files with their sizes"
        else
            not_ok "$sec, --transport gk5: ls / lists the files with their sizes"
        fi
        if nfs "$sec" rm "$SERVER:/gk5t-$sec" --transport gk5 &&
            nfs "$sec" rm "$SERVER:/gk5t-$sec-small-io" --transport gk5 &&
            nfs "$sec" ls "$SERVER:/" --transport gk5 && ! grep -q "gk5t-$sec" "$WORK/out"; then
            ok "$sec, --transport gk5: rm removed the files"
        else
            not_ok "$sec, --transport gk5: rm removed the files"
        fi
        # 2 MiB: the most the MEM FSAL keeps of a file.
        for n in 4 16; do
            put_cat "$sec" 2097152 "gk5i-$sec-$n" --inflight "$n"
            put_cat "$sec" 2097152 "gk5i-$sec-$n" --inflight "$n" --wsize 65536 --rsize 100000
            nfs "$sec" rm "$SERVER:/gk5i-$sec-$n" --transport gk5
        done
    done
    # --inflight on a file smaller than one READ, and on an empty one.
    for size in 0 1; do
        put_cat krb5p "$size" "gk5i-tiny-$size" --inflight 4
        nfs krb5p rm "$SERVER:/gk5i-tiny-$size" --transport gk5
    done
    if nfs krb5p cat "$SERVER:/gk5-no-such-file" --inflight 4; then
        not_ok "--inflight 4: cat of a missing file fails"
    elif grep -q 'NFS4ERR_NOENT (no such file or directory)' "$WORK/err"; then
        ok "--inflight 4: cat of a missing file: $(head -n 1 "$WORK/err")"
    else
        not_ok "--inflight 4: cat of a missing file says NFS4ERR_NOENT with words"
    fi
    # The bench, one call at a time and 4 in flight, on gk5's client:
    # gk5-bench's, which gk5 runs (not there with -Dbench=disabled).
    local sizes=4k,64k secs=sys,krb5,krb5p
    if ! "$GK5" --help | grep -q '^  bench '; then
        tap_skip "nfs4 bench --transport gk5" "gk5-bench is not built (-Dbench=disabled)"
        tap_skip "nfs4 bench --inflight 4" "gk5-bench is not built (-Dbench=disabled)"
        return
    fi
    if timeout -k 5 120 "$GK5" nfs4 bench "$SERVER:/" --sec "$secs" --size "$sizes" \
        --seconds 0.3 --transport gk5 "${KRB[@]}" >"$WORK/out" 2>"$WORK/err"; then
        missing=$(bench_ok 'gk5 (gk5 transport)' 1 "$secs" "$sizes")
        sed 's/^/# /' "$WORK/out"
        if [ -z "$missing" ]; then
            ok "nfs4 bench --transport gk5: every cell with its ratio to sys"
        else
            not_ok "nfs4 bench --transport gk5: lacks$missing"
        fi
    else
        not_ok "nfs4 bench --transport gk5: $(head -n 1 "$WORK/err" | cut -c1-160)"
    fi
    if timeout -k 5 120 "$GK5" nfs4 bench "$SERVER:/" --sec "$secs" --size "$sizes" \
        --seconds 0.3 --inflight 4 "${KRB[@]}" >"$WORK/out" 2>"$WORK/err"; then
        missing=$(bench_ok 'gk5 (gk5 transport)' 4 "$secs" "$sizes")
        sed 's/^/# /' "$WORK/out"
        if [ -z "$missing" ]; then
            ok "nfs4 bench --inflight 4: 4 calls in flight, every cell with its ratio to sys"
        else
            not_ok "nfs4 bench --inflight 4: lacks$missing"
        fi
    else
        not_ok "nfs4 bench --inflight 4: $(head -n 1 "$WORK/err" | cut -c1-160)"
    fi
}

basic_cells() {
    for sec in sys krb5 krb5i krb5p; do
        for size in 0 1 65536 1048577; do
            put_cat "$sec" "$size" "gk5-$sec-$size"
        done
        if nfs "$sec" ls "$SERVER:/"; then
            missing=""
            for size in 0 1 65536 1048577; do
                grep -qE "^- +$size gk5-$sec-$size\$" "$WORK/out" || missing="$missing $size"
            done
            if [ -z "$missing" ]; then
                ok "$sec: ls / lists the four files with their sizes"
            else
                not_ok "$sec: ls / lacks the files of sizes$missing"
            fi
        else
            not_ok "$sec: ls /"
        fi
        # A shorter file over a longer one: the old bytes are gone.
        put_cat "$sec" 100 "gk5-$sec-1048577"
        put_cat "$sec" 300000 "gk5-$sec-small-io" --rsize 4096 --wsize 65536
        gone=1
        for size in 0 1 65536 1048577 small-io; do
            nfs "$sec" rm "$SERVER:/gk5-$sec-$size" || gone=0
        done
        if [ $gone = 1 ] && nfs "$sec" ls "$SERVER:/" && ! grep -q "gk5-$sec-" "$WORK/out"; then
            ok "$sec: rm removed the files (ls no longer lists them)"
        else
            not_ok "$sec: rm removed the files"
        fi
    done

    for e in $ENCTYPES; do
        # A realm that lists its enctypes (kdc.enctypes: Heimdal's KDC has
        # no camellia) is not asked for others.
        num=$("$GK5" enctypes | awk -v n="$e" '$2 == n { print $1 }')
        if [ -f "$GK5_REALM_DIR/kdc.enctypes" ] &&
            ! grep -qw -- "$num" "$GK5_REALM_DIR/kdc.enctypes"; then
            for sec in krb5 krb5i krb5p; do
                tap_skip "$sec, enctype $e" "the realm's KDC has no key of this enctype (kdc.enctypes)"
            done
            continue
        fi
        for sec in krb5 krb5i krb5p; do
            head -c 4097 /dev/urandom >"$WORK/in"
            if nfs "$sec" put "$WORK/in" "$SERVER:/gk5-enctype" --enctype "$e" &&
                nfs "$sec" cat "$SERVER:/gk5-enctype" --enctype "$e" &&
                cmp -s "$WORK/in" "$WORK/out" &&
                nfs "$sec" ls "$SERVER:/" --enctype "$e" &&
                grep -qE '^- +4097 gk5-enctype$' "$WORK/out" &&
                nfs "$sec" rm "$SERVER:/gk5-enctype" --enctype "$e"; then
                ok "$sec, enctype $e: put + cat (the same) + ls + rm"
            else
                not_ok "$sec, enctype $e: put + cat + ls + rm"
            fi
        done
    done

    # Errors: their own words.
    if nfs krb5p cat "$SERVER:/gk5-no-such-file"; then
        not_ok "cat of a missing file fails"
    elif grep -q 'NFS4ERR_NOENT (no such file or directory)' "$WORK/err"; then
        ok "cat of a missing file: $(head -n 1 "$WORK/err")"
    else
        not_ok "cat of a missing file says NFS4ERR_NOENT with words"
    fi
    if nfs krb5p ls "$SERVER:/" --enctype rc4-hmac; then
        not_ok "an rc4-hmac session key is refused"
    elif grep -q 'RFC 8429' "$WORK/err"; then
        ok "an rc4-hmac session key is refused before any NFS call: $(head -n 1 "$WORK/err" | cut -c1-160)"
    else
        not_ok "an rc4-hmac session key is refused with RFC 8429's words"
    fi
    if timeout -k 5 60 "$GK5" nfs4 ls "$SERVER:/" --sec krb5 --target nosuch@localhost \
        --client-keytab "$GK5_REALM_DIR/client.keytab" >"$WORK/out" 2>"$WORK/err"; then
        not_ok "a target principal the KDC does not know fails"
    elif grep -qi 'not found\|unknown' "$WORK/err"; then
        ok "a target principal the KDC does not know: $(head -n 1 "$WORK/err" | cut -c1-160)"
    else
        not_ok "a target principal the KDC does not know says so"
    fi
    "$GK5" nfs4 cat "$SERVER" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    if [ $rc = 2 ] && grep -q 'HOST:PORT:/PATH' "$WORK/err"; then
        ok "usage: a location without a path is refused (exit 2)"
    else
        not_ok "usage: a location without a path is refused (exit 2, got $rc)"
    fi
    transport_cells
}

vfs_cells() {
    local sec size=$((5 * 1024 * 1024 + 1)) t0 rc
    head -c "$size" /dev/urandom >"$WORK/in"
    for sec in sys krb5 krb5i krb5p; do
        if nfs "$sec" put "$WORK/in" "$SERVER:/big-$sec" &&
            nfs "$sec" cat "$SERVER:/big-$sec" && cmp -s "$WORK/in" "$WORK/out" &&
            nfs "$sec" rm "$SERVER:/big-$sec"; then
            ok "$sec: put + cat 5 MiB + 1 (VFS FSAL), the same, rm"
        else
            not_ok "$sec: put + cat 5 MiB + 1 (VFS FSAL)"
        fi
        for n in 4 16; do
            if nfs "$sec" put "$WORK/in" "$SERVER:/big-$sec-$n" --inflight "$n" &&
                nfs "$sec" cat "$SERVER:/big-$sec-$n" --inflight "$n" &&
                cmp -s "$WORK/in" "$WORK/out" &&
                nfs "$sec" rm "$SERVER:/big-$sec-$n" --transport gk5; then
                ok "$sec, --inflight $n: put + cat 5 MiB + 1 (VFS FSAL), the same, rm"
            else
                not_ok "$sec, --inflight $n: put + cat 5 MiB + 1 (VFS FSAL): $(head -n 1 "$WORK/err" | cut -c1-160)"
            fi
        done
    done
    if [ -z "$GANESHA_PID" ]; then
        not_ok "Ganesha's PID is known (ganesha.pid.ours)"
        return
    fi
    # A server that stops answering: the client gives up at its timeout.
    kill -STOP "$GANESHA_PID"
    t0=$(date +%s)
    nfs krb5p put "$WORK/in" "$SERVER:/stalled" --timeout 2000
    rc=$?
    kill -CONT "$GANESHA_PID"
    if [ $rc = 1 ] && [ $(($(date +%s) - t0)) -lt 30 ] && grep -qi 'timed out\|time' "$WORK/err"; then
        ok "a server that stops answering: error within the timeout: $(head -n 1 "$WORK/err" | cut -c1-160)"
    else
        not_ok "a server that stops answering: exit 1 with a timeout error (exit $rc after $(($(date +%s) - t0)) s)"
    fi
    # A server that dies mid-transfer (many small WRITEs): a clear error.
    # Ganesha is killed once the file has begun to grow in its folder.
    local file=$GK5_REALM_DIR/ganesha/vfs/dying i
    timeout -k 5 60 "$GK5" nfs4 put "$WORK/in" "$SERVER:/dying" --sec krb5p --wsize 512 \
        "${KRB[@]}" --timeout 5000 >"$WORK/out" 2>"$WORK/err" &
    local put=$!
    for ((i = 0; i < 1000; i++)); do
        [ "$(stat -c %s "$file" 2>/dev/null || echo 0)" -gt 0 ] && break
        sleep 0.01
    done
    kill -KILL "$GANESHA_PID"
    wait $put
    rc=$?
    if [ $rc = 1 ] && [ -s "$WORK/err" ]; then
        ok "a server that dies mid-transfer: exit 1: $(head -n 1 "$WORK/err" | cut -c1-160)"
    else
        not_ok "a server that dies mid-transfer: exit 1 with an error (exit $rc)"
    fi
}

wrongsec_cells() {
    local sec
    for sec in sys krb5 krb5i; do
        if nfs "$sec" ls "$SERVER:/"; then
            not_ok "$sec on a krb5p-only export is refused"
        elif grep -qE 'WRONGSEC|TOOWEAK|flavou?r|too weak' "$WORK/err"; then
            ok "$sec on a krb5p-only export: $(head -n 1 "$WORK/err" | cut -c1-160)"
        else
            not_ok "$sec on a krb5p-only export is refused with words that say why"
        fi
    done
    head -c 70000 /dev/urandom >"$WORK/in"
    if nfs krb5p put "$WORK/in" "$SERVER:/only-krb5p" && nfs krb5p cat "$SERVER:/only-krb5p" &&
        cmp -s "$WORK/in" "$WORK/out" && nfs krb5p rm "$SERVER:/only-krb5p"; then
        ok "krb5p on a krb5p-only export: put + cat + rm"
    else
        not_ok "krb5p on a krb5p-only export: put + cat + rm"
    fi
    # An expired ticket: kinit for 5 s, wait, use that ccache only.
    local kinit
    kinit=$(command -v kinit)
    if [ -z "$kinit" ]; then
        tap_skip "expired ticket" "kinit not found (apt-get install krb5-user)"
        return
    fi
    if ! KRB5CCNAME=FILE:$WORK/cc "$kinit" -l 5s -k -t "$GK5_REALM_DIR/client.keytab" \
        gk5-client@GK5.TEST >"$WORK/err" 2>&1; then
        not_ok "kinit -l 5s"
        return
    fi
    sleep 6
    if timeout -k 5 60 "$GK5" nfs4 ls "$SERVER:/" --sec krb5p --target nfs@localhost \
        --ccache "FILE:$WORK/cc" >"$WORK/out" 2>"$WORK/err"; then
        not_ok "an expired ticket is refused"
    elif grep -qi 'expired' "$WORK/err"; then
        ok "an expired ticket: $(head -n 1 "$WORK/err" | cut -c1-160)"
    else
        not_ok "an expired ticket is refused with words that say it expired"
    fi
}

case $MODE in
basic) basic_cells ;;
vfs) vfs_cells ;;
wrongsec) wrongsec_cells ;;
*) echo "nfs4_cli.sh: unknown mode $MODE" >&2; exit 2 ;;
esac
tap_done
