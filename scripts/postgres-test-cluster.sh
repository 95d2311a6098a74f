#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests, on 127.0.0.1 and a free port, in a temporary directory.
#
#   scripts/postgres-test-cluster.sh            start one; stdout's last two lines are its directory and its URL
#                                               (postgresql://postgres@127.0.0.1:PORT/truco_test)
#   scripts/postgres-test-cluster.sh stop DIR   stop the cluster in DIR and delete DIR
#   scripts/postgres-test-cluster.sh restart DIR
#                                               stop the server in DIR (fast: sessions are cut) and start it again
#                                               on the same port, keeping its data
#   scripts/postgres-test-cluster.sh halt DIR   stop the server in DIR (fast), keeping DIR and its data
#   scripts/postgres-test-cluster.sh resume DIR start a halted server again, on the same port
#
# PG_FSYNC=on makes the cluster durable (fsync and full_page_writes on, as in production: for benchmarks and the
# load-balanced cluster of scripts/cluster); by default it runs with fsync=off, since a test cluster is thrown
# away and creating a database per test is much faster without it.
#
# Installs Debian's postgresql package when no initdb is found (needs root). initdb refuses to run as root, so
# a root caller runs the server as the `postgres` user (or a `truco-pg` system user made for the purpose).
# Progress goes to stderr; stdout carries only the two result lines.
set -euo pipefail

MARKER=.truco-postgres-test-cluster
DB=truco_test

log() { echo "postgres-test-cluster: $*" >&2; }
die() { log "$*"; exit 1; }

find_bindir() {
  local found
  if found=$(command -v initdb 2>/dev/null); then
    dirname "$(readlink -f "$found")"
    return
  fi
  # Debian keeps the server binaries out of PATH, one directory per major version: take the newest.
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$found" ] && [ -x "$found/initdb" ]; then
    echo "$found"
  fi
}

install_postgres() {
  [ "$(id -u)" -eq 0 ] || die "initdb not found and not root: install PostgreSQL (Debian: apt-get install postgresql)"
  command -v apt-get >/dev/null || die "initdb not found and no apt-get to install PostgreSQL with"
  log "initdb not found: running apt-get update && apt-get install -y postgresql"
  apt-get update >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >&2
}

# The OS user that owns and runs the cluster: ourselves, unless we are root.
cluster_user() {
  if [ "$(id -u)" -ne 0 ]; then
    id -un
  elif id postgres >/dev/null 2>&1; then
    echo postgres
  else
    id truco-pg >/dev/null 2>&1 || {
      log "creating system user truco-pg to run PostgreSQL (initdb refuses root)"
      useradd --system --no-create-home --shell /usr/sbin/nologin truco-pg >&2
    }
    echo truco-pg
  fi
}

as_user() {
  local user=$1
  shift
  if [ "$(id -un)" = "$user" ]; then
    "$@"
  else
    runuser -u "$user" -- "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
  local bindir user dir port started= fsync=${PG_FSYNC:-off}
  case "$fsync" in on | off) ;; *) die "PG_FSYNC must be on or off, not $fsync" ;; esac
  # Parallel test workers (pytest -n) each start a cluster: the install and the user, once, under a lock.
  exec 9>/tmp/truco-postgres-test-cluster.lock
  flock 9
  bindir=$(find_bindir)
  if [ -z "$bindir" ]; then
    install_postgres
    bindir=$(find_bindir)
    [ -n "$bindir" ] || die "initdb still not found after installing postgresql"
  fi
  user=$(cluster_user)
  exec 9>&-
  dir=$(mktemp -d /tmp/truco-pg.XXXXXX)
  touch "$dir/$MARKER"
  mkdir "$dir/socket"
  [ "$(id -u)" -ne 0 ] || chown -R "$user" "$dir"
  log "initdb in $dir as $user ($bindir)"
  as_user "$user" "$bindir/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  # The port is free when asked but could be taken before the server binds it: try a few.
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    echo "-h 127.0.0.1 -p $port -k $dir/socket -c fsync=$fsync -c full_page_writes=$fsync" >"$dir/options"
    if as_user "$user" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$(cat "$dir/options")" \
      start >&2; then
      started=1
      break
    fi
    log "could not start on port $port; retrying"
  done
  [ -n "$started" ] || { cat "$dir/server.log" >&2; die "the server did not start (log above)"; }
  as_user "$user" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DB" >&2
  log "ready on port $port"
  echo "$dir"
  echo "postgresql://postgres@127.0.0.1:$port/$DB"
}

stop() {
  local dir=${1:?usage: $0 stop DIR}
  [ -f "$dir/$MARKER" ] || die "$dir is not a test cluster made by this script"
  local bindir user
  bindir=$(find_bindir)
  user=$(stat -c %U "$dir/data" 2>/dev/null || id -un)
  if [ -n "$bindir" ] && [ -f "$dir/data/postmaster.pid" ]; then
    as_user "$user" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || log "pg_ctl stop failed"
  fi
  rm -rf "$dir"
  log "stopped and deleted $dir"
}

restart() {
  local dir=${1:?usage: $0 restart DIR}
  [ -f "$dir/$MARKER" ] || die "$dir is not a test cluster made by this script"
  local bindir user
  bindir=$(find_bindir)
  user=$(stat -c %U "$dir/data")
  # pg_ctl restart starts the server again with the options it was started with (postmaster.opts).
  as_user "$user" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >&2
  log "restarted $dir"
}

halt() {
  local dir=${1:?usage: $0 halt DIR}
  [ -f "$dir/$MARKER" ] || die "$dir is not a test cluster made by this script"
  as_user "$(stat -c %U "$dir/data")" "$(find_bindir)/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2
  log "halted $dir"
}

resume() {
  local dir=${1:?usage: $0 resume DIR}
  [ -f "$dir/$MARKER" ] || die "$dir is not a test cluster made by this script"
  as_user "$(stat -c %U "$dir/data")" "$(find_bindir)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "$(cat "$dir/options")" start >&2
  log "resumed $dir"
}

case "${1:-start}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  restart) restart "${2:-}" ;;
  halt) halt "${2:-}" ;;
  resume) resume "${2:-}" ;;
  *) die "usage: $0 [start] | stop DIR | restart DIR | halt DIR | resume DIR" ;;
esac
