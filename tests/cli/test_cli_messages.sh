#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The CLI's messages: every usage error names the option at fault, a wrong
# key length says expected and actual, the library's words are not said
# twice, --version says what was built in, and `gk5 bench --enctypes`
# refuses a list it cannot measure.  Each cell asserts the words and the
# exit status.  Run by meson with GK5_CLI, GK5_DES3, GK5_MIT and GK5_RPC
# (0/1: what the build has).
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# expect RC TEXT ARGS...: exit status RC, the fixed string TEXT on stderr,
# nothing on stdout.  The cell is named after the command line.
expect() {
    local want=$1 text=$2 rc
    shift 2
    # shellcheck disable=SC2086  # the wrapper is a word list on purpose
    $wrapper "$cli" "$@" </dev/null >out 2>err
    rc=$?
    if [ "$rc" = "$want" ] && [ ! -s out ] && grep -qF -- "$text" err; then
        ok "gk5 $*: exit $want, '$text'"
    else
        not_ok "gk5 $*: want exit $want and '$text'; got exit $rc"
    fi
}

k128=000102030405060708090a0b0c0d0e0f
k256=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
"$cli" ctx new --enctype 17 --key $k128 --out i.gssd >/dev/null
"$cli" ctx new --enctype 17 --key $k128 --acceptor --out a.gssd >/dev/null

# ------------------------------------------------------------ --version
"$cli" --version >out 2>err
rc=$?
if [ "$des3" = 1 ]; then d=yes; else d=no; fi
mit=${GK5_MIT:?run by meson (GK5_MIT: 0 or 1)}
if [ "$mit" = 1 ]; then
    m=yes est='native; MIT bridge (libgk5_mit)'
else
    m=no est='native only (built without MIT krb5)'
fi
if [ "${GK5_RPC:?run by meson (GK5_RPC: 0 or 1)}" = 1 ]; then r=yes; else r=no; fi
if [ $rc = 0 ] && grep -Eq '^gk5 [0-9]+\.[0-9]+' out && grep -q "^des3: $d" out &&
    grep -q "^MIT krb5 bridge: $m" out && grep -q "^RPCSEC_GSS: $r" out &&
    grep -qxF "establishment: $est" out &&
    grep -Eq '^AES-NI/SHA-NI one-pass path: (yes|no)' out &&
    grep -Eq '^OpenSSL: OpenSSL [0-9]+\.[0-9]+' out; then
    ok "gk5 --version: version, des3 $d, MIT $m, RPC $r, establishment $est, one-pass, OpenSSL"
else
    not_ok "gk5 --version: $(tr '\n' '|' <out)"
fi
expect 2 "option '--version' takes no argument" --version=1
# Built without MIT krb5: what needs it is refused in words, or absent.
if [ "$mit" = 0 ]; then
    if [ "$r" = yes ]; then
        nomit="--establish mit: this gk5 was built without MIT krb5"
        expect 2 "rpc ping: $nomit" rpc ping --establish mit 127.0.0.1:1
        expect 2 "nfs4 ls: $nomit" nfs4 ls --establish mit 127.0.0.1:1 /
        # nfs4 bench is gk5-bench's: with -Dbench=disabled gk5 names that.
        if "$cli" --help | grep -q '^  bench '; then
            expect 2 "--via libtirpc: libtirpc's RPCSEC_GSS client runs on MIT's GSS-API" \
                nfs4 bench --via libtirpc 127.0.0.1:1 /
        else
            expect 2 "nfs4 bench: it runs gk5-bench, which this build leaves out (-Dbench=disabled)" \
                nfs4 bench --via libtirpc 127.0.0.1:1 /
        fi
    fi
fi
# Built without libtirpc: gk5's own client only, libtirpc refused in words.
if [ "${GK5_RPC:?}" = 1 ] && [ "${GK5_TIRPC:?run by meson (GK5_TIRPC: 0 or 1)}" = 0 ]; then
    notirpc="--transport libtirpc: this gk5 was built without libtirpc"
    expect 2 "rpc ping: $notirpc" rpc ping --transport libtirpc 127.0.0.1:1
    expect 2 "nfs4 ls: $notirpc" nfs4 ls --transport libtirpc 127.0.0.1:1:/
    expect 2 "nfs4 put: $notirpc" nfs4 put --transport libtirpc /dev/null 127.0.0.1:1:/x
    expect 2 "nfs4 storm: it makes many RPCSEC_GSS contexts on each connection (gk5's AUTHs on one libtirpc CLIENT), and this gk5 was built without libtirpc" \
        nfs4 storm 127.0.0.1:1:/
