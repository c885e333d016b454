#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# MIT's own GSS sample programs through the gk5_mech interposer (meson
# suite 'interposer'): TAP, one line per cell.
#
#   gk5 realm run --tap -- samples.sh BUILD_DIR_OR_GK5_MECH_SO INETD127
#
# Run inside the throwaway realm of `gk5 realm run` (GK5_REALM_DIR,
# KRB5_CONFIG).  gss-server and gss-client (Debian's krb5-gss-samples) are
# unmodified MIT GSS-API programs: they establish a krb5 context, then the
# client sends -mcount messages per context (gss_wrap), the server unwraps
# each and answers with a MIC of it (gss_get_mic), which the client checks
# (gss_verify_mic: "Signature verified.").  The interposer is put on a side
# by GSS_MECH_CONFIG, a mech config of ours naming gk5_mech.so; GK5_TRACE
# is set on both sides, and must stay empty on a side without it.
#
# For every enctype of ENCTYPES (its session key picked by a KRB5_CONFIG
# of ours in front of the realm's), with -ccount 2 -mcount 3:
#   neither side  the control: MIT alone; its output is what the others
#                 must print too
#   server only, client only, both sides
#   both sides, wrap without confidentiality (gss-client -nx)
# A cell is ok when gss-client exits 0 and verified every MIC, every
# gss-server exited 0 and received every message, the service ticket's
# session key is that enctype (klist -e), and the trace of each interposed
# side says the context was served by gk5 with that enctype and counts
# exactly the wraps/unwraps and MICs the programs made.  Then gss-server
# -export (export and re-import of the accepted context) with the
# interposer on the server, and an rc4-hmac session key with the
# interposer on both sides: it must work, and be left to MIT.
#
# gss-server binds every address when it listens itself: here it runs
# -inetd under inetd127, which listens on 127.0.0.1 only.  Every inetd127
# is started by this script, recorded by PID and stopped by that PID on
# every exit path; every command runs under timeout(1).
set -u

USAGE="usage: samples.sh BUILD_DIR_OR_GK5_MECH_SO INETD127"
SO_ARG=${1:?$USAGE}
INETD127=${2:?$USAGE}
DIR=${GK5_REALM_DIR:?run through gk5 realm run --tap}
: "${KRB5_CONFIG:?run through gk5 realm run --tap}"

GSS_SERVER=$(command -v gss-server)
GSS_CLIENT=$(command -v gss-client)
if [ -z "$GSS_SERVER" ] || [ -z "$GSS_CLIENT" ]; then
    echo "1..0 # SKIP MIT's gss-server/gss-client not found (apt-get install krb5-gss-samples)"
    exit 0
fi
KLIST=$(command -v klist)

if [ -d "$SO_ARG" ]; then
    SO_ARG=$SO_ARG/src/interposer/gk5_mech.so
fi
# The mechglue dlopen()s the path of the config line: it must be absolute.
SO=$(realpath -e -- "$SO_ARG" 2>/dev/null)
if [ -z "$SO" ] || [ ! -f "$SO" ]; then
    echo "Bail out! gk5_mech.so not found: $SO_ARG"
    echo "samples.sh: gk5_mech.so not found: $SO_ARG" >&2
    exit 1
fi
INETD127=$(realpath -e -- "$INETD127" 2>/dev/null) || {
    echo "Bail out! inetd127 not found: $2"
    echo "samples.sh: inetd127 not found: $2" >&2
    exit 1
}

CLIENT_KT=$DIR/client.keytab
SERVICE_KT=$DIR/service.keytab
TARGET=gk5@localhost
MECH_OID=1.3.6.1.4.1.32473.4121.1
ENCTYPES="aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96 aes256-cts-hmac-sha384-192 aes128-cts-hmac-sha256-128 camellia256-cts-cmac camellia128-cts-cmac"
CCOUNT=2
MCOUNT=3
MSG="gk5 interposer: MIT sample message"
# Per command; a cell that hangs fails instead of stalling the suite.
T=${GK5_SAMPLES_TIMEOUT:-60}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-samples.XXXXXX") || exit 1
MECH_CONF=$WORK/mech.conf
echo "gk5_mech $MECH_OID $SO <interposer>" >"$MECH_CONF"
# The same module accepting natively (gk5's own acceptor behind MIT's
# gss_accept_sec_context): the option on its config line.
MECH_CONF_NATIVE=$WORK/mech-native.conf
echo "gk5_mech $MECH_OID $SO [accept=native] <interposer>" >"$MECH_CONF_NATIVE"

