#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The gk5 binary: `gk5 enctypes`, `gk5 crypto ...`, --help/--version, exit
# statuses.  Run by meson with GK5_CLI (the built binary) and GK5_DES3 (0/1).
# GK5_CLI_WRAPPER, if set, is put in front of every gk5 run, e.g.
#   GK5_CLI_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full"
#
# Known answers come from the RFCs' appendices (RFC 3962 B, RFC 8009 A,
# RFC 6803 section 10, RFC 3961 A.4), cross-checked against MIT krb5's
# crypto tests (docs/design.md, "Reference data"), which carry the same
# values; where only MIT has a value (the RFC 3962 enctypes' PRF, an
# aes128-cts-hmac-sha1-96 decrypt and checksum) the source says so.
set -u

cli=${GK5_CLI:?GK5_CLI must name the gk5 binary}
des3=${GK5_DES3:-0}
wrapper=${GK5_CLI_WRAPPER:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    shift
    for line in "$@"; do echo "#   $line"; done
    if [ -s "$tmp/err" ]; then sed 's/^/#   stderr: /' "$tmp/err"; fi
}

# run ARGS...: gk5 with stdin from /dev/null; sets rc and out (stdout);
# stderr is in $tmp/err.
run() {
    # shellcheck disable=SC2086  # the wrapper is a word list on purpose
    $wrapper "$cli" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out")
}

# expect_hex NAME HEX ARGS...: exit 0 and exactly HEX (and a newline) out.
expect_hex() {
    local name=$1 want=$2
    shift 2
    run "$@"
    if [ "$rc" = 0 ] && [ "$out" = "$want" ] && [ "$(wc -l <"$tmp/out")" = 1 ]; then
        ok "$name"
    else
        not_ok "$name" "gk5 $*" "exit $rc, want 0" "got  '$out'" "want '$want'"
    fi
}

# expect_rc NAME RC [REGEX] -- ARGS...: exit status RC, nothing on stdout,
# and (when given) stderr matching the extended REGEX.
expect_rc() {
    local name=$1 want=$2 re=""
    shift 2
    if [ "$1" != "--" ]; then re=$1; shift; fi
    shift
    run "$@"
    if [ "$rc" != "$want" ]; then
        not_ok "$name" "gk5 $*" "exit $rc, want $want"
    elif [ -n "$out" ]; then
        not_ok "$name" "gk5 $*" "unexpected stdout: $out"
    elif [ -n "$re" ] && ! grep -Eq -- "$re" "$tmp/err"; then
        not_ok "$name" "gk5 $*" "stderr does not match /$re/"
    else
        ok "$name"
    fi
}

# ---------------------------------------------------------------- help
run --help
if [ "$rc" = 0 ] && grep -q '^Usage: gk5 COMMAND' "$tmp/out"; then
    ok "gk5 --help"
else
    not_ok "gk5 --help" "exit $rc"
fi
run --version
if [ "$rc" = 0 ] && echo "$out" | grep -Eq '^gk5 [0-9]+\.[0-9]+'; then
    ok "gk5 --version: $out"
else
    not_ok "gk5 --version" "exit $rc, '$out'"
fi
# Every command that --help lists has its own --help (exit 0, on stdout).
cmds=$($wrapper "$cli" --help | awk '/^Commands:/ {c = 1; next} c && /^  [a-z]/ {print $1} c && /^$/ {c = 0}')
for want in enctypes crypto wrap unwrap mic verify inspect; do
    if ! echo "$cmds" | grep -qx "$want"; then
        not_ok "gk5 --help lists '$want'" "listed: ${cmds//$'\n'/ }"
    fi
done
for c in $cmds; do
    run "$c" --help
    if [ "$rc" = 0 ] && [ -n "$out" ]; then ok "gk5 $c --help"; else not_ok "gk5 $c --help" "exit $rc"; fi
done
for op in string-to-key derive encrypt decrypt checksum prf; do
    run crypto "$op" --help
    if [ "$rc" = 0 ] && grep -q "^Usage: gk5 crypto $op" "$tmp/out"; then
        ok "gk5 crypto $op --help"
    else
        not_ok "gk5 crypto $op --help" "exit $rc"
    fi
