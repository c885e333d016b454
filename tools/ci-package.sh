#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The packaging step of tools/test-all.sh (Debian 12, as root):
#   1. the committed tree's binary packages, built by
#      `dpkg-buildpackage -us -uc -b` from a copy of HEAD (debian/),
#   2. lintian on them: no error,
#   3. installed with apt-get and used from the installed paths: gk5
#      --version, pkg-config, an example program compiled against the
#      installed headers and run, gk5_mech.so loaded by MIT's mechglue
#      from /etc/gss/mech.d,
#   4. everything installed removed again (also on failure),
#   5. `meson dist` (BUILD_DIR must be a configured build of this git
#      checkout): the tarball extracted, built and its unit suites run.
#
#   tools/ci-package.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
build=${1:?usage: ci-package.sh BUILD_DIR}

packages=(libgk5-0 libgk5-mit0 libgk5-rpc0 libgk5-dev gk5 gk5-mech)
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-package.XXXXXX")
installed=0
cleanup() {
    if [ "$installed" = 1 ]; then
        rm -f /etc/gss/mech.d/gk5.conf
        apt-get purge -y -q "${packages[@]}" > /dev/null 2>&1 || true
    fi
    rm -rf -- "$work"
}
trap cleanup EXIT

version=$(sed -n '1s/^gk5 (\([^)]*\)).*/\1/p' debian/changelog)
src=$work/gk5-$version
mkdir -p "$src"
git archive HEAD | tar -x -C "$src"

echo "--- dpkg-buildpackage -us -uc -b"
(cd "$src" && dpkg-buildpackage -us -uc -b > "$work/build.log" 2>&1) || {
    tail -n 40 "$work/build.log"
    exit 1
}
ls "$work"/*.deb

echo "--- lintian"
lintian --fail-on error --tag-display-limit 0 "$work"/*.changes || exit 1

echo "--- apt-get install the packages"
debs=()
for p in "${packages[@]}"; do
    debs+=("$work/${p}_${version}_$(dpkg --print-architecture).deb")
done
installed=1
apt-get install -y -q "${debs[@]}" > "$work/install.log" 2>&1 || {
    tail -n 20 "$work/install.log"
    exit 1
}

echo "--- from the installed paths"
/usr/bin/gk5 --version
for pc in gk5 gk5-mit gk5-rpc; do
    printf '%-8s %s\n' "$pc:" "$(pkg-config --cflags --libs "$pc")"
done
# An example against the installed headers and library, not the tree's.
cc -o "$work/gssd_roundtrip" examples/gssd_roundtrip.c \
    $(pkg-config --cflags --libs gk5)
# ldd's whole output first: with pipefail, grep -q leaving early can make
# ldd die of SIGPIPE and the pipeline fail on a match.
example_ldd=$(ldd "$work/gssd_roundtrip")
grep -Eq 'libgk5\.so\.0 => /(usr/)?lib/' <<<"$example_ldd" || {
    echo "the example does not use the installed libgk5" >&2
    exit 1
}
"$work/gssd_roundtrip"

# gk5_mech.so from the package, enabled the way its README says: its
# example configuration in /etc/gss/mech.d.  MIT's mechglue loads an
# interposer when it reads its configuration.
mkdir -p /etc/gss/mech.d
cp /usr/share/doc/gk5-mech/examples/gk5.conf /etc/gss/mech.d/gk5.conf
cat > "$work/mech_loaded.c" << 'EOF'
#include <stdio.h>
#include <string.h>

#include <gssapi/gssapi.h>

int main(void)
{
    OM_uint32 minor;
    gss_OID_set mechs = GSS_C_NO_OID_SET;
    char line[4096];
    FILE *maps;
    int found = 0;

    if (GSS_ERROR(gss_indicate_mechs(&minor, &mechs))) {
        fprintf(stderr, "gss_indicate_mechs failed\n");
        return 1;
    }
    (void)gss_release_oid_set(&minor, &mechs);
    maps = fopen("/proc/self/maps", "r");
    while (maps != NULL && fgets(line, sizeof(line), maps) != NULL) {
        found |= strstr(line, "/gk5/gk5_mech.so") != NULL;
    }
    if (maps != NULL) {
        fclose(maps);
    }
    printf("gk5_mech.so %s by MIT's mechglue\n", found ? "loaded" : "NOT loaded");
    return found ? 0 : 1;
}
EOF
cc -o "$work/mech_loaded" "$work/mech_loaded.c" $(pkg-config --cflags --libs krb5-gssapi)
env -u GSS_MECH_CONFIG "$work/mech_loaded"

echo "--- meson dist: the tarball builds and passes the unit suites"
meson dist -C "$build" --no-tests --formats xztar --allow-dirty > "$work/dist.log" 2>&1 || {
    tail -n 20 "$work/dist.log"
    exit 1
}
tarball=$(ls "$build"/meson-dist/gk5-*.tar.xz | head -n 1)
ls -l "$tarball"
mkdir "$work/dist"
tar -xJf "$tarball" -C "$work/dist"
(
    cd "$work/dist"/gk5-*
    meson setup build -Dmit=enabled > "$work/dist-setup.log" 2>&1 || {
        tail -n 20 "$work/dist-setup.log"
        exit 1
    }
    meson test -C build --suite crypto --suite mech --num-processes 2 \
        --print-errorlogs | tail -n 8
)
rm -f "$tarball" "$tarball.sha256sum"
echo "packages, installed use and meson dist: ok"
