#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5 inside another project.  tests/embed/downstream is copied
# to a temporary directory with gk5's source tree at subprojects/gk5, then
# configured, built and run: as a subproject gk5 must configure only its
# libraries (no CLI, tests, bench, examples or man pages, so nobody's
# `meson test` starts a KDC of gk5's).  The program must link the shipped
# shared libraries.  Then that build is installed into a temporary prefix
# and main.c is compiled again with pkg-config against it, as a project
# outside meson would.
#
#   tests/embed/embed.sh SOURCE_ROOT VERSION HAVE_MIT HAVE_RPC
#
# HAVE_MIT and HAVE_RPC (1 or 0) say whether libgk5_mit and libgk5_rpc are
# expected.  TAP on stdout; status 0 when every cell passed, 2 usage error.
set -u
. "$(dirname "$0")/../tap.sh"

if [ $# -ne 4 ]; then
    echo "usage: $0 SOURCE_ROOT VERSION HAVE_MIT HAVE_RPC" >&2
    exit 2
fi
src=$(cd "$1" && pwd) version=$2 have_mit=$3 have_rpc=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gk5-embed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
TAP_ERR=$tmp/log
proj=$tmp/proj build=$tmp/build prefix=$tmp/prefix
feature() { [ "$1" = 1 ] && echo enabled || echo disabled; }

# Abandon the cells that need what failed: one not-ok line, the plan, exit.
give_up() {
    not_ok "$1"
    tap_done
    exit 1
}

# The working tree as it is (not only what is committed), without build
# directories or .git.
if ! { mkdir -p "$proj/subprojects/gk5" &&
    cp -R "$here/downstream/." "$proj/" &&
    tar -C "$src" --exclude='./build*' --exclude=./.git \
        --exclude=./subprojects -cf - . 2>"$TAP_ERR" |
    tar -C "$proj/subprojects/gk5" -xf - 2>>"$TAP_ERR"; }; then
    give_up "copy gk5's tree to subprojects/gk5"
fi

# --force-fallback-for: an installed gk5 on this machine must not be used.
if ! meson setup "$build" "$proj" --prefix="$prefix" \
    --force-fallback-for=gk5,gk5-mit,gk5-rpc \
    -Dgk5:mit="$(feature "$have_mit")" -Dgk5:rpc="$(feature "$have_rpc")" \
    >"$TAP_ERR" 2>&1; then
    give_up "meson setup: downstream project with gk5 as a subproject"
fi
ok "meson setup: downstream project with gk5 as a subproject"

# Nothing but the libraries: no tests registered, one executable (ours), no
# build directories for gk5's tools, tests, bench, examples or docs.
sub=$build/subprojects/gk5
names() { # the names in meson introspect's JSON list on stdin; $1: a type
    python3 -c '
import json, sys
print(" ".join(sorted(t["name"] for t in json.load(sys.stdin)
                      if len(sys.argv) < 2 or t["type"] == sys.argv[1])))' "$@"
}
tests=$(meson introspect --tests "$build" 2>"$TAP_ERR" | names)
exes=$(meson introspect --targets "$build" 2>>"$TAP_ERR" | names executable)
dirs=""
for d in tools tests bench examples docs; do
    [ -e "$sub/$d" ] && dirs="$dirs $d/"
done
if [ -z "$tests" ] && [ "$exes" = embed ] && [ -z "$dirs" ]; then
    ok "as a subproject gk5 configures its libraries only"
else
    echo "tests: ${tests:-none}; executables: $exes; directories:$dirs" >"$TAP_ERR"
    not_ok "as a subproject gk5 configures its libraries only"
fi

ninja -C "$build" >"$TAP_ERR" 2>&1 || give_up "ninja: gk5 and the downstream program"
ok "ninja: gk5 and the downstream program"

# $1: the program's output; checks the libgk5_mit and libgk5_rpc lines.
check_output() {
    local want_mit=0 want_rpc=0
    echo "$1" | grep -q "^gk5-mit: " && want_mit=1
    echo "$1" | grep -q "^gk5-rpc: krb5p$" && want_rpc=1
    [ "$(echo "$1" | head -n 1)" = "gk5 $version" ] &&
        [ "$want_mit" = "$have_mit" ] && [ "$want_rpc" = "$have_rpc" ]
}

# $1: program, $2: directory its libgk5*.so must come from.
check_links() {
    local libs
    libs=$(ldd "$1" | grep 'libgk5' | awk '{ print $3 }')
    echo "$libs" >"$TAP_ERR"
    [ -n "$libs" ] || return 1
    for l in $libs; do
        case "$l" in "$2"/*) ;; *) return 1 ;; esac
    done
    # The shared library, not gk5's objects linked in.
    ! nm --defined-only "$1" | grep -q ' T gk5_version$'
}

if out=$("$build/embed" "$version" 2>"$TAP_ERR") && check_output "$out"; then
    ok "the downstream program runs: $(echo "$out" | head -n 1), $(echo "$out" | grep -c '^  ') enctypes"
else
    echo "$out" >>"$TAP_ERR"
    not_ok "the downstream program runs"
fi
if check_links "$build/embed" "$sub/src"; then
    ok "it links the shared libgk5 (and gk5-mit, gk5-rpc) of the subproject"
else
    not_ok "it links the shared libgk5 (and gk5-mit, gk5-rpc) of the subproject"
fi

# An installed prefix and pkg-config, without meson.
meson install -C "$build" --no-rebuild >"$TAP_ERR" 2>&1 || give_up "meson install into a prefix"
pc=$(find "$prefix" -name gk5.pc | head -n 1)
[ -n "$pc" ] || { echo "no gk5.pc under $prefix" >"$TAP_ERR"; give_up "meson install into a prefix"; }
ok "meson install into a prefix: libraries, headers, pkg-config files"
export PKG_CONFIG_PATH=${pc%/*}${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
libdir=$(pkg-config --variable=libdir gk5)
pkgs=gk5 defs=""
[ "$have_mit" = 1 ] && pkgs="$pkgs gk5-mit" defs="$defs -DGK5_EMBED_MIT=1"
[ "$have_rpc" = 1 ] && pkgs="$pkgs gk5-rpc" defs="$defs -DGK5_EMBED_RPC=1"
# shellcheck disable=SC2046,SC2086
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror $defs -o "$tmp/embed-pc" \
    "$here/downstream/main.c" $(pkg-config --cflags --libs $pkgs) \
    >"$TAP_ERR" 2>&1; then
    ok "cc \$(pkg-config --cflags --libs $pkgs)"
else
    give_up "cc \$(pkg-config --cflags --libs $pkgs)"
fi
if out=$(LD_LIBRARY_PATH=$libdir "$tmp/embed-pc" "$version" 2>"$TAP_ERR") &&
    check_output "$out" &&
    LD_LIBRARY_PATH=$libdir check_links "$tmp/embed-pc" "$libdir"; then
    ok "it runs on the installed libraries ($libdir)"
else
    echo "$out" >>"$TAP_ERR"
    not_ok "it runs on the installed libraries"
fi
tap_done
