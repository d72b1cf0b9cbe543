#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for the test suite (and benchmarks).
#
#   eval "$(bash scripts/postgres.sh start)"   # prints only: export VOXDEX_TEST_DATABASE_URL=postgres://…
#   bash scripts/postgres.sh stop              # idempotent, never fails; removes the cluster
#   bash scripts/postgres.sh status            # prints the export line of a running cluster, exit 1 if none
#
# The server is Debian's `postgresql` package (scripts/apt-packages.sh test). A fresh cluster is made
# with initdb in a per-checkout run dir under /tmp, owned by an unprivileged user when run as root
# (PostgreSQL refuses to run as root), listening on 127.0.0.1 at a port the kernel picked, with
# password (SCRAM) authentication and a random password, fsync on (the durability the tests rely on
# is the real one). Everything but the final export line goes to stderr.
#
# Environment (all optional):
#   VOXDEX_PG_RUN_DIR   data, socket, log and password of the cluster (default: per checkout under /tmp)
#   VOXDEX_PG_BIN       the folder with initdb/pg_ctl (default: the newest /usr/lib/postgresql/*/bin)
#   VOXDEX_PG_TIMEOUT   seconds to wait for the server (default 60)
set -euo pipefail

PG_USER=voxdex-pg   # the OS user that owns and runs the cluster when this script runs as root
DB_USER=voxdex      # the database role (superuser of this throwaway cluster)
DB_NAME=voxdex

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUN_DIR="${VOXDEX_PG_RUN_DIR:-${TMPDIR:-/tmp}/voxdex-pg-$(id -u)-$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1)}"
DATA="$RUN_DIR/data"
PORT_FILE="$RUN_DIR/port"
PW_FILE="$RUN_DIR/password"
TIMEOUT="${VOXDEX_PG_TIMEOUT:-60}"

say() { echo "postgres.sh: $*" >&2; }
die() { say "$*"; exit 1; }

find_bin() {
  if [ -n "${VOXDEX_PG_BIN:-}" ]; then echo "$VOXDEX_PG_BIN"; return; fi
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$d" ] && [ -x "$d/initdb" ] || die "no PostgreSQL server found: apt-get install postgresql (scripts/apt-packages.sh test)"
  echo "$d"
}

as_owner() { # runs a command as the cluster's owner
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi
}

ensure_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  id -u "$PG_USER" >/dev/null 2>&1 && return 0
  say "creating system user $PG_USER (PostgreSQL refuses to run as root)"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PG_USER"
}

free_port() {
  if command -v node >/dev/null; then
    node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"
  else
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1], end=""); s.close()'
  fi
}

url() { echo "postgres://$DB_USER:$(cat "$PW_FILE")@127.0.0.1:$(cat "$PORT_FILE")/$DB_NAME"; }

ready() { # answers a query with the password over TCP
  [ -f "$PORT_FILE" ] && [ -f "$PW_FILE" ] || return 1
  PGPASSWORD="$(cat "$PW_FILE")" PGCONNECT_TIMEOUT=3 psql -h 127.0.0.1 -p "$(cat "$PORT_FILE")" -U "$DB_USER" -d "$DB_NAME" \
    -XAtqc 'SELECT 1' 2>/dev/null | grep -qx 1
}

running() { [ -f "$DATA/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

start() {
  command -v psql >/dev/null || die "psql is needed: apt-get install postgresql-client"
  BIN="$(find_bin)"
  if [ -d "$DATA" ] && running && ready; then
    say "already running on port $(cat "$PORT_FILE")"
    echo "export VOXDEX_TEST_DATABASE_URL=$(url)"
    return 0
  fi
  stop
  ensure_user
  mkdir -p "$RUN_DIR/socket"
  chmod 700 "$RUN_DIR"
  head -c 18 /dev/urandom | base64 | tr '+/' '-_' >"$PW_FILE"
  free_port >"$PORT_FILE"
  [ "$(id -u)" -eq 0 ] && chown -R "$PG_USER:" "$RUN_DIR"

  local port
  port="$(cat "$PORT_FILE")"
  say "initdb $DATA ($("$BIN/postgres" --version))"
  as_owner "$BIN/initdb" -D "$DATA" -U "$DB_USER" --pwfile="$PW_FILE" --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 \
    >"$RUN_DIR/initdb.log" 2>&1 || { tail -n 30 "$RUN_DIR/initdb.log" >&2; stop; die "initdb failed"; }
  cat >>"$DATA/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$RUN_DIR/socket'
fsync = on
synchronous_commit = on
max_connections = 200
shared_buffers = 64MB
log_min_messages = warning
EOF
  say "starting PostgreSQL on 127.0.0.1:$port (cluster in $DATA)"
  as_owner timeout --kill-after=10 "$TIMEOUT" "$BIN/pg_ctl" -D "$DATA" -l "$RUN_DIR/server.log" -w -t "$TIMEOUT" start >/dev/null \
    || { tail -n 30 "$RUN_DIR/server.log" >&2; stop; die "PostgreSQL failed to start within ${TIMEOUT}s"; }
  PGPASSWORD="$(cat "$PW_FILE")" psql -h 127.0.0.1 -p "$port" -U "$DB_USER" -d postgres -XAtqc "CREATE DATABASE $DB_NAME" >&2 \
    || { stop; die "could not create database $DB_NAME"; }
  ready || { stop; die "PostgreSQL does not answer on 127.0.0.1:$port"; }
  say "ready on port $port after ${SECONDS}s"
  echo "export VOXDEX_TEST_DATABASE_URL=$(url)"
}

stop() {
  if [ -d "$DATA" ]; then
    BIN="${BIN:-$(find_bin)}"
    if running; then
      say "stopping PostgreSQL ($DATA)"
      as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
  fi
  rm -rf "$RUN_DIR" 2>/dev/null || true
  return 0
}

status() {
  BIN="$(find_bin)"
  [ -d "$DATA" ] && running && ready || { say "not running"; exit 1; }
  echo "export VOXDEX_TEST_DATABASE_URL=$(url)"
}

case "${1:-}" in
  start) start ;;
  stop) stop || true ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
