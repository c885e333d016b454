#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# gk5 without MIT krb5 (meson -Dmit=disabled), as CI builds it (a step of
# tools/test-all.sh):
#   1. the committed tree (git archive HEAD) in a folder of its own;
#   2. MIT's development files out of the compiler's view: an include
#      folder of links to every entry of /usr/include except the files
#      `dpkg -L libkrb5-dev` lists, used with -nostdinc in place of
#      /usr/include, and a pkg-config folder without MIT's .pc files
#      (PKG_CONFIG_LIBDIR);
#   3. configure (-Dtirpc=disabled too: Debian builds libtirpc3 with
#      GSS-API, so it would bring MIT's libraries along) and build;
#      ninja's recorded header dependencies name no file of libkrb5-dev;
#   4. meson install --destdir: no installed ELF file needs one of MIT's
#      libraries or libtirpc, by readelf NEEDED and by ldd;
#   5. meson test: every test of this build (unit, CLI, native kinit /
#      kvno / init / accept against the realm's KDC, gk5 rpc and gk5 nfs4
#      on gk5's own RPC client, against gk5's server and NFS-Ganesha), MIT's
#      and Heimdal's KDC programs as the server (the Samba AD suite, which
#      provisions a domain per test, runs once, in test-all's default
#      build);
#   6. the installed gk5 starts a krb5p NFS session against NFS-Ganesha
#      (tests/peers/nfs4_nomit.sh: kinit, kvno, put + cat compared, and
#      what the process has of MIT's).
# Usage: tools/ci-nomit.sh [BUILD_ROOT]   (default build-ci/nomit; emptied)
#   GK5_NINJA_JOBS, GK5_TEST_JOBS: parallel jobs (default: ninja's, 2).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
root=${1:-$top/build-ci/nomit}
case $root in /*) ;; *) root=$top/$root ;; esac

fail() {
    echo "ci-nomit.sh: $*" >&2
    exit 1
}
MIT_LIBS='lib(krb5|k5crypto|gssapi_krb5|krb5support)\.so'

rm -rf -- "$root"
mkdir -p "$root"
src=$root/src view=$root/include pc=$root/pkgconfig build=$root/build
dest=$root/dest

# ---- 1. the committed tree ----
mkdir "$src"
git archive HEAD | tar -x -C "$src"
echo "source: git archive $(git rev-parse --short HEAD) in $src"

# ---- 2. MIT's -dev files out of view ----
# Every path libkrb5-dev installs, and their real paths (for the checks).
if ! dpkg -L libkrb5-dev >"$root/mit-dev.files" 2>/dev/null; then
    : >"$root/mit-dev.files" # not installed: nothing to hide
fi
grep -E '^/usr/include/.' "$root/mit-dev.files" >"$root/mit-dev.include" || true
xargs -r -d '\n' realpath -e -- <"$root/mit-dev.files" 2>/dev/null |
    sort -u >"$root/mit-dev.real" || true

# view SRC DST: DST mirrors SRC by links, leaving out MIT's files; a folder
# holding any of them is mirrored one level down.
view() {
    local e name
    mkdir -p "$2"
    for e in "$1"/*; do
        name=${e##*/}
        if [ -d "$e" ] && [ ! -L "$e" ] && grep -qF -- "$e/" "$root/mit-dev.include"; then
            view "$e" "$2/$name"
        elif ! grep -qxF -- "$e" "$root/mit-dev.include"; then
            ln -s -- "$e" "$2/$name"
        fi
    done
}
view /usr/include "$view"
for h in krb5.h gssapi.h gssapi/gssapi.h gssrpc/rpc.h kadm5/admin.h kdb.h profile.h; do
    if [ -e "$view/$h" ] || [ -L "$view/$h" ]; then
        fail "the include view still has $h"
    fi
done
# The compiler's own folders, /usr/include replaced by the view; the
# multiarch folder must hold nothing of MIT's.  They go in CC itself:
# meson drops flags naming the compiler's default folders from CFLAGS.
cc=${CC:-gcc}
multiarch=$($cc -print-multiarch)
if grep -q "^/usr/include/$multiarch/" "$root/mit-dev.files"; then
    fail "libkrb5-dev installs under /usr/include/$multiarch: not handled"
fi
cflags=-nostdinc
while read -r dir; do
    if [ "$dir" = /usr/include ]; then
        cflags+=" -isystem $view"
    else
        cflags+=" -isystem $dir"
    fi
done < <($cc -xc -E -v /dev/null 2>&1 |
    sed -n '/#include <...> search starts here:/,/End of search list/p' |
    sed -n 's/^ \(\/.*\)$/\1/p')
