#!/usr/bin/env bash
# A real S3 server (MinIO, single drive) on loopback for the test suite (and benchmarks).
#
#   eval "$(bash scripts/minio.sh start)"   # prints only export lines: VOXDEX_TEST_S3_URL, VOXDEX_TEST_S3_BUCKET,
#                                           # AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION
#   bash scripts/minio.sh stop              # idempotent, never fails; removes the data
#   bash scripts/minio.sh status            # prints the export lines of a running server, exit 1 if none
#   bash scripts/minio.sh build             # only builds (or finds) the cached binary; prints its path
#
# Install route: MinIO is built from source from the Go module proxy with `go install` at a pinned
# pseudo-version. The module's hash (the `h1:` sum Go records in go.sum) is pinned below and checked
# with `go mod download -json` before anything is built; its dependencies are checked by Go against
# MinIO's own go.sum. The binary is cached per version under the same cache root as Elasticsearch, so
# the build (several minutes on 2 cores) happens once per machine. Build flags keep that one build as
# cheap as possible: CGO off, -trimpath, no symbol or DWARF tables (-ldflags='-s -w'), and no compiler
# optimization or inlining (-gcflags='all=-N -l': about 30 % less compile CPU, measured 205 s instead of
# 292 s of CPU on this 2-core machine; a test server's few requests do not need optimized code). The Go
# build cache of that build is temporary and removed afterwards (it is ~1 GB and never reused).
#
# License: MinIO is AGPL-3.0. voxdex only runs it as a throwaway test server; it is not part of voxdex,
# not linked to it, and not distributed with it. Production deployments use any S3-compatible store.
#
# Environment (all optional):
#   VOXDEX_MINIO_CACHE_DIR  where the binary is kept (root: /var/cache/voxdex, else ~/.cache/voxdex)
#   VOXDEX_MINIO_RUN_DIR    data, log and pid of the running server (default: per checkout under /tmp)
#   VOXDEX_MINIO_TIMEOUT    seconds to wait for a healthy server (default 60)
set -euo pipefail

MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_SUM='h1:/qdoYujxF5MBLDMVLeiYJ/7fBa1HikX39Dvzb9Ji8pA='
BUILD_FLAGS=(-trimpath "-ldflags=-s -w" "-gcflags=all=-N -l")
MINIO_USER=voxdex-minio
BUCKET=voxdex-test
REGION=us-east-1

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$(id -u)" -eq 0 ]; then DEFAULT_CACHE=/var/cache/voxdex; else DEFAULT_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/voxdex"; fi
CACHE_DIR="${VOXDEX_MINIO_CACHE_DIR:-$DEFAULT_CACHE}"
MINIO_HOME="$CACHE_DIR/minio-$MINIO_VERSION"
MINIO_BIN="$MINIO_HOME/minio"
STAMP="$MINIO_SUM CGO_ENABLED=0 ${BUILD_FLAGS[*]}"
RUN_DIR="${VOXDEX_MINIO_RUN_DIR:-${TMPDIR:-/tmp}/voxdex-minio-$(id -u)-$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1)}"
PID_FILE="$RUN_DIR/minio.pid"
ENV_FILE="$RUN_DIR/env"
TIMEOUT="${VOXDEX_MINIO_TIMEOUT:-60}"

say() { echo "minio.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# Builds the binary into $MINIO_HOME unless a build of this version and these flags is there.
build() {
  [ -x "$MINIO_BIN" ] && [ -f "$MINIO_HOME/.voxdex-build" ] && [ "$(cat "$MINIO_HOME/.voxdex-build")" = "$STAMP" ] && return 0
  # Go as installed from the official archive may not be on a non-login shell's PATH.
  command -v go >/dev/null || { [ -x /usr/local/go/bin/go ] && PATH="$PATH:/usr/local/go/bin"; }
  command -v go >/dev/null || die "Go is needed to build the MinIO test server (go install $MINIO_MODULE@$MINIO_VERSION)"
  mkdir -p "$CACHE_DIR"
  local work got t0
  work="$(mktemp -d "$CACHE_DIR/minio-build.XXXXXX")"
  t0=$SECONDS
  say "fetching $MINIO_MODULE@$MINIO_VERSION from the Go module proxy"
  # Outside any module, with the local toolchain; GOFLAGS from the caller could change the build.
  got="$(cd "$work" && GOFLAGS= GOTOOLCHAIN=local go mod download -json "$MINIO_MODULE@$MINIO_VERSION" \
    | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",\{0,1\}$/\1/p')" || { rm -rf "$work"; die "go mod download failed"; }
  if [ "$got" != "$MINIO_SUM" ]; then
    rm -rf "$work"
    die "checksum mismatch for $MINIO_MODULE@$MINIO_VERSION: $got, expected $MINIO_SUM (refusing to build it)"
  fi
  say "building MinIO (once per machine; several minutes on 2 cores)"
  if ! (cd "$work" && GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$work/bin" GOCACHE="$work/gocache" \
    nice -n 5 go install "${BUILD_FLAGS[@]}" "$MINIO_MODULE@$MINIO_VERSION" >&2); then
    chmod -R u+w "$work" 2>/dev/null || true
    rm -rf "$work"
    die "building MinIO failed"
  fi
  rm -rf "$MINIO_HOME"
  mkdir -p "$MINIO_HOME"
  mv "$work/bin/minio" "$MINIO_BIN"
  echo "$STAMP" >"$MINIO_HOME/.voxdex-build"
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
  chmod -R a+rX "$MINIO_HOME"
  say "built $MINIO_BIN in $((SECONDS - t0))s (module sum verified)"
}

ensure_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  id -u "$MINIO_USER" >/dev/null 2>&1 && return 0
  say "creating system user $MINIO_USER (the test server runs unprivileged)"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$MINIO_USER"
}

running_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { echo "$pid"; return 0; }
  return 1
}

