#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5's own KDC client (`gk5 kinit | klist | kvno | kdestroy`) against
# MIT's KDC and MIT's tools (TAP, one line per cell), in the realm
# `gk5 realm run` made for this run (GK5_REALM_DIR, KRB5_CONFIG):
#   gk5 realm run --tap -- bash test_kdc_client.sh GK5
# Caches either side writes the other reads: gk5 kinit (password,
# keytab) -> MIT klist -e; MIT kinit -> gk5 klist, gk5 kvno -> MIT klist;
# a password principal per enctype the KDC issues; then refusals in
# words: wrong password, unknown principal, expired password, a KDC
# that is down, a ccache of another type, a truncated ccache, usage.
set -u
GK5=${1:?usage: test_kdc_client.sh GK5}
case $GK5 in /*) ;; *) GK5=$PWD/$GK5 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"

dir=${GK5_REALM_DIR:?run me through gk5 realm run}
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-test-kdcc.XXXXXX") || exit 1
trap 'rm -rf -- "$work"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
TAP_ERR=$work/err
cd "$work" || exit 1

export KRB5_KDC_PROFILE=$dir/kdc.conf
PW='Gk5-test-password-1'
unset KRB5CCNAME

# A cell: DESC, then the command; ok when it exits 0.
cell() {
    local desc=$1
    shift
    if "$@" >"$work/out" 2>"$TAP_ERR"; then ok "$desc"; else not_ok "$desc"; fi
}
# A refusal: DESC, the words expected on stderr (grep -E), the command;
# ok when it exits 1 and says them.
refused() {
    local desc=$1 words=$2 rc
    shift 2
    "$@" >"$work/out" 2>"$TAP_ERR"
    rc=$?
    if [ "$rc" = 1 ] && grep -Eq -- "$words" "$TAP_ERR"; then
        ok "$desc"
    else
        echo "exit $rc" >>"$TAP_ERR"
        not_ok "$desc"
    fi
}

kadm() {
    kadmin.local -r GK5.TEST -q "$1" >>"$work/kadmin.log" 2>&1
}

if ! command -v kadmin.local >/dev/null || ! command -v klist >/dev/null; then
    echo "1..0 # SKIP kadmin.local or klist (MIT krb5-user) not installed"
    exit 0
fi

kadm "addprinc -pw $PW alice"
kadm "addprinc -pw $PW +requires_preauth bob"
kadm "addprinc -pw $PW expired"
kadm "modprinc -pwexpire yesterday expired"
printf '%s\n' "$PW" >pw
printf 'not-the-password\n' >badpw

# ---- gk5 writes, MIT reads ----
cell "kinit with a password (no preauth required)" \
    "$GK5" kinit -c "$work/cc.alice" --password-file pw alice
cell "MIT klist -e reads gk5's cache (password)" \
    klist -e -c "FILE:$work/cc.alice"
if grep -q 'krbtgt/GK5.TEST@GK5.TEST' "$work/out" &&
    grep -q 'Default principal: alice@GK5.TEST' "$work/out"; then
    ok "MIT klist names the client and krbtgt/GK5.TEST"
else
    not_ok "MIT klist names the client and krbtgt/GK5.TEST"
fi
cell "kinit with a password, PA-ENC-TIMESTAMP (requires_preauth)" \
    "$GK5" kinit -c "$work/cc.bob" --password-file pw bob@GK5.TEST
cell "MIT klist -e reads gk5's cache (preauth)" \
    klist -e -c "FILE:$work/cc.bob"
echo "$PW" | "$GK5" kinit -c "$work/cc.stdin" alice >"$work/out" 2>"$TAP_ERR" &&
    ok "kinit reads the password from stdin" || not_ok "kinit reads the password from stdin"
cell "kinit -k -t client.keytab" \
    "$GK5" kinit -k -t "$dir/client.keytab" -c "FILE:$work/cc.kt"
cell "MIT klist -e reads gk5's cache (keytab)" klist -e -c "$work/cc.kt"
grep -q 'gk5-client@GK5.TEST' "$work/out" &&
    ok "the keytab's first principal is the client" ||
    not_ok "the keytab's first principal is the client"
cell "MIT kvno with gk5's TGT" env KRB5CCNAME="FILE:$work/cc.kt" kvno gk5/localhost@GK5.TEST
cell "gk5 kinit -l 10m" "$GK5" kinit -l 10m -k -t "$dir/client.keytab" -c "$work/cc.life"

# ---- MIT writes, gk5 reads ----
cell "MIT kinit -k" kinit -k -t "$dir/client.keytab" -c "FILE:$work/cc.mit" gk5-client@GK5.TEST
cell "gk5 klist reads MIT's cache" "$GK5" klist -e -f -c "$work/cc.mit"
grep -Eq 'Etype \(skey, tkt\): aes256-cts-hmac-sha1-96' "$work/out" &&
    ok "gk5 klist -e names the enctypes" || not_ok "gk5 klist -e names the enctypes"
cell "gk5 kvno gk5/localhost on MIT's TGT" "$GK5" kvno -c "$work/cc.mit" gk5/localhost
grep -Eq '^gk5/localhost@GK5.TEST: kvno = [0-9]+$' "$work/out" &&
    ok "gk5 kvno prints 'SERVICE: kvno = N'" || not_ok "gk5 kvno prints 'SERVICE: kvno = N'"
cell "MIT klist sees gk5's service ticket" klist -c "$work/cc.mit"
grep -q 'gk5/localhost@GK5.TEST' "$work/out" &&
    ok "MIT klist lists gk5/localhost" || not_ok "MIT klist lists gk5/localhost"
cell "gk5 kvno again: from the cache" "$GK5" kvno -c "$work/cc.mit" gk5/localhost
cell "gk5 kvno on gk5's own TGT" "$GK5" kvno -c "$work/cc.kt" gk5/localhost@GK5.TEST

# ---- every enctype the KDC issues ----
for et in aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 \
    aes256-cts-hmac-sha384-192 aes128-cts-hmac-sha256-128 \
    camellia256-cts-cmac camellia128-cts-cmac; do
    kadm "addprinc -pw $PW -e $et:normal +requires_preauth u-$et"
    kadm "addprinc -randkey -e $et:normal svc/$et"
    if "$GK5" kinit -c "$work/cc.$et" --password-file pw "u-$et" \
        >"$work/out" 2>"$TAP_ERR" &&
        "$GK5" kvno -c "$work/cc.$et" "svc/$et" >>"$work/out" 2>>"$TAP_ERR" &&
        klist -e -c "$work/cc.$et" >"$work/klist" 2>>"$TAP_ERR" &&
        grep -q "svc/$et@GK5.TEST" "$work/klist"; then
        ok "$et: kinit (preauth), kvno, MIT klist"
    else
        not_ok "$et: kinit (preauth), kvno, MIT klist"
    fi
done
# An rc4-only service: the KDC issues an rc4 ticket, gk5 refuses it.
kadm "addprinc -randkey -e arcfour-hmac:normal svc/rc4"
if grep -q 'svc/rc4' "$work/kadmin.log" && ! grep -q 'while creating "svc/rc4' "$work/kadmin.log"; then
    refused "an rc4 service ticket is refused (RFC 8429), the service's key named" \
        "the KDC encrypted the ticket in the service's rc4-hmac \\(23\\) key, which gk5 refuses: the service needs an AES key: .*RFC 8429.*cracked offline.*msDS-SupportedEncryptionTypes" \
        "$GK5" kvno -c "$work/cc.kt" svc/rc4
    if klist -c "$work/cc.kt" 2>/dev/null | grep -q 'svc/rc4'; then
        not_ok "nothing stored for the refused rc4 ticket"
    else
        ok "nothing stored for the refused rc4 ticket"
    fi
else
    tap_skip "an rc4 service ticket is refused" "the KDC made no rc4-only principal"
fi

# ---- refusals, in words ----
refused "wrong password: KDC_ERR_PREAUTH_FAILED" 'KDC_ERR_PREAUTH_FAILED \(24\)' \
    "$GK5" kinit -c "$work/cc.bad" --password-file badpw bob
refused "wrong password without preauth: the reply does not decrypt" \
    'does not decrypt|PREAUTH_FAILED' \
    "$GK5" kinit -c "$work/cc.bad" --password-file badpw alice
[ -e "$work/cc.bad" ] && not_ok "no cache written on failure" || ok "no cache written on failure"
refused "unknown principal: KDC_ERR_C_PRINCIPAL_UNKNOWN" 'C_PRINCIPAL_UNKNOWN \(6\)' \
    "$GK5" kinit -c "$work/cc.bad" --password-file pw nobody
refused "expired password: KDC_ERR_KEY_EXPIRED" 'KEY_EXPIRED \(23\)' \
    "$GK5" kinit -c "$work/cc.bad" --password-file pw expired
refused "unknown service: KDC_ERR_S_PRINCIPAL_UNKNOWN" 'S_PRINCIPAL_UNKNOWN \(7\)' \
    "$GK5" kvno -c "$work/cc.kt" nosuch/service
sed -e 's/kdc = 127.0.0.1:[0-9]*/kdc = 127.0.0.1:9/' "$KRB5_CONFIG" >down.conf
start=$(date +%s)
refused "a KDC that is down: no KDC answered" 'no KDC of the realm answered' \
    env KRB5_CONFIG="$work/down.conf" "$GK5" kinit -c "$work/cc.bad" --password-file pw alice
