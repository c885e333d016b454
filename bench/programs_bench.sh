#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Making existing programs faster: unmodified programs on MIT's GSS-API,
# timed in one run with MIT alone and with GSS_MECH_CONFIG naming
# gk5_mech.so, in one throwaway realm (gk5 realm run).  Prints a table of
# MB/s (10^6 bytes of payload per second) with the ratio gk5/MIT.
#   python3-gssapi  tests/interposer/python_gssapi.py bench: 64 KiB sealed
#                   gss_wrap (initiator) + gss_unwrap (acceptor) pairs in
#                   one process, for S seconds or CALLS pairs, whichever
#                   comes first; the best of R rounds, MIT and gk5
#                   alternating
#   PostgreSQL 15   tests/interposer/postgres.sh --bench: GSS-encrypted
#                   COPY t TO STDOUT of about MB megabytes (psql into
#                   /dev/null), the module on both ends or on neither,
#                   server on 127.0.0.1; the best of R rounds
#
#   bench/programs_bench.sh [--quick] [--seconds S] [--calls CALLS]
#                           [--rounds R] [--pg-mb MB] BUILD_DIR
#
# Defaults: 2 s, 20000 pairs, 3 rounds, 100 MB; --quick: 0.2 s, 200
# pairs, 1 round, 5 MB.  A program not installed is named under the
# table.  Exit status: 0 with the table; 1 when a program failed or gk5
# did not serve its contexts (the traces); 2 usage; 77 when no program of
# the table is installed (the reasons on stderr).
set -u
set -o pipefail

seconds=2
calls=20000
rounds=3
pg_mb=100
build=""
usage() {
    echo "usage: programs_bench.sh [--quick] [--seconds S] [--calls CALLS] [--rounds R] [--pg-mb MB] BUILD_DIR" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) seconds=0.2; calls=200; rounds=1; pg_mb=5; shift ;;
    --seconds | --calls | --rounds | --pg-mb)
        [ $# -ge 2 ] || usage
        case "$1" in
        --seconds) seconds=$2 ;;
        --calls) calls=$2 ;;
        --rounds) rounds=$2 ;;
        --pg-mb) pg_mb=$2 ;;
        esac
        shift 2
        ;;
    -h | --help) sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "programs_bench: unknown option $1" >&2; usage ;;
    *) [ -z "$build" ] || usage; build=$1; shift ;;
    esac
