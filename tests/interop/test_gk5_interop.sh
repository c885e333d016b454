#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# `gk5 interop` against realms it did not make (TAP, one line per cell):
# the realm `gk5 realm run` made for this run (GK5_REALM_DIR, KRB5_CONFIG),
# with the client's and the service's keytabs and then --loopback; a second
# realm whose KDC has no aes-sha2 keys (`gk5 realm start` with
# GK5_KDC_ENCTYPES), where 19 and 20 must be rows that say so and not
# failures; usage errors.  The native column (gk5's own initiator and
# acceptor against MIT's): a row of it under each enctype's, passing for
# every enctype issued, skipped for a ccache gk5 cannot read, and failing
# with gk5's words for a service keytab without the ticket's key.
#   gk5 realm run --tap -- bash test_gk5_interop.sh PATH_TO_GK5
set -u
GK5=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"

dir=${GK5_REALM_DIR:?run me through gk5 realm run}
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-test-interop.XXXXXX") || exit 1
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

ends=(--client-keytab "$dir/client.keytab" --client gk5-client@GK5.TEST
    --service gk5@localhost)

# Every enctype this build supports, in the table's order.
supported=$("$GK5" enctypes | awk '$3 == "supported" { print $1 }')

# expect_usage DESC WORD ARGS...: exit 2, and WORD in the message.
expect_usage() {
    local desc=$1 word=$2 rc
    shift 2
    "$GK5" interop "$@" >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$word" "$work/err"; then
        ok "$desc: exit 2 naming $word"
    else
        not_ok "$desc: exit $rc, wanted 2 naming $word: $(head -c 300 "$work/err")"
    fi
}

# check_rows FILE DESC: a row per supported enctype issued as requested
# with every cell ok, and rc4 refused naming RFC 8429.
check_rows() {
    local out=$1 desc=$2 et name line bad=""
    for et in $supported; do
        name=$("$GK5" enctypes | awk -v e="$et" '$1 == e { print $2 }')
        line=$(grep -E "^$name \($et\) +$name \($et\) +ok +ok +ok +ok +ok +ok +ok +ok$" "$out")
        [ -n "$line" ] || bad="$bad $et"
    done
    if [ -z "$bad" ]; then
        ok "$desc: every supported enctype issued as requested, 8 cells ok"
    else
        not_ok "$desc: no all-ok row for enctype(s)$bad"
    fi
    if grep -qE '^rc4-hmac \(23\) +rc4-hmac \(23\) +refused: .*RFC 8429' "$out"; then
        ok "$desc: rc4-hmac issued and refused, naming RFC 8429"
    else
        not_ok "$desc: no rc4-hmac refusal row naming RFC 8429"
    fi
    if grep -q 'FAIL' "$out"; then
        not_ok "$desc: a FAIL in the table"
    else
        ok "$desc: no FAIL"
    fi
}

# 1. Usage errors.
expect_usage "no --service" "--service" --client-keytab "$dir/client.keytab" \
    --service-keytab "$dir/service.keytab"
expect_usage "unknown enctype name" "--enctypes" "${ends[@]}" \
    --service-keytab "$dir/service.keytab" --enctypes aes256-cts,bogus-enctype
expect_usage "no acceptor keys, no --loopback" "--service-keytab" "${ends[@]}"
expect_usage "unknown option" "--frobnicate" "${ends[@]}" --frobnicate

# 2. Help.
if "$GK5" interop --help | grep -q 'gk5 interop --service nfs@'; then
    ok "gk5 interop --help has an example for an existing realm"
else
    not_ok "gk5 interop --help has no example"
fi
if "$GK5" --help | grep -q '^  interop '; then
    ok "gk5 --help lists interop"
else
    not_ok "gk5 --help does not list interop"
fi

# 3. The realm of gk5 realm run, client keytab and service keytab, default enctypes.
"$GK5" interop "${ends[@]}" --service-keytab "$dir/service.keytab" \
    >"$work/table" 2>"$work/err"
rc=$?
sed 's/^/# /' "$work/table"
if [ $rc -eq 0 ]; then ok "keytabs: exit 0"; else not_ok "keytabs: exit $rc"; fi
check_rows "$work/table" "keytabs"
want=$(($(echo "$supported" | wc -w) + 1))
got=$(grep -cE '^[a-z0-9-]+ \([0-9]+\) ' "$work/table")
if [ "$got" -eq "$want" ]; then
    ok "keytabs: $want rows, one per enctype"
