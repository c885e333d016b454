#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The built manual pages, as a reader gets them (meson test meta/man-pages).
#
#   check_man.sh GK5 GK5_1 LIBGK5_3 HEADER...
#
# GK5 is the built CLI; GK5_1 and LIBGK5_3 the built pages, or '-' for a
# page that was not built (help2man or scdoc missing at configure time: a
# skipped check, not a failure).  For each page: `man -l` renders it at
# MANWIDTH=80 into a pipe with every groff warning on, and `groff -ww -z`
# reads it; either warning fails.  The page must have NAME, SYNOPSIS and
# DESCRIPTION, and no rendered line wider than 80 columns (a preformatted
# line that overflows the terminal).  gk5(1) must name every command
# `gk5 --help` lists; libgk5(3) every function the HEADERs declare
# GK5_EXPORT.  Output is TAP.
set -u
set -o pipefail

if [ $# -lt 3 ]; then
    echo "usage: check_man.sh GK5 GK5_1|- LIBGK5_3|- HEADER..." >&2
    exit 2
fi
gk5=$1
man1=$2
man3=$3
shift 3
headers=("$@")

for tool in man groff; do
    if ! command -v "$tool" >/dev/null; then
        echo "1..0 # SKIP $tool is not installed (apt-get install man-db groff-base)"
        exit 0
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gk5-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() {
    n=$((n + 1))
    echo "ok $n - $1"
}
not_ok() {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    # The reasons as TAP comments, and on stderr, which meson shows for a
    # failed test.
    echo "check_man: $1: failed" >&2
    shift
    local line
    for line in "$@"; do
        echo "#   $line"
        echo "    $line" >&2
    done
}
skip() {
    n=$((n + 1))
    echo "ok $n # SKIP $1"
}

# render PAGE NAME: the page as man shows it, in $tmp/NAME.txt; groff's and
# man's complaints in $tmp/NAME.warn.  LC_ALL=C: plain ASCII, so that the
# text can be searched for the words a reader types.
render() {
    local page=$1 name=$2
    if ! LC_ALL=C MANWIDTH=80 man -l --warnings=w "$page" \
        2>"$tmp/$name.warn" | cat >"$tmp/$name.txt"; then
        not_ok "$name: man -l renders it" "$(head -5 "$tmp/$name.warn")"
        return 1
    fi
    LC_ALL=C groff -ww -z -man "$page" 2>>"$tmp/$name.warn"
    if [ -s "$tmp/$name.warn" ]; then
        not_ok "$name: no groff or man warnings" \
            "$(head -10 "$tmp/$name.warn")"
    else
        ok "$name: no groff or man warnings"
    fi
    if [ ! -s "$tmp/$name.txt" ]; then
        not_ok "$name: man -l renders it" "empty output"
        return 1
    fi
    ok "$name: man -l renders it ($(wc -l <"$tmp/$name.txt") lines)"
    return 0
}

# sections NAME: the three sections every page has.
sections() {
    local name=$1 sect missing=()
    for sect in NAME SYNOPSIS DESCRIPTION; do
        grep -qx "$sect" "$tmp/$name.txt" || missing+=("$sect")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        ok "$name: NAME, SYNOPSIS and DESCRIPTION"
    else
        not_ok "$name: NAME, SYNOPSIS and DESCRIPTION" \
            "missing: ${missing[*]}"
    fi
}

# width NAME: no line wider than the terminal.
width() {
    local name=$1 wide
    wide=$(awk 'length > 80 { printf "line %d: %s\n", NR, $0 }' \
        "$tmp/$name.txt" | head -5)
    if [ -z "$wide" ]; then
        ok "$name: every line fits in 80 columns"
    else
        not_ok "$name: every line fits in 80 columns" "$wide"
    fi
}

# ---- gk5(1) ----
if [ "$man1" = - ]; then
    skip "gk5.1 was not built (help2man missing at configure time)"
elif render "$man1" gk5.1; then
    sections gk5.1
    width gk5.1
    commands=$("$gk5" --help | awk '
        /^Commands:/ { in_list = 1; next }
        in_list && /^ *$/ { exit }
        in_list && /^  [a-z0-9]/ { print $1 }')
    if [ -z "$commands" ]; then
        not_ok "gk5.1: names every command of gk5 --help" \
            "no commands found in '$gk5 --help'"
    else
        missing=()
        for cmd in $commands; do
            # The command's own subsection, "gk5 CMD", not a passing word.
            grep -Eq "(^|[^a-z0-9-])gk5 $cmd([^a-z0-9-]|$)" "$tmp/gk5.1.txt" ||
                missing+=("$cmd")
        done
        if [ ${#missing[@]} -eq 0 ]; then
            ok "gk5.1: names every command of gk5 --help ($(tr '\n' ' ' <<<"$commands"))"
        else
            not_ok "gk5.1: names every command of gk5 --help" \
                "not in the page: ${missing[*]}"
        fi
    fi
fi

# ---- libgk5(3) ----
if [ "$man3" = - ]; then
    skip "libgk5.3 was not built (scdoc missing at configure time)"
elif render "$man3" libgk5.3; then
    sections libgk5.3
    width libgk5.3
    for header in "${headers[@]}"; do
        # A declaration starts a line with GK5_EXPORT; the function is the
        # name before its first "(", which may be on a later line.
        functions=$(awk '
            /^GK5_EXPORT/ { decl = $0; in_decl = 1 }
            in_decl && !/^GK5_EXPORT/ { decl = decl " " $0 }
            in_decl && decl ~ /\(/ {
                in_decl = 0
                sub(/[ \t]*\(.*/, "", decl)
                sub(/.*[^A-Za-z0-9_]/, "", decl)
                print decl
            }' "$header")
        base=${header##*/}
        if [ -z "$functions" ]; then
            not_ok "libgk5.3: names every GK5_EXPORT function of $base" \
                "no GK5_EXPORT declarations found in $header"
            continue
        fi
        missing=()
        for fn in $functions; do
            grep -qw -- "$fn" "$tmp/libgk5.3.txt" || missing+=("$fn")
        done
        count=$(echo "$functions" | wc -l)
        if [ ${#missing[@]} -eq 0 ]; then
            ok "libgk5.3: names every GK5_EXPORT function of $base ($count)"
        else
            not_ok "libgk5.3: names every GK5_EXPORT function of $base" \
                "not in the page: ${missing[*]}"
        fi
    done
fi

echo "1..$n"
[ "$failed" -eq 0 ]
