#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Constant-time check: run ct_check under valgrind memcheck (ctgrind).
#
#   tests/ct/run.sh BUILD_DIR            (uses BUILD_DIR/tests/ct/ct_check)
#   tests/ct/run.sh path/to/ct_check
#
# The build must be an ordinary one (no -Db_sanitize: valgrind cannot run
# sanitizer-instrumented code); ct_check is built when valgrind/memcheck.h
# is installed (Debian: valgrind).
#
# 1. A positive control: ct_check --control compares a marked secret with an
#    early-exit loop; valgrind must report it (else the marks do nothing and
#    a clean run would prove nothing).
# 2. The check: ct_check with keys and received MACs marked secret, under
#    --error-exitcode=1.  The MAC-compare result is declassified inside
#    ct_check (its own CRYPTO_memcmp); ct.supp covers OpenSSL's internals
#    and the RFC 1964 sequence number, each entry explained.  Any other
#    secret-dependent branch or address in gk5's code fails the run.
# Exit status: 0 pass, 1 a secret-dependent branch or a failed check,
# 2 setup problem.
set -u
set -o pipefail

bin=${1:-}
if [ -d "$bin" ]; then
    bin="$bin/tests/ct/ct_check"
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "usage: $0 BUILD_DIR | path/to/ct_check (not found: '${1:-}')" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v valgrind > /dev/null; then
    echo "run.sh: valgrind not found (apt-get install valgrind)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

vg=(valgrind --tool=memcheck --error-exitcode=1 --leak-check=no
    --track-origins=yes --num-callers=30 --show-error-list=yes
    --suppressions="$here/ct.supp")

# 1. The positive control must be caught.
"${vg[@]}" "$bin" --control > "$tmp/control.log" 2>&1
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q 'depends on uninitialised value' "$tmp/control.log"; then
    cat "$tmp/control.log"
    echo "run.sh: FAIL: valgrind did not see the deliberate secret-dependent branch (exit $rc)" >&2
    exit 1
fi
echo "run.sh: positive control: the deliberate secret-dependent branch was reported"

# 2. The check.
"${vg[@]}" -s "$bin" > "$tmp/check.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
    cat "$tmp/check.log"
    echo "run.sh: FAIL (exit $rc): a secret-dependent branch or address in the log above, or a failed check" >&2
    exit 1
fi
grep -E '^ct_check:' "$tmp/check.log"
echo "run.sh: suppressions used (ct.supp):"
grep -E '^--[0-9]+-- *used_suppression' "$tmp/check.log" | sed 's/^--[0-9]*-- */    /' || echo "    none"
echo "run.sh: PASS: no secret-dependent branch or address in gk5's code"
exit 0
