#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5 inspect: decodes token headers without keys.  Tokens: MIT krb5's
# fixed-key t_invalid.c tokens (tests/vectors/mit_gss_tokens_*.txt, source
# named there) and damaged copies of them.
set -u
cli=${GK5_CLI:?GK5_CLI must name the gk5 binary}
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_out HEX PATTERN...: exit 0 and every extended-regex PATTERN in stdout
expect_out() {
    local hex=$1 out rc p
    shift
    out=$(printf '%s\n' "$hex" | "$cli" inspect 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { bad "inspect $hex exited $rc: $out"; return; }
    for p in "$@"; do
        grep -qE -- "$p" <<<"$out" || { bad "inspect $hex: no /$p/ in: $out"; return; }
    done
    ok
}
# expect_err HEX PATTERN: exit 1, PATTERN in stderr
expect_err() {
    local hex=$1 pat=$2 err rc
    err=$(printf '%s\n' "$hex" | "$cli" inspect 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 1 ] || { bad "inspect $hex exited $rc (want 1): $err"; return; }
    grep -qE -- "$pat" <<<"$err" || { bad "inspect $hex: no /$pat/ in: $err"; return; }
    ok
}

cfx_mic=040400ffffffffff000000000000000097e9633f9d822b7467948ad0
cfx_wrap=050402ff00000000000000000000000072bbd7cfdeb0f920e29a98a7a4e7c99b30d3fe61512e1b5688b78af5a9bf8f82b1ebcc88e63313bf524bc03b243f3ef5f1e064
cfx_integ=050400ff000c000000000000000000006d657373616765df57b95ea2b17331dbce6162
v1_wrap=603f06092a864886f712010202020104000200ffff665ae1c84f6933975d05e2864014151427019f329d82f4e1c53efa6d7d0539ae2144a087a624edfca353f130
v1_mic=602f06092a864886f71201020201010400ffffffff57f577c6c07226970089b2eed9d190e711504fe95918b18f828e8f5e

expect_out "$cfx_mic" 'RFC 4121 MIC' 'SND_SEQ +0 ' 'checksum +12 bytes'
expect_out "$cfx_wrap" 'RFC 4121 Wrap' 'Sealed' 'EC +0' 'RRC +0' 'length +67 bytes'
expect_out "$cfx_integ" 'RFC 4121 Wrap' 'EC +12' 'sent by +the initiator'
expect_out "$v1_wrap" 'RFC 1964 Wrap' 'HMAC SHA1 DES3-KD' 'SEAL_ALG +0x0002' 'SGN_CKSUM +20 bytes'
expect_out "$v1_mic" 'RFC 1964 MIC' 'SGN_ALG +0x0004'
# Flags by name: SentByAcceptor and AcceptorSubkey set on a copy.
expect_out "050407ff${cfx_wrap:8}" 'SentByAcceptor' 'AcceptorSubkey' 'sent by +the acceptor'
# Raw bytes work as well as hex.
out=$(printf "$(sed 's/../\\x&/g' <<<"$cfx_mic")" | "$cli" inspect 2>&1) &&
    grep -q 'RFC 4121 MIC' <<<"$out" && ok || bad "raw input: $out"
# Malformed input names the problem and exits 1.
expect_err 0504 'truncated'
expect_err "${cfx_mic:0:20}" 'truncated'
expect_err 0909 'unknown|not a'
expect_err "603f06092a864886f7120102" 'truncated|framing|length'
"$cli" inspect --help >/dev/null 2>&1 && ok || bad "inspect --help"
"$cli" inspect --no-such-option </dev/null >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "unknown option should exit 2"

echo "test_cli_inspect: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
