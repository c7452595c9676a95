package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
)

// TestStoreCatalogs runs the catalog-refresh suite on every engine (named TestStore... so `make test` lists it).
func TestStoreCatalogs(t *testing.T) {
	suite := map[string]func(t *testing.T, s store.Store){
		"Builds":          testCatalogBuilds,
		"EventsAndOutbox": testCatalogEventsOutbox,
		"Bounds":          testCatalogBounds,
		"HeldBuilds":      testHeldCatalogBuilds,
	}
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			for name, fn := range suite {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					s, _ := e.Open(t)
					fn(t, s)
				})
			}
		})
	}
}

var c0 = time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)

func testCatalogBuilds(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.LatestCatalogBuild(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no build yet: %v, want ErrNotFound", err)
	}
	if _, err := s.GetCatalogBuild(ctx, 42); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown build: %v, want ErrNotFound", err)
	}
	var ids []int64
	for i := range 4 {
		id, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: fmt.Sprint("d", i), Base: "base", Files: []byte{0x1f, 0x8b, byte(i)}, CreatedAt: c0.Add(time.Duration(i) * time.Hour)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	head, err := s.LatestCatalogBuild(ctx)
	if err != nil || head.ID != ids[3] || head.Digest != "d3" || head.Base != "base" || head.Files != nil || !head.CreatedAt.Equal(c0.Add(3*time.Hour)) {
		t.Fatalf("latest = %+v, %v", head, err)
	}
	full, err := s.GetCatalogBuild(ctx, ids[3])
	if err != nil || string(full.Files) != string([]byte{0x1f, 0x8b, 3}) {
		t.Fatalf("get = %+v, %v", full, err)
	}
	// Only the newest two are kept.
	if _, err := s.GetCatalogBuild(ctx, ids[1]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("build %d survived pruning: %v", ids[1], err)
	}
	if _, err := s.GetCatalogBuild(ctx, ids[2]); err != nil {
		t.Errorf("the build before the latest was pruned: %v", err)
	}
}

func testCatalogEventsOutbox(t *testing.T, s store.Store) {
	ctx := context.Background()
	before, err := s.OutboxAfter(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	evs := []store.CatalogEvent{
		{Type: "catalog.price_changed", ProviderID: "openai", ModelID: "gpt-x", Payload: json.RawMessage(`{"percent":10}`)},
		{Type: "catalog.price_changed", ProviderID: "anthropic", ModelID: "claude-y", Payload: json.RawMessage(`{"percent":-5}`)},
		{Type: "catalog.model_added", ProviderID: "openai", ModelID: "gpt-z", Payload: json.RawMessage(`{}`)},
	}
	id, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: "d", Base: "b", Files: []byte("x"), CreatedAt: c0}, evs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.CatalogEventsSince(ctx, c0.Add(-time.Hour), 10)
	if err != nil || len(got) != 3 {
		t.Fatalf("events = %+v, %v", got, err)
	}
	// Newest first; same time, so by ID descending.
	if got[0].ModelID != "gpt-z" || got[2].ModelID != "gpt-x" || got[0].BuildID != id || !got[0].CreatedAt.Equal(c0) {
		t.Errorf("order or fields: %+v", got)
	}
	// Two events of one type in one build both reach the outbox, once each.
	out, err := s.OutboxAfter(ctx, 0, 100)
	if err != nil || len(out)-len(before) != 3 {
		t.Fatalf("outbox grew by %d, want 3 (%v)", len(out)-len(before), err)
	}
	seen := map[string]bool{}
	for _, e := range out[len(before):] {
		if e.CheckID >= 0 {
			t.Errorf("catalog event in the outbox with check_id %d, want a negated event ID", e.CheckID)
		}
		seen[e.Type+" "+e.ProviderID] = true
	}
	if !seen["catalog.price_changed openai"] || !seen["catalog.price_changed anthropic"] || !seen["catalog.model_added openai"] {
		t.Errorf("outbox events: %v", seen)
	}
	// Events older than the retention go with the next build.
	if _, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: "e", Base: "b", Files: []byte("x"), CreatedAt: c0.Add(store.CatalogEventRetention + time.Hour)}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.CatalogEventsSince(ctx, c0.Add(-time.Hour), 10); err != nil || len(got) != 0 {
		t.Errorf("after retention: %d events, %v", len(got), err)
	}
}

func testCatalogBounds(t *testing.T, s store.Store) {
	ctx := context.Background()
	many := make([]store.CatalogEvent, store.MaxCatalogEvents+1)
	for i := range many {
		many[i] = store.CatalogEvent{Type: "catalog.model_added", ProviderID: "openai", ModelID: fmt.Sprint(i), Payload: json.RawMessage(`{}`)}
	}
	if _, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: "d", Base: "b", Files: []byte("x"), CreatedAt: c0}, many); err == nil {
		t.Error("a build with more events than the bound was stored")
	}
	bad := []store.CatalogEvent{{Type: "catalog.model_added", ProviderID: "openai", ModelID: "m", Payload: json.RawMessage(`{`)}}
	if _, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: "d", Base: "b", Files: []byte("x"), CreatedAt: c0}, bad); err == nil {
		t.Error("an event with a broken payload was stored")
	}
	// Nothing of a refused build was kept.
	if _, err := s.LatestCatalogBuild(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused build left a row: %v", err)
	}
	lease, err := s.TryCatalogLock(ctx)
	if err != nil || lease == nil {
		t.Fatalf("catalog lock: %v %v", lease, err)
	}
	lease.Release()
}

