package derive

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func priced(provider, model, task string, in, cached *float64) seeds.PricingRecord {
	return seeds.PricingRecord{ProviderId: provider, Model: model, Task: api.Task(task),
		Pricing: seeds.PricingRates{InputPer1mTokens: in, CachedInputPer1mTokens: cached}}
}

func TestCachedPriceModel(t *testing.T) {
	recs := []seeds.PricingRecord{
		priced("p", "cheap", "llm", ptrTo(1.0), ptrTo(0.1)),
		priced("p", "top-b", "code", ptrTo(5.0), ptrTo(0.5)),
		priced("p", "top-a", "llm", ptrTo(5.0), ptrTo(1.25)),
		priced("p", "uncached", "llm", ptrTo(9.0), nil),            // no cached price: not a candidate
		priced("p", "embed", "embedding", ptrTo(20.0), ptrTo(2.0)), // not a language model
		priced("q", "other", "llm", ptrTo(50.0), ptrTo(5.0)),
	}
	m, ok := cachedPriceModel(recs, "p")
	if !ok || m.Model != "top-a" {
		t.Errorf("price model %q (%v), want top-a: highest input price, ties by model ID", m.Model, ok)
	}
	if _, ok := cachedPriceModel(recs, "none"); ok {
		t.Error("a provider without cached prices has a price model")
	}
	if n := cachedModelCount(recs, "p"); n != 3 {
		t.Errorf("cachedModelCount = %d, want 3", n)
	}
}

func TestCachingStatusOf(t *testing.T) {
	recs := []seeds.PricingRecord{priced("host", "m", "llm", ptrTo(2.0), ptrTo(0.5))}
	llm := func(id string) seeds.Provider { return seeds.Provider{ID: id, Name: id, Categories: []string{"llm"}} }
	documented := cachingStatusOf(llm("anthropic"), nil)
	if !gcIsTrue(documented.Supported) || documented.Fact == nil || documented.Price != nil {
		t.Errorf("documented provider: %+v", documented)
	}
	evidence := cachingStatusOf(llm("host"), recs)
	if !gcIsTrue(evidence.Supported) || evidence.Fact != nil || evidence.Price == nil || evidence.Price.Model != "m" {
		t.Errorf("provider with a cached price: %+v", evidence)
	}
	speech := cachingStatusOf(seeds.Provider{ID: "s", Categories: []string{"speech"}}, recs)
	if speech.Supported == nil || *speech.Supported {
		t.Errorf("speech-only provider: %+v, want false", speech)
	}
	if unknown := cachingStatusOf(llm("x"), recs); unknown.Supported != nil {
		t.Errorf("undocumented provider without cached prices: %+v, want null", unknown)
	}
	r := promptCachingOf(llm("host"), recs)
	if *r.UncachedInputPricePerMtoken != 2 || *r.CachedInputPricePerMtoken != 0.5 || *r.SavingsPct != 75 || *r.PriceModel != "m" {
		t.Errorf("prompt caching record %+v", r)
	}
	g := cachingGranularityOf(llm("host"), recs)
	if *g.CachedPricePctOfInput != 25 || g.CachingType != nil {
		t.Errorf("granularity record %+v", g)
	}
	s := semanticCachingOf(llm("anthropic"), nil)
	if s.SemanticCachingSupported == nil || *s.SemanticCachingSupported || *s.CachingType != semanticTypeExactPrefix {
		t.Errorf("semantic caching record %+v", s)
	}
}

func gcIsTrue(b *bool) bool { return b != nil && *b }

func TestAudioType(t *testing.T) {
	for _, c := range []struct {
		model string
		facts catalogbuild.SourceFacts
		want  string
	}{
		{"whisper-1", catalogbuild.SourceFacts{LiteLLM: map[string]any{"mode": "audio_transcription"}}, audioSTT},
		{"tts-1", catalogbuild.SourceFacts{LiteLLM: map[string]any{"mode": "audio_speech"}}, audioTTS},
		{"asr", catalogbuild.SourceFacts{ModelsDev: map[string]any{"modalities": map[string]any{"input": []any{"audio"}, "output": []any{"text"}}}}, audioSTT},
		{"voice", catalogbuild.SourceFacts{LiteLLM: map[string]any{"mode": "chat"}, ModelsDev: map[string]any{"modalities": map[string]any{"input": []any{"text"}, "output": []any{"audio"}}}}, audioTTS},
		{"gemini-2.5-pro-preview-tts", catalogbuild.SourceFacts{LiteLLM: map[string]any{"mode": "chat"}}, audioTTS},
		{"chat-model", catalogbuild.SourceFacts{LiteLLM: map[string]any{"mode": "chat"}}, ""},
	} {
		if got := audioType(c.model, c.facts); got != c.want {
			t.Errorf("audioType(%s) = %q, want %q", c.model, got, c.want)
		}
	}
}

