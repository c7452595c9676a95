// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package refresh_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/decide"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
)

// TestRefreshHoldsThousandfoldPriceCutAndTenfoldRise reproduces the poisoned source's price attack: one source
// cuts a price 1,000x and raises another 10x. Both keep their value in service; a 4x move goes in, and so does a
// 1,000x cut that a second source agrees with.
func TestRefreshHoldsThousandfoldPriceCutAndTenfoldRise(t *testing.T) {
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

// TestRefreshRejectsIDsWithMarkupOrEscapes reproduces the model ID carrying HTML and terminal escape codes: the
// build is refused whole, before anything is stored or installed.
func TestRefreshRejectsIDsWithMarkupOrEscapes(t *testing.T) {
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

// TestFakeFreeModelNeverTopsCheapest reproduces the fake "$0 ...:free" model a poisoned source added: the name
// makes nothing free, the $0 from one source is held (the price stays unknown), and a cheap model new on one
// source's word stays out of rankings until a second source or 7 days.
func TestFakeFreeModelNeverTopsCheapest(t *testing.T) {
	t.Cleanup(func() { seeds.Install(nil) })
	_, checked, prob, now := fakeFree(t)
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