[ $(($(date +%s) - start)) -le 15 ] && ok "... within 15 s" || not_ok "... within 15 s"
refused "a KEYRING: ccache: the type named" 'type other than FILE|KEYRING' \
    "$GK5" klist -c KEYRING:persistent:0
refused "kinit into a KEYRING: ccache" 'type other than FILE|KEYRING' \
    "$GK5" kinit -c KEYRING:x --password-file pw alice
head -c 40 "$work/cc.kt" >trunc
refused "a truncated ccache" 'malformed or truncated' "$GK5" klist -c "$work/trunc"
refused "klist with no cache" 'No credentials cache found' "$GK5" klist -c "$work/none"
refused "kvno in another realm: cross-realm refused" 'referral|another realm' \
    "$GK5" kvno -c "$work/cc.mit" nosuch2/x@OTHER.REALM
kinit -k -t "$dir/client.keytab" -S gk5/localhost@GK5.TEST -c "FILE:$work/cc.notgt" \
    gk5-client@GK5.TEST >/dev/null 2>&1
refused "kvno with a cache holding no TGT" 'no ticket-granting ticket' \
    "$GK5" kvno -c "$work/cc.notgt" svc/aes256-cts-hmac-sha1-96
if command -v faketime >/dev/null; then
    refused "skew: KRB_AP_ERR_SKEW with the difference" 'KRB_AP_ERR_SKEW \(37\): clocks differ by [0-9]+ s' \
        faketime -f '+2h' "$GK5" kinit -c "$work/cc.bad" --password-file pw bob
else
    tap_skip "skew: KRB_AP_ERR_SKEW with the difference" "no faketime to fake the clock with"
fi
cell "kdestroy" "$GK5" kdestroy -c "$work/cc.alice"
[ -e "$work/cc.alice" ] && not_ok "kdestroy removed the file" || ok "kdestroy removed the file"
refused "kdestroy with no cache" 'No credentials cache found' "$GK5" kdestroy -c "$work/cc.alice"

# ---- usage ----
"$GK5" kinit -l nonsense alice >/dev/null 2>&1
[ $? = 2 ] && ok "kinit -l nonsense: exit 2" || not_ok "kinit -l nonsense: exit 2"
"$GK5" kvno >/dev/null 2>&1
[ $? = 2 ] && ok "kvno without a service: exit 2" || not_ok "kvno without a service: exit 2"
"$GK5" klist --bogus >/dev/null 2>&1
[ $? = 2 ] && ok "klist --bogus: exit 2" || not_ok "klist --bogus: exit 2"

tap_done
