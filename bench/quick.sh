#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# A quick run of `gk5 bench` (the smoke tests CI runs): it prints its table
# and must complete; it does not gate on speed.  It needs MIT's KDC
# programs at run time and says SKIP (77) without them.
#   quick.sh PATH_TO_GK5 [MODE...]     e.g. quick.sh build/tools/gk5 --accept
set -u
GK5=${1:?usage: quick.sh PATH_TO_GK5 [MODE...]}
shift
have_kdc=0
if command -v krb5kdc > /dev/null; then
    have_kdc=1
else
    for d in /usr/sbin /usr/local/sbin /sbin; do
        [ -x "$d/krb5kdc" ] && have_kdc=1
    done
fi
if [ "$have_kdc" = 0 ]; then
    echo "SKIP: krb5kdc not installed (apt-get install krb5-kdc krb5-admin-server)"
    exit 77
fi
exec "$GK5" bench "$@" --quick
