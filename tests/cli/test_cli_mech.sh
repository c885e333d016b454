#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5 wrap | unwrap | mic | verify through context files: rpc.gssd buffers
# written here byte by byte, gk5's own export written back with --ctx-out.
# Run by meson with GK5_CLI (the built binary) and GK5_DES3 (0/1).
# GK5_CLI_WRAPPER, if set, is put in front of every gk5 run (valgrind).
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# The rpc.gssd buffer is in host byte order; the bytes below are built
# little-endian.
if [ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" != 1 ]; then
    echo "1..0 # SKIP big-endian host"
    exit 77
fi

# ok and not_ok of its own, in place of tap.sh's: a failed cell shows its
# details and all of stderr.
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    shift
    for line in "$@"; do echo "#   $line"; done
    if [ -s err ]; then sed 's/^/#   stderr: /' err; fi
}

# g STDIN STDOUT ARGS...: run gk5; rc = exit status, stderr in ./err.
# Without --ctx-out gk5 writes the context back to the --ctx file; a *.gssd
# file named here stands for a fresh rpc.gssd buffer, so g hands gk5 a
# scratch copy of it and the file stays pristine for the next case.
g() {
    local in=$1 out=$2 a prev="" has_out=0
    local -a args=()
    shift 2
    for a in "$@"; do
        [ "$a" = --ctx-out ] && has_out=1
    done
    for a in "$@"; do
        if [ "$prev" = --ctx ] && [ $has_out = 0 ] && [ "${a%.gssd}" != "$a" ]; then
            cp "$a" "scratch-$a" && a="scratch-$a"
        fi
        args+=("$a")
        prev=$a
    done
    # shellcheck disable=SC2086  # the wrapper is a word list on purpose
    $wrapper "$cli" "${args[@]}" <"$in" >"$out" 2>err
    rc=$?
}