free_port() {
  if command -v node >/dev/null; then
    node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"
  else
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1], end=""); s.close()'
  fi
}

live() { curl -fsS -m 3 -o /dev/null "http://127.0.0.1:$1/minio/health/live" 2>/dev/null; }

# The bucket answers a signed request (proves the credentials and the bucket).
bucket_ok() {
  # shellcheck disable=SC1090
  . "$ENV_FILE"
  curl -fsS -m 5 -o /dev/null -I --aws-sigv4 "aws:amz:$REGION:s3" -u "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    "$VOXDEX_TEST_S3_URL/$BUCKET" 2>/dev/null
}

start() {
  command -v curl >/dev/null || die "curl is needed: apt-get install curl"
  if running_pid >/dev/null && [ -f "$ENV_FILE" ] && bucket_ok; then
    say "already running at $(. "$ENV_FILE"; echo "$VOXDEX_TEST_S3_URL")"
    cat "$ENV_FILE"
    return 0
  fi
  stop
  build
  ensure_user
  local port cport user pass
  port="$(free_port)"
  cport="$(free_port)"
  user="vx$(head -c 9 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  pass="$(head -c 24 /dev/urandom | base64 | tr '+/' '-_')"
  mkdir -p "$RUN_DIR/data"
  chmod 711 "$RUN_DIR" # the server's user may pass through to data/; the credentials file is the caller's alone
  (umask 077; : >"$ENV_FILE")
  cat >"$ENV_FILE" <<EOF
export VOXDEX_TEST_S3_URL=http://127.0.0.1:$port
export VOXDEX_TEST_S3_BUCKET=$BUCKET
export AWS_ACCESS_KEY_ID=$user
export AWS_SECRET_ACCESS_KEY=$pass
export AWS_REGION=$REGION
EOF
  [ "$(id -u)" -eq 0 ] && chown -R "$MINIO_USER:" "$RUN_DIR/data"
  # setpriv execs (runuser would fork and stay as the parent), so the pid recorded is MinIO's own.
  local -a as_user=()
  [ "$(id -u)" -eq 0 ] && as_user=(setpriv --reuid="$MINIO_USER" --regid="$MINIO_USER" --init-groups)

  say "starting MinIO on 127.0.0.1:$port (data in $RUN_DIR/data)"
  # setsid: its own session, so the caller's terminal or process group does not take it down.
  setsid env -i PATH=/usr/bin:/bin HOME="$RUN_DIR" MINIO_ROOT_USER="$user" MINIO_ROOT_PASSWORD="$pass" \
    MINIO_BROWSER=off MINIO_UPDATE=off MINIO_REGION="$REGION" \
    "${as_user[@]}" "$MINIO_BIN" server --quiet --address "127.0.0.1:$port" --console-address "127.0.0.1:$cport" \
    "$RUN_DIR/data" </dev/null >"$RUN_DIR/minio.log" 2>&1 &
  echo $! >"$PID_FILE"

  local deadline=$((SECONDS + TIMEOUT))
  until live "$port"; do
    running_pid >/dev/null || { tail -n 30 "$RUN_DIR/minio.log" >&2; stop; die "MinIO exited during startup"; }
    [ "$SECONDS" -lt "$deadline" ] || { tail -n 30 "$RUN_DIR/minio.log" >&2; stop; die "MinIO was not live within ${TIMEOUT}s"; }
    sleep 0.3
  done
  curl -fsS -m 10 -o /dev/null -X PUT --aws-sigv4 "aws:amz:$REGION:s3" -u "$user:$pass" "http://127.0.0.1:$port/$BUCKET" \
    || { tail -n 30 "$RUN_DIR/minio.log" >&2; stop; die "could not create bucket $BUCKET"; }
  bucket_ok || { stop; die "bucket $BUCKET does not answer"; }
  say "ready on port $port with bucket $BUCKET"
  cat "$ENV_FILE"
}

stop() {
  local pid
  if pid="$(running_pid)"; then
    say "stopping MinIO (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && { say "still running after 10s: killing"; kill -9 "$pid" 2>/dev/null || true; }
  fi
  rm -rf "$RUN_DIR" 2>/dev/null || true
  return 0
}

status() {
  running_pid >/dev/null && [ -f "$ENV_FILE" ] && bucket_ok || { say "not running"; exit 1; }
  cat "$ENV_FILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop || true ;;
  status) status ;;
  build) build; echo "$MINIO_BIN" ;;
  *) echo "usage: $0 start|stop|status|build" >&2; exit 2 ;;
esac
