#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5 ctx new | show | convert, the locked write-back of the per-message
# commands (two wrap loops on one file never send a number twice), and a
# refused GAP token that a retry with --accept gap takes.
# Run by meson with GK5_CLI (the built binary) and GK5_DES3 (0/1).
# GK5_CLI_WRAPPER, if set, is put in front of every gk5 run (valgrind).
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# g STDIN ARGS...: run gk5; rc = exit status, stdout in ./out, stderr in
# ./err.
g() {
    local in=$1
    shift
    # shellcheck disable=SC2086  # the wrapper is a word list on purpose
    $wrapper "$cli" "$@" <"$in" >out 2>err
    rc=$?
}

# check NAME CONDITION-STATUS: ok when 0.
check() {
    if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1 (exit $rc)"; fi
}

# expect NAME RC TEXT ARGS...: exit status RC, TEXT (fixed string) on
# stderr, nothing on stdout.
expect() {
    local name=$1 want=$2 text=$3
    shift 3
    g /dev/null "$@"
    if [ "$rc" = "$want" ] && [ ! -s out ] && grep -qF -- "$text" err; then
        ok "$name"
    else
        not_ok "$name: want exit $want and '$text'; got exit $rc"
    fi
}

# hexof FILE [OFFSET [COUNT]] -> lowercase hex of the bytes
hexof() { od -An -v -tx1 -j "${2:-0}" ${3:+-N "$3"} "$1" | tr -d ' \n'; }

k128=000102030405060708090a0b0c0d0e0f
k256=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
k3=850bb51358548cd05e86768c313e3bfef7511937dcf72c3e
printf 'Hello, gk5' >msg
: >empty

# ------------------------------------------------------------- ctx new
# newpair NAME ENCTYPE KEY SIZE [EXTRA...]: initiator and acceptor files,
# then a wrap/unwrap and a mic/verify between them.
newpair() {
    local name=$1 et=$2 key=$3 size=$4
    shift 4
    rm -f "i-$name" "a-$name"
    g empty ctx new --enctype "$et" --key "$key" --initiator "$@" --out "i-$name"
    local r1=$rc
    g empty ctx new --enctype "$et" --key "$key" --acceptor "$@" --out "a-$name"
    check "ctx new $name: both sides written, $size bytes, mode 600" \
        "$([ $r1 = 0 ] && [ $rc = 0 ] && [ "$(stat -c %s "i-$name")" = "$size" ] &&
            [ "$(stat -c %a "i-$name")" = 600 ] && [ "$(stat -c %a "a-$name")" = 600 ]; echo $?)"
    g msg wrap --ctx "i-$name"
    mv out tok
    g tok unwrap --ctx "a-$name"
    check "ctx new $name: the initiator's Wrap token unwraps on the acceptor" \
        "$([ $rc = 0 ] && cmp -s out msg; echo $?)"
    g msg mic --ctx "a-$name"
    mv out tok
    g msg verify --ctx "i-$name" --token tok
    check "ctx new $name: the acceptor's MIC verifies on the initiator" "$rc"
}
newpair aes128-cts-hmac-sha1-96 17 $k128 36
newpair aes256-cts-hmac-sha1-96 aes256-cts-hmac-sha1-96 $k256 52
newpair aes128-cts-hmac-sha256-128 19 $k128 36
newpair aes256-cts-hmac-sha384-192 20 $k256 52
newpair camellia128-cts-cmac 25 $k128 36
newpair camellia256-cts-cmac camellia256-cts-cmac $k256 52
newpair aes256-subkey 18 $k256 52 --subkey
if [ "$des3" = 1 ]; then
    newpair des3-cbc-sha1 16 $k3 44
else
    expect "ctx new refuses des3 when not built" 1 \
        "ctx new: --enctype: des3-cbc-sha1 (16) is not built (-Ddes3=true)" \
        ctx new --enctype 16 --key $k3 --out d.gssd
fi