done
run help crypto
if [ "$rc" = 0 ] && grep -q '^Usage: gk5 crypto' "$tmp/out"; then ok "gk5 help crypto"; else not_ok "gk5 help crypto" "exit $rc"; fi

# ------------------------------------------------------------- enctypes
run enctypes
cp "$tmp/out" "$tmp/enctypes"
if [ "$rc" = 0 ]; then ok "gk5 enctypes runs"; else not_ok "gk5 enctypes runs" "exit $rc"; fi
# row NUM: the table line for enctype NUM
row() { grep -E "^ *$1 " "$tmp/enctypes"; }
for et in 17 18 19 20 25 26; do
    if row "$et" | grep -Eq "^ *$et +[a-z0-9-]+ +supported *$"; then
        ok "enctypes: $et supported"
    else
        not_ok "enctypes: $et supported" "row: '$(row "$et")'"
    fi
done
for et in 23 24; do
    if row "$et" | grep -Eq "^ *$et +rc4-hmac[a-z-]* +rejected +RFC 8429"; then
        ok "enctypes: $et rejected (RFC 8429)"
    else
        not_ok "enctypes: $et rejected (RFC 8429)" "row: '$(row "$et")'"
    fi
done
for et in 1 2 3; do
    if row "$et" | grep -Eq "^ *$et +des-cbc-[a-z0-9]+ +rejected +RFC 6649"; then
        ok "enctypes: $et rejected (RFC 6649)"
    else
        not_ok "enctypes: $et rejected (RFC 6649)" "row: '$(row "$et")'"
    fi
done
if [ "$des3" = 1 ]; then des3_state="supported *$"; else des3_state="not built +.*des3=true"; fi
if row 16 | grep -Eq "^ *16 +des3-cbc-sha1 +$des3_state"; then
    ok "enctypes: 16 is '${des3_state%% +*}' (GK5_DES3=$des3)"
else
    not_ok "enctypes: 16 state (GK5_DES3=$des3)" "row: '$(row 16)'"
fi
expect_rc "enctypes: extra argument" 2 -- enctypes extra
expect_rc "enctypes: unknown option" 2 "unknown option" -- enctypes --bogus

# ------------------------------------------------------ string-to-key
# RFC 3962 Appendix B (PBKDF2-HMAC-SHA1, then DK(tkey, "kerberos")).
salt=ATHENA.MIT.EDUraeburn
expect_hex "s2k RFC 3962 B: aes128, 1 iteration" 42263c6e89f4fc28b8df68ee09799f15 \
    crypto string-to-key --enctype aes128-cts-hmac-sha1-96 --password password --salt "$salt" --params 00000001 --allow-weak
expect_hex "s2k RFC 3962 B: aes256, 1 iteration" \
    fe697b52bc0d3ce14432ba036a92e65bbb52280990a2fa27883998d72af30161 \
    crypto string-to-key --enctype 18 --password password --salt "$salt" --params 00000001 --allow-weak
expect_hex "s2k RFC 3962 B: aes256, 1200 iterations" \
    55a6ac740ad17b4846941051e1e8b0a7548d93b0ab30a8bc3ff16280382b8c2a \
    crypto string-to-key --enctype aes256-cts --password password --salt "$salt" --params 000004b0 --allow-weak
expect_hex "s2k RFC 3962 B: aes128, binary salt, 5 iterations" e9b23d52273747dd5c35cb55be619d8e \
    crypto string-to-key --enctype 17 --password password \
    --salt $'\x12\x34\x56\x78\x78\x56\x34\x12' --params 00000005 --allow-weak
# RFC 8009 Appendix A: default 32768 iterations, salt as the caller gives it.
expect_hex "s2k RFC 8009 A: aes128-sha2, default iterations" 089bca48b105ea6ea77ca5d2f39dc5e7 \
    crypto string-to-key --enctype 19 --password password \
    --salt $'\x10\xdf\x9d\xd7\x83\xe5\xbc\x8a\xce\xa1\x73\x0e\x74\x35\x5f\x61'"$salt"
# RFC 6803 section 10.
expect_hex "s2k RFC 6803 10: camellia128, 1 iteration" 57d0297298ffd9d35de5a47fb4bde24b \
    crypto string-to-key --enctype camellia128-cts-cmac --password password --salt "$salt" --params 00000001 --allow-weak
