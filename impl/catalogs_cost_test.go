package impl_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/seeds"
)

// The cost and batch catalogs (the cost and batch catalogs). Expectations are computed from the seeds files, decoded here as plain
// JSON objects, with plain loops; every answer is also validated against the OpenAPI document by apitest.

type gcRec = map[string]any

func gcProviderKey(r gcRec) string { return r["provider_id"].(string) }
func gcModelKey(r gcRec) string    { return r["provider_id"].(string) + "/" + r["model"].(string) }

// gcTrue is a nullable boolean field that is true (null is not).
func gcTrue(field string) func(gcRec) bool { return func(r gcRec) bool { return r[field] == true } }

func gcCount(recs []gcRec, keep func(gcRec) bool) int { return len(catWhere(recs, keep)) }

// gcChecker returns the check of one endpoint: GET path answers exactly want (by key, in order) under arrayKey,
// with as_of and sources of the file and the meta counts that counts computes from want.
func gcChecker(t *testing.T, s *apitest.Server, c *seeds.Catalog, arrayKey string, key func(gcRec) string,
	counts func([]gcRec) map[string]int) func(string, []gcRec) {
	return func(path string, want []gcRec) {
		t.Helper()
		body := catGet[map[string]any](t, s, path)
		var got []string
		for _, x := range body[arrayKey].([]any) {
			got = append(got, key(x.(gcRec)))
		}
		catSame(t, path, got, catKeys(want, key))
		meta := body["meta"].(map[string]any)
		if want := citedSources(t, c, body[arrayKey].([]any)); meta["as_of"] != c.AsOf || len(meta["sources"].([]any)) != len(want) {
			t.Errorf("%s: meta as_of %v (file %s), %d sources (the records cite %d)", path, meta["as_of"], c.AsOf, len(meta["sources"].([]any)), len(want))
		}
		for field, n := range counts(want) {
			if got, _ := meta[field].(float64); int(got) != n {
				t.Errorf("%s: meta.%s = %v, the records say %d", path, field, meta[field], n)
			}
		}
	}
}

func TestCostAndBatchCatalogs(t *testing.T) {
	s := catServer(t)
	t.Run("PromptCaching", func(t *testing.T) { testPromptCaching(t, s) })
	t.Run("CachingGranularity", func(t *testing.T) { testCachingGranularity(t, s) })
	t.Run("SemanticCaching", func(t *testing.T) { testSemanticCaching(t, s) })
	t.Run("BatchAPI", func(t *testing.T) { testBatchAPI(t, s) })
	t.Run("FineTuning", func(t *testing.T) { testFineTuning(t, s) })
	t.Run("AudioPricing", func(t *testing.T) { testAudioPricing(t, s) })
	t.Run("Reranking", func(t *testing.T) { testReranking(t, s) })
}

// gcByProvider sorts per-provider records by provider ID, the order of every per-provider endpoint.
func gcByProvider(recs []gcRec) []gcRec {
	out := slices.Clone(recs)
	slices.SortStableFunc(out, catByKey(gcProviderKey))
	return out
}

// gcPerProvider runs the checks every per-provider endpoint shares: all 52 records, one provider, a known
// provider whose record a filter drops (empty but valid), and the refusals. flag is a boolean filter parameter
// and field the nullable record field it reads.
func gcPerProvider(t *testing.T, s *apitest.Server, recs []gcRec, check func(string, []gcRec), path, flag, field string) {
	t.Helper()
	if len(recs) != 52 {
		t.Errorf("%s: %d records, want one per provider (52)", path, len(recs))
	}
	check(path, recs)
	check(path+"?"+flag+"=false", recs)
	kept := catSplits(t, flag+"=true", catWhere(recs, gcTrue(field)), recs)
	check(path+"?"+flag+"=true", kept)
	check(path+"?provider=openai", catWhere(recs, func(r gcRec) bool { return r["provider_id"] == "openai" }))
	dropped := catWhere(recs, func(r gcRec) bool { return r[field] != true })[0]["provider_id"].(string)
	check(path+"?provider="+dropped+"&"+flag+"=true", nil)
	catRefused(t, s, path+"?provider=nope", 404, "provider")
	catRefused(t, s, path+"?"+flag+"=maybe", 400, flag)
}

