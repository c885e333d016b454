#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Hostile peers against `gk5 rpc serve`, TAP (meson test
# 'rpc-hostile', suite rpc):
#
#   gk5 realm run --tap -- hostile.sh [--defaults] GK5 TEST_HOSTILE [OPTIONS...]
#
# Run inside the throwaway realm of `gk5 realm run` (GK5_REALM_DIR,
# KRB5_CONFIG).  Starts two servers on 127.0.0.1 (port 0: each prints the
# port it got), recorded by PID and stopped by that PID on every exit path:
#   main  gk5 rpc serve with its default --sec (RPCSEC_GSS only), stderr
#         kept: test_hostile counts its log lines
#   sys   the same with --sec sys,krb5,krb5i,krb5p, for the peers that ask
#         AUTH_SYS SOURCE calls and never read the replies
# then runs test_hostile against both (OPTIONS are passed on, e.g. --only
# idle,garbage) and adds a cell per server: it exits 0 on SIGTERM.
#
# Limits: scaled down so the suite stays fast (64 connections, 16 per
# address, 8 MiB budgets, 2 s first-record and send deadlines, 5 s between
# records, a 1 s log interval, 2 worker threads whatever the CPU count, so
# that the RSS bound does not depend on it): about 20 s.  --defaults: the servers'
# defaults (nothing on their command lines; test_hostile is told them):
# 1,024 connections, 16 MiB / 256 MiB budgets, 10 s / 300 s / 30 s, a 10 s
# log interval: about 65 s (80 s against a server without the limits), for
# tools/test-all.sh's long part.
#
# A server without the limit options (an older gk5) is started without
# them; test_hostile still checks the limits above, so its cells fail
# where that server does not keep them.
set -u

DEFAULTS=0
if [ "${1:-}" = --defaults ]; then
    DEFAULTS=1
    shift
fi
GK5=${1:?usage: hostile.sh [--defaults] GK5 TEST_HOSTILE [OPTIONS...]}
TEST_HOSTILE=${2:?usage: hostile.sh [--defaults] GK5 TEST_HOSTILE [OPTIONS...]}
shift 2
DIR=${GK5_REALM_DIR:?run through gk5 realm run --tap}
: "${KRB5_CONFIG:?run through gk5 realm run --tap}"
TARGET=gk5@localhost
PRINCIPAL=gk5-client@GK5.TEST

if [ $DEFAULTS = 1 ]; then
    SERVER_LIMITS=()
    TEST_LIMITS=(--defaults --max-connections 1024 --max-per-address 64
        --unauth-budget 16777216 --reply-budget 268435456
        --first-record-timeout 10 --conn-idle-timeout 300 --send-timeout 30
        --log-interval 10)
    TEST_TIMEOUT=240
else
    SERVER_LIMITS=(--threads 2 --max-connections 64 --max-per-address 16
        --unauth-budget 8388608 --reply-budget 8388608
        --first-record-timeout 2 --conn-idle-timeout 5 --send-timeout 2
        --log-interval 1)
    TEST_LIMITS=("${SERVER_LIMITS[@]}")
    TEST_TIMEOUT=80
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-rpc-hostile.XXXXXX") || exit 1
SERVER_PIDS=()
N=0
FAILED=0

