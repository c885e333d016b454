#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The RPCSEC_GSS matrix (meson suite 'rpc'): TAP, one line per cell.
#
#   gk5 realm run --tap -- rpc_matrix.sh GK5 TIRPC_SERVER TIRPC_CLIENT MANY_CONTEXTS
#
# Run inside the throwaway realm of `gk5 realm run` (GK5_REALM_DIR,
# KRB5_CONFIG): gk5-client@GK5.TEST in client.keytab, gk5/localhost in
# service.keytab, every enctype in supported_enctypes, allow_rc4 on.
#
# gk5's server accepts contexts with gk5's own acceptor unless told
# otherwise (`gk5 rpc serve` without --establish: its listening line says
# "establish native"); two more gk5 servers, started with --establish
# native and --establish mit, serve the cells that name them.
#
# Pairs, for sys, krb5, krb5i and krb5p:
#   gk5 client     -> gk5 server      ping, echo 1 KiB and 1 MiB (and 4 MiB
#                                     for krb5i/krb5p), sink and source
#                                     1 MiB, WHOAMI names the principal
#   gk5 client     -> libtirpc server ping, echo 1 KiB and 128 KiB
#   libtirpc client-> gk5 server      ping, echo 1 KiB and 128 KiB, WHOAMI
#   libtirpc client-> libtirpc server the same (proves the peers themselves)
#   libtirpc client-> gk5 server --establish native: ping, echo, WHOAMI for
#                                     krb5, krb5i, krb5p; --establish mit:
#                                     the same for krb5p, for comparison,
#                                     and gk5's client to it
# then every enctype the KDC issues (gk5's client with --enctype against
# both servers; libtirpc's client with a KRB5_CONFIG of ours in front of the
# realm's, and with no override: which one its default negotiates), an
# rc4-hmac session key (refused with RFC 8429's words, the server going on
# serving), and concurrency: one AUTH on 8 threads and 64 contexts at once.
#
# libtirpc's client marshals krb5i/krb5p bodies into its 256 KiB record
# buffer (docs/design.md, "libtirpc"), so its large cells stop at 128 KiB;
# gk5's go to 4 MiB.
#
# Every server listens on 127.0.0.1 port 0 (it prints the port it got), is
# recorded by PID, and is stopped by that PID on every exit path.
#
# GK5_RPC_CELLS=threads runs only the servers and the concurrency cells
# (the ThreadSanitizer build runs that: test 'rpc-threads').
#
# "-" for TIRPC_SERVER and TIRPC_CLIENT: a gk5 built without MIT krb5
# (-Dmit=disabled), where libtirpc's RPCSEC_GSS programs (MIT's GSS-API) are
# not built.  Their cells and the --establish mit server are left out, and
# `gk5 rpc serve --establish mit` must be refused in words instead; gk5's
# own client and servers run every cell of theirs.
set -u

GK5=${1:?usage: rpc_matrix.sh GK5 TIRPC_SERVER TIRPC_CLIENT MANY_CONTEXTS}
TIRPC_SERVER=${2:?}
TIRPC_CLIENT=${3:?}
MANY_CONTEXTS=${4:?} # '-' without libtirpc: its cells are left out
MIT=1
if [ "$TIRPC_SERVER" = - ] || [ "$TIRPC_CLIENT" = - ]; then
    MIT=0
fi
DIR=${GK5_REALM_DIR:?run through gk5 realm run --tap}
: "${KRB5_CONFIG:?run through gk5 realm run --tap}"

CLIENT_KT=$DIR/client.keytab
SERVICE_KT=$DIR/service.keytab
PRINCIPAL=gk5-client@GK5.TEST
TARGET=gk5@localhost
PROG=0x20000099
SECS="sys krb5 krb5i krb5p"
ENCTYPES="aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 aes256-cts-hmac-sha384-192 aes128-cts-hmac-sha256-128 camellia256-cts-cmac camellia128-cts-cmac"
# Per command; a cell that hangs fails instead of stalling the suite.
CELL_TIMEOUT=${GK5_RPC_CELL_TIMEOUT:-90}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-rpc-matrix.XXXXXX") || exit 1