func testPromptCaching(t *testing.T, s *apitest.Server) {
	recs, c := catFile[gcRec](t, "prompt_caching")
	recs = gcByProvider(recs)
	check := gcChecker(t, s, c, "prompt_caching", gcProviderKey, func(want []gcRec) map[string]int {
		return map[string]int{"supported_count": gcCount(want, gcTrue("caching_supported")), "total": len(want)}
	})
	gcPerProvider(t, s, recs, check, "/api/v1/prompt-caching", "supported_only", "caching_supported")

	// The prices are those of price_model in /pricing.
	priced := 0
	for _, r := range recs {
		model, ok := r["price_model"].(string)
		if !ok {
			continue
		}
		body := catGet[map[string]any](t, s, "/api/v1/pricing?provider="+gcProviderKey(r))
		found := false
		for _, x := range body["pricing"].([]any) {
			p := x.(gcRec)
			if p["model"] != model {
				continue
			}
			found = true
			rates := p["pricing"].(map[string]any)
			if rates["input_per_1m_tokens"] != r["uncached_input_price_per_mtoken"] || rates["cached_input_per_1m_tokens"] != r["cached_input_price_per_mtoken"] {
				t.Errorf("%s: prompt-caching prices %v/%v, /pricing %s says %v/%v", gcProviderKey(r), r["uncached_input_price_per_mtoken"],
					r["cached_input_price_per_mtoken"], model, rates["input_per_1m_tokens"], rates["cached_input_per_1m_tokens"])
			}
		}
		if !found {
			t.Errorf("%s: price_model %s is not in /pricing", gcProviderKey(r), model)
		}
		priced++
	}
	if priced == 0 {
		t.Error("no prompt-caching record names a price model")
	}
}

func testCachingGranularity(t *testing.T, s *apitest.Server) {
	recs, c := catFile[gcRec](t, "caching_granularity")
	recs = gcByProvider(recs)
	check := gcChecker(t, s, c, "caching_granularity", gcProviderKey, func([]gcRec) map[string]int { return nil })
	gcPerProvider(t, s, recs, check, "/api/v1/caching-granularity", "supports_caching", "caching_supported")
}

func testSemanticCaching(t *testing.T, s *apitest.Server) {
	recs, c := catFile[gcRec](t, "semantic_caching")
	recs = gcByProvider(recs)
	check := gcChecker(t, s, c, "data", gcProviderKey, func([]gcRec) map[string]int { return nil })
	if len(recs) != 52 {
		t.Errorf("%d records, want 52", len(recs))
	}
	check("/api/v1/semantic-caching", recs)
	check("/api/v1/semantic-caching?semantic_only=false", recs)
	// No provider documents semantic caching: the filter keeps nothing, and says so in meta.note.
	check("/api/v1/semantic-caching?semantic_only=true", catWhere(recs, gcTrue("semantic_caching_supported")))
	check("/api/v1/semantic-caching?provider=anthropic", catWhere(recs, func(r gcRec) bool { return r["provider_id"] == "anthropic" }))
	body := catGet[map[string]any](t, s, "/api/v1/semantic-caching?provider=deepseek")
	if note, _ := body["meta"].(map[string]any)["note"].(string); !strings.Contains(note, "prefix") {
		t.Errorf("meta.note %q does not explain prefix caching", note)
	}
	catRefused(t, s, "/api/v1/semantic-caching?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/semantic-caching?semantic_only=1x", 400, "semantic_only")
}

func testBatchAPI(t *testing.T, s *apitest.Server) {
	recs, c := catFile[gcRec](t, "batch_api")
	recs = gcByProvider(recs)
	check := gcChecker(t, s, c, "batch_api", gcProviderKey, func(want []gcRec) map[string]int {
		return map[string]int{"available_count": gcCount(want, gcTrue("batch_api_available")), "total": len(want)}
	})
	gcPerProvider(t, s, recs, check, "/api/v1/batch-api", "available_only", "batch_api_available")
	check("/api/v1/batch-api?provider=anthropic&available_only=true", catWhere(recs, func(r gcRec) bool {
		return r["provider_id"] == "anthropic" && r["batch_api_available"] == true
	}))
}

func testFineTuning(t *testing.T, s *apitest.Server) {
	recs, c := catFile[gcRec](t, "fine_tuning")
	recs = gcByProvider(recs)
	check := gcChecker(t, s, c, "fine_tuning", gcProviderKey, func(want []gcRec) map[string]int {
		return map[string]int{"available_count": gcCount(want, gcTrue("available")), "total": len(want)}
	})
	gcPerProvider(t, s, recs, check, "/api/v1/fine-tuning", "available_only", "available")
	offers := func(method string) func(gcRec) bool {
		return func(r gcRec) bool {
			for _, m := range r["methods"].([]any) {
				if m == method {
					return true
				}
			}
			return false
		}
	}
	for _, m := range []string{"lora", "full", "supervised", "dpo"} {
		want := catWhere(recs, offers(m))
		if len(want) == 0 {
			t.Errorf("method=%s keeps nothing: the data no longer exercises it", m)
		}
		check("/api/v1/fine-tuning?method="+m, want)
	}
	check("/api/v1/fine-tuning?method=dpo&available_only=true&provider=openai", catWhere(recs, func(r gcRec) bool {
		return r["provider_id"] == "openai" && offers("dpo")(r) && r["available"] == true
	}))
	catRefused(t, s, "/api/v1/fine-tuning?method=rlhf", 400, "method")
}

