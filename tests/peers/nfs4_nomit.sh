#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# A gk5 built without MIT krb5 (-Dmit=disabled) starts a krb5p NFSv4
# session against NFS-Ganesha (TAP), inside gk5 realm run and ganesha.sh
# run (GK5_REALM_DIR, GK5_GANESHA_PORT):
#   gk5 kinit -k (the TGT) -> gk5 kvno nfs/localhost (the service ticket,
#   into the same FILE ccache) -> gk5 nfs4 put and cat --sec krb5p on that
#   ccache alone (RPCSEC_GSS, WRITE and READ), the file compared byte for
#   byte; then what the gk5 process had in it:
#   - its link map (LD_DEBUG=libs,files over the whole session, and
#     /proc/PID/maps while it runs): which MIT libraries are mapped, and
#     who needed them;
#   - its symbol bindings (LD_DEBUG=bindings): gk5, libgk5 and libgk5_rpc
#     bind no symbol of MIT's libraries.
#
#   nfs4_nomit.sh GK5
#
# MIT's libraries: libkrb5, libk5crypto, libgssapi_krb5, libkrb5support.
# gk5's own files (gk5, libgk5, libgk5_rpc) name none of them.  Built
# without libtirpc (-Dtirpc=disabled, what tools/ci-nomit.sh builds), the
# process must have none mapped at all.  Built with it, Debian's libtirpc3
# (built with GSS-API, it names libgssapi_krb5.so.2) brings them in: then
# that cell is a TAP TODO naming exactly that, and fails outright when an
# MIT library comes in any other way.
set -u
GK5=${1:?usage: nfs4_nomit.sh GK5}
: "${GK5_REALM_DIR:?run through gk5 realm run}" "${GK5_GANESHA_PORT:?run through ganesha.sh run}"
SERVER=127.0.0.1:$GK5_GANESHA_PORT
MIT_RE='lib(krb5|k5crypto|gssapi_krb5|krb5support)\.so'
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-nfs4-nomit.XXXXXX") || exit 1
PUT_PID=
cleanup() {
    [ -n "$PUT_PID" ] && kill "$PUT_PID" 2>/dev/null
    rm -rf -- "$WORK"
}
trap cleanup EXIT
. "$(dirname "$0")/../tap.sh"
TAP_ERR=$WORK/err
CC=FILE:$WORK/cc

# The binary says what it was built with.
if "$GK5" --version >"$WORK/version" 2>"$TAP_ERR" &&
    grep -qxF 'establishment: native only (built without MIT krb5)' "$WORK/version"; then
    ok "gk5 --version: establishment: native only (built without MIT krb5)"
else
    not_ok "gk5 --version says native only"
    tap_done
    exit 1
fi

if "$GK5" kinit -k -t "$GK5_REALM_DIR/client.keytab" -c "$CC" \
    gk5-client@GK5.TEST >"$WORK/out" 2>"$TAP_ERR"; then
    ok "gk5 kinit -k: a TGT for gk5-client@GK5.TEST"
else
    not_ok "gk5 kinit -k"
fi
if "$GK5" kvno -c "$CC" nfs/localhost@GK5.TEST >"$WORK/out" 2>"$TAP_ERR" &&
    "$GK5" klist -c "$CC" >"$WORK/klist" 2>"$TAP_ERR" &&
    grep -q 'nfs/localhost@GK5.TEST' "$WORK/klist"; then
    ok "gk5 kvno: the service ticket for nfs/localhost@GK5.TEST in the ccache"
else
    not_ok "gk5 kvno nfs/localhost@GK5.TEST"
fi

# The session: put from a FIFO, so that the process is there to look at
# (/proc/PID/maps) before it is given the data; then cat it back.
head -c 300000 /dev/urandom >"$WORK/in"
mkfifo "$WORK/fifo"
LD_DEBUG=libs,files,bindings LD_DEBUG_OUTPUT=$WORK/ld-put \
    timeout -k 5 120 "$GK5" nfs4 put - "$SERVER:/nomit" --sec krb5p \
    --target nfs@localhost --ccache "$CC" <"$WORK/fifo" >"$WORK/put.out" \
    2>"$WORK/put.err" &