alive() {
    kill -0 "$1" 2>/dev/null &&
        [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Stop server $1 (a PID this script started): SIGTERM, KILL after 5 s;
# its exit status in STOP_RC.
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

ok() {
    N=$((N + 1))
    echo "ok $N - $1"
}

not_ok() {
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    echo "not ok $N - $1"
    echo "not ok $N - $1" >&2
}

note() {
    echo "# $*"
}

finish() {
    note "$N cells, $FAILED failed"
    echo "1..$N"
    [ $FAILED = 0 ]
    exit
}

# 1,024 connections and more, in the server and in test_hostile: raise
# the soft descriptor limit (never lower it).
want=4096
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=$want
[ "$hard" -lt $want ] && want=$hard
[ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt $want ] &&
    ulimit -n "$want" 2>/dev/null
note "descriptor limit $(ulimit -Sn)"

if [ ${#SERVER_LIMITS[@]} -gt 0 ] &&
    ! "$GK5" rpc serve --help 2>&1 | grep -q -- '--max-connections'; then
    note "gk5 rpc serve has no --max-connections: started with its built-in" \
        "limits; the cells check the configured ones (${SERVER_LIMITS[*]})"
    SERVER_LIMITS=()
fi

# start_server NAME ARGS...: PORT and PID set, or return 1.
start_server() {
    local name=$1 i
    shift
    "$GK5" rpc serve --listen 127.0.0.1:0 --keytab "$DIR/service.keytab" \
        --principal $TARGET "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" \
        </dev/null &
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

if ! start_server main "${SERVER_LIMITS[@]}"; then
    not_ok "gk5 rpc serve ${SERVER_LIMITS[*]} starts"
    tail -n 8 "$WORK/main.out" "$WORK/main.err" | sed 's/^/# /'
    finish
fi
MAIN_PID=$PID MAIN_PORT=$PORT
note "main server: pid $MAIN_PID, 127.0.0.1:$MAIN_PORT: $(head -n 1 "$WORK/main.out")"
if ! start_server sys --sec sys,krb5,krb5i,krb5p "${SERVER_LIMITS[@]}"; then
    not_ok "gk5 rpc serve --sec sys,krb5,krb5i,krb5p ${SERVER_LIMITS[*]} starts"
    tail -n 8 "$WORK/sys.out" "$WORK/sys.err" | sed 's/^/# /'
    finish
fi
SYS_PID=$PID SYS_PORT=$PORT
note "sys server: pid $SYS_PID, 127.0.0.1:$SYS_PORT: $(head -n 1 "$WORK/sys.out")"
[ -s "$WORK/sys.err" ] && note "sys server said: $(head -n 1 "$WORK/sys.err")"

timeout -k 5 $TEST_TIMEOUT "$TEST_HOSTILE" --port "$MAIN_PORT" --pid "$MAIN_PID" \
    --log "$WORK/main.err" --sys-port "$SYS_PORT" --sys-pid "$SYS_PID" \
    --client-keytab "$DIR/client.keytab" --principal $PRINCIPAL \
    --target $TARGET "${TEST_LIMITS[@]}" --no-plan "$@" </dev/null |
    tee "$WORK/test.out"
rc=${PIPESTATUS[0]}
counts=$(sed -n 's/^# cells \([0-9]*\) failed \([0-9]*\)$/\1 \2/p' "$WORK/test.out" | tail -n 1)
if [ -n "$counts" ]; then
    N=${counts% *}
    FAILED=${counts#* }
else
    N=$(grep -cE '^(not )?ok [0-9]+' "$WORK/test.out")
    FAILED=$(grep -cE '^not ok [0-9]+' "$WORK/test.out")
    not_ok "test_hostile ran to its end"
    note "exit status $rc$([ "$rc" = 124 ] && echo ": timed out after $TEST_TIMEOUT s")"
fi
if [ "$FAILED" != 0 ]; then
    # meson shows stderr of a failed TAP test: the failures and why.
    grep -E -A1 '^not ok' "$WORK/test.out" >&2
fi

for s in main:$MAIN_PID sys:$SYS_PID; do
    name=${s%%:*} pid=${s#*:}
    if ! alive "$pid"; then
        wait "$pid" 2>/dev/null
        not_ok "$name server exits 0 on SIGTERM"
        note "it had already exited (status $?)"
        tail -n 8 "$WORK/$name.err" | sed 's/^/# /'
        continue
    fi
    stop_pid "$pid"
    if [ "$STOP_RC" = 0 ]; then
        ok "$name server exits 0 on SIGTERM"
    else
        not_ok "$name server exits 0 on SIGTERM"
        note "exit status $STOP_RC"
        tail -n 8 "$WORK/$name.err" | sed 's/^/# /'
    fi
done
note "main server log: $(wc -l <"$WORK/main.err") lines; sys server log: $(wc -l <"$WORK/sys.err") lines"
finish