else
    not_ok "keytabs: $got rows, wanted $want"
fi

# 4. --json: parses, and says what the table said.
"$GK5" interop "${ends[@]}" --service-keytab "$dir/service.keytab" --json \
    >"$work/json" 2>"$work/err"
rc=$?
if [ $rc -eq 0 ] && python3 -c 'import json,sys; json.load(sys.stdin)' <"$work/json"; then
    ok "--json: exit 0 and it parses"
else
    not_ok "--json: exit $rc or not JSON: $(head -c 300 "$work/json")"
fi
if python3 - "$work/json" "$supported" >"$work/err" 2>&1 <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
want = [int(e) for e in sys.argv[2].split()] + [23]
assert doc["realm"] == "GK5.TEST", doc["realm"]
assert doc["client"] == "gk5-client@GK5.TEST", doc["client"]
assert doc["service"].startswith("gk5/localhost"), doc["service"]
assert doc["failures"] == 0, doc["failures"]
rows = doc["rows"]
assert [r["requested"]["number"] for r in rows] == want, rows
for r in rows[:-1]:
    assert r["outcome"] == "ran", r
    assert r["issued"]["number"] == r["requested"]["number"], r
    assert len(r["cells"]) == 8 and set(r["cells"].values()) == {"ok"}, r
rc4 = rows[-1]
assert rc4["outcome"] == "refused" and "RFC 8429" in rc4["note"], rc4
EOF
    ok "--json agrees with the table"
else
    not_ok "--json disagrees"
fi

# 5. --loopback: the acceptor takes its keys from MIT's default keytab.
KRB5_KTNAME=FILE:$dir/service.keytab "$GK5" interop "${ends[@]}" --loopback \
    >"$work/loop" 2>"$work/err"
rc=$?
if [ $rc -eq 0 ]; then ok "--loopback: exit 0"; else not_ok "--loopback: exit $rc"; fi
check_rows "$work/loop" "--loopback"

# 6n. The native column, under each row of the table of 3: gk5_initiator
# (its TGT through gk5_kinit) against MIT's acceptor, MIT's initiator
# against gk5_accept; every cell ok for every supported enctype, rc4
# refused by gk5 at both ends, naming RFC 8429.
# check_native FILE DESC [ENCTYPES]: both native rows all ok for each.
check_native() {
    local out=$1 desc=$2 ets=${3:-$supported} et name role bad=""
    for et in $ets; do
        name=$("$GK5" enctypes | awk -v e="$et" '$1 == e { print $2 }')
        for role in initiator acceptor; do
            grep -qE "^  native $role +$name \($et\) +ok +ok +ok +ok +ok +ok +ok +ok$" "$out" ||
                bad="$bad $et/$role"
        done
    done
    if [ -z "$bad" ]; then
        ok "$desc: native initiator and acceptor rows, 8 cells ok, for every enctype"
    else
        not_ok "$desc: no all-ok native row for$bad"
    fi
}
check_native "$work/table" "keytabs"
for role in initiator acceptor; do
    if grep -qE "^  native $role +- +refused: .*rc4-hmac \(23\).*RFC 8429" "$work/table"; then
        ok "keytabs: native $role refuses rc4-hmac, naming RFC 8429"
    else
        not_ok "keytabs: native $role does not refuse rc4-hmac"
    fi
done
"$GK5" interop "${ends[@]}" --service-keytab "$dir/service.keytab" --no-native \
    >"$work/nonative" 2>"$work/err"
rc=$?
if [ $rc -eq 0 ] && ! grep -q 'native' "$work/nonative"; then
    ok "--no-native: exit 0, no native row"
else
    not_ok "--no-native: exit $rc or a native row"
fi
check_rows "$work/nonative" "--no-native"
if python3 - "$work/json" "$supported" >"$work/err" 2>&1 <<'EOF'; then
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
want = [int(e) for e in sys.argv[2].split()]
for r in rows[:-1]:
    for role in ("initiator", "acceptor"):
        n = r["native"][role]
        assert n["outcome"] == "ran", n
        assert n["issued"]["number"] == r["requested"]["number"], n
        assert len(n["cells"]) == 8 and set(n["cells"].values()) == {"ok"}, n
        assert n["why"] == [], n
