#!/usr/bin/env bash
# How long a fresh clone takes from `git clone` to `./dev serve` listening: the README's "first match in under a
# minute". Clones this checkout's HEAD into a temporary folder, runs `./dev serve` there on free ports (gRPC, web;
# no metrics), and prints the seconds until its first line ("truco serve: listening ..."), then stops it and
# removes the clone. Whatever pip and npm keep between runs (their caches) counts as a second-time user's.
#   bench/setup_bench.sh            # prints e.g. "fresh clone to listening: 31.5 s"
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
pid=""
start=$(date +%s.%N)
git clone --quiet --no-hardlinks "$here" "$work/clone"
cd "$work/clone"
git checkout --quiet "$(git -C "$here" rev-parse HEAD)"
TRUCO_WEB_PORT=0 ./dev serve --port 0 --metrics-port -1 --store "sqlite:///$work/bench.db" >"$work/out" 2>"$work/err" &
pid=$!
until grep -q "listening" "$work/out" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "setup_bench: ./dev serve stopped before listening:" >&2
    tail -20 "$work/err" >&2
    exit 1
  fi
  sleep 0.1
done
end=$(date +%s.%N)
printf 'fresh clone to listening: %.1f s\n' "$(echo "$end - $start" | bc)"
if grep -q "Warning" "$work/err"; then
  echo "setup_bench: warnings on first set-up:" >&2
  grep -A3 "Warning" "$work/err" >&2
fi
