#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# `gk5 init` end to end, gk5 on both sides of a real KDC (TAP, one line per
# cell), in the realm `gk5 realm run` made for this run (GK5_REALM_DIR,
# KRB5_CONFIG):
#   gk5 realm run --tap -- bash test_cli_init.sh GK5
# `gk5 kinit -k` gets the TGT; `gk5 init` the service ticket (a TGS
# exchange, stored back in the cache) and the AP-REQ; `gk5 accept` takes
# it; with --mutual, `gk5 init --in` checks the AP-REP and replaces the
# pending state with the context; Wrap and MIC tokens both ways through the
# two context files.  Then: the AP-REP of another context, a truncated one,
# an unknown service, no TGT, a pending state that was changed, usage.
set -u
GK5=${1:?usage: test_cli_init.sh GK5}
case $GK5 in /*) ;; *) GK5=$PWD/$GK5 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"

dir=${GK5_REALM_DIR:?run me through gk5 realm run}
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-test-init.XXXXXX") || exit 1
trap 'rm -rf -- "$work"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
TAP_ERR=$work/err
cd "$work" || exit 1

export KRB5CCNAME=FILE:$work/cc
KT=$dir/service.keytab
TARGET=gk5@localhost
printf 'from the initiator' >msg
printf 'and from the acceptor' >msg2

# g ARGS...: gk5 ARGS, stdout in ./out, stderr in ./err, status in rc.
g() {
    "$GK5" "$@" >out 2>err
    rc=$?
}
hexof() { od -An -v -tx1 "$1" | tr -d ' \n'; }
KRB5_OID=06092a864886f712010202
is_token() { # FILE TOK_ID
    [ -s "$1" ] && hexof "$1" | grep -q "^60.*$KRB5_OID$2"
}

g kinit -k -t "$dir/client.keytab" gk5-client@GK5.TEST
if [ $rc = 0 ]; then ok "gk5 kinit -k: a TGT"; else not_ok "gk5 kinit -k: status $rc"; fi

# tokens CLIENT_CTX SERVER_CTX WHAT: Wrap and MIC both ways.
tokens() {
    local c=$1 s=$2 what=$3
    if "$GK5" wrap --ctx "$c" <msg >w1 2>err &&
        "$GK5" unwrap --ctx "$s" <w1 >p1 2>>err && cmp -s msg p1 &&
        "$GK5" wrap --ctx "$s" <msg2 >w2 2>>err &&
        "$GK5" unwrap --ctx "$c" <w2 >p2 2>>err && cmp -s msg2 p2 &&
        "$GK5" mic --ctx "$c" <msg >m1 2>>err &&
        "$GK5" verify --ctx "$s" --token m1 <msg 2>>err; then
        ok "$what: Wrap both ways, a MIC checked"
    else
        not_ok "$what: tokens"
    fi
}

# Without mutual authentication: the context at once.
g init --service "$TARGET" --out req --ctx c.ctx
if [ $rc = 0 ] && is_token req 0100 && [ -s c.ctx ] &&
    [ "$(stat -c %a c.ctx)" = 600 ]; then
    ok "init: an AP-REQ token and a context file (mode 600)"
else
    not_ok "init: status $rc"
fi
if "$GK5" klist >klist.out 2>err && grep -q 'gk5/localhost@GK5.TEST' klist.out; then
    ok "init: the service ticket stored back in the cache"
else
    not_ok "init: no service ticket in the cache"
fi
g accept --keytab "$KT" --no-rcache --in req --out rep --ctx s.ctx
if [ $rc = 0 ] && [ ! -s rep ]; then
    ok "accept: established, nothing to send back"
else
    not_ok "accept: status $rc"
fi
tokens c.ctx s.ctx "not mutual"

# Mutual: the pending state, then the AP-REP.
g init --service "$TARGET" --mutual --out req2 --ctx c2.state
if [ $rc = 0 ] && is_token req2 0100 && [ "$(head -c 4 c2.state)" = gk5I ]; then
    ok "init --mutual: an AP-REQ and the pending state"
else
    not_ok "init --mutual: status $rc"
fi
cp c2.state c2.copy
g accept --keytab "$KT" --no-rcache --in req2 --out rep2 --ctx s2.ctx
if [ $rc = 0 ] && is_token rep2 0200; then
    ok "accept: an AP-REP"
else
    not_ok "accept (mutual): status $rc"
fi
# Another context's AP-REP, a truncated one: refused, state kept.
g init --service "$TARGET" --mutual --out req3 --ctx c3.state
g accept --keytab "$KT" --no-rcache --in req3 --out rep3 --ctx s3.ctx
g init --ctx c2.state --in rep3
if [ $rc = 1 ] && grep -q "AP-REP does not answer" err && cmp -s c2.state c2.copy; then
    ok "init --in: another context's AP-REP refused, the state unchanged"
else
    not_ok "init --in another AP-REP: status $rc"
fi
head -c 40 rep2 >rep2.short
g init --ctx c2.state --in rep2.short
if [ $rc = 1 ] && cmp -s c2.state c2.copy; then
    ok "init --in: a truncated AP-REP refused, the state unchanged"
else
    not_ok "init --in truncated: status $rc"
fi
g init --ctx c2.state --in rep2
if [ $rc = 0 ] && ! cmp -s c2.state c2.copy; then
    ok "init --in: the AP-REP checked, the state replaced by the context"
else
    not_ok "init --in: status $rc"
fi
tokens c2.state s2.ctx "mutual"
g init --ctx c2.state --in rep2
if [ $rc = 1 ]; then
    ok "init --in twice: refused (the file holds a context now)"
else
    not_ok "init --in twice: status $rc"
fi

# A changed pending state is refused: one bit of byte 50 (inside a key,
# so it is random: writing a fixed byte would leave it unchanged 1 time
# in 256) flipped.
cp c3.state c3.bad
b=$(od -An -tx1 -j50 -N1 c3.state | tr -d ' \n')
printf '%b' "\\x$(printf %02x $((0x$b ^ 0x01)))" | dd of=c3.bad bs=1 seek=50 conv=notrunc 2>/dev/null
g init --ctx c3.bad --in rep3
if [ $rc = 1 ] && ! cmp -s c3.state c3.bad; then
    ok "init --in: a changed pending state refused"
else
    not_ok "init --in changed state: status $rc"
fi

# The KDC does not know the service: its words.
g init --service nosuch@localhost --out req4 --ctx c4.ctx
if [ $rc = 1 ] && grep -q "KDC_ERR_S_PRINCIPAL_UNKNOWN" err && [ ! -e req4 ]; then
    ok "init: an unknown service refused with the KDC's words, nothing written"
else
    not_ok "init unknown service: status $rc"
fi

# No TGT.
KRB5CCNAME=FILE:$work/empty g init --service "$TARGET" --out req5 --ctx c5.ctx
if [ $rc = 1 ] && [ ! -e req5 ]; then
    ok "init: no credential cache: refused"
else
    not_ok "init without a cache: status $rc"
fi

# Usage.
g init --service "$TARGET" --out req6
if [ $rc = 2 ]; then ok "init without --ctx: usage (2)"; else not_ok "init without --ctx: status $rc"; fi
g init --ctx c2.state
if [ $rc = 2 ]; then ok "init --ctx without --in or --service: usage (2)"; else not_ok "init --ctx alone: status $rc"; fi

tap_done
