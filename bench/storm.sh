#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# A context-establishment storm against NFS-Ganesha on loopback, in one
# throwaway realm: `gk5 nfs4 storm` makes N RPCSEC_GSS krb5p contexts as
# fast as C connections can (gk5's own initiator, the service ticket in a
# FILE ccache got once: no KDC while timed), R times, against Ganesha in
# each server mode, and prints one table: contexts/s (median, min-max over
# R), Ganesha's RSS before and after (KiB per context), its CPU per
# context, and the krb5p check (every context WRITEs and READs back once),
# with the ratios of each mode to stock Ganesha.
#
#   bench/storm.sh [--quick] [--contexts N] [--connections C] [--repeat R]
#                  [--modes LIST] [--require-native] [--module SO] BUILD_DIR
#
# Defaults: N 8000 (a quarter of a second timed here: fewer make the
# server's CPU, counted in 10 ms ticks, coarse), C 8 (on 2 CPUs, 8 did
# best for native and as well as 4 or 16 for stock), R 3.
#
# Modes: stock (MIT accepts, MIT's per-message calls), interposer
# (gk5_mech.so: MIT accepts, gk5 takes the context over per message),
# native (gk5_mech.so with [accept=native] on its mechglue line: gk5
# accepts).  Before the timed run of an interposer mode a short run with
# GK5_TRACE checks which path Ganesha's contexts took (the timed run is
# untraced: the trace writes lines per context).  With a module that reads
# [accept=native], a context of the native mode that MIT accepted fails the
# run; a module from before that option runs the mode as the interposer
# does, which is reported, and with --require-native fails the run.
# --module: the gk5_mech.so to load (default BUILD_DIR's).
# --quick: 200 contexts, 2 connections, one repetition (the meson test
# storm-quick).  Exit status: 0, 1 (a mode failed, a context failed
# its check, or gk5 did not serve an interposer mode), 2 usage, 77 skipped
# (no MIT KDC programs, no NFS-Ganesha or its MEM FSAL).
set -u
set -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
contexts=8000
connections=8
repeat=3
modes=stock,interposer,native
require_native=0
quick=0
build=""
module=""
usage() {
    echo "usage: $0 [--quick] [--contexts N] [--connections C] [--repeat R] [--modes stock,interposer,native] [--require-native] [--module SO] BUILD_DIR" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --contexts) [ $# -ge 2 ] || usage; contexts=$2; shift 2 ;;
    --connections) [ $# -ge 2 ] || usage; connections=$2; shift 2 ;;
    --repeat) [ $# -ge 2 ] || usage; repeat=$2; shift 2 ;;
    --modes) [ $# -ge 2 ] || usage; modes=$2; shift 2 ;;
    --require-native) require_native=1; shift ;;
    --module) [ $# -ge 2 ] || usage; module=$2; shift 2 ;;
    --quick) quick=1; contexts=200; connections=2; repeat=1; shift ;;
    -h | --help) sed -n '4,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "storm: unknown option $1" >&2; usage ;;
    *) [ -z "$build" ] || usage; build=$1; shift ;;
    esac
done
[ -n "$build" ] || usage
for v in "$contexts" "$connections" "$repeat"; do
    case $v in '' | *[!0-9]*) echo "storm: '$v' is not a number" >&2; exit 2 ;; esac
done
# Ganesha (libntirpc) keeps at most RPC_GSS_Max_Ctx contexts (16384 by
# default) in RPC_GSS_Npart partitions (13), each holding at most
# 16384 / 13 = 1260 and dropping its oldest beyond; a context's partition
# follows its address, so the partitions do not fill evenly (16000
# contexts lost some).  The storm's N, with the check's own context, stays
# far enough below that for every partition.
if [ "$contexts" -gt 10000 ] || [ "$connections" -gt 64 ] || [ "$contexts" -lt "$connections" ]; then
    echo "storm: --contexts $contexts --connections $connections: at most 10000 contexts (Ganesha keeps 16384, RPC_GSS_Max_Ctx, in 13 partitions of at most 1260 each), 1 to 64 connections, and no fewer contexts than connections" >&2
    exit 2
fi
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
    case $m in stock | interposer | native) ;;
    *) echo "storm: --modes: '$m' is not stock, interposer or native" >&2; exit 2 ;;
    esac
