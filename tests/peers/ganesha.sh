#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# NFS-Ganesha (NFSv4 over RPCSEC_GSS, libntirpc) on 127.0.0.1, in a realm
# made by `gk5 realm`, exporting the MEM FSAL.
#
#   ganesha.sh start DIR    start ganesha.nfsd -F on a free port with the
#                           realm's nfs.keytab; its files go to
#                           DIR/ganesha/ (ganesha.conf, .log, .pid, port)
#   ganesha.sh stop DIR     stop exactly the ganesha.nfsd DIR/ganesha names
#   ganesha.sh run [--tap] -- CMD ...
#                           in the realm $GK5_REALM_DIR (gk5 realm run sets
#                           it): start Ganesha, run CMD with
#                           GK5_GANESHA_PORT set, stop Ganesha on every exit
#                           path; SKIP (77, or a TAP skip plan) when
#                           ganesha.nfsd or its MEM FSAL is not installed
#                           (GK5_GANESHA_NFSD: its path)
#   GK5_GANESHA_MECH_CONFIG, GK5_GANESHA_TRACE: GSS_MECH_CONFIG and
#                           GK5_TRACE for ganesha.nfsd only
#   GK5_GANESHA_FSAL=VFS    export a folder of DIR/ganesha instead of the
#                           MEM FSAL (nfs-ganesha-vfs; as root)
#   GK5_GANESHA_SECTYPE     the export's SecType (default all four)
#
# The configuration follows the facts in docs/design.md ("NFS-Ganesha"):
# NFSv4 only, TCP only, no NLM/RQUOTA/rpcbind, 4 MiB RPC
# buffers, graceless, an export "/" of the MEM FSAL with sys and the three
# krb5 flavours, every user squashed to 0 (test principals have no passwd
# entry) and MEM's Inode_Size above the largest test file (GK5_GANESHA_INODE
# bytes, default 2 MiB, which is also MEM's maximum): MEM keeps no file
# data beyond it.  Ganesha carries on after a configuration error (a bad
# value drops the whole EXPORT), so its log is checked for one.
set -u
. "$(dirname "$0")/lib.sh"

die() {
    echo "ganesha.sh: $*" >&2
    exit 1
}

# Where the Debian packages put the MEM FSAL (nfs-ganesha-mem), or with
# $1 = vfs the VFS FSAL (nfs-ganesha-vfs).
find_mem_fsal() {
    local f lib=libfsal${1:-mem}.so
    for f in /usr/lib/*/ganesha/$lib /usr/lib/ganesha/$lib \
        /usr/lib64/ganesha/$lib /usr/local/lib*/ganesha/$lib; do
        [ -e "$f" ] && return 0
    done
    return 1
}

write_conf() {
    local g=$1 realm=$2 port=$3 fsal=MEM path=/
    # GK5_GANESHA_FSAL=VFS: a real folder (DIR/ganesha/vfs) instead of
    # memory, for files larger than MEM keeps (root only).
    if [ "${GK5_GANESHA_FSAL:-MEM}" = VFS ]; then
        fsal=VFS
        path=$g/vfs
        mkdir -p "$path" || return 1
    fi
    cat >"$g/ganesha.conf" <<EOF
# Throwaway NFS-Ganesha made by gk5's tests/peers/ganesha.sh
NFS_CORE_PARAM {
    Protocols = 4;
    NFS_Port = $port;
    Bind_Addr = 127.0.0.1;
    Enable_UDP = false;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    MaxRPCSendBufferSize = 4194304;
    MaxRPCRecvBufferSize = 4194304;
}

NFS_KRB5 {
    PrincipalName = nfs;
    KeytabPath = $realm/nfs.keytab;
    CCacheDir = $g/ccache;
    Active_krb5 = true;
}

NFSv4 {
    Graceless = true;
    RecoveryBackend = fs;
    RecoveryRoot = $g/recovery;
}

EXPORT {
    Export_Id = 1;
    Path = "$path";
    Pseudo = "/";
    Protocols = 4;
    Transports = TCP;
    Access_Type = RW;
    SecType = ${GK5_GANESHA_SECTYPE:-sys, krb5, krb5i, krb5p};
    Squash = All_Squash;
    Anonymous_Uid = 0;
    Anonymous_Gid = 0;
    FSAL {
        Name = $fsal;
    }
}

MEM {
    Inode_Size = ${GK5_GANESHA_INODE:-2097152};
}

LOG {
    Default_Log_Level = EVENT;
}
EOF
}

