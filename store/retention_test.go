package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
)

// TestRetention runs the quota count and the bounded purges on both engines.
func TestRetention(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			t.Run("TrustQuotaCount", func(t *testing.T) { t.Parallel(); s, _ := e.Open(t); testTrustQuotaCount(t, s) })
			t.Run("TrustPurge", func(t *testing.T) { t.Parallel(); s, _ := e.Open(t); testTrustPurge(t, s) })
			t.Run("SubscriptionPurge", func(t *testing.T) { t.Parallel(); s, _ := e.Open(t); testSubscriptionPurge(t, s) })
		})
	}
}

func trustRecord(t *testing.T, s store.Store, n int, at time.Time, creator *string) string {
	t.Helper()
	id := fmt.Sprintf("8f14e45f-ceea-467f-a0e6-%012d", n)
	r := store.TrustRecord{ID: id, Kind: store.TrustHandoff, CreatedAt: at, FromAgent: ptr("a"), ToAgent: ptr("b"), Creator: creator}
	if err := s.CreateTrustRecord(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return id
}

func testTrustQuotaCount(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i := range 3 {
		trustRecord(t, s, i, t0.Add(time.Duration(i)*time.Hour), ptr("client-a"))
	}
	trustRecord(t, s, 10, t0.Add(2*time.Hour), ptr("client-b"))
	trustRecord(t, s, 11, t0.Add(2*time.Hour), nil) // made in process: nobody's quota
	for _, c := range []struct {
		creator string
		since   time.Time
		want    int64
	}{{"client-a", t0, 3}, {"client-a", t0.Add(30 * time.Minute), 2}, {"client-b", t0, 1}, {"client-c", t0, 0}} {
		if n, err := s.CountTrustRecordsByCreator(ctx, c.creator, c.since); err != nil || n != c.want {
			t.Errorf("%s since %v: %d, %v; want %d", c.creator, c.since, n, err, c.want)
		}
	}
}

func testTrustPurge(t *testing.T, s store.Store) {
	ctx := context.Background()
	var old []string
	for i := range 5 {
		old = append(old, trustRecord(t, s, i, t0.Add(-time.Duration(10-i)*24*time.Hour), nil))
	}
	kept := trustRecord(t, s, 9, t0, nil)
	// Two at a time, the oldest first, until none is left before the cut-off.
	for i, want := range []int64{2, 2, 1, 0} {
		n, err := s.DeleteTrustRecordsBefore(ctx, t0.Add(-time.Hour), 2)
		if err != nil || n != want {
			t.Fatalf("purge %d: %d, %v; want %d", i+1, n, err, want)
		}
		if i == 0 {
			if _, err := s.GetTrustRecord(ctx, old[0]); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("the oldest record survived the first purge: %v", err)
			}
			if _, err := s.GetTrustRecord(ctx, old[4]); err != nil {
				t.Errorf("the newest old record went first: %v", err)
			}
		}
	}
	if _, err := s.GetTrustRecord(ctx, kept); err != nil {
		t.Errorf("a record inside the retention period went: %v", err)
	}
}

func testSubscriptionPurge(t *testing.T, s store.Store) {
	ctx := context.Background()
	events := []string{"provider.down"}
	newSub(t, s, "active-old", events, nil, func(w *store.WebhookSubscription) { w.CreatedAt = w0.Add(-90 * 24 * time.Hour) })
	newSub(t, s, "gone-long-ago", events, nil)
	newSub(t, s, "gone-earlier", events, nil)
	newSub(t, s, "gone-recently", events, nil)
	for id, at := range map[string]time.Time{"gone-long-ago": w0.Add(time.Hour), "gone-earlier": w0.Add(2 * time.Hour), "gone-recently": w0.Add(48 * time.Hour)} {
		if _, err := s.DeactivateWebhookSubscription(ctx, id, store.ReasonUnsubscribed, at); err != nil {
			t.Fatal(err)
		}
	}
	cut := w0.Add(24 * time.Hour)
	for i, c := range []struct {
		want int64
		gone string
	}{{1, "gone-long-ago"}, {1, "gone-earlier"}, {0, ""}} {
		n, err := s.DeleteDeactivatedSubscriptionsBefore(ctx, cut, 1)
		if err != nil || n != c.want {
			t.Fatalf("purge %d: %d, %v; want %d", i+1, n, err, c.want)
		}
		if c.gone != "" {
			if _, err := s.GetWebhookSubscription(ctx, c.gone); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("purge %d: %s is still there (%v)", i+1, c.gone, err)
			}
		}
	}
	for _, id := range []string{"active-old", "gone-recently"} {
		if _, err := s.GetWebhookSubscription(ctx, id); err != nil {
			t.Errorf("%s went: %v (active ones and those inside the retention period stay)", id, err)
		}
	}
}