func testReranking(t *testing.T, s *apitest.Server) {
	recs, c := catFile[gcRec](t, "reranking")
	recs = gcByProvider(recs)
	check := gcChecker(t, s, c, "reranking", gcProviderKey, func(want []gcRec) map[string]int {
		return map[string]int{"available_count": gcCount(want, gcTrue("reranking_available")), "total": len(want)}
	})
	gcPerProvider(t, s, recs, check, "/api/v1/reranking", "available_only", "reranking_available")
	multi := catWhere(recs, gcTrue("supports_multilingual"))
	if len(multi) == 0 {
		t.Error("multilingual_only keeps nothing")
	}
	check("/api/v1/reranking?multilingual_only=true", multi)
	check("/api/v1/reranking?multilingual_only=true&available_only=true", catWhere(multi, gcTrue("reranking_available")))
	check("/api/v1/reranking?provider=cohere&multilingual_only=true", catWhere(multi, func(r gcRec) bool { return r["provider_id"] == "cohere" }))
	catRefused(t, s, "/api/v1/reranking?multilingual_only=2", 400, "multilingual_only")
}

// gcAudioPrice is the price a record sorts by; ok is false when unknown.
func gcAudioPrice(r gcRec) (float64, bool) {
	field := "price_per_1k_chars"
	if r["type"] == "stt" {
		field = "price_per_minute"
	}
	v, ok := r[field].(float64)
	return v, ok
}

func testAudioPricing(t *testing.T, s *apitest.Server) {
	recs, c := catFile[gcRec](t, "audio_pricing")
	// The documented order: stt first, cheapest first with unknown prices last, then provider and model.
	slices.SortStableFunc(recs, func(a, b gcRec) int {
		if a["type"] != b["type"] {
			if a["type"] == "stt" {
				return -1
			}
			return 1
		}
		pa, oka := gcAudioPrice(a)
		pb, okb := gcAudioPrice(b)
		switch {
		case oka && !okb:
			return -1
		case !oka && okb:
			return 1
		case oka && pa != pb:
			return cmp.Compare(pa, pb)
		}
		return strings.Compare(gcModelKey(a), gcModelKey(b))
	})
	isType := func(typ string) func(gcRec) bool { return func(r gcRec) bool { return r["type"] == typ } }
	check := gcChecker(t, s, c, "audio_pricing", gcModelKey, func(want []gcRec) map[string]int {
		return map[string]int{"stt_count": gcCount(want, isType("stt")), "tts_count": gcCount(want, isType("tts")),
			"realtime_count": gcCount(want, gcTrue("realtime_supported"))}
	})
	free := func(r gcRec) bool { return r["free_tier"] != nil }
	check("/api/v1/audio-pricing", recs)
	check("/api/v1/audio-pricing?type=both&realtime_only=false&free_only=false", recs)
	for _, typ := range []string{"stt", "tts"} {
		if want := catWhere(recs, isType(typ)); len(want) == 0 {
			t.Errorf("type=%s keeps nothing", typ)
		} else {
			check("/api/v1/audio-pricing?type="+typ, want)
		}
	}
	rt := catWhere(recs, gcTrue("realtime_supported"))
	if len(rt) == 0 || len(rt) == len(recs) || gcCount(recs, free) == 0 || gcCount(recs, free) == len(recs) {
		t.Fatal("realtime_only or free_only no longer tells records apart")
	}
	check("/api/v1/audio-pricing?realtime_only=true", rt)
	check("/api/v1/audio-pricing?free_only=true", catWhere(recs, free))
	check("/api/v1/audio-pricing?type=tts&realtime_only=true", catWhere(rt, isType("tts")))
	check("/api/v1/audio-pricing?provider=deepgram", catWhere(recs, func(r gcRec) bool { return r["provider_id"] == "deepgram" }))
	check("/api/v1/audio-pricing?provider=openai&type=stt&realtime_only=true", catWhere(rt, func(r gcRec) bool {
		return r["provider_id"] == "openai" && r["type"] == "stt"
	}))
	check("/api/v1/audio-pricing?provider=anthropic", nil) // a known provider without audio models

	catRefused(t, s, "/api/v1/audio-pricing?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/audio-pricing?type=music", 400, "type")
	catRefused(t, s, "/api/v1/audio-pricing?realtime_only=yes", 400, "realtime_only")
	catRefused(t, s, "/api/v1/audio-pricing?free_only=yes", 400, "free_only")
}
