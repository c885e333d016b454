#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# A throwaway MIT krb5 realm with a real KDC on 127.0.0.1, for the interop
# tests (the same realm that src/bridge/mit_realm.c builds in C for
# `gk5 demo`; keep the two in step).
#
#   kdc.sh start DIR        make the realm in DIR (created if missing) and
#                           start krb5kdc; prints the realm, port and PID
#   kdc.sh stop DIR         stop exactly the KDC whose PID DIR/kdc.pid holds
#   kdc.sh run [--tap] -- CMD ...
#                           make a realm in a new temporary folder, run CMD
#                           with GK5_REALM_DIR and KRB5_CONFIG set, then stop
#                           the KDC and remove the folder on every exit path;
#                           when the MIT KDC programs are absent, say SKIP
#                           and why: exit 77 (the "skipped" status of meson
#                           and automake), or with --tap a TAP skip plan
#
# DIR holds krb5.conf and kdc.conf (reached through KRB5_CONFIG and
# KRB5_KDC_PROFILE, so nothing in /etc is read or written), the database,
# client.keytab for gk5-client@GK5.TEST and service.keytab for
# gk5/localhost@GK5.TEST.  For the real RPCSEC_GSS servers of tests/peers
# it also holds nfs.keytab for nfs/localhost@GK5.TEST (NFS-Ganesha's
# acceptor), the principal kadmin/localhost@GK5.TEST (the target kadmind
# clients name; kadmind takes its keys from the database) and kadm5.acl,
# empty: nobody has an administrative privilege.  Every enctype is in
# supported_enctypes (the KDC issues a session key of a type only if the
# service has a long-term key of it) and allow_rc4 / allow_des3 are on
# (Debian's 1.20.1-2+deb12u5 refuses such session keys otherwise): the rc4
# and des3 cases need them, and every other context asks for exactly one
# enctype.
#
# GK5_KDC_ENCTYPES (optional): the KDC's supported_enctypes instead of
# every enctype -- the keys of every principal are made of these types
# only, so the KDC cannot issue a session key of any other (a realm
# without aes-sha2, for `gk5 interop`'s test).  krb5.conf is unchanged:
# the client still asks for the others.
#
# krb5kdc sets SO_REUSEPORT, so a second KDC of the same user binds the same
# port without an error and the two would share the requests.  The port is
# therefore picked among ports nothing uses, and after start-up the sockets
# on it are counted; if another process holds it too, we retry elsewhere.
set -u

REALM=GK5.TEST
CLIENT=gk5-client
SERVICE=gk5/localhost
NFS_SERVICE=nfs/localhost
KADMIN_SERVICE=kadmin/localhost
ENCTYPES="aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 aes256-cts-hmac-sha384-192 aes128-cts-hmac-sha256-128 camellia256-cts-cmac camellia128-cts-cmac des3-cbc-sha1 arcfour-hmac"
SKIP_STATUS=77

die() {
    echo "kdc.sh: $*" >&2
    exit 1
}