# libtirpc's own client and server are peers, not gk5: in a sanitizer
# build they run without LeakSanitizer, whose reports there are libtirpc's
# and MIT's (rpc_gss_seccreate's failure path, svc_auth_gss) -- gk5's own
# programs keep it.
peer_wrapper() { # NAME PROGRAM: a script in WORK that runs PROGRAM so
    printf '#!/bin/sh\nASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" exec %q "$@"\n' \
        "$2" >"$WORK/$1"
    chmod +x "$WORK/$1"
    echo "$WORK/$1"
}
if [ $MIT = 1 ]; then
    TIRPC_SERVER=$(peer_wrapper tirpc_server "$TIRPC_SERVER")
    TIRPC_CLIENT=$(peer_wrapper tirpc_client "$TIRPC_CLIENT")
fi
SERVER_PIDS=()
N=0
FAILED=0

# Is process $1 running (a zombie is not)?
alive() {
    kill -0 "$1" 2>/dev/null &&
        [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Stop server $1 (a PID this script started) with SIGTERM, then KILL after
# 5 s; its exit status in STOP_RC (137 when it had to be killed).
stop_pid() {
    local pid=$1 i
    STOP_RC=0
    [ -n "$pid" ] || return 0
    if alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null
        for ((i = 0; i < 500; i++)); do
            alive "$pid" || break
            sleep 0.01
        done
        if alive "$pid"; then
            kill -KILL "$pid" 2>/dev/null
        fi
    fi
    wait "$pid" 2>/dev/null
    STOP_RC=$?
}

cleanup() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        stop_pid "$pid"
    done
    SERVER_PIDS=()
    rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- TAP ----

# meson prints a TAP test's stderr, not its stdout, when it fails: a
# failed cell and its diagnostics go to both, so that the CI log says why.
FAILING=0

diag() {
    if [ $FAILING = 1 ]; then
        sed 's/^/# /' | tee /dev/stderr
    else
        sed 's/^/# /'
    fi
}

note() {
    echo "# $*"
    [ $FAILING = 0 ] || echo "# $*" >&2
}

ok() {
    N=$((N + 1))
    FAILING=0
    echo "ok $N - $1"
}

not_ok() {
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    FAILING=1
    echo "not ok $N - $1"
    echo "not ok $N - $1" >&2
}

skip() {
    N=$((N + 1))
    FAILING=0
    echo "ok $N - $1 # SKIP $2"
}

# cell DESC [--fail] [--grep RE] [--skip77] -- CMD ARGS...
#   CMD is a program, or one of the cmd_* functions below, which build
#   the command line in CMD (so that timeout(1) can run it).
#   ok when CMD exits 0 (with --fail: exits non-zero, and not by a signal
#   or the timeout) and, with --grep, its output matches the extended
#   regular expression RE.  --skip77: exit 77 is a SKIP, its output the
#   reason.  CMD's output is in $OUT afterwards.
cell() {
    local desc=$1 want_fail=0 re="" skip77=0 rc log
    shift
    while [ $# -gt 0 ]; do
        case $1 in
            --fail) want_fail=1 ;;
            --grep) re=$2; shift ;;
            --skip77) skip77=1 ;;
            --) shift; break ;;
        esac
        shift
    done
    log=$WORK/cell-$((N + 1)).log
    if [ "$(type -t "$1")" = function ]; then
        "$@"
    else
        CMD=("$@")
    fi
    timeout -k 5 "$CELL_TIMEOUT" "${CMD[@]}" >"$log" 2>&1 </dev/null
    rc=$?
    OUT=$(cat "$log")
    if [ $skip77 = 1 ] && [ $rc = 77 ]; then
        skip "$desc" "$(grep -m1 SKIP "$log" | sed 's/.*SKIP: *//')"
        return 0
    fi
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        not_ok "$desc"
        note "timed out after $CELL_TIMEOUT s: ${CMD[*]}"
        tail -n 8 "$log" | diag
        return 1
    fi
    if [ $want_fail = 1 ]; then
        if [ $rc = 0 ] || [ $rc -gt 128 ]; then
            not_ok "$desc"
            note "expected a refusal (exit 1), got exit $rc: ${CMD[*]}"
            tail -n 8 "$log" | diag
            return 1
        fi
    elif [ $rc != 0 ]; then
        not_ok "$desc"
        note "exit $rc: ${CMD[*]}"
        tail -n 12 "$log" | diag
        return 1
    fi
    if [ -n "$re" ] && ! grep -Eq -- "$re" "$log"; then
        not_ok "$desc"
        note "output does not match /$re/: ${CMD[*]}"
        tail -n 8 "$log" | diag
        return 1
    fi
    ok "$desc"
    # The result line, for whoever reads the log (calls/s, enctype, words).
    grep -E 'calls/s|refus|RFC 8429|WHOAMI|contexts|ms|unsupported' "$log" | tail -n 2 | diag
    return 0
}

