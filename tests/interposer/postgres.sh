#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# PostgreSQL 15 with GSS encryption through the gk5_mech interposer (meson
# suite 'interposer'): TAP.
#
#   gk5 realm run --tap -- postgres.sh BUILD_DIR_OR_GK5_MECH_SO
#
# Run inside the throwaway realm of `gk5 realm run` (GK5_REALM_DIR,
# KRB5_CONFIG).  The service principal postgres/localhost is added to the
# realm (kadmin.local) with a keytab of its own; initdb makes a cluster in
# a temporary folder, whose superuser is gk5-client (the realm's client,
# include_realm=0), and pg_hba.conf lets in only GSS-encrypted connections
# from 127.0.0.1 (hostgssenc ... gss).  The server (postgres, run as the
# postgres user when this runs as root: PostgreSQL refuses root) listens on
# 127.0.0.1 on a free high port with krb_server_keyfile; psql connects
# with gssencmode=require and a ccache made from the client keytab.
#   For the server with MIT alone, then with GSS_MECH_CONFIG naming
#   gk5_mech.so, and psql with MIT alone and with the module against each:
#     the connection is GSS-authenticated and encrypted as gk5-client
#     (pg_stat_gssapi), and a COPY ... TO STDOUT of about 5 MB gives the
#     same bytes as the first cell (and the rows it must have)
#   A psql without GSS encryption is refused (no pg_hba.conf entry).
#   GK5_TRACE: empty on every side without the module; with it, the
#   server's backends serve the acceptor contexts (gss_wrap of the COPY's
#   data) and psql the initiator's (gss_unwrap).
#
#   postgres.sh --bench MB ROUNDS BUILD_DIR_OR_GK5_MECH_SO
# times instead (bench/programs_bench.sh): a table of about MB megabytes
# made once, then COPY t TO STDOUT into /dev/null ROUNDS times with MIT
# alone on both ends, and ROUNDS times with the module on both ends (the
# server's trace must show gk5 serving); prints "postgres MIT_MBPS
# GK5_MBPS", the best round of each, MB = 10^6 bytes of COPY output.
#
# Without PostgreSQL 15's programs, psql, kadmin.local or (as root) the
# postgres user: SKIP and why (with --bench: the reason on stderr, exit
# status 77).  Each server is recorded by PID and stopped
# by that PID on every exit path; every command runs under timeout(1).
set -u

USAGE="usage: postgres.sh [--bench MB ROUNDS] BUILD_DIR_OR_GK5_MECH_SO"
BENCH_MB=""
if [ "${1:-}" = --bench ]; then
    BENCH_MB=${2:-}
    BENCH_ROUNDS=${3:-}
    if ! [[ $BENCH_MB =~ ^[1-9][0-9]{0,3}$ ]] || ! [[ $BENCH_ROUNDS =~ ^[1-9][0-9]?$ ]]; then
        echo "postgres.sh: --bench wants MB 1..9999 and ROUNDS 1..99" >&2
        exit 2
    fi
    shift 3
fi
SO_ARG=${1:?$USAGE}
skip_all() {
    if [ -n "$BENCH_MB" ]; then
        echo "postgres.sh: $1" >&2
        exit 77
    fi
    echo "1..0 # SKIP $1"
    exit 0
}
DIR=${GK5_REALM_DIR:?run through gk5 realm run --tap}
: "${KRB5_CONFIG:?run through gk5 realm run --tap}"
T=${GK5_POSTGRES_TIMEOUT:-60}
REALM=GK5.TEST
CLIENT=gk5-client
ROWS=80000

PGBIN=${GK5_PGBIN:-/usr/lib/postgresql/15/bin}
for p in initdb postgres; do
    if [ ! -x "$PGBIN/$p" ]; then
        skip_all "$PGBIN/$p not found (apt-get install postgresql-15)"
    fi
done
PSQL=$PGBIN/psql
[ -x "$PSQL" ] || PSQL=$(command -v psql)
KADMIN=$(command -v kadmin.local || echo /usr/sbin/kadmin.local)
KINIT=$(command -v kinit)
if [ -z "$PSQL" ] || [ ! -x "$KADMIN" ] || [ -z "$KINIT" ]; then
    skip_all "psql, kadmin.local or kinit not found (postgresql-client-15, krb5-admin-server, krb5-user)"
fi
# PostgreSQL refuses to run as root: as root, the server runs as postgres.
AS_PG=()
if [ "$(id -u)" = 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
        skip_all "running as root and there is no postgres user to run the server as"
    fi
    AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups)
fi

