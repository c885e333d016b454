#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Run every fuzz target for a bounded time (CI's smoke run; builds nothing).
#
#   tests/fuzz/run.sh SECONDS [BUILD_DIR [TARGET...]]
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#   tests/fuzz/run.sh --coverage [COVERAGE_BUILD_DIR [CORPUS_DIR...]]
#   tests/fuzz/run.sh --long HOURS [BUILD_DIR [TARGET...]]
#
# --coverage: line and branch coverage of src/mech and src/crypto reached
# by the corpora (tests/fuzz/coverage.sh; builds its own clang coverage
# tree).  --long: an unattended campaign sharing HOURS between the targets
# (two at a time per CPU pair); each target keeps what it finds in
# BUILD_DIR/fuzz-long/<target> across runs, and at the end the new inputs
# that add coverage are merged, minimised (-merge=1), into the committed
# seed corpus tests/fuzz/corpus/<target>; executions per target printed.
#
# BUILD_DIR defaults to build-fuzz at the top of the tree (configured with
# -Dfuzzing=true, see tests/fuzz/meson.build, and built).  Each target
# starts from its committed seed corpus (tests/fuzz/corpus/<target>, read
# only: new inputs go to a scratch directory) plus tests/fuzz/regress/<target>
# when present, and runs with -max_total_time=SECONDS.  Any crash, leak,
# timeout or sanitizer report fails the run; the input that caused it is
# kept under $FUZZ_ARTIFACTS (default: BUILD_DIR/fuzz-artifacts/<target>/)
# so that it can become a regression case in tests/fuzz/regress/<target>/.
# Prints the executions each target reached.
#
# A smoke run is reproducible: every target starts from the same random
# seed (FUZZ_SEED, default 1), so a failure CI reports comes back with the
# same command; --long campaigns take a fresh seed per run.
#
# Environment: FUZZ_JOBS (targets run in parallel, default: number of CPUs),
# FUZZ_ARTIFACTS (where crash inputs and logs go), FUZZ_SEED.
set -u
set -o pipefail
shopt -s extglob

usage() {
    sed -n '4,35p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}
is_number() {
    case "$1" in
        '' | *[!0-9]*) return 1 ;;
        *) return 0 ;;
    esac
}
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || usage
if [ "$1" = "--coverage" ]; then
    shift
    exec "$here/coverage.sh" "$@"
fi
long=0
if [ "$1" = "--long" ]; then
    shift
    [ $# -ge 1 ] || usage
    case "$1" in
        '' | *[!0-9.]*) usage ;;
    esac
    long=1
    hours=$1
    shift
    build=${1:-$here/../../build-fuzz}
    [ $# -ge 1 ] && shift
    set -- "$build" 1 "$@" # seconds are set once the targets are known
fi
if is_number "$1"; then
    secs=$1
    shift
    build=${1:-$here/../../build-fuzz}
    [ $# -ge 1 ] && shift
else
    build=$1
    secs=${2:-}
    is_number "$secs" || usage
    shift 2
fi
[ "$secs" -gt 0 ] || usage
fuzzdir="$build/tests/fuzz"
if [ ! -d "$fuzzdir" ]; then
    echo "run.sh: $fuzzdir not found: configure and build with -Dfuzzing=true first" >&2
    exit 2
fi
artifacts=${FUZZ_ARTIFACTS:-$build/fuzz-artifacts}
jobs=${FUZZ_JOBS:-$(nproc 2> /dev/null || echo 1)}

if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for exe in "$fuzzdir"/fuzz_*; do
        if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then
            continue
        fi
        targets+=("$(basename "$exe" | sed 's/^fuzz_//')")
    done
fi
if [ "${#targets[@]}" -eq 0 ]; then
    echo "run.sh: no fuzz targets in $fuzzdir" >&2
    exit 2
fi

# Sanitizer reports must be fatal and must not be swallowed; the MIT target
# reads no site krb5.conf.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export KRB5_CONFIG=/dev/null

run_one() {
    local t=$1 exe="$fuzzdir/fuzz_$1" out="$artifacts/$1"
    local scratch rc execs
    rm -rf "$out"
    mkdir -p "$out"
    if [ "$long" = 1 ]; then
        scratch="$keep/$t"
        mkdir -p "$scratch"
    else
        scratch=$(mktemp -d)
    fi
    local dirs=("$scratch")
    [ -d "$here/corpus/$t" ] && dirs+=("$here/corpus/$t")
    [ -d "$here/regress/$t" ] && dirs+=("$here/regress/$t")
    local seed=()
    [ "$long" = 1 ] || seed=(-seed="${FUZZ_SEED:-1}")
    # -timeout: one input may take at most 10 s; -rss_limit_mb: 2 GB.
    "$exe" "${seed[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$out/" "${dirs[@]}" \
        > "$out/log" 2>&1
    rc=$?
    if [ "$long" = 1 ]; then
        # Only what adds coverage joins the committed corpus.
        mkdir -p "$here/corpus/$t"
        "$exe" -merge=1 "$here/corpus/$t" "$scratch" > "$out/merge.log" 2>&1 ||
            echo "run.sh: merging $t's new inputs failed (see $out/merge.log)" >&2
    else
        rm -rf "$scratch"
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log" | tail -1)
    if [ "$rc" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|gk5 fuzz:' "$out/log"; then
        printf '%-12s FAIL (exit %s) after %s executions; log and input: %s\n' \
            "$t" "$rc" "${execs:-?}" "$out"
        grep -E 'gk5 fuzz:|ERROR:|SUMMARY:|runtime error:|Test unit written' "$out/log" | head -8 | sed 's/^/    /'
        return 1
    fi
    printf '%-12s ok   %12s executions in %ss\n' "$t" "${execs:-?}" "$secs"
    return 0
}

if [ "$long" = 1 ]; then
    # The hours spread over the targets, $jobs running at a time.
    secs=$(awk -v h="$hours" -v n="${#targets[@]}" -v j="$jobs" \
        'BEGIN { s = int(h * 3600 * j / n); print (s < 1 ? 1 : s) }')
    keep="$build/fuzz-long"
    mkdir -p "$keep"
fi
echo "run.sh: ${#targets[@]} targets, ${secs}s each, $jobs at a time, artifacts in $artifacts"
mkdir -p "$artifacts"
status=0
pids=()
names=()
for t in "${targets[@]}"; do
    if [ ! -x "$fuzzdir/fuzz_$t" ]; then
        echo "run.sh: no target fuzz_$t in $fuzzdir" >&2
        status=1
        continue
    fi
    run_one "$t" &
    pids+=($!)
    names+=("$t")
    # Keep at most $jobs running.
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || status=1
    done
done
for pid in "${pids[@]}"; do
    wait "$pid" 2> /dev/null || true
done
# wait -n consumed some statuses: decide from the logs.
for t in "${names[@]}"; do
    log="$artifacts/$t/log"
    if [ ! -f "$log" ] || ! grep -q '^stat::number_of_executed_units' "$log" ||
        grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|gk5 fuzz:' "$log" ||
        compgen -G "$artifacts/$t/@(crash|leak|timeout|oom|slow-unit)-*" > /dev/null; then
        status=1
    fi
done
if [ "$status" -eq 0 ]; then
    echo "run.sh: all targets clean"
else
    echo "run.sh: FAILED (see above)"
fi
exit "$status"