# The bytes: flags (0x1 initiator | 0x2 CFX | 0x4 subkey), endtime,
# send_seq, enctype, key; host byte order (little-endian here).
g empty ctx new --enctype 18 --key $k256 --subkey --send-seq 258 \
    --endtime 4000000000 --out layout.gssd
if [ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" = 1 ]; then
    check "ctx new: the rpc.gssd layout, field by field" \
        "$([ $rc = 0 ] && [ "$(hexof layout.gssd 0 20)" = 0700000000286bee020100000000000012000000 ] &&
            [ "$(hexof layout.gssd 20)" = $k256 ]; echo $?)"
    g empty ctx new --enctype 17 --key $k128 --acceptor --out acc.gssd
    check "ctx new --acceptor: flags 0x2 (CFX only)" \
        "$([ $rc = 0 ] && [ "$(hexof acc.gssd 0 4)" = 02000000 ]; echo $?)"
else
    tap_skip "ctx new: the rpc.gssd layout" "big-endian host"
    tap_skip "ctx new --acceptor: flags" "big-endian host"
fi

printf '%s\n' $k128 >key.hex
g empty ctx new --enctype 17 --key-file key.hex --out kf.gssd
check "ctx new --key-file with hex digits" "$([ $rc = 0 ] && [ "$(hexof kf.gssd 20)" = $k128 ]; echo $?)"
# shellcheck disable=SC2001  # needs sed's backreference
printf '%b' "$(sed 's/../\\x&/g' <<<$k128)" >key.raw
g empty ctx new --enctype 17 --key-file key.raw --out kr.gssd
check "ctx new --key-file with the raw key" "$([ $rc = 0 ] && [ "$(hexof kr.gssd 20)" = $k128 ]; echo $?)"

# Refusals, each with its words and exit status.
expect "ctx new: rc4-hmac by number is refused with RFC 8429" 1 \
    "ctx new: --enctype: rc4-hmac (23) is deliberately unsupported: RFC 8429" \
    ctx new --enctype 23 --key $k128 --out rc4.gssd
expect "ctx new: rc4-hmac by name is refused with RFC 8429" 1 \
    "rc4-hmac (23) is deliberately unsupported: RFC 8429" \
    ctx new --enctype rc4-hmac --key $k128 --out rc4.gssd
expect "ctx new: single DES is refused with RFC 6649" 1 \
    "des-cbc-md5 (3) is deliberately unsupported: RFC 6649" \
    ctx new --enctype 3 --key 0001020304050607 --out des.gssd
expect "ctx new: unknown enctype name" 1 \
    "ctx new: --enctype: unknown enctype 'aes512' (see 'gk5 enctypes')" \
    ctx new --enctype aes512 --key $k128 --out x.gssd
expect "ctx new: unknown enctype number" 1 \
    "ctx new: --enctype: unknown enctype 99" \
    ctx new --enctype 99 --key $k128 --out x.gssd
expect "ctx new: wrong key length names expected and actual" 1 \
    "ctx new: --key: aes256-cts-hmac-sha1-96 needs a 32-byte key (64 hex digits), got 16 bytes" \
    ctx new --enctype 18 --key $k128 --out x.gssd
expect "ctx new: wrong key length in --key-file" 1 \
    "ctx new: --key-file: aes256-cts-hmac-sha1-96 needs a 32-byte key (64 hex digits), got 16 bytes" \
    ctx new --enctype 18 --key-file key.hex --out x.gssd
check "ctx new: no file is left behind by a refusal" \
    "$([ ! -e rc4.gssd ] && [ ! -e x.gssd ] && [ ! -e des.gssd ]; echo $?)"
expect "ctx new: an existing file is not replaced" 1 \
    "ctx new: 'kf.gssd' already exists (--force replaces it)" \
    ctx new --enctype 17 --key $k128 --out kf.gssd
g empty ctx new --enctype 18 --key $k256 --out kf.gssd --force
check "ctx new --force replaces it, still mode 600" \
    "$([ $rc = 0 ] && [ "$(stat -c %s kf.gssd)" = 52 ] && [ "$(stat -c %a kf.gssd)" = 600 ]; echo $?)"
