#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5 against Samba as an Active Directory domain controller (TAP, one
# line per cell), in the realm `gk5 realm run --kdc samba` made for this
# run (GK5_REALM_DIR, KRB5_CONFIG):
#   gk5 realm run --kdc samba --tap -- bash test_samba_kdc.sh GK5 MIT_INITIATOR
# The realm (Samba's KDC, the AD database samba-tool provisioned; the
# services' AES keytabs made with the account's salt); gk5's own KDC
# client: kinit -k, kvno for each enctype gk5 supports (those AD has no key
# of refused by the KDC, in words), klist, a password account, refusals;
# gk5's initiator to gk5's acceptor and MIT's initiator to gk5's acceptor
# with tickets that carry AD's PAC (the context made, the authorization
# data not refused, AD-WIN2K-PAC inside AD-IF-RELEVANT as gk5 accept
# --authz writes it); `gk5 interop` (the MIT bridge and the native column);
# rc4 where it lives: an account at the AD default gets rc4 tickets (gk5's
# client refuses the reply, naming RFC 8429 and the cure, the ccache
# unchanged; gk5 init refuses MIT's stored rc4 ticket), an account with
# msDS-SupportedEncryptionTypes 0x4 refused at the session key (by the KDC
# for gk5's AES request, by gk5 init for MIT's rc4 session key), and an
# MIT initiator restricted to rc4 refused at gk5's import (RFC 8429);
# `gk5 realm start --kdc samba` and `stop`, samba gone by its PID; `gk5
# realm run --kdc samba` removing the whole folder.
set -u
GK5=${1:?usage: test_samba_kdc.sh GK5 MIT_INITIATOR}
MIT_INITIATOR=${2:?usage: test_samba_kdc.sh GK5 MIT_INITIATOR}
case $GK5 in /*) ;; *) GK5=$PWD/$GK5 ;; esac
case $MIT_INITIATOR in /*) ;; *) MIT_INITIATOR=$PWD/$MIT_INITIATOR ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"

dir=${GK5_REALM_DIR:?run me through gk5 realm run --kdc samba}
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-test-skdc.XXXXXX") || exit 1
realm2=""
cleanup() {
    if [ -n "$realm2" ]; then
        "$GK5" realm stop "$realm2" >/dev/null 2>&1
    fi
    rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
TAP_ERR=$work/err
cd "$work" || exit 1
unset KRB5CCNAME

if [ "$(cat "$dir/kdc.kind" 2>/dev/null)" != samba ]; then
    echo "1..0 # SKIP $dir is not a realm on Samba's AD KDC (gk5 realm run --kdc samba)"
    exit 0
fi
if ! command -v klist >/dev/null || ! command -v kvno >/dev/null; then
    echo "1..0 # SKIP MIT's klist and kvno (krb5-user) not installed"
    exit 0
fi
SAM=(-s "$dir/samba/etc/smb.conf" -H "$dir/samba/private/sam.ldb")
CLIENT=gk5-client@GK5.TEST
PW="Gk5-samba-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$PW" >pw
printf 'Not-the-password-1\n' >badpw
printf 'from the initiator' >msg
printf 'and from the acceptor' >msg2
realm_enctypes=$(cat "$dir/kdc.enctypes")
supported=$("$GK5" enctypes | awk '$3 == "supported" { print $1 }')
et_name() { "$GK5" enctypes | awk -v e="$1" '$1 == e { print $2 }'; }
in_realm() { case " $realm_enctypes " in *" $1 "*) return 0 ;; esac; return 1; }
echo "# Samba: $(samba --version 2>&1 | head -1); AD keys: $realm_enctypes"

# A cell: DESC, then the command; ok when it exits 0.
cell() {
    local desc=$1
    shift
    if "$@" >out 2>"$TAP_ERR"; then ok "$desc"; else not_ok "$desc"; fi
}
# A refusal: DESC, the words expected on stderr (grep -E), the command;
# ok when it exits 1 and says them.
refused() {
    local desc=$1 words=$2 rc
    shift 2
    "$@" >out 2>"$TAP_ERR"
    rc=$?
    if [ "$rc" = 1 ] && grep -Eq -- "$words" "$TAP_ERR"; then
        ok "$desc"
    else
        echo "exit $rc" >>"$TAP_ERR"
        not_ok "$desc"
    fi
}
unchanged() { # DESC FILE SUM
    if [ "$(md5sum <"$2")" = "$3" ]; then ok "$1: the ccache unchanged"; else not_ok "$1: the ccache changed"; fi
}

# ---- the realm ----
cell "MIT klist -k reads service.keytab (AES keys made with the account's salt)" \
    klist -k -e "$dir/service.keytab"
if grep -q 'gk5/localhost@GK5.TEST (aes256-cts-hmac-sha1-96)' out &&
    grep -q 'gk5/localhost@GK5.TEST (aes128-cts-hmac-sha1-96)' out &&
    ! grep -q arcfour out; then
    ok "service.keytab: gk5/localhost's AES256 and AES128 keys, no rc4"
else
    not_ok "service.keytab: $(head -c 300 out)"
fi
for kt in rc4 rc4only; do
    if klist -k -e "$dir/$kt.keytab" 2>"$TAP_ERR" | grep -c "$kt/localhost@GK5.TEST" | grep -qx 1 &&
        klist -k -e "$dir/$kt.keytab" | grep -q 'arcfour-hmac'; then
        ok "$kt.keytab (samba-tool domain exportkeytab): $kt/localhost's rc4-hmac key alone"
    else
        not_ok "$kt.keytab: not one rc4-hmac key"
    fi
done

# ---- gk5's KDC client ----
cell "gk5 kinit -k -t client.keytab (exported by samba-tool)" \
    "$GK5" kinit -k -t "$dir/client.keytab" -c "FILE:$work/cc" $CLIENT
cell "gk5 klist -e reads gk5's cache" "$GK5" klist -e -f -c "$work/cc"
if grep -q 'krbtgt/GK5.TEST@GK5.TEST' out && grep -q "Default principal: $CLIENT" out &&
    grep -Eq 'Etype \(skey, tkt\): aes256-cts-hmac-sha1-96, aes256-cts-hmac-sha1-96' out; then
    ok "gk5 klist names the client, krbtgt/GK5.TEST and the TGT's enctypes"
else
    not_ok "gk5 klist: $(head -c 300 out)"
fi
cell "MIT klist -e reads gk5's cache" klist -e -c "FILE:$work/cc"

for et in $supported; do
    name=$(et_name "$et")
    cp cc "cc.$et"
    if in_realm "$et"; then
        if "$GK5" kvno -e "$et" -c "cc.$et" gk5/localhost >out 2>"$TAP_ERR" &&
            grep -Eqx 'gk5/localhost@GK5.TEST: kvno = [0-9]+' out &&
            "$GK5" klist -e -c "cc.$et" >klist.out 2>>"$TAP_ERR" &&
            grep -A1 'gk5/localhost@GK5.TEST' klist.out | grep -q "Etype (skey, tkt): $name, " &&
            klist -c "cc.$et" 2>>"$TAP_ERR" | grep -q 'gk5/localhost@GK5.TEST'; then
            ok "gk5 kvno -e $name ($et): a session key of that type, gk5 klist and MIT klist read it"
        else
            not_ok "gk5 kvno -e $name ($et)"
        fi
    else
        refused "gk5 kvno -e $name ($et): AD has no such key, refused by the KDC in words" \
            'KDC_ERR_ETYPE_NOSUPP \(14\)' "$GK5" kvno -e "$et" -c "cc.$et" gk5/localhost
    fi
done
cell "gk5 kvno nfs/localhost" "$GK5" kvno -c cc nfs/localhost
if samba-tool user add alice "$PW" "${SAM[@]}" >samba-tool.log 2>&1; then
    cell "gk5 kinit with a password (an account samba-tool made while samba runs)" \
        "$GK5" kinit -c "$work/cc.alice" --password-file pw alice
    refused "wrong password: KDC_ERR_PREAUTH_FAILED" 'KDC_ERR_PREAUTH_FAILED \(24\)' \
        "$GK5" kinit -c "$work/cc.bad" --password-file badpw alice
else
    not_ok "samba-tool user add alice: $(tail -2 samba-tool.log)"
fi
refused "unknown principal: KDC_ERR_C_PRINCIPAL_UNKNOWN" 'C_PRINCIPAL_UNKNOWN \(6\)' \
    "$GK5" kinit -c "$work/cc.bad" --password-file pw nobody
refused "unknown service: KDC_ERR_S_PRINCIPAL_UNKNOWN" 'S_PRINCIPAL_UNKNOWN \(7\)' \
    "$GK5" kvno -c cc nosuch/service
if [ -e cc.bad ]; then not_ok "no cache written on failure"; else ok "no cache written on failure"; fi

# ---- rc4 where it lives ----
# (a) rc4/localhost, msDS-SupportedEncryptionTypes unset (the AD default):
# an rc4 ticket with an AES session key.  gk5's client refuses the reply
# before storing it and says why and what to set.
cp cc cc.rc4
sum=$(md5sum <cc.rc4)
refused "AD default (rc4/localhost): the rc4 ticket refused by gk5 kvno, naming RFC 8429, offline cracking and msDS-SupportedEncryptionTypes" \
    "the KDC encrypted the ticket in the service's rc4-hmac \\(23\\) key, which gk5 refuses: the service needs an AES key: .*RFC 8429.*cracked offline.*msDS-SupportedEncryptionTypes, 0x18" \
    "$GK5" kvno -c cc.rc4 rc4/localhost
unchanged "AD default (rc4/localhost)" cc.rc4 "$sum"
cp cc cc.mit-rc4
if kvno -c cc.mit-rc4 rc4/localhost >out 2>"$TAP_ERR" &&
    klist -e -c cc.mit-rc4 | grep -A1 'rc4/localhost@GK5.TEST' |
    grep -Eq 'Etype \(skey, tkt\): aes[a-z0-9-]+, (DEPRECATED:)?arcfour-hmac'; then
    ok "AD default: MIT kvno stores what Samba issued, an rc4 ticket with an AES session key"
else
    not_ok "AD default: MIT kvno did not get an rc4 ticket with an AES session key"
fi
refused "AD default: gk5 init refuses MIT's stored rc4 ticket, naming RFC 8429" 'RFC 8429' \
    "$GK5" init --ccache "FILE:$work/cc.mit-rc4" --service rc4@localhost --out req.rc4 --ctx ctx.rc4
if [ -e req.rc4 ] || [ -e ctx.rc4 ]; then not_ok "gk5 init wrote nothing for rc4"; else ok "gk5 init wrote nothing for rc4"; fi
# (b) rc4only/localhost, 0x4: an rc4 ticket and session key.  gk5 never
# asks for an rc4 session key, so the KDC refuses gk5's request; MIT's kvno
# takes rc4 and stores it; gk5 init does not use that ticket (its session
# key is of no type gk5 asks for) and the KDC refuses it an AES one; gk5's
# acceptor takes no key from a keytab of rc4 keys alone.
cp cc cc.rc4only
sum=$(md5sum <cc.rc4only)
refused "0x4 (rc4only/localhost): Samba's KDC refuses gk5's AES request (KDC_ERR_ETYPE_NOSUPP), gk5 says why and what to set" \
    'KDC_ERR_ETYPE_NOSUPP\): one with rc4 keys alone gets this, as gk5 never asks for rc4 \(RFC 8429\); an Active Directory account needs AES in its msDS-SupportedEncryptionTypes \(0x18\).*KDC_ERR_ETYPE_NOSUPP \(14\)' \
    "$GK5" kvno -c cc.rc4only rc4only/localhost
unchanged "0x4 (rc4only/localhost)" cc.rc4only "$sum"
cp cc cc.mit-rc4only
if kvno -c cc.mit-rc4only rc4only/localhost >out 2>"$TAP_ERR" &&
    klist -e -c cc.mit-rc4only | grep -A1 'rc4only/localhost@GK5.TEST' |
    grep -Eq 'Etype \(skey, tkt\): (DEPRECATED:)?arcfour-hmac, (DEPRECATED:)?arcfour-hmac'; then
    ok "0x4: MIT kvno stores an rc4 ticket with an rc4 session key"
else
    not_ok "0x4: MIT kvno did not get an rc4 ticket and session key"
fi
refused "0x4: gk5 init leaves MIT's rc4 ticket unused and the KDC refuses it AES (KDC_ERR_ETYPE_NOSUPP)" \
    'KDC_ERR_ETYPE_NOSUPP \(14\)' \
    "$GK5" init --ccache "FILE:$work/cc.mit-rc4only" --service rc4only@localhost --out req.rc4only --ctx ctx.rc4only
if [ -e req.rc4only ] || [ -e ctx.rc4only ]; then not_ok "gk5 init wrote nothing for 0x4"; else ok "gk5 init wrote nothing for 0x4"; fi
if "$MIT_INITIATOR" --target rc4only@localhost --client-keytab "$dir/client.keytab" \
    --principal $CLIENT --out req.mit-rc4only --no-mutual <msg >/dev/null 2>"$TAP_ERR"; then
    refused "0x4: gk5 accept takes no rc4 key from rc4only.keytab, MIT's rc4 AP-REQ not accepted" \
        'GSS_S_NO_CRED.*no key gk5 can use for the principal \(rc4, DES' \
        "$GK5" accept --keytab "$dir/rc4only.keytab" --no-rcache --in req.mit-rc4only --out rep.rc4only --ctx sctx.rc4only
    if [ -e sctx.rc4only ]; then not_ok "gk5 accept wrote no context for 0x4"; else ok "gk5 accept wrote no context for 0x4"; fi
else
    not_ok "0x4: MIT's initiator made no AP-REQ for rc4only@localhost"
fi
# (c) MIT's initiator restricted to rc4, accepted by MIT (rc4only's keytab):
# gk5 refuses the context at import, naming RFC 8429.
"$GK5" interop --client-keytab "$dir/client.keytab" --client $CLIENT \
    --service rc4only@localhost --service-keytab "$dir/rc4only.keytab" \
    --enctypes rc4-hmac --json >interop-rc4.json 2>"$TAP_ERR"
if python3 - interop-rc4.json >>"$TAP_ERR" 2>&1 <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {r["requested"]["number"]: r for r in doc["rows"]}
rc4 = rows[23]
assert rc4["outcome"] == "refused" and "RFC 8429" in rc4["note"], rc4
assert rc4["issued"]["number"] == 23, rc4
EOF
    ok "an MIT initiator with rc4 alone, MIT accepting: the context gk5 imports refused, naming RFC 8429"
else
    not_ok "an MIT initiator with rc4 alone: gk5 interop says otherwise"
fi

# ---- gk5's initiator to gk5's acceptor (AD's PAC in the ticket) ----
tokens() { # CLIENT_CTX SERVER_CTX WHAT: Wrap both ways, a MIC
    local c=$1 s=$2 what=$3
    if "$GK5" wrap --ctx "$c" <msg >w1 2>"$TAP_ERR" &&
        "$GK5" unwrap --ctx "$s" <w1 >p1 2>>"$TAP_ERR" && cmp -s msg p1 &&
        "$GK5" wrap --ctx "$s" <msg2 >w2 2>>"$TAP_ERR" &&
        "$GK5" unwrap --ctx "$c" <w2 >p2 2>>"$TAP_ERR" && cmp -s msg2 p2 &&
        "$GK5" mic --ctx "$c" <msg >m1 2>>"$TAP_ERR" &&
        "$GK5" verify --ctx "$s" --token m1 <msg 2>>"$TAP_ERR"; then
        ok "$what: Wrap both ways, a MIC checked"
    else
        not_ok "$what: tokens"
    fi
}
cp cc cc.init
cell "gk5 init --mutual (its service ticket from Samba's KDC)" \
    "$GK5" init --ccache "FILE:$work/cc.init" --service gk5@localhost --mutual --out req --ctx c.ctx
cell "gk5 accept takes gk5's AP-REQ, the ticket's PAC passed through" \
    "$GK5" accept --keytab "$dir/service.keytab" --no-rcache --in req --out rep --ctx s.ctx --authz authz.der
# The ticket's AuthorizationData as gk5 carried it: AD puts its PAC
# (AD-WIN2K-PAC, 128) inside AD-IF-RELEVANT (1) (RFC 4120 5.2.6, MS-PAC).
if grep -Eq '^authorization data: [0-9]+ bytes \(the ticket.s, untouched\), in authz.der$' out &&
    python3 - authz.der >"$TAP_ERR" 2>&1 <<'EOF'; then
import sys
der = open(sys.argv[1], "rb").read()
def tlv(b, i):
    tag, n = b[i], b[i + 1]
    i += 2
    if n & 0x80:
        k = n & 0x7f
        n = int.from_bytes(b[i:i + k], "big")
        i += k
    return tag, b[i:i + n], i + n
def elements(seq_of):  # AuthorizationData: SEQUENCE OF SEQUENCE {[0] ad-type, [1] ad-data}
    tag, body, _ = tlv(seq_of, 0)
    assert tag == 0x30, tag
    i, out = 0, []
    while i < len(body):
        tag, el, i = tlv(body, i)
        assert tag == 0x30, tag
        t0, f0, j = tlv(el, 0)
        t1, f1, _ = tlv(el, j)
        assert (t0, t1) == (0xa0, 0xa1), (t0, t1)
        _, ad_type, _ = tlv(f0, 0)
        _, ad_data, _ = tlv(f1, 0)
        out.append((int.from_bytes(ad_type, "big", signed=True), ad_data))
    return out
outer = elements(der)
inner = [t for ad_type, data in outer if ad_type == 1 for t, _ in elements(data)]
print("outer", [t for t, _ in outer], "in AD-IF-RELEVANT", inner)
assert 128 in inner, inner
EOF
    ok "the ticket's authorization data: AD-IF-RELEVANT (1) holding AD-WIN2K-PAC (128), as Samba issued it"
else
    not_ok "no AD-WIN2K-PAC (128) in AD-IF-RELEVANT in the ticket's authorization data: $(grep authorization out)"
fi
cell "gk5 init --in: the AP-REP checked, the context made" \
    "$GK5" init --ctx c.ctx --in rep
tokens c.ctx s.ctx "gk5 -> gk5"

# ---- MIT's initiator, its tickets from Samba's KDC, to gk5's acceptor ----
"$MIT_INITIATOR" --target gk5@localhost --client-keytab "$dir/client.keytab" \
    --principal $CLIENT --out mreq --no-mutual --wrap mwrap <msg >mit.out 2>"$TAP_ERR"
rc=$?
if [ $rc = 0 ] && [ -s mreq ] && [ -s mwrap ]; then
    ok "MIT's initiator: an AP-REQ and a Wrap token, with tickets from Samba's KDC"
else
    not_ok "MIT's initiator: exit $rc"
fi
cell "gk5 accept takes MIT's AP-REQ" \
    "$GK5" accept --keytab "$dir/service.keytab" --no-rcache --in mreq --out mrep --ctx m.ctx
if grep -qx "initiator: $CLIENT" out; then ok "gk5 accept names MIT's client"; else not_ok "gk5 accept: $(head -c 200 out)"; fi
if "$GK5" unwrap --ctx m.ctx <mwrap >mplain 2>"$TAP_ERR" && cmp -s msg mplain; then
    ok "gk5 unwraps MIT's Wrap token"
else
    not_ok "gk5 unwraps MIT's Wrap token"
fi

# ---- gk5 interop: the MIT bridge and the native column ----
"$GK5" interop --client-keytab "$dir/client.keytab" --client $CLIENT \
    --service gk5@localhost --service-keytab "$dir/service.keytab" --json \
    >interop.json 2>"$TAP_ERR"
rc=$?
"$GK5" interop --client-keytab "$dir/client.keytab" --client $CLIENT \
    --service gk5@localhost --service-keytab "$dir/service.keytab" \
    >interop.txt 2>>"$TAP_ERR"
sed 's/^/# /' interop.txt
if [ $rc = 0 ]; then ok "gk5 interop: exit 0"; else not_ok "gk5 interop: exit $rc"; fi
if python3 - interop.json "$supported" "$realm_enctypes" >"$TAP_ERR" 2>&1 <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
supported = [int(e) for e in sys.argv[2].split()]
realm = {int(e) for e in sys.argv[3].split()}
assert doc["realm"] == "GK5.TEST" and doc["failures"] == 0, doc
rows = {r["requested"]["number"]: r for r in doc["rows"]}
assert sorted(rows) == sorted(supported + [23]), sorted(rows)
for et in supported:
    r = rows[et]
    if et in realm:
        assert r["outcome"] == "ran" and r["issued"]["number"] == et, r
        assert len(r["cells"]) == 8 and set(r["cells"].values()) == {"ok"}, r
        for role in ("initiator", "acceptor"):
            n = r["native"][role]
            assert n["outcome"] == "ran" and n["issued"]["number"] == et, n
            assert set(n["cells"].values()) == {"ok"}, n
    else:
        assert r["outcome"] in ("cannot issue", "not issued"), r
assert rows[23]["outcome"] in ("refused", "cannot issue", "not issued"), rows[23]
EOF
    ok "gk5 interop: AES256 and AES128 ran, 8 cells ok, native initiator and acceptor too; the enctypes AD lacks not issued"
else
    not_ok "gk5 interop: the table disagrees"
fi

# ---- gk5 realm start --kdc samba / stop: by PID ----
realm2=$work/realm2
if "$GK5" realm start --kdc samba "$realm2" >out 2>"$TAP_ERR" &&
    grep -q 'Samba AD samba pid' out && [ -s "$realm2/kdc.pid" ]; then
    ok "gk5 realm start --kdc samba: $(cat out)"
else
    not_ok "gk5 realm start --kdc samba"
fi
pid=$(cat "$realm2/kdc.pid" 2>/dev/null)
if [ -n "$pid" ] && [ "$(readlink "/proc/$pid/exe")" = /usr/sbin/samba ] &&
    [ "$(cat "$realm2/samba/samba.pid" 2>/dev/null)" = "$pid" ]; then
    ok "its samba runs (pid $pid, Samba's PID file in the folder names it)"
else
    not_ok "its samba: pid '$pid' is not the folder's samba"
fi
cell "gk5 kinit against the second realm" env KRB5_CONFIG="$realm2/krb5.conf" \
    "$GK5" kinit -k -t "$realm2/client.keytab" -c "FILE:$work/cc.r2" $CLIENT
cell "gk5 realm stop (the kind from kdc.kind)" "$GK5" realm stop "$realm2"
if [ -n "$pid" ] && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = /usr/sbin/samba ] &&
    ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
    not_ok "gk5 realm stop: samba $pid still runs"
elif [ -e "$realm2/kdc.pid" ]; then
    not_ok "gk5 realm stop: kdc.pid left"
else
    ok "gk5 realm stop: samba gone, kdc.pid removed"
fi
realm2=""

# ---- gk5 realm run --kdc samba: the folder removed afterwards ----
# (Samba's tree is the deepest of the realms': sysvol's policy folders.)
if "$GK5" realm run --kdc samba -- sh -c 'printf "%s\n" "$GK5_REALM_DIR"; [ -d "$GK5_REALM_DIR/samba/state/sysvol" ]' \
    >run.out 2>"$TAP_ERR"; then
    ran=$(head -1 run.out)
    if [ -n "$ran" ] && [ ! -e "$ran" ]; then
        ok "gk5 realm run --kdc samba: the realm's folder, sysvol and all, removed after the command"
    else
        not_ok "gk5 realm run --kdc samba: '$ran' left behind"
    fi
else
    not_ok "gk5 realm run --kdc samba -- sh: exit $?"
fi

tap_done
