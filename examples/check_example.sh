#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Run an example program and check what it prints (meson test --suite
# examples).
#
#   check_example.sh [--expect REGEX]... -- [NAME=VALUE]... PROGRAM [ARGS...]
#
# PROGRAM runs with the NAME=VALUE variables added to its environment; in
# those and in ARGS, @REALM@ stands for GK5_REALM_DIR, the throwaway realm
# that `gk5 realm run` made (run this under `gk5 realm run --`).  The
# test passes when PROGRAM exits 0 and each REGEX (grep -E) matches a line
# of its standard output, in the order given.  Its output is shown either
# way.
set -u

expects=()
while [ $# -gt 0 ]; do
    case $1 in
        --expect)
            [ $# -ge 2 ] || {
                echo "check_example: --expect needs a REGEX" >&2
                exit 2
            }
            expects+=("$2")
            shift 2
            ;;
        --)
            shift
            break
            ;;
        *)
            echo "check_example: unknown option '$1'" >&2
            exit 2
            ;;
    esac
done

realm() {
    case $1 in
        *@REALM@*)
            if [ -z "${GK5_REALM_DIR-}" ]; then
                echo "check_example: '$1' needs GK5_REALM_DIR (run under gk5 realm run --)" >&2
                exit 2
            fi
            printf '%s\n' "${1//@REALM@/$GK5_REALM_DIR}"
            ;;
        *) printf '%s\n' "$1" ;;
    esac
}

vars=()
while [ $# -gt 0 ] && [[ $1 == [A-Za-z_]*=* ]]; do
    vars+=("$(realm "$1")") || exit 2
    shift
done
if [ $# -eq 0 ]; then
    echo "usage: check_example.sh [--expect REGEX]... -- [NAME=VALUE]... PROGRAM [ARGS...]" >&2
    exit 2
fi
cmd=()
for a in "$@"; do
    cmd+=("$(realm "$a")") || exit 2
done

out=$(mktemp "${TMPDIR:-/tmp}/gk5-example.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT

env "${vars[@]}" "${cmd[@]}" >"$out"
rc=$?
cat "$out"
if [ $rc -ne 0 ]; then
    echo "check_example: ${cmd[0]##*/} exited with status $rc" >&2
    exit 1
fi

mapfile -t lines <"$out"
next=0
for re in "${expects[@]}"; do
    found=0
    while [ $next -lt ${#lines[@]} ]; do
        line=${lines[$next]}
        next=$((next + 1))
        if grep -Eq -- "$re" <<<"$line"; then
            found=1
            break
        fi
    done
    if [ $found = 0 ]; then
        echo "check_example: no line matching '$re' (in this order) in the output above" >&2
        exit 1
    fi
done
echo "check_example: ${cmd[0]##*/}: exit status 0, ${#expects[@]} expected lines found"
