#!/usr/bin/env bash
# make soak: the service on SQLite polls the simulator every 10 s while five providers flap every cycle and a local
# receiver takes the signed webhooks; loadgen sends a steady SOAK_RATE requests/s (default 1,000) of a realistic
# mix for SOAK_DURATION (default 10m), printing every 30 s the achieved rate, errors, p99 and the service's
# goroutines, resident memory and open files (from /metrics). It fails on any error, on a webhook count of zero,
# or when goroutines, memory or open files grow past the bounds below between the first sample (after warm-up)
# and the end.
set -euo pipefail
bin=${1:-./switchboard}
loadgen=${2:-./loadgen}
receiver=${3:-./webhook-receiver}
sim=127.0.0.1:${SOAK_SIM_PORT:-18290}
api=127.0.0.1:${SOAK_API_PORT:-18280}
metrics=127.0.0.1:${SOAK_METRICS_PORT:-18283} # /metrics has a listener of its own
hook=127.0.0.1:${SOAK_HOOK_PORT:-18295}
rate=${SOAK_RATE:-1000}
dur=${SOAK_DURATION:-10m}
max_goroutines=${SOAK_MAX_GOROUTINE_GROWTH:-100}
max_rss_mib=${SOAK_MAX_RSS_GROWTH_MIB:-64}
max_fds=${SOAK_MAX_FD_GROWTH:-50}
dir=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM
wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }
control() { curl -fsS -X PUT "http://$sim/_control/$1" -H 'Content-Type: application/json' -d "$2" >/dev/null; }

secret=soak-secret-$$
WEBHOOK_SECRET=$secret "$receiver" --addr "$hook" >"$dir/hooks.log" 2>&1 &
pids+=($!)
"$bin" simulate --addr "$sim" --log-level error &
pids+=($!)
wait_for "http://$sim/_control"
# All the load comes from one address: the per-client bound (64 requests at once) is raised, or a pause of the
# server (a GC, a poll cycle) would turn the open loop's backlog into 429s.
"$bin" serve --addr "$api" --database-url "sqlite://$dir/soak.db" --status-base-url "http://$sim" \
  --poll-interval 10s --log-level warn --webhook-allow-loopback=true --outbound-allow-loopback=true --metrics-addr "$metrics" \
  --max-per-client 1024 2>"$dir/serve.log" &
pids+=($!)
wait_for "http://$api/readyz"
curl -fsS -X POST "http://$api/api/v1/webhooks" -H 'Content-Type: application/json' \
  -d '{"callback_url": "http://'"$hook"'/hook", "events": ["provider.down", "provider.up", "provider.degraded"], "secret": "'"$secret"'"}' >/dev/null

# Flap five providers every poll cycle, for as long as the soak runs.
(
  flip=0
  while true; do
    for p in openai anthropic mistral groq cohere; do
      if [ $flip = 0 ]; then control "$p" '{"status": "outage"}'; else control "$p" '{"status": "operational"}'; fi
    done
    flip=$((1 - flip))
    sleep 10
  done
) &
pids+=($!)

a=http://$api/api/v1
echo "== soak: $rate requests/s for $dur, five providers flapping every 10 s, webhooks to $hook"
set +e
"$loadgen" -rate "$rate" -d "$dur" -every 30s -metrics "http://$metrics/metrics" \
  "60=$a/health" "8=$a/pick?task=llm" "5=$a/failover?primary=openai" "5=$a/cheapest?task=llm" \
  "4=$a/pricing?provider=openai" "4=$a/models?provider=anthropic" "3=$a/latency?provider=openai" \
  "3=$a/incidents?hours=168" "2=$a/changelog?provider=openai" "2=$a/json-mode?provider=openai" "2=$a/sla" \
  "2=$a/uptime-history?provider=openai" | tee "$dir/soak.txt"
status=${PIPESTATUS[0]}
set -e
hooks=$(grep -c 'signature valid' "$dir/hooks.log" || true)
echo "webhooks verified by the receiver: $hooks"
# Resource lines: t req/s errors p99 inflight goroutines rss fds. Compare the first with the largest later value.
awk -v mg="$max_goroutines" -v mr="$max_rss_mib" -v mf="$max_fds" '
  $1 ~ /^[0-9]+m?[0-9]*s$/ && $6 != "-" {
    n++
    if (n == 1) { g0 = $6; r0 = $7; f0 = $8 }
    if ($6 > gmax) gmax = $6; if ($7 > rmax) rmax = $7; if ($8 > fmax) fmax = $8
  }
  END {
    if (n < 2) { print "too few samples to judge growth"; exit 1 }
    printf "growth after the first sample: goroutines %+d (bound %d), rss %+.1f MiB (bound %d), open files %+d (bound %d)\n", gmax-g0, mg, rmax-r0, mr, fmax-f0, mf
    if (gmax-g0 > mg || rmax-r0 > mr || fmax-f0 > mf) exit 1
  }' "$dir/soak.txt" || { echo "soak: resources grew past their bounds" >&2; exit 1; }
if [ "$status" != 0 ]; then echo "soak: loadgen saw errors" >&2; exit 1; fi
if [ "$hooks" = 0 ]; then echo "soak: no webhook was delivered" >&2; cat "$dir/hooks.log" | tail -5; exit 1; fi
grep -i '"level":"ERROR"' "$dir/serve.log" | head -5 || true
echo "soak: passed"
