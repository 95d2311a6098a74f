#!/usr/bin/env bash
# A throwaway NATS server for the tests and scripts/cluster, on 127.0.0.1 and a free port, in a temporary
# directory (core NATS only: no JetStream, nothing on disk but its pid and log).
#
#   scripts/nats-test-server.sh            start one; stdout's last two lines are its directory and its URL
#                                          (nats://127.0.0.1:PORT)
#   scripts/nats-test-server.sh stop DIR   stop the server in DIR and delete DIR
#   scripts/nats-test-server.sh kill DIR   SIGKILL the server in DIR (a crash), keeping DIR
#   scripts/nats-test-server.sh resume DIR start it again on the same port
#
# Installs Debian's nats-server package when none is found (needs root), as postgres-test-cluster.sh does for
# PostgreSQL. Progress goes to stderr; stdout carries only the two result lines.
set -euo pipefail

MARKER=.truco-nats-test-server

log() { echo "nats-test-server: $*" >&2; }
die() { log "$*"; exit 1; }

find_server() {
  command -v nats-server 2>/dev/null || { [ -x /usr/sbin/nats-server ] && echo /usr/sbin/nats-server; } || true
}

install_nats() {
  [ "$(id -u)" -eq 0 ] || die "nats-server not found and not root: install it (Debian: apt-get install nats-server)"
  command -v apt-get >/dev/null || die "nats-server not found and no apt-get to install it with"
  log "nats-server not found: running apt-get update && apt-get install -y nats-server"
  apt-get update >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y nats-server >&2
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Start the server of DIR on the port in DIR/port; wait until it accepts connections.
launch() {
  local dir=$1 server port
  server=$(find_server)
  port=$(cat "$dir/port")
  setsid "$server" -a 127.0.0.1 -p "$port" -P "$dir/pid" -l "$dir/server.log" </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 100); do
    if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; then
      return 0
    fi
    sleep 0.05
  done
  return 1
}

start() {
  local dir port started=
  exec 9>/tmp/truco-nats-test-server.lock
  flock 9
  [ -n "$(find_server)" ] || install_nats
  [ -n "$(find_server)" ] || die "nats-server still not found after installing it"
  exec 9>&-
  dir=$(mktemp -d /tmp/truco-nats.XXXXXX)
  touch "$dir/$MARKER"
  # The port is free when asked but could be taken before the server binds it: try a few.
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    echo "$port" >"$dir/port"
    if launch "$dir"; then
      started=1
      break
    fi
    stop_server "$dir" KILL
    log "could not start on port $port; retrying"
  done
  [ -n "$started" ] || { cat "$dir/server.log" >&2 || true; die "nats-server did not start"; }
  log "ready on port $port"
  echo "$dir"
  echo "nats://127.0.0.1:$port"
}

stop_server() {
  local dir=$1 signal=$2 pid
  [ -f "$dir/pid" ] || return 0
  pid=$(cat "$dir/pid")
  kill "-$signal" "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  rm -f "$dir/pid"
}

check_dir() {
  [ -f "$1/$MARKER" ] || die "$1 is not a server made by this script"
}

case "${1:-start}" in
  start) start ;;
  stop)
    dir=${2:?usage: $0 stop DIR}
    check_dir "$dir"
    stop_server "$dir" TERM
    rm -rf "$dir"
    log "stopped and deleted $dir"
    ;;
  kill)
    dir=${2:?usage: $0 kill DIR}
    check_dir "$dir"
    stop_server "$dir" KILL
    log "killed the server in $dir"
    ;;
  resume)
    dir=${2:?usage: $0 resume DIR}
    check_dir "$dir"
    launch "$dir" || die "nats-server did not start again on port $(cat "$dir/port")"
    log "resumed $dir"
    ;;
  *) die "usage: $0 [start | stop DIR | kill DIR | resume DIR]" ;;
esac