for role in ("initiator", "acceptor"):
    n = rows[-1]["native"][role]
    assert n["outcome"] == "refused" and "RFC 8429" in n["note"], n
assert len(rows) == len(want) + 1
EOF
    ok "--json: the native column agrees with the table"
else
    not_ok "--json: the native column disagrees"
fi

# 6c. A FILE ccache instead of a client keytab: gk5 reads a copy of it.
# A DIR: ccache, which gk5 does not read: the native initiator says so
# and is skipped, not failed; the native acceptor still runs.
if command -v kinit >/dev/null 2>&1 &&
    kinit -k -t "$dir/client.keytab" -c "FILE:$work/cc.file" gk5-client@GK5.TEST \
        >"$work/err" 2>&1; then
    "$GK5" interop --ccache "FILE:$work/cc.file" --service gk5@localhost \
        --service-keytab "$dir/service.keytab" --enctypes 18,17 \
        >"$work/ccfile" 2>"$work/err"
    rc=$?
    if [ $rc -eq 0 ]; then
        check_native "$work/ccfile" "a FILE ccache" "18 17"
    else
        not_ok "a FILE ccache: exit $rc: $(grep -m3 'FAIL' "$work/ccfile")"
    fi
    mkdir -p "$work/ccdir"
    if kinit -k -t "$dir/client.keytab" -c "DIR:$work/ccdir" gk5-client@GK5.TEST \
        >"$work/err" 2>&1; then
        "$GK5" interop --ccache "DIR:$work/ccdir" --service gk5@localhost \
            --service-keytab "$dir/service.keytab" --enctypes 18 \
            >"$work/ccdir.out" 2>"$work/err"
        rc=$?
        sed 's/^/# /' "$work/ccdir.out" | grep native
        if [ $rc -eq 0 ] &&
            grep -qE '^  native initiator +- +skipped: .*DIR:.* not a FILE cache' "$work/ccdir.out" &&
            ! grep -q FAIL "$work/ccdir.out"; then
            ok "a DIR: ccache: the native initiator skipped, saying why; exit 0"
        else
            not_ok "a DIR: ccache: exit $rc, or no skip: $(grep -m2 native "$work/ccdir.out")"
        fi
        if grep -qE '^  native acceptor +aes256-cts-hmac-sha1-96 \(18\) +ok +ok +ok +ok +ok +ok +ok +ok$' "$work/ccdir.out"; then
            ok "a DIR: ccache: the native acceptor still runs, 8 cells ok"
        else
            not_ok "a DIR: ccache: no all-ok native acceptor row"
        fi
    else
        tap_skip "a DIR: ccache: the native initiator skipped" "MIT kinit cannot write DIR:"
    fi
else
    tap_skip "a FILE ccache: native rows" "no MIT kinit"
fi

# 6f. Made to fail: a service keytab without the key the KDC encrypts the
# ticket in (only camellia128's).  MIT's acceptor cannot decrypt it either;
# the native rows say FAIL with the words of whoever refused, gk5_accept's
# its own; exit 1.
if command -v ktutil >/dev/null 2>&1 &&
    printf 'rkt %s\ndelent 8\ndelent 7\ndelent 5\ndelent 4\ndelent 3\ndelent 2\ndelent 1\nwkt %s\nq\n' \
        "$dir/service.keytab" "$work/nokey.keytab" | ktutil >"$work/err" 2>&1 &&
    [ -s "$work/nokey.keytab" ]; then
    "$GK5" interop "${ends[@]}" --service-keytab "$work/nokey.keytab" \
        --enctypes 18 >"$work/nokey" 2>"$work/err"
    rc=$?
    sed 's/^/# /' "$work/nokey"
    if [ $rc -eq 1 ]; then ok "no key: exit 1"; else not_ok "no key: exit $rc, wanted 1"; fi
    if grep -qE '^  native acceptor +- +FAIL: gk5_accept: ' "$work/nokey"; then
        ok "no key: the native acceptor fails in gk5's words"
    else
        not_ok "no key: no native acceptor FAIL in gk5_accept's words"
    fi
    if grep -qE '^  native initiator +[a-z0-9-]+ \(18\) +FAIL: MIT gss_accept_sec_context' "$work/nokey"; then
        ok "no key: the native initiator fails where MIT's acceptor refuses"
    else
        not_ok "no key: no native initiator FAIL at MIT's acceptor"
    fi
    "$GK5" interop "${ends[@]}" --service-keytab "$work/nokey.keytab" \
        --enctypes 18 --json >"$work/nokey.json" 2>"$work/err"
    if python3 - "$work/nokey.json" >"$work/err" 2>&1 <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
