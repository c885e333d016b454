#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# MIT kadmind (the RPCSEC_GSS server of program 2112, libgssrpc) on
# 127.0.0.1, in a realm made by `gk5 realm`.
#
#   kadmind.sh start DIR    start kadmind -nofork for the realm in DIR on a
#                           free port; DIR/kadmind.port, DIR/kadmind.pid
#   kadmind.sh stop DIR     stop exactly the kadmind whose PID DIR holds
#   kadmind.sh run [--tap] -- CMD ...
#                           in the realm $GK5_REALM_DIR (gk5 realm run sets
#                           it): start kadmind, run CMD with
#                           GK5_KADMIND_PORT set, stop kadmind on every exit
#                           path; SKIP (77, or a TAP skip plan) when kadmind
#                           is not installed (GK5_KADMIND: its path)
#
# kadmind reads the realm's kdc.conf through KRB5_KDC_PROFILE; its copy,
# DIR/kadmind.conf, adds kadmind_listen and kpasswd_listen on 127.0.0.1
# (the defaults, 749 and 464 on every address, are not ours to take) and
# is read by kadmind alone.  Its keys (kadmin/localhost, kadmin/admin,
# kadmin/changepw) come from the database; its ACL is DIR/kadm5.acl, empty.
# kadmind shares krb5kdc's socket code, which sets SO_REUSEPORT: after
# start-up the sockets on both ports are counted, and if anyone else holds
# them too we retry elsewhere.
set -u
. "$(dirname "$0")/lib.sh"

REALM=GK5.TEST

die() {
    echo "kadmind.sh: $*" >&2
    exit 1
}

write_conf() {
    local dir=$1 port=$2 kpasswd=$3
    awk -v realm="$REALM" -v port="$port" -v kpasswd="$kpasswd" '
        { print }
        $1 == realm && $2 == "=" && $3 == "{" {
            print "        kadmind_listen = 127.0.0.1:" port
            print "        kpasswd_listen = 127.0.0.1:" kpasswd
            done = 1
        }
        END { exit !done }' "$dir/kdc.conf" >"$dir/kadmind.conf"
}

# Start kadmind on $2 (RPC) and $3 (kpasswd): 0 when it serves them alone.
start_on() {
    local dir=$1 port=$2 kpasswd=$3 pid
    write_conf "$dir" "$port" "$kpasswd" || die "no [realms] $REALM in $dir/kdc.conf"
    rm -f "$dir/kadmind.pid"
    KRB5_CONFIG="$dir/krb5.conf" KRB5_KDC_PROFILE="$dir/kadmind.conf" \
        "$KADMIND" -nofork -r "$REALM" -P "$dir/kadmind.pid" \
        </dev/null >>"$dir/kadmind.out" 2>&1 &
    pid=$!
    # kadmind binds its sockets before it writes the PID file.
    local i
    for ((i = 0; i < 1000; i++)); do
        [ -s "$dir/kadmind.pid" ] && break
        if ! alive "$pid"; then
            wait "$pid" 2>/dev/null
            return 1
        fi
        sleep 0.01
    done
    echo "$pid" >"$dir/kadmind.pid"
    # One listening TCP socket for RPC; UDP and TCP for kpasswd.
    if ! wait_sockets "$pid" "$port" 1 5 ||
        [ "$(port_users "$port")" != 1 ] ||
        [ "$(port_users "$kpasswd")" != 2 ]; then
        stop_pid "$pid" "-P $dir/kadmind.pid"
        rm -f "$dir/kadmind.pid"
        return 1
    fi
    echo "$port" >"$dir/kadmind.port"
    return 0
}

cmd_start() {
    local dir=$1 port kpasswd try
    KADMIND=$(find_tool kadmind GK5_KADMIND) || die "kadmind not found (apt-get install krb5-admin-server)"
    dir=$(cd "$dir" && pwd) || die "no realm folder $1"
    [ -s "$dir/kdc.conf" ] || die "$dir holds no realm (kdc.conf)"
    [ -e "$dir/kadmind.pid" ] && die "$dir already runs kadmind (kadmind.pid exists)"
    for ((try = 0; try < 10; try++)); do
        if ! port=$(free_port) || ! kpasswd=$(free_port) ||
            [ "$port" = "$kpasswd" ]; then
            continue
        fi
        if start_on "$dir" "$port" "$kpasswd"; then
            echo "kadmind.sh: kadmind pid $(cat "$dir/kadmind.pid") on 127.0.0.1:$port (kpasswd $kpasswd), $dir"
            return 0
        fi
    done
    die "kadmind did not start (see $dir/kadmind.out and $dir/kadmin.log)"
}

cmd_stop() {
    local dir
    dir=$(cd "$1" && pwd) || die "no such directory: $1"
    [ -s "$dir/kadmind.pid" ] || return 0
    stop_pid "$(cat "$dir/kadmind.pid")" "-P $dir/kadmind.pid"
    rm -f "$dir/kadmind.pid" "$dir/kadmind.port"
}

cmd_run() {
    local tap=$1
    shift
    find_tool kadmind GK5_KADMIND >/dev/null ||
        skip_run "$tap" "MIT kadmind is not installed: apt-get install krb5-admin-server"
    run_daemon GK5_KADMIND_PORT kadmind.port kadmin.log 8 "$@"
}

peer_main kadmind.sh "$@"