func TestRealtimeAndAudioOrder(t *testing.T) {
	for _, c := range []struct {
		provider, model string
		want            *bool
	}{
		{"openai", "gpt-4o-transcribe", ptrTo(true)},
		{"openai", "gpt-4o-transcribe-diarize", nil},
		{"openai", "whisper-1", nil},
		{"azure-openai", "tts-1-hd", ptrTo(true)},
		{"deepgram", "nova-3-medical", ptrTo(true)},
		{"deepgram", "whisper-large", nil},
		{"assemblyai", "best", ptrTo(false)},
		{"groq", "whisper-large-v3", nil},
	} {
		got, _ := realtimeOf(c.provider, c.model)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("realtimeOf(%s, %s) = %v, want %v", c.provider, c.model, got, c.want)
		}
	}
	recs := []api.AudioPricingRecord{
		{ProviderId: "a", Type: audioTTS, Model: "t1", PricePer1kChars: ptrTo(0.01)},
		{ProviderId: "b", Type: audioSTT, Model: "s-unknown"},
		{ProviderId: "b", Type: audioSTT, Model: "s2", PricePerMinute: ptrTo(0.006)},
		{ProviderId: "a", Type: audioSTT, Model: "s1", PricePerMinute: ptrTo(0.006)},
		{ProviderId: "a", Type: audioSTT, Model: "s0", PricePerMinute: ptrTo(0.002)},
	}
	slices.SortFunc(recs, compareAudio)
	var got []string
	for _, r := range recs {
		got = append(got, r.Model)
	}
	if want := []string{"s0", "s1", "s2", "s-unknown", "t1"}; !slices.Equal(got, want) {
		t.Errorf("audio order %v, want %v", got, want)
	}
	mit := "MIT"
	r, ok := audioPricingOf(seeds.PricingRecord{ProviderId: "groq", Model: "whisper-large-v3", Task: "speech",
		Pricing: seeds.PricingRates{PerMinuteAudio: ptrTo(0.00185)}, Sources: []string{catalogbuild.SourceLiteLLM}},
		catalogbuild.SourceFacts{LiteLLM: map[string]any{"mode": "audio_transcription"}}, map[string]string{"groq": "free plan"},
		map[string]seeds.Source{catalogbuild.SourceLiteLLM: {ID: catalogbuild.SourceLiteLLM, Name: "litellm", License: &mit}})
	if !ok || *r.PricePerMinute != 0.00185 || r.PricePer1kChars != nil || *r.FreeTier != "free plan" || r.RealtimeSupported != nil {
		t.Errorf("audio record %+v", r)
	}
	// The notes name what the price rests on, so the record cites the data set and is no surer than it.
	if r.Notes == nil || !strings.Contains(*r.Notes, "Prices from litellm.") {
		t.Errorf("audio record notes %v", r.Notes)
	}
}

func TestRerankingOf(t *testing.T) {
	llm := seeds.Provider{ID: "cohere", Name: "Cohere", Categories: []string{"llm"}}
	r := rerankingOf(llm, []rerankModel{{ID: "a", PerQuery: ptrTo(0.0025)}, {ID: "b", PerQuery: ptrTo(0.002)}, {ID: "c", PerToken: ptrTo(5e-8)}})
	if !gcIsTrue(r.RerankingAvailable) || *r.PricePer1kQueries != 2 || !gcIsTrue(r.SupportsMultilingual) || len(r.Models) != 3 {
		t.Errorf("cohere record %+v", r)
	}
	if r := rerankingOf(seeds.Provider{ID: "x", Categories: []string{"image"}}, nil); r.RerankingAvailable == nil || *r.RerankingAvailable {
		t.Errorf("image-only provider: %+v, want false", r)
	}
	if r := rerankingOf(seeds.Provider{ID: "x", Categories: []string{"llm"}}, nil); r.RerankingAvailable != nil {
		t.Errorf("undocumented provider: %+v, want null", r)
	}
	if r := batchAPIOf(seeds.Provider{ID: "x"}); r.BatchApiAvailable != nil || len(r.SupportedEndpoints) != 0 {
		t.Errorf("undocumented batch provider: %+v", r)
	}
	if r := fineTuningOf(seeds.Provider{ID: "anthropic"}); r.Available == nil || *r.Available || len(r.Methods) != 0 {
		t.Errorf("anthropic fine-tuning: %+v, want documented false", r)
	}
}

// TestBatchDiscountsAgreeWithLiteLLM checks the documented 50% batch discounts against litellm's batch prices
// where litellm has them.
func TestBatchDiscountsAgreeWithLiteLLM(t *testing.T) {
	in := &Input{DataDir: dataDir(t)}
	facts, err := ModelFacts(in)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for key, f := range facts {
		base, ok1 := f.LiteLLM["input_cost_per_token"].(float64)
		batch, ok2 := f.LiteLLM["input_cost_per_token_batches"].(float64)
		provider, _, _ := strings.Cut(key, "/")
		b, documented := batchFacts[provider]
		if !ok1 || !ok2 || base == 0 || !documented || b.Discount == nil {
			continue
		}
		checked++
		if got := round1((1 - batch/base) * 100); got != *b.Discount {
			t.Errorf("%s: litellm batch discount %v%%, the batch catalog says %v%%", key, got, *b.Discount)
		}
	}
	if checked == 0 {
		t.Error("no litellm batch price was compared")
	}
}
