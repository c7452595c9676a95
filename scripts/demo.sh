#!/usr/bin/env bash
# make demo: the simulator and the service side by side, with a scripted scenario, so that a newcomer without
# internet sees a provider go down and recover within a minute. Ctrl-C stops both.
set -euo pipefail
bin=${1:-./switchboard}
sim=127.0.0.1:${DEMO_SIM_PORT:-18090}
api=127.0.0.1:${DEMO_API_PORT:-18080}
hook=127.0.0.1:${DEMO_HOOK_PORT:-18095}
hook_secret=demo-secret-$RANDOM$RANDOM-0123456789
dir=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM

# A port already taken is named before anything starts, with the setting that moves it.
for p in "DEMO_API_PORT ${api##*:}" "DEMO_SIM_PORT ${sim##*:}" "DEMO_HOOK_PORT ${hook##*:}"; do
  set -- $p
  if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then
    echo "make demo: port $2 on 127.0.0.1 is already in use (by another program or an earlier demo);" \
      "choose another with $1, for example: $1=$(( $2 + 1000 )) make demo" >&2
    exit 1
  fi
done

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
get() { curl -fsS "http://$api$1"; }
wait_for() { for _ in $(seq 1 50); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "no answer from $1" >&2; exit 1; }
control() { curl -fsS -X PUT "http://$sim/_control/$1" -H 'Content-Type: application/json' -d "$2" >/dev/null; }
summary() { get /api/v1/health | python3 -c 'import json,sys; d=json.load(sys.stdin); o=d["providers"]["openai"]; print("summary:", d["summary"], "| openai:", o["status"])'; }
# wait_webhook EVENT SINCE: waits (30 s at most) until the receiver printed a signed EVENT, then prints it with the
# seconds elapsed since SINCE (the moment the simulator changed the page).
wait_webhook() {
  for _ in $(seq 1 150); do
    if line=$(grep -m1 "received $1 (signature valid)" "$dir/receiver.log"); then
      printf 'webhook receiver, %ss after the simulator changed the page: %s\n' "$(( $(date +%s) - $2 ))" "$line"
      return 0
    fi
    sleep 0.2
  done
  echo "no signed $1 webhook within 30 s; receiver log:" >&2; cat "$dir/receiver.log" >&2; exit 1
}

# The webhook receiver (examples/webhook-receiver): checks each delivery's signature and prints it.
${GO:-go} build -o "$dir/webhook-receiver" ./examples/webhook-receiver
"$dir/webhook-receiver" -addr "$hook" -secret "$hook_secret" >"$dir/receiver.log" 2>&1 &
pids+=($!)

"$bin" simulate --addr "$sim" --log-format text --log-level warn &
pids+=($!)
wait_for "http://$sim/_control"
"$bin" serve --addr "$api" --database-url "sqlite://$dir/demo.db" --status-base-url "http://$sim" \
  --poll-interval 10s --log-format text --log-level warn --webhook-allow-loopback=true --outbound-allow-loopback=true &
pids+=($!)
wait_for "http://$api/readyz"

say "A local receiver subscribes to OpenAI's provider.down and provider.up (signed with its secret)"
sub=$(curl -fsS -X POST "http://$api/api/v1/webhooks" -H 'Content-Type: application/json' \
  -d '{"callback_url": "http://'"$hook"'/hook", "events": ["provider.down", "provider.up"], "providers": ["openai"], "secret": "'"$hook_secret"'"}')
echo "$sub"
verify_url=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["verify_url"])' <<<"$sub")

say "Polling the simulated pages of 52 providers every 10 s (service http://$api, simulator http://$sim)"
sleep 3
summary

say "Scenario: OpenAI's API goes into a major outage"
control openai '{"status": "outage"}'
down_at=$(date +%s)
wait_webhook provider.down "$down_at"
sleep 2
summary
say "/api/v1/changelog?provider=openai"
get '/api/v1/changelog?provider=openai'
say "/api/v1/incidents?provider=openai"
get '/api/v1/incidents?provider=openai'

say "Scenario: OpenAI recovers"
control openai '{"status": "operational"}'
up_at=$(date +%s)
wait_webhook provider.up "$up_at"
sleep 2
summary
say "The subscription's delivery statistics ($verify_url)"
curl -fsS "$verify_url"
echo
get '/api/v1/changelog?provider=openai'
get '/api/v1/incidents?provider=openai'

say "Scenario: Anthropic's status page times out: its status stays the last observed one (never outage)"
control anthropic '{"fail": "timeout"}'
sleep 11
get /api/v1/freshness?provider=anthropic

say "Done. The service and the simulator keep running until Ctrl-C, which stops everything the demo started"
cat <<EOF
dashboard:  http://$api/
API docs:   http://$api/docs
try:
  curl -s http://$api/api/v1/health
  curl -s 'http://$api/api/v1/pick?task=llm'
  curl -s -X PUT http://$sim/_control/mistral -H 'Content-Type: application/json' -d '{"status": "degraded"}'
EOF
wait