# Counts below the enctype's default are refused without --allow-weak, in
# words that say why; the default itself and above are fine.
expect_rc "s2k: 1 iteration refused" 1 "below the enctype's default" -- \
    crypto string-to-key --enctype 17 --password password --salt "$salt" --params 00000001
expect_rc "s2k: 32767 iterations refused for aes-sha2" 1 "below the enctype's default" -- \
    crypto string-to-key --enctype 19 --password password --salt "$salt" --params 00007fff
run crypto string-to-key --enctype 17 --password password --salt "$salt" --params 00001000
k4096=$out
run crypto string-to-key --enctype 17 --password password --salt "$salt"
if [ "$rc" = 0 ] && [ ${#k4096} = 32 ] && [ "$out" = "$k4096" ]; then
    ok "s2k: 4096 iterations (aes-sha1's default) accepted, same key as no params"
else
    not_ok "s2k: 4096 iterations accepted" "gk5 crypto string-to-key" "got '$k4096' and '$out'"
fi
expect_rc "s2k: --allow-weak takes no value" 2 -- \
    crypto string-to-key --enctype 17 --password password --salt "$salt" --allow-weak=1
if [ "$des3" = 1 ]; then
    # RFC 3961 A.4.
    expect_hex "s2k RFC 3961 A.4: des3" 850bb51358548cd05e86768c313e3bfef7511937dcf72c3e \
        crypto string-to-key --enctype des3-cbc-sha1 --password password --salt "$salt"
fi

# ------------------------------------------------------------- derive
expect_hex "derive RFC 8009 A: aes128-sha2 Kc" b31a018a48f54776f403e9a396325dc3 \
    crypto derive --enctype 19 --key 3705d96080c17728a0e800eab6e0d23c --constant 0000000299
expect_hex "derive RFC 8009 A: aes128-sha2 Ke" 9b197dd1e8c5609d6e67c3e37c62c72e \
    crypto derive --enctype 19 --key 3705d96080c17728a0e800eab6e0d23c --constant 00000002aa
expect_hex "derive RFC 8009 A: aes256-sha2 Kc (192 bits)" \
    ef5718be86cc84963d8bbb5031e9f5c4ba41f28faf69e73d \
    crypto derive --enctype 20 \
    --key 6d404d37faf79f9df0d33568d320669800eb4836472ea8a026d16b7182460c52 --constant 0000000299
expect_hex "derive RFC 8009 A: aes256-sha2 Ke (256 bits)" \
    56ab22bee63d82d7bc5227f6773f8ea7a5eb1c825160c38312980c442e5c7e49 \
    crypto derive --enctype 20 \
    --key 6d404d37faf79f9df0d33568d320669800eb4836472ea8a026d16b7182460c52 --constant 00000002aa
expect_hex "derive RFC 6803 10: camellia128 Ki" 3e4fbdf30fb8259c425cb6c96f1f4635 \
    crypto derive --enctype 25 --key 57d0297298ffd9d35de5a47fb4bde24b --constant 0000000255
expect_hex "derive MIT t_derive: aes128-sha1 Kc" 34280a382bc92769b2da2f9ef066854b \
    crypto derive --enctype 17 --key 42263c6e89f4fc28b8df68ee09799f15 --constant 0000000299
if [ "$des3" = 1 ]; then
    expect_hex "derive RFC 3961 A.3: des3" 925179d04591a79b5d3192c4a7e9c289b049c71f6ee604cd \
        crypto derive --enctype 16 --key dce06b1f64c857a11c3db57c51899b2cc1791008ce973b92 \
        --constant 0000000155
    # MIT t_decrypt (the plaintext keeps its zero padding) and t_cksums.
    expect_hex "decrypt MIT t_decrypt: des3, padding kept" 31332062797465732062797465000000 \
        crypto decrypt --enctype des3-cbc-sha1 --key 0dd52094e0f41ceccb5be510a764b35176e3981332f1e598 \
        --usage 3 --in 839a17081ecbafbcdc91b88c6955dd3c4514023cf177b77bf0d0177a16f705e849cb7781d76a316b193f8d30
    expect_hex "checksum MIT t_cksums: hmac-sha1-des3-kd" 0eefc9c3e049aabc1ba5c401677d9ab699082bb4 \
        crypto checksum --enctype 16 --key 7a25df8992296dceda0e135bc4046e2375b3c14c98fbc162 \
        --usage 2 --in 73697820736576656e
fi

# ------------------------------------------------------------ encrypt
k19=3705d96080c17728a0e800eab6e0d23c
k20=6d404d37faf79f9df0d33568d320669800eb4836472ea8a026d16b7182460c52
c19=84d7f30754ed987bab0bf3506beb09cfb55402cef7e6877ce99e247e52d16ed4421dfdf8976c
c20=40013e2df58e8751957d2878bcd2d6fe101ccfd556cb1eae79db3c3ee86429f2b2a602ac86fef6ecb647d6295fae077a1feb517508d2c16b4192e01f62
k25=2ca27a5faf5532244506434e1cef6676
c25=b8eca3167ae6315512e59f98a7c500205e5f63ff3bb389af1c41a21d640d8615c9ed3fbeb05ab6acb67689b5ea
expect_hex "encrypt RFC 8009 A: aes128-sha2, 6 bytes" "$c19" \
    crypto encrypt --enctype 19 --key $k19 --usage 2 --in 000102030405 \
    --confounder 7bca285e2fd4130fb55b1a5c83bc5b24
expect_hex "encrypt RFC 8009 A: aes128-sha2, empty" \
    ef85fb890bb8472f4dab20394dca781dad877eda39d50c870c0d5a0a8e48c718 \
    crypto encrypt --enctype 19 --key $k19 --usage 2 --in "" \
    --confounder 7e5895eaf2672435bad817f545a37148
expect_hex "encrypt RFC 8009 A: aes256-sha2, 21 bytes" "$c20" \
    crypto encrypt --enctype aes256-cts-hmac-sha384-192 --key $k20 --usage 2 \
    --in 000102030405060708090a0b0c0d0e0f1011121314 --confounder 763e65367e864f02f55153c7e3b58af1
expect_hex "encrypt RFC 6803 10: camellia128, 13 bytes (usage 3, erratum 4326)" "$c25" \
    crypto encrypt --enctype 25 --key $k25 --usage 3 --in 31332062797465732062797465 \
    --confounder 19fee40d810c524b5b22f01874c693da
expect_hex "encrypt: hex may be grouped with spaces" "$c19" \
    crypto encrypt --enctype 19 --key "37 05 d9 60 80 c1 77 28 a0 e8 00 ea b6 e0 d2 3c" --usage 2 \
    --in "00 01 02 03 04 05" --confounder 7BCA285E2FD4130FB55B1A5C83BC5B24

# ------------------------------------------------------------ decrypt
expect_hex "decrypt RFC 8009 A: aes128-sha2" 000102030405 \
    crypto decrypt --enctype 19 --key $k19 --usage 2 --in "$c19"
expect_hex "decrypt RFC 8009 A: aes256-sha2" 000102030405060708090a0b0c0d0e0f1011121314 \
    crypto decrypt --enctype 20 --key $k20 --usage 2 --in "$c20"
expect_hex "decrypt RFC 6803 10: camellia128" 31332062797465732062797465 \
    crypto decrypt --enctype 25 --key $k25 --usage 3 --in "$c25"
expect_hex "decrypt MIT t_decrypt: aes128-sha1" 392062797465737373 \
    crypto decrypt --enctype 17 --key 9062430c8cda3388922e6d6a509f5b7a --usage 2 \
    --in 68fb9679601f45c78857b2bf820fd6e53eca8d42fd4b1d7024a09205abb7cd2ec26c355d2f
# A flipped bit anywhere fails the integrity check: exit 1, no plaintext.
for pos in 0 20 $((${#c19} - 1)); do
    d=${c19:$pos:1}
    f=$(printf '%x' $((0x$d ^ 1)))
    bad=${c19:0:$pos}$f${c19:$((pos + 1))}
    expect_rc "decrypt: flipped bit at hex digit $pos fails" 1 "integrity|checksum|MAC" -- \
        crypto decrypt --enctype 19 --key $k19 --usage 2 --in "$bad"
done
expect_rc "decrypt: wrong usage fails" 1 -- \
    crypto decrypt --enctype 19 --key $k19 --usage 3 --in "$c19"
expect_rc "decrypt: truncated ciphertext fails" 1 -- \
    crypto decrypt --enctype 19 --key $k19 --usage 2 --in "${c19:0:40}"
# Random confounder: a round trip.
run crypto encrypt --enctype 26 --key "$k20" --usage 7 --in 48656c6c6f2c20776f726c6421
ct=$out
if [ "$rc" = 0 ] && [ ${#ct} = $(((13 + 16 + 16) * 2)) ]; then
    ok "encrypt camellia256, random confounder"
else
    not_ok "encrypt camellia256, random confounder" "exit $rc, '$ct'"
fi
expect_hex "decrypt it again" 48656c6c6f2c20776f726c6421 \
    crypto decrypt --enctype 26 --key "$k20" --usage 7 --in "$ct"
run crypto encrypt --enctype 26 --key "$k20" --usage 7 --in 48656c6c6f2c20776f726c6421
if [ "$rc" = 0 ] && [ "$out" != "$ct" ]; then ok "confounders differ"; else not_ok "confounders differ"; fi

# ----------------------------------------------------------- checksum
expect_hex "checksum RFC 6803 10: cmac-camellia128, usage 7" 1178e6c5c47a8c1ae0c4b9c7d4eb7b6b \
    crypto checksum --enctype 25 --key 1dc46a8d763f4f93742bcba3387576c3 --usage 7 --in 6162636465666768696a6b
expect_hex "checksum RFC 6803 10: cmac-camellia256, usage 9" 87a12cfd2b96214810f01c826e7744b1 \
    crypto checksum --enctype 26 \
    --key b61c86cc4e5d2757545ad423399fb7031ecab913cbb900bd7a3c6dd8bf92015b --usage 9 --in 313233343536373839
expect_hex "checksum RFC 8009 A: hmac-sha384-192-aes256" 45ee791567eefca37f4ac1e0222de80d43c3bfa06699672a \
    crypto checksum --enctype 20 --key $k20 --usage 2 --in 000102030405060708090a0b0c0d0e0f1011121314
expect_hex "checksum MIT t_cksums: hmac-sha1-96-aes128" 01a4b088d45628f6946614e3 \
    crypto checksum --enctype 17 --key 9062430c8cda3388922e6d6a509f5b7a --usage 3 \
    --in 6569676874206e696e652074656e20656c6576656e207477656c766520746869727465656e

# ---------------------------------------------------------------- prf
expect_hex "prf RFC 8009 A: aes128-sha2" 9d188616f63852fe86915bb840b4a886ff3e6bb0f819b49b893393d393854295 \
    crypto prf --enctype 19 --key $k19 --in 74657374
expect_hex "prf RFC 8009 A: aes256-sha2" \
    9801f69a368c2bf675e59521e177d9a07f67efe1cfde8d3c8d6f6a0256e3b17db3c1b62ad1b8553360d17367eb1514d2 \
    crypto prf --enctype 20 --key $k20 --in 74657374
expect_hex "prf MIT t_prf: aes128-sha1" 77b39a37a868920f2a51f9dd150c5717 \
    crypto prf --enctype 17 --key ae272e7cdec86ac5138cdb196d8e297d --in 0161

# ------------------------------------------------------- usage errors
k16=000102030405060708090a0b0c0d0e0f
expect_rc "no command" 2 -- 
expect_rc "unknown command" 2 "unknown command" -- frobnicate
expect_rc "unknown top-level option" 2 "unknown option" -- --frobnicate
expect_rc "crypto without an operation" 2 -- crypto
expect_rc "crypto: unknown operation" 2 "unknown operation" -- crypto frobnicate
expect_rc "crypto: unknown option" 2 "unknown option '--frobnicate'" -- \
    crypto prf --enctype 17 --key $k16 --in 00 --frobnicate
expect_rc "crypto: unknown short option" 2 "unknown option" -- \
    crypto prf --enctype 17 --key $k16 --in 00 -x
expect_rc "crypto: missing argument" 2 "needs an argument" -- \
    crypto prf --enctype 17 --in 00 --key
expect_rc "crypto: missing required option" 2 "--key is required" -- \
    crypto prf --enctype 17 --in 00
expect_rc "crypto: --enctype required" 2 "--enctype is required" -- \
    crypto derive --key $k16 --constant 0000000299
expect_rc "crypto: bad hex (not a digit)" 2 "not valid hex" -- \
    crypto prf --enctype 17 --key 00zz --in 00
expect_rc "crypto: bad hex (odd length)" 2 "not valid hex" -- \
    crypto encrypt --enctype 17 --key $k16 --usage 1 --in 012
expect_rc "crypto: bad hex (space inside a byte)" 2 "not valid hex" -- \
    crypto checksum --enctype 17 --key $k16 --usage 1 --in "0 1"
expect_rc "crypto: bad usage number" 2 "usage" -- \
    crypto checksum --enctype 17 --key $k16 --usage x --in 00
expect_rc "crypto: negative usage" 2 "usage" -- \
    crypto checksum --enctype 17 --key $k16 --usage -1 --in 00
expect_rc "crypto: usage out of range" 2 "usage" -- \
    crypto checksum --enctype 17 --key $k16 --usage 4294967296 --in 00
expect_rc "crypto: option that does not apply" 2 "does not apply" -- \
    crypto prf --enctype 17 --key $k16 --in 00 --usage 3
expect_rc "crypto: option given twice" 2 "twice" -- \
    crypto prf --enctype 17 --key $k16 --in 00 --in 01
expect_rc "crypto: stray argument" 2 "unexpected argument" -- \
    crypto prf --enctype 17 --key $k16 --in 00 extra

# -------------------------------------------------- operation failures
expect_rc "crypto: wrong key length" 1 -- crypto prf --enctype 18 --key $k16 --in 00
expect_rc "crypto: unknown enctype number" 1 "unknown enctype 99" -- \
    crypto prf --enctype 99 --key $k16 --in 00
expect_rc "crypto: unknown enctype name" 1 "unknown enctype 'no-such-enctype'" -- \
    crypto prf --enctype no-such-enctype --key $k16 --in 00

# ---------------------------------------- refused enctypes, every operation
# refuse ENCTYPE REGEX: every crypto operation exits 1 with the reason.
refuse() {
    local et=$1 re=$2
    expect_rc "string-to-key refuses $et" 1 "$re" -- \
        crypto string-to-key --enctype "$et" --password password --salt "$salt"
    expect_rc "derive refuses $et" 1 "$re" -- \
        crypto derive --enctype "$et" --key $k16 --constant 0000000299
    expect_rc "encrypt refuses $et" 1 "$re" -- \
        crypto encrypt --enctype "$et" --key $k16 --usage 1 --in 00
    expect_rc "encrypt --confounder refuses $et" 1 "$re" -- \
        crypto encrypt --enctype "$et" --key $k16 --usage 1 --in 00 --confounder 0001020304050607
    expect_rc "decrypt refuses $et" 1 "$re" -- \
        crypto decrypt --enctype "$et" --key $k16 --usage 1 \
        --in 02c1eb15586144122ec717763dd348bf00434ddc6585954c
    expect_rc "checksum refuses $et" 1 "$re" -- \
        crypto checksum --enctype "$et" --key $k16 --usage 1 --in 00
    expect_rc "prf refuses $et" 1 "$re" -- \
        crypto prf --enctype "$et" --key $k16 --in 00
}
refuse 23 "rc4-hmac \(23\) is deliberately unsupported: RFC 8429"
refuse rc4-hmac "rc4-hmac \(23\) is deliberately unsupported: RFC 8429"
refuse 24 "rc4-hmac-exp \(24\) is deliberately unsupported: RFC 8429"
refuse 1 "des-cbc-crc \(1\) is deliberately unsupported: RFC 6649"
refuse 2 "des-cbc-md4 \(2\) is deliberately unsupported: RFC 6649"
refuse 3 "des-cbc-md5 \(3\) is deliberately unsupported: RFC 6649"
if [ "$des3" != 1 ]; then
    refuse 16 "des3-cbc-sha1 \(16\) is not built \(-Ddes3=true\)"
fi

echo "1..$n"
if [ "$failed" != 0 ]; then
    echo "# $failed of $n failed"
    exit 1
fi
echo "# all $n passed"