SERVER_PIDS=()
N=0
FAILED=0

# Is process $1 running (a zombie is not)?
alive() {
    kill -0 "$1" 2>/dev/null &&
        [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Stop server $1 (a PID this script started) with SIGTERM, then KILL after
# 5 s; its exit status in STOP_RC (137 when it had to be killed).
stop_pid() {
    local pid=$1 i
    STOP_RC=0
    [ -n "$pid" ] || return 0
    if alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null
        for ((i = 0; i < 500; i++)); do
            alive "$pid" || break
            sleep 0.01
        done
        if alive "$pid"; then
            kill -KILL "$pid" 2>/dev/null
        fi
    fi
    wait "$pid" 2>/dev/null
    STOP_RC=$?
}

cleanup() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        stop_pid "$pid"
    done
    SERVER_PIDS=()
    rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- TAP ----

# meson prints a TAP test's stderr, not its stdout, when it fails: a
# failed cell and its diagnostics go to both, so that the CI log says why.
# (Written twice rather than through tee /dev/stderr, which reopens
# stderr and truncates it when that is a file.)
FAILING=0

diag() {
    local text
    text=$(sed 's/^/# /')
    [ -n "$text" ] || return 0
    echo "$text"
    [ $FAILING = 0 ] || echo "$text" >&2
}

note() {
    echo "# $*"
    [ $FAILING = 0 ] || echo "# $*" >&2
}

ok() {
    N=$((N + 1))
    FAILING=0
    echo "ok $N - $1"
}

not_ok() {
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    FAILING=1
    echo "not ok $N - $1"
    echo "not ok $N - $1" >&2
}

skip() {
    N=$((N + 1))
    FAILING=0
    echo "ok $N - $1 # SKIP $2"
}

# ---- one exchange ----

# A KRB5_CONFIG in front of the realm's that makes MIT's initiator ask for
# one enctype only: TGT, service ticket (MIT wants the TGT's session key
# among default_tgs_enctypes too) and, through permitted_enctypes, the
# list it offers for the acceptor's subkey (RFC 4537), so that the context
# keeps that enctype.
enctype_profile() {
    local e=$1 f=$WORK/krb5-$1.conf
    printf '[libdefaults]\n    default_tkt_enctypes = %s\n    default_tgs_enctypes = %s\n    permitted_enctypes = %s\n' \
        "$e" "$e" "$e" >"$f"
    echo "$f:$KRB5_CONFIG"
}

# side_env SIDE TRACE: the env(1) command line for one side in SIDE_ENV;
# gk5: the interposer, nat: the interposer accepting natively, mit: MIT
# alone (and GK5_TRACE nevertheless, which nothing may write).
side_env() {
    if [ "$1" = gk5 ]; then
        SIDE_ENV=(env "GSS_MECH_CONFIG=$MECH_CONF" "GK5_TRACE=$2")
    elif [ "$1" = nat ]; then
        SIDE_ENV=(env "GSS_MECH_CONFIG=$MECH_CONF_NATIVE" "GK5_TRACE=$2")
    else
        SIDE_ENV=(env -u GSS_MECH_CONFIG "GK5_TRACE=$2")
    fi
}

# run_samples CELLDIR ENCTYPE SERVER_SIDE CLIENT_SIDE SERVER_OPTS CLIENT_OPTS
#   Start inetd127 + gss-server, run gss-client once, wait for every
#   gss-server it started to exit, stop inetd127.  Everything lands in
#   CELLDIR: inetd.out (the children's exit statuses), server.log,
#   client.out, client.rc, server.trace, client.trace, stop.rc, klist.out.
#   Returns 1 (the reason in WHY) when the server did not start.
run_samples() {
    local c=$1 e=$2 sside=$3 cside=$4 sopts=$5 copts=$6 pid port i
    local started ended rc
    mkdir -p "$c"
    WHY=""
    side_env "$sside" "$c/server.trace"
    # shellcheck disable=SC2086 # sopts/copts: words on purpose
    timeout -k 5 "$T" "${SIDE_ENV[@]}" "$INETD127" --port 0 -- \
        "$GSS_SERVER" -inetd -keytab "$SERVICE_KT" -logfile "$c/server.log" \
        $sopts $TARGET >"$c/inetd.out" 2>"$c/inetd.err" </dev/null &
    pid=$!
    SERVER_PIDS+=("$pid")
    port=""
    for ((i = 0; i < 1000; i++)); do
        port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' \
            "$c/inetd.out" | head -n 1)
        [ -n "$port" ] && break
        alive "$pid" || break
        sleep 0.01
    done
    if [ -z "$port" ]; then
        stop_pid "$pid"
        WHY="inetd127 did not print its port: $(tail -n 3 "$c/inetd.err")"
        return 1
    fi

    side_env "$cside" "$c/client.trace"
    # shellcheck disable=SC2086
    timeout -k 5 "$T" "${SIDE_ENV[@]}" \
        KRB5_CONFIG="$(enctype_profile "$e")" \
        KRB5_CLIENT_KTNAME="$CLIENT_KT" KRB5CCNAME="FILE:$c/ccache" \
        "$GSS_CLIENT" -port "$port" -ccount $CCOUNT -mcount $MCOUNT $copts \
        127.0.0.1 $TARGET "$MSG" >"$c/client.out" 2>&1 </dev/null
    rc=$?
    echo $rc >"$c/client.rc"

    # gss-server deletes its context after the client has gone: its trace
    # line comes last.  Wait (10 s at most) until every child has exited.
    for ((i = 0; i < 1000; i++)); do
        started=$(grep -c ' started$' "$c/inetd.out")
        ended=$(grep -cE ' (exited with status|killed by signal) ' "$c/inetd.out")
        [ "$started" = "$ended" ] && break
        sleep 0.01
    done
    stop_pid "$pid"
    echo "$STOP_RC" >"$c/stop.rc"
    if [ -n "$KLIST" ]; then
        timeout -k 5 "$T" "$KLIST" -e -c "FILE:$c/ccache" >"$c/klist.out" 2>&1
    fi
    return 0
}

# ---- checks: each adds to PROBLEMS ----

PROBLEMS=()
problem() {
    PROBLEMS+=("$*")
}

# The programs themselves: client exit status and MICs, every server child
# exit status and message, inetd127's exit on SIGTERM.
check_programs() {
    local c=$1 want=$((CCOUNT * MCOUNT)) rc n bad
    rc=$(cat "$c/client.rc")
    case $rc in
        0) ;;
        124 | 137) problem "gss-client timed out after $T s" ;;
        *) problem "gss-client exited with status $rc" ;;
    esac
    n=$(grep -c '^Signature verified\.$' "$c/client.out")
    [ "$n" = $want ] || problem "gss-client verified $n MICs, not $want"
    n=$(grep -c ' exited with status 0$' "$c/inetd.out")
    bad=$(grep -E ' (exited with status [1-9]|killed by signal)' "$c/inetd.out" |
        tr '\n' ';')
    if [ "$n" != $CCOUNT ] || [ -n "$bad" ]; then
        problem "gss-server: $n of $CCOUNT connections ended with status 0 $bad"
    fi
    n=$(grep -cF "Received message: \"$MSG\"" "$c/server.log" 2>/dev/null)
    [ "$n" = $want ] || problem "gss-server received $n messages, not $want"
    [ "$(cat "$c/stop.rc")" = 0 ] ||
        problem "inetd127 exited with status $(cat "$c/stop.rc") on SIGTERM"
}