# ---- servers ----

# start_server NAME CMD ARGS...: start CMD in the background, wait for its
# "listening on 127.0.0.1:PORT" line; PORT and PID set, or return 1.
start_server() {
    local name=$1 i
    shift
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null &
    PID=$!
    SERVER_PIDS+=("$PID")
    PORT=""
    for ((i = 0; i < 1000; i++)); do
        PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' \
            "$WORK/$name.out" | head -n 1)
        [ -n "$PORT" ] && return 0
        alive "$PID" || break
        sleep 0.01
    done
    return 1
}

# server_cell NAME DESC CMD...: start a server as a cell of its own.
server_cell() {
    local name=$1 desc=$2
    shift 2
    if start_server "$name" "$@"; then
        ok "$desc (pid $PID, 127.0.0.1:$PORT)"
        return 0
    fi
    not_ok "$desc"
    note "did not print its port: $*"
    tail -n 8 "$WORK/$name.out" "$WORK/$name.err" 2>/dev/null | diag
    return 1
}

# stop_cell PID DESC: SIGTERM must end the server with status 0.
stop_cell() {
    local pid=$1 desc=$2 name=$3
    if ! alive "$pid"; then
        wait "$pid" 2>/dev/null
        not_ok "$desc"
        note "it had already exited (status $?)"
        tail -n 8 "$WORK/$name.err" | diag
        return 1
    fi
    stop_pid "$pid"
    if [ "$STOP_RC" = 0 ]; then
        ok "$desc"
    else
        not_ok "$desc"
        note "exit status $STOP_RC after SIGTERM"
        tail -n 8 "$WORK/$name.err" | diag
    fi
}

# A KRB5_CONFIG in front of the realm's that makes MIT's initiator ask for
# one enctype only (TGT and service ticket: MIT wants the TGT's session
# key among default_tgs_enctypes too).
enctype_profile() {
    local e=$1 f=$WORK/krb5-$1.conf
    printf '[libdefaults]\n    default_tkt_enctypes = %s\n    default_tgs_enctypes = %s\n' \
        "$e" "$e" >"$f"
    echo "$f:$KRB5_CONFIG"
}

cmd_gk5() { # cmd_gk5 ping|echo PORT SEC ARGS...: gk5 rpc SUBCMD
    local sub=$1 port=$2 sec=$3
    shift 3
    CMD=("$GK5" rpc "$sub" "127.0.0.1:$port" --program $PROG --version 1
        --sec "$sec")
    if [ "$sec" != sys ]; then
        CMD+=(--target $TARGET --client-keytab "$CLIENT_KT"
            --client-principal $PRINCIPAL)
    fi
    CMD+=("$@")
}

cmd_tirpc() { # cmd_tirpc PORT SEC ARGS...: libtirpc's client
    local port=$1 sec=$2
    shift 2
    CMD=("$TIRPC_CLIENT" "127.0.0.1:$port" --sec "$sec" --target $TARGET
        --client-keytab "$CLIENT_KT" --client-principal $PRINCIPAL "$@")
}

whoami_re() {
    if [ "$1" = sys ]; then
        echo "WHOAMI: AUTH_SYS"
    else
        echo "WHOAMI: RPCSEC_GSS $1 $PRINCIPAL\$"
    fi
}

# ---- the matrix ----

note "realm $DIR; gk5 $GK5"
T_START=$(date +%s)

server_cell gk5srv "gk5 rpc serve starts" \
    "$GK5" rpc serve --listen 127.0.0.1:0 --keytab "$SERVICE_KT" \
    --principal $TARGET --sec sys,krb5,krb5i,krb5p
