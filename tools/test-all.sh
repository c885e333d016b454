#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The whole gk5 test suite, as CI runs it: installs what is missing (Debian
# 12, as root), then builds and tests every configuration:
#   default, -Ddes3=true, -Dmit=disabled (tools/ci-nomit.sh),
#   -Dfastpath=false, ASan+UBSan, valgrind memcheck over
#   the unit suite, ThreadSanitizer on the threaded test, fuzz smoke runs,
#   the constant-time check, the source checks, clang-format, and last the
#   Debian packages and the meson dist tarball (tools/ci-package.sh).
# Usage: tools/test-all.sh [--fuzz-seconds N] [--quick]
#   --quick: default, des3 and -Dmit=disabled builds only.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

fuzz_seconds=60
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
    --fuzz-seconds) fuzz_seconds=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    *) echo "usage: $0 [--fuzz-seconds N] [--quick]" >&2; exit 2 ;;
    esac
done

# Any failure ends the run (set -e); this names the step it was in.
current_step="installing packages (tools/setup-debian.sh test)"
on_exit() {
    local status=$?
    [ "$status" = 0 ] ||
        echo "test-all.sh: FAILED (status $status) in step: $current_step" >&2
}
trap on_exit EXIT
tools/setup-debian.sh test

step() {
    current_step=$*
    printf '\n===== %s =====\n' "$*"
}
builddir=${GK5_BUILD_ROOT:-$top/build-ci}
mkdir -p "$builddir"

configure() { # dir, meson args...
    local dir=$1 log
    shift
    local setup=(meson setup "$dir" "$@")
    [ -f "$dir/meson-private/cmd_line.txt" ] && setup+=(--wipe)
    # meson's messages only when configuring fails: they say why.
    log=$(mktemp)
    if ! "${setup[@]}" >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        rm -f "$log"
        echo "test-all.sh: configuring failed: ${setup[*]} (full log: $dir/meson-logs/meson-log.txt)" >&2
        return 1
    fi
    rm -f "$log"
    ninja -C "$dir"
}

step "build + test: default options"
configure "$builddir/default" -Dmit=enabled
meson test -C "$builddir/default" --print-errorlogs --num-processes 2 \
    --no-suite samba-kdc
step "interop cells against MIT krb5 (default options), one line each"
meson test -C "$builddir/default" --suite interop --no-suite bench \
    --no-suite samba-kdc --verbose
step "RPCSEC_GSS cells: gk5, libtirpc, MIT kadmind, NFS-Ganesha, one line each"
meson test -C "$builddir/default" --suite rpc --suite peers \
    --no-suite samba-kdc --verbose
# Samba provisions an AD domain for each of these tests (20-40 s each), so
# they run once, here, and no other configuration repeats them.
step "Samba's AD domain controller: gk5's KDC client, initiator and acceptor, rc4 where AD issues it, the PAC, Ganesha with its tickets, one line each"
meson test -C "$builddir/default" --suite samba-kdc --verbose
step "RPCSEC_GSS benchmark, quick run (gk5 and libtirpc clients and servers)"
bench/rpc_bench.sh --quick "$builddir/default"

step "gk5_mech.so interposer: MIT's sample programs, the API test, NFS-Ganesha, one line each"
meson test -C "$builddir/default" --suite interposer --verbose
step "gk5_mech.so under valgrind memcheck, loaded by the API test"
"$builddir/default/tools/gk5" realm run --tap -- valgrind --error-exitcode=1 \
    --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --suppressions="$top/tests/valgrind.supp" \
    --suppressions="$top/tests/interop/valgrind-mit.supp" --quiet \
    "$builddir/default/tests/interposer/test_interposer_api" \
    "$builddir/default/src/interposer/gk5_mech.so" | tail -n 3
step "interposer benchmark, quick run (MIT GSS-API calls with and without gk5_mech.so)"
bench/interposer_bench.sh --quick "$builddir/default"
step "NFSv4 benchmark, quick run (gk5 nfs4 bench: gk5's and libtirpc's clients, Ganesha with and without the interposer)"
bench/nfs4_bench.sh --quick "$builddir/default"

step "build + test: -Ddes3=true"
configure "$builddir/des3" -Ddes3=true -Dmit=enabled
meson test -C "$builddir/des3" --print-errorlogs --num-processes 2 \
    --no-suite samba-kdc
step "interop cells against MIT krb5 (-Ddes3=true), one line each"
meson test -C "$builddir/des3" --suite interop --no-suite bench \
    --no-suite samba-kdc --verbose