if [ -d "$SO_ARG" ]; then
    SO_ARG=$SO_ARG/src/interposer/gk5_mech.so
fi
SO=$(realpath -e -- "$SO_ARG" 2>/dev/null)
if [ -z "$SO" ] || [ ! -f "$SO" ]; then
    echo "Bail out! gk5_mech.so not found: $SO_ARG"
    echo "postgres.sh: gk5_mech.so not found: $SO_ARG" >&2
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gk5-postgres.XXXXXX") || exit 1
# The server's user reads the config, keytab and module config here, and
# writes its cluster, socket and trace under $PG.
chmod 755 "$WORK"
PG=$WORK/pg
mkdir "$PG" "$WORK/client"
SERVER_PID=""

alive() {
    kill -0 "$1" 2>/dev/null &&
        [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Stop the server (a PID this script started): SIGINT, PostgreSQL's fast
# shutdown, then SIGKILL after 10 s.
stop_server() {
    local pid=$SERVER_PID i
    SERVER_PID=""
    [ -n "$pid" ] || return 0
    if alive "$pid"; then
        kill -INT "$pid" 2>/dev/null
        for ((i = 0; i < 1000; i++)); do
            alive "$pid" || break
            sleep 0.01
        done
        alive "$pid" && kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
}

cleanup() {
    stop_server
    rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

N=0
FAILED=0
ok() {
    N=$((N + 1))
    echo "ok $N - $1"
}
# A failed line and its diagnostics (its stdin) go to stdout and stderr:
# meson shows a failed TAP test's stderr.
not_ok() {
    local text
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    echo "not ok $N - $1"
    echo "not ok $N - $1" >&2
    text=$(sed 's/^/# /')
    echo "$text"
    echo "$text" >&2
}
bail() {
    echo "Bail out! $1"
    echo "postgres.sh: $1" >&2
    [ -z "${2:-}" ] || sed 's/^/# /' "$2" >&2
    exit 1
}

# ---- the realm: postgres/localhost, a krb5.conf the server can read ----
cp "$KRB5_CONFIG" "$WORK/krb5.conf" && chmod 644 "$WORK/krb5.conf"
for q in "addprinc -randkey postgres/localhost" \
    "ktadd -k $PG/postgres.keytab -norandkey postgres/localhost"; do
    timeout -k 5 "$T" env KRB5_KDC_PROFILE="$DIR/kdc.conf" "$KADMIN" -r "$REALM" \
        -d "$DIR/principal" -q "$q" >>"$WORK/kadmin.log" 2>&1 ||
        bail "kadmin.local $q failed" "$WORK/kadmin.log"
done
timeout -k 5 "$T" "$KINIT" -k -t "$DIR/client.keytab" -c "FILE:$WORK/client/ccache" \
    "$CLIENT@$REALM" >"$WORK/kinit.log" 2>&1 || bail "kinit -k $CLIENT failed" "$WORK/kinit.log"
echo "gk5_mech 1.3.6.1.4.1.32473.4121.1 $SO <interposer>" >"$WORK/mech.conf"
chmod 644 "$WORK/mech.conf"
[ ${#AS_PG[@]} = 0 ] || chown -R postgres:postgres "$PG"

# ---- the cluster ----
PGENV=(env -i PATH=/usr/bin:/bin HOME="$PG" LC_ALL=C KRB5_CONFIG="$WORK/krb5.conf")
timeout -k 5 "$T" "${AS_PG[@]}" "${PGENV[@]}" "$PGBIN/initdb" -D "$PG/data" -U "$CLIENT" \
    -A reject --locale=C -E UTF8 --no-sync >"$WORK/initdb.log" 2>&1 ||
    bail "initdb failed" "$WORK/initdb.log"
cat >"$WORK/pg_hba.conf" <<EOF
hostgssenc all all 127.0.0.1/32 gss include_realm=0
EOF
chmod 644 "$WORK/pg_hba.conf"

# start_server MODE: postgres as its user, on a free high port (5 tries);
# PORT and SERVER_PID set, 0 when it accepts connections.
start_server() {
    local mode=$1 try i envs log
    envs=("${PGENV[@]}" GK5_TRACE="$PG/server-$mode.trace")
    [ "$mode" = gk5 ] && envs+=(GSS_MECH_CONFIG="$WORK/mech.conf")
    for ((try = 0; try < 5; try++)); do
        PORT=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        log=$WORK/server-$mode-$try.log
        "${AS_PG[@]}" "${envs[@]}" "$PGBIN/postgres" -D "$PG/data" -p "$PORT" \
            -c listen_addresses=127.0.0.1 -c unix_socket_directories="$PG" \
            -c hba_file="$WORK/pg_hba.conf" \
            -c krb_server_keyfile="FILE:$PG/postgres.keytab" \
            -c fsync=off -c logging_collector=off </dev/null >"$log" 2>&1 &
        SERVER_PID=$!
        for ((i = 0; i < 300; i++)); do
            grep -q 'ready to accept connections' "$log" && return 0
            alive "$SERVER_PID" || break
            sleep 0.05
        done
        if grep -q 'could not bind' "$log"; then
            stop_server
            continue
        fi
        stop_server
        sed 's/^/# /' "$log"
        return 1
    done
    return 1
}

# psql_run NAME MODE SQL [GSSENCMODE [OUT]]: psql against the server as
# gk5-client, MIT alone or with the module (MODE), GSS encryption
# required unless GSSENCMODE; its stdout (in OUT if given), stderr and
# status in $WORK/client/NAME.{out,err,rc}.
psql_run() {
    local name=$1 mode=$2 sql=$3 gssenc=${4:-require} out=${5:-$WORK/client/$1.out}
    local envs=(env -u GSS_MECH_CONFIG)
    [ "$mode" = gk5 ] && envs=(env GSS_MECH_CONFIG="$WORK/mech.conf")
    timeout -k 5 "$T" env -u PGHOST -u PGHOSTADDR -u PGPORT -u PGUSER \
        -u PGDATABASE -u PGGSSENCMODE -u PGSSLMODE -u PGSERVICE "${envs[@]}" \
        GK5_TRACE="$WORK/client/$name.trace" KRB5CCNAME="FILE:$WORK/client/ccache" \
        "$PSQL" -X -A -t -q \
        "host=localhost hostaddr=127.0.0.1 port=$PORT dbname=postgres user=$CLIENT gssencmode=$gssenc sslmode=disable connect_timeout=10" \
        -c "$sql" >"$out" 2>"$WORK/client/$name.err" </dev/null
    echo $? >"$WORK/client/$name.rc"
}

COPY_SQL="COPY (SELECT g, md5(g::text), repeat('gk5', 8) FROM generate_series(1, $ROWS) g) TO STDOUT"
WHO_SQL="SELECT gss_authenticated, encrypted, principal FROM pg_stat_gssapi WHERE pid = pg_backend_pid()"
REF=""

traced() { [ -s "$1" ]; }

# ---- --bench ----
# now: seconds since the epoch, to the nanosecond.
now() { date +%s.%N; }
# best A B: the larger of two numbers (an empty A is none yet).
best() {
    awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }'
}
if [ -n "$BENCH_MB" ]; then
    # About 64 bytes a row in COPY's text.
    brows=$((BENCH_MB * 1000000 / 64))
    BEST_mit="" BEST_gk5=""
    for smode in mit gk5; do
        start_server "$smode" >"$WORK/start.diag" ||
            bail "the server ($smode) did not start" "$WORK/start.diag"
        if [ "$smode" = mit ]; then
            psql_run table mit "CREATE TABLE t AS SELECT g, md5(g::text) AS h, repeat('gk5', 6) AS f FROM generate_series(1, $brows) g"
            [ "$(cat "$WORK/client/table.rc")" = 0 ] ||
                bail "CREATE TABLE failed" "$WORK/client/table.err"
        fi
        # Once into a file (the byte count; warms the table), then timed.
        psql_run warm-$smode "$smode" "COPY t TO STDOUT"
        [ "$(cat "$WORK/client/warm-$smode.rc")" = 0 ] ||
            bail "COPY ($smode) failed" "$WORK/client/warm-$smode.err"
        bytes=$(wc -c <"$WORK/client/warm-$smode.out")
        rm -f "$WORK/client/warm-$smode.out"
        for ((r = 0; r < BENCH_ROUNDS; r++)); do
            t0=$(now)
            psql_run timed "$smode" "COPY t TO STDOUT" require /dev/null
            t1=$(now)
            [ "$(cat "$WORK/client/timed.rc")" = 0 ] ||
                bail "COPY ($smode) failed" "$WORK/client/timed.err"
            mbps=$(awk -v b="$bytes" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.1f", b / (z - a) / 1e6 }')
            if [ "$smode" = mit ]; then
                BEST_mit=$(best "$BEST_mit" "$mbps")
            else
                BEST_gk5=$(best "$BEST_gk5" "$mbps")
            fi
        done
        stop_server
    done
    if [ "$(grep -cE 'served by gk5: .*, acceptor,' "$PG/server-gk5.trace" 2>/dev/null)" = 0 ] ||
        ! grep -qE 'served by gk5: .*, initiator,' "$WORK/client/timed.trace" 2>/dev/null; then
        bail "gk5 did not serve the contexts (no 'served by gk5' in the traces)"
    fi
    echo "postgres $BEST_mit $BEST_gk5 $bytes"
    exit 0
fi

echo "1..6"
for smode in mit gk5; do
    if ! start_server "$smode" >"$WORK/start.diag"; then
        not_ok "server ($smode): started" <"$WORK/start.diag"
        continue
    fi
    for cmode in mit gk5; do
        cell="server $smode, psql $cmode"
        name=$smode-$cmode
        psql_run "$name-who" "$cmode" "$WHO_SQL"
        psql_run "$name-copy" "$cmode" "$COPY_SQL"
        why=""
        who=$(cat "$WORK/client/$name-who.out")
        rows=$(wc -l <"$WORK/client/$name-copy.out")
        sum=$(sha256sum <"$WORK/client/$name-copy.out" | cut -d' ' -f1)
        if [ "$(cat "$WORK/client/$name-who.rc")" != 0 ] ||
            [ "$(cat "$WORK/client/$name-copy.rc")" != 0 ]; then
            why="psql failed"
        elif [ "$who" != "t|t|$CLIENT@$REALM" ]; then
            why="pg_stat_gssapi says '$who', not t|t|$CLIENT@$REALM"
        elif [ "$rows" != $ROWS ]; then
            why="COPY gave $rows rows, not $ROWS"
        elif [ -n "$REF" ] && [ "$sum" != "$REF" ]; then
            why="COPY gave other bytes than server mit, psql mit"
        elif [ "$cmode" = mit ] && traced "$WORK/client/$name-copy.trace"; then
            why="psql without the module wrote a gk5 trace"
        elif [ "$cmode" = gk5 ] &&
            ! grep -qE 'served by gk5: .*, initiator,' "$WORK/client/$name-copy.trace" 2>/dev/null; then
            why="psql's trace does not show gk5 serving its context"
        elif [ "$cmode" = gk5 ] &&
            ! grep -qF 'gk5 serves gss_unwrap' "$WORK/client/$name-copy.trace"; then
            why="psql's trace does not show gk5 serving gss_unwrap"
        fi
        [ -n "$REF" ] || REF=$sum
        if [ -z "$why" ]; then
            ok "$cell: GSS-encrypted as $CLIENT@$REALM, COPY of $(wc -c <"$WORK/client/$name-copy.out") bytes the same"
        else
            {
                echo "$why"
                cat "$WORK/client/$name-who.err" "$WORK/client/$name-copy.err"
                head -n 20 "$WORK/client/$name-copy.trace" 2>/dev/null
            } >"$WORK/diag"
            not_ok "$cell" <"$WORK/diag"
        fi
    done
    if [ "$smode" = gk5 ]; then
        # A psql that does not ask for GSS encryption: no pg_hba.conf entry.
        psql_run nogss mit "SELECT 1" disable
        if [ "$(cat "$WORK/client/nogss.rc")" != 0 ] &&
            grep -q 'no pg_hba.conf entry' "$WORK/client/nogss.err"; then
            ok "psql without GSS encryption refused: $(grep -o 'no pg_hba.conf entry[^,]*' "$WORK/client/nogss.err" | head -n 1)"
        else
            not_ok "psql without GSS encryption refused" \
                < <(cat "$WORK/client/nogss.out" "$WORK/client/nogss.err")
        fi
    fi
    stop_server
done

# The servers' traces: none without the module; with it, the backends'
# acceptor contexts served by gk5, and the COPY's data wrapped by gk5.
why=""
if traced "$PG/server-mit.trace"; then
    why="the server without the module wrote a gk5 trace"
elif [ "$(grep -cE 'served by gk5: .*, acceptor,' "$PG/server-gk5.trace" 2>/dev/null)" != 4 ]; then
    why="the server's trace does not show gk5 serving its 4 contexts (2 psql, 2 connections each)"
elif ! grep -qF 'gk5 serves gss_wrap' "$PG/server-gk5.trace"; then
    why="the server's trace does not show gk5 serving gss_wrap"
fi
if [ -z "$why" ]; then
    ok "GK5_TRACE: the server's 4 contexts served by gk5, none traced without the module"
else
    {
        echo "$why"
        head -n 20 "$PG/server-gk5.trace" "$PG/server-mit.trace" 2>/dev/null
    } >"$WORK/diag"
    not_ok "GK5_TRACE: the server's contexts served by gk5" <"$WORK/diag"
fi

[ $FAILED = 0 ]
