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

// priceOf returns a pricing record's input price in set, and whether the record exists.
func priceOf(t *testing.T, set *seeds.Set, provider, model string) (*float64, bool) {
	t.Helper()
	recs, err := seeds.Records[seeds.PricingRecord](set.Catalog(seeds.CatalogPricing))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ProviderId == provider && r.Model == model {
			return r.Pricing.InputPer1mTokens, true
		}
	}
	return nil, false
}

// singlePriced picks n pricing records of one source with an input price above 0.
func singlePriced(recs []map[string]any, n int) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		p := r["pricing"].(map[string]any)
		if in, ok := p["input_per_1m_tokens"].(float64); ok && in > 0 && r["confidence"] == "single" {
			out = append(out, r)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// TestRefreshHoldsThousandfoldPriceCutAndTenfoldRise reproduces the poisoned source's price attack: one source
// cuts a price 1,000x and raises another 10x. Both keep their value in service; a 4x move goes in, and so does a
// 1,000x cut that a second source agrees with.
func TestRefreshHoldsThousandfoldPriceCutAndTenfoldRise(t *testing.T) {
	t.Parallel()
	emb := core(t, "", nil)
	type pick struct {
		provider, model string
		old             float64
	}
	var cut, rise, small, backed pick
	poisoned := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		three := singlePriced(recs, 3)
		for i, f := range []struct {
			p      *pick
			factor float64
		}{{&cut, 0.001}, {&rise, 10}, {&small, 4}} {
			r := three[i]
			p := r["pricing"].(map[string]any)
			*f.p = pick{r["provider_id"].(string), r["model"].(string), p["input_per_1m_tokens"].(float64)}
			p["input_per_1m_tokens"] = f.p.old * f.factor
		}
		for _, r := range recs {
			p := r["pricing"].(map[string]any)
			if in, ok := p["input_per_1m_tokens"].(float64); ok && in > 0 && r["confidence"] == "agreed" {
				backed = pick{r["provider_id"].(string), r["model"].(string), in}
				p["input_per_1m_tokens"] = in / 1000
				break
			}
		}
		return recs
	})
	checked, held, err := refresh.HoldPrices(emb, poisoned)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		p    pick
		want float64
	}{{"1000x cut", cut, cut.old}, {"10x rise", rise, rise.old}, {"4x rise", small, small.old * 4}, {"agreed 1000x cut", backed, backed.old / 1000}} {
		got, ok := priceOf(t, checked, c.p.provider, c.p.model)
		if !ok || got == nil || *got != c.want {
			t.Errorf("%s of %s/%s: input price %v, want %v", c.name, c.p.provider, c.p.model, got, c.want)
		}
	}
	if len(held) != 2 {
		t.Errorf("held %d prices, want 2: %+v", len(held), held)
	}
}

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

// TestRefreshRejectsIDsWithMarkupOrEscapes reproduces the model ID carrying HTML and terminal escape codes: the
// build is refused whole, before anything is stored or installed.
func TestRefreshRejectsIDsWithMarkupOrEscapes(t *testing.T) {
	t.Parallel()
	for _, id := range []string{`<img src=x onerror=alert(1)>`, "gpt-4o\x1b[2J\x1b[31mPWNED", "gpt 4o", "gpt-4o\n", "", `"quoted"`, strings.Repeat("a", 201)} {
		bad := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
			recs[0]["model"] = id
			return recs
		})
		err := refresh.CheckRecords(bad)
		if err == nil {
			t.Errorf("a build with model ID %q passed the check", id)
		} else if strings.ContainsAny(err.Error(), "\x1b\n") {
			t.Errorf("the error carries the raw ID: %q", err)
		}
	}
}

// TestRefreshRefusesRecordsOutsideTheirSchema: a record that does not match its OpenAPI schema is refused, and
// the embedded catalogs pass (every catalog has a schema in the document).
func TestRefreshRefusesRecordsOutsideTheirSchema(t *testing.T) {
	t.Parallel()
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := refresh.CheckRecords(emb); err != nil {
		t.Fatalf("the embedded catalogs fail the check: %v", err)
	}
	t.Logf("checked every embedded record in %v", time.Since(start))
	bad := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		recs[0]["confidence"] = "trust me"
		return recs
	})
	if err := refresh.CheckRecords(bad); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("a record outside its schema: %v", err)
	}
}

// TestTrimmedSourceHoldsTheBuild: a source trimmed to 110 entries shrinks the pricing catalog from its 2,000
// records: the counts exceed the limits; a small honest change does not.
func TestTrimmedSourceHoldsTheBuild(t *testing.T) {
	t.Parallel()
	emb := core(t, "", nil)
	trimmed := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any { return recs[:110] })
	h, err := refresh.Count(emb, trimmed)
	if err != nil {
		t.Fatal(err)
	}
	total := len(emb.Catalog(seeds.CatalogPricing).Records)
	if !h.Held() || h.RecordsRemoved != total-110 || len(h.Shrunk) != 1 || h.Shrunk[0] != (refresh.Shrink{Catalog: seeds.CatalogPricing, Before: total, After: 110}) {
		t.Errorf("trimmed to 110: %+v, held %v", h, h.Held())
	}
	small := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		for _, r := range singlePriced(recs, 10) {
			p := r["pricing"].(map[string]any)
			p["input_per_1m_tokens"] = p["input_per_1m_tokens"].(float64) * 1.1
		}
		return recs[:len(recs)-1]
	})
	if h, err := refresh.Count(emb, small); err != nil || h.Held() || h.PricesChanged != 10 || h.RecordsRemoved != 1 {
		t.Errorf("10 prices 10%% up, one record gone: %+v held %v (%v)", h, h.Held(), err)
	}
	many := core(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		for _, r := range singlePriced(recs, total/10) {
			p := r["pricing"].(map[string]any)
			p["input_per_1m_tokens"] = p["input_per_1m_tokens"].(float64) * 1.1
		}
		return recs
	})
	if h, err := refresh.Count(emb, many); err != nil || !h.Held() || !strings.Contains(h.Reasons(), "prices change") {
		t.Errorf("a tenth of the prices changed: %+v (%v)", h, err)
	}
}

// TestLifecycleEventsNeverCutBehindPriceEvents: 3,000 price changes leave every deprecation in the build's
// events, and subscribers get one catalog.changed summary with the counts.
func TestLifecycleEventsNeverCutBehindPriceEvents(t *testing.T) {
	t.Parallel()
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
