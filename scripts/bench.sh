#!/usr/bin/env bash
# make bench, HTTP half: the service on SQLite, then on PostgreSQL (BENCH_DATABASE_URL, in a schema of its own that
# is dropped afterwards), polling the simulator, under loadgen at 64 connections: each main read endpoint alone,
# then a realistic mix (mostly /health, then decisions and catalogs), then side by side with a bare net/http
# server writing the same bytes (the ratio of the rates). Prints requests/s and p50/p99 per endpoint.
set -euo pipefail
bin=${1:-./switchboard}
loadgen=${2:-./loadgen}
sim=127.0.0.1:${BENCH_SIM_PORT:-18190}
api=127.0.0.1:${BENCH_API_PORT:-18180}
dur=${BENCH_DURATION:-10s}
dir=$(mktemp -d)
schema=bench_$$
pids=()
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"
  if [ -n "${BENCH_DATABASE_URL:-}" ]; then psql -q "$BENCH_DATABASE_URL" -c "drop schema if exists $schema cascade" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT INT TERM
wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

"$bin" simulate --addr "$sim" --log-level error &
pids+=($!)
wait_for "http://$sim/_control"

a=http://$api/api/v1
alone=("$a/health" "$a/latency?provider=openai" "$a/incidents?hours=168" "$a/pick?task=llm" "$a/cheapest?task=llm"
  "$a/compare?providers=openai,anthropic,mistral" "$a/pricing?provider=openai" "$a/models?provider=anthropic"
  "$a/rate-limits?provider=openai" "$a/json-mode?provider=openai" "$a/compliance?provider=openai")
mix=("60=$a/health" "8=$a/pick?task=llm" "5=$a/failover?primary=openai" "5=$a/cheapest?task=llm"
  "4=$a/pricing?provider=openai" "4=$a/models?provider=anthropic" "3=$a/latency?provider=openai"
  "3=$a/incidents?hours=168" "2=$a/rate-limits" "2=$a/json-mode?provider=openai" "2=$a/sla" "2=$a/error-codes?provider=openai")

run() {
  local name=$1 db=$2
  # Every request of the load generator comes from one address: the per-client bound (64 at once by default)
  # is raised so that it measures the server path, not that bound.
  "$bin" serve --addr "$api" --database-url "$db" --status-base-url "http://$sim" --outbound-allow-loopback --poll-interval 10s --log-level error --max-per-client 1024 &
  local pid=$!
  wait_for "http://$api/readyz"
  # Two cycles, so the latency windows hold samples.
  sleep 12
  echo "== $name: each endpoint alone, 64 connections, $dur each"
  "$loadgen" -c 64 -d "$dur" "${alone[@]}" || true
  echo "== $name: the mix, 64 connections, $dur"
  "$loadgen" -mix -c 64 -d "$dur" "${mix[@]}" || true
  kill "$pid"; wait "$pid" 2>/dev/null || true
  # Side by side, the service polls as in production (every 10 minutes) over the database the cycles above
  # filled: a 10-second cycle landing in the service's rounds and not in the bare server's would be counted
  # against the service.
  "$bin" serve --addr "$api" --database-url "$db" --status-base-url "http://$sim" --outbound-allow-loopback --poll-interval 10m --log-level error --max-per-client 1024 &
  pid=$!
  wait_for "http://$api/readyz"
  echo "== $name: side by side with a bare net/http server (its own process) writing the same bytes, 64 connections, ${BENCH_SIDE_ROUNDS:-4} rounds"
  "$loadgen" -bare -rounds "${BENCH_SIDE_ROUNDS:-4}" -c 64 -d "${BENCH_SIDE_DURATION:-3s}" "$a/health" "$a/pricing" "gzip:$a/pricing" "$a/pick?task=llm" "304:$a/pricing" || true
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
run sqlite "sqlite://$dir/bench.db"
if [ -n "${BENCH_DATABASE_URL:-}" ]; then
  psql -q "$BENCH_DATABASE_URL" -c "create schema $schema" >/dev/null
  sep='?'; case $BENCH_DATABASE_URL in *\?*) sep='&';; esac
  run postgres "${BENCH_DATABASE_URL}${sep}search_path=$schema"
fi
