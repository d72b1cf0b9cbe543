#!/usr/bin/env bash
# A real single-node Elasticsearch on loopback for the test suite (and benchmarks).
#
#   eval "$(bash scripts/elasticsearch.sh start)"   # prints only: export VOXDEX_TEST_ES_URL=http://127.0.0.1:PORT
#   bash scripts/elasticsearch.sh stop              # idempotent, never fails
#   bash scripts/elasticsearch.sh status            # prints the URL of a running node, exit 1 if none
#
# Install route: the official minimal distribution from Maven Central
# (org.elasticsearch.distribution.integ-test-zip:elasticsearch:<version>:zip, no bundled JDK), fetched with
# Maven using strict checksums (the .sha1 published beside it), then compared with the sha256 pinned below.
# Maven's local repository (~/.m2) is the download cache; the unpacked server is cached per version.
# Everything but the final export line goes to stderr.
#
# Environment (all optional):
#   VOXDEX_ES_CACHE_DIR  where the unpacked server is kept (root: /var/cache/voxdex, else ~/.cache/voxdex)
#   VOXDEX_ES_RUN_DIR    data, logs, config and pid of the running node (default: per checkout under /tmp)
#   VOXDEX_ES_HEAP       heap size (default 512m; the minimum is 256m)
#   VOXDEX_ES_TIMEOUT    seconds to wait for a healthy node (default 120)
#   ES_JAVA_HOME         the JDK/JRE to run it with (default: Java 17 from Debian, else the `java` on PATH)
set -euo pipefail

ES_VERSION=8.19.21
ES_SHA256=215d5f3dbf0609a149f6218a9e47b6ae2df34ebbff3c5754e35f15a5e5393c8a
ES_ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
ES_USER=voxdex-es

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$(id -u)" -eq 0 ]; then DEFAULT_CACHE=/var/cache/voxdex; else DEFAULT_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/voxdex"; fi
CACHE_DIR="${VOXDEX_ES_CACHE_DIR:-$DEFAULT_CACHE}"
ES_HOME="$CACHE_DIR/elasticsearch-$ES_VERSION"
RUN_DIR="${VOXDEX_ES_RUN_DIR:-${TMPDIR:-/tmp}/voxdex-es-$(id -u)-$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1)}"
PID_FILE="$RUN_DIR/es.pid"
PORT_FILE="$RUN_DIR/port"
HEAP="${VOXDEX_ES_HEAP:-512m}"
TIMEOUT="${VOXDEX_ES_TIMEOUT:-120}"

say() { echo "elasticsearch.sh: $*" >&2; }
die() { say "$*"; exit 1; }

find_java_home() {
  if [ -n "${ES_JAVA_HOME:-}" ]; then echo "$ES_JAVA_HOME"; return; fi
  for d in /usr/lib/jvm/java-17-openjdk-*; do
    [ -x "$d/bin/java" ] && { echo "$d"; return; }
  done
  local java
  java="$(command -v java || true)"
  [ -n "$java" ] || die "no Java found: install Java 17+ (Debian: apt-get install default-jre-headless) or set ES_JAVA_HOME"
  dirname "$(dirname "$(readlink -f "$java")")"
}

# Downloads with Maven (strict .sha1 check), checks the pinned sha256 and unpacks into $ES_HOME.
install_es() {
  [ -f "$ES_HOME/.voxdex-sha256" ] && [ "$(cat "$ES_HOME/.voxdex-sha256")" = "$ES_SHA256" ] && return 0
  command -v mvn >/dev/null || die "Maven is needed to fetch Elasticsearch: apt-get install maven (scripts/apt-packages.sh test)"
  command -v unzip >/dev/null || die "unzip is needed: apt-get install unzip"
  say "installing Elasticsearch $ES_VERSION from Maven Central ($ES_ARTIFACT)"
  mkdir -p "$CACHE_DIR"
  local dl
  dl="$(mktemp -d "$CACHE_DIR/download.XXXXXX")"
  # Maven prints on stdout; keep stdout for the export line only.
  if ! JAVA_HOME="$JAVA_HOME" mvn -B -q -C -Dstyle.color=never dependency:copy -Dartifact="$ES_ARTIFACT" \
    -DoutputDirectory="$dl" 2>&1 | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2; then
    rm -rf "$dl"
    die "Maven could not fetch $ES_ARTIFACT (network to Maven Central, or a .sha1 mismatch)"
  fi
  local zip="$dl/elasticsearch-$ES_VERSION.zip" got
  got="$(sha256sum "$zip" | cut -d' ' -f1)"
  if [ "$got" != "$ES_SHA256" ]; then
    rm -rf "$dl"
    die "checksum mismatch for $ES_ARTIFACT: sha256 $got, expected $ES_SHA256 (refusing to run it)"
  fi
  unzip -q "$zip" -d "$dl/unpacked"
  echo "$ES_SHA256" >"$dl/unpacked/elasticsearch-$ES_VERSION/.voxdex-sha256"
  rm -rf "$ES_HOME"
  mv "$dl/unpacked/elasticsearch-$ES_VERSION" "$ES_HOME"
  rm -rf "$dl"
  say "installed into $ES_HOME (sha256 verified)"
}