expect "ctx new: --send-seq not a number" 2 \
    "ctx new: --send-seq: 'x' is not a number" \
    ctx new --enctype 17 --key $k128 --send-seq x --out x.gssd
expect "ctx new: --send-seq negative" 2 \
    "ctx new: --send-seq: '-1' is not a number" \
    ctx new --enctype 17 --key $k128 --send-seq -1 --out x.gssd
expect "ctx new: --endtime not a number" 2 \
    "ctx new: --endtime: 'soon' is not a number" \
    ctx new --enctype 17 --key $k128 --endtime soon --out x.gssd
expect "ctx new: bad hex" 2 "ctx new: --key: not valid hex" \
    ctx new --enctype 17 --key 00zz --out x.gssd
expect "ctx new: --enctype required" 2 "ctx new: --enctype is required" \
    ctx new --key $k128 --out x.gssd
expect "ctx new: a key required" 2 "ctx new: --key HEX or --key-file FILE is required" \
    ctx new --enctype 17 --out x.gssd
expect "ctx new: --out required" 2 "ctx new: --out FILE is required" \
    ctx new --enctype 17 --key $k128
expect "ctx new: --initiator with --acceptor" 2 "--initiator and --acceptor" \
    ctx new --enctype 17 --key $k128 --initiator --acceptor --out x.gssd
expect "ctx new: unknown option" 2 "ctx new: unknown option '--frobnicate'" \
    ctx new --enctype 17 --key $k128 --out x.gssd --frobnicate
expect "ctx new: missing value" 2 "ctx new: option '--enctype' needs an argument" \
    ctx new --key $k128 --out x.gssd --enctype
expect "ctx: unknown command" 2 "ctx: unknown command 'frobnicate'" ctx frobnicate

# An expired context: written (the file is what was asked for), refused by
# wrap with the words said once.
g empty ctx new --enctype 17 --key $k128 --endtime 1 --out old.gssd
check "ctx new --endtime 1 (long past) writes the file" "$rc"
expect "wrap on an expired context: GSS_S_CONTEXT_EXPIRED, the words once" 1 \
    "GSS_S_CONTEXT_EXPIRED: the security context has expired" \
    wrap --ctx old.gssd
check "...and 'expired' is not said twice" \
    "$([ "$(grep -o 'has expired' err | wc -l)" = 1 ]; echo $?)"

# ------------------------------------------------------------- ctx show
# The per-message commands write a context back in gk5's format: fresh
# gssd files here.
g empty ctx new --enctype 18 --key $k256 --out show-i.gssd
g empty ctx new --enctype 18 --key $k256 --acceptor --out show-a.gssd
g empty ctx show show-i.gssd
check "ctx show: gssd format, enctype, role, send seq, endtime; no key" \
    "$([ $rc = 0 ] && grep -q '^format  *gssd' out && grep -q '^enctype  *18 aes256-cts-hmac-sha1-96' out &&
        grep -q '^role  *initiator' out && grep -q '^send seq  *0$' out &&
        grep -q '^receive window  *not started' out && grep -q '^endtime  *none (0)' out &&
        grep -q '^key  *not shown' out && ! grep -q $k256 out; echo $?)"
g empty ctx show show-a.gssd --show-key
check "ctx show --show-key: the key's hex is printed" \
    "$([ $rc = 0 ] && grep -q "^key  *$k256\$" out && grep -q '^role  *acceptor' out; echo $?)"
g empty ctx show i-aes256-cts-hmac-sha1-96
check "ctx show after a wrap: written back as gk5's export, send seq 1" \
    "$([ $rc = 0 ] && grep -q '^format  *gk5' out && grep -q '^send seq  *1$' out; echo $?)"
g empty ctx show layout.gssd
check "ctx show: acceptor subkey, send seq 258, endtime readable and raw" \
    "$([ $rc = 0 ] && grep -q '^acceptor subkey  *yes' out && grep -q '^send seq  *258$' out &&
        grep -q '^endtime  *2096-10-02 07:06:40 UTC (4000000000)' out; echo $?)"