GK5_PID=$PID GK5_PORT=$PORT
if [ -n "$GK5_PORT" ]; then
    if grep -q 'establish native)' "$WORK/gk5srv.out"; then
        ok "gk5 rpc serve accepts with gk5's own acceptor by default"
    else
        not_ok "gk5 rpc serve accepts with gk5's own acceptor by default"
        diag <"$WORK/gk5srv.out"
    fi
fi
TIRPC_PORT=""
if [ $MIT = 1 ]; then
    server_cell tirpcsrv "tirpc_server (libtirpc svc_auth_gss) starts" \
        "$TIRPC_SERVER" --port 0 --keytab "$SERVICE_KT" --principal $TARGET
    TIRPC_PID=$PID TIRPC_PORT=$PORT
fi
NATIVE_PORT="" MIT_PORT=""
if [ "${GK5_RPC_CELLS:-all}" = all ]; then
    server_cell gk5native "gk5 rpc serve --establish native starts" \
        "$GK5" rpc serve --listen 127.0.0.1:0 --keytab "$SERVICE_KT" \
        --principal $TARGET --sec krb5,krb5i,krb5p --establish native
    NATIVE_PID=$PID NATIVE_PORT=$PORT
    if [ $MIT = 1 ]; then
        server_cell gk5mit "gk5 rpc serve --establish mit starts" \
            "$GK5" rpc serve --listen 127.0.0.1:0 --keytab "$SERVICE_KT" \
            --principal $TARGET --sec krb5,krb5i,krb5p --establish mit
        MIT_PID=$PID MIT_PORT=$PORT
    else
        cell "gk5 rpc serve --establish mit: refused, built without MIT krb5" \
            --fail --grep 'establish mit: this gk5 was built without MIT krb5' -- \
            "$GK5" rpc serve --listen 127.0.0.1:0 --keytab "$SERVICE_KT" \
            --principal $TARGET --establish mit
        cell "gk5 rpc ping --establish mit: refused, built without MIT krb5" \
            --fail --grep 'establish mit: this gk5 was built without MIT krb5' -- \
            cmd_gk5 ping "$GK5_PORT" krb5 --establish mit
    fi
    cell "gk5 rpc serve --establish other: refused, naming the option" \
        --fail --grep "establish: 'other' is not native or mit" -- \
        "$GK5" rpc serve --listen 127.0.0.1:0 --establish other
fi

CELLS=${GK5_RPC_CELLS:-all}
if [ "$CELLS" = all ]; then

if [ -n "$GK5_PORT" ]; then
    for s in $SECS; do
        p="gk5 client -> gk5 server, $s"
        cell "$p: ping" -- cmd_gk5 ping "$GK5_PORT" "$s"
        cell "$p: echo 1 KiB x 50" -- cmd_gk5 echo "$GK5_PORT" "$s" --size 1024 --calls 50
        cell "$p: echo 1 MiB x 4" -- cmd_gk5 echo "$GK5_PORT" "$s" --size 1m --calls 4
        if [ "$s" = krb5i ] || [ "$s" = krb5p ]; then
            cell "$p: echo 4 MiB x 2" -- cmd_gk5 echo "$GK5_PORT" "$s" --size 4m --calls 2
        fi
        cell "$p: sink 1 MiB x 4" -- cmd_gk5 echo "$GK5_PORT" "$s" --proc sink --size 1m --calls 4
        cell "$p: source 1 MiB x 4" -- cmd_gk5 echo "$GK5_PORT" "$s" --proc source --size 1m --calls 4
        # gk5's own transport, calls in flight on one connection (the
        # server runs them on its workers and may answer out of order).
        cell "$p: gk5 transport, 16 in flight: echo 1 KiB x 400" --grep '16 in flight' -- \
            cmd_gk5 echo "$GK5_PORT" "$s" --size 1024 --calls 400 --inflight 16
        cell "$p: gk5 transport, 4 in flight: echo 1 MiB x 8" -- \
            cmd_gk5 echo "$GK5_PORT" "$s" --size 1m --calls 8 --inflight 4
        cell "$p: gk5 transport, 8 in flight: source 64 KiB x 64" -- \
            cmd_gk5 echo "$GK5_PORT" "$s" --proc source --size 64k --calls 64 --inflight 8
        cell "$p: gk5 transport: ping" --grep 'gk5 transport' -- \
            cmd_gk5 ping "$GK5_PORT" "$s" --transport gk5
        cell "$p: gk5 transport, 4 threads on one connection: echo 4 KiB x 100 each" -- \
            cmd_gk5 echo "$GK5_PORT" "$s" --size 4k --calls 100 --threads 4 --transport gk5
        cell "$p: gk5 transport, 4 threads: sink 256 KiB x 8 each" -- \
            cmd_gk5 echo "$GK5_PORT" "$s" --proc sink --size 256k --calls 8 --threads 4 --transport gk5
        if [ "$s" != sys ] && [ "$MANY_CONTEXTS" != - ]; then
            # gk5 rpc echo has no WHOAMI: one gk5 AUTH of this service
            # through test_many_contexts (ECHO, then WHOAMI compared).
            cell "$p: WHOAMI names $PRINCIPAL" --grep '1 of 1 contexts' -- \
                "$MANY_CONTEXTS" "127.0.0.1:$GK5_PORT" --client-keytab "$CLIENT_KT" \
                --principal $PRINCIPAL --contexts 1 --threads 1 --rounds 2 --service "$s"
        fi
    done
