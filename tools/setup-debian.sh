#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Installs the Debian 12 packages gk5 needs that are missing.  Run as root;
# safe to run again.
#
#   tools/setup-debian.sh demo   what tools/demo.sh needs: gk5's build with
#                                MIT krb5 and libtirpc, the throwaway KDC's
#                                programs and NFS-Ganesha (MEM FSAL)
#   tools/setup-debian.sh test   what tools/test-all.sh needs: all of demo,
#                                cmocka, MIT's client and sample programs,
#                                Heimdal's client libraries,
#                                Samba's AD domain controller,
#                                Ganesha's VFS FSAL, clang, the sanitizer
#                                and libFuzzer runtimes, valgrind, llvm,
#                                clang-format, the man page tools,
#                                debhelper and lintian; and Heimdal's
#                                KDC programs, extracted, not installed
#                                (tools/fetch-heimdal-kdc.sh)
#   tools/setup-debian.sh        the same as test
#
# Exit status: 0 when everything is installed, 2 usage error, else apt's.
set -euo pipefail

usage() {
    echo "usage: $0 [demo|test]   (no argument: test)"
}

demo_packages=(
    # build
    gcc pkg-config meson ninja-build libssl-dev
    # MIT krb5: the library gk5_mit bridges to, and the throwaway realm's
    # programs (krb5kdc and kdb5_util; kadmin.local is in krb5-admin-server)
    libkrb5-dev krb5-kdc krb5-admin-server
    # RPCSEC_GSS on libtirpc, and the NFS server `gk5 demo` mounts
    libtirpc-dev nfs-ganesha nfs-ganesha-mem
)

test_packages=(
    "${demo_packages[@]}"
    # unit tests
    libcmocka-dev
    # MIT's client programs (kinit, klist, kvno) in the interop, RPC and
    # peer tests; Ganesha's VFS FSAL for the peer tests
    krb5-user nfs-ganesha-vfs
    # the interposer: MIT's sample GSS-API programs run with gk5_mech.so
    krb5-gss-samples
    # unmodified GSS-API programs made faster through gk5_mech.so:
    # python-gssapi on MIT's libgssapi_krb5, PostgreSQL 15 with GSS
    # encryption (server and psql)
    python3-gssapi postgresql-15
    # Heimdal's GSS-API as the second interop peer, and the libraries of
    # Heimdal's KDC (heimdal-kdc itself conflicts with MIT's KDC: its
    # programs are extracted by tools/fetch-heimdal-kdc.sh, below)
    heimdal-multidev libgssapi3-heimdal
    # Samba as an Active Directory domain controller: the realm on AD's KDC
    # (`gk5 realm run --kdc samba`); installs beside MIT's packages
    samba samba-ad-dc samba-dsdb-modules samba-ad-provision
    # hardening: clang, libFuzzer + sanitizer runtimes, valgrind; llvm-profdata
    # and llvm-cov for the fuzz corpora's coverage; clang-format
    clang libclang-rt-14-dev valgrind clang-format llvm-14
    # manual pages: made with help2man and scdoc, checked with man -l
    help2man scdoc man-db
    # the Debian packages: dpkg-buildpackage's helpers and lintian
    debhelper lintian
    # scripts
    procps coreutils
)

case "${1-test}" in
demo) packages=("${demo_packages[@]}") ;;
test) packages=("${test_packages[@]}") ;;
-h | --help)
    usage
    exit 0
    ;;
*)
    echo "setup-debian.sh: unknown package set '$1'" >&2
    usage >&2
    exit 2
    ;;
esac
if [ $# -gt 1 ]; then
    echo "setup-debian.sh: one package set only, not '$*'" >&2
    usage >&2
    exit 2
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
fi
# The krb5-kdc package may start a system KDC on a configured machine; gk5
# never uses it (its tests run their own throwaway KDC on loopback).
# Samba's packages enable smbd, nmbd and winbind (and samba-ad-dc's unit
# stays masked until a domain is provisioned in /etc); on a machine where
# they started, they would hold ports 139 and 445 and 137-138: gk5's tests
# need none of them (its AD realm runs its own samba, the KDC alone, on
# loopback high ports), so each is stopped by its PID file.
if [ "${1-test}" = test ]; then
    for pidfile in /run/samba/smbd.pid /run/samba/nmbd.pid /run/samba/winbindd.pid /run/samba/samba.pid; do
        [ -s "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        case $pid in '' | *[!0-9]*) continue ;; esac
        if [ -r "/proc/$pid/exe" ] && case $(readlink "/proc/$pid/exe") in /usr/sbin/smbd | /usr/sbin/nmbd | /usr/sbin/winbindd | /usr/sbin/samba) true ;; *) false ;; esac; then
            echo "setup: stopping $(readlink "/proc/$pid/exe") (pid $pid, started by its package)"
            kill "$pid" 2>/dev/null || true
        fi
    done
fi
# Heimdal's KDC for the realm on Heimdal (`gk5 realm --kdc heimdal`):
# downloaded and extracted into /var/cache/gk5/heimdal-kdc, not installed.
# A failed download leaves those tests to SKIP with the reason; it does
# not stop the rest of the suite.
if [ "${1-test}" = test ]; then
    "$(dirname "$0")/fetch-heimdal-kdc.sh" ||
        echo "setup-debian.sh: Heimdal's KDC programs were not fetched: the heimdal-kdc tests will SKIP and say so" >&2
fi