# The service ticket's session key: the enctype the context was made with.
check_enctype() {
    local c=$1 e=$2
    [ -n "$KLIST" ] || return 0
    grep -A1 'gk5/localhost@' "$c/klist.out" |
        grep -Eq "Etype \(skey, tkt\): (DEPRECATED:)?$e," ||
        problem "the service ticket's session key is not $e (klist -e)"
}

# check_trace FILE ROLE ENCTYPE: served by gk5, counts exact.
#   gss-client (initiator) wraps and verifies MCOUNT MICs per context;
#   gss-server (acceptor) unwraps and makes MCOUNT MICs.
check_trace() {
    local f=$1 role=$2 e=$3 side n counts w u g v want
    side=server
    [ "$role" = initiator ] && side=client
    if [ ! -s "$f" ]; then
        problem "$side trace is empty: the mechglue did not load $SO"
        return
    fi
    # The module's lines, and libgk5's own (GK5_TRACE is one switch for
    # both: "[PID] SECONDS.MICROS: gk5: ...").
    n=$(grep -cvE '^\[[0-9]+\] (gk5_mech: |[0-9]+\.[0-9]{6}: gk5: )' "$f")
    [ "$n" = 0 ] || problem "$side trace: $n lines without the '[PID] gk5_mech: ' or '[PID] TIME: gk5: ' prefix"
    grep -q 'gk5_mech: loaded (gk5 .*), interposing krb5$' "$f" ||
        problem "$side trace: no 'loaded (gk5 ...)' line"
    n=$(grep -cE "gk5_mech: context 0x[0-9a-f]+ served by gk5: $e \([0-9]+\), $role, flags 0x[0-9a-f]+$" "$f")
    [ "$n" = $CCOUNT ] ||
        problem "$side trace: $n of $CCOUNT contexts 'served by gk5: $e (N), $role'"
    n=$(grep -c 'stays with MIT' "$f")
    [ "$n" = 0 ] || problem "$side trace: $n contexts stay with MIT"
    counts=$(sed -n 's/.*gk5_mech: context 0x[0-9a-f]* deleted; gk5 served wrap \([0-9]*\), unwrap \([0-9]*\), get_mic \([0-9]*\), verify_mic \([0-9]*\), wrap_iov [0-9]*, unwrap_iov [0-9]*, get_mic_iov [0-9]*, verify_mic_iov [0-9]*$/\1 \2 \3 \4/p' "$f")
    n=0
    while read -r w u g v; do
        [ -n "$w" ] || continue
        if [ "$role" = initiator ]; then
            want="$MCOUNT 0 0 $MCOUNT"
        else
            want="0 $MCOUNT $MCOUNT 0"
        fi
        if [ "$w $u $g $v" = "$want" ]; then
            n=$((n + 1))
        else
            problem "$side trace: a context counted wrap $w, unwrap $u, get_mic $g, verify_mic $v; want $want"
        fi
    done <<<"$counts"
    [ "$n" = $CCOUNT ] ||
        problem "$side trace: $n of $CCOUNT 'deleted; gk5 served ...' lines with the expected counts"
}

