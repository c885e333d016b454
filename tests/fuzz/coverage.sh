#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Source-based coverage of what the fuzz corpora reach (tests/fuzz/run.sh
# --coverage calls this).
#
#   tests/fuzz/coverage.sh [BUILD_DIR [CORPUS_DIR...]]
#   tests/fuzz/coverage.sh --tables REPORT
#
# Configures BUILD_DIR (default build-fuzzcov at the top of the tree) with
# clang's source-based coverage (-fprofile-instr-generate
# -fcoverage-mapping) and -Dfuzzing=true, no sanitizers, builds the fuzz
# targets, replays each target's committed seeds and regression inputs
# (-runs=0: every input once, no fuzzing; once with GK5_TRACE off and once
# on) and any CORPUS_DIR/<target>
# given (for example a long run's output), merges the profiles and prints
# line and branch coverage per file of src/mech and src/crypto, then the
# parsers' branch coverage against the 95 % goal, and every branch of
# those parsers no input takes (file:line, which way).  Exit status 0
# whatever the figures: this measures, it does not judge.
set -eu
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# The parsers the 95 % branch goal is about: tokens (and their RFC 2743
# framing), imports, export, keytab files, the RFC 4120 messages, ccache
# files, krb5.conf, gk5_mech.so's mechanism line, the Windows PAC.
parsers=(src/mech/rfc4121_tokens.c src/mech/rfc1964_tokens.c src/mech/gss_framing.c
    src/mech/import_gssd.c src/mech/export.c src/krb5/keytab.c
    src/der/rfc4120_time.c src/der/rfc4120_decode_fields.c
    src/der/rfc4120_decode_ap.c src/der/rfc4120_decode_kdc.c
    src/krb5/ccache.c src/krb5/profile.c src/interposer/accept_config.c
    src/krb5/pac.c)

# The two tables, from llvm-cov report's rows (columns, no region or
# function details: file, functions, missed, executed, lines, missed,
# cover, branches, missed, cover).  Every figure printed for a file is
# that file's own row; the total is the sum of the rows printed above it.
tables() {
    local report=$1 f n
    # The file names as the coverage mapping spells them (relative to the
    # build directory), shortened to the tree's own for printing.
    echo "Coverage of src/mech and src/crypto by the fuzz corpora (replayed, not fuzzed):"
    printf '  %-34s %8s %8s %9s %8s %9s\n' file lines missed line-cov branches branch-cov
    awk '$1 ~ /\/src\/(mech|crypto)\/([^/]+\/)?[^/]+\.c$/ {
            f = $1; sub(/^.*\/src\//, "src/", f)
            printf "  %-34s %8s %8s %9s %8s %9s\n", f, $5, $6, $7, $8, $10
            l += $5; lm += $6; b += $8; bm += $9 }
        END { printf "  %-34s %8d %8d %8.2f%% %8d %8.2f%%\n", "src/mech + src/crypto",
                l, lm, l ? 100 * (l - lm) / l : 0, b, b ? 100 * (b - bm) / b : 0 }' \
        "$report"

    echo
    echo "Parsers (goal: branch coverage >= 95 %):"
    for f in "${parsers[@]}"; do
        # $1 ends with /f (index() is 0 when f is not in $1, which must not
        # pass for a name one shorter than f).
        n=$(awk -v f="/$f" 'length($1) >= length(f) &&
                substr($1, length($1) - length(f) + 1) == f { print $1 }' \
            "$report" | head -1)
        if [ -z "$n" ]; then
            printf '  %-32s not reached by any target\n' "$f"
            continue
        fi
        awk -v n="$n" -v f="$f" '$1 == n {
            printf "  %-32s branches %5s, missed %4s: %s\n", f, $8, $9, $10 }' \
            "$report"
    done
}

pick() {
    local t
    for t in "$@"; do
        if command -v "$t" > /dev/null 2>&1; then
            echo "$t"
            return 0
        fi
    done
    return 1
}
if [ "${1:-}" = --tables ]; then
    [ $# -eq 2 ] && [ -r "$2" ] || {
        echo "usage: coverage.sh --tables REPORT (a readable llvm-cov report)" >&2
        exit 2
    }
    tables "$2"
    exit 0
fi

