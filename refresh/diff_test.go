// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package refresh_test

import (
	"encoding/json"
	"testing"

	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
)

// TestDiff: the same catalogs give no event; each kind of change gives its one event, with its payload.
func TestDiff(t *testing.T) {
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if evs, err := refresh.Diff(emb, emb); err != nil || len(evs) != 0 {
		t.Fatalf("same catalogs: %d events, %v", len(evs), err)
	}
	var changed string
	priced := edit(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		for _, r := range recs {
			p := r["pricing"].(map[string]any)
			if in, ok := p["input_per_1m_tokens"].(float64); ok && in > 0 && r["provider_id"] == "openai" {
				p["input_per_1m_tokens"] = in / 2
				changed = r["model"].(string)
				break
			}
		}
		return recs
	})
	evs, err := refresh.Diff(emb, priced)
	if err != nil || len(evs) != 1 || evs[0].Type != refresh.EventPriceChanged || evs[0].ModelID != changed {
		t.Fatalf("halved price: %+v, %v", evs, err)
	}
	var p refresh.EventPayload
	if err := json.Unmarshal(evs[0].Payload, &p); err != nil || p.InputChangePct == nil || *p.InputChangePct != -50 || p.OutputChangePct != nil && *p.OutputChangePct != 0 {
		t.Errorf("payload %s (%v)", evs[0].Payload, err)
	}
	// A model gone from the model catalog is no event of its own (its deprecation record says sunset); one that
	// appears is catalog.model_added.
	var dropped map[string]any
	fewer := edit(t, seeds.CatalogModels, func(recs []map[string]any) []map[string]any {
		dropped = recs[0]
		return recs[1:]
	})
	evs, err = refresh.Diff(fewer, emb)
	if err != nil || len(evs) != 1 || evs[0].Type != refresh.EventModelAdded || evs[0].ModelID != dropped["model_id"] {
		t.Fatalf("added model: %+v, %v", evs, err)
	}
	// A live model the deprecations catalog newly marks sunset.
	var gone string
	sunset := edit(t, "deprecations", func(recs []map[string]any) []map[string]any {
		for _, r := range recs {
			if r["status"] == "active" {
				r["status"], r["sunset_date"] = "sunset", "2026-11-01"
				gone = r["model_id"].(string)
				break
			}
		}
		return recs
	})
	evs, err = refresh.Diff(emb, sunset)
	if err != nil || len(evs) != 1 || evs[0].Type != refresh.EventModelSunset || evs[0].ModelID != gone {
		t.Fatalf("sunset: %+v, %v", evs, err)
	}
}
