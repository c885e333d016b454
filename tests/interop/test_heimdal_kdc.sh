#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5 against Heimdal's KDC (TAP, one line per cell), in the realm
# `gk5 realm run --kdc heimdal` made for this run (GK5_REALM_DIR,
# KRB5_CONFIG):
#   gk5 realm run --kdc heimdal --tap -- bash test_heimdal_kdc.sh GK5 MIT_INITIATOR
# The realm (Heimdal's kdc serves it; its keytabs, written by Heimdal's
# ext_keytab, read by MIT and gk5); gk5's own KDC client: kinit -k (Heimdal
# requires PA-ENC-TIMESTAMP), kvno for each enctype gk5 supports (those
# the realm lacks refused by the KDC, in words), klist, a password
# principal, refusals; gk5's initiator to gk5's acceptor; MIT's GSS-API
# initiator, its tickets from Heimdal's KDC, to gk5's acceptor; `gk5
# interop` (the MIT bridge and the native column); rc4 where it lives:
# Heimdal's rc4 ticket with an AES session key refused by gk5's client
# naming RFC 8429 with the ccache unchanged, and a service with an rc4 key
# alone refused by the KDC itself; the single-DES session key Heimdal
# issues for nfs/ services refused (RFC 6649); `gk5 realm start --kdc heimdal` and
# `stop`, the KDC and its worker gone by their PIDs.
set -u
GK5=${1:?usage: test_heimdal_kdc.sh GK5 MIT_INITIATOR}
MIT_INITIATOR=${2:?usage: test_heimdal_kdc.sh GK5 MIT_INITIATOR}
case $GK5 in /*) ;; *) GK5=$PWD/$GK5 ;; esac
case $MIT_INITIATOR in /*) ;; *) MIT_INITIATOR=$PWD/$MIT_INITIATOR ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"

dir=${GK5_REALM_DIR:?run me through gk5 realm run --kdc heimdal}
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-test-hkdc.XXXXXX") || exit 1
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

if [ "$(cat "$dir/kdc.kind" 2>/dev/null)" != heimdal ]; then
    echo "1..0 # SKIP $dir is not a realm on Heimdal's KDC (gk5 realm run --kdc heimdal)"
    exit 0
fi
if ! command -v klist >/dev/null || ! command -v kvno >/dev/null; then
    echo "1..0 # SKIP MIT's klist and kvno (krb5-user) not installed"
    exit 0
fi
KADMIN=("$(cat "$dir/heimdal.root")/usr/bin/kadmin.heimdal" -l
    "--config-file=$dir/kdc.conf" -r GK5.TEST)
CLIENT=gk5-client@GK5.TEST
PW='Gk5-heimdal-password-1'
printf '%s\n' "$PW" >pw
printf 'not-the-password\n' >badpw
printf 'from the initiator' >msg
printf 'and from the acceptor' >msg2
realm_enctypes=$(cat "$dir/kdc.enctypes")
supported=$("$GK5" enctypes | awk '$3 == "supported" { print $1 }')
et_name() { "$GK5" enctypes | awk -v e="$1" '$1 == e { print $2 }'; }
in_realm() { case " $realm_enctypes " in *" $1 "*) return 0 ;; esac; return 1; }
echo "# Heimdal's KDC: $("$(cat "$dir/heimdal.root")/usr/lib/heimdal-servers/kdc" --version 2>&1 | head -1); the realm's enctypes: $realm_enctypes"

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
kadm() {
    "${KADMIN[@]}" "$@" >>kadmin.log 2>&1
}

# ---- the realm ----
cell "MIT klist -k reads Heimdal's ext_keytab output (service.keytab)" \
    klist -k -e "$dir/service.keytab"
bad=""
for et in $realm_enctypes; do
    case $et in 23) continue ;; esac # named arcfour-hmac by MIT's klist
    grep -q "gk5/localhost@GK5.TEST ($(et_name "$et"))" out ||
        grep -q "gk5/localhost@GK5.TEST (DEPRECATED:$(et_name "$et"))" out ||
        bad="$bad $et"
done
if [ -z "$bad" ]; then
    ok "service.keytab: a key of each of the realm's enctypes ($realm_enctypes)"
else
    not_ok "service.keytab: no key of$bad"
fi
if klist -k -e "$dir/rc4.keytab" 2>"$TAP_ERR" | grep -c 'rc4/localhost@GK5.TEST' | grep -qx 1 &&
    klist -k -e "$dir/rc4.keytab" | grep -q 'arcfour-hmac'; then
    ok "rc4.keytab: rc4/localhost's rc4-hmac key alone"
else
    not_ok "rc4.keytab: not one rc4-hmac key"
fi

# ---- gk5's KDC client ----
cell "gk5 kinit -k -t client.keytab" \
    "$GK5" kinit -k -t "$dir/client.keytab" -c "FILE:$work/cc" $CLIENT
if grep -q "ENC-TS Pre-authentication succeeded -- $CLIENT" "$dir/kdc.log"; then
    ok "Heimdal's KDC asked for pre-authentication and took gk5's PA-ENC-TIMESTAMP"
else
    not_ok "no ENC-TS pre-authentication of $CLIENT in Heimdal's kdc.log"
fi
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
            grep -qx 'gk5/localhost@GK5.TEST: kvno = 1' out &&
            "$GK5" klist -e -c "cc.$et" >klist.out 2>>"$TAP_ERR" &&
            grep -A1 'gk5/localhost@GK5.TEST' klist.out | grep -q "Etype (skey, tkt): $name, " &&
            klist -c "cc.$et" 2>>"$TAP_ERR" | grep -q 'gk5/localhost@GK5.TEST'; then
            ok "gk5 kvno -e $name ($et): a session key of that type, gk5 klist and MIT klist read it"
        else
            not_ok "gk5 kvno -e $name ($et)"
        fi
    else
        refused "gk5 kvno -e $name ($et): not in Heimdal's KDC, refused by it in words" \
            'KDC_ERR_ETYPE_NOSUPP \(14\)' "$GK5" kvno -e "$et" -c "cc.$et" gk5/localhost
    fi
done
cell "gk5 kvno nfs/localhost" "$GK5" kvno -c cc nfs/localhost
kadm add --password="$PW" --use-defaults alice
cell "gk5 kinit with a password (a principal made with Heimdal's kadmin -l)" \
    "$GK5" kinit -c "$work/cc.alice" --password-file pw alice
refused "wrong password: KDC_ERR_PREAUTH_FAILED" 'KDC_ERR_PREAUTH_FAILED \(24\)' \
    "$GK5" kinit -c "$work/cc.bad" --password-file badpw alice
refused "unknown principal: KDC_ERR_C_PRINCIPAL_UNKNOWN" 'C_PRINCIPAL_UNKNOWN \(6\)' \
    "$GK5" kinit -c "$work/cc.bad" --password-file pw nobody
refused "unknown service: KDC_ERR_S_PRINCIPAL_UNKNOWN" 'S_PRINCIPAL_UNKNOWN \(7\)' \
    "$GK5" kvno -c cc nosuch/service
if [ -e cc.bad ]; then not_ok "no cache written on failure"; else ok "no cache written on failure"; fi

# ---- rc4 where it lives ----
# rc4/localhost: an rc4 ticket with an AES session key (its rc4 key first,
# an AES key after it).  gk5's client refuses the reply, the cache as it was.
cp cc cc.rc4
sum=$(md5sum <cc.rc4)
refused "rc4/localhost: Heimdal's rc4 ticket refused by gk5 kvno, naming RFC 8429" \
    "the KDC encrypted the ticket in the service's rc4-hmac \\(23\\) key, which gk5 refuses: the service needs an AES key: .*RFC 8429" \
    "$GK5" kvno -c cc.rc4 rc4/localhost
if [ "$(md5sum <cc.rc4)" = "$sum" ]; then
    ok "rc4/localhost: the ccache unchanged"
else
    not_ok "rc4/localhost: the ccache changed"
fi
cp cc cc.mit-rc4
if kvno -c cc.mit-rc4 rc4/localhost >out 2>"$TAP_ERR" &&
    klist -e -c cc.mit-rc4 | grep -A1 'rc4/localhost@GK5.TEST' |
    grep -Eq 'Etype \(skey, tkt\): aes[a-z0-9-]+, (DEPRECATED:)?arcfour-hmac'; then
    ok "rc4/localhost: MIT kvno stores what Heimdal issued, an rc4 ticket with an AES session key"
else
    not_ok "rc4/localhost: MIT kvno did not get an rc4 ticket with an AES session key"
fi
refused "rc4/localhost: gk5 init refuses the rc4 ticket, naming RFC 8429" 'RFC 8429' \
    "$GK5" init --ccache "FILE:$work/cc.rc4" --service rc4@localhost --out req.rc4 --ctx ctx.rc4
if [ -e req.rc4 ] || [ -e ctx.rc4 ]; then
    not_ok "gk5 init wrote nothing for rc4"
else
    ok "gk5 init wrote nothing for rc4"
fi
# A service with an rc4-hmac key alone: Heimdal gives a session key only
# of a type the service has, so the KDC itself refuses gk5's AES request.
kadm add -r --use-defaults rc4only/localhost
others=$(for et in $realm_enctypes; do [ "$et" = 23 ] || printf '%s ' "$(et_name "$et")"; done)
# shellcheck disable=SC2086
kadm del_enctype rc4only/localhost $others
if "${KADMIN[@]}" get rc4only/localhost 2>/dev/null | grep -Eq 'Keytypes: arcfour-hmac-md5\(pw-salt\)\[[0-9]+\]$'; then
    cp cc cc.rc4only
    sum=$(md5sum <cc.rc4only)
    refused "an rc4-only service: Heimdal's KDC refuses gk5's AES request (KDC_ERR_ETYPE_NOSUPP)" \
        'KDC_ERR_ETYPE_NOSUPP \(14\)' "$GK5" kvno -c cc.rc4only rc4only/localhost
    if [ "$(md5sum <cc.rc4only)" = "$sum" ]; then
        ok "an rc4-only service: the ccache unchanged"
    else
        not_ok "an rc4-only service: the ccache changed"
    fi
else
    not_ok "kadmin -l could not leave rc4only/localhost with an rc4-hmac key alone: $(tail -3 kadmin.log)"
fi

# Single DES where Heimdal still issues it: for nfs/ (and afs/) services
# its KDC falls back to a des-cbc-crc session key when the client asks for
# no type the service has a key of.  gk5 refuses it (RFC 6649); MIT's
# kvno, as observed, stores it.
lacking=""
for et in $supported; do in_realm "$et" || { lacking=$et; break; }; done
if [ -n "$lacking" ]; then
    cp cc cc.des
    sum=$(md5sum <cc.des)
    refused "nfs/localhost asked for $(et_name "$lacking") alone: Heimdal's single-DES session key refused by gk5 (RFC 6649)"         'des-cbc-crc \(1\) is deliberately unsupported: RFC 6649'         "$GK5" kvno -e "$lacking" -c cc.des nfs/localhost
    if [ "$(md5sum <cc.des)" = "$sum" ]; then
        ok "nfs/localhost, single DES: the ccache unchanged"
    else
        not_ok "nfs/localhost, single DES: the ccache changed"
    fi
    cp cc cc.mit-des
    if kvno -e "$(et_name "$lacking")" -c cc.mit-des nfs/localhost >/dev/null 2>&1; then
        echo "# MIT kvno -e $(et_name "$lacking") nfs/localhost stored: $(klist -e -c cc.mit-des | grep -A1 nfs/localhost | tail -1 | tr -s ' \t' ' ')"
    fi
else
    tap_skip "nfs/localhost: Heimdal's single-DES fallback" "the realm has every enctype gk5 supports"
fi

# ---- gk5's initiator to gk5's acceptor ----
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
cell "gk5 init --mutual (its service ticket from Heimdal's KDC)" \
    "$GK5" init --ccache "FILE:$work/cc.init" --service gk5@localhost --mutual --out req --ctx c.ctx
cell "gk5 accept takes gk5's AP-REQ" \
    "$GK5" accept --keytab "$dir/service.keytab" --no-rcache --in req --out rep --ctx s.ctx
cell "gk5 init --in: the AP-REP checked, the context made" \
    "$GK5" init --ctx c.ctx --in rep
tokens c.ctx s.ctx "gk5 -> gk5"

# ---- MIT's initiator, its tickets from Heimdal's KDC, to gk5's acceptor ----
"$MIT_INITIATOR" --target gk5@localhost --client-keytab "$dir/client.keytab" \
    --principal $CLIENT --out mreq --no-mutual --wrap mwrap <msg >mit.out 2>"$TAP_ERR"
rc=$?
if [ $rc = 0 ] && [ -s mreq ] && [ -s mwrap ]; then
    ok "MIT's initiator: an AP-REQ and a Wrap token, with tickets from Heimdal's KDC"
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
rc4 = rows[23]
assert rc4["outcome"] == "refused" and "RFC 8429" in rc4["note"], rc4
for role in ("initiator", "acceptor"):
    assert rc4["native"][role]["outcome"] == "refused", rc4
EOF
    ok "gk5 interop: every enctype of the realm ran, 8 cells ok, native initiator and acceptor too; the others not issued; rc4 refused naming RFC 8429"
else
    not_ok "gk5 interop: the table disagrees"
fi

# ---- gk5 realm start --kdc heimdal / stop: by PID ----
realm2=$work/realm2
if "$GK5" realm start --kdc heimdal "$realm2" >out 2>"$TAP_ERR" &&
    grep -q 'Heimdal kdc pid' out && [ -s "$realm2/kdc.pid" ]; then
    ok "gk5 realm start --kdc heimdal: $(cat out)"
else
    not_ok "gk5 realm start --kdc heimdal"
fi
pids="$(cat "$realm2/kdc.pid" 2>/dev/null) $(cat "$realm2/kdc.workers" 2>/dev/null)"
alive=""
for p in $pids; do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--config-file=$realm2/kdc.conf" &&
        alive="$alive $p"
done
if [ "$(echo $alive | wc -w)" = 2 ]; then
    ok "its master and worker run ($alive )"
else
    not_ok "its master and worker: ($alive ) of ($pids )"
fi
cell "gk5 kinit against the second realm" env KRB5_CONFIG="$realm2/krb5.conf" \
    "$GK5" kinit -k -t "$realm2/client.keytab" -c "FILE:$work/cc.r2" $CLIENT
cell "gk5 realm stop (the kind from kdc.kind)" "$GK5" realm stop "$realm2"
left=""
for p in $pids; do
    [ -e "/proc/$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
        grep -q -- "--config-file=$realm2/kdc.conf" && left="$left $p"
done
if [ -z "$left" ] && [ ! -e "$realm2/kdc.pid" ]; then
    ok "gk5 realm stop: master and worker gone, kdc.pid removed"
else
    not_ok "gk5 realm stop: still running:$left"
fi
realm2=""

tap_done
