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
	held, release, err := s.TryCatalogLock(ctx)
	if err != nil || !held {
		t.Fatalf("catalog lock: %v %v", held, err)
	}
	release()
}