# check_trace_native FILE ENCTYPE: a server accepting natively: every
# context accepted by gk5's own acceptor with that enctype (none by MIT),
# and its per-message counts exact.
check_trace_native() {
    local f=$1 e=$2 n counts w u g v
    if [ ! -s "$f" ]; then
        problem "server trace is empty: the mechglue did not load $SO"
        return
    fi
    grep -q 'gk5_mech: accept: native (config line of ' "$f" ||
        problem "server trace: the module did not read [accept=native]"
    # MIT's KDC puts a PAC in every ticket: gk5 must verify it (the
    # initiator's name then carries it, as MIT's acceptor's would).
    n=$(grep -cE "gk5_mech: context 0x[0-9a-f]+ accepted natively: gk5-client@GK5\.TEST for gk5/localhost@GK5\.TEST, $e \([0-9]+\), flags 0x[0-9a-f]+, PAC verified$" "$f")
    [ "$n" = $CCOUNT ] ||
        problem "server trace: $n of $CCOUNT contexts 'accepted natively: ... $e (...), flags ..., PAC verified'"
    n=$(grep -cE 'accept by MIT|stays with MIT|served by gk5' "$f")
    [ "$n" = 0 ] || problem "server trace: $n lines of contexts not accepted natively"
    counts=$(sed -n 's/.*gk5_mech: context 0x[0-9a-f]* deleted; gk5 served wrap \([0-9]*\), unwrap \([0-9]*\), get_mic \([0-9]*\), verify_mic \([0-9]*\), .*$/\1 \2 \3 \4/p' "$f")
    n=0
    while read -r w u g v; do
        [ -n "$w" ] || continue
        if [ "$w $u $g $v" = "0 $MCOUNT $MCOUNT 0" ]; then
            n=$((n + 1))
        else
            problem "server trace: a native context counted wrap $w, unwrap $u, get_mic $g, verify_mic $v"
        fi
    done <<<"$counts"
    [ "$n" = $CCOUNT ] ||
        problem "server trace: $n of $CCOUNT native contexts deleted with the expected counts"
}

# The side without the interposer: GK5_TRACE set, nothing written.
check_no_trace() {
    local f=$1 side=$2
    if [ -s "$f" ]; then
        problem "$side (no interposer) wrote $(wc -l <"$f") trace lines"
    fi
}

