package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
)

// TestStore runs the one suite on every engine.
func TestStore(t *testing.T) {
	suite := map[string]func(t *testing.T, s store.Store, u string){
		"Migrations":       testMigrations,
		"Checks":           testChecks,
		"ChecksBounds":     testChecksBounds,
		"InvalidInput":     testInvalidInput,
		"TrustRecords":     testTrustRecords,
		"ConcurrentWrites": testConcurrentWrites,
	}
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			for name, fn := range suite {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					s, u := e.Open(t)
					if s.Engine() != e.Name {
						t.Fatalf("Engine() = %q, want %q", s.Engine(), e.Name)
					}
					fn(t, s, u)
				})
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 123456789, time.UTC)

func testMigrations(t *testing.T, s store.Store, u string) {
	// Applying again is a no-op, and the data survives it.
	if _, err := s.RecordCheck(context.Background(), store.Check{ProviderID: "openai", CheckedAt: t0, Outcome: store.OutcomeOperational}); err != nil {
		t.Fatal(err)
	}
	again := dbtest.OpenStore(t, u)
	got, err := again.LatestChecks(context.Background())
	if err != nil || len(got) != 1 {
		t.Fatalf("after a second migration: %v, %d checks", err, len(got))
	}
}

func testChecks(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	in := []store.Check{
		{ProviderID: "openai", CheckedAt: t0, Outcome: store.OutcomeOperational, ResponseTimeMs: ptr(120.5), HTTPStatus: ptr(int64(200))},
		{ProviderID: "openai", CheckedAt: t0.Add(10 * time.Minute), Outcome: store.OutcomeDegraded, ResponseTimeMs: ptr(3500.0)},
		{ProviderID: "anthropic", CheckedAt: t0.Add(5 * time.Minute), Outcome: store.OutcomeFailed, FailureKind: ptr("timeout"), Detail: ptr("context deadline exceeded")},
		// Stored with a non-UTC zone: it must come back as the same instant, in UTC.
		{ProviderID: "anthropic", CheckedAt: t0.Add(-time.Hour).In(time.FixedZone("x", 5*3600)), Outcome: store.OutcomeOutage},
	}
	for i := range in {
		got, err := s.RecordCheck(ctx, in[i])
		if err != nil {
			t.Fatal(err)
		}
		if got.ID == 0 {
			t.Fatal("RecordCheck returned no ID")
		}
	}
	latest, err := s.LatestChecks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(latest) != 2 || latest[0].ProviderID != "anthropic" || latest[1].ProviderID != "openai" {
		t.Fatalf("LatestChecks = %+v", latest)
	}
	a := latest[0]
	if a.Outcome != store.OutcomeFailed || *a.FailureKind != "timeout" || a.ResponseTimeMs != nil || *a.Detail != "context deadline exceeded" {
		t.Errorf("latest anthropic = %+v", a)
	}
	o := latest[1]
	if o.Outcome != store.OutcomeDegraded || *o.ResponseTimeMs != 3500 || o.HTTPStatus != nil {
		t.Errorf("latest openai = %+v", o)
	}
	if want := t0.Add(10 * time.Minute).Truncate(time.Microsecond); !o.CheckedAt.Equal(want) || o.CheckedAt.Location() != time.UTC {
		t.Errorf("CheckedAt = %v, want %v in UTC", o.CheckedAt, want)
	}

	since, err := s.ChecksSince(ctx, "anthropic", t0.Add(-2*time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(since) != 2 || !since[0].CheckedAt.After(since[1].CheckedAt) {
		t.Fatalf("ChecksSince not newest first: %+v", since)
	}
	if !since[1].CheckedAt.Equal(t0.Add(-time.Hour).Truncate(time.Microsecond)) {
		t.Errorf("zoned time came back as %v", since[1].CheckedAt)
	}
	if got, _ := s.ChecksSince(ctx, "anthropic", t0, 10); len(got) != 1 {
		t.Errorf("ChecksSince(t0) = %d checks, want 1", len(got))
	}
	if got, _ := s.ChecksSince(ctx, "nobody", t0.Add(-24*time.Hour), 10); len(got) != 0 {
		t.Errorf("ChecksSince(unknown) = %d checks", len(got))
	}

	n, err := s.DeleteChecksBefore(ctx, t0)
	if err != nil || n != 1 {
		t.Fatalf("DeleteChecksBefore = %d, %v; want 1", n, err)
	}
	if got, _ := s.ChecksSince(ctx, "anthropic", t0.Add(-24*time.Hour), 10); len(got) != 1 {
		t.Errorf("after retention: %d anthropic checks, want 1", len(got))
	}
}

func testChecksBounds(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	for i := range 30 {
		if _, err := s.RecordCheck(ctx, store.Check{ProviderID: "groq", CheckedAt: t0.Add(time.Duration(i) * time.Minute), Outcome: store.OutcomeOperational}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ChecksSince(ctx, "groq", t0, 7)
	if err != nil || len(got) != 7 {
		t.Fatalf("limit 7: %d, %v", len(got), err)
	}
	if !got[0].CheckedAt.Equal(t0.Add(29 * time.Minute).Truncate(time.Microsecond)) {
		t.Errorf("first = %v, want the newest", got[0].CheckedAt)
	}
	if got, _ := s.ChecksSince(ctx, "groq", t0, 0); len(got) != 30 {
		t.Errorf("limit 0 (= MaxRows): %d", len(got))
	}
}

func testInvalidInput(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	bad := []store.Check{
		{CheckedAt: t0, Outcome: store.OutcomeOperational},
		{ProviderID: "openai", CheckedAt: t0, Outcome: "sideways"},
		{ProviderID: "openai", Outcome: store.OutcomeOperational},
	}
	for _, c := range bad {
		if _, err := s.RecordCheck(ctx, c); err == nil {
			t.Errorf("RecordCheck(%+v) accepted", c)
		}
	}
	if err := s.CreateTrustRecord(ctx, store.TrustRecord{ID: "x", Kind: "other", CreatedAt: t0}); err == nil {
		t.Error("trust record of unknown kind accepted")
	}
	if got, _ := s.LatestChecks(ctx); len(got) != 0 {
		t.Errorf("invalid checks were stored: %+v", got)
	}
}

func testTrustRecords(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	att := store.TrustRecord{
		ID: "8f14e45f-ceea-467f-a0e6-000000000001", Kind: store.TrustAttestation, CreatedAt: t0,
		ProviderID: ptr("openai"), Model: ptr("gpt-4o"), PayloadHash: ptr("ab" + fmt.Sprintf("%062d", 0)), AgentID: ptr("agent-7"),
	}
	hand := store.TrustRecord{
		ID: "8f14e45f-ceea-467f-a0e6-000000000002", Kind: store.TrustHandoff, CreatedAt: t0.Add(time.Second),
		FromAgent: ptr("planner"), ToAgent: ptr("coder"), TaskID: ptr("t-1"),
	}
	for _, r := range []store.TrustRecord{att, hand} {
		if err := s.CreateTrustRecord(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateTrustRecord(ctx, att); err == nil {
		t.Error("a duplicate ID was accepted")
	}
	got, err := s.GetTrustRecord(ctx, att.ID)
	if err != nil {
		t.Fatal(err)
	}
	att.CreatedAt = att.CreatedAt.Truncate(time.Microsecond)
	if !reflect.DeepEqual(got, att) {
		t.Errorf("got %+v\nwant %+v", got, att)
	}
	h, err := s.GetTrustRecord(ctx, hand.ID)
	if err != nil || h.Kind != store.TrustHandoff || *h.ToAgent != "coder" || h.ContextHash != nil || h.ProviderID != nil {
		t.Errorf("handoff = %+v, %v", h, err)
	}
	if _, err := s.GetTrustRecord(ctx, "no-such-id"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
}

// testConcurrentWrites checks that many writers at once neither fail (SQLite's single writer waits on its busy
// timeout) nor lose rows.
func testConcurrentWrites(t *testing.T, s store.Store, _ string) {
	ctx := context.Background()
	const writers, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := s.RecordCheck(ctx, store.Check{ProviderID: fmt.Sprintf("p%02d", w), CheckedAt: t0.Add(time.Duration(i) * time.Second), Outcome: store.OutcomeOperational})
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.LatestChecks(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	latest, _ := s.LatestChecks(ctx)
	if len(latest) != writers {
		t.Fatalf("%d providers, want %d", len(latest), writers)
	}
	for _, c := range latest {
		got, _ := s.ChecksSince(ctx, c.ProviderID, t0.Add(-time.Hour), 0)
		if len(got) != each {
			t.Errorf("%s: %d checks, want %d", c.ProviderID, len(got), each)
		}
	}
}

func TestParseURL(t *testing.T) {
	cases := []struct{ in, engine, target string }{
		{"", "sqlite", "switchboard.db"},
		{"sqlite:///var/lib/sb.db", "sqlite", "/var/lib/sb.db"},
		{"sqlite://rel.db", "sqlite", "rel.db"},
		{"data/x.db", "sqlite", "data/x.db"},
		{"postgres://u@h/db", "postgres", "postgres://u@h/db"},
		{"postgresql://u@h/db", "postgres", "postgresql://u@h/db"},
	}
	for _, c := range cases {
		e, tg, err := store.ParseURL(c.in)
		if err != nil || e != c.engine || tg != c.target {
			t.Errorf("ParseURL(%q) = %q, %q, %v", c.in, e, tg, err)
		}
	}
	for _, bad := range []string{"mysql://u:secret@h/db", "sqlite://"} {
		_, _, err := store.ParseURL(bad)
		if err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}
