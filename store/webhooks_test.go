package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
)

// TestStoreWebhooks runs the webhook suite on every engine (named TestStore... so `make test` lists it).
func TestStoreWebhooks(t *testing.T) {
	suite := map[string]func(t *testing.T, s store.Store, u string){
		"Subscriptions":       testWebhookSubscriptions,
		"SubscriptionInvalid": testWebhookSubscriptionInvalid,
		"FanOut":              testWebhookFanOut,
		"FanOutHole":          testWebhookFanOutHole,
		"FanOutLateCommit":    testWebhookFanOutLateCommit,
		"Claim":               testWebhookClaim,
		"ClaimConcurrent":     testWebhookClaimConcurrent,
		"ClaimRoundRobin":     testWebhookClaimRoundRobin,
		"Limits":              testWebhookLimits,
		"Verification":        testWebhookVerification,
		"Attempts":            testWebhookAttempts,
		"Deactivation":        testWebhookDeactivation,
		"Expiry":              testWebhookExpiry,
		"Prune":               testWebhookPrune,
	}
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			for name, fn := range suite {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					s, u := e.Open(t)
					fn(t, s, u)
				})
			}
		})
	}
}

var w0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// anyHost claims without the per-host bound: these tests are about the outbox, not about fairness.
var anyHost = store.ClaimOptions{PerHost: 1000}

// newSub stores an active subscription made at w0.
func newSub(t *testing.T, s store.Store, id string, events []string, providers []string, mod ...func(*store.WebhookSubscription)) store.WebhookSubscription {
	t.Helper()
	sub := store.WebhookSubscription{
		ID: id, CallbackURL: "https://example.com/hook/" + id, Events: events, Providers: providers,
		Status: store.SubscriptionActive, CreatedAt: w0, VerifiedAt: &w0,
	}
	for _, m := range mod {
		m(&sub)
	}
	if err := s.CreateWebhookSubscription(context.Background(), sub, store.SubscriptionLimits{}); err != nil {
		t.Fatalf("creating %s: %v", id, err)
	}
	return sub
}

// queueEvent writes an event into the outbox the way the poller does: with a check, in one transaction.
func queueEvent(t *testing.T, s store.Store, provider, kind string, at time.Time) store.OutboxEvent {
	t.Helper()
	ctx := context.Background()
	before, _ := s.OutboxAfter(ctx, 0, 0)
	payload := fmt.Sprintf(`{"provider_id":%q,"previous_status":"operational","current_status":"outage","description":"x"}`, provider)
	_, err := s.RecordCheckResult(ctx, store.CheckResult{
		Check:  store.Check{ProviderID: provider, CheckedAt: at, Outcome: store.OutcomeOutage},
		Events: []store.OutboxEvent{{Type: kind, ProviderID: provider, Payload: json.RawMessage(payload), CreatedAt: at}},
	})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := s.OutboxAfter(ctx, 0, 0)
	if len(after) != len(before)+1 {
		t.Fatalf("outbox grew from %d to %d", len(before), len(after))
	}
	return after[len(after)-1]
}