# Start Ganesha on $3: 0 when it listens there alone, 1 to retry.
start_on() {
    local realm=$1 g=$2 port=$3 pid
    write_conf "$g" "$realm" "$port"
    rm -f "$g/ganesha.pid"
    # GK5_GANESHA_MECH_CONFIG: a mechglue config for Ganesha alone (the
    # gk5_mech.so interposer test), with GK5_GANESHA_TRACE as its trace.
    local mech=()
    if [ -n "${GK5_GANESHA_MECH_CONFIG-}" ]; then
        mech=(GSS_MECH_CONFIG="$GK5_GANESHA_MECH_CONFIG"
            GK5_TRACE="${GK5_GANESHA_TRACE-}")
    fi
    env "${mech[@]}" KRB5_CONFIG="$realm/krb5.conf" KRB5_KTNAME="$realm/nfs.keytab" \
        "$GANESHA" -F -f "$g/ganesha.conf" -L "$g/ganesha.log" \
        -p "$g/ganesha.pid" </dev/null >>"$g/ganesha.out" 2>&1 &
    pid=$!
    echo "$pid" >"$g/ganesha.pid.ours"
    # It listens on [::ffff:127.0.0.1]:port: one TCP socket, and logs
    # "NFS SERVER INITIALIZED" when it serves.
    local i
    if ! wait_sockets "$pid" "$port" 1 30 || [ "$(port_users "$port")" != 1 ]; then
        stop_pid "$pid" "-p $g/ganesha.pid" 10
        rm -f "$g/ganesha.pid.ours"
        return 1
    fi
    for ((i = 0; i < 3000; i++)); do
        grep -q "NFS SERVER INITIALIZED" "$g/ganesha.log" 2>/dev/null && break
        sleep 0.01
    done
    if grep -q ":CONFIG :CRIT" "$g/ganesha.log" 2>/dev/null ||
        ! grep -q "NFS SERVER INITIALIZED" "$g/ganesha.log" 2>/dev/null; then
        stop_pid "$pid" "-p $g/ganesha.pid" 10
        rm -f "$g/ganesha.pid.ours"
        die "ganesha.nfsd did not start cleanly: $(grep -m 3 ":CRIT" "$g/ganesha.log" | sed 's/.*:CRIT ://')"
    fi
    echo "$port" >"$g/port"
    return 0
}

cmd_start() {
    local realm g port try
    GANESHA=$(find_tool ganesha.nfsd GK5_GANESHA_NFSD) || die "ganesha.nfsd not found (apt-get install nfs-ganesha nfs-ganesha-mem)"
    realm=$(cd "$1" && pwd) || die "no realm folder $1"
    [ -s "$realm/nfs.keytab" ] || die "$realm holds no nfs.keytab (a realm from gk5 realm start)"
    g=$realm/ganesha
    [ -e "$g/ganesha.pid.ours" ] && die "$g already runs Ganesha"
    mkdir -p "$g/ccache" "$g/recovery" || die "cannot create $g"
    for ((try = 0; try < 5; try++)); do
        port=$(free_port) || continue
        if start_on "$realm" "$g" "$port"; then
            echo "ganesha.sh: ganesha.nfsd pid $(cat "$g/ganesha.pid.ours") on 127.0.0.1:$port, $g"
            return 0
        fi
    done
    die "ganesha.nfsd did not start: $(tail -n 5 "$g/ganesha.log" "$g/ganesha.out" 2>/dev/null)"
}

cmd_stop() {
    local realm g
    realm=$(cd "$1" && pwd) || die "no such directory: $1"
    g=$realm/ganesha
    [ -s "$g/ganesha.pid.ours" ] || return 0
    # Ganesha shuts down in an orderly way on SIGTERM; give it 10 s.
    stop_pid "$(cat "$g/ganesha.pid.ours")" "-p $g/ganesha.pid" 10
    rm -f "$g/ganesha.pid.ours" "$g/port"
}

cmd_run() {
    local tap=$1
    shift
    find_tool ganesha.nfsd GK5_GANESHA_NFSD >/dev/null ||
        skip_run "$tap" "NFS-Ganesha is not installed: apt-get install nfs-ganesha nfs-ganesha-mem"
    find_mem_fsal ||
        skip_run "$tap" "NFS-Ganesha's MEM FSAL is not installed: apt-get install nfs-ganesha-mem"
    if [ "${GK5_GANESHA_FSAL:-MEM}" = VFS ]; then
        find_mem_fsal vfs ||
            skip_run "$tap" "NFS-Ganesha's VFS FSAL is not installed: apt-get install nfs-ganesha-vfs"
        [ "$(id -u)" = 0 ] ||
            skip_run "$tap" "NFS-Ganesha's VFS FSAL needs root (file handles by open_by_handle_at)"
    fi
    run_daemon GK5_GANESHA_PORT ganesha/port ganesha/ganesha.log 12 "$@"
}

peer_main ganesha.sh "$@"
