package faults_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard/switchboard/simulator"
)

// TestKillDuringPollCycle kills the service while a cycle is half written (slow pages still pending, fast ones
// recorded), restarts it on the same SQLite file and lets a full cycle run: the database is intact, every check
// recorded before the kill is still there, and OpenAI's outage (its first observation) opened exactly one
// incident with one incident.new event, whether the killed cycle had written it or not.
func TestKillDuringPollCycle(t *testing.T) {
	t.Parallel()
	sim, simURL := startSimulator(t)
	slow := []string{"anthropic", "mistral", "cohere", "groq", "together", "fireworks", "deepseek", "xai"}
	for _, id := range slow {
		if err := sim.Set(id, simulator.Scenario{Status: "operational", DelayMS: 4000, Fail: "none"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sim.Set("openai", simulator.Scenario{Status: "outage", Fail: "none"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "poll.db")
	env := map[string]string{"DATABASE_URL": "sqlite://" + path, "SWITCHBOARD_STATUS_BASE_URL": simURL,
		"SWITCHBOARD_POLL_INTERVAL": "10s", "SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK": "true"}
	svc := start(t, env)
	db := openDB(t, path)
	// Fast pages are recorded as they arrive; the slow ones hold the cycle open for 4 s.
	waitFor(t, 10*time.Second, "fast providers recorded", func() bool {
		return count(t, db, "SELECT count(*) FROM checks") >= 30
	})
	before := count(t, db, "SELECT count(*) FROM checks")
	svc.kill()

	integrityOK(t, db)
	if after := count(t, db, "SELECT count(*) FROM checks"); after < before {
		t.Fatalf("checks: %d after the kill, %d seen before it", after, before)
	}
	for _, id := range slow {
		if err := sim.Set(id, simulator.DefaultScenario()); err != nil {
			t.Fatal(err)
		}
	}
	svc = start(t, env)
	waitFor(t, 20*time.Second, "a full cycle after the restart", func() bool {
		return count(t, db, "SELECT count(*) FROM checks") >= before+52
	})
	svc.stop()
	integrityOK(t, db)
	if n := count(t, db, "SELECT count(*) FROM provider_state"); n != 52 {
		t.Errorf("provider_state: %d rows, want 52", n)
	}
	if n := count(t, db, "SELECT count(*) FROM incidents WHERE provider_id = 'openai'"); n != 1 {
		t.Errorf("openai's outage opened %d incidents, want one", n)
	}
	if n := count(t, db, "SELECT count(*) FROM outbox WHERE provider_id = 'openai' AND event_type = 'incident.new'"); n != 1 {
		t.Errorf("openai's incident.new is in the outbox %d times, want once", n)
	}
	if n := count(t, db, "SELECT count(*) FROM outbox WHERE provider_id <> 'openai'"); n != 0 {
		t.Errorf("%d events for providers that never changed", n)
	}
}
