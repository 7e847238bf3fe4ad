#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests (issue 17): a temporary folder, a free loopback port, a test role
# with a password (rbs / rbs-test, CREATEDB, so each test makes and drops its own database).
#
#   cluster.sh run CMD ARGS...   start a cluster (fsync off: see below), run CMD with RBS_TEST_POSTGRES=postgres://… and
#                                RBS_TEST_POSTGRES_CLUSTER=FOLDER set, stop it afterwards (also when CMD fails or
#                                is interrupted); where PostgreSQL cannot be installed, print a SKIPPED line and run
#                                CMD without them (the PostgreSQL tests then say they were skipped)
#   cluster.sh start FOLDER      start a cluster in FOLDER (made if missing) and print its RBS_TEST_POSTGRES
#   cluster.sh stop FOLDER       stop it (pg_ctl stop -m fast)
#   cluster.sh restart FOLDER    stop and start it again on the same port (the outage tests)
#   cluster.sh pause|resume FOLDER   stop only (leave it stopped) / start a stopped one again
#   cluster.sh standby FOLDER STANDBY  make STANDBY a synchronous streaming standby of the running cluster in FOLDER
#                                (pg_basebackup; the primary then acknowledges a COMMIT only once the standby has
#                                it) and start it; prints its RBS_TEST_POSTGRES
#   cluster.sh crash FOLDER      stop it as a crash would (pg_ctl stop -m immediate: no shutdown checkpoint)
#   cluster.sh promote STANDBY   make the standby the primary (pg_ctl promote), waiting until it takes writes
#
# initdb and pg_ctl come from PATH, /usr/local/bin or /usr/lib/postgresql/*/bin; when missing, Debian's
# postgresql package is installed. As root they run as the postgres user (PostgreSQL refuses to run as root).
set -euo pipefail

ROLE=rbs
PASSWORD=rbs-test