# gk5 without MIT krb5: the committed tree built with -Dmit=disabled and
# MIT's -dev files hidden from the compiler, its installed files checked
# for MIT libraries, all its tests, and the installed gk5's krb5p session
# against NFS-Ganesha (tools/ci-nomit.sh; a few minutes).
step "build + test: -Dmit=disabled on a clean tree, MIT's -dev files out of view"
tools/ci-nomit.sh "$builddir/nomit"

[ "$quick" = 1 ] && { echo "quick run: done"; exit 0; }

# The hostile-network test program (meson's rpc-hostile runs it with the limits
# scaled down) at the servers' own defaults: 1,025 idle and 1,032
# slowloris connections, 16 peers pushing 63 MiB records, 4 unread 64 MiB
# SOURCE replies (30 s send deadline), garbage for 2 s.  About 65 s; its
# "# figure" lines are what each limit bought.
step "hostile peers at the default limits (gk5 rpc serve: 1,024 connections, 16/256 MiB budgets, 10 s/300 s/30 s deadlines)"
(
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    timeout -k 10 300 "$builddir/default/tools/gk5" realm run --tap -- \
        bash tests/rpc/hostile.sh --defaults "$builddir/default/tools/gk5" \
        "$builddir/default/tests/rpc/test_hostile"
)

# The hand-written paths compiled out: the same unit, vector and interop
# suites on OpenSSL's CTS ciphers and EVP_MAC alone (with DES3, so that its
# DES-EDE3-CBC path runs too).
step "build + test: -Dfastpath=false (OpenSSL's CTS ciphers and EVP_MAC only)"
configure "$builddir/nofastpath" -Dfastpath=false -Ddes3=true -Dmit=enabled
meson test -C "$builddir/nofastpath" --print-errorlogs --num-processes 2 --no-suite bench \
    --no-suite samba-kdc

step "build + test: ASan + UBSan (default and des3)"
for v in default des3; do
    d=false; [ $v = des3 ] && d=true
    configure "$builddir/asan-$v" -Ddes3=$d -Dmit=enabled \
        -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fno-sanitize-recover=all
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        meson test -C "$builddir/asan-$v" --print-errorlogs --num-processes 2 \
        --no-suite interop --no-suite samba-kdc
done

step "valgrind memcheck: unit suites (default build)"
meson test -C "$builddir/default" --print-errorlogs --num-processes 2 \
    --suite crypto --suite mech --suite rpc-unit \
    --wrapper "env GK5_SCALE_CONTEXTS=2000 valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --suppressions=$top/tests/valgrind.supp --quiet" \
    --timeout-multiplier 10

if [ -f tests/unit/test_threads.c ]; then
    step "ThreadSanitizer: the threaded tests, RPCSEC_GSS threads, the interposer's threads"
    CC=clang configure "$builddir/tsan" -Dmit=enabled -Db_sanitize=thread -Db_lundef=false
    TSAN_OPTIONS="halt_on_error=1 suppressions=$top/tests/tsan.supp" \
        meson test -C "$builddir/tsan" --print-errorlogs test_threads test_seqstate \
        test_rcache test_acceptor rpc-threads rpc-tamper interposer-api
fi

if [ -f tests/fuzz/run.sh ]; then
    step "fuzz smoke runs (${fuzz_seconds}s per target)"
    CC=clang configure "$builddir/fuzz" -Dfuzzing=true -Ddes3=true -Dmit=enabled \
        -Db_sanitize=address,undefined -Db_lundef=false
    tests/fuzz/run.sh "$builddir/fuzz" "$fuzz_seconds"
    step "fuzz corpora coverage (clang source-based coverage, corpora replayed)"
    tests/fuzz/run.sh --coverage "$builddir/fuzzcov"
fi

if [ -f tests/ct/run.sh ]; then
    step "constant-time check (valgrind, secrets marked undefined)"
    tests/ct/run.sh "$builddir/default"
fi

if [ -f tools/check_source.sh ]; then
    step "source checks (CRYPTO_memcmp, wiping, symbol map)"
    tools/check_source.sh "$builddir/default/src/libgk5.so"
fi

step "clang-format"
git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror

# Last: it installs the packages it builds (and removes them), which the
# steps above must not see.
step "Debian packages (dpkg-buildpackage, lintian, installed and used), meson dist"
tools/ci-package.sh "$builddir/default"

step "all green"