case " $cflags " in *" -isystem $view "*) ;; *) fail "no /usr/include in $cc's search list" ;; esac
echo "CC: $cc $cflags"

# pkg-config: every .pc of its search path, MIT's left out.
mkdir "$pc"
for dir in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
    for f in "$dir"/*.pc; do
        [ -e "$f" ] || continue
        name=${f##*/}
        case $name in
        krb5*.pc | mit-krb5*.pc | gssrpc.pc | kadm-*.pc | kdb.pc) continue ;;
        esac
        grep -qxF -- "$f" "$root/mit-dev.files" && continue
        [ -e "$pc/$name" ] || ln -s -- "$f" "$pc/$name"
    done
done
export PKG_CONFIG_LIBDIR=$pc PKG_CONFIG_PATH=
for p in krb5 krb5-gssapi mit-krb5 mit-krb5-gssapi gssrpc kdb; do
    if pkg-config --exists "$p"; then
        fail "pkg-config still finds $p"
    fi
done
pkg-config --exists libcrypto cmocka ||
    fail "pkg-config does not find libcrypto and cmocka"

# ---- 3. configure, build, header dependencies ----
# -Dtirpc=disabled: Debian's libtirpc3 links MIT's GSS-API, so nothing
# of this build may use it (gk5's own RPC client and server do not).
if ! CC="$cc $cflags" meson setup "$build" "$src" -Dmit=disabled \
    -Drpc=enabled -Dtirpc=disabled -Dtools=enabled -Dtests=enabled \
    >"$root/setup.log" 2>&1; then
    tail -n 30 "$root/setup.log" >&2
    fail "meson setup failed (log: $root/setup.log)"
fi
grep -E 'left out without MIT krb5|context establishment' "$root/setup.log"
ninja -C "$build" ${GK5_NINJA_JOBS:+-j "$GK5_NINJA_JOBS"}

ninja -C "$build" -t deps | awk '/^    / { print $1 }' | sort -u >"$root/deps"
(cd "$build" && xargs -r -d '\n' realpath -e -- <"$root/deps") | sort -u \
    >"$root/deps.real"
grep -q '/openssl/evp\.h$' "$root/deps.real" ||
    fail "ninja -t deps recorded no system header (openssl/evp.h): the check would prove nothing"
if comm -12 "$root/deps.real" "$root/mit-dev.real" | grep .; then
    fail "the build read the libkrb5-dev files above"
fi
echo "header dependencies: $(wc -l <"$root/deps.real") files, none of libkrb5-dev's $(grep -c . "$root/mit-dev.real" || true)"

# ---- 4. installed files: no MIT library needed ----
meson install -C "$build" --destdir "$dest" --no-rebuild >"$root/install.log"
libdirs=$(find "$dest" -name 'libgk5*.so*' -printf '%h\n' | sort -u | tr '\n' ':')
n=0
while read -r f; do
    # ELF files only (not the static archives, which link nothing).
    [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] || continue
    n=$((n + 1))
    if readelf -d "$f" | grep NEEDED | grep -E "$MIT_LIBS|libtirpc"; then
        fail "${f#"$dest"} needs an MIT library or libtirpc (above)"
    fi
    deps=$(LD_LIBRARY_PATH=$libdirs ldd "$f")
    if grep -E "$MIT_LIBS|libtirpc" <<<"$deps"; then
        fail "${f#"$dest"}: ldd shows MIT's libraries or libtirpc (above)"
    fi
    echo "${f#"$dest"}: no MIT library, no libtirpc (ldd)"
done < <(find "$dest" -type f | sort)
[ "$n" -ge 3 ] || fail "only $n ELF files installed (gk5, libgk5, libgk5_rpc expected)"
for f in bin/gk5 "lib/*/libgk5.so.*.*" "lib/*/libgk5_rpc.so.*.*"; do
    # shellcheck disable=SC2086  # the pattern is a glob on purpose
    for g in "$dest"/usr/local/$f; do
        echo "== ldd ${g#"$dest"}"
        LD_LIBRARY_PATH=$libdirs ldd "$g"
    done
done

# ---- 5. every test of this build ----
meson test -C "$build" --print-errorlogs --num-processes "${GK5_TEST_JOBS:-2}" \
    --no-suite samba-kdc

# ---- 6. the installed gk5: a krb5p NFS session against Ganesha ----
gk5=$(find "$dest" -path '*/bin/gk5' -type f)
(
    cd "$root"
    LD_LIBRARY_PATH=$libdirs "$gk5" realm run --tap -- \
        bash "$src/tests/peers/ganesha.sh" run --tap -- \
        bash "$src/tests/peers/nfs4_nomit.sh" "$gk5"
)
echo "ci-nomit.sh: OK"