find_tool() {
    local tool=$1 candidate
    for candidate in "$(command -v "$tool" 2>/dev/null || true)" /usr/local/bin/"$tool" /usr/lib/postgresql/*/bin/"$tool"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
    done
    return 1
}

ensure_installed() {
    if find_tool initdb >/dev/null && find_tool pg_ctl >/dev/null && find_tool psql >/dev/null; then return 0; fi
    echo "cluster.sh: installing PostgreSQL (Debian's postgresql package)" >&2
    if [ "$(id -u)" -ne 0 ]; then echo "cluster.sh: not root: cannot apt-get install postgresql" >&2; return 1; fi
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } || return 1
    find_tool initdb >/dev/null && find_tool pg_ctl >/dev/null
}

# Runs a PostgreSQL program as the postgres user when we are root.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

url_of() {
    echo "postgres://$ROLE:$PASSWORD@127.0.0.1:$(cat "$1/port")/postgres"
}

start_cluster() {
    local folder=$1 initdb pg_ctl psql port
    ensure_installed || return 1
    initdb=$(find_tool initdb); pg_ctl=$(find_tool pg_ctl); psql=$(find_tool psql)
    mkdir -p "$folder"
    chmod 700 "$folder"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$folder"; fi
    if [ ! -f "$folder/data/PG_VERSION" ]; then
        # Local socket: trust (the postgres superuser, for set-up); TCP on loopback: the test role's password.
        as_owner "$initdb" -D "$folder/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 \
            --locale=C >"$folder/initdb.log" 2>&1 || { cat "$folder/initdb.log" >&2; return 1; }
        free_port >"$folder/port"
        cat >>"$folder/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $(cat "$folder/port")
unix_socket_directories = '$folder'
max_connections = 200
shared_buffers = 128MB
CONF
    fi
    port=$(cat "$folder/port")
    as_owner "$pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 start >/dev/null \
        || { tail -20 "$folder/server.log" >&2; return 1; }
    if [ ! -f "$folder/role" ]; then
        as_owner "$psql" -h "$folder" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
            -c "CREATE ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD'" >/dev/null
        touch "$folder/role"
    fi
}

stop_cluster() {
    local folder=$1 pg_ctl
    [ -f "$folder/data/PG_VERSION" ] || return 0
    pg_ctl=$(find_tool pg_ctl) || return 0
    as_owner "$pg_ctl" -D "$folder/data" -m "${2:-fast}" -w -t 60 stop >/dev/null 2>&1 || true
}

# A synchronous standby of the running cluster in $1, in $2: a base backup streamed with its WAL, told to follow
# the primary (-R: standby.signal and primary_conninfo), on a port and socket folder of its own; then the primary
# waits for it at every COMMIT (synchronous_standby_names = '*').
make_standby() {
    local primary=$1 standby=$2 pg_ctl psql basebackup port
    pg_ctl=$(find_tool pg_ctl); psql=$(find_tool psql)
    basebackup=$(find_tool pg_basebackup) || { echo "cluster.sh: pg_basebackup is missing" >&2; return 1; }
    mkdir -p "$standby"
    chmod 700 "$standby"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$standby"; fi
    as_owner "$basebackup" -h "$primary" -p "$(cat "$primary/port")" -U postgres -D "$standby/data" -R -X stream -c fast \
        >"$standby/basebackup.log" 2>&1 || { cat "$standby/basebackup.log" >&2; return 1; }
    free_port >"$standby/port"
    port=$(cat "$standby/port")
    cat >>"$standby/data/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$standby'
CONF
    touch "$standby/role"
    as_owner "$pg_ctl" -D "$standby/data" -l "$standby/server.log" -w -t 60 start >/dev/null \
        || { tail -20 "$standby/server.log" >&2; return 1; }
    local waited=0
    until [ "$(as_owner "$psql" -h "$primary" -p "$(cat "$primary/port")" -U postgres -d postgres -X -A -t \
            -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 ]; do
        waited=$((waited + 1))
        [ $waited -lt 300 ] || { echo "cluster.sh: the standby in $standby is not streaming after 30 s" >&2; return 1; }
        sleep 0.1
    done
    as_owner "$psql" -h "$primary" -p "$(cat "$primary/port")" -U postgres -d postgres -X -q -v ON_ERROR_STOP=1 \
        -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
}

command=${1:-}
case "$command" in
    start)
        start_cluster "$2"
        url_of "$2"
        ;;
    stop|pause)
        stop_cluster "$2"
        ;;
    resume)
        start_cluster "$2"
        ;;
    standby)
        make_standby "$2" "$3"
        url_of "$3"
        ;;
    crash)
        stop_cluster "$2" immediate
        ;;
    promote)
        as_owner "$(find_tool pg_ctl)" -D "$2/data" -w -t 60 promote >/dev/null
        ;;
    restart)
        stop_cluster "$2"
        start_cluster "$2"
        ;;
    run)
        shift
        folder=$(mktemp -d /tmp/rbs-postgres.XXXXXX)
        trap 'stop_cluster "$folder"; rm -rf "$folder"' EXIT
        trap 'exit 130' INT TERM
        if start_cluster "$folder"; then
            # The suites' shared cluster does not fsync: the tests crash and stop server processes, never the
            # machine, and the kernel keeps what a killed server wrote, so what they can observe is the same — at
            # ~20% less CPU (RBSLedgerTests on PostgreSQL: 149 CPU-s with fsync, 121 without, 87 s → 67 s alone).
            # The failover pairs (cluster.sh start, standby) and make bench-pg's cluster keep PostgreSQL's defaults.
            as_owner "$(find_tool psql)" -h "$folder" -p "$(cat "$folder/port")" -U postgres -d postgres -q \
                -c "ALTER SYSTEM SET fsync = off" -c "SELECT pg_reload_conf()" >/dev/null
            export RBS_TEST_POSTGRES
            RBS_TEST_POSTGRES=$(url_of "$folder")
            export RBS_TEST_POSTGRES_CLUSTER=$folder
            echo "cluster.sh: PostgreSQL for the tests at 127.0.0.1:$(cat "$folder/port") (folder $folder)"
        else
            echo
            echo "************************************************************************************************"
            echo "*** SKIPPED: the PostgreSQL suite — PostgreSQL cannot be installed or started on this machine ***"
            echo "************************************************************************************************"
            echo
        fi
        status=0
        "$@" || status=$?
        exit $status
        ;;
    *)
        sed -n '2,15p' "$0" >&2
        exit 2
        ;;
esac
