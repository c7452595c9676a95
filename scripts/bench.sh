#!/usr/bin/env bash
# make bench, HTTP half: the service on SQLite (and on PostgreSQL when BENCH_DATABASE_URL is set), polling the
# simulator, under loadgen at 64 connections. Prints requests/s and p50/p99 per endpoint.
set -euo pipefail
bin=${1:-./switchboard}
loadgen=${2:-./loadgen}
sim=127.0.0.1:${BENCH_SIM_PORT:-18190}
api=127.0.0.1:${BENCH_API_PORT:-18180}
dur=${BENCH_DURATION:-10s}
dir=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM
wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

"$bin" simulate --addr "$sim" --log-level error &
pids+=($!)
wait_for "http://$sim/_control"

run() {
  local name=$1 db=$2
  "$bin" serve --addr "$api" --database-url "$db" --status-base-url "http://$sim" --poll-interval 10s --log-level error &
  local pid=$!
  wait_for "http://$api/readyz"
  # Two cycles, so the latency windows hold samples.
  sleep 12
  echo "== $name: 64 connections, $dur per endpoint"
  "$loadgen" -c 64 -d "$dur" "http://$api/api/v1/health" "http://$api/api/v1/latency?provider=openai" \
    "http://$api/api/v1/incidents?hours=168" "http://$api/api/v1/pick?task=llm" \
    "http://$api/api/v1/cheapest?task=llm" "http://$api/api/v1/rate-limits?provider=openai" || true
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
run sqlite "sqlite://$dir/bench.db"
if [ -n "${BENCH_DATABASE_URL:-}" ]; then
  run postgres "$BENCH_DATABASE_URL"
fi