build=${1:-$top/build-fuzzcov}
[ $# -ge 1 ] && shift
extra=("$@")
profdata=$(pick llvm-profdata-14 llvm-profdata) || {
    echo "coverage.sh: llvm-profdata not found (Debian: apt-get install llvm-14)" >&2
    exit 2
}
llvmcov=$(pick llvm-cov-14 llvm-cov) || {
    echo "coverage.sh: llvm-cov not found (Debian: apt-get install llvm-14)" >&2
    exit 2
}

if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" "$top" -Dfuzzing=true -Ddes3=true \
        -Dmit=enabled -Db_lundef=false \
        -Dc_args='-fprofile-instr-generate -fcoverage-mapping' \
        -Dc_link_args=-fprofile-instr-generate > "$build.setup.log" 2>&1 || {
        cat "$build.setup.log" >&2
        exit 1
    }
fi
# Only the fuzz targets: the rest of the tree is not measured here.
mapfile -t targets < <(ninja -C "$build" -t targets all 2> /dev/null |
    sed -n 's|^\(tests/fuzz/fuzz_[a-z0-9_]*\): .*|\1|p' | sort -u)
if [ "${#targets[@]}" -eq 0 ]; then
    echo "coverage.sh: no fuzz targets in $build" >&2
    exit 1
fi
ninja -C "$build" "${targets[@]}" > "$build.ninja.log" 2>&1 || {
    tail -30 "$build.ninja.log" >&2
    exit 1
}

prof=$(mktemp -d)
trap 'rm -rf "$prof"' EXIT
objects=()
export KRB5_CONFIG=/dev/null
for exe in "$build"/tests/fuzz/fuzz_*; do
    [ -f "$exe" ] && [ -x "$exe" ] || continue
    t=$(basename "$exe" | sed 's/^fuzz_//')
    dirs=()
    for d in "$here/corpus/$t" "$here/regress/$t"; do
        [ -d "$d" ] && dirs+=("$d")
    done
    for d in "${extra[@]+"${extra[@]}"}"; do
        [ -d "$d/$t" ] && dirs+=("$d/$t")
    done
    [ "${#dirs[@]}" -gt 0 ] || continue
    # Twice: with GK5_TRACE off and on (fuzz_trace_for), so that both
    # sides of every trace point count, whatever each seed's length.
    for tr in 0 1; do
        FUZZ_TRACE=$tr LLVM_PROFILE_FILE="$prof/$t-$tr-%p.profraw" \
            "$exe" -runs=0 "${dirs[@]}" > "$prof/$t.log" 2>&1 || {
            echo "coverage.sh: replaying $t (FUZZ_TRACE=$tr) failed:" >&2
            tail -5 "$prof/$t.log" >&2
            exit 1
        }
    done
    objects+=(-object "$exe")
done
"$profdata" merge -sparse "$prof"/*.profraw -o "$prof/all.profdata"
# Kept for a closer look (llvm-cov show/report with the same objects).
cp "$prof/all.profdata" "$build/fuzz-corpora.profdata"

# llvm-cov's first -object is the positional binary; the rest follow.
first=${objects[1]}
rest=("${objects[@]:2}")
cov() {
    "$llvmcov" "$1" "$first" "${rest[@]+"${rest[@]}"}" \
        -instr-profile="$prof/all.profdata" "${@:2}"
}
# Columns (no region or function details): file, functions, missed,
# executed, lines, missed, cover, branches, missed, cover.
cov report -show-branch-summary -show-region-summary=false \
    > "$prof/report.txt"

tables "$prof/report.txt"

echo
echo "Branches of the parsers no input takes (the condition's outcome never seen):"
# llvm-cov show lists every file, each after a line naming it ("PATH:").
pat=$(printf '%s|' "${parsers[@]}")
pat="/(${pat%|}):\$"
cov show -show-branches=count -show-line-counts=false 2> /dev/null |
    awk -v pat="$pat" '
        /^[^ |].*\.[ch]:$/ { cur = ""; if ($0 ~ pat) { cur = $0;
            sub(/^.*\/src\//, "src/", cur); sub(/:$/, "", cur) } next }
        cur == "" { next }
        /^ *[0-9]+\|/ { split($0, a, "|"); text[a[1] + 0] = a[length(a)] }
        /Branch \(/ && (/True: 0,/ || /False: 0\]/) {
            match($0, /Branch \([0-9]+:/)
            line = substr($0, RSTART + 8, RLENGTH - 9) + 0
            way = /True: 0,/ ? "never true" : "never false"
            if (/True: 0, False: 0\]/) way = "never reached"
            src = text[line]
            gsub(/^[ \t]+/, "", src)
            printf "  %s:%d %-13s %s\n", cur, line, way, substr(src, 1, 70)
        }'