func deliveries(t *testing.T, s store.Store, subID string) []store.WebhookDelivery {
	t.Helper()
	d, err := s.WebhookDeliveries(context.Background(), subID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func fanOut(t *testing.T, s store.Store, now time.Time) store.FanOutResult {
	t.Helper()
	res, err := s.FanOutWebhookEvents(context.Background(), now, store.FanOutOptions{MaxEvents: 10, GapGrace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func testWebhookSubscriptions(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	exp := w0.Add(36*time.Hour + 123456789)
	full := store.WebhookSubscription{
		ID: "2b7e1516-28ae-4d2a-abf7-158809cf4f3c", CallbackURL: "https://example.com/a?b=c", Events: []string{"provider.down", "incident.new"},
		Providers: []string{"openai", "anthropic"}, Secret: ptr("0123456789abcdef-secret"), Metadata: json.RawMessage(`{"team":"sre","n":[1,2]}`),
		Status: store.SubscriptionActive, CreatedAt: w0.Add(987654321), ExpiresAt: &exp,
		CallbackHost: "example.com", Creator: ptr("c1f0"), ManageTokenHash: ptr("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
	}
	if err := s.CreateWebhookSubscription(ctx, full, store.SubscriptionLimits{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetWebhookSubscription(ctx, full.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := full
	want.CreatedAt = full.CreatedAt.Truncate(time.Microsecond)
	e := exp.Truncate(time.Microsecond)
	want.ExpiresAt = &e
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if err := s.CreateWebhookSubscription(ctx, full, store.SubscriptionLimits{}); err == nil {
		t.Error("a duplicate ID was accepted")
	}

	// Minimal: every provider, no secret, no metadata, no expiry.
	minimal := newSub(t, s, "9c4a3c8e-8b0a-4f0e-9a53-6f4f0f7d2d11", []string{"provider.up"}, nil)
	got, err = s.GetWebhookSubscription(ctx, minimal.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Providers != nil || got.Secret != nil || got.Metadata != nil || got.ExpiresAt != nil || got.Status != store.SubscriptionActive ||
		got.DeactivatedReason != nil || got.FireCount != 0 || got.LastError != nil || got.LastDeliveryAt != nil {
		t.Errorf("minimal subscription = %+v", got)
	}
	if _, err := s.GetWebhookSubscription(ctx, "no-such-id"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
	if _, err := s.DeactivateWebhookSubscription(ctx, "no-such-id", store.ReasonUnsubscribed, w0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deactivating an unknown id: %v, want ErrNotFound", err)
	}
}

func testWebhookSubscriptionInvalid(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	ok := store.WebhookSubscription{ID: "x", CallbackURL: "https://example.com", Events: []string{"provider.down"}, CreatedAt: w0}
	for name, mod := range map[string]func(*store.WebhookSubscription){
		"no events":         func(s *store.WebhookSubscription) { s.Events = nil },
		"no id":             func(s *store.WebhookSubscription) { s.ID = "" },
		"no time":           func(s *store.WebhookSubscription) { s.CreatedAt = time.Time{} },
		"quoted event":      func(s *store.WebhookSubscription) { s.Events = []string{`provider.down","x`} },
		"odd provider":      func(s *store.WebhookSubscription) { s.Providers = []string{"open ai"} },
		"metadata not JSON": func(s *store.WebhookSubscription) { s.Metadata = json.RawMessage("{") },
	} {
		sub := ok
		mod(&sub)
		if err := s.CreateWebhookSubscription(ctx, sub, store.SubscriptionLimits{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := s.DeactivateWebhookSubscription(ctx, "x", "bored", w0); err == nil {
		t.Error("an unknown reason was accepted")
	}
}

func testWebhookFanOut(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	all := newSub(t, s, "all", []string{"provider.down", "provider.up"}, nil)
	openai := newSub(t, s, "openai-only", []string{"provider.down"}, []string{"openai"})
	other := newSub(t, s, "other-event", []string{"incident.new"}, nil)
	gone := newSub(t, s, "gone", []string{"provider.down"}, nil)
	if _, err := s.DeactivateWebhookSubscription(ctx, gone.ID, store.ReasonUnsubscribed, w0); err != nil {
		t.Fatal(err)
	}
	exp := w0.Add(time.Minute)
	expired := newSub(t, s, "expired", []string{"provider.down"}, nil, func(s *store.WebhookSubscription) { s.ExpiresAt = &exp })
	later := newSub(t, s, "later", []string{"provider.down"}, nil, func(s *store.WebhookSubscription) { s.CreatedAt = w0.Add(time.Hour) })
	// A provider whose ID contains another's ("openai" in "azure-openai") must not match the filter.
	newSub(t, s, "azure", []string{"provider.down"}, []string{"azure-openai"})

	e1 := queueEvent(t, s, "openai", "provider.down", w0.Add(2*time.Minute))
	e2 := queueEvent(t, s, "anthropic", "provider.down", w0.Add(3*time.Minute))
	e3 := queueEvent(t, s, "openai", "provider.degraded", w0.Add(4*time.Minute))

	res := fanOut(t, s, w0.Add(5*time.Minute))
	if res.Events != 3 || res.Deliveries != 3 || res.Cursor != e3.ID || res.Skipped {
		t.Fatalf("fan-out = %+v, want 3 events, 3 deliveries (all x2, openai-only x1), cursor %d", res, e3.ID)
	}
	ids := func(sub string) []int64 {
		var out []int64
		for _, d := range deliveries(t, s, sub) {
			out = append(out, d.EventID)
			if d.Status != store.DeliveryPending || d.Attempts != 0 || !d.NextAttemptAt.Equal(w0.Add(5*time.Minute)) {
				t.Errorf("new delivery = %+v", d)
			}
		}
		return out
	}
	if got := ids(all.ID); !reflect.DeepEqual(got, []int64{e1.ID, e2.ID}) {
		t.Errorf("all: events %v", got)
	}
	if got := ids(openai.ID); !reflect.DeepEqual(got, []int64{e1.ID}) {
		t.Errorf("openai-only: events %v", got)
	}
	for _, sub := range []string{other.ID, gone.ID, expired.ID, later.ID, "azure"} {
		if got := ids(sub); len(got) != 0 {
			t.Errorf("%s got deliveries for events %v", sub, got)
		}
	}
	// Nothing new: nothing happens, and the cursor stays.
	if res := fanOut(t, s, w0.Add(6*time.Minute)); res.Events != 0 || res.Deliveries != 0 || res.Cursor != e3.ID {
		t.Errorf("second fan-out = %+v", res)
	}
	e4 := queueEvent(t, s, "openai", "provider.up", w0.Add(7*time.Minute))
	if res := fanOut(t, s, w0.Add(8*time.Minute)); res.Events != 1 || res.Deliveries != 1 || res.Cursor != e4.ID {
		t.Errorf("fan-out of a new event = %+v", res)
	}
}

// rawDB runs SQL on the store's database behind its back, to make situations the store never makes itself.
func rawExec(t *testing.T, u, query string, args ...any) {
	t.Helper()
	ctx := context.Background()
	engine, target, err := store.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	if engine == "postgres" {
		conn, err := pgx.Connect(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, query, args...); err != nil {
			t.Fatal(err)
		}
		return
	}
	db, err := sql.Open("sqlite", "file:"+target+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, query, args...); err != nil {
		t.Fatal(err)
	}
}

// testWebhookFanOutHole: an ID missing from the outbox holds the cursor for the grace period only, and the
// events after it are fanned out at once all the same.
func testWebhookFanOutHole(t *testing.T, s store.Store, u string) {
	sub := newSub(t, s, "sub", []string{"provider.down"}, nil)
	e1 := queueEvent(t, s, "openai", "provider.down", w0.Add(time.Minute))
	e2 := queueEvent(t, s, "groq", "provider.down", w0.Add(time.Minute))
	e3 := queueEvent(t, s, "mistral", "provider.down", w0.Add(time.Minute))
	rawExec(t, u, fmt.Sprintf("DELETE FROM outbox WHERE id = %d", e2.ID))

	t1 := w0.Add(2 * time.Minute)
	if res := fanOut(t, s, t1); res.Events != 2 || res.Cursor != e1.ID {
		t.Fatalf("fan-out over a hole = %+v, want 2 events and the cursor held at %d", res, e1.ID)
	}
	if n := len(deliveries(t, s, sub.ID)); n != 2 {
		t.Errorf("%d deliveries, want 2", n)
	}
	if res := fanOut(t, s, t1.Add(59*time.Second)); res.Events != 0 || res.Cursor != e1.ID {
		t.Errorf("within the grace: %+v", res)
	}
	if res := fanOut(t, s, t1.Add(time.Minute)); res.Events != 0 || res.Cursor != e3.ID {
		t.Errorf("after the grace: %+v, want the cursor at %d", res, e3.ID)
	}
}

// testWebhookFanOutLateCommit: with PostgreSQL an event can commit after a later one was fanned out; it is
// fanned out when it shows up, and the cursor waited for it.
func testWebhookFanOutLateCommit(t *testing.T, s store.Store, u string) {
	if s.Engine() != "postgres" {
		t.Skip("SQLite has one writer: IDs commit in order")
	}
	ctx := context.Background()
	sub := newSub(t, s, "sub", []string{"provider.down"}, nil)
	_, target, _ := store.ParseURL(u)
	conn, err := pgx.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var slowID int64
	err = tx.QueryRow(ctx, `INSERT INTO outbox (event_type, provider_id, payload, created_at, check_id)
		VALUES ('provider.down', 'openai', '{}', $1, 999999) RETURNING id`, w0.Add(time.Minute)).Scan(&slowID)
	if err != nil {
		t.Fatal(err)
	}
	fast := queueEvent(t, s, "groq", "provider.down", w0.Add(time.Minute))
	if fast.ID <= slowID {
		t.Fatalf("ids %d, %d", slowID, fast.ID)
	}
	if res := fanOut(t, s, w0.Add(2*time.Minute)); res.Events != 1 || res.Cursor != slowID-1 {
		t.Fatalf("fan-out before the slow commit = %+v, want 1 event and the cursor at %d", res, slowID-1)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if res := fanOut(t, s, w0.Add(2*time.Minute+time.Second)); res.Events != 1 || res.Cursor != fast.ID {
		t.Fatalf("fan-out after the slow commit = %+v, want 1 event and the cursor at %d", res, fast.ID)
	}
	if n := len(deliveries(t, s, sub.ID)); n != 2 {
		t.Errorf("%d deliveries, want 2", n)
	}
}

func testWebhookClaim(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	sub := newSub(t, s, "sub", []string{"provider.down"}, nil, func(s *store.WebhookSubscription) { s.Secret = ptr("k-0123456789abcdef") })
	off := newSub(t, s, "off", []string{"provider.down"}, nil)
	e := queueEvent(t, s, "openai", "provider.down", w0.Add(time.Minute))
	now := w0.Add(2 * time.Minute)
	fanOut(t, s, now)
	if _, err := s.DeactivateWebhookSubscription(ctx, off.ID, store.ReasonUnsubscribed, now); err != nil {
		t.Fatal(err)
	}
	if d := deliveries(t, s, off.ID); len(d) != 1 || d[0].Status != store.DeliveryCancelled {
		t.Errorf("deliveries of an unsubscribed subscription: %+v", d)
	}

	lease := now.Add(time.Minute)
	got, err := s.ClaimWebhookDeliveries(ctx, now, lease, 10, anyHost)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("claimed %d, want 1", len(got))
	}
	c := got[0]
	if c.SubscriptionID != sub.ID || c.EventID != e.ID || c.Attempts != 0 || c.CallbackURL != sub.CallbackURL || *c.Secret != *sub.Secret ||
		c.Event.Type != "provider.down" || c.Event.ProviderID != "openai" || !c.Event.CreatedAt.Equal(w0.Add(time.Minute)) ||
		string(c.Event.Payload) != string(e.Payload) {
		t.Errorf("claimed %+v", c)
	}
	// Leased: nobody else gets it until the lease runs out.
	if again, _ := s.ClaimWebhookDeliveries(ctx, now.Add(59*time.Second), lease, 10, anyHost); len(again) != 0 {
		t.Errorf("claimed again within the lease: %+v", again)
	}
	again, err := s.ClaimWebhookDeliveries(ctx, lease, lease.Add(time.Minute), 10, anyHost)
	if err != nil || len(again) != 1 || again[0].DeliveryID != c.DeliveryID {
		t.Errorf("after the lease: %+v, %v", again, err)
	}
	// A failed attempt scheduled later is not due before then.
	next := lease.Add(5 * time.Second)
	if _, err := s.RecordWebhookAttempts(ctx, []store.WebhookAttempt{{
		DeliveryID: c.DeliveryID, SubscriptionID: sub.ID, At: lease, Error: "HTTP 500", HTTPStatus: ptr(int64(500)), NextAttemptAt: &next, MaxConsecutiveFailures: 10,
	}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ClaimWebhookDeliveries(ctx, next.Add(-time.Millisecond), next.Add(time.Hour), 10, anyHost); len(got) != 0 {
		t.Errorf("claimed before it was due: %+v", got)
	}
	if got, _ := s.ClaimWebhookDeliveries(ctx, next, next.Add(time.Hour), 10, anyHost); len(got) != 1 || got[0].Attempts != 1 {
		t.Errorf("claimed when due: %+v", got)
	}
}

// testWebhookClaimConcurrent: workers claiming at the same time never get the same delivery.
func testWebhookClaimConcurrent(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	const subs, workers = 60, 6
	for i := range subs {
		newSub(t, s, fmt.Sprintf("sub-%02d", i), []string{"provider.down"}, nil)
	}
	queueEvent(t, s, "openai", "provider.down", w0.Add(time.Minute))
	now := w0.Add(2 * time.Minute)
	if res := fanOut(t, s, now); res.Deliveries != subs {
		t.Fatalf("fan-out = %+v", res)
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := s.ClaimWebhookDeliveries(ctx, now, now.Add(time.Minute), 4, anyHost)
				if err != nil {
					errs <- err
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, g := range got {
					seen[g.DeliveryID]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != subs {
		t.Errorf("%d deliveries claimed, want %d", len(seen), subs)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("delivery %d claimed %d times", id, n)
		}
	}
}

func claimOne(t *testing.T, s store.Store, now time.Time) store.WebhookSend {
	t.Helper()
	got, err := s.ClaimWebhookDeliveries(context.Background(), now, now.Add(time.Minute), 1, anyHost)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim at %v: %+v, %v", now, got, err)
	}
	return got[0]
}

func testWebhookAttempts(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	sub := newSub(t, s, "sub", []string{"provider.down"}, nil)
	queueEvent(t, s, "openai", "provider.down", w0.Add(time.Minute))
	queueEvent(t, s, "groq", "provider.down", w0.Add(time.Minute))
	now := w0.Add(2 * time.Minute)
	fanOut(t, s, now)

	a := claimOne(t, s, now)
	next := now.Add(5 * time.Second)
	res, err := s.RecordWebhookAttempts(ctx, []store.WebhookAttempt{{
		DeliveryID: a.DeliveryID, SubscriptionID: sub.ID, At: now, Error: "HTTP 503", HTTPStatus: ptr(int64(503)), NextAttemptAt: &next, MaxConsecutiveFailures: 10,
	}})
	if err != nil || len(res) != 1 || res[0].ConsecutiveFailures != 1 || res[0].Deactivated != nil {
		t.Fatalf("failure: %+v, %v", res, err)
	}
	got, _ := s.GetWebhookSubscription(ctx, sub.ID)
	if got.FailCount != 1 || got.ConsecutiveFailures != 1 || got.FireCount != 0 || *got.LastError != "HTTP 503" || !got.LastDeliveryAt.Equal(now) {
		t.Errorf("after a failure: %+v", got)
	}
	d := deliveries(t, s, sub.ID)[0]
	if d.Status != store.DeliveryPending || d.Attempts != 1 || !d.NextAttemptAt.Equal(next) || d.LockedUntil != nil || *d.LastStatus != 503 || *d.LastError != "HTTP 503" {
		t.Errorf("failed delivery = %+v", d)
	}

	// The other delivery succeeds: the run of failures resets, the first delivery is still pending.
	b := claimOne(t, s, now)
	if b.DeliveryID == a.DeliveryID {
		t.Fatal("claimed the delivery that is not due")
	}
	if _, err := s.RecordWebhookAttempts(ctx, []store.WebhookAttempt{{DeliveryID: b.DeliveryID, SubscriptionID: sub.ID, At: now, Success: true, HTTPStatus: ptr(int64(204))}}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.GetWebhookSubscription(ctx, sub.ID)
	if got.FireCount != 1 || got.FailCount != 1 || got.ConsecutiveFailures != 0 || *got.LastError != "HTTP 503" {
		t.Errorf("after a success: %+v", got)
	}
	d = deliveries(t, s, sub.ID)[1]
	if d.Status != store.DeliveryDelivered || d.Attempts != 1 || d.FinishedAt == nil || d.LastError != nil || *d.LastStatus != 204 {
		t.Errorf("delivered = %+v", d)
	}

	// Giving up: no next attempt.
	a = claimOne(t, s, next)
	if _, err := s.RecordWebhookAttempts(ctx, []store.WebhookAttempt{{DeliveryID: a.DeliveryID, SubscriptionID: sub.ID, At: next, Error: "timeout after 15s", MaxConsecutiveFailures: 10}}); err != nil {
		t.Fatal(err)
	}
	d = deliveries(t, s, sub.ID)[0]
	if d.Status != store.DeliveryFailed || d.Attempts != 2 || d.FinishedAt == nil || d.LastStatus != nil {
		t.Errorf("given up = %+v", d)
	}
	if got, _ := s.ClaimWebhookDeliveries(ctx, next.Add(24*time.Hour), next.Add(25*time.Hour), 10, anyHost); len(got) != 0 {
		t.Errorf("a given-up delivery was claimed: %+v", got)
	}
}

func testWebhookDeactivation(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	sub := newSub(t, s, "sub", []string{"provider.down"}, nil)
	const max = 3
	for i := range max + 1 {
		queueEvent(t, s, fmt.Sprintf("p%d", i), "provider.down", w0.Add(time.Minute))
	}
	now := w0.Add(2 * time.Minute)
	fanOut(t, s, now)
	var batch []store.WebhookAttempt
	for _, c := range mustClaim(t, s, now, max) {
		later := now.Add(time.Hour)
		batch = append(batch, store.WebhookAttempt{DeliveryID: c.DeliveryID, SubscriptionID: sub.ID, At: now, Error: "HTTP 500", NextAttemptAt: &later, MaxConsecutiveFailures: max})
	}
	res, err := s.RecordWebhookAttempts(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Deactivated != nil || res[1].Deactivated != nil || res[2].Deactivated == nil || *res[2].Deactivated != store.ReasonDeliveryFailures {
		t.Errorf("results = %+v", res)
	}
	got, _ := s.GetWebhookSubscription(ctx, sub.ID)
	if got.Status != store.SubscriptionDeactivated || *got.DeactivatedReason != store.ReasonDeliveryFailures || got.ConsecutiveFailures != max || got.DeactivatedAt == nil {
		t.Errorf("after %d failures: %+v", max, got)
	}
	for _, d := range deliveries(t, s, sub.ID) {
		if d.Status != store.DeliveryCancelled {
			t.Errorf("delivery of a deactivated subscription: %+v", d)
		}
	}
	// Unsubscribing later keeps the first reason.
	got, err = s.DeactivateWebhookSubscription(ctx, sub.ID, store.ReasonUnsubscribed, now.Add(time.Hour))
	if err != nil || *got.DeactivatedReason != store.ReasonDeliveryFailures {
		t.Errorf("second deactivation: %+v, %v", got, err)
	}

	// 410: at once, and a delivery in flight that fails afterwards stays cancelled.
	gone := newSub(t, s, "gone", []string{"provider.up"}, nil)
	queueEvent(t, s, "openai", "provider.up", w0.Add(3*time.Minute))
	queueEvent(t, s, "groq", "provider.up", w0.Add(3*time.Minute))
	now = w0.Add(4 * time.Minute)
	fanOut(t, s, now)
	cs := mustClaim(t, s, now, 2)
	res, err = s.RecordWebhookAttempts(ctx, []store.WebhookAttempt{{DeliveryID: cs[0].DeliveryID, SubscriptionID: gone.ID, At: now, Error: "HTTP 410", Gone: true, MaxConsecutiveFailures: 10}})
	if err != nil || res[0].Deactivated == nil || *res[0].Deactivated != store.ReasonGone {
		t.Fatalf("410: %+v, %v", res, err)
	}
	later := now.Add(time.Hour)
	if _, err := s.RecordWebhookAttempts(ctx, []store.WebhookAttempt{{DeliveryID: cs[1].DeliveryID, SubscriptionID: gone.ID, At: now, Error: "HTTP 500", NextAttemptAt: &later, MaxConsecutiveFailures: 10}}); err != nil {
		t.Fatal(err)
	}
	ds := deliveries(t, s, gone.ID)
	if ds[0].Status != store.DeliveryFailed || ds[1].Status != store.DeliveryCancelled || ds[1].Attempts != 1 {
		t.Errorf("deliveries after 410: %+v", ds)
	}
}

func mustClaim(t *testing.T, s store.Store, now time.Time, n int) []store.WebhookSend {
	t.Helper()
	got, err := s.ClaimWebhookDeliveries(context.Background(), now, now.Add(time.Minute), n, anyHost)
	if err != nil || len(got) != n {
		t.Fatalf("claimed %d, %v; want %d", len(got), err, n)
	}
	return got
}

func testWebhookExpiry(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	exp := w0.Add(time.Hour)
	sub := newSub(t, s, "sub", []string{"provider.down"}, nil, func(s *store.WebhookSubscription) { s.ExpiresAt = &exp })
	keep := newSub(t, s, "keep", []string{"provider.down"}, nil)
	queueEvent(t, s, "openai", "provider.down", w0.Add(time.Minute))
	fanOut(t, s, w0.Add(2*time.Minute))
	if ids, err := s.ExpireWebhookSubscriptions(ctx, exp.Add(-time.Second), 10); err != nil || len(ids) != 0 {
		t.Fatalf("before expiry: %v, %v", ids, err)
	}
	// Past the expiry its pending delivery is never claimed, even before the expiry is recorded.
	got, err := s.ClaimWebhookDeliveries(ctx, exp, exp.Add(time.Minute), 10, anyHost)
	if err != nil || len(got) != 1 || got[0].SubscriptionID != keep.ID {
		t.Fatalf("claim at expiry: %+v, %v", got, err)
	}
	ids, err := s.ExpireWebhookSubscriptions(ctx, exp, 10)
	if err != nil || !reflect.DeepEqual(ids, []string{sub.ID}) {
		t.Fatalf("expired %v, %v", ids, err)
	}
	st, _ := s.GetWebhookSubscription(ctx, sub.ID)
	if st.Status != store.SubscriptionDeactivated || *st.DeactivatedReason != store.ReasonExpired || !st.DeactivatedAt.Equal(exp) {
		t.Errorf("expired subscription = %+v", st)
	}
	if d := deliveries(t, s, sub.ID); d[0].Status != store.DeliveryCancelled {
		t.Errorf("delivery of an expired subscription = %+v", d[0])
	}
	if ids, _ := s.ExpireWebhookSubscriptions(ctx, exp.Add(time.Hour), 10); len(ids) != 0 {
		t.Errorf("expired twice: %v", ids)
	}
}

func testWebhookPrune(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	sub := newSub(t, s, "sub", []string{"provider.down"}, nil)
	for i := range 3 {
		queueEvent(t, s, fmt.Sprintf("p%d", i), "provider.down", w0.Add(time.Minute))
	}
	now := w0.Add(2 * time.Minute)
	fanOut(t, s, now)
	cs := mustClaim(t, s, now, 2)
	if _, err := s.RecordWebhookAttempts(ctx, []store.WebhookAttempt{
		{DeliveryID: cs[0].DeliveryID, SubscriptionID: sub.ID, At: now, Success: true},
		{DeliveryID: cs[1].DeliveryID, SubscriptionID: sub.ID, At: now.Add(time.Hour), Success: true},
	}); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneWebhookDeliveries(ctx, now.Add(time.Minute), 10)
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	left := deliveries(t, s, sub.ID)
	if len(left) != 2 || left[0].ID != cs[1].DeliveryID || left[1].Status != store.DeliveryPending {
		t.Errorf("left: %+v", left)
	}
}

// testWebhookClaimRoundRobin: a claim takes at most PerHost deliveries per callback host, each host's first before
// any host's second, none for the excluded hosts, and status events before catalog events.
func testWebhookClaimRoundRobin(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	host := func(h string) func(*store.WebhookSubscription) {
		return func(sub *store.WebhookSubscription) { sub.CallbackURL = "https://" + h + "/hook/" + sub.ID }
	}
	events := []string{"provider.down", "catalog.price_changed"}
	for i := range 5 {
		newSub(t, s, fmt.Sprintf("a-%d", i), events, nil, host("A.example"))
	}
	newSub(t, s, "b-0", events, nil, host("b.example"))
	newSub(t, s, "c-0", events, nil, host("c.example:8443"))
	queueEvent(t, s, "openai", "catalog.price_changed", w0.Add(time.Minute))
	queueEvent(t, s, "groq", "provider.down", w0.Add(2*time.Minute))
	now := w0.Add(3 * time.Minute)
	if res := fanOut(t, s, now); res.Deliveries != 14 {
		t.Fatalf("fan-out %+v", res)
	}
	got, err := s.ClaimWebhookDeliveries(ctx, now, now.Add(time.Minute), 100, store.ClaimOptions{PerHost: 2, ExcludeHosts: []string{"b.example"}})
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]int{}
	var order []string
	for _, g := range got {
		hosts[g.CallbackHost]++
		order = append(order, g.CallbackHost+" "+g.Event.Type)
	}
	if len(got) != 4 || hosts["a.example"] != 2 || hosts["c.example"] != 2 || hosts["b.example"] != 0 {
		t.Fatalf("claimed %v", order)
	}
	// Fewer than the whole: the status events come first, one per host.
	first, err := s.ClaimWebhookDeliveries(ctx, now, now.Add(time.Minute), 2, store.ClaimOptions{PerHost: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 {
		t.Fatalf("second claim: %d", len(first))
	}
	for _, g := range first {
		if g.Event.Type != "provider.down" || g.CallbackHost == first[0].CallbackHost && g.DeliveryID != first[0].DeliveryID {
			t.Errorf("second claim took %s for %s", g.Event.Type, g.CallbackHost)
		}
	}
}

// testWebhookLimits: the per-creator, per-host and total limits refuse with a *LimitError and store nothing.
func testWebhookLimits(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	mk := func(id, host, creator string) store.WebhookSubscription {
		return store.WebhookSubscription{ID: id, CallbackURL: "https://" + host + "/h", Events: []string{"provider.down"},
			Status: store.SubscriptionActive, CreatedAt: w0, Creator: &creator}
	}
	lim := store.SubscriptionLimits{MaxPerCreator: 2, CreatorSince: w0.Add(-time.Hour), MaxPerHost: 3, MaxTotal: 5}
	for i, c := range []struct{ host, creator, want string }{
		{"a.example", "c1", ""}, {"a.example", "c1", ""}, {"a.example", "c1", "creator"},
		{"a.example", "c2", ""}, {"A.EXAMPLE:444", "c3", "host"}, {"b.example", "c3", ""}, {"c.example", "c4", ""},
		{"d.example", "c5", "total"},
	} {
		err := s.CreateWebhookSubscription(ctx, mk(fmt.Sprintf("s%d", i), c.host, c.creator), lim)
		var le *store.LimitError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%d: %v", i, err)
		case c.want != "" && (!errors.As(err, &le) || le.Limit != c.want):
			t.Errorf("%d: %v, want the %s limit", i, err, c.want)
		}
	}
	// A deactivated subscription leaves its host's and the total's count, not its creator's.
	if _, err := s.DeactivateWebhookSubscription(ctx, "s0", store.ReasonUnsubscribed, w0); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateWebhookSubscription(ctx, mk("s9", "a.example", "c6"), lim); err != nil {
		t.Errorf("after a deactivation: %v", err)
	}
}

// testWebhookVerification: a new subscription gets no deliveries until verified; a claimed handshake is leased;
// a failed one comes back at its next time; the last failure deactivates.
func testWebhookVerification(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	sub := store.WebhookSubscription{ID: "v1", CallbackURL: "https://v.example/h", Events: []string{"provider.down"}, Status: store.SubscriptionActive, CreatedAt: w0}
	if err := s.CreateWebhookSubscription(ctx, sub, store.SubscriptionLimits{}); err != nil {
		t.Fatal(err)
	}
	queueEvent(t, s, "openai", "provider.down", w0.Add(time.Minute))
	if res := fanOut(t, s, w0.Add(2*time.Minute)); res.Deliveries != 0 {
		t.Errorf("an unverified subscription got %d deliveries", res.Deliveries)
	}
	now := w0.Add(3 * time.Minute)
	vs, err := s.ClaimWebhookVerifications(ctx, now, now.Add(time.Minute), 10, nil)
	if err != nil || len(vs) != 1 || vs[0].CallbackHost != "v.example" {
		t.Fatalf("claim: %+v, %v", vs, err)
	}
	if again, _ := s.ClaimWebhookVerifications(ctx, now, now.Add(time.Minute), 10, nil); len(again) != 0 {
		t.Error("a leased handshake was claimed again")
	}
	if got, _ := s.ClaimWebhookVerifications(ctx, now.Add(2*time.Minute), now.Add(3*time.Minute), 10, []string{"v.example"}); len(got) != 0 {
		t.Error("an excluded host's handshake was claimed")
	}
	next := now.Add(time.Hour)
	if d, err := s.RecordWebhookVerification(ctx, store.WebhookVerificationResult{SubscriptionID: "v1", At: now, Error: "no echo", NextAt: &next}); err != nil || d {
		t.Fatalf("failure: %v %v", d, err)
	}
	vs, _ = s.ClaimWebhookVerifications(ctx, next, next.Add(time.Minute), 10, nil)
	if len(vs) != 1 || vs[0].Attempts != 1 {
		t.Fatalf("after the failure: %+v", vs)
	}
	if d, err := s.RecordWebhookVerification(ctx, store.WebhookVerificationResult{SubscriptionID: "v1", At: next, Error: "no echo"}); err != nil || !d {
		t.Fatalf("last failure: %v %v", d, err)
	}
	got, _ := s.GetWebhookSubscription(ctx, "v1")
	if got.Status != store.SubscriptionDeactivated || got.LastError == nil || *got.LastError != "no echo" {
		t.Errorf("after the last failure: %+v", got)
	}
}