g empty ctx show old.gssd
check "ctx show: an expired endtime says so" "$([ $rc = 0 ] && grep -q '(1), expired' out; echo $?)"
printf 'garbage' >bad.gssd
expect "ctx show: a file that does not import" 1 \
    "ctx show: 'bad.gssd' does not import as a gssd context: GSS_S_DEFECTIVE_TOKEN" \
    ctx show bad.gssd
expect "ctx show: missing FILE" 2 "ctx show: missing FILE" ctx show
expect "ctx show: no such file" 1 "cannot open 'no-such-file'" ctx show no-such-file

# ---------------------------------------------------------- ctx convert
g empty ctx convert show-a.gssd --to export --out a.ctx
check "ctx convert gssd -> export: mode 600, magic gk5C" \
    "$([ $rc = 0 ] && [ "$(stat -c %a a.ctx)" = 600 ] && [ "$(head -c 4 a.ctx)" = gk5C ]; echo $?)"
g empty ctx show a.ctx
check "ctx show on the export: gk5 format, window not started, no keys" \
    "$([ $rc = 0 ] && grep -q '^format  *gk5' out && grep -q '^receive window  *not started' out &&
        ! grep -qi '^  .* K[eic] ' out; echo $?)"
g empty ctx show a.ctx --show-key
check "ctx show --show-key on the export: the derived keys, not the session key" \
    "$([ $rc = 0 ] && grep -q 'send seal Ke' out && grep -q 'receive sign Kc' out && ! grep -q $k256 out; echo $?)"
g msg wrap --ctx show-i.gssd
mv out tok
g tok unwrap --ctx a.ctx
check "the converted export is used: unwrap on it" "$([ $rc = 0 ] && cmp -s out msg; echo $?)"
g empty ctx show a.ctx
check "ctx show after the unwrap: the window has started" \
    "$([ $rc = 0 ] && grep -q '^receive window  *next 1, bitmap 0000000000000001' out; echo $?)"
expect "ctx convert export -> gssd is refused, saying why" 1 \
    "is gk5's export, which keeps only the keys derived from the session key" \
    ctx convert a.ctx --to gssd --out back.gssd
check "...and writes nothing" "$([ ! -e back.gssd ]; echo $?)"
# DES3 seals with the session key itself: its export converts back, as
# long as the window has recorded nothing (a gssd buffer has none).
if [ "$des3" = 1 ]; then
    g empty ctx new --enctype 16 --key $k3 --send-seq 5 --out d3.gssd
    g empty ctx convert d3.gssd --to export --out d3.ctx
    g empty ctx convert d3.ctx --to gssd --out d3-back.gssd
    check "des3: gssd -> export -> gssd gives the same bytes" "$([ $rc = 0 ] && cmp -s d3.gssd d3-back.gssd; echo $?)"
    g msg wrap --ctx i-des3-cbc-sha1
    mv out tok
    g empty ctx convert a-des3-cbc-sha1 --to export --out d3a.ctx
    g tok unwrap --ctx d3a.ctx
    expect "des3: an export whose window recorded a token does not convert to gssd" 1 \
        "has a receive window that has recorded tokens, and a gssd buffer has no field for one" \
        ctx convert d3a.ctx --to gssd --out d3a.gssd
else
    tap_skip "des3: export -> gssd" "des3 not built"
fi
g empty ctx convert show-a.gssd --to export --out a.ctx
check "ctx convert will not replace a file without --force" \
    "$([ $rc = 1 ] && grep -q "already exists" err; echo $?)"
expect "ctx convert: --to required" 2 "ctx convert: --to export|gssd is required" \
    ctx convert a.ctx --out x.ctx
expect "ctx convert: bad --to" 2 "ctx convert: --to: 'json' is neither export nor gssd" \
    ctx convert a.ctx --to json --out x.ctx

