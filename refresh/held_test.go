package refresh_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// TestTrimmedSourceHeldUntilAnOperatorDecides reproduces the source trimmed to 110 entries, on each engine,
// through the refresh's install path: the build is stored but held, the catalogs in service stay, /health's
// state says held with the counts (on another replica too) and nothing is announced; a rejected build is not
// held again; an approved one is installed by every replica that follows the store, with its events, and
// subscribers get one catalog.changed summary for its many changes.
func TestTrimmedSourceHeldUntilAnOperatorDecides(t *testing.T) {
	emb := core(t, "", nil)
	total := len(emb.Catalog(seeds.CatalogPricing).Records)
	trimmed := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any { return recs[:110] })
	// The same source trimmed in the model catalog too: another build, with hundreds of catalog.model_removed.
	both := editFiles(t, maps.Clone(trimmed.Files()), seeds.CatalogModels, func(recs []map[string]any) []map[string]any { return recs[:len(recs)/2] })
	// A 1,000x price cut and a 10x rise from one source: installed without them, old prices kept, no event.
	var cut, rise string
	var cutOld, riseOld float64
	poisoned := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		two := singlePriced(recs, 2)
		for i, f := range []float64{0.001, 10} {
			p := two[i]["pricing"].(map[string]any)
			old := p["input_per_1m_tokens"].(float64)
			p["input_per_1m_tokens"] = old * f
			if i == 0 {
				cut, cutOld = two[i]["model"].(string), old
			} else {
				rise, riseOld = two[i]["model"].(string), old
			}
		}
		return recs
	})
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			t.Cleanup(func() { seeds.Install(nil) })
			seeds.Install(emb)
			st, _ := e.Open(t)
			ctx := context.Background()
			now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
			r, err := refresh.New(refresh.Options{Interval: time.Hour, Store: st, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			if out, err := r.InstallChecked(ctx, emb, poisoned); err != nil || out.Held || out.Events != 0 || out.Hold.PricesHeld != 2 {
				t.Fatalf("the poisoned prices: %+v, %v", out, err)
			}
			serving, _ := seeds.Current()
			for m, want := range map[string]float64{cut: cutOld, rise: riseOld} {
				var got *float64
				recs, _ := seeds.Records[seeds.PricingRecord](serving.Catalog(seeds.CatalogPricing))
				for _, rec := range recs {
					if rec.Model == m {
						got = rec.Pricing.InputPer1mTokens
					}
				}
				if got == nil || *got != want {
					t.Errorf("%s serves %v, want the old %v", m, got, want)
				}
			}
			seeds.Install(emb) // back to the set the rest compares with

			out, err := r.InstallChecked(ctx, emb, trimmed)
			if err != nil {
				t.Fatal(err)
			}
			s := r.State()
			if !out.Held || out.Installed || s.Mode != "held" || s.Held == nil || s.Held.Digest != trimmed.Digest() ||
				s.Held.Hold.RecordsRemoved != total-110 || s.Held.Hold.Shrunk[0].After != 110 || s.HeldBuilds != 1 {
				t.Fatalf("outcome %+v, state %+v", out, s)
			}
			// The set in service is the very same (same generation): every cache keyed on it stays, and a request
			// does nothing it did not do before the hold.
			if cur, _ := seeds.Current(); cur != emb || cur.Generation() != emb.Generation() {
				t.Fatal("a held build is in service")
			}
			if evs, _ := st.CatalogEventsSince(ctx, now.Add(-time.Hour), 100); len(evs) != 0 {
				t.Errorf("a held build announced %d events", len(evs))
			}
			// Another replica sees the held build in the store.
			replica, err := refresh.New(refresh.Options{Interval: time.Hour, Store: st})
			if err != nil {
				t.Fatal(err)
			}
			if err := replica.LoadStored(ctx); err != nil {
				t.Fatal(err)
			}
			if h := replica.State().Held; h == nil || h.Digest != trimmed.Digest() || h.Hold.RecordsRemoved != total-110 {
				t.Fatalf("replica's held build = %+v", h)
			}

			// Rejected: the catalogs in service stay, every replica stops saying held, the same build is not held again.
			if _, err := st.DecideCatalogBuild(ctx, trimmed.Digest(), false, now); err != nil {
				t.Fatal(err)
			}
			if err := replica.LoadStored(ctx); err != nil || replica.State().Mode != "ok" {
				t.Fatalf("replica after the reject: %+v (%v)", replica.State(), err)
			}
			if out, err := r.InstallChecked(ctx, emb, trimmed); err != nil || out.Held || out.Installed {
				t.Fatalf("the rejected build again: %+v, %v", out, err)
			}

			// Approved: every replica following the store installs it; its events go out as one summary.
			out, err = r.InstallChecked(ctx, emb, both)
			if err != nil || !out.Held || out.Events <= refresh.SummaryAbove {
				t.Fatalf("the second build: %+v, %v", out, err)
			}
			if _, err := st.DecideCatalogBuild(ctx, both.Digest(), true, now.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if err := replica.LoadStored(ctx); err != nil {
				t.Fatal(err)
			}
			if cur, _ := seeds.Current(); cur.Digest() != both.Digest() || replica.State().Mode != "ok" || replica.State().Origin != "store" {
				t.Fatalf("after the approval: serving %s, state %+v", cur.Digest(), replica.State())
			}
			evs, err := st.CatalogEventsSince(ctx, now.Add(-time.Hour), 5000)
			if err != nil || len(evs) != out.Events {
				t.Fatalf("feed after the approval: %d events, want %d (%v)", len(evs), out.Events, err)
			}
			removed := 0
			for _, ev := range evs {
				if ev.Type == refresh.EventModelRemoved {
					removed++
				}
			}
			outbox, err := st.OutboxAfter(ctx, 0, 5000)
			if err != nil || len(outbox) != 1 || outbox[0].Type != store.EventCatalogChanged {
				t.Fatalf("outbox after the approval: %d events (%v)", len(outbox), err)
			}
			var sum refresh.ChangedPayload
			if err := json.Unmarshal(outbox[0].Payload, &sum); err != nil || sum.Counts.ModelRemoved < removed || removed == 0 || sum.Digest != both.Digest() {
				t.Errorf("summary %s, %d removals in the feed (%v)", outbox[0].Payload, removed, err)
			}
		})
	}
}
