// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// catalogFile reads a committed catalog of seeds/catalogs.
func catalogFile(t *testing.T, name string) (sources []Source, records []map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "seeds", "catalogs", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Sources []Source         `json:"sources"`
		Records []map[string]any `json:"records"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	return env.Sources, env.Records
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// TestBuiltCatalogInvariants holds every committed catalog to the rules no schema can state.
func TestBuiltCatalogInvariants(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "seeds", "catalogs", "*.json"))
	if err != nil || len(files) < 40 {
		t.Fatalf("catalog files: %v (%d)", err, len(files))
	}
	levels := []string{ConfidenceVerified, ConfidenceAgreed, ConfidenceSingle, ConfidenceDisputed}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		sources, recs := catalogFile(t, name)
		ids := map[string]bool{}
		for _, s := range sources {
			if s.ID == "" || ids[s.ID] {
				t.Errorf("%s: source id %q empty or repeated", name, s.ID)
			}
			ids[s.ID] = true
			if s.AsOf == nil || !dayRE.MatchString(*s.AsOf) {
				t.Errorf("%s: source %s has no as_of date", name, s.ID)
			}
		}
		// The catalog is as old as the oldest source its records cite.
		cited := map[string]bool{}
		for _, r := range recs {
			srcs, _ := r["sources"].([]any)
			for _, s := range srcs {
				cited[s.(string)] = true
			}
		}
		oldest := ""
		for _, s := range sources {
			if cited[s.ID] && s.AsOf != nil && (oldest == "" || *s.AsOf < oldest) {
				oldest = *s.AsOf
			}
		}
		var env struct {
			AsOf string `json:"as_of"`
		}
		b, _ := os.ReadFile(f)
		_ = json.Unmarshal(b, &env)
		if env.AsOf != oldest {
			t.Errorf("%s: as_of %s, its oldest cited source holds for %s", name, env.AsOf, oldest)
		}
		for i, r := range recs {
			srcs, _ := r["sources"].([]any)
			if len(srcs) == 0 {
				t.Errorf("%s record %d has no sources", name, i)
			}
			for _, s := range srcs {
				if id, _ := s.(string); !ids[id] {
					t.Errorf("%s record %d cites %v, which is not among the catalog's sources", name, i, s)
				}
			}
			if c, _ := r["confidence"].(string); !slices.Contains(levels, c) {
				t.Errorf("%s record %d: confidence %q", name, i, c)
			}
		}
	}
}

// TestPricingAndModelBounds: no value outside the bounds reaches a catalog; $0 only for models a source calls free.
func TestPricingAndModelBounds(t *testing.T) {
	_, pricing := catalogFile(t, "pricing")
	for _, r := range pricing {
		p := r["pricing"].(map[string]any)
		task, _ := r["task"].(string)
		if tokenTask(task) {
			if v, ok := num(p["input_per_1m_tokens"]); ok && v > MaxLLMInputPer1M {
				t.Errorf("pricing %s/%s input %v above the bound", r["provider_id"], r["model"], v)
			}
			if v, ok := num(p["output_per_1m_tokens"]); ok && v > MaxLLMOutputPer1M {
				t.Errorf("pricing %s/%s output %v above the bound", r["provider_id"], r["model"], v)
			}
		}
		if v, ok := num(p["input_per_1m_tokens"]); ok && task == "embedding" && v > MaxEmbeddingInputPer1M {
			t.Errorf("pricing %s/%s embedding input %v above the bound", r["provider_id"], r["model"], v)
		}
		if task == "image" {
			for _, field := range []string{"input_per_1m_tokens", "output_per_1m_tokens"} {
				if v, ok := num(p[field]); ok && (r["provider_id"] == "fireworks" || (v > 0 && v < MinImageTokenPer1M)) {
					t.Errorf("pricing %s/%s: %s %v is a unit price read as per token", r["provider_id"], r["model"], field, v)
				}
			}
		}
		for field, v := range p {
			if f, ok := num(v); ok && f == 0 && r["free_tier"] != true {
				t.Errorf("pricing %s/%s: %s is $0 but the model is not marked free", r["provider_id"], r["model"], field)
			}
		}
		model, _ := r["model"].(string)
		for _, prefix := range []string{"bedrock/", "azure/", "azure_ai/", "vertex_ai/", "gemini/", "together_ai/", "fireworks_ai/", "cohere_chat/", "openrouter/", "text-completion-"} {
			if strings.HasPrefix(model, prefix) {
				t.Errorf("pricing %s/%s carries the routing prefix %q", r["provider_id"], model, prefix)
			}
		}
		if r["provider_id"] == "aws-bedrock" && strings.Contains(model, "@") {
			t.Errorf("pricing aws-bedrock/%s is not a Bedrock model ID", model)
		}
	}
	_, models := catalogFile(t, "models")
	for _, r := range models {
		w, okW := num(r["context_window"])
		o, okO := num(r["max_output_tokens"])
		if okW && w > MaxContextWindow {
			t.Errorf("models %s/%s window %v above the bound", r["provider_id"], r["model_id"], w)
		}
		if okW && okO && o > w {
			t.Errorf("models %s/%s output %v above the window %v", r["provider_id"], r["model_id"], o, w)
		}
		if okW && okO && o == w && r["confidence"] != ConfidenceVerified {
			t.Errorf("models %s/%s output equals the window and no official page says so", r["provider_id"], r["model_id"])
		}
	}
}

// TestRetiredModelsLeaveThePriceList: a model the provider's page lists as shut down on or before the build's
// reference date is in no price or model record.
func TestRetiredModelsLeaveThePriceList(t *testing.T) {
	known := knownAll(t)
	official, err := LoadLifecycle(filepath.Join("..", "sources", "official", "lifecycle"), known)
	if err != nil {
		t.Fatal(err)
	}
	asOf := ""
	for _, f := range []string{"pricing", "models"} {
		var env struct {
			AsOf string `json:"as_of"`
		}
		b, _ := os.ReadFile(filepath.Join("..", "seeds", "catalogs", f+".json"))
		_ = json.Unmarshal(b, &env)
		asOf = max(asOf, env.AsOf)
	}
	live := map[string]bool{}
	for _, f := range []string{"pricing", "models"} {
		_, recs := catalogFile(t, f)
		for _, r := range recs {
			id, _ := r["model"].(string)
			if id == "" {
				id, _ = r["model_id"].(string)
			}
			live[r["provider_id"].(string)+"/"+id] = true
		}
	}
	for pid, f := range official {
		current := map[string]bool{}
		for _, m := range f.Current {
			current[m.ModelID] = true
		}
		for _, r := range f.Retired {
			if r.Shutdown != nil && *r.Shutdown <= newestChecked(official) && !current[r.ModelID] && live[pid+"/"+r.ModelID] {
				t.Errorf("%s/%s was shut down on %s and is still offered", pid, r.ModelID, *r.Shutdown)
			}
		}
	}
}

func TestCrossCheck(t *testing.T) {
	v, srcs, agreed := crossCheck([]sourced{{SourceLiteLLM, 2.5}, {SourceModelsDev, 2.5}, {SourceGenAI, 2.51}})
	if v == nil || *v != 2.5 || !agreed || len(srcs) != 3 {
		t.Errorf("values within 2%% should agree: %v %v %v", v, srcs, agreed)
	}
	v, _, agreed = crossCheck([]sourced{{SourceLiteLLM, 2.5}, {SourceModelsDev, 30}})
	if v != nil || agreed {
		t.Errorf("values 12x apart should be disputed (nil): %v %v", v, agreed)
	}
	v, srcs, agreed = crossCheck([]sourced{{SourceGenAI, 1}})
	if v == nil || agreed || len(srcs) != 1 {
		t.Errorf("one source is single: %v %v %v", v, srcs, agreed)
	}
	if !agree([]float64{100, 98}) || agree([]float64{100, 97.9}) {
		t.Error("the tolerance is 2% of the larger value")
	}
}

// TestUnitConversion: litellm's per-token, per-second and per-character prices become per 1M tokens, per minute
// and per 1,000 characters; golden values from litellm's own entries for gpt-4o, whisper-1 and tts-1.
func TestUnitConversion(t *testing.T) {
	cases := []struct {
		entry map[string]any
		mode  string
		task  string
		want  api.PricingRates
	}{
		{map[string]any{"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1.25e-06}, "chat", "llm",
			api.PricingRates{InputPer1mTokens: ptr(2.5), OutputPer1mTokens: ptr(10), CachedInputPer1mTokens: ptr(1.25)}},
		{map[string]any{"input_cost_per_second": 0.0001}, "audio_transcription", "speech", api.PricingRates{PerMinuteAudio: ptr(0.006)}},
		{map[string]any{"input_cost_per_character": 1.5e-05}, "audio_speech", "speech", api.PricingRates{Per1kCharacters: ptr(0.015)}},
		{map[string]any{"output_cost_per_image": 0.04}, "image_generation", "image", api.PricingRates{PerImage: ptr(0.04)}},
	}
	for i, c := range cases {
		got := litellmRates(litellmEntry{Key: "k", Mode: c.mode, Fields: c.entry}, c.task)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(c.want)
		if string(g) != string(w) {
			t.Errorf("case %d: %s, want %s", i, g, w)
		}
	}
}

// TestOfficialFilesAreChecked: every curated page needs an https URL and a check date, and every fact a page.
func TestOfficialFilesAreChecked(t *testing.T) {
	known := map[string]bool{"openai": true}
	bad := []string{
		`{"provider_id":"openai","pages":[{"id":"p","title":"t","url":"http://x","checked":"2026-11-24","as_of":null}],"retired":[],"current":[]}`,
		`{"provider_id":"openai","pages":[{"id":"p","title":"t","url":"https://x","checked":"yesterday","as_of":null}],"retired":[],"current":[]}`,
		`{"provider_id":"openai","pages":[{"id":"p","title":"t","url":"https://x","checked":"2026-11-24","as_of":null}],"retired":[{"model_id":"m","announced":null,"shutdown":"2026-01-01","replacement":null,"source":"q","note":null}],"current":[]}`,
		`{"provider_id":"openai","pages":[],"retired":[],"current":[{"model_id":"m","name":null,"task":"llm","stage":"ga","released":null,"context_window":null,"max_output_tokens":null,"input_per_1m_tokens":1,"output_per_1m_tokens":2,"cached_input_per_1m_tokens":null,"sources":[],"note":null}]}`,
	}
	for i, b := range bad {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "openai.json"), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadLifecycle(dir, known); err == nil {
			t.Errorf("case %d: a malformed curated file was accepted", i)
		}
	}
	if _, err := LoadLifecycle(filepath.Join("..", "sources", "official", "lifecycle"), knownAll(t)); err != nil {
		t.Errorf("the committed curated files: %v", err)
	}
}

func knownAll(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		out[p.ID] = true
	}
	if len(out) != seeds.MonitoredProviders {
		t.Fatalf("%d providers in the registry", len(out))
	}
	return out
}

// TestTaskByName: a model its provider names an image generator or a text-to-speech voice is no language model,
// whatever mode a data set gave it; a name that only contains the letters is left alone.
func TestTaskByName(t *testing.T) {
	for id, want := range map[string]string{
		"accounts/fireworks/models/flux-1-dev": "image", "gpt-5.4-image-2": "image", "gemini-2.5-pro-tts": "speech",
		"gemini-2.5-flash-lite-preview-tts": "speech", "gpt-4o-mini": "llm", "imagine-7b": "llm", "gpt-audio": "llm",
		"qwen2.5-coder-32b-instruct": "code",
	} {
		if got, _ := refine("llm", id, false); got != want {
			t.Errorf("refine(llm, %s) = %s, want %s", id, got, want)
		}
	}
	if got, _ := refine("embedding", "amazon.titan-embed-image-v1", false); got != "embedding" {
		t.Errorf("an embedding model that embeds images became %s", got)
	}
}