# ------------------------------------------- the gap, refused, then taken
g empty ctx new --enctype 17 --key $k128 --out gi.gssd
g empty ctx new --enctype 17 --key $k128 --acceptor --out ga.gssd
for i in 0 1 2; do
    g msg wrap --ctx gi.gssd
    mv out "gt$i"
done
g gt0 unwrap --ctx ga.gssd
check "gap: seq 0 unwraps" "$([ $rc = 0 ] && cmp -s out msg; echo $?)"
cp ga.gssd ga.before
g gt2 unwrap --ctx ga.gssd
check "gap: seq 2 after 0 is refused, no message, --accept gap suggested" \
    "$([ $rc = 1 ] && [ ! -s out ] && grep -q 'warning: unwrap: GSS_S_GAP_TOKEN' err &&
        grep -qF -- '--accept gap would take it' err; echo $?)"
check "gap: the refused token left the context file as it was" "$(cmp -s ga.before ga.gssd; echo $?)"
g gt2 unwrap --ctx ga.gssd --accept gap
check "gap: the same token with --accept gap is taken (not a duplicate)" \
    "$([ $rc = 0 ] && cmp -s out msg && grep -q 'GSS_S_GAP_TOKEN.*(accepted)' err; echo $?)"
g gt2 unwrap --ctx ga.gssd --accept gap
check "gap: now it is recorded: seq 2 again is a duplicate" \
    "$([ $rc = 1 ] && grep -q GSS_S_DUPLICATE_TOKEN err && grep -qF -- '--accept duplicate' err; echo $?)"
g gt1 unwrap --ctx ga.gssd
check "gap: seq 1 late is refused as UNSEQ" \
    "$([ $rc = 1 ] && grep -q GSS_S_UNSEQ_TOKEN err; echo $?)"
g gt1 unwrap --ctx ga.gssd --accept unseq
check "gap: and taken with --accept unseq" "$([ $rc = 0 ] && cmp -s out msg; echo $?)"

# ------------------------------------- two wrap loops on one context file
# Without the lock both loops read the same counter and send numbers twice.
g empty ctx new --enctype 17 --key $k128 --out race.gssd
rounds=${GK5_CTX_RACE_ROUNDS:-200}
loop() {
    local i
    for ((i = 0; i < rounds; i++)); do
        $wrapper "$cli" wrap --ctx race.gssd <msg >"race-$1-$i" 2>>"race-$1.err" || echo "wrap $1 $i failed" >>race-fail
    done
}
loop a &
pa=$!
loop b &
pb=$!
wait $pa
wait $pb
check "race: all $((2 * rounds)) wraps succeeded" "$([ ! -e race-fail ]; echo $?)"
for f in race-a-* race-b-*; do hexof "$f" 8 8; echo; done | sort >race-seqs
check "race: $((2 * rounds)) tokens, no sequence number twice" \
    "$([ "$(wc -l <race-seqs)" = $((2 * rounds)) ] && [ -z "$(uniq -d race-seqs)" ]; echo $?)"
check "race: they are exactly 0 .. $((2 * rounds - 1))" \
    "$(for ((i = 0; i < 2 * rounds; i++)); do printf '%016x\n' $i; done | cmp -s - race-seqs; echo $?)"
check "race: the file is still private (600) and shows send seq $((2 * rounds))" \
    "$(g empty ctx show race.gssd; [ "$(stat -c %a race.gssd)" = 600 ] && grep -q "^send seq  *$((2 * rounds))\$" out; echo $?)"
check "race: no temporary file left beside it" "$([ -z "$(ls race.gssd.* 2>/dev/null)" ]; echo $?)"

# ----------------------------------------------------------------- help
for c in new show convert; do
    g empty ctx $c --help
    check "ctx $c --help" "$([ $rc = 0 ] && grep -q "^Usage: gk5 ctx $c" out; echo $?)"
done
g empty ctx --help
check "ctx --help lists the three" \
    "$([ $rc = 0 ] && grep -q 'gk5 ctx new' out && grep -q 'gk5 ctx show' out && grep -q 'gk5 ctx convert' out; echo $?)"

tap_done