fi

# libtirpc with itself first: it proves the peers before gk5 meets them.
for pair in "libtirpc:$TIRPC_PORT" "gk5 (native by default):$GK5_PORT"; do
    name=${pair%%:*} port=${pair#*:}
    [ -n "$port" ] && [ $MIT = 1 ] || continue
    for s in $SECS; do
        p="libtirpc client -> $name server, $s"
        cell "$p: ping" -- cmd_tirpc "$port" "$s" --proc null --calls 3
        cell "$p: echo 1 KiB x 50" -- cmd_tirpc "$port" "$s" --size 1024 --calls 50
        cell "$p: echo 128 KiB x 8" -- cmd_tirpc "$port" "$s" --size 128k --calls 8
        cell "$p: WHOAMI" --grep "$(whoami_re "$s")" -- cmd_tirpc "$port" "$s" --proc whoami
    done
    p="libtirpc client -> $name server"
    cell "$p: krb5i echo 1 MiB is beyond libtirpc's client (256 KiB record buffer)" --skip77 -- \
        cmd_tirpc "$port" krb5i --size 1m --calls 1
done

# libtirpc's client (MIT's initiator) against gk5's acceptor, named on the
# command line; then MIT's acceptor in gk5's server, for comparison.
if [ -n "$NATIVE_PORT" ] && [ $MIT = 0 ]; then
    cell "gk5 client --establish native -> gk5 server --establish native, krb5p: echo 1 KiB x 50" -- \
        cmd_gk5 echo "$NATIVE_PORT" krb5p --size 1024 --calls 50 --establish native
fi
if [ -n "$NATIVE_PORT" ] && [ $MIT = 1 ]; then
    for s in krb5 krb5i krb5p; do
        p="libtirpc client -> gk5 server --establish native, $s"
        cell "$p: ping" -- cmd_tirpc "$NATIVE_PORT" "$s" --proc null --calls 3
        cell "$p: echo 1 KiB x 50" -- cmd_tirpc "$NATIVE_PORT" "$s" --size 1024 --calls 50
        cell "$p: WHOAMI" --grep "$(whoami_re "$s")" -- cmd_tirpc "$NATIVE_PORT" "$s" --proc whoami
    done
fi
if [ -n "$MIT_PORT" ]; then
    p="libtirpc client -> gk5 server --establish mit, krb5p"
    cell "$p: echo 1 KiB x 50" -- cmd_tirpc "$MIT_PORT" krb5p --size 1024 --calls 50
    cell "$p: WHOAMI" --grep "$(whoami_re krb5p)" -- cmd_tirpc "$MIT_PORT" krb5p --proc whoami
    cell "gk5 client -> gk5 server --establish mit, krb5i: echo 1 MiB x 4" -- \
        cmd_gk5 echo "$MIT_PORT" krb5i --size 1m --calls 4
fi

if [ -n "$TIRPC_PORT" ]; then
    for s in $SECS; do
        p="gk5 client -> libtirpc server, $s"
        cell "$p: ping" -- cmd_gk5 ping "$TIRPC_PORT" "$s"
        cell "$p: echo 1 KiB x 50" -- cmd_gk5 echo "$TIRPC_PORT" "$s" --size 1024 --calls 50
        cell "$p: echo 128 KiB x 8" -- cmd_gk5 echo "$TIRPC_PORT" "$s" --size 128k --calls 8
        # gk5's own client: the context made on its own connection, which
        # is where libtirpc's svc_auth_gss keeps it.
        cell "$p: gk5 transport: ping" -- cmd_gk5 ping "$TIRPC_PORT" "$s" --transport gk5
        cell "$p: gk5 transport, 8 in flight: echo 1 KiB x 200" -- \
            cmd_gk5 echo "$TIRPC_PORT" "$s" --size 1024 --calls 200 --inflight 8
        cell "$p: gk5 transport, 2 in flight: echo 128 KiB x 8" -- \
            cmd_gk5 echo "$TIRPC_PORT" "$s" --size 128k --calls 8 --inflight 2
    done
fi

# libtirpc's client on a ccache that kinit filled (KRB5CCNAME, FILE:).
if [ -n "$GK5_PORT" ] && [ $MIT = 1 ]; then
    KINIT=$(command -v kinit)
    if [ -z "$KINIT" ]; then
        skip "libtirpc client -> gk5 server, krb5p, kinit -k into a FILE: ccache" \
            "kinit not found (apt-get install krb5-user)"
    elif KRB5CCNAME=FILE:$WORK/ccache "$KINIT" -k -t "$CLIENT_KT" $PRINCIPAL \
        >"$WORK/kinit.log" 2>&1; then
        cell "libtirpc client -> gk5 server, krb5p, kinit -k into a FILE: ccache: echo 4 KiB x 10" -- \
            "$TIRPC_CLIENT" "127.0.0.1:$GK5_PORT" --sec krb5p --target $TARGET \
            --ccache "FILE:$WORK/ccache" --size 4k --calls 10
    else
        not_ok "libtirpc client -> gk5 server, krb5p, kinit -k into a FILE: ccache"
        diag <"$WORK/kinit.log"
    fi
fi

# ---- enctypes ----

for e in $ENCTYPES; do
    for pair in "gk5:$GK5_PORT" "libtirpc:$TIRPC_PORT"; do
        name=${pair%%:*} port=${pair#*:}
        [ -n "$port" ] || continue
        cell "gk5 client -> $name server, krb5p, enctype $e: echo 4 KiB x 10" \
            --grep "enctype $e \\(" -- \
            cmd_gk5 echo "$port" krb5p --enctype "$e" --size 4k --calls 10
    done
    if [ -n "$GK5_PORT" ] && [ $MIT = 1 ]; then
        cell "libtirpc client -> gk5 server, krb5i, enctype $e (profile): echo 4 KiB x 10" \
            --grep "enctype $e \\(" -- \
            env KRB5_CONFIG="$(enctype_profile "$e")" \
            "$TIRPC_CLIENT" "127.0.0.1:$GK5_PORT" --sec krb5i --target $TARGET \
            --client-keytab "$CLIENT_KT" --size 4k --calls 10 --expect-enctype "$e"
    fi
done
if [ -n "$GK5_PORT" ] && [ $MIT = 1 ]; then
    if cell "libtirpc client -> gk5 server, krb5p, the realm's default enctype" \
        --grep 'enctype [a-z0-9-]+ \([0-9]+\)' -- \
        cmd_tirpc "$GK5_PORT" krb5p --size 4k --calls 10; then
        note "libtirpc's client (MIT defaults) negotiated:" \
            "$(grep -Eo 'enctype [a-z0-9-]+ \([0-9]+\)' <<<"$OUT" | head -n 1)"
    fi
fi

# ---- rc4-hmac: refused at INIT with RFC 8429's words ----

if [ -n "$GK5_PORT" ]; then
    for et in rc4-hmac 23; do
        cell "gk5 client -> gk5 server, krb5, --enctype $et: refused (RFC 8429)" \
            --fail --grep 'RFC 8429' -- cmd_gk5 ping "$GK5_PORT" krb5 --enctype "$et"
    done
    # MIT's initiator does make an rc4 context: gk5's server must refuse
    # it at RPCSEC_GSS_INIT itself.
    if [ $MIT = 1 ]; then
        cell "libtirpc client -> gk5 server, krb5i, rc4-hmac (profile): the server refuses the context" \
            --fail --grep 'not available or unsupported' -- env KRB5_CONFIG="$(enctype_profile arcfour-hmac)" \
            "$TIRPC_CLIENT" "127.0.0.1:$GK5_PORT" --sec krb5i --target $TARGET \
            --client-keytab "$CLIENT_KT" --proc null
    fi
    if grep -q 'RFC 8429' "$WORK/gk5srv.err" "$WORK/gk5srv.out"; then
        note "gk5 rpc serve said: $(grep -h 'RFC 8429' "$WORK/gk5srv.err" "$WORK/gk5srv.out" | tail -n 1)"
    fi
    if alive "$GK5_PID"; then
        cell "gk5 server still serves after the rc4 refusals: krb5p echo 1 KiB x 10" -- \
            cmd_gk5 echo "$GK5_PORT" krb5p --size 1024 --calls 10
    else
        not_ok "gk5 server still serves after the rc4 refusals"
        note "gk5 rpc serve (pid $GK5_PID) has exited"
        tail -n 8 "$WORK/gk5srv.err" | diag
    fi
fi
if [ -n "$TIRPC_PORT" ]; then
    cell "gk5 client -> libtirpc server, krb5, --enctype rc4-hmac: refused (RFC 8429)" \
        --fail --grep 'RFC 8429' -- cmd_gk5 ping "$TIRPC_PORT" krb5 --enctype rc4-hmac
fi

fi # CELLS = all

# ---- concurrency ----

# After a failed cell against gk5's server: what the server said (its log
# names every kind of call it refused or dropped, the first at once).
server_said() {
    note "gk5 rpc serve's log, its last lines:"
    tail -n 12 "$WORK/$1.err" | diag
}

if [ -n "$GK5_PORT" ]; then
    # --timeout: a dropped call (RFC 2203 5.3.3.1: below the window, the
    # server sends nothing) fails in 5 s instead of 25.
    cell "gk5 client -> gk5 server, krb5p: one AUTH, 8 threads x 10000 calls, every reply checked" \
        --grep '8 threads: 80000 calls' -- \
        cmd_gk5 echo "$GK5_PORT" krb5p --threads 8 --calls 10000 --size 1024 --timeout 5000 ||
        server_said gk5srv
    # gk5's own client: 8 threads on one connection and one context, and
    # one thread with 32 calls out; every reply checked against its call.
    cell "gk5 client (gk5 transport) -> gk5 server, krb5p: 8 threads on one connection x 2000 calls, every reply checked" \
        --grep '8 threads: 16000 calls' -- \
        cmd_gk5 echo "$GK5_PORT" krb5p --threads 8 --calls 2000 --size 1024 --timeout 5000 --transport gk5 ||
        server_said gk5srv
    cell "gk5 client (gk5 transport) -> gk5 server, krb5i: 32 calls in flight x 8000, every reply checked" \
        --grep '32 in flight.*8000 calls' -- \
        cmd_gk5 echo "$GK5_PORT" krb5i --inflight 32 --calls 8000 --size 512 --timeout 5000 ||
        server_said gk5srv
    if [ "$MANY_CONTEXTS" != - ]; then
        cell "gk5 client -> gk5 server: 64 AUTHs (64 contexts, krb5/krb5i/krb5p) on 8 connections at once" \
            --grep '64 of 64 contexts' -- \
            "$MANY_CONTEXTS" "127.0.0.1:$GK5_PORT" --client-keytab "$CLIENT_KT" \
            --principal $PRINCIPAL --contexts 64 --threads 8 --rounds 4
    fi
fi
# ---- shutdown ----

[ -n "$GK5_PORT" ] && stop_cell "$GK5_PID" "gk5 rpc serve exits 0 on SIGTERM" gk5srv
[ -n "$NATIVE_PORT" ] && stop_cell "$NATIVE_PID" "gk5 rpc serve --establish native exits 0 on SIGTERM" gk5native
[ -n "$MIT_PORT" ] && stop_cell "$MIT_PID" "gk5 rpc serve --establish mit exits 0 on SIGTERM" gk5mit
[ -n "$TIRPC_PORT" ] && stop_cell "$TIRPC_PID" "tirpc_server exits 0 on SIGTERM" tirpcsrv

note "$N cells, $FAILED failed, $(($(date +%s) - T_START)) s"
echo "1..$N"
[ $FAILED = 0 ]
