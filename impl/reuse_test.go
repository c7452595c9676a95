package impl_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/server"
)

// The HTTP layer replays x-answer-reuse answers for the moment the API names.
var _ server.LiveEpocher = (*impl.Server)(nil)

// TestHealthReplayedWithinSnapshotAndSecond: through the whole handler, /health is made once per poll snapshot
// and second of the service's clock. A second request of the same second gets the same bytes (with its own
// request ID); a new snapshot in that second (a poll cycle) or the next second makes it anew.
func TestHealthReplayedWithinSnapshotAndSecond(t *testing.T) {
	st, _ := dbtest.Engines(t)[0].Open(t)
	start := time.Now().UTC().Truncate(time.Second)
	var clock atomic.Int64
	clock.Store(start.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	h := newPollHistory(t, st)
	h.check("openai", start.Add(-time.Minute), parse.Operational, 200)
	view := health.New(st, health.Options{})
	if err := view.Refresh(context.Background(), start); err != nil {
		t.Fatal(err)
	}
	s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Health: view, Now: now})})
	statusOf := func(r *apitest.Response) (string, string) {
		t.Helper()
		var body struct {
			Timestamp string `json:"timestamp"`
			Providers map[string]struct {
				Status string `json:"status"`
			} `json:"providers"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		return body.Timestamp, body.Providers["openai"].Status
	}

	first, second := s.Get("/api/v1/health"), s.Get("/api/v1/health")
	if string(first.Body) != string(second.Body) || first.Header.Get("ETag") != second.Header.Get("ETag") {
		t.Errorf("same snapshot and second: two answers\n%s\n%s", first.Body, second.Body)
	}
	if first.Header.Get("X-Request-Id") == second.Header.Get("X-Request-Id") {
		t.Error("a replayed answer carries the first request's ID")
	}
	if _, status := statusOf(first); status != "operational" {
		t.Fatalf("openai %q, want operational", status)
	}

	// A poll cycle within the same second: a new snapshot, a new answer.
	h.check("openai", start, parse.Outage, 300)
	if err := view.Refresh(context.Background(), start); err != nil {
		t.Fatal(err)
	}
	if _, status := statusOf(s.Get("/api/v1/health")); status != "outage" {
		t.Errorf("after a new snapshot in the same second: openai %q, want outage", status)
	}

	// The next second: a new answer, with its own timestamp.
	before, _ := statusOf(s.Get("/api/v1/health"))
	clock.Add(int64(time.Second))
	if after, _ := statusOf(s.Get("/api/v1/health")); after == before {
		t.Errorf("the next second answered the timestamp %s again", after)
	}
}
