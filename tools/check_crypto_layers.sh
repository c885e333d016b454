#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The one-way chain inside src/crypto.
#
#   tools/check_crypto_layers.sh [path/to/libgk5_internal.a]
#
# Every file of src/crypto has a layer (the table below, the order of
# src/crypto/internal.h's sections):
#   0 fast/switch.c                      the switch and the CPU's features
#   1 the rest of fast/                  the hand-written primitives
#   2 algs.c nfold.c confounder.c crypto_iov.c paths.c
#   3 mac.c cts_openssl.c cts.c kdf_batch.c   the engines
#   4 onepass.c kdf.c      (on cts.c's CBC pass; on kdf_batch.c)
#   5 ukey.c                             prepared keys
#   6 checksum.c rfc3961_simplified.c
#   7 rfc3962_aes.c rfc6803_camellia.c rfc8009_aes_sha2.c des3.c
#   8 enctypes.c                         the table (points at the families)
#   9 crypto_api.c                       the entry points
# Without an argument the sources are checked: a file in src/crypto that
# the table does not place is an error, and a file in fast/ includes
# nothing from outside fast/ but src/common (fast.h) and the rest of
# src/crypto never includes fast/'s private aesni.h.  Given the built
# internal library, its objects are checked too: each gk5 symbol a crypto
# object uses must be defined by an object of a lower layer (or outside
# src/crypto, in src/common); a call sideways or up is an error.
#
# Exit status: 0 clean, 1 findings, 2 usage or tool error, 77 the objects
# carry no symbol table nm can read (an LTO build).
set -u
set -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-}
if [ $# -gt 1 ] || [ "$lib" = "-h" ] || [ "$lib" = "--help" ]; then
    sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
status=0
if [ -n "$lib" ] && [ -r "$lib" ]; then
    lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
fi

layer_of() {
    case "$1" in
    fast/switch.c) echo 0 ;;
    fast/*.c) echo 1 ;;
    algs.c | nfold.c | confounder.c | crypto_iov.c | paths.c) echo 2 ;;
    mac.c | cts_openssl.c | cts.c | kdf_batch.c) echo 3 ;;
    onepass.c | kdf.c) echo 4 ;;
    ukey.c) echo 5 ;;
    checksum.c | rfc3961_simplified.c) echo 6 ;;
    rfc3962_aes.c | rfc6803_camellia.c | rfc8009_aes_sha2.c | des3.c) echo 7 ;;
    enctypes.c) echo 8 ;;
    crypto_api.c) echo 9 ;;
    *) echo "" ;;
    esac
}

# ---- sources: every file placed, fast/ self-contained ----
cd "$here/src/crypto" || exit 2
for f in *.c fast/*.c; do
    if [ -z "$(layer_of "$f")" ]; then
        echo "src/crypto/$f has no layer in tools/check_crypto_layers.sh"
        status=1
    fi
done
bad=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' fast/*.c fast/*.h |
    grep -vE '"(fast|aesni)\.h"|"\.\./\.\./common/[a-z_]+\.h"')
if [ -n "$bad" ]; then
    echo "$bad" | sed 's|^|src/crypto/fast reaches above itself: src/crypto/|'
    status=1
fi
bad=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"fast/aesni\.h"' \
    ./*.c ./*.h | sed 's|^\./||')
if [ -n "$bad" ]; then
    echo "$bad" | sed 's|^|fast/aesni.h is private to src/crypto/fast: src/crypto/|'
    status=1
fi

# ---- objects: every call goes down ----
if [ -n "$lib" ]; then
    if [ ! -r "$lib" ]; then
        echo "check_crypto_layers: cannot read $lib" >&2
        exit 2
    fi
    # "member type symbol" for every gk5 symbol; members are meson's object
    # names (a thin archive gives their paths), crypto_fast_aesni.c.o for
    # src/crypto/fast/aesni.c.
    syms=$(nm -A "$lib" 2> /dev/null |
        sed -nE 's/^[^:]*:(.*\/)?([^/:]+): *[0-9a-f]* ([A-Za-z]) (gk5[a-z0-9_]*)$/\2 \3 \4/p')
    if [ -z "$(echo "$syms" | awk '$1 ~ /^crypto_/ && $2 ~ /[TDRB]/')" ]; then
        echo "check_crypto_layers: no symbols of src/crypto in $lib (LTO objects?): skipped"
        exit 77
    fi
    src_of() {
        local m=${1%.c.o}
        m=${m#crypto_}
        case "$m" in
        fast_*) echo "fast/${m#fast_}.c" ;;
        *) echo "$m.c" ;;
        esac
    }
    declare -A def_file
    while read -r member type sym; do
        case "$type" in
        [TDRB]) def_file[$sym]=$member ;;
        esac
    done <<< "$syms"
    while read -r member type sym; do
        [ "$type" = U ] || continue
        case "$member" in crypto_*) ;; *) continue ;; esac
        def=${def_file[$sym]:-}
        [ -n "$def" ] || continue # libc, OpenSSL
        user=$(src_of "$member")
        case "$def" in
        crypto_*) ;;
        common_*) continue ;;
        *)
            echo "src/crypto/$user uses $sym from outside src/crypto (${def%.c.o})"
            status=1
            continue
            ;;
        esac
        callee=$(src_of "$def")
        lu=$(layer_of "$user")
        lc=$(layer_of "$callee")
        if [ -z "$lu" ] || [ -z "$lc" ]; then
            continue # reported above
        fi
        if [ "$lc" -ge "$lu" ]; then
            echo "src/crypto/$user (layer $lu) uses $sym of src/crypto/$callee (layer $lc): not below it"
            status=1
        fi
    done <<< "$syms"
fi

if [ "$status" -eq 0 ]; then
    echo "check_crypto_layers: OK${lib:+ (sources and objects)}"
else
    echo "check_crypto_layers: FAILED"
fi
exit "$status"