done
build=$(cd "$build" && pwd) || exit 2
gk5=$build/tools/gk5
[ -n "$module" ] || module=$build/src/interposer/gk5_mech.so
case $module in /*) ;; *) module=$PWD/$module ;; esac
[ -x "$gk5" ] || { echo "storm: $gk5 not built" >&2; exit 2; }
case ",$modes," in
*,interposer,* | *,native,*)
    [ -e "$module" ] || { echo "storm: $module not built (the interposer and native modes need it)" >&2; exit 2; }
    ;;
esac

if [ -z "${GK5_REALM_DIR:-}" ]; then
    args=(--contexts "$contexts" --connections "$connections" --repeat "$repeat" --modes "$modes")
    [ $require_native = 1 ] && args+=(--require-native)
    [ $quick = 1 ] && args+=(--quick)
    args+=(--module "$module")
    # gk5 realm run says SKIP (77) itself without the MIT KDC programs.
    exec "$gk5" realm run -- bash "$0" "${args[@]}" "$build"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gk5-storm.XXXXXX") || exit 1
trap 'rm -rf -- "$work"' EXIT
oid=1.3.6.1.4.1.32473.4121.1
printf 'gk5_mech %s %s <interposer>\n' "$oid" "$module" >"$work/interposer.conf"
printf 'gk5_mech %s %s [accept=native] <interposer>\n' "$oid" "$module" >"$work/native.conf"
# gk5_mech's trace: a context gk5 accepted itself, and one it left to
# MIT's acceptor (with [accept=native], a fallback; the reason follows).
native_re='context [^ ]* accepted natively'
fallback_re='context [^ ]*: accept by MIT'

# storm MODE OUT TRACE STORM_ARGS...: Ganesha in MODE (TRACE: GK5_TRACE
# file, or "" for none), `gk5 nfs4 storm` against it; its output in OUT.
# The status of the whole: 77 when Ganesha is not installed.
storm() {
    local mode=$1 out=$2 trace=$3 envs=()
    shift 3
    case $mode in
    interposer | native) envs+=(GK5_GANESHA_MECH_CONFIG="$work/$mode.conf") ;;
    esac
    [ -n "$trace" ] && envs+=(GK5_GANESHA_TRACE="$trace")
    env "${envs[@]}" bash "$here/tests/peers/ganesha.sh" run -- \
        bash -c 'exec "$0" nfs4 storm "127.0.0.1:$GK5_GANESHA_PORT:/" --server-pid "$(cat "$GK5_REALM_DIR/ganesha/ganesha.pid.ours")" "$@"' \
        "$gk5" --target nfs@localhost \
        --client-keytab "$GK5_REALM_DIR/client.keytab" \
        --client-principal gk5-client@GK5.TEST "$@" >"$out" 2>&1
}

# field OUT KEY: KEY's value on the result line of OUT.
field() {
    sed -n 's/^result: .*\<'"$2"'=\([^ ]*\).*/\1/p' "$1" | tail -n 1
}

