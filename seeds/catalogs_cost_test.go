package seeds

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"
)

// The cost and batch catalogs (the cost and batch catalogs).
func init() {
	recordSchemas["prompt_caching"] = "PromptCachingRecord"
	recordSchemas["caching_granularity"] = "CachingGranularityRecord"
	recordSchemas["semantic_caching"] = "SemanticCachingRecord"
	recordSchemas["batch_api"] = "BatchApiRecord"
	recordSchemas["fine_tuning"] = "FineTuningRecord"
	recordSchemas["audio_pricing"] = "AudioPricingRecord"
	recordSchemas["reranking"] = "RerankingRecord"
}

// TestCostPerProviderCatalogs checks the six per-provider catalogs: exactly one record per provider of
// providers.json, sorted by provider ID, provider_name as in providers.json, and notes on every record.
func TestCostPerProviderCatalogs(t *testing.T) {
	var ids []string
	names := map[string]string{}
	for _, p := range Providers().All() {
		ids = append(ids, p.ID)
		names[p.ID] = p.Name
	}
	slices.Sort(ids)
	if len(ids) != 52 {
		t.Fatalf("%d providers, the catalogs are written for 52", len(ids))
	}
	for _, name := range []string{"prompt_caching", "caching_granularity", "semantic_caching", "batch_api", "fine_tuning", "reranking"} {
		recs := testRecords[map[string]any](t, name)
		var got []string
		for _, r := range recs {
			id := r["provider_id"].(string)
			got = append(got, id)
			if n, ok := r["provider_name"]; ok && n != names[id] {
				t.Errorf("%s/%s: provider_name %q, providers.json says %q", name, id, n, names[id])
			}
			if notes, _ := r["notes"].(string); strings.TrimSpace(notes) == "" {
				t.Errorf("%s/%s: no notes", name, id)
			}
		}
		if !slices.Equal(got, ids) {
			t.Errorf("%s: providers %v, want each of the 52 once in ID order", name, got)
		}
	}
}

func costNum(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// TestPromptCachingAgreesWithPricing checks that the prices of /prompt-caching are those of its price_model in the
// pricing catalog, that price_model follows the rule (the highest input price among the provider's llm/code
// models with a cached price, ties by model ID), and that savings_pct follows from the two prices.
func TestPromptCachingAgreesWithPricing(t *testing.T) {
	pricing, err := PricingRecords()
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]PricingRecord{}
	candidates := map[string][]PricingRecord{}
	for _, p := range pricing {
		byKey[p.ProviderId+"/"+p.Model] = p
		if (p.Task == "llm" || p.Task == "code") && p.Pricing.InputPer1mTokens != nil && p.Pricing.CachedInputPer1mTokens != nil {
			candidates[p.ProviderId] = append(candidates[p.ProviderId], p)
		}
	}
	withPrices := 0
	for _, r := range testRecords[map[string]any](t, "prompt_caching") {
		id := r["provider_id"].(string)
		cands := candidates[id]
		if len(cands) == 0 {
			if r["price_model"] != nil || r["uncached_input_price_per_mtoken"] != nil || r["cached_input_price_per_mtoken"] != nil {
				t.Errorf("prompt_caching/%s: prices without a cached-priced model in pricing.json: %v", id, r)
			}
			continue
		}
		slices.SortFunc(cands, func(a, b PricingRecord) int {
			return cmp.Or(cmp.Compare(*b.Pricing.InputPer1mTokens, *a.Pricing.InputPer1mTokens), strings.Compare(a.Model, b.Model))
		})
		model, _ := r["price_model"].(string)
		if model != cands[0].Model {
			t.Errorf("prompt_caching/%s: price_model %q, the rule picks %q", id, model, cands[0].Model)
		}
		p, ok := byKey[id+"/"+model]
		if !ok {
			t.Errorf("prompt_caching/%s: price_model %q is not in pricing.json", id, model)
			continue
		}
		in, _ := costNum(r["uncached_input_price_per_mtoken"])
		cached, _ := costNum(r["cached_input_price_per_mtoken"])
		if in != *p.Pricing.InputPer1mTokens || cached != *p.Pricing.CachedInputPer1mTokens {
			t.Errorf("prompt_caching/%s: prices %v/%v, pricing.json %s says %v/%v", id, in, cached, model,
				*p.Pricing.InputPer1mTokens, *p.Pricing.CachedInputPer1mTokens)
		}
		if sv, _ := costNum(r["savings_pct"]); in > 0 && math.Abs(sv-(1-cached/in)*100) > 0.05 {
			t.Errorf("prompt_caching/%s: savings_pct %v for %v -> %v", id, sv, in, cached)
		}
		if r["caching_supported"] != true {
			t.Errorf("prompt_caching/%s: a cached price is listed but caching_supported is %v", id, r["caching_supported"])
		}
		withPrices++
	}
	if withPrices < 15 {
		t.Errorf("only %d providers have caching prices: the rule or pricing.json changed", withPrices)
	}
}

