# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# shellcheck shell=bash
# Shared by kadmind.sh and ganesha.sh (sourced, not run): finding the
# programs, picking a free loopback port, and starting and stopping exactly
# the daemon we started.  The same rules as `gk5 realm` (support/realm): no
# pkill, no name matching -- a PID is signalled only while its command line still
# names our own folder.

SKIP_STATUS=77

# The daemons live in sbin, which is not on every user's PATH.  $2, if
# given, names an environment variable that overrides the search with a
# path (GK5_KADMIND, GK5_GANESHA_NFSD: another build, or a missing one to
# see the SKIP).
find_tool() {
    local name=$1 d
    if [ -n "${2-}" ] && [ -n "${!2-}" ]; then
        [ -x "${!2}" ] || return 1
        echo "${!2}"
        return 0
    fi
    for d in ${PATH//:/ } /usr/sbin /usr/local/sbin /sbin; do
        if [ -x "$d/$name" ]; then
            echo "$d/$name"
            return 0
        fi
    done
    return 1
}

# Number of sockets bound to local port $1 (TCP: listening only).
port_users() {
    local port_hex
    port_hex=$(printf '%04X' "$1")
    cat /proc/net/udp /proc/net/udp6 /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p="$port_hex" '
            $2 ~ (":" p "$") && ($4 == "07" || $4 == "0A") { n++ }
            END { print n + 0 }'
}

# A port nothing is bound to, below the default ephemeral range
# (32768-60999) so that no client socket is handed it meanwhile.
free_port() {
    local port i
    for ((i = 0; i < 100; i++)); do
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 12768))
        if [ "$(port_users "$port")" = 0 ]; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

# Is process $1 running?  A zombie answers kill -0 but is not.
alive() {
    kill -0 "$1" 2>/dev/null &&
        [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Does process $1's command line contain the string $2?
cmdline_has() {
    tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline" | grep -qF -- "$2"
}

# Stop process $1 if its command line still contains $2 (never a recycled
# PID): SIGTERM, up to $3 seconds (default 5), then SIGKILL.
stop_pid() {
    local pid=$1 mark=$2 secs=${3:-5} i
    case $pid in
        '' | *[!0-9]*) return 1 ;;
    esac
    cmdline_has "$pid" "$mark" || return 0
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < secs * 100; i++)); do
        if ! alive "$pid"; then
            wait "$pid" 2>/dev/null
            return 0
        fi
        sleep 0.01
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# Wait up to $4 seconds until process $1 holds $3 sockets on port $2.
# 0 when it does; 1 when the process died or the count was not reached.
wait_sockets() {
    local pid=$1 port=$2 want=$3 secs=$4 i
    for ((i = 0; i < secs * 100; i++)); do
        alive "$pid" || return 1
        [ "$(port_users "$port")" -ge "$want" ] && return 0
        sleep 0.01
    done
    return 1
}

# The SKIP answer of a `run` wrapper: a TAP skip plan (exit 0) with --tap,
# else exit 77.
skip_run() {
    local tap=$1 why=$2
    if [ "$tap" = 1 ]; then
        echo "1..0 # SKIP $why"
        exit 0
    fi
    echo "SKIP: $why"
    exit $SKIP_STATUS
}

# The daemon scripts' common part.  Each defines die, cmd_start DIR and
# cmd_stop DIR, then calls peer_main with its name and its arguments.

RUN_DIR=""
run_cleanup() {
    if [ -n "$RUN_DIR" ]; then
        cmd_stop "$RUN_DIR"
        RUN_DIR=""
    fi
}

# run_daemon PORTVAR PORTFILE LOG LINES CMD...: start the daemon in the
# realm of gk5 realm run, run CMD with PORTVAR set to the port it wrote to
# DIR/PORTFILE, show the last LINES of DIR/LOG if CMD failed, stop the
# daemon on every exit path; exits with CMD's status.
run_daemon() {
    local var=$1 portfile=$2 log=$3 lines=$4 rc
    shift 4
    [ -n "${GK5_REALM_DIR-}" ] || die "run needs GK5_REALM_DIR (run it inside gk5 realm run)"
    trap run_cleanup EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    RUN_DIR=$GK5_REALM_DIR
    cmd_start "$RUN_DIR" >&2 || exit 1
    env "$var=$(cat "$RUN_DIR/$portfile")" "$@"
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne $SKIP_STATUS ]; then
        echo "$PEER_NAME: '$1' exited with status $rc; the daemon's log:" >&2
        tail -n "$lines" "$RUN_DIR/$log" >&2
    fi
    exit $rc
}

# peer_main NAME ARGS...: start DIR | stop DIR | run [--tap] -- CMD...
# (run calls the script's cmd_run TAP CMD...).
peer_main() {
    local tap=0
    PEER_NAME=$1
    shift
    case ${1-} in
    start)
        [ $# -eq 2 ] || die "usage: $PEER_NAME start DIR"
        cmd_start "$2"
        ;;
    stop)
        [ $# -eq 2 ] || die "usage: $PEER_NAME stop DIR"
        cmd_stop "$2"
        ;;
    run)
        shift
        if [ "${1-}" = "--tap" ]; then
            tap=1
            shift
        fi
        [ "${1-}" = "--" ] && shift
        [ $# -ge 1 ] || die "usage: $PEER_NAME run [--tap] -- COMMAND [ARGS...]"
        cmd_run "$tap" "$@"
        ;;
    *)
        echo "usage: $PEER_NAME start DIR | stop DIR | run [--tap] -- COMMAND [ARGS...]" >&2
        exit 2
        ;;
    esac
}