# gss-client's output and gss-server's log must be the control's, but for
# the numbers that vary from run to run: the AP-REQ's size (its DER
# lengths follow the authenticator's time and sequence number) and the
# lifetime left.
normalize_client() {
    sed -E 's/size=[0-9]+/size=N/; s/lifetime [0-9]+/lifetime N/' "$1"
}

check_same_as_control() {
    local c=$1 control=$2
    [ -d "$control" ] || return 0
    cmp -s <(normalize_client "$c/client.out") \
        <(normalize_client "$control/client.out") ||
        problem "gss-client's output differs from the control's (MIT on both sides)"
    cmp -s "$c/server.log" "$control/server.log" ||
        problem "gss-server's log differs from the control's (MIT on both sides)"
}

# verdict DESC CELLDIR: ok, or not ok with every problem and the evidence.
verdict() {
    local desc=$1 c=$2 p f
    if [ ${#PROBLEMS[@]} = 0 ]; then
        ok "$desc"
        return 0
    fi
    not_ok "$desc"
    for p in "${PROBLEMS[@]}"; do
        note "$p"
    done
    for f in client.out server.log inetd.out inetd.err client.trace server.trace; do
        if [ -s "$c/$f" ]; then
            note "--- $f"
            grep -v '^  [0-9]*: {' "$c/$f" | tail -n 12 | diag
        fi
    done
    return 1
}

# The trace lines worth reading in a passing log: enctype and counts.
summary() {
    local c=$1 f
    for f in client.trace server.trace; do
        [ -s "$c/$f" ] || continue
        grep -E 'served by|stays with|deleted|refused|natively|accept by' "$c/$f" |
            sed -E 's/(natively: ).* for [^,]*, /\1/' |
            sed -E "s/^\[[0-9]+\] gk5_mech: context 0x[0-9a-f]+/${f%.trace}:/" |
            sort | uniq -c | sed 's/^ *//' | diag
    done
}

# ---- the cells ----

side_words() { # SERVER_SIDE CLIENT_SIDE: how a cell names them
    case $1$2 in
        gk5mit) echo "interposer on the server only" ;;
        mitgk5) echo "interposer on the client only" ;;
        gk5gk5) echo "interposer on both sides" ;;
        natmit) echo "server accepting natively ([accept=native]), MIT client" ;;
        natgk5) echo "server accepting natively ([accept=native]), interposer on the client" ;;
        mitmit) echo "MIT on both sides (control)" ;;
    esac
}

note "realm $DIR; module $SO"
note "gss-client -ccount $CCOUNT -mcount $MCOUNT: each cell makes $CCOUNT contexts, $((CCOUNT * MCOUNT)) wraps and MICs"
T_START=$(date +%s)
CELL=0

for e in $ENCTYPES; do
    control=""
    for sides in "mit mit" "gk5 mit" "mit gk5" "gk5 gk5" "gk5 gk5 -nx" \
        "nat mit" "nat gk5"; do
        read -r sside cside copts <<<"$sides"
        desc="$e: $(side_words "$sside" "$cside")"
        [ -n "$copts" ] && desc="$desc, gss-client $copts (wrap without confidentiality)"
        if [ -n "$control" ] && [ "$control" = skip ]; then
            skip "$desc" "$SKIP_WHY"
            continue
        fi
        CELL=$((CELL + 1))
        c=$WORK/cell-$CELL
        PROBLEMS=()
        if ! run_samples "$c" "$e" "$sside" "$cside" "" "$copts"; then
            problem "$WHY"
            verdict "$desc" "$c"
            continue
        fi
        # The control first: a KDC that does not issue the enctype skips it.
        if [ -z "$control" ] && [ "$(cat "$c/client.rc")" != 0 ] &&
            grep -q 'KDC has no support for encryption type' "$c/client.out"; then
            control=skip
            SKIP_WHY="the KDC does not issue $e session keys"
            skip "$desc" "$SKIP_WHY"
            continue
        fi
        check_programs "$c"
        check_enctype "$c" "$e"
        if [ "$sside" = gk5 ]; then
            check_trace "$c/server.trace" acceptor "$e"
        elif [ "$sside" = nat ]; then
            check_trace_native "$c/server.trace" "$e"
        else
            check_no_trace "$c/server.trace" server
        fi
        if [ "$cside" = gk5 ]; then
            check_trace "$c/client.trace" initiator "$e"
        else
            check_no_trace "$c/client.trace" client
        fi
        if [ -z "$control" ]; then
            control=$c
        elif [ -z "$copts" ]; then
            check_same_as_control "$c" "$control"
        fi
        verdict "$desc" "$c" && summary "$c"
    done