PUT_PID=$!
exec 3>"$WORK/fifo"
# The process is exec'd and linked once the FIFO's reader is open.
maps_ok=0
for _ in $(seq 50); do
    gk5_pid=$(pgrep -P "$PUT_PID" 2>/dev/null | head -n 1) # under timeout
    if [ -n "$gk5_pid" ] && grep -q libgk5_rpc "/proc/$gk5_pid/maps" 2>/dev/null; then
        cp "/proc/$gk5_pid/maps" "$WORK/maps" && maps_ok=1
        break
    fi
    sleep 0.1
done
cat "$WORK/in" >&3
exec 3>&-
wait "$PUT_PID"
put_rc=$?
PUT_PID=
if [ "$put_rc" = 0 ] &&
    LD_DEBUG=libs,files,bindings LD_DEBUG_OUTPUT=$WORK/ld-cat \
        timeout -k 5 120 "$GK5" nfs4 cat "$SERVER:/nomit" --sec krb5p \
        --target nfs@localhost --ccache "$CC" >"$WORK/out" 2>"$TAP_ERR" &&
    cmp -s "$WORK/in" "$WORK/out"; then
    ok "krb5p on the ccache alone: put (WRITE) + cat (READ) of 300000 bytes, the same"
else
    cat "$WORK/put.err" >>"$TAP_ERR"
    not_ok "krb5p: put (exit $put_rc) + cat, compared"
fi
"$GK5" nfs4 rm "$SERVER:/nomit" --sec krb5p --target nfs@localhost \
    --ccache "$CC" >/dev/null 2>&1

# What was in the processes.
cat "$WORK"/ld-put.* "$WORK"/ld-cat.* >"$WORK/ld" 2>/dev/null
if [ "$maps_ok" = 1 ] && grep -q 'calling init: .*libgk5_rpc' "$WORK/ld"; then
    ok "the put process's /proc/PID/maps and both processes' LD_DEBUG record read"
else
    not_ok "the put process's /proc/PID/maps (read: $maps_ok) and LD_DEBUG record"
fi
# gk5's own objects bind nothing of MIT's ("binding file A [0] to B [0]:
# normal symbol `f'"; libtirpc3 is linked -z now, so its own bindings to
# libgssapi_krb5 are made at load whether called or not).
if grep -E "binding file [^ ]*/(gk5|libgk5[a-z_]*\.so[.0-9]*) .* to [^ ]*$MIT_RE" \
    "$WORK/ld" >"$WORK/mit-bindings"; then
    head -n 5 "$WORK/mit-bindings" >>"$TAP_ERR"
    not_ok "gk5, libgk5 and libgk5_rpc bind no symbol of MIT's libraries ($(wc -l <"$WORK/mit-bindings") bindings)"
else
    ok "gk5, libgk5 and libgk5_rpc bind no symbol of MIT's libraries (LD_DEBUG=bindings: $(grep -cE 'binding file [^ ]*/(gk5|libgk5[a-z_]*\.so[.0-9]*) ' "$WORK/ld") bindings of theirs, none to MIT)"
fi
# Mapped: each MIT library in the link map, and who needed it
# (LD_DEBUG=files: "file=X [0];  needed by Y [0]").
mapped=$(grep -oE "[^ /]*$MIT_RE[.0-9]*" "$WORK/maps" | sort -u | tr '\n' ' ')
needers=$(grep -E "file=[^ ]*$MIT_RE[^ ]* .*needed by" "$WORK/ld" |
    sed -E 's/.*needed by ([^ ]*).*/\1/' | xargs -r -n1 basename | sort -u |
    grep -vE "^$MIT_RE" | tr '\n' ' ')
with_tirpc=0
grep -q 'libtirpc\.so' "$WORK/maps" && with_tirpc=1
if [ -z "$mapped" ]; then
    ok "no MIT library mapped in the gk5 process (/proc/PID/maps)$([ $with_tirpc = 0 ] && echo ', nor libtirpc')"
elif [ $with_tirpc = 1 ] && [ "$needers" = "libtirpc.so.3 " ]; then
    # TAP TODO: a known failure, reported and not counted as one.
    TAP_N=$((TAP_N + 1))
    echo "not ok $TAP_N - no MIT library mapped in the gk5 process # TODO mapped: ${mapped}(their initialisers run), brought in only by libtirpc.so.3 (Debian's libtirpc3 is built with GSS-API); gk5's own files need none"
else
    echo "MIT libraries needed by: $needers" >>"$TAP_ERR"
    not_ok "no MIT library mapped in the gk5 process: ${mapped}(needed by ${needers:-?})"
fi
tap_done