// testHeldCatalogBuilds: a held build is stored but is no build to load, and announces nothing; approving it makes
// it the newest installed build with its events in the feed and the outbox (one summary when it has one);
// rejecting leaves the one in service; a newer build supersedes a held one.
func testHeldCatalogBuilds(t *testing.T, s store.Store) {
	ctx := context.Background()
	installed, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: "in", Base: "base", Files: []byte{1}, CreatedAt: c0, Probation: json.RawMessage(`{"p/m":"2026-12-01"}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.HeldCatalogBuild(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("nothing held: %v", err)
	}
	ev := func(typ, model string) store.CatalogEvent {
		return store.CatalogEvent{Type: typ, ProviderID: "openai", ModelID: model, Payload: json.RawMessage(`{"model_id":"` + model + `"}`)}
	}
	hold := json.RawMessage(`{"records_removed":1894}`)
	if _, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: "held", Base: "base", Files: []byte{2}, CreatedAt: c0.Add(time.Hour), State: store.BuildHeld, Hold: hold},
		[]store.CatalogEvent{ev("catalog.model_removed", "a"), ev("catalog.price_changed", "b")}); err != nil {
		t.Fatal(err)
	}
	head, err := s.LatestCatalogBuild(ctx)
	if err != nil || head.ID != installed || string(head.Probation) != `{"p/m":"2026-12-01"}` {
		t.Fatalf("latest with a build held = %+v, %v; want the installed one", head, err)
	}
	held, err := s.HeldCatalogBuild(ctx)
	if err != nil || held.Digest != "held" || string(held.Hold) != string(hold) || held.Events != 2 {
		t.Fatalf("held = %+v, %v", held, err)
	}
	if evs, _ := s.CatalogEventsSince(ctx, c0.Add(-time.Hour), 100); len(evs) != 0 {
		t.Fatalf("a held build announced %d events", len(evs))
	}
	if out, _ := s.OutboxAfter(ctx, 0, 100); len(out) != 0 {
		t.Fatalf("a held build queued %d events", len(out))
	}
	if _, err := s.DecideCatalogBuild(ctx, "nope", true, c0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("approving an unknown digest: %v", err)
	}
	if _, err := s.DecideCatalogBuild(ctx, "in", true, c0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("approving an installed build: %v", err)
	}
	at := c0.Add(2 * time.Hour)
	if _, err := s.DecideCatalogBuild(ctx, "held", true, at); err != nil {
		t.Fatal(err)
	}
	if head, err := s.LatestCatalogBuild(ctx); err != nil || head.Digest != "held" {
		t.Fatalf("latest after the approval = %+v, %v", head, err)
	}
	evs, _ := s.CatalogEventsSince(ctx, c0.Add(-time.Hour), 100)
	out, _ := s.OutboxAfter(ctx, 0, 100)
	if len(evs) != 2 || len(out) != 2 || !evs[0].CreatedAt.Equal(at) {
		t.Fatalf("after the approval: feed %+v, outbox %d", evs, len(out))
	}
	if _, err := s.HeldCatalogBuild(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("still held after the approval: %v", err)
	}
	if _, err := s.DecideCatalogBuild(ctx, "held", false, at); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deciding twice: %v", err)
	}

	// A rejected build stays known as rejected; a held one a newer build replaces is superseded.
	sum := json.RawMessage(`{"total":300}`)
	for _, d := range []string{"r1", "r2"} {
		if _, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: d, Base: "base", Files: []byte{3}, CreatedAt: at, State: store.BuildHeld, Summary: sum},
			[]store.CatalogEvent{ev("catalog.price_changed", d)}); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := s.CatalogBuildByDigest(ctx, "r1"); err != nil || b.State != store.BuildSuperseded {
		t.Errorf("r1 after r2 was held: %+v, %v", b, err)
	}
	if _, err := s.DecideCatalogBuild(ctx, "r2", false, at); err != nil {
		t.Fatal(err)
	}
	if b, err := s.CatalogBuildByDigest(ctx, "r2"); err != nil || b.State != store.BuildRejected {
		t.Errorf("r2 after the reject: %+v, %v", b, err)
	}
	if head, err := s.LatestCatalogBuild(ctx); err != nil || head.Digest != "held" {
		t.Errorf("latest after a reject = %+v, %v", head, err)
	}
	if evs, _ := s.CatalogEventsSince(ctx, c0.Add(-time.Hour), 100); len(evs) != 2 {
		t.Errorf("a rejected build announced: %d events", len(evs))
	}
	// An approved build with a summary: the feed lists each event, subscribers get one catalog.changed.
	if _, err := s.SaveCatalogBuild(ctx, store.CatalogBuild{Digest: "s", Base: "base", Files: []byte{4}, CreatedAt: at, State: store.BuildHeld, Summary: sum},
		[]store.CatalogEvent{ev("catalog.price_changed", "x"), ev("catalog.price_changed", "y")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DecideCatalogBuild(ctx, "s", true, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	evs, _ = s.CatalogEventsSince(ctx, c0.Add(-time.Hour), 100)
	out, _ = s.OutboxAfter(ctx, 0, 100)
	if len(evs) != 4 || len(out) != 3 || out[2].Type != store.EventCatalogChanged || string(out[2].Payload) != string(sum) {
		t.Errorf("approved with a summary: feed %d, outbox %+v", len(evs), out)
	}
}
