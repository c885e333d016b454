#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Heimdal's KDC programs for the throwaway realm on Heimdal (`gk5 realm
# --kdc heimdal`), without installing them: Debian's heimdal-kdc conflicts
# with MIT's krb5-kdc and krb5-admin-server, so the packages heimdal-kdc
# (kdc, kstash) and heimdal-clients (kadmin, string2key) are downloaded
# with `apt-get download` and extracted with `dpkg -x` into DIR; their
# libraries are those heimdal-multidev installs.  Safe to run again.
#
#   tools/fetch-heimdal-kdc.sh [DIR]   default: $GK5_HEIMDAL_KDC_DIR, else
#                                      /var/cache/gk5/heimdal-kdc
#
# Exit status: 0 the programs are in DIR and run, 1 a step failed, 2 usage.
set -euo pipefail

case "${1-}" in
-h | --help)
    sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
if [ $# -gt 1 ]; then
    echo "fetch-heimdal-kdc.sh: one folder only" >&2
    exit 2
fi
dir=${1:-${GK5_HEIMDAL_KDC_DIR:-/var/cache/gk5/heimdal-kdc}}
programs=(usr/lib/heimdal-servers/kdc usr/sbin/kstash usr/bin/kadmin.heimdal
    usr/bin/string2key)

have_all() {
    local p
    for p in "${programs[@]}"; do
        [ -x "$dir/$p" ] || return 1
    done
}

if ! have_all; then
    mkdir -p "$dir/debs"
    # apt-get download writes into the current folder; _apt may not be
    # able to, which apt only warns about.
    (cd "$dir/debs" && apt-get download heimdal-kdc heimdal-clients)
    for deb in "$dir"/debs/heimdal-kdc_*.deb "$dir"/debs/heimdal-clients_*.deb; do
        dpkg -x "$deb" "$dir"
    done
fi
if ! have_all; then
    echo "fetch-heimdal-kdc.sh: the packages did not hold ${programs[*]}" >&2
    exit 1
fi
missing=$(ldd "$dir/usr/lib/heimdal-servers/kdc" "$dir/usr/bin/kadmin.heimdal" |
    awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')
if [ -n "$missing" ]; then
    echo "fetch-heimdal-kdc.sh: libraries missing: $missing(apt-get install heimdal-multidev)" >&2
    exit 1
fi
version=$("$dir/usr/lib/heimdal-servers/kdc" --version 2>&1) || {
    echo "fetch-heimdal-kdc.sh: $dir/usr/lib/heimdal-servers/kdc does not run: $version" >&2
    exit 1
}
echo "${version%%$'\n'*}"
echo "fetch-heimdal-kdc.sh: Heimdal's KDC programs are in $dir"
