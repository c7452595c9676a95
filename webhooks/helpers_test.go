package webhooks_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
)

// clock is a settable test clock: the worker's retry schedule, leases and expiry follow it, never real time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// hit is one request a receiver saw.
type hit struct {
	Header http.Header
	Body   []byte
}

// receiver is a real HTTP server on loopback. answer decides each response from the request's 1-based number.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []hit
	answer func(n int, w http.ResponseWriter, r *http.Request)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.hits = append(rc.hits, hit{Header: r.Header.Clone(), Body: body})
	n := len(rc.hits)
	rc.mu.Unlock()
	if rc.answer == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // the answer may read it too
	rc.answer(n, w, r)
}

func (rc *receiver) Hits() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// status answers every request with one status.
func status(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

// env is a store, a clock, the subscription service and a worker over them.
type env struct {
	t     *testing.T
	st    store.Store
	url   string
	clock *clock
	svc   *webhooks.Service
	w     *webhooks.Worker
	logs  *apitest.SyncBuffer
}

func newEnv(t *testing.T, e dbtest.Engine, mod ...func(*webhooks.Config)) *env {
	t.Helper()
	st, u := e.Open(t)
	en := &env{t: t, st: st, url: u, clock: newClock(), logs: &apitest.SyncBuffer{}}
	// The tests' receivers share 127.0.0.1: limits far above what they make.
	en.svc = &webhooks.Service{Store: st, KnownProvider: seeds.Providers().Known, AllowLoopback: true, Now: en.clock.Now,
		Limits: webhooks.Limits{PerClient: 100_000, PerHost: 100_000, Total: 100_000}}
	en.w = en.worker(st, mod...)
	return en
}

// worker makes a new worker over st: a restarted process is a new worker over the same database.
func (en *env) worker(st store.Store, mod ...func(*webhooks.Config)) *webhooks.Worker {
	en.t.Helper()
	cfg := webhooks.Config{
		Now: en.clock.Now, AllowLoopback: true, Timeout: 2 * time.Second,
		Logger: slog.New(slog.NewJSONHandler(en.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, m := range mod {
		m(&cfg)
	}
	w, err := webhooks.New(cfg, st)
	if err != nil {
		en.t.Fatal(err)
	}
	return w
}

// subscribe creates a subscription and marks it verified, as if its callback had echoed the challenge: the
// handshake has tests of its own, and these receivers answer deliveries only.
func (en *env) subscribe(in webhooks.CreateInput) store.WebhookSubscription {
	en.t.Helper()
	c, err := en.svc.Create(context.Background(), in)
	if err != nil {
		en.t.Fatalf("subscribing %s: %v", in.CallbackURL, err)
	}
	return markVerified(en.t, en.st, c.Subscription.ID, en.clock.Now())
}

func markVerified(t testing.TB, st store.Store, id string, at time.Time) store.WebhookSubscription {
	t.Helper()
	ctx := context.Background()
	if _, err := st.RecordWebhookVerification(ctx, store.WebhookVerificationResult{SubscriptionID: id, At: at, OK: true}); err != nil {
		t.Fatal(err)
	}
	sub, err := st.GetWebhookSubscription(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func (en *env) drain() webhooks.Stats {
	en.t.Helper()
	return drainWith(en.t, en.w)
}

func drainWith(t *testing.T, w *webhooks.Worker) webhooks.Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := w.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (en *env) get(id string) store.WebhookSubscription {
	en.t.Helper()
	sub, err := en.svc.Get(context.Background(), id)
	if err != nil {
		en.t.Fatal(err)
	}
	return sub
}

// emit records a check whose state change produces events, the way the poller does (its own state machine
// and payloads), and returns the events it queued.
func (en *env) emit(provider string, from, to store.Outcome) []store.OutboxEvent {
	en.t.Helper()
	ctx := context.Background()
	now := en.clock.Now()
	var prev *store.ProviderState
	states, err := en.st.ProviderStates(ctx)
	if err != nil {
		en.t.Fatal(err)
	}
	for i := range states {
		if states[i].ProviderID == provider {
			prev = &states[i]
		}
	}
	if prev == nil || prev.LastStatus != from {
		// Put the provider in the from state first, a minute earlier.
		en.record(provider, from, now.Add(-time.Minute), prev)
		states, _ = en.st.ProviderStates(ctx)
		for i := range states {
			if states[i].ProviderID == provider {
				prev = &states[i]
			}
		}
	}
	return en.record(provider, to, now, prev)
}

func (en *env) record(provider string, status store.Outcome, at time.Time, prev *store.ProviderState) []store.OutboxEvent {
	en.t.Helper()
	ctx := context.Background()
	var open *store.Incident
	if prev != nil && prev.OpenIncidentID != nil {
		inc, err := en.st.GetIncident(ctx, *prev.OpenIncidentID)
		if err != nil {
			en.t.Fatal(err)
		}
		open = &inc
	}
	before, _ := en.st.OutboxAfter(ctx, 0, 0)
	fx := poller.Step(prev, open, poller.Observation{ProviderID: provider, ProviderName: provider, At: at, Status: parseStatus(status)}, uuid.NewString)
	_, err := en.st.RecordCheckResult(ctx, store.CheckResult{
		Check: store.Check{ProviderID: provider, CheckedAt: at, Outcome: status},
		State: fx.State, Change: fx.Change, NewIncident: fx.NewIncident, UpdatedIncident: fx.UpdatedIncident, Events: fx.Events,
	})
	if err != nil {
		en.t.Fatal(err)
	}
	after, _ := en.st.OutboxAfter(ctx, 0, 0)
	return after[len(before):]
}

func parseStatus(o store.Outcome) parse.Status { return parse.Status(o) }

func ptr[T any](v T) *T { return &v }
