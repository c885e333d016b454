#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# The interposer benchmark: the same MIT GSS-API calls (gss_wrap sealed,
# gss_unwrap, gss_get_mic, gss_verify_mic; 1 KiB, 16 KiB, 1 MiB) in two
# child processes of one run, in one throwaway realm: one plain (MIT's own
# krb5 mechanism), one with GSS_MECH_CONFIG naming gk5_mech.so, which also
# times gk5 called directly on the same kind of context (so that the
# interposer's own cost is measured in one process).  Prints MB/s side by
# side with the ratios interposer/MIT and interposer/gk5-direct.  Then
# gss_accept_sec_context alone, microseconds per context (N fresh AP-REQs
# each, made beforehand by MIT's initiator): MIT's acceptor, MIT's with the
# interposer taking the context over, and gk5's own acceptor behind
# [accept=native] on the module's config line.
#
#   bench/interposer_bench.sh [--seconds S] [--quick] [--enctypes a,b]
#                             [--accepts N] BUILD_DIR
# --enctypes: aes128-sha1, aes256-sha1, aes128-sha256, aes256-sha384,
# camellia128, camellia256 or their numbers (default: all).
set -u
set -o pipefail

seconds=1
enctypes=""
accepts=2000
build=""
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --quick) seconds=0.1; accepts=200; shift ;;
    --accepts) accepts=$2; shift 2 ;;
    --enctypes) enctypes=$2; shift 2 ;;
    -h | --help) sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "interposer_bench: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
[ -n "$build" ] || { echo "usage: $0 [--seconds S] [--quick] BUILD_DIR" >&2; exit 2; }
build=$(cd "$build" && pwd) || exit 2
prog=$build/bench/interposer_bench
module=$build/src/interposer/gk5_mech.so
for f in "$prog" "$module"; do
    [ -e "$f" ] || { echo "interposer_bench: $f not built" >&2; exit 2; }
done
if [ -z "${GK5_REALM_DIR:-}" ]; then
    exec "$build/tools/gk5" realm run -- bash "$0" --seconds "$seconds" \
        --accepts "$accepts" ${enctypes:+--enctypes "$enctypes"} "$build"
fi

work=$(mktemp -d) || exit 1
trap 'rm -rf -- "$work"' EXIT
printf 'gk5_mech 1.3.6.1.4.1.32473.4121.1 %s <interposer>\n' "$module" >"$work/mech.conf"
printf 'gk5_mech 1.3.6.1.4.1.32473.4121.1 %s [accept=native] <interposer>\n' \
    "$module" >"$work/mech-native.conf"
args=(--seconds "$seconds")
[ -n "$enctypes" ] && args+=(--enctypes "$enctypes")

env -u GSS_MECH_CONFIG "$prog" --label mit "${args[@]}" >"$work/plain.csv" || exit 1
GSS_MECH_CONFIG=$work/mech.conf GK5_TRACE=$work/trace "$prog" --label interposer \
    --direct "${args[@]}" >"$work/interposed.csv" || exit 1
if ! grep -q 'served by gk5' "$work/trace"; then
    echo "interposer_bench: the interposer did not serve the contexts:" >&2
    cat "$work/trace" >&2
    exit 1
fi

echo "MIT GSS-API calls, MB/s: MIT's krb5 mechanism, the same calls through gk5_mech.so, gk5 called directly (${seconds} s per cell)"
printf '%-14s %-10s %8s %10s %11s %11s %8s %10s\n' enctype op size MIT interposer gk5-direct int/MIT int/direct
cat "$work/plain.csv" "$work/interposed.csv" | awk -F, '
    { v[$1 "," $2 "," $3 "," $4] = $5; if (!seen[$2 "," $3 "," $4]++) order[n++] = $2 "," $3 "," $4 }
    END {
        for (i = 0; i < n; i++) {
            split(order[i], k, ",")
            m = v["mit," order[i]]; p = v["interposer," order[i]]; d = v["interposer-direct," order[i]]
            size = k[3] == 1024 ? "1k" : k[3] == 16384 ? "16k" : k[3] == 1048576 ? "1m" : k[3]
            printf "%-14s %-10s %8s %10.1f %11.1f %11.1f %8.2f %10.2f\n", k[1], k[2], size, m, p, d,
                (m > 0 ? p / m : 0), (d > 0 ? p / d : 0)
        }
    }'

# gss_accept_sec_context alone.
aargs=(--accept "$accepts")
[ -n "$enctypes" ] && aargs+=(--enctypes "$enctypes")
env -u GSS_MECH_CONFIG "$prog" --label mit "${aargs[@]}" >"$work/acc-mit.csv" || exit 1
GSS_MECH_CONFIG=$work/mech.conf "$prog" --label interposer "${aargs[@]}" \
    >"$work/acc-int.csv" || exit 1
GSS_MECH_CONFIG=$work/mech-native.conf GK5_TRACE=$work/trace-native "$prog" \
    --label native "${aargs[@]}" >"$work/acc-nat.csv" || exit 1
if grep -q 'accept by MIT' "$work/trace-native" ||
    ! grep -q 'accepted natively' "$work/trace-native"; then
    echo "interposer_bench: [accept=native] did not accept natively:" >&2
    grep -m 5 'accept' "$work/trace-native" >&2
    exit 1
fi
echo
echo "gss_accept_sec_context, microseconds per context ($accepts fresh AP-REQs each, mutual, src_name asked for): MIT's acceptor, the interposer (MIT's acceptor, then gk5 takes the context), [accept=native] (gk5's own acceptor)"
printf '%-14s %10s %11s %10s %11s\n' enctype MIT interposer native MIT/native
cat "$work/acc-mit.csv" "$work/acc-int.csv" "$work/acc-nat.csv" | awk -F, '
    { v[$1 "," $2] = $5; if (!seen[$2]++) order[n++] = $2 }
    END {
        for (i = 0; i < n; i++) {
            m = v["mit," order[i]]; p = v["interposer," order[i]]; d = v["native," order[i]]
            printf "%-14s %10.1f %11.1f %10.1f %11.2f\n", order[i], m, p, d, (d > 0 ? m / d : 0)
        }
    }'
