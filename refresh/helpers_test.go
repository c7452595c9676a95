package refresh_test

import (
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
)

// edit returns the embedded catalogs with fn applied to the records of one catalog.
func edit(t *testing.T, name string, fn func(recs []map[string]any) []map[string]any) *seeds.Set {
	t.Helper()
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return editFiles(t, maps.Clone(emb.Files()), name, fn)
}

// core returns the five core catalogs of the embedded set alone (a set a fifth the size, quicker to make and
// check), with fn applied to the records of one of them when fn is set.
func core(t *testing.T, name string, fn func(recs []map[string]any) []map[string]any) *seeds.Set {
	t.Helper()
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, n := range seeds.CoreCatalogNames() {
		files[n] = emb.Files()[n]
	}
	if fn == nil {
		set, err := seeds.NewSet(files, "embedded")
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	return editFiles(t, files, name, fn)
}

func editFiles(t *testing.T, files map[string][]byte, name string, fn func(recs []map[string]any) []map[string]any) *seeds.Set {
	t.Helper()
	var err error
	var c map[string]any
	if err := json.Unmarshal(files[name], &c); err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	b, _ := json.Marshal(c["records"])
	json.Unmarshal(b, &recs)
	c["records"] = fn(recs)
	if files[name], err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	set, err := seeds.NewSet(files, "refresh")
	if err != nil {
		t.Fatal(err)
	}
	return set
}

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

// fakeFree is the embedded set with a fake "$0 ...:free" model and a cheap model new on one source's word added
// to pricing, after the price check (checked) and with the probation it gives (prob), as of now.
func fakeFree(t *testing.T) (emb, checked *seeds.Set, prob map[string]string, now time.Time) {
	t.Helper()
	var err error
	if emb, err = seeds.Embedded(); err != nil {
		t.Fatal(err)
	}
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
	if checked, _, err = refresh.HoldPrices(emb, poisoned); err != nil {
		t.Fatal(err)
	}
	if got, ok := priceOf(t, checked, "openrouter", free); !ok || got != nil {
		t.Fatalf("%s: input price %v, want null (a $0 from one source and a name)", free, got)
	}
	now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	if prob, err = refresh.NextProbation(emb, checked, now); err != nil {
		t.Fatal(err)
	}
	if prob["openrouter/"+cheap] != "2026-12-05" || len(prob) != 2 {
		t.Fatalf("probation = %v, want both new models until 2026-12-05", prob)
	}
	return emb, checked, prob, now
}

// The fake models of fakeFree.
const free, cheap = "evil/gpt-5:free", "evil/gpt-5-cheap"