fi
if [ "$mit" = 0 ]; then
    for c in demo interop; do
        expect 2 "'$c' is not built into this gk5: it runs MIT krb5's initiator and acceptor in-process, and this gk5 was built without MIT krb5" "$c"
    done
fi
# gk5-bench is built without MIT krb5 too: there it runs --scale alone and
# names its reason for the runs beside MIT.
if ! "$cli" --help | grep -q '^  bench '; then
    expect 2 "'bench' is not built into this gk5: it runs gk5-bench, which this build leaves out (-Dbench=disabled)" bench
elif [ "$mit" = 0 ]; then
    # shellcheck disable=SC2086  # no option for the default run
    for run in "the default run:" "--contexts:--contexts" "--accept:--accept" "--init:--init"; do
        expect 2 "bench: ${run%%:*} sets gk5 beside MIT krb5 in a throwaway MIT realm, and this gk5-bench was built without MIT krb5 (-Dmit=disabled): only --scale runs" \
            bench ${run#*:}
    done
fi
expect 2 "unknown option '-x'" -x
expect 2 "unknown option '--frobnicate'" --frobnicate

# ------------------------------------------- options named in every parser
expect 2 "enctypes: unknown option '--bogus'" enctypes --bogus
expect 2 "inspect: unknown option '--bogus'" inspect --bogus
expect 2 "wrap: unknown option '--frobnicate'" wrap --ctx i.gssd --frobnicate
expect 2 "wrap: option '--ctx' needs an argument" wrap --ctx
expect 2 "wrap: option '--no-conf' takes no argument" wrap --no-conf=1 --ctx i.gssd
expect 2 "wrap: --format: 'json' is neither gssd nor gk5" wrap --ctx i.gssd --format json
expect 2 "wrap: option '--accept' does not apply" wrap --ctx i.gssd --accept gap
expect 2 "unwrap: --accept: unknown status 'bogus'" unwrap --ctx a.gssd --accept bogus
expect 2 "verify: --token FILE is required" verify --ctx a.gssd
expect 2 "mic: unexpected argument 'extra'" mic --ctx i.gssd extra
expect 2 "crypto checksum: --usage: 'x' is not a number" \
    crypto checksum --enctype 17 --key $k128 --usage x --in 00
expect 2 "crypto prf: option '--key' needs an argument" crypto prf --enctype 17 --in 00 --key
expect 2 "crypto prf: --key: not valid hex" crypto prf --enctype 17 --key 0g --in 00
expect 1 "crypto prf: --enctype: unknown enctype 'aes512'" crypto prf --enctype aes512 --key $k128 --in 00
expect 2 "ctx new: --send-seq: 'x' is not a number" ctx new --enctype 17 --key $k128 --send-seq x --out x
expect 2 "ctx show: unknown option '--key'" ctx show i.gssd --key
if "$cli" --help | grep -q '^  rpc '; then
    expect 2 "rpc ping: --timeout: 'x' is not a positive number" rpc ping --timeout x 127.0.0.1:1
    expect 2 "rpc ping: option '--timeout' needs an argument" rpc ping 127.0.0.1:1 --timeout
    # rpc echo is gk5-bench's: with -Dbench=disabled gk5 names that.
    if "$cli" --help | grep -q '^  bench '; then
        expect 2 "rpc echo: --transport: 'udp' is not gk5 or libtirpc" rpc echo --transport udp 127.0.0.1:1
        expect 2 "rpc echo: --inflight keeps calls out on one connection from one thread: not with --threads" \
            rpc echo --inflight 4 --threads 2 127.0.0.1:1
        expect 2 "rpc echo: --inflight: '0' is not a number from 1 to 1024" rpc echo --inflight 0 127.0.0.1:1
    else
        expect 2 "rpc echo: it runs gk5-bench, which this build leaves out (-Dbench=disabled)" \
            rpc echo --inflight 0 127.0.0.1:1
    fi
    if "$cli" --help | grep -q '^  nfs4 '; then
        expect 2 "nfs4 cat: option '--timeout' needs an argument" nfs4 cat 127.0.0.1:1:/x --timeout
        expect 2 "nfs4 cat: unknown option '--frobnicate'" nfs4 cat 127.0.0.1:1:/x --frobnicate
        expect 2 "nfs4 cat: --enctype: unknown enctype 'aes512'" nfs4 cat --enctype aes512 127.0.0.1:1:/x
        expect 2 "nfs4 cat: --transport: 'udp' is not gk5 or libtirpc" nfs4 cat --transport udp 127.0.0.1:1:/x
        expect 2 "nfs4 cat: --inflight: '0' is not a number from 1 to 1024" nfs4 cat --inflight 0 127.0.0.1:1:/x
        expect 2 "nfs4 put: --inflight: '1025' is not a number from 1 to 1024" nfs4 put --inflight 1025 /dev/null 127.0.0.1:1:/x
        expect 2 "nfs4 ls: --inflight applies to nfs4 put, cat and bench" nfs4 ls --inflight 4 127.0.0.1:1:/
        if [ "${GK5_TIRPC:?}" = 1 ]; then
            expect 2 "nfs4 cat: --inflight keeps calls out on gk5's own client: not with --transport libtirpc" \
                nfs4 cat --inflight 4 --transport libtirpc 127.0.0.1:1:/x
            if "$cli" --help | grep -q '^  bench '; then
                expect 2 "nfs4 bench: --via libtirpc is libtirpc's own RPCSEC_GSS client: not with --transport gk5 or --inflight" \
                    nfs4 bench --via libtirpc --inflight 4 127.0.0.1:1:/
            fi
        fi
    else
        not_ok "gk5 --help lists nfs4 in a build with RPC"
    fi
else
    tap_skip "rpc and nfs4 option messages" "built without RPC"
fi

# ------------------------------- subcommands: a missing or unknown word
# One dispatcher serves every command with subcommands; the words each
# says for a first word it does not take are its own, and scripts read
# them: the whole of stderr is compared (valgrind's "==" lines aside).
expect_stderr() {
    local want=$1 text=$2 rc
    shift 2
    # shellcheck disable=SC2086  # the wrapper is a word list on purpose
    $wrapper "$cli" "$@" </dev/null >out 2>err
    rc=$?
    if [ "$rc" = "$want" ] && [ ! -s out ] &&
        [ "$(grep -v '^==' err)" = "$text" ]; then
        ok "gk5 $*: exit $want, stderr '$(head -n 1 err)'"
    else
        not_ok "gk5 $*: want exit $want and '$text'; got exit $rc, '$(tr '\n' '|' <err)'"
    fi
}
# help_out CMD...: the usage on stdout, exit 0; no_word CMD: on stderr, 2.
help_out() {
    if "$cli" "$@" >out 2>err && grep -q '^Usage: gk5 ' out && [ ! -s err ]; then
        ok "gk5 $*: the usage on stdout, exit 0"
    else
        not_ok "gk5 $*: the usage on stdout, exit 0"
    fi
}
no_word() {
    "$cli" "$1" >out 2>err
    if [ $? = 2 ] && grep -q '^Usage: gk5 ' err && [ ! -s out ]; then
        ok "gk5 $1: the usage on stderr, exit 2"
    else
        not_ok "gk5 $1: the usage on stderr, exit 2"
    fi
}
expect_stderr 2 "gk5: error: ctx: unknown command 'x' (new, show, convert)
Try 'gk5 ctx --help'." ctx x
expect_stderr 2 "gk5: error: ctx: expected new, show or convert before '--x'
Try 'gk5 ctx --help'." ctx --x
expect_stderr 2 "gk5: error: crypto: unknown operation 'x'
Try 'gk5 crypto --help'." crypto x
expect_stderr 2 "gk5: error: crypto: expected an operation before '-x'
Try 'gk5 crypto --help'." crypto -x
expect_stderr 2 "gk5: error: realm: start, stop or run is required
Try 'gk5 realm --help'." realm
expect_stderr 2 "gk5: error: realm: start, stop or run is required
Try 'gk5 realm --help'." realm ""
expect_stderr 2 "gk5: error: realm: unknown operation 'help'
Try 'gk5 realm --help'." realm help
expect_stderr 2 "gk5: error: unknown command 'x'
Try 'gk5 --help'." x
no_word ctx
no_word crypto
help_out ctx help
help_out crypto -h
help_out realm --help
help_out help realm
if "$cli" --help | grep -q '^  rpc '; then
    expect_stderr 2 "gk5: error: rpc: unknown command '-x' (ping, serve, echo)
Try 'gk5 rpc --help'." rpc -x
    expect_stderr 2 "gk5: error: nfs4: unknown command 'help' (ls, cat, put, rm, bench, storm)" \
        nfs4 help
    no_word rpc
    no_word nfs4
    help_out rpc help
    help_out nfs4 -h
else
    tap_skip "rpc and nfs4 subcommand words" "built without RPC"
fi

# ------------------------------------------- key lengths: expected, actual
expect 1 "crypto prf: --key: aes256-cts-hmac-sha1-96 needs a 32-byte key (64 hex digits), got 16 bytes" \
    crypto prf --enctype 18 --key $k128 --in 00
expect 1 "crypto encrypt: --key: aes128-cts-hmac-sha256-128 needs a 16-byte key (32 hex digits), got 32 bytes" \
    crypto encrypt --enctype 19 --key $k256 --usage 1 --in 00
expect 1 "crypto derive: --key: camellia128-cts-cmac needs a 16-byte key (32 hex digits), got 1 byte" \
    crypto derive --enctype 25 --key 00 --constant 0000000299
expect 1 "ctx new: --key: aes256-cts-hmac-sha384-192 needs a 32-byte key (64 hex digits), got 16 bytes" \
    ctx new --enctype 20 --key $k128 --out x
# A refused enctype is refused for what it is, not for the key.
expect 1 "rc4-hmac (23) is deliberately unsupported: RFC 8429" crypto prf --enctype 23 --key $k256 --in 00

# ------------------------------------------------- no doubled phrases
# wrap_once NAME SAID CTX TEXT WORD: `gk5 wrap --ctx CTX` exits 1 with the
# fixed string TEXT on stderr and WORD there only once; the cell is
# "NAME: SAID".
wrap_once() {
    local name=$1 said=$2 ctx=$3 text=$4 word=$5 rc
    printf 'x' | "$cli" wrap --ctx "$ctx" >out 2>err
    rc=$?
    if [ $rc = 1 ] && grep -qF "$text" err &&
        [ "$(grep -o "$word" err | wc -l)" = 1 ]; then
        ok "$name: $said"
    else
        not_ok "$name: exit $rc, $(cat err)"
    fi
}

"$cli" ctx new --enctype 17 --key $k128 --endtime 1 --out old.gssd >/dev/null
wrap_once "expired context" "exit 1, the words once" old.gssd \
    "wrap: GSS_S_CONTEXT_EXPIRED: the security context has expired" \
    'has expired'
# The words of a refused enctype in a context file: the major's, then the
# table's, each once.  (The enctype's low byte is patched: little-endian.)
if [ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" = 1 ]; then
    "$cli" ctx new --enctype 17 --key $k128 --out rc4.gssd >/dev/null
    printf '\027' | dd of=rc4.gssd bs=1 seek=16 conv=notrunc status=none
    wrap_once "rc4 context file" \
        "exit 1, UNAVAILABLE and the table's reason, once each" rc4.gssd \
        "GSS_S_UNAVAILABLE: the operation or option is unavailable: rc4-hmac (23) is deliberately unsupported" \
        'unavailable'
else
    tap_skip "rc4 context file" "big-endian host"
fi

# ------------------------------------------------ gk5 bench --enctypes
if "$cli" --help | grep -q '^  bench '; then
    expect 1 "bench: --enctypes: rc4-hmac (23) is deliberately unsupported: RFC 8429" \
        bench --quick --enctypes 23
    expect 1 "bench: --enctypes: rc4-hmac (23) is deliberately unsupported" \
        bench --quick --enctypes 17,rc4-hmac
    expect 1 "bench: --enctypes: des-cbc-crc (1) is deliberately unsupported: RFC 6649" \
        bench --quick --enctypes 1
    expect 1 "bench: --enctypes: unknown enctype 99" bench --quick --enctypes 99
    expect 2 "bench: --enctypes: unknown enctype 'aes512' (see 'gk5 enctypes')" \
        bench --quick --enctypes aes512
    expect 2 "bench: --enctypes: empty list" bench --quick --enctypes ''
    expect 2 "bench: --enctypes: empty list" bench --quick --enctypes ,
    expect 2 "bench: option '--enctypes' needs an argument" bench --quick --enctypes
    if [ "$des3" = 1 ]; then
        tap_skip "bench --enctypes 16 without des3" "des3 is built"
    else
        expect 1 "bench: --enctypes: des3-cbc-sha1 (16) is not built (-Ddes3=true)" \
            bench --quick --enctypes 16
    fi
    expect 2 "bench: --sizes: 'lots' is not a size" bench --quick --sizes lots
else
    tap_skip "bench --enctypes refusals" "gk5 bench is not built (-Dbench=disabled)"
fi

tap_done
