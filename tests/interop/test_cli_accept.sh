#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# `gk5 accept` against MIT's initiator (TAP, one line per cell), in the
# realm `gk5 realm run` made for this run (GK5_REALM_DIR, KRB5_CONFIG):
#   gk5 realm run --tap -- bash test_cli_accept.sh GK5 MIT_INITIATOR
# MIT_INITIATOR (mit_initiator.c) writes MIT's AP-REQ to a file, takes the
# AP-REP from the file `gk5 accept --out` wrote, and exchanges Wrap and MIC
# tokens with `gk5 wrap|unwrap|verify --ctx` on the context file `gk5
# accept --ctx` wrote.  Then the same AP-REQ again, in another process:
# refused (KRB_AP_ERR_REPEAT) through the replay cache file, with a
# KRB-ERROR token; --no-rcache; the default replay cache file under
# XDG_RUNTIME_DIR; a keytab without the principal; usage errors.
set -u
GK5=${1:?usage: test_cli_accept.sh GK5 MIT_INITIATOR}
MIT_INITIATOR=${2:?usage: test_cli_accept.sh GK5 MIT_INITIATOR}
# Absolute: the cells run in a folder of their own.
case $GK5 in /*) ;; *) GK5=$PWD/$GK5 ;; esac
case $MIT_INITIATOR in /*) ;; *) MIT_INITIATOR=$PWD/$MIT_INITIATOR ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"

dir=${GK5_REALM_DIR:?run me through gk5 realm run}
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-test-accept.XXXXXX") || exit 1
helper_pid=""
cleanup() {
    if [ -n "$helper_pid" ]; then
        kill "$helper_pid" 2>/dev/null
        wait "$helper_pid" 2>/dev/null
    fi
    rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
TAP_ERR=$work/err
cd "$work" || exit 1

KT=$dir/service.keytab
CLIENT=gk5-client@GK5.TEST
TARGET=gk5@localhost
mit=("$MIT_INITIATOR" --target "$TARGET" --client-keytab "$dir/client.keytab"
    --principal "$CLIENT")
printf 'a message from MIT to gk5' >msg
printf 'and one from gk5 to MIT' >msg2

# g ARGS...: gk5 ARGS, stdout in ./out, stderr in ./err, status in rc.
g() {
    "$GK5" "$@" >out 2>err
    rc=$?
}

# hexof FILE: the file's bytes in lowercase hex, one line.
hexof() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# The RFC 2743 3.1 framing of the krb5 OID, then TOK_ID (RFC 4121 4.1).
KRB5_OID=06092a864886f712010202
is_token() { # FILE TOK_ID: a framed krb5 token with this TOK_ID
    [ -s "$1" ] && hexof "$1" | grep -q "^60.*$KRB5_OID$2"
}

# wait_file FILE: until it exists (60 s at most).
wait_file() {
    local i
    for ((i = 0; i < 3000; i++)); do
        [ -e "$1" ] && return 0
        if [ -n "$helper_pid" ] && ! kill -0 "$helper_pid" 2>/dev/null; then
            return 1
        fi
        sleep 0.02
    done
    return 1
}

# expect_usage DESC WORD ARGS...: exit 2, and WORD in the message.
expect_usage() {
    local desc=$1 word=$2
    shift 2
    g accept "$@"
    if [ $rc -eq 2 ] && grep -qF -- "$word" err && [ ! -s out ]; then
        ok "usage: $desc: exit 2 naming $word"
    else
        not_ok "usage: $desc: exit $rc, wanted 2 naming $word: $(head -c 300 err)"
    fi
}

# ---- the replay cache files ----

: >empty
mkdir -m 0700 xdg
g accept --keytab "$KT" --in empty --out x --ctx y --rcache rcache
rc1=$rc
XDG_RUNTIME_DIR=$work/xdg g accept --keytab "$KT" --in empty --out x --ctx y
if [ $rc1 -eq 1 ] && [ $rc -eq 1 ] && grep -q GSS_S_DEFECTIVE_TOKEN err &&
    [ -s rcache ] && [ "$(stat -c %a rcache)" = 600 ]; then
    ok "an empty token is refused; the --rcache file is made, mode 0600"
else
    not_ok "an empty token: exit $rc1 and $rc: $(head -c 300 err)"
fi
if [ -s xdg/gk5/accept.rcache ] &&
    [ "$(stat -c %a xdg/gk5/accept.rcache)" = 600 ] &&
    [ "$(stat -c %a xdg/gk5)" = 700 ]; then
    ok "the default replay cache: \$XDG_RUNTIME_DIR/gk5/accept.rcache, mode 0600"
else
    not_ok "the default replay cache: $(ls -la xdg xdg/gk5 2>&1 | head -c 300)"
fi

# ---- MIT's initiator, mutual authentication ----

"${mit[@]}" --out apreq --reply aprep --wrap wrap.tok --mic mic.tok \
    --unwrap back.tok <msg >mit.out 2>mit.err &
helper_pid=$!
if ! wait_file apreq; then
    not_ok "MIT's initiator writes its AP-REQ: $(head -c 300 mit.err)"
    tap_done
    exit
fi
ok "MIT's initiator writes its AP-REQ ($(stat -c %s apreq) bytes)"

g accept --keytab "$KT" --principal $TARGET --in apreq --out aprep \
    --ctx ctx --rcache rcache --authz authz.der
if [ $rc -eq 0 ] && grep -qx "initiator: $CLIENT" out &&
    grep -qx "acceptor: gk5/localhost@GK5.TEST" out &&
    grep -Eq '^flags: .*mutual' out && grep -Eq '^lifetime: [0-9]+ s' out &&
    grep -Eq '^context enctype: [a-z0-9-]+ \([0-9]+\)$' out; then
    ok "gk5 accept takes MIT's AP-REQ: $(grep -E '^(initiator|context enctype|flags)' out | tr '\n' ' ')"
else
    not_ok "gk5 accept takes MIT's AP-REQ: exit $rc: $(cat out err | head -c 400)"
fi
# --authz: the ticket's AuthorizationData as carried (MIT's KDC puts a
# PAC in every ticket), a DER SEQUENCE OF as long as the line says.
authz_len=$(sed -n 's/^authorization data: \([0-9]*\) bytes (the ticket.s, untouched), in authz.der$/\1/p' out)
if [ -n "$authz_len" ] && [ "$(stat -c %s authz.der 2>/dev/null)" = "$authz_len" ] &&
    [ "$(stat -c %a authz.der)" = 600 ] && [ "$(od -An -N1 -tx1 authz.der | tr -d ' ')" = 30 ]; then
    ok "gk5 accept --authz: the ticket's authorization data, $authz_len bytes, mode 0600, a DER SEQUENCE"
elif [ -z "$authz_len" ] && grep -qx 'authorization data: none' out && [ -e authz.der ] && [ ! -s authz.der ]; then
    ok "gk5 accept --authz: the ticket carries none, the file is empty"
else
    not_ok "gk5 accept --authz: $(grep authorization out) $(stat -c '%s %a' authz.der 2>&1)"
fi
cp err err.accept
if is_token aprep 0200; then
    ok "the AP-REP is a framed krb5 token, TOK_ID 02 00"
else
    not_ok "the AP-REP: $(hexof aprep | head -c 80)"
fi
if [ "$(stat -c %a ctx 2>/dev/null)" = 600 ]; then
    ok "the context file is mode 0600"
else
    not_ok "the context file: $(stat -c %a ctx 2>&1)"
fi

if wait_file wrap.tok && wait_file mic.tok; then
    ok "MIT's initiator takes the AP-REP and wraps its message"
else
    not_ok "MIT's initiator takes the AP-REP: $(head -c 300 mit.err)"
fi
g unwrap --ctx ctx <wrap.tok
if [ $rc -eq 0 ] && cmp -s out msg; then
    ok "gk5 unwrap --ctx: MIT's sealed Wrap token gives the message"
else
    not_ok "gk5 unwrap --ctx: exit $rc: $(head -c 300 err)"
fi
g verify --ctx ctx --token mic.tok <msg
if [ $rc -eq 0 ]; then
    ok "gk5 verify --ctx: MIT's MIC"
else
    not_ok "gk5 verify --ctx: exit $rc: $(head -c 300 err)"
fi
g wrap --ctx ctx <msg2
if [ $rc -eq 0 ] && cp out back.tmp && mv back.tmp back.tok &&
    wait "$helper_pid"; then
    helper_pid=""
    if cmp -s mit.out msg2; then
        ok "gk5 wrap --ctx: MIT's gss_unwrap gives the message"
    else
        not_ok "gk5 wrap --ctx: MIT unwrapped '$(head -c 100 mit.out)'"
    fi
else
    not_ok "gk5 wrap --ctx, MIT's gss_unwrap: exit $rc: $(cat err mit.err | head -c 300)"
fi
if [ -n "$helper_pid" ]; then
    kill "$helper_pid" 2>/dev/null
    wait "$helper_pid" 2>/dev/null
    helper_pid=""
fi

# ---- the same AP-REQ again: another process, the same replay cache ----

rm -f ctx2
g accept --keytab "$KT" --principal $TARGET --in apreq --out aprep2 \
    --ctx ctx2 --rcache rcache
if [ $rc -eq 1 ] && grep -q 'GSS_S_FAILURE' err && grep -q 'REPEAT' err &&
    [ ! -e ctx2 ] && [ ! -s out ]; then
    ok "the same AP-REQ again is refused: $(grep error: err | head -c 200)"
else
    not_ok "the same AP-REQ again: exit $rc, ctx2 $([ -e ctx2 ] && echo written || echo absent): $(head -c 300 err)"
fi
if is_token aprep2 0300; then
    ok "the refusal's --out is a KRB-ERROR token, TOK_ID 03 00"
else
    not_ok "the refusal's --out: $(hexof aprep2 | head -c 80)"
fi
g accept --keytab "$KT" --in apreq --out aprep3 --ctx ctx3 --no-rcache
if [ $rc -eq 0 ] && grep -qx "initiator: $CLIENT" out; then
    ok "--no-rcache: the same AP-REQ is accepted again"
else
    not_ok "--no-rcache: exit $rc: $(head -c 300 err)"
fi

# ---- without mutual authentication; the default replay cache ----

if "${mit[@]}" --no-mutual --out apreq-nm --wrap wrap-nm.tok <msg \
    >/dev/null 2>mit.err; then
    ok "MIT's initiator, no mutual authentication: AP-REQ and a Wrap token"
else
    not_ok "MIT's initiator, no mutual authentication: $(head -c 300 mit.err)"
fi
XDG_RUNTIME_DIR=$work/xdg g accept --keytab "FILE:$KT" --in apreq-nm \
    --out aprep-nm --ctx ctx-nm
if [ $rc -eq 0 ] && [ -e aprep-nm ] && [ ! -s aprep-nm ] &&
    grep -q '^token: none' out && ! grep -Eq '^flags: .*mutual' out; then
    ok "no mutual authentication: accepted, --out empty"
else
    not_ok "no mutual authentication: exit $rc: $(cat out err | head -c 300)"
fi
g unwrap --ctx ctx-nm <wrap-nm.tok
if [ $rc -eq 0 ] && cmp -s out msg; then
    ok "no mutual authentication: gk5 unwrap --ctx gives MIT's message"
else
    not_ok "no mutual authentication: gk5 unwrap: exit $rc: $(head -c 300 err)"
fi
XDG_RUNTIME_DIR=$work/xdg g accept --keytab "$KT" --in apreq-nm \
    --out aprep-nm2 --ctx ctx-nm2
if [ $rc -eq 1 ] && grep -q 'REPEAT' err && [ -e aprep-nm2 ] &&
    [ ! -s aprep-nm2 ]; then
    ok "no mutual authentication, again: refused (REPEAT), no KRB-ERROR"
else
    not_ok "no mutual authentication, again: exit $rc: $(head -c 300 err)"
fi
# A file holds what was accepted: a new one takes an AP-REQ made before
# it (only a replay cache in memory has a restart guard).
g accept --keytab "$KT" --in apreq-nm --out aprep-new --ctx ctx-new \
    --rcache new.rcache
if [ $rc -eq 0 ] && grep -qx "initiator: $CLIENT" out; then
    ok "a new --rcache file takes an AP-REQ made before it"
else
    not_ok "a new --rcache file and an older AP-REQ: exit $rc: $(head -c 300 err)"
fi
mkdir -m 0700 xdg2 xdg2/gk5 && ln -s "$work/elsewhere" xdg2/gk5/accept.rcache
XDG_RUNTIME_DIR=$work/xdg2 g accept --keytab "$KT" --in apreq-nm \
    --out aprep-nm3 --ctx ctx-nm3
if [ $rc -eq 1 ] && [ ! -e elsewhere ] && grep -q 'replay cache' err; then
    ok "a link at the default replay cache's name is not followed"
else
    not_ok "a link at the default replay cache's name: exit $rc: $(head -c 300 err)"
fi

# ---- refusals before any token ----

g accept --keytab "$KT" --principal nfs@nohost --in apreq --out x --ctx y \
    --no-rcache
if [ $rc -eq 1 ] && grep -q 'GSS_S_NO_CRED' err && [ ! -e y ]; then
    ok "a principal the keytab lacks: exit 1, $(grep -o 'GSS_S_[A-Z_]*' err | head -n 1)"
else
    not_ok "a principal the keytab lacks: exit $rc: $(head -c 300 err)"
fi
g accept --keytab "$work/none.keytab" --in apreq --out x --ctx y --no-rcache
if [ $rc -eq 1 ] && grep -q 'GSS_S_NO_CRED' err; then
    ok "a keytab that does not exist: exit 1"
else
    not_ok "a keytab that does not exist: exit $rc: $(head -c 300 err)"
fi
head -c 40 apreq >short
g accept --keytab "$KT" --in short --out x --ctx y --no-rcache
if [ $rc -eq 1 ] && grep -q 'GSS_S_DEFECTIVE_TOKEN' err && [ ! -e y ]; then
    ok "a truncated AP-REQ: GSS_S_DEFECTIVE_TOKEN"
else
    not_ok "a truncated AP-REQ: exit $rc: $(head -c 300 err)"
fi

# ---- usage ----

base=(--keytab "$KT" --in apreq --out x --ctx y)
expect_usage "no --in" "--in" --keytab "$KT" --out x --ctx y
expect_usage "no --keytab" "--keytab" --in apreq --out x --ctx y
expect_usage "no --out" "--out" --keytab "$KT" --in apreq --ctx y
expect_usage "no --ctx" "--ctx" --keytab "$KT" --in apreq --out x
expect_usage "--rcache with --no-rcache" "--no-rcache" "${base[@]}" \
    --rcache r --no-rcache
expect_usage "--clockskew 0" "--clockskew" "${base[@]}" --clockskew 0
expect_usage "--clockskew x" "--clockskew" "${base[@]}" --clockskew x
expect_usage "--in without its argument" "--in" --keytab "$KT" --in
expect_usage "an unknown option" "--frobnicate" "${base[@]}" --frobnicate
expect_usage "an extra argument" "extra" "${base[@]}" extra
if [ ! -e y ]; then
    ok "usage errors write no context"
else
    not_ok "a usage error wrote the context file"
fi
"$GK5" accept --help >out 2>err
if [ $? -eq 0 ] && grep -q 'XDG_RUNTIME_DIR/gk5/accept.rcache' out &&
    grep -q '/var/tmp/gk5_accept_EUID.rcache' out; then
    ok "--help names the default replay cache files"
else
    not_ok "--help: $(head -c 200 out err)"
fi

tap_done