ensure_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  id -u "$ES_USER" >/dev/null 2>&1 && return 0
  say "creating system user $ES_USER (Elasticsearch refuses to run as root)"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ES_USER"
}

running_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { echo "$pid"; return 0; }
  return 1
}

healthy() { # $1 = port
  curl -fsS -m 5 "http://127.0.0.1:$1/_cluster/health?wait_for_status=yellow&timeout=3s" 2>/dev/null | grep -qE '"status":"(green|yellow)"'
}

free_port() { # asks the kernel for an unused loopback port
  if command -v node >/dev/null; then
    node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"
  else
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1], end=""); s.close()'
  fi
}

log_tail() {
  local f
  for f in "$RUN_DIR/logs/voxdex-test.log" "$RUN_DIR/logs/daemon.out"; do
    [ -s "$f" ] && { say "--- tail of $f ---"; tail -n 40 "$f" >&2; }
  done
  return 0
}

start() {
  command -v curl >/dev/null || die "curl is needed: apt-get install curl"
  if running_pid >/dev/null && [ -f "$PORT_FILE" ] && healthy "$(cat "$PORT_FILE")"; then
    say "already running on port $(cat "$PORT_FILE")"
    echo "export VOXDEX_TEST_ES_URL=http://127.0.0.1:$(cat "$PORT_FILE")"
    return 0
  fi
  stop
  JAVA_HOME="$(find_java_home)"
  [ -x "$JAVA_HOME/bin/java" ] || die "no java at $JAVA_HOME/bin/java"
  install_es
  ensure_user

  local port
  port="$(free_port)"
  mkdir -p "$RUN_DIR"/{config,data,logs,tmp}
  cp -r "$ES_HOME/config/." "$RUN_DIR/config/"
  mkdir -p "$RUN_DIR/config/jvm.options.d"
  printf -- '-Xms256m\n-Xmx%s\n' "$HEAP" >"$RUN_DIR/config/jvm.options.d/voxdex.options"
  cat >"$RUN_DIR/config/elasticsearch.yml" <<EOF
cluster.name: voxdex-test
node.name: voxdex-test-node
discovery.type: single-node
network.host: 127.0.0.1
http.port: $port
path.data: $RUN_DIR/data
path.logs: $RUN_DIR/logs
xpack.security.enabled: false
cluster.routing.allocation.disk.threshold_enabled: false
action.destructive_requires_name: false
EOF
  if [ "$(id -u)" -eq 0 ]; then
    chown -R "$ES_USER:" "$RUN_DIR"
    chmod -R a+rX "$ES_HOME"
  fi
  echo "$port" >"$PORT_FILE"

  say "starting Elasticsearch $ES_VERSION on 127.0.0.1:$port (data in $RUN_DIR, Java $JAVA_HOME)"
  local -a as_user=()
  [ "$(id -u)" -eq 0 ] && as_user=(runuser -u "$ES_USER" --)
  # -d daemonizes once the node has started; its output goes to a file, or a piped caller would wait on
  # it forever. One deadline covers the launcher and the health wait.
  local deadline=$((SECONDS + TIMEOUT))
  (
    cd "$RUN_DIR/logs"
    timeout --kill-after=10 "$TIMEOUT" "${as_user[@]}" env -u JAVA_HOME ES_JAVA_HOME="$JAVA_HOME" \
      ES_PATH_CONF="$RUN_DIR/config" ES_TMPDIR="$RUN_DIR/tmp" ES_JAVA_OPTS="-Xms256m -Xmx$HEAP" \
      "$ES_HOME/bin/elasticsearch" -d -p "$PID_FILE" </dev/null >"$RUN_DIR/logs/daemon.out" 2>&1
  ) || { log_tail; stop; die "Elasticsearch failed to start within ${TIMEOUT}s"; }

  until healthy "$port"; do
    if ! running_pid >/dev/null && [ -f "$PID_FILE" ]; then
      log_tail; stop; die "Elasticsearch exited during startup"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log_tail; stop; die "Elasticsearch was not healthy within ${TIMEOUT}s"
    fi
    sleep 1
  done
  say "healthy on port $port after ${SECONDS}s"
  echo "export VOXDEX_TEST_ES_URL=http://127.0.0.1:$port"
}

stop() {
  local pid
  if pid="$(running_pid)"; then
    say "stopping Elasticsearch (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { say "still running after 30s: killing"; kill -9 "$pid" 2>/dev/null || true; }
  fi
  rm -rf "$RUN_DIR" 2>/dev/null || true
  return 0
}

status() {
  running_pid >/dev/null && [ -f "$PORT_FILE" ] && healthy "$(cat "$PORT_FILE")" || { say "not running"; exit 1; }
  echo "export VOXDEX_TEST_ES_URL=http://127.0.0.1:$(cat "$PORT_FILE")"
}

case "${1:-}" in
  start) start ;;
  stop) stop || true ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
