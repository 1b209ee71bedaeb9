#!/usr/bin/env bash
# A Citus cluster for the Citus test suite (test/citus/) and `npm run bench -- --citus`:
# a coordinator and two workers, each a PostgreSQL cluster of its own on a loopback port,
# with trust authentication for postgres and a database `test` holding the citus extension.
# Needs Citus installed for the machine's PostgreSQL (CI runs the project's install script
# first, .ci/run). Run as root, the clusters belong to the postgres user (initdb refuses root).
#
#   scripts/citus/cluster.sh start    # idempotent: creates what is missing, starts what is stopped
#   scripts/citus/cluster.sh stop     # stops the three nodes (the data stays, a start reuses it)
#   scripts/citus/cluster.sh stop worker2   # stops one node (the suite's worker-outage test)
#   scripts/citus/cluster.sh destroy  # stops them and removes the data
#   scripts/citus/cluster.sh status
#
# TASKQUEUE_CITUS_DIR (default: <tmp>/taskqueue-citus) holds the data directories and logs;
# TASKQUEUE_CITUS_PORT (default 5640) is the coordinator's port, the workers take the next two.
set -euo pipefail

dir="${TASKQUEUE_CITUS_DIR:-${TMPDIR:-/tmp}/taskqueue-citus}"
base="${TASKQUEUE_CITUS_PORT:-5640}"
nodes=(coordinator worker1 worker2)
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$bin/initdb" ] || { echo "citus-cluster: no PostgreSQL binaries under /usr/lib/postgresql" >&2; exit 1; }

say() { printf 'citus-cluster: %s\n' "$*" >&2; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
port_of() { echo $((base + $1)); }
psql_at() { psql -X -q -h 127.0.0.1 -p "$1" -U postgres -v ON_ERROR_STOP=1 -At "${@:2}"; }

create_node() {
  local name=$1 port=$2 data="$dir/$1"
  [ -f "$data/PG_VERSION" ] && return 0
  mkdir -p "$data"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir" "$data"
  as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
  # Test settings: fsync off (nothing here survives a machine crash, only process
  # crashes); prepared transactions for Citus' two-phase commits; few shards, so the
  # DDL of each test schema stays quick (a queue still lands on one worker).
  cat >"$data/postgresql.auto.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$data'
shared_preload_libraries = 'citus'
max_connections = 200
max_prepared_transactions = 200
shared_buffers = 64MB
fsync = off
full_page_writes = off
synchronous_commit = off
citus.shard_count = 4
CONF
  say "created $name on port $port"
}

start_node() {
  local name=$1 data="$dir/$1"
  as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1 && return 0
  as_owner "$bin/pg_ctl" -D "$data" -l "$data/postgres.log" -w -t 60 start >/dev/null
  say "started $name"
}

cmd="${1:-start}"
case "$cmd" in
  start)
    for i in 0 1 2; do create_node "${nodes[$i]}" "$(port_of $i)"; done
    for i in 0 1 2; do start_node "${nodes[$i]}"; done
    for i in 0 1 2; do
      port=$(port_of $i)
      psql_at "$port" -d postgres -c "select 1 from pg_database where datname = 'test'" | grep -q 1 \
        || psql_at "$port" -d postgres -c 'create database test'
      psql_at "$port" -d test -c 'create extension if not exists citus'
    done
    coord=$(port_of 0)
    psql_at "$coord" -d test -c "select citus_set_coordinator_host('127.0.0.1', $coord)" >/dev/null
    for i in 1 2; do
      port=$(port_of $i)
      psql_at "$coord" -d test -c "select 1 from pg_dist_node where nodeport = $port" | grep -q 1 \
        || psql_at "$coord" -d test -c "select citus_add_node('127.0.0.1', $port)" >/dev/null
    done
    say "up: coordinator postgres://postgres@127.0.0.1:$coord/test, workers on $(port_of 1) and $(port_of 2)"
    ;;
  stop | destroy)
    which=("${nodes[@]}")
    [ -n "${2:-}" ] && which=("$2")
    for name in "${which[@]}"; do
      [ -f "$dir/$name/PG_VERSION" ] || continue
      as_owner "$bin/pg_ctl" -D "$dir/$name" -m fast -w stop >/dev/null 2>&1 && say "stopped $name" || true
    done
    if [ "$cmd" = destroy ]; then rm -rf "$dir"; say "removed $dir"; fi
    ;;
  status)
    for i in 0 1 2; do
      state=stopped
      [ -f "$dir/${nodes[$i]}/PG_VERSION" ] || state=absent
      as_owner "$bin/pg_ctl" -D "$dir/${nodes[$i]}" status >/dev/null 2>&1 && state=running
      echo "${nodes[$i]} $(port_of $i) $state"
    done
    ;;
  *)
    echo "usage: $0 start|stop|destroy|status" >&2
    exit 2
    ;;
esac
