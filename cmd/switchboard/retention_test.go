package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
)

// TestRetentionPurgesOldRecords: attestations and handoffs past their retention and subscriptions deactivated
// past theirs are purged, in bounded batches; recent records and active subscriptions stay. On every engine.
func TestRetentionPurgesOldRecords(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, _ := e.Open(t)
			const old = store.MaxPurge + 5 // more than one statement's worth
			for i := range old + 1 {
				at := now.Add(-100 * 24 * time.Hour).Add(time.Duration(i) * time.Second)
				if i == old {
					at = now.Add(-time.Hour) // inside the retention period
				}
				if err := s.CreateTrustRecord(ctx, store.TrustRecord{ID: fmt.Sprintf("8f14e45f-ceea-467f-a0e6-%012d", i),
					Kind: store.TrustHandoff, CreatedAt: at, FromAgent: ptr("a"), ToAgent: ptr("b")}); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []string{"active", "gone-long-ago", "gone-yesterday"} {
				if err := s.CreateWebhookSubscription(ctx, store.WebhookSubscription{ID: id, CallbackURL: "https://example.com/" + id,
					Events: []string{"provider.down"}, Status: store.SubscriptionActive, CreatedAt: now.Add(-60 * 24 * time.Hour)}, store.SubscriptionLimits{}); err != nil {
					t.Fatal(err)
				}
			}
			for id, at := range map[string]time.Time{"gone-long-ago": now.Add(-40 * 24 * time.Hour), "gone-yesterday": now.Add(-24 * time.Hour)} {
				if _, err := s.DeactivateWebhookSubscription(ctx, id, store.ReasonUnsubscribed, at); err != nil {
					t.Fatal(err)
				}
			}
			r := retention{store: s, trust: 90 * 24 * time.Hour, webhooks: 30 * 24 * time.Hour, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			trust, subs, err := r.once(ctx, now)
			if err != nil || trust != old || subs != 1 {
				t.Fatalf("purged %d trust records and %d subscriptions (%v), want %d and 1", trust, subs, err, old)
			}
			if _, err := s.GetTrustRecord(ctx, fmt.Sprintf("8f14e45f-ceea-467f-a0e6-%012d", old)); err != nil {
				t.Errorf("a recent record went: %v", err)
			}
			if _, err := s.GetWebhookSubscription(ctx, "gone-long-ago"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a subscription deactivated 40 days ago stays: %v", err)
			}
			for _, id := range []string{"active", "gone-yesterday"} {
				if _, err := s.GetWebhookSubscription(ctx, id); err != nil {
					t.Errorf("%s went: %v", id, err)
				}
			}
			if trust, subs, err := r.once(ctx, now); err != nil || trust+subs != 0 {
				t.Errorf("a second run purged %d and %d (%v), want nothing", trust, subs, err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