done

# gss-server -export: export the accepted context and import it again
# (three times) before the messages.  The re-imported context may be
# served by gk5 or left to MIT: the programs must work either way; an
# interposed client must still be served by gk5.
for sides in "aes256-cts-hmac-sha1-96 gk5 mit" \
    "aes256-cts-hmac-sha384-192 gk5 mit" \
    "aes128-cts-hmac-sha256-128 gk5 gk5"; do
    read -r e sside cside <<<"$sides"
    desc="$e: gss-server -export (context exported and re-imported), $(side_words "$sside" "$cside")"
    CELL=$((CELL + 1))
    c=$WORK/cell-$CELL
    PROBLEMS=()
    if ! run_samples "$c" "$e" "$sside" "$cside" -export ""; then
        problem "$WHY"
        verdict "$desc" "$c"
        continue
    fi
    check_programs "$c"
    check_enctype "$c" "$e"
    if [ ! -s "$c/server.trace" ] ||
        ! grep -q 'gk5_mech: loaded (gk5 ' "$c/server.trace"; then
        problem "server trace: no 'loaded (gk5 ...)' line: the mechglue did not load $SO"
    fi
    if [ "$cside" = gk5 ]; then
        check_trace "$c/client.trace" initiator "$e"
    else
        check_no_trace "$c/client.trace" client
    fi
    if verdict "$desc" "$c"; then
        summary "$c"
        if grep -qE 'deleted; gk5 served wrap [0-9]+, unwrap [1-9]' "$c/server.trace"; then
            note "the re-imported contexts' messages: served by gk5"
        else
            note "the re-imported contexts' messages: served by MIT (no gk5 counts in the server trace)"
        fi
    fi
done

# rc4-hmac (RFC 4757): not gk5's; the interposer must leave such a context
# to MIT, on both sides, and the exchange must still work.
e=arcfour-hmac
desc="$e: interposer on both sides: the contexts stay with MIT and work"
CELL=$((CELL + 1))
c=$WORK/cell-$CELL
PROBLEMS=()
if run_samples "$c" "$e" gk5 gk5 "" ""; then
    check_programs "$c"
    check_enctype "$c" "$e"
    for side in server client; do
        f=$c/$side.trace
        if [ ! -s "$f" ]; then
            problem "$side trace is empty: the mechglue did not load $SO"
            continue
        fi
        n=$(grep -cE 'gk5_mech: context 0x[0-9a-f]+ (\(enctype [0-9]+\) )?stays with MIT: ' "$f")
        [ "$n" = $CCOUNT ] ||
            problem "$side trace: $n of $CCOUNT contexts 'stays with MIT'"
        n=$(grep -c 'served by gk5' "$f")
        [ "$n" = 0 ] || problem "$side trace: $n rc4 contexts served by gk5"
    done
else
    problem "$WHY"
fi
if verdict "$desc" "$c"; then
    summary "$c"
fi

# rc4-hmac with a server accepting natively: gk5 cannot serve the ticket;
# MIT's acceptor takes the same token, as without the option.
desc="$e: server accepting natively ([accept=native]): the contexts go to MIT's acceptor and work"
CELL=$((CELL + 1))
c=$WORK/cell-$CELL
PROBLEMS=()
if run_samples "$c" "$e" nat mit "" ""; then
    check_programs "$c"
    check_enctype "$c" "$e"
    f=$c/server.trace
    n=$(grep -cE 'gk5_mech: context 0x[0-9a-f]+: accept by MIT \(gk5 cannot serve: .*rc4-hmac' "$f")
    [ "$n" = $CCOUNT ] ||
        problem "server trace: $n of $CCOUNT contexts 'accept by MIT (gk5 cannot serve: ... rc4-hmac'"
    n=$(grep -c 'accepted natively' "$f")
    [ "$n" = 0 ] || problem "server trace: $n rc4 contexts accepted natively"
else
    problem "$WHY"
fi
if verdict "$desc" "$c"; then
    summary "$c"
fi

# ---- end ----

note "$N cells, $FAILED failed, $(($(date +%s) - T_START)) s"
echo "1..$N"
[ $FAILED = 0 ]
