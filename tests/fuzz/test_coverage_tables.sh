#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The tables of tests/fuzz/coverage.sh, on a canned llvm-cov report (TAP):
# each parser's figures are its own file's row, even when another file's
# name ends in the parser's name or a file of the same folder comes first;
# a parser with no row says so; the src/mech + src/crypto total is the sum
# of the rows printed above it, files of subfolders included.
set -u
COV=${1:?usage: test_coverage_tables.sh tests/fuzz/coverage.sh}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-test-covtab.XXXXXX") || exit 1
trap 'rm -rf -- "$work"' EXIT
TAP_ERR=$work/err

# file, functions, missed, executed, lines, missed, cover, branches,
# missed, cover.  The decoys come first: xsrc/mech/rfc1964_tokens.c ends
# in the parser's path without its leading slash, xrfc4121_tokens.c in its
# file name, cts.c is the row an old version printed for every parser;
# export.c has no row at all.
cat > "$work/report.txt" <<'REPORT'
Filename                      Functions  Missed  Executed  Lines  Missed  Cover  Branches  Missed  Cover
---------------------------------------------------------------------------------------------------------
../tests/xsrc/mech/rfc1964_tokens.c   1       0   100.00%     10       5 50.00%         4       2 50.00%
../src/crypto/cts.c                  10       1    90.00%    300      30 90.00%       134      25 81.34%
../src/crypto/fast/aesni.c            4       0   100.00%    100      10 90.00%        20       2 90.00%
../src/mech/xrfc4121_tokens.c         3       0   100.00%     50       5 90.00%        10       5 50.00%
../src/mech/rfc4121_tokens.c         20       0   100.00%    900      20 97.78%       332       8 97.59%
../src/mech/rfc1964_tokens.c         18       0   100.00%    800      18 97.75%       314       7 97.77%
../src/krb5/keytab_file.c             5       0   100.00%    120      12 90.00%        40       4 90.00%
../src/krb5/keytab.c                  9       0   100.00%    400       4 99.00%       180       3 98.33%
../tests/fuzz/fuzz_unwrap.c           2       0   100.00%     40       0 100.00%        8       0 100.00%
---------------------------------------------------------------------------------------------------------
TOTAL                                71       1    98.59%   3110      99 96.82%      1038      54 94.80%
REPORT

check() {
    local desc=$1
    shift
    if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
bash "$COV" --tables "$work/report.txt" > "$work/out" 2> "$work/err"
check "coverage.sh --tables reads a canned report" test $? -eq 0
# A row of the first table (the file's figures) or, with "branches", its
# parser row; spaces squeezed.
row() {
    grep -E "^  $1 +${2:-[0-9]}" "$work/out" | head -1 | tr -s ' '
}
check "rfc4121_tokens.c: its own row (332 branches, 8 missed, 97.59%)" \
    test "$(row src/mech/rfc4121_tokens.c branches)" = \
    " src/mech/rfc4121_tokens.c branches 332, missed 8: 97.59%"
check "rfc1964_tokens.c: its own row (314, 7, 97.77%)" \
    test "$(row src/mech/rfc1964_tokens.c branches)" = \
    " src/mech/rfc1964_tokens.c branches 314, missed 7: 97.77%"
check "keytab.c: its own row, not keytab_file.c's (180, 3, 98.33%)" \
    test "$(row src/krb5/keytab.c branches)" = \
    " src/krb5/keytab.c branches 180, missed 3: 98.33%"
check "no parser takes cts.c's figures (81.34%) but cts.c itself" \
    test "$(grep -c '81.34%' "$work/out")" -eq 1
check "export.c, with no row, is not reached by any target" \
    grep -q "src/mech/export.c *not reached by any target" "$work/out"
# Lines 300+100+50+900+800 = 2150, missed 30+10+5+20+18 = 83; branches
# 134+20+10+332+314 = 810, missed 25+2+5+8+7 = 47.
check "the src/mech + src/crypto total is the sum of its rows (subfolders too)" \
    test "$(row 'src/mech \+ src/crypto')" = \
    " src/mech + src/crypto 2150 83 96.14% 810 94.20%"
bash "$COV" --tables "$work/missing" > /dev/null 2>&1
check "an unreadable report is refused (status 2)" test $? -eq 2
tap_done
