#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Installs every Debian 12 package gk5's build, tests, demo and benchmark
# need.  Run as root on a fresh machine; safe to run again.
set -euo pipefail

packages=(
    # build
    gcc pkg-config meson ninja-build libssl-dev
    # unit tests
    libcmocka-dev
    # MIT krb5: the KDC and GSS-API peers for interop, demo and bench
    krb5-kdc krb5-admin-server krb5-user libkrb5-dev
    # RPCSEC_GSS: libtirpc, and the real servers the peer tests start
    libtirpc-dev nfs-ganesha nfs-ganesha-mem nfs-ganesha-vfs
    # the interposer: MIT's sample GSS-API programs run with gk5_mech.so
    krb5-gss-samples
    # hardening: libFuzzer + sanitizer runtimes, valgrind; llvm-profdata and
    # llvm-cov for the fuzz corpora's coverage
    clang libclang-rt-14-dev valgrind clang-format llvm-14
    # scripts
    procps coreutils
)

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