# The MIT programs live in sbin, which is not on every user's PATH.
find_tool() {
    local name=$1 d
    for d in ${PATH//:/ } /usr/sbin /usr/local/sbin /sbin; do
        if [ -x "$d/$name" ]; then
            echo "$d/$name"
            return 0
        fi
    done
    return 1
}

find_tools() {
    KRB5KDC=$(find_tool krb5kdc) || return 1
    KDB5_UTIL=$(find_tool kdb5_util) || return 1
    KADMIN_LOCAL=$(find_tool kadmin.local) || return 1
}

# Number of sockets bound to local port $1 (TCP: listening only).
port_users() {
    local port_hex
    port_hex=$(printf '%04X' "$1")
    cat /proc/net/udp /proc/net/udp6 /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p="$port_hex" '
            NR > 0 && $2 ~ (":" p "$") && ($4 == "07" || $4 == "0A") { n++ }
            END { print n + 0 }'
}

random_port() {
    # Below the default ephemeral range (32768-60999), so that no client
    # socket is handed the port while the KDC starts.
    echo $((20000 + (RANDOM * 32768 + RANDOM) % 12768))
}

write_config() {
    local dir=$1 port=$2 e supported=""
    for e in ${GK5_KDC_ENCTYPES:-$ENCTYPES}; do
        supported="$supported $e:normal"
    done
    cat >"$dir/krb5.conf" <<EOF
# Throwaway realm made by gk5's tests/interop/kdc.sh
[libdefaults]
    default_realm = $REALM
    dns_lookup_kdc = false
    dns_lookup_realm = false
    dns_canonicalize_hostname = false
    rdns = false
    allow_rc4 = true
    allow_des3 = true
    permitted_enctypes = $ENCTYPES
    default_tkt_enctypes = $ENCTYPES
    default_tgs_enctypes = $ENCTYPES
    default_ccache_name = MEMORY:gk5-default

[realms]
    $REALM = {
        kdc = 127.0.0.1:$port
    }

[logging]
    default = FILE:$dir/krb5.log
EOF
    cat >"$dir/kdc.conf" <<EOF
# Throwaway realm made by gk5's tests/interop/kdc.sh
[kdcdefaults]
    kdc_listen = 127.0.0.1:$port
    kdc_tcp_listen = 127.0.0.1:$port

[realms]
    $REALM = {
        database_name = $dir/principal
        key_stash_file = $dir/stash
        acl_file = $dir/kadm5.acl
        kdc_listen = 127.0.0.1:$port
        kdc_tcp_listen = 127.0.0.1:$port
        master_key_type = aes256-cts-hmac-sha1-96
        supported_enctypes =$supported
        max_life = 1h
    }

[logging]
    kdc = FILE:$dir/kdc.log
    admin_server = FILE:$dir/kadmin.log
    default = FILE:$dir/krb5.log
EOF
}

# The database and principals do not depend on the port: made once.
make_database() {
    local dir=$1 pw
    pw=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n') || return 1
    # The master password goes through a pipe, not the command line.
    # Every tool gets the realm's profiles AND explicit database and stash
    # paths: a slip in the environment must never reach /var/lib/krb5kdc.
    printf '%s\n%s\n' "$pw" "$pw" |
        KRB5_CONFIG="$dir/krb5.conf" KRB5_KDC_PROFILE="$dir/kdc.conf" \
            "$KDB5_UTIL" -r "$REALM" -d "$dir/principal" -sf "$dir/stash" \
            create -s >>"$dir/tools.log" 2>&1 || return 1
    local q
    for q in "addprinc -randkey $CLIENT@$REALM" \
        "addprinc -randkey $SERVICE@$REALM" \
        "addprinc -randkey $NFS_SERVICE@$REALM" \
        "addprinc -randkey $KADMIN_SERVICE@$REALM" \
        "ktadd -k $dir/client.keytab -norandkey $CLIENT@$REALM" \
        "ktadd -k $dir/service.keytab -norandkey $SERVICE@$REALM" \
        "ktadd -k $dir/nfs.keytab -norandkey $NFS_SERVICE@$REALM"; do
        KRB5_CONFIG="$dir/krb5.conf" KRB5_KDC_PROFILE="$dir/kdc.conf" \
            "$KADMIN_LOCAL" -r "$REALM" -d "$dir/principal" -q "$q" \
            >>"$dir/tools.log" 2>&1 || return 1
    done
    : >"$dir/kadm5.acl" || return 1
    [ -s "$dir/client.keytab" ] && [ -s "$dir/service.keytab" ] &&
        [ -s "$dir/nfs.keytab" ]
}

# Is process $1 running?  A zombie (exited, not yet reaped by this shell)
# answers kill -0 but is not.
alive() {
    kill -0 "$1" 2>/dev/null &&
        [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Start krb5kdc on $2; 0 when it serves the port alone, 1 to retry.
start_kdc_on() {
    local dir=$1 port=$2 pid i
    rm -f "$dir/kdc.pid"
    write_config "$dir" "$port"
    KRB5_CONFIG="$dir/krb5.conf" KRB5_KDC_PROFILE="$dir/kdc.conf" \
        "$KRB5KDC" -n -r "$REALM" -d "$dir/principal" -P "$dir/kdc.pid" \
        </dev/null >>"$dir/kdc.out" 2>&1 &
    pid=$!
    # krb5kdc writes its PID file once its sockets are set up.
    for ((i = 0; i < 1000; i++)); do
        if [ -s "$dir/kdc.pid" ]; then
            break
        fi
        if ! alive "$pid"; then
            wait "$pid" 2>/dev/null
            return 1
        fi
        sleep 0.01
    done
    if [ ! -s "$dir/kdc.pid" ]; then
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        die "krb5kdc did not start in 10 s (see $dir/kdc.log)"
    fi
    echo "$pid" >"$dir/kdc.pid"
    # One UDP socket and one listening TCP socket: ours, and nobody else's.
    if [ "$(port_users "$port")" != 2 ]; then
        stop_pid "$dir" "$pid"
        return 1
    fi
    echo "$port" >"$dir/kdc.port"
    return 0
}

cmd_start() {
    local dir=$1 port try
    find_tools || die "MIT krb5 KDC programs not found (apt-get install krb5-kdc krb5-admin-server)"
    mkdir -p "$dir" || die "cannot create $dir"
    dir=$(cd "$dir" && pwd) || die "cannot enter $dir"
    if [ -e "$dir/kdc.pid" ]; then
        die "$dir already holds a realm (kdc.pid exists)"
    fi
    # kdc.conf must exist for kdb5_util and kadmin.local: any port will do.
    write_config "$dir" 0
    make_database "$dir" || die "creating the realm failed: $(tail -5 "$dir/tools.log")"
    for ((try = 0; try < 20; try++)); do
        # GK5_KDC_PORT: the first port to try (for debugging).
        if [ $try -eq 0 ] && [ -n "${GK5_KDC_PORT-}" ]; then
            port=$GK5_KDC_PORT
        else
            port=$(random_port)
        fi
        if [ "$(port_users "$port")" != 0 ]; then
            continue
        fi
        if start_kdc_on "$dir" "$port"; then
            echo "kdc.sh: realm $REALM, krb5kdc pid $(cat "$dir/kdc.pid") on 127.0.0.1:$port, $dir"
            return 0
        fi
    done
    die "no free port for krb5kdc after 20 tries (see $dir/kdc.log)"
}

# Stop process $2 if it is the krb5kdc that writes $1/kdc.pid.
stop_pid() {
    local dir=$1 pid=$2 i
    case $pid in
        '' | *[!0-9]*) return 1 ;;
    esac
    # Never signal a recycled PID: the command line must be ours.
    if ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
        grep -qF -- "-P $dir/kdc.pid"; then
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 500; i++)); do
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

cmd_stop() {
    local dir=$1
    [ -d "$dir" ] || die "no such directory: $dir"
    dir=$(cd "$dir" && pwd) || die "cannot enter $dir"
    [ -s "$dir/kdc.pid" ] || return 0
    stop_pid "$dir" "$(cat "$dir/kdc.pid")"
    rm -f "$dir/kdc.pid"
}

RUN_DIR=""
run_cleanup() {
    if [ -n "$RUN_DIR" ]; then
        cmd_stop "$RUN_DIR"
        rm -rf -- "$RUN_DIR"
        RUN_DIR=""
    fi
}

cmd_run() {
    local rc
    if ! find_tools; then
        local why="the MIT krb5 KDC (krb5kdc, kdb5_util, kadmin.local) is not installed: apt-get install krb5-kdc krb5-admin-server"
        if [ "$RUN_TAP" = 1 ]; then
            echo "1..0 # SKIP $why"
            exit 0
        fi
        echo "SKIP: $why"
        exit $SKIP_STATUS
    fi
    RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gk5-realm.XXXXXX") || die "mktemp failed"
    trap run_cleanup EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cmd_start "$RUN_DIR" >&2 || exit 1
    GK5_REALM_DIR=$RUN_DIR KRB5_CONFIG=$RUN_DIR/krb5.conf "$@"
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne $SKIP_STATUS ]; then
        echo "kdc.sh: '$1' exited with status $rc; KDC log:" >&2
        tail -n 8 "$RUN_DIR/kdc.log" >&2
    fi
    exit $rc
}

case ${1-} in
    start)
        [ $# -eq 2 ] || die "usage: kdc.sh start DIR"
        cmd_start "$2"
        ;;
    stop)
        [ $# -eq 2 ] || die "usage: kdc.sh stop DIR"
        cmd_stop "$2"
        ;;
    run)
        shift
        RUN_TAP=0
        if [ "${1-}" = "--tap" ]; then
            RUN_TAP=1
            shift
        fi
        [ "${1-}" = "--" ] && shift
        [ $# -ge 1 ] || die "usage: kdc.sh run [--tap] -- COMMAND [ARGS...]"
        cmd_run "$@"
        ;;
    *)
        echo "usage: kdc.sh start DIR | stop DIR | run [--tap] -- COMMAND [ARGS...]" >&2
        exit 2
        ;;
esac
