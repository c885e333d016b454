#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The exported symbols agree (the meson test meta/symbols; part 3 of
# tools/check_source.sh).
#
#   tools/check_symbols.sh [path/to/libgk5.so]
#
# For each shipped library the global names of its map (src/libgk5.map,
# libgk5_mit.map, libgk5_rpc.map) are exactly the functions declared
# GK5_EXPORT in its public headers, and, given the built libgk5.so (the
# others are found beside it), exactly its defined dynamic symbols
# (nm -D --defined-only), apart from the version node.  The interposer,
# interposer/gk5_mech.so beside it when built, exports only what its map
# (src/interposer/gk5_mech.map) lets MIT's mechglue look up:
# gss_mech_interposer and gssi_* functions.
#
# Exit status: 0 clean, 1 findings, 2 usage or tool error.
set -u
set -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-}
if [ $# -gt 1 ] || [ "$lib" = "-h" ] || [ "$lib" = "--help" ]; then
    sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
status=0
fail() {
    status=1
}

# One map per shipped library, each with its own public headers:
#   libgk5      gk5.h crypto.h accept.h tickets.h   libgk5_mit  mit.h
#   libgk5_rpc  rpcsec.h
# The other libraries are looked for beside the given libgk5.so.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The defined dynamic symbols of library $1 into $tmp/lib (nm's listing in
# $tmp/nm); version nodes (GK5_0.1) are absolute symbols, not code, and are
# left out.  Exits 2 if nm fails.
dynamic_symbols() {
    if ! nm -D --defined-only "$1" > "$tmp/nm"; then
        echo "check_symbols: nm -D failed on $1" >&2
        exit 2
    fi
    awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | sort -u > "$tmp/lib"
}

check_library() { # map-name so-name header...
    local mapname=$1 soname=$2 map="$here/src/$1" so=""
    shift 2
    [ -n "$lib" ] && so="$(dirname "$lib")/$soname"

    # Global names in the version script (between "global:" and "local:").
    perl -ne '
        s{/\*.*?\*/}{}g; s{#.*}{};
        $in = 1, next if /^\s*global\s*:/;
        $in = 0 if /^\s*local\s*:/ || /^\s*\}/;
        print "$1\n" while $in && /([A-Za-z_]\w*)\s*;/g;
    ' "$map" | sort -u > "$tmp/map"

    # Functions declared GK5_EXPORT in the library's public headers.
    perl -e '
        local $/;
        for my $f (@ARGV) {
            open(my $fh, "<", $f) or die "$f: $!\n";
            my $t = <$fh>;
            $t =~ s{/\*.*?\*/}{ }gs;
            $t =~ s{//[^\n]*}{}g;
            $t =~ s{^\s*#[^\n]*(?:\\\n[^\n]*)*}{}gm;   # the macro definitions
            while ($t =~ /\bGK5_EXPORT\b([^;{]*?)\b([A-Za-z_]\w*)\s*\(/g) {
                print "$2\n";
            }
        }
    ' "$@" | sort -u > "$tmp/hdr"

    echo "== $mapname ($(wc -l < "$tmp/map") names) vs GK5_EXPORT in $(cd "$here" && echo "${@#$here/}") ($(wc -l < "$tmp/hdr"))"
    if [ ! -s "$tmp/map" ] || [ ! -s "$tmp/hdr" ]; then
        echo "check_symbols: no symbols read from $mapname or its headers" >&2
        exit 2
    fi
    comm -23 "$tmp/map" "$tmp/hdr" | sed "s/^/src\/$mapname: in the map but not declared GK5_EXPORT: /" > "$tmp/d1"
    comm -13 "$tmp/map" "$tmp/hdr" | sed "s/^/include\/gk5: declared GK5_EXPORT but not in $mapname: /" >> "$tmp/d1"
    if [ -s "$tmp/d1" ]; then
        cat "$tmp/d1"
        fail
    fi

    if [ -z "$lib" ]; then
        echo "(no library given: the built library's exports were not checked)"
        return
    fi
    if [ ! -f "$so" ]; then
        if [ "$soname" = libgk5.so ]; then
            echo "check_symbols: $so: no such file" >&2
            exit 2
        fi
        echo "($so not built: its exports were not checked)"
        return
    fi
    dynamic_symbols "$so"
    echo "== $mapname vs $(basename "$so") ($(wc -l < "$tmp/lib") defined dynamic symbols)"
    comm -13 "$tmp/map" "$tmp/lib" | sed "s|^|$so: exported but not in the map: |" > "$tmp/d2"
    # A libgk5_rpc built without libtirpc (-Dtirpc=disabled) leaves out
    # what rpcsec.h declares under #ifndef GK5_RPC_NO_TIRPC.
    : > "$tmp/optional"
    if [ "$soname" = libgk5_rpc.so ] && ! readelf -d "$so" | grep -q 'libtirpc'; then
        perl -ne '
            $in = 1 if /^#ifndef GK5_RPC_NO_TIRPC/;
            $in = 0 if /^#endif \/\* GK5_RPC_NO_TIRPC/;
            print "$1\n" if $in && /GK5_EXPORT.*\b(gk5_rpc_\w+)\s*\(/;
        ' "$@" | sort -u > "$tmp/optional"
        echo "(built without libtirpc: $(wc -l < "$tmp/optional") AUTH calls left out)"
    fi
    comm -23 "$tmp/map" "$tmp/lib" | comm -23 - "$tmp/optional" |
        sed "s|^|$so: in the map but not defined in the library: |" >> "$tmp/d2"
    if [ -s "$tmp/d2" ]; then
        cat "$tmp/d2"
        fail
    fi
    # Every exported symbol carries the map's version.
    if awk '$2 != "A" && $3 !~ /@@?GK5_/ { print; bad = 1 } END { exit !bad }' "$tmp/nm"; then
        echo "$so: the symbols above are exported without a GK5_ version"
        fail
    fi
}

check_library libgk5.map libgk5.so "$here/include/gk5/gk5.h" "$here/include/gk5/crypto.h" "$here/include/gk5/accept.h" "$here/include/gk5/tickets.h"
check_library libgk5_mit.map libgk5_mit.so "$here/include/gk5/mit.h"
check_library libgk5_rpc.map libgk5_rpc.so "$here/include/gk5/rpcsec.h"

# The interposer: no public header; its map is a pattern (gssi_*).
check_interposer() {
    local so
    [ -n "$lib" ] || return
    so="$(dirname "$lib")/interposer/gk5_mech.so"
    if [ ! -f "$so" ]; then
        echo "($so not built: its exports were not checked)"
        return
    fi
    dynamic_symbols "$so"
    echo "== gk5_mech.map vs $(basename "$so") ($(wc -l < "$tmp/lib") defined dynamic symbols)"
    if ! grep -qx gss_mech_interposer "$tmp/lib"; then
        echo "$so: gss_mech_interposer is not exported"
        fail
    fi
    if grep -vE '^(gss_mech_interposer|gssi_[A-Za-z0-9_]+)$' "$tmp/lib" > "$tmp/d2"; then
        sed "s|^|$so: exported but not in the map: |" "$tmp/d2"
        fail
    fi
}
check_interposer

if [ "$status" -eq 0 ]; then
    echo "check_symbols: OK"
else
    echo "check_symbols: FAILED"
fi
exit "$status"