done
[ -n "$build" ] || usage
if ! [[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! [[ $calls =~ ^[1-9][0-9]{0,6}$ ]] ||
    ! [[ $rounds =~ ^[1-9][0-9]?$ ]] || ! [[ $pg_mb =~ ^[1-9][0-9]{0,3}$ ]]; then
    echo "programs_bench: --seconds wants a number, --calls 1..9999999, --rounds 1..99, --pg-mb 1..9999" >&2
    exit 2
fi
build=$(cd "$build" 2>/dev/null && pwd) || {
    echo "programs_bench: no build directory $build" >&2
    exit 2
}
module=$build/src/interposer/gk5_mech.so
gk5=$build/tools/gk5
for f in "$module" "$gk5"; do
    [ -e "$f" ] || { echo "programs_bench: $f not built" >&2; exit 2; }
done
src=$(cd "$(dirname "$0")/.." && pwd)
py=$src/tests/interposer/python_gssapi.py
PYTHON=${GK5_PYTHON:-/usr/bin/python3}

if [ -z "${GK5_REALM_DIR:-}" ]; then
    # gk5 realm run says SKIP (77) itself without MIT's KDC programs.
    exec "$gk5" realm run -- bash "$0" --seconds "$seconds" --calls "$calls" \
        --rounds "$rounds" --pg-mb "$pg_mb" "$build"
fi

work=$(mktemp -d) || exit 1
trap 'rm -rf -- "$work"' EXIT
printf 'gk5_mech 1.3.6.1.4.1.32473.4121.1 %s <interposer>\n' "$module" >"$work/mech.conf"

# One row per program: "name mit_mbps gk5_mbps"; a program not installed
# is a line of $work/skipped instead.
rows=()

# python_once MODE ROUND: one bench run, its MB/s on stdout.
python_once() {
    local mode=$1 r=$2 out=$work/py-$1-$2
    local envs=(env -u GSS_MECH_CONFIG)
    [ "$mode" = gk5 ] && envs=(env GSS_MECH_CONFIG="$work/mech.conf" GK5_TRACE="$out.trace")
    if ! timeout -k 5 $((${seconds%.*} + 60)) "${envs[@]}" \
        KRB5_CLIENT_KTNAME="$GK5_REALM_DIR/client.keytab" \
        KRB5CCNAME="FILE:$work/py.ccache" KRB5_KTNAME="$GK5_REALM_DIR/service.keytab" \
        "$PYTHON" "$py" bench "$seconds" "$calls" >"$out" 2>&1 </dev/null; then
        echo "programs_bench: python3-gssapi ($mode) failed:" >&2
        cat "$out" >&2
        return 1
    fi
    if [ "$mode" = gk5 ] && [ "$(grep -c 'served by gk5' "$out.trace")" != 2 ]; then
        echo "programs_bench: gk5 did not serve both python3-gssapi contexts:" >&2
        cat "$out.trace" >&2
        return 1
    fi
    sed -nE 's/^calls [0-9]+ bytes [0-9]+ seconds [0-9.]+ mbps ([0-9.]+)$/\1/p' "$out"
}

# best A B: the larger of two numbers (an empty A is none yet).
best() {
    awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }'
}

if why=$(timeout 30 "$PYTHON" -c 'import gssapi' 2>&1); then
    m="" g=""
    for ((r = 1; r <= rounds; r++)); do
        x=$(python_once mit "$r") && [ -n "$x" ] || exit 1
        m=$(best "$m" "$x")
        x=$(python_once gk5 "$r") && [ -n "$x" ] || exit 1
        g=$(best "$g" "$x")
    done
    rows+=("python3-gssapi $m $g")
else
    echo "python3-gssapi: $PYTHON cannot import gssapi: $(echo "$why" | tail -n 1)" >>"$work/skipped"
fi

# PostgreSQL: its own script starts and stops the servers.
bash "$src/tests/interposer/postgres.sh" --bench "$pg_mb" "$rounds" "$module" \
    >"$work/pg.out" 2>"$work/pg.err"
rc=$?
if [ $rc = 0 ] && row=$(grep -E '^postgres [0-9.]+ [0-9.]+ [0-9]+$' "$work/pg.out"); then
    rows+=("${row% *}")
elif [ $rc = 77 ]; then
    echo "PostgreSQL 15: $(tail -n 1 "$work/pg.err")" >>"$work/skipped"
else
    echo "programs_bench: PostgreSQL failed:" >&2
    cat "$work/pg.out" "$work/pg.err" >&2
    exit 1
fi

if [ ${#rows[@]} = 0 ]; then
    echo "programs_bench: no program to time:" >&2
    cat "$work/skipped" >&2
    exit 77
fi

echo "Making existing programs faster: MB/s of payload, MIT alone and through gk5_mech.so, one run (best of $rounds; python: ${seconds} s or $calls calls each)"
printf '%-16s %-40s %9s %9s %7s\n' program workload MIT gk5 gk5/MIT
for row in "${rows[@]}"; do
    # shellcheck disable=SC2086
    set -- $row
    case "$1" in
    python3-gssapi) what="64 KiB sealed wrap+unwrap" ;;
    postgres) set -- "PostgreSQL 15" "$2" "$3"; what="GSS-encrypted COPY TO STDOUT, ${pg_mb} MB" ;;
    *) what="" ;;
    esac
    awk -v p="$1" -v w="$what" -v m="$2" -v g="$3" \
        'BEGIN { printf "%-16s %-40s %9.1f %9.1f %7.2f\n", p, w, m, g, (m > 0 ? g / m : 0) }'
done
if [ -s "$work/skipped" ]; then
    sed 's/^/not timed: /' "$work/skipped"
fi
exit 0
