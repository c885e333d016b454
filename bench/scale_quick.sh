#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# `gk5 bench --scale` from a copy of gk5-bench in a folder of its own, with
# an empty environment and no krb5.conf: it must need no KDC, no file and
# nothing of the build tree, and print a row with a shared/own ratio for
# every size, operation and thread count asked for.
#   scale_quick.sh PATH_TO_GK5_BENCH
set -u
BENCH=${1:?usage: scale_quick.sh PATH_TO_GK5_BENCH}

work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-scale.XXXXXX") || exit 1
trap 'rm -rf -- "$work"' EXIT
cp -- "$BENCH" "$work/gk5-bench" || exit 1
out=$work/out
(cd / && env -i PATH=/usr/bin:/bin KRB5_CONFIG=/nonexistent \
    "$work/gk5-bench" --scale=1,2 --quick --enctypes 18,17 --sizes 64,1k) \
    >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" != 0 ]; then
    echo "FAIL: gk5-bench --scale exited with $rc"
    exit 1
fi
# Thread counts above the CPUs online are shown as the CPU count.
counts=1
[ "$(nproc)" -ge 2 ] && counts="1 2"
fails=0
for et in 18 17; do
    for size in 64 1024; do
        for op in get_mic verify_mic wrap unwrap; do
            for n in $counts; do
                if ! grep -Eq "^  $size +$op +$n +[0-9]+ \[[0-9]+\] +[0-9]+ \[[0-9]+\] +[0-9]+/[0-9]+ +[0-9]+\.[0-9]{2}$" "$out"; then
                    echo "FAIL: no row for enctype $et, $size bytes, $op, $n threads"
                    fails=$((fails + 1))
                fi
            done
        done
    done
    grep -q "($et)\$" "$out" || { echo "FAIL: no table for enctype $et"; fails=$((fails + 1)); }
done
# With two CPUs or more, the cost of a line moved between them comes first
# (measured, or said not to be).
if [ "$(nproc)" -ge 2 ] &&
    ! grep -Eq "^A cache line moved between two threads' CPUs: ([0-9]+ ns \(slowest of [0-9]+ tries [0-9]+\)|not measured)" "$out"; then
    echo "FAIL: no line for the cost of a cache line moved between CPUs"
    fails=$((fails + 1))
fi
[ "$fails" = 0 ] && echo "ok: every row present"
[ "$fails" = 0 ]
