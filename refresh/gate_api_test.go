package refresh_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/decide"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// TestFakeFreeModelNeverTopsCheapest reproduces the fake "$0 ...:free" model a poisoned source added: the name
// makes nothing free, the $0 from one source is held (the price stays unknown), and a cheap model new on one
// source's word stays out of rankings until a second source or 7 days.
func TestFakeFreeModelNeverTopsCheapest(t *testing.T) {
	t.Cleanup(func() { seeds.Install(nil) })
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	const free, cheap = "evil/gpt-5:free", "evil/gpt-5-cheap"
	poisoned := edit(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		for _, m := range []struct {
			id    string
			price float64
		}{{free, 0}, {cheap, 0.000001}} {
			recs = append(recs, map[string]any{"provider_id": "openrouter", "model": m.id, "task": "llm", "free_tier": m.price == 0,
				"pricing": map[string]any{"input_per_1m_tokens": m.price, "output_per_1m_tokens": m.price, "cached_input_per_1m_tokens": nil,
					"per_image": nil, "per_minute_audio": nil, "per_1k_characters": nil, "per_request": nil, "per_second_video": nil},
				"sources": []string{"models-dev"}, "confidence": "single"})
		}
		return recs
	})
	checked, _, err := refresh.HoldPrices(emb, poisoned)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := priceOf(t, checked, "openrouter", free); !ok || got != nil {
		t.Fatalf("%s: input price %v, want null (a $0 from one source and a name)", free, got)
	}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	prob, err := refresh.NextProbation(emb, checked, now)
	if err != nil {
		t.Fatal(err)
	}
	if prob["openrouter/"+cheap] != "2026-12-05" || len(prob) != 2 {
		t.Fatalf("probation = %v, want both new models until 2026-12-05", prob)
	}
	seeds.Install(checked.WithProbation(prob))
	for _, c := range []struct {
		day  string
		want bool // cheap may be first
	}{{"2026-11-28", false}, {"2026-12-04", false}, {"2026-12-05", true}} {
		ix, err := decide.LoadAt(c.day)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := ix.Cheapest(decide.CheapestQuery{Task: "llm", Input: 1000, Output: 1000, Limit: 100}, decide.Statuses{})
		ranked := false
		for _, r := range res {
			ranked = ranked || r.Model == cheap
			if r.Model == free {
				t.Errorf("%s: the fake free model is ranked by /cheapest", c.day)
			}
		}
		if ranked != c.want {
			t.Errorf("%s: the cheap model new on one source's word is ranked: %v, want %v", c.day, ranked, c.want)
		}
	}
	// Through the API: /cheapest answers from the catalogs in service (nothing observed: from catalog facts).
	srv := apitest.Start(t, apitest.Options{})
	res := srv.Get("/api/v1/cheapest?task=llm&input_tokens=1000&output_tokens=1000")
	var ans struct {
		Results []struct {
			Model string `json:"model"`
		} `json:"results"`
	}
	res.Decode(t, &ans)
	if res.Status != 200 || len(ans.Results) == 0 {
		t.Fatalf("/cheapest = %d, %d results", res.Status, len(ans.Results))
	}
	for _, r := range ans.Results {
		if r.Model == free || r.Model == cheap {
			t.Errorf("/cheapest ranks %s", r.Model)
		}
	}
	// A second source ends the probation at once.
	agreed := edit(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		return append(recs, map[string]any{"provider_id": "openrouter", "model": cheap, "task": "llm", "free_tier": false,
			"pricing": map[string]any{"input_per_1m_tokens": 0.000001, "output_per_1m_tokens": 0.000001, "cached_input_per_1m_tokens": nil,
				"per_image": nil, "per_minute_audio": nil, "per_1k_characters": nil, "per_request": nil, "per_second_video": nil},
			"sources": []string{"models-dev", "litellm"}, "confidence": "agreed"})
	})
	if prob, err := refresh.NextProbation(checked.WithProbation(prob), agreed, now.Add(24*time.Hour)); err != nil || len(prob) != 0 {
		t.Errorf("probation with a second source = %v (%v), want none", prob, err)
	}
}

// TestLifecycleEventsNeverCutBehindPriceEvents: 3,000 price changes leave every deprecation in the build's
// events, and subscribers get one catalog.changed summary with the counts.
func TestLifecycleEventsNeverCutBehindPriceEvents(t *testing.T) {
	var evs []store.CatalogEvent
	for i := range 3000 {
		evs = append(evs, store.CatalogEvent{Type: refresh.EventPriceChanged, ModelID: "m" + string(rune('a'+i%26))})
	}
	for range 5 {
		evs = append(evs, store.CatalogEvent{Type: refresh.EventModelDeprecated})
	}
	kept, left := refresh.CapEvents(evs)
	dep := 0
	for _, e := range kept {
		if e.Type == refresh.EventModelDeprecated {
			dep++
		}
	}
	if dep != 5 || left[refresh.EventPriceChanged] != 3000-refresh.MaxEventsPerType || len(kept) != refresh.MaxEventsPerType+5 {
		t.Errorf("kept %d events (%d deprecations), left out %v", len(kept), dep, left)
	}
	sum, err := refresh.Summary(strings.Repeat("a", 64), kept, left)
	if err != nil {
		t.Fatal(err)
	}
	var p refresh.ChangedPayload
	if err := json.Unmarshal(sum, &p); err != nil || p.Total != 3005 || p.Counts.PriceChanged != 3000 || p.Counts.ModelDeprecated != 5 || p.LeftOut != 2600 {
		t.Errorf("summary %s (%v)", sum, err)
	}
	if sum, _ := refresh.Summary(strings.Repeat("a", 64), kept[:refresh.SummaryAbove], nil); sum != nil {
		t.Errorf("a summary for %d events", refresh.SummaryAbove)
	}
}
