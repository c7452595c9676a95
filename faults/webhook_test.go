package faults_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/simulator"
)

// TestKillDuringWebhookDelivery kills the service while a receiver holds its first delivery open, restarts it
// on the same database and expects the event delivered after all, with the same webhook-id, once the killed
// worker's lease on the delivery runs out (set here just above the webhook timeout rather than the default
// minute more): an event is never delivered zero times.
func TestKillDuringWebhookDelivery(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		ids []string
	)
	first := make(chan struct{})
	delivered := make(chan string, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Service-Event") == "webhook.verify" {
			echoChallenge(w, r) // the handshake a subscription passes before it gets events
			return
		}
		// Reading the body makes net/http watch the connection, so the context ends when the service dies.
		io.Copy(io.Discard, r.Body)
		id := r.Header.Get("webhook-id")
		mu.Lock()
		ids = append(ids, id)
		n := len(ids)
		mu.Unlock()
		if n == 1 {
			close(first)
			<-r.Context().Done() // held open until the service dies
			return
		}
		w.WriteHeader(http.StatusNoContent)
		delivered <- id
	}))
	t.Cleanup(recv.Close)

	sim, simURL := startSimulator(t)
	path := filepath.Join(t.TempDir(), "hooks.db")
	env := map[string]string{"DATABASE_URL": "sqlite://" + path, "SWITCHBOARD_STATUS_BASE_URL": simURL,
		"SWITCHBOARD_POLL_INTERVAL": "10s", "SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK": "true", "SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK": "true",
		"SWITCHBOARD_WEBHOOK_LEASE": "20s"}
	svc := start(t, env)
	body := []byte(`{"callback_url": "` + recv.URL + `/hook", "events": ["provider.down"], "providers": ["openai"]}`)
	res, err := http.Post(svc.URL+"/api/v1/webhooks", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
		t.Fatalf("creating the subscription: %d", res.StatusCode)
	}
	db := openDB(t, path)
	waitFor(t, 15*time.Second, "openai's first observation", func() bool {
		return count(t, db, "SELECT count(*) FROM provider_state WHERE provider_id = 'openai'") == 1
	})
	if err := sim.Set("openai", simulator.Scenario{Status: "outage", Fail: "none"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		t.Fatalf("no delivery within 30 s of the outage:\n%s", svc.logs)
	}
	svc.kill()

	svc = start(t, env)
	select {
	case id := <-delivered:
		mu.Lock()
		firstID := ids[0]
		mu.Unlock()
		if id != firstID {
			t.Errorf("redelivered with webhook-id %q, first attempt had %q", id, firstID)
		}
	case <-time.After(120 * time.Second):
		t.Fatalf("the event was not delivered within 120 s of the restart:\n%s", svc.logs)
	}
	svc.stop()
	integrityOK(t, db)
	if n := count(t, db, "SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'"); n != 1 {
		t.Errorf("%d deliveries marked delivered, want 1", n)
	}
}

// echoChallenge answers a webhook verification request with its challenge.
func echoChallenge(w http.ResponseWriter, r *http.Request) {
	var v struct {
		Payload struct {
			Challenge string `json:"challenge"`
		} `json:"payload"`
	}
	_ = json.NewDecoder(r.Body).Decode(&v)
	_ = json.NewEncoder(w).Encode(map[string]string{"challenge": v.Payload.Challenge})
}
