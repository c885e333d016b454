#!/bin/bash
# More `gk5 nfs4` cells against NFS-Ganesha (TAP), inside kdc.sh run and
# ganesha.sh run:
#   vfs       (GK5_GANESHA_FSAL=VFS: a real folder) files of 5 MiB + 1
#             for every service, compared byte for byte; a server that
#             stops answering mid-transfer (SIGSTOP) gives a timeout error
#             within --timeout, and one that dies mid-transfer (SIGKILL,
#             last) a connection error, never a hang
#   wrongsec  (GK5_GANESHA_SECTYPE=krb5p) flavours the export does not
#             allow are refused with their own words; krb5p works; and an
#             expired ticket is refused with its own words
#
#   nfs4_cli_more.sh vfs|wrongsec GK5
set -u

MODE=${1:?usage: nfs4_cli_more.sh vfs|wrongsec GK5}
GK5=${2:?}
: "${GK5_REALM_DIR:?run through kdc.sh run}" "${GK5_GANESHA_PORT:?run through ganesha.sh run}"
SERVER=127.0.0.1:$GK5_GANESHA_PORT
KRB=(--target nfs@localhost --client-keytab "$GK5_REALM_DIR/client.keytab"
    --client-principal gk5-client@GK5.TEST)
GANESHA_PID=$(cat "$GK5_REALM_DIR/ganesha/ganesha.pid.ours" 2>/dev/null)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-nfs4-more.XXXXXX") || exit 1
cleanup() {
    # Never leave Ganesha stopped: ganesha.sh stops it by its PID.
    [ -n "$GANESHA_PID" ] && kill -CONT "$GANESHA_PID" 2>/dev/null
    rm -rf -- "$WORK"
}
trap cleanup EXIT

N=0
FAILED=0
ok() {
    N=$((N + 1))
    echo "ok $N - $1"
}
not_ok() {
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    echo "not ok $N - $1"
    echo "not ok $N - $1" >&2
    if [ -s "$WORK/err" ]; then
        sed 's/^/# /' "$WORK/err" | tail -n 5 | tee /dev/stderr
    fi
}

nfs() { # SEC SUB ARGS...
    local sec=$1 sub=$2
    shift 2
    local creds=()
    [ "$sec" != sys ] && creds=("${KRB[@]}")
    timeout -k 5 120 "$GK5" nfs4 "$sub" "$@" --sec "$sec" "${creds[@]}" \
        >"$WORK/out" 2>"$WORK/err"
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
        echo "ok $((N += 1)) - expired ticket # SKIP kinit not found (apt-get install krb5-user)"
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
vfs) vfs_cells ;;
wrongsec) wrongsec_cells ;;
*) echo "nfs4_cli_more.sh: unknown mode $MODE" >&2; exit 2 ;;
esac
echo "# $N cells, $FAILED failed"
echo "1..$N"
[ $FAILED = 0 ]