declare -A path ok rate rmin rmax rss0 rss1 kib srv cli chk
failed=0
echo "storm: $contexts contexts, $connections connections, $repeat repetition(s) per mode: $modes"
echo "storm: each mode: $gk5 nfs4 storm 127.0.0.1:PORT:/ --server-pid PID --target nfs@localhost --client-keytab REALM/client.keytab --client-principal gk5-client@GK5.TEST --contexts $contexts --connections $connections --repeat $repeat"
for m in "${mode_list[@]}"; do
    path[$m]=MIT
    if [ "$m" != stock ]; then
        # The path check: a short traced run.
        t=$work/$m.trace
        : >"$t"
        storm "$m" "$work/$m.verify" "$t" --contexts 20 --connections 2
        rc=$?
        if [ $rc = 77 ]; then
            tail -n 1 "$work/$m.verify"
            exit 77
        fi
        served=$(grep -c 'served by gk5: ' "$t")
        native=$(grep -Ec "$native_re" "$t")
        fallback=$(grep -Ec "$fallback_re" "$t")
        if [ $rc != 0 ] || ! grep -q 'gk5_mech: loaded' "$t" ||
            { [ "$served" -lt 20 ] && [ "$native" -lt 20 ]; }; then
            echo "storm: $m: gk5 did not serve Ganesha's contexts (traced run: status $rc, $served served by gk5, $native accepted natively):" >&2
            cat "$work/$m.verify" >&2
            grep -v 'serves gss_\|import_lucid\|: free: \|deleted; ' "$t" | head -n 20 >&2
            failed=1
            ok[$m]=FAIL
            continue
        fi
        if [ "$native" -ge 20 ] && [ "$fallback" = 0 ]; then
            path[$m]="gk5 accepts"
        elif [ "$m" = native ]; then
            # A module that knows the option says so when it loads
            # ("gk5_mech: accept: native"): then every context must be
            # accepted natively; one from before the option ran as the
            # interposer does, which only --require-native refuses.
            path[$m]="MIT (native: $native of the traced)"
            echo "storm: native: gk5_mech.so accepted $native of the traced run's contexts natively ($fallback left to MIT; trace lines /$native_re/): the mode ran as the interposer does" >&2
            grep -E "$fallback_re" "$t" | head -n 3 >&2
            if grep -q 'gk5_mech: accept: native' "$t"; then
                echo "storm: native: the module read [accept=native] but did not accept every context itself" >&2
                failed=1
                ok[$m]=FAIL
                continue
            fi
            echo "storm: native: the module does not know [accept=native] (no \"gk5_mech: accept: native\" when loaded)" >&2
            [ $require_native = 1 ] && failed=1
        else
            path[$m]="MIT, gk5 per-message"
        fi
    fi
    echo
    echo "== $m (accept: ${path[$m]})"
    storm "$m" "$work/$m.out" "" --contexts "$contexts" --connections "$connections" --repeat "$repeat"
    rc=$?
    cat "$work/$m.out"
    if [ $rc = 77 ]; then
        exit 77
    fi
    status=$(field "$work/$m.out" status)
    checked=$(field "$work/$m.out" checked)
    if [ $rc != 0 ] || [ "$status" != ok ] || [ "$checked" != $((contexts * repeat)) ] ||
        [ "$(field "$work/$m.out" failed)" != 0 ]; then
        echo "storm: $m: failed (status $rc, result ${status:-missing}, ${checked:-0} of $((contexts * repeat)) contexts checked)" >&2
        failed=1
        ok[$m]=FAIL
        continue
    fi
    ok[$m]="$checked/$((contexts * repeat)) ok"
    rate[$m]=$(field "$work/$m.out" rate_med)
    rmin[$m]=$(field "$work/$m.out" rate_min)
    rmax[$m]=$(field "$work/$m.out" rate_max)
    rss0[$m]=$(field "$work/$m.out" rss_before_kib)
    rss1[$m]=$(field "$work/$m.out" rss_after_kib)
    kib[$m]=$(field "$work/$m.out" kib_per_ctx)
    srv[$m]=$(field "$work/$m.out" srv_us)
    cli[$m]=$(field "$work/$m.out" cli_us)
done

echo
echo "== Context storm against NFS-Ganesha: N contexts over C connections, R repetitions (contexts/s: median, min-max)"
printf '%-11s %6s %5s %3s %22s %20s %8s %10s %10s %-15s %s\n' mode N conns R \
    "contexts/s (min-max)" "RSS KiB before>after" KiB/ctx "srv-us/ctx" "cli-us/ctx" "krb5p check" accept
for m in "${mode_list[@]}"; do
    if [ -z "${rate[$m]-}" ]; then
        printf '%-11s %6s %5s %3s %22s %20s %8s %10s %10s %-15s %s\n' "$m" "$contexts" \
            "$connections" "$repeat" - - - - - "${ok[$m]-FAIL}" "${path[$m]}"
        continue
    fi
    printf '%-11s %6s %5s %3s %22s %20s %8s %10s %10s %-15s %s\n' "$m" "$contexts" \
        "$connections" "$repeat" \
        "$(printf '%.0f (%.0f-%.0f)' "${rate[$m]}" "${rmin[$m]}" "${rmax[$m]}")" \
        "${rss0[$m]}>${rss1[$m]}" "${kib[$m]}" "${srv[$m]}" "${cli[$m]}" \
        "${ok[$m]}" "${path[$m]}"
done
if [ -n "${rate[stock]-}" ]; then
    for m in "${mode_list[@]}"; do
        [ "$m" = stock ] && continue
        [ -n "${rate[$m]-}" ] || continue
        awk -v m="$m" -v r="${rate[$m]}" -v s="${rate[stock]}" \
            -v cm="${srv[$m]}" -v cs="${srv[stock]}" 'BEGIN {
            line = sprintf("ratio %s / stock: contexts/s %.2fx", m, r / s)
            if (cm + 0 > 0 && cs + 0 > 0)
                line = line sprintf(", server CPU per context %.2fx (stock / %s: %.2fx as efficient)", cm / cs, m, cs / cm)
            if (m == "native")
                line = line sprintf("; target >= 3x stock: %s", r / s >= 3 ? "met" : "not met")
            print line
        }'
    done
fi
exit $failed