// TestCachingCatalogsAgree checks that the three caching catalogs tell the same story per provider.
func TestCachingCatalogsAgree(t *testing.T) {
	prompt := testRecords[map[string]any](t, "prompt_caching")
	gran := testRecords[map[string]any](t, "caching_granularity")
	sem := testRecords[map[string]any](t, "semantic_caching")
	for i, p := range prompt {
		id := p["provider_id"]
		if gran[i]["provider_id"] != id || sem[i]["provider_id"] != id {
			t.Fatalf("record %d: providers %v/%v/%v", i, id, gran[i]["provider_id"], sem[i]["provider_id"])
		}
		if gran[i]["caching_supported"] != p["caching_supported"] {
			t.Errorf("%s: caching_supported %v in prompt_caching, %v in caching_granularity", id, p["caching_supported"], gran[i]["caching_supported"])
		}
		if gran[i]["requires_explicit_markup"] != p["requires_explicit_markup"] {
			t.Errorf("%s: requires_explicit_markup differs", id)
		}
		if in, ok := costNum(p["uncached_input_price_per_mtoken"]); ok && in > 0 {
			cached, _ := costNum(p["cached_input_price_per_mtoken"])
			if pct, _ := costNum(gran[i]["cached_price_pct_of_input"]); math.Abs(pct-cached/in*100) > 0.05 {
				t.Errorf("%s: cached_price_pct_of_input %v for %v -> %v", id, pct, in, cached)
			}
		}
		if p["caching_supported"] == true && sem[i]["caching_type"] == nil {
			t.Errorf("%s: caching supported but no caching_type in semantic_caching", id)
		}
		if sem[i]["semantic_caching_supported"] == true {
			t.Errorf("%s: semantic caching claimed; no provider documents it", id)
		}
	}
}

// TestAudioPricingAgreesWithPricing checks that /audio-pricing has one record per speech model of pricing.json,
// with the same per-minute or per-1k-character price, in the documented order.
func TestAudioPricingAgreesWithPricing(t *testing.T) {
	pricing, err := PricingRecords()
	if err != nil {
		t.Fatal(err)
	}
	speech := map[string]PricingRecord{}
	for _, p := range pricing {
		if p.Task == "speech" {
			speech[p.ProviderId+"/"+p.Model] = p
		}
	}
	recs := testRecords[map[string]any](t, "audio_pricing")
	if len(recs) != len(speech) {
		t.Errorf("%d audio records for %d speech models in pricing.json", len(recs), len(speech))
	}
	price := func(r map[string]any) (float64, bool) {
		if r["type"] == "stt" {
			return costNum(r["price_per_minute"])
		}
		return costNum(r["price_per_1k_chars"])
	}
	for i, r := range recs {
		key := r["provider_id"].(string) + "/" + r["model"].(string)
		p, ok := speech[key]
		if !ok {
			t.Errorf("audio_pricing %s is not a speech model of pricing.json", key)
			continue
		}
		same := func(got any, want *float64) bool {
			g, ok := costNum(got)
			return (want == nil && !ok) || (want != nil && ok && g == *want)
		}
		switch r["type"] {
		case "stt":
			if !same(r["price_per_minute"], p.Pricing.PerMinuteAudio) || r["price_per_1k_chars"] != nil {
				t.Errorf("audio_pricing %s: stt prices %v/%v, pricing.json per minute %v", key, r["price_per_minute"], r["price_per_1k_chars"], p.Pricing.PerMinuteAudio)
			}
		case "tts":
			if !same(r["price_per_1k_chars"], p.Pricing.Per1kCharacters) || r["price_per_minute"] != nil {
				t.Errorf("audio_pricing %s: tts prices %v/%v, pricing.json per 1k chars %v", key, r["price_per_minute"], r["price_per_1k_chars"], p.Pricing.Per1kCharacters)
			}
		}
		if i == 0 {
			continue
		}
		prev := recs[i-1]
		if prev["type"] == "tts" && r["type"] == "stt" {
			t.Errorf("audio_pricing %s: stt after tts", key)
		}
		if prev["type"] == r["type"] {
			a, aok := price(prev)
			b, bok := price(r)
			if (!aok && bok) || (aok && bok && a > b) {
				t.Errorf("audio_pricing %s: price %v after %v", key, b, a)
			}
		}
	}
}