n = doc["rows"][0]["native"]
assert n["acceptor"]["outcome"] == "failed", n
assert n["acceptor"]["note"].startswith("gk5_accept: "), n
assert n["initiator"]["outcome"] == "failed", n
assert doc["failures"] >= 2 and doc["rows"][0]["failures"] >= 2, doc
EOF
        ok "no key: --json says both native ends failed"
    else
        not_ok "no key: --json disagrees"
    fi
else
    tap_skip "no key: the native rows fail" "no MIT ktutil"
fi

# 6. A realm whose KDC has no aes-sha2 keys: 19 and 20 are rows saying so,
# not failures; the rest run as before.
realm2=$work/realm2
if GK5_KDC_ENCTYPES="aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 camellia256-cts-cmac camellia128-cts-cmac des3-cbc-sha1 arcfour-hmac" \
    "$GK5" realm start "$realm2" >"$work/kdc2" 2>&1; then
    ok "a second realm without aes-sha2 keys: $(tail -1 "$work/kdc2")"
else
    not_ok "gk5 realm start of the realm without aes-sha2: $(tail -3 "$work/kdc2")"
fi
KRB5_CONFIG=$realm2/krb5.conf "$GK5" interop \
    --client-keytab "$realm2/client.keytab" --client gk5-client@GK5.TEST \
    --service gk5@localhost --service-keytab "$realm2/service.keytab" \
    >"$work/noaes" 2>"$work/err"
rc=$?
sed 's/^/# /' "$work/noaes"
if [ $rc -eq 0 ]; then
    ok "no aes-sha2: exit 0 (not issued is not a failure)"
else
    not_ok "no aes-sha2: exit $rc"
fi
for et in 20 19; do
    if grep -qE "^[a-z0-9-]+ \($et\) +(- +KDC cannot issue|[a-z0-9-]+ \([0-9]+\) +not issued: KDC issued)" "$work/noaes"; then
        ok "no aes-sha2: the row for $et says the KDC did not issue it"
    else
        not_ok "no aes-sha2: the row for $et does not say it was not issued"
    fi
done
bad=""
for et in $supported; do
    case $et in 19 | 20) continue ;; esac
    grep -qE "^[a-z0-9-]+ \($et\) +[a-z0-9-]+ \($et\) +ok +ok +ok +ok +ok +ok +ok +ok$" "$work/noaes" ||
        bad="$bad $et"
done
if [ -z "$bad" ]; then
    ok "no aes-sha2: the other enctypes issued as requested, every cell ok"
else
    not_ok "no aes-sha2: no all-ok row for$bad"
fi
for et in 20 19; do
    n=$(grep -cE "^  native (initiator|acceptor) +(-|[a-z0-9-]+ \([0-9]+\)) +(KDC cannot issue|not issued: KDC issued)" \
        <(awk -v e="($et)" 'index($0, e) && $0 !~ /^ / { on = 1; next } /^[^ ]/ { on = 0 } on' "$work/noaes"))
    if [ "$n" -eq 2 ]; then
        ok "no aes-sha2: both native rows for $et say the KDC did not issue it"
    else
        not_ok "no aes-sha2: $n native rows for $et say the KDC did not issue it, wanted 2"
    fi
done
KRB5_CONFIG=$realm2/krb5.conf "$GK5" interop --json \
    --client-keytab "$realm2/client.keytab" --client gk5-client@GK5.TEST \
    --service gk5@localhost --service-keytab "$realm2/service.keytab" \
    --enctypes 20,aes128-cts-hmac-sha256-128,18 >"$work/noaes.json" 2>"$work/err"
rc=$?
if [ $rc -eq 0 ] && python3 - "$work/noaes.json" >"$work/err" 2>&1 <<'EOF'; then
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [r["outcome"] for r in rows] == ["cannot issue", "cannot issue", "ran"] or \
    [r["outcome"] for r in rows][:2] == ["not issued", "not issued"], rows
assert rows[2]["issued"]["number"] == 18, rows[2]
EOF
    ok "no aes-sha2: --json says 20 and 19 were not issued, 18 ran"
else
    not_ok "no aes-sha2: --json (exit $rc) disagrees"
fi

tap_done