# check NAME COND-EXIT-STATUS [details...]
check() {
    local name=$1 cond=$2
    shift 2
    if [ "$cond" = 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

# Byte helpers: le32 N, le64 N, hexbytes HEX -> raw bytes on stdout.
le32() {
    local v=$1
    printf '%b' "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $(((v >> 8) & 255)))"
    printf '%b' "\\x$(printf %02x $(((v >> 16) & 255)))\\x$(printf %02x $(((v >> 24) & 255)))"
}
le64() { le32 $(($1 & 0xffffffff)); le32 $(($1 >> 32)); }
# shellcheck disable=SC2001  # needs sed's backreference
hexbytes() { printf '%b' "$(sed 's/../\\x&/g' <<<"$1")"; }
# hexof FILE [OFFSET [COUNT]] -> lowercase hex of the bytes
hexof() { od -An -v -tx1 -j "${2:-0}" ${3:+-N "$3"} "$1" | tr -d ' \n'; }

# mkctx FILE FLAGS ENDTIME SEND_SEQ ENCTYPE KEYHEX: an rpc.gssd buffer.
mkctx() {
    { le32 "$2"; le32 "$3"; le64 "$4"; le32 "$5"; hexbytes "$6"; } >"$1"
}

INIT=0x1
CFX=0x2
SUBKEY=0x4
k128=000102030405060708090a0b0c0d0e0f
k256=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

mkctx i.gssd $((INIT | CFX)) 0 0 17 $k128
mkctx a.gssd $((CFX)) 0 0 17 $k128
check "gssd buffer for aes128 is 36 bytes" "$([ "$(stat -c %s i.gssd)" = 36 ]; echo $?)"

printf 'Hello, gk5' >msg

# ---------------------------------------------------------------- sealed
g msg t0 wrap --ctx i.gssd --ctx-out i.ctx
check "wrap (sealed) on the initiator" $rc "exit $rc"
check "Wrap token: 05 04, flags Sealed, filler ff, EC 0 RRC 0, seq 0" \
    "$([ "$(hexof t0 0 16)" = 050402ff000000000000000000000000 ]; echo $?)" "header $(hexof t0 0 16)"
check "--ctx-out wrote a private file" "$([ "$(stat -c %a i.ctx)" = 600 ]; echo $?)"
g t0 out unwrap --ctx a.gssd --ctx-out a.ctx
check "unwrap on the acceptor" "$([ $rc = 0 ] && cmp -s out msg; echo $?)" "exit $rc"

# ------------------------------------------- sequence numbers via --ctx-out
g msg t1 wrap --ctx i.ctx --ctx-out i.ctx
check "second wrap from the saved context uses seq 1" \
    "$([ $rc = 0 ] && [ "$(hexof t1 8 8)" = 0000000000000001 ]; echo $?)" "seq $(hexof t1 8 8)"
g msg t2 wrap --ctx i.ctx --format gk5 --ctx-out i.ctx
check "third wrap (--format gk5) uses seq 2" \
    "$([ $rc = 0 ] && [ "$(hexof t2 8 8)" = 0000000000000002 ]; echo $?)" "seq $(hexof t2 8 8)"
g t2 out unwrap --ctx a.ctx --ctx-out a.ctx
check "unwrap seq 2 (a gap after 0)" "$([ $rc = 1 ] && [ ! -s out ] && grep -q GSS_S_GAP_TOKEN err; echo $?)" "exit $rc"
g t2 out unwrap --ctx a.ctx --ctx-out a.ctx
check "a refused token is not saved in the window: seq 2 again is still a gap" \
    "$([ $rc = 1 ] && [ ! -s out ] && grep -q GSS_S_GAP_TOKEN err; echo $?)" "exit $rc"
g t2 out unwrap --ctx a.ctx --ctx-out a.ctx --accept gap
check "--accept gap: seq 2 is delivered with a warning" \
    "$([ $rc = 0 ] && cmp -s out msg && grep -q 'warning.*GSS_S_GAP_TOKEN' err; echo $?)" "exit $rc"
g t2 out unwrap --ctx a.ctx --ctx-out a.ctx
check "taken, it is saved: seq 2 again is a duplicate" \
    "$([ $rc = 1 ] && [ ! -s out ] && grep -q GSS_S_DUPLICATE_TOKEN err; echo $?)" "exit $rc"
g t1 out unwrap --ctx a.ctx --ctx-out a.ctx --accept unseq
check "--accept unseq: seq 1 late is delivered with a warning" \
    "$([ $rc = 0 ] && cmp -s out msg && grep -q 'warning.*GSS_S_UNSEQ_TOKEN' err; echo $?)" "exit $rc"
g t1 out unwrap --ctx a.ctx --ctx-out a.ctx
check "second unwrap of the same token reports a duplicate, exit 1, no output" \
    "$([ $rc = 1 ] && [ ! -s out ] && grep -q GSS_S_DUPLICATE_TOKEN err; echo $?)" "exit $rc"
g t1 out unwrap --ctx a.ctx --accept duplicate
check "--accept duplicate delivers it" "$([ $rc = 0 ] && cmp -s out msg; echo $?)" "exit $rc"
g t1 out unwrap --ctx a.gssd
check "a fresh context (no --ctx-out history) takes it" "$([ $rc = 0 ] && cmp -s out msg; echo $?)" "exit $rc"

# Without --ctx-out the context goes back into the --ctx file: two wraps
# on one file never send the same sequence number.
cp i.gssd inplace.buf
g msg w0 wrap --ctx inplace.buf
g msg w1 wrap --ctx inplace.buf
check "no --ctx-out: the --ctx file is updated, SND_SEQ 0 then 1" \
    "$([ $rc = 0 ] && [ "$(hexof w0 8 8)" = 0000000000000000 ] && [ "$(hexof w1 8 8)" = 0000000000000001 ]; echo $?)" \
    "seq $(hexof w0 8 8) then $(hexof w1 8 8)"

# ---------------------------------------------------------- integrity only
g msg tn wrap --no-conf --ctx i.gssd
check "wrap --no-conf: flags 00, EC = checksum length 12" \
    "$([ $rc = 0 ] && [ "$(hexof tn 0 6)" = 050400ff000c ]; echo $?)" "header $(hexof tn 0 16)"
check "wrap --no-conf: the message is in the clear" "$(grep -q 'Hello, gk5' tn; echo $?)"
g tn out unwrap --ctx a.gssd
check "unwrap integrity-only" "$([ $rc = 0 ] && cmp -s out msg; echo $?)" "exit $rc"

# ------------------------------------------------ acceptor -> initiator
g msg ta wrap --ctx a.gssd
check "acceptor wraps: SentByAcceptor | Sealed" \
    "$([ $rc = 0 ] && [ "$(hexof ta 0 3)" = 050403 ]; echo $?)" "header $(hexof ta 0 16)"
g ta out unwrap --ctx i.gssd
check "initiator unwraps it" "$([ $rc = 0 ] && cmp -s out msg; echo $?)" "exit $rc"
g t0 out unwrap --ctx i.gssd
check "a reflected token is refused" "$([ $rc = 1 ] && [ ! -s out ]; echo $?)" "exit $rc"

# -------------------------------------------------------------- tampering
for off in 20 $(($(stat -c %s t0) - 1)) 2; do
    cp t0 bad
    b=$(hexof t0 "$off" 1)
    printf '%b' "\\x$(printf %02x $((0x$b ^ 0x01)))" | dd of=bad bs=1 seek="$off" conv=notrunc status=none
    g bad out unwrap --ctx a.gssd
    check "token with a flipped bit at byte $off: exit 1, BAD_SIG/DEFECTIVE_TOKEN, no output" \
        "$([ $rc = 1 ] && [ ! -s out ] && grep -Eq 'GSS_S_(BAD_SIG|DEFECTIVE_TOKEN)' err; echo $?)" "exit $rc"
done
head -c 20 t0 >short
g short out unwrap --ctx a.gssd
check "truncated token: exit 1, DEFECTIVE_TOKEN" \
    "$([ $rc = 1 ] && [ ! -s out ] && grep -q GSS_S_DEFECTIVE_TOKEN err; echo $?)" "exit $rc"

# -------------------------------------------------------------- MIC
g msg mic0 mic --ctx i.gssd --ctx-out i2.ctx
check "mic: 04 04 token, 16 + 12 bytes" \
    "$([ $rc = 0 ] && [ "$(hexof mic0 0 8)" = 040400ffffffffff ] && [ "$(stat -c %s mic0)" = 28 ]; echo $?)" \
    "token $(hexof mic0)"
g msg out verify --ctx a.gssd --token mic0 --ctx-out a2.ctx
check "verify: exit 0, nothing on stdout" "$([ $rc = 0 ] && [ ! -s out ]; echo $?)" "exit $rc"
g msg out verify --ctx a2.ctx --token mic0
check "verify the same MIC again from the saved context: duplicate" \
    "$([ $rc = 1 ] && grep -q GSS_S_DUPLICATE_TOKEN err; echo $?)" "exit $rc"
g msg mic1 mic --ctx i2.ctx
check "the next MIC from the saved context has seq 1" \
    "$([ $rc = 0 ] && [ "$(hexof mic1 8 8)" = 0000000000000001 ]; echo $?)" "seq $(hexof mic1 8 8)"
printf 'Hello, gk6' >msg2
g msg2 out verify --ctx a.gssd --token mic0
check "verify a changed message: exit 1, GSS_S_BAD_SIG" \
    "$([ $rc = 1 ] && grep -q GSS_S_BAD_SIG err; echo $?)" "exit $rc"

# ---------------------------------------------------- every enctype
# roundtrip NAME ENCTYPE KEYHEX FLAGS_EXTRA SIZE
roundtrip() {
    local name=$1 et=$2 key=$3 extra=$4 size=$5
    mkctx ri.gssd $((INIT | extra)) 0 0 "$et" "$key"
    mkctx ra.gssd $((extra)) 0 0 "$et" "$key"
    check "$name: gssd buffer is $size bytes" "$([ "$(stat -c %s ri.gssd)" = "$size" ]; echo $?)"
    seq 1 3000 >big
    : >empty
    for m in msg big empty; do
        for conf in "" --no-conf; do
            g $m tok wrap $conf --ctx ri.gssd --ctx-out ri.gssd
            local r1=$rc
            g tok out unwrap --ctx ra.gssd --ctx-out ra.gssd
            check "$name: wrap $conf/unwrap of $m" "$([ $r1 = 0 ] && [ $rc = 0 ] && cmp -s out $m; echo $?)" \
                "exits $r1 $rc"
        done
        g $m tok mic --ctx ra.gssd --ctx-out ra.gssd
        local r1=$rc
        g $m out verify --ctx ri.gssd --ctx-out ri.gssd --token tok
        check "$name: mic/verify of $m (acceptor to initiator)" "$([ $r1 = 0 ] && [ $rc = 0 ]; echo $?)" \
            "exits $r1 $rc"
    done
}
roundtrip "aes128-cts-hmac-sha1-96" 17 $k128 $CFX 36
roundtrip "aes256-cts-hmac-sha1-96" 18 $k256 $CFX 52
roundtrip "aes128-cts-hmac-sha256-128" 19 $k128 $CFX 36
roundtrip "aes256-cts-hmac-sha384-192" 20 $k256 $CFX 52
roundtrip "camellia128-cts-cmac" 25 $k128 $CFX 36
roundtrip "camellia256-cts-cmac" 26 $k256 $CFX 52
roundtrip "aes256 with acceptor subkey" 18 $k256 $((CFX | SUBKEY)) 52
# DES3 keys with odd parity (RFC 3961 A.4's string-to-key output).
k3=850bb51358548cd05e86768c313e3bfef7511937dcf72c3e
if [ "$des3" = 1 ]; then
    roundtrip "des3-cbc-sha1 (16), RFC 1964" 16 $k3 0 44
    roundtrip "des3-cbc-raw (6), RFC 1964" 6 $k3 0 44
else
    mkctx d.gssd $INIT 0 0 16 $k3
    g msg out wrap --ctx d.gssd
    check "des3 context refused: not built" \
        "$([ $rc = 1 ] && grep -q 'des3-cbc-sha1 (16) is not built (-Ddes3=true)' err; echo $?)" "exit $rc"
fi

mkctx si.gssd $((INIT | CFX | SUBKEY)) 0 0 17 $k128
g msg tok wrap --ctx si.gssd
check "acceptor-subkey token carries flag 04" "$([ $rc = 0 ] && [ "$(hexof tok 2 1)" = 06 ]; echo $?)"
g tok out unwrap --ctx a.gssd
check "...and a context without the subkey flag refuses it" "$([ $rc = 1 ] && [ ! -s out ]; echo $?)" "exit $rc"

# -------------------------------------------------------- refusals
mkctx rc4.gssd $((INIT | CFX)) 0 0 23 $k128
g msg out wrap --ctx rc4.gssd
check "rc4 gssd buffer refused with the reason" \
    "$([ $rc = 1 ] && [ ! -s out ] && grep -q 'rc4-hmac (23) is deliberately unsupported: RFC 8429' err; echo $?)" "exit $rc"
mkctx des.gssd $INIT 0 0 3 0001020304050607
g msg out mic --ctx des.gssd
check "des-cbc-md5 gssd buffer refused with the reason" \
    "$([ $rc = 1 ] && grep -q 'des-cbc-md5 (3) is deliberately unsupported: RFC 6649' err; echo $?)" "exit $rc"
mkctx old.gssd $((INIT | CFX)) 1 0 17 $k128
g msg out wrap --ctx old.gssd
check "expired context: exit 1, GSS_S_CONTEXT_EXPIRED" \
    "$([ $rc = 1 ] && [ ! -s out ] && grep -q GSS_S_CONTEXT_EXPIRED err; echo $?)" "exit $rc"
head -c 30 i.gssd >trunc.gssd
g msg out wrap --ctx trunc.gssd
check "truncated gssd buffer: exit 1, DEFECTIVE_TOKEN" \
    "$([ $rc = 1 ] && grep -q GSS_S_DEFECTIVE_TOKEN err; echo $?)" "exit $rc"
g msg out wrap --ctx i.ctx --format gssd
check "--format gssd on a gk5 file: exit 1" "$([ $rc = 1 ] && [ ! -s out ]; echo $?)" "exit $rc"
g msg out wrap --ctx i.gssd --format gk5
check "--format gk5 on a gssd file: exit 1" "$([ $rc = 1 ] && [ ! -s out ]; echo $?)" "exit $rc"
g msg out wrap --ctx no-such-file
check "missing context file: exit 1" "$([ $rc = 1 ] && grep -q no-such-file err; echo $?)" "exit $rc"
g msg out verify --ctx a.gssd --token no-such-token
check "missing token file: exit 1" "$([ $rc = 1 ]; echo $?)" "exit $rc"

# ------------------------------------------------------------- usage
usage() { # NAME ARGS...: exit 2, nothing on stdout
    local name=$1
    shift
    g msg out "$@"
    check "usage: $name" "$([ $rc = 2 ] && [ ! -s out ]; echo $?)" "exit $rc"
}
usage "wrap without --ctx" wrap
usage "verify without --token" verify --ctx a.gssd
usage "unknown option" wrap --ctx i.gssd --frobnicate
usage "missing argument" wrap --ctx
usage "bad --format" wrap --ctx i.gssd --format json
usage "--no-conf on unwrap" unwrap --no-conf --ctx a.gssd
usage "--token on mic" mic --ctx i.gssd --token mic0
usage "--accept on wrap" wrap --ctx i.gssd --accept gap
usage "bad --accept word" unwrap --ctx a.gssd --accept nothing
usage "stray argument" mic --ctx i.gssd extra
for c in wrap unwrap mic verify; do
    g msg out $c --help
    check "$c --help" "$([ $rc = 0 ] && grep -q "^Usage: gk5 $c" out; echo $?)" "exit $rc"
done

echo "1..$n"
if [ "$failed" != 0 ]; then
    echo "# $failed of $n failed"
    exit 1
fi
echo "# all $n passed"
