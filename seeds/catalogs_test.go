package seeds

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/openapi"
)

// recordSchemas names the OpenAPI schema every record of a catalog must satisfy. Every catalog file needs an
// entry: the catalogs of each endpoint group add theirs in an init function of their own test file.
var recordSchemas = map[string]string{
	CatalogPricing:    "PricingRecord",
	CatalogModels:     "ModelRecord",
	CatalogBenchmarks: "BenchmarksRecord",
	CatalogRateLimits: "RateLimitTier",
	CatalogFreeTier:   "FreeTierRecord",
}

// schema is the validator of the document's component schema name, compiled once per test binary
// (openapi.ComponentSchema): kin-openapi's VisitJSON compiled one for every value it checked.
func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := openapi.ComponentSchema(name)
	if err != nil {
		t.Fatalf("the OpenAPI document's schema %s: %v", name, err)
	}
	return s
}

// value reads JSON as the validator takes it.
func value(t *testing.T, raw []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCatalogsLoad(t *testing.T) {
	for _, name := range CatalogNames() {
		c, err := LoadCatalog(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Records) == 0 {
			t.Errorf("%s: no records", name)
		}
		again, _ := LoadCatalog(name)
		if again != c {
			t.Errorf("%s: LoadCatalog does not return the catalog loaded once", name)
		}
	}
	if _, err := LoadCatalog("nope"); err == nil {
		t.Error("LoadCatalog accepts an unknown name")
	}
	if _, err := PricingRecords(); err != nil {
		t.Error(err)
	}
	if _, err := ModelRecords(); err != nil {
		t.Error(err)
	}
	if _, err := BenchmarkRecords(); err != nil {
		t.Error(err)
	}
	if _, err := RateLimitRecords(); err != nil {
		t.Error(err)
	}
	if _, err := FreeTierRecords(); err != nil {
		t.Error(err)
	}
}

// TestCatalogRecordsMatchOpenAPI validates every record of every catalog against the record schema of its
// endpoint, and every source against the Source schema.
func TestCatalogRecordsMatchOpenAPI(t *testing.T) {
	source := schema(t, "Source")
	for _, name := range CatalogNames() {
		c, err := LoadCatalog(name)
		if err != nil {
			t.Fatal(err)
		}
		schemaName, ok := recordSchemas[name]
		if !ok {
			t.Errorf("catalogs/%s.json has no record schema in recordSchemas", name)
			continue
		}
		rec := schema(t, schemaName)
		failures := 0
		for i, raw := range c.Records {
			if err := rec.Validate(value(t, raw)); err != nil {
				failures++
				if failures <= 5 {
					t.Errorf("%s record %d (%s) does not match %s: %v", name, i, raw, recordSchemas[name], err)
				}
			}
		}
		if failures > 5 {
			t.Errorf("%s: %d records fail %s in all", name, failures, recordSchemas[name])
		}
		for i, s := range c.Sources {
			b, _ := json.Marshal(s)
			if err := source.Validate(value(t, b)); err != nil {
				t.Errorf("%s source %d: %v", name, i, err)
			}
		}
	}
}

// TestRecordCheckFindsOneBrokenRecord: the schema check refuses a real record once one field is broken.
func TestRecordCheckFindsOneBrokenRecord(t *testing.T) {
	rec := schema(t, "PricingRecord")
	c, err := LoadCatalog("pricing")
	if err != nil {
		t.Fatal(err)
	}
	v := value(t, c.Records[1])
	if err := rec.Validate(v); err != nil {
		t.Fatalf("a real pricing record does not match: %v", err)
	}
	v.(map[string]any)["provider_id"] = json.Number("42")
	if rec.Validate(v) == nil {
		t.Error("a record whose provider_id is a number matches")
	}
}

func TestCatalogEnvelopes(t *testing.T) {
	for _, name := range CatalogNames() {
		c, err := LoadCatalog(name)
		if err != nil {
			t.Fatal(err)
		}
		if !asOfRE.MatchString(c.AsOf) {
			t.Errorf("%s: as_of %q", name, c.AsOf)
		}
		if len(c.Sources) == 0 {
			t.Errorf("%s: no sources", name)
		}
		for _, s := range c.Sources {
			if s.Name == "" || !strings.HasPrefix(s.URL, "https://") {
				t.Errorf("%s: source %+v lacks a name or an https URL", name, s)
			}
			llmStats := strings.Contains(s.URL, "llm-leaderboard") || strings.Contains(strings.ToLower(s.Name), "llm-stats")
			if llmStats && (s.License == nil || *s.License != "CC-BY-4.0" || !strings.Contains(s.Name, "LLM-Stats.com")) {
				t.Errorf("%s: llm-stats is not credited as CC-BY-4.0 with its attribution: %+v", name, s)
			}
		}
		// Files end with a newline and are indented JSON, as the converter writes them.
		b, err := CatalogJSON(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(b, []byte("}\n")) {
			t.Errorf("%s.json does not end with a newline", name)
		}
	}
}

func TestCatalogProvidersAndKeys(t *testing.T) {
	reg := Providers()
	type rec struct {
		ProviderID string `json:"provider_id"`
		Model      string `json:"model"`
		ModelID    string `json:"model_id"`
		// Tier keys the free-tier catalog (a string); the benchmarks catalog's tier is an object (a lineup tier),
		// not a key.
		Tier json.RawMessage `json:"tier"`
	}
	// The core catalogs are keyed by provider and model or tier; the others check their own keys.
	for _, name := range CoreCatalogNames() {
		c, _ := LoadCatalog(name)
		recs, err := Records[rec](c)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		prev := ""
		for i, r := range recs {
			if !reg.Known(r.ProviderID) {
				t.Errorf("%s record %d: provider %q is not one of the %d", name, i, r.ProviderID, MonitoredProviders)
			}
			var tier string
			_ = json.Unmarshal(r.Tier, &tier)
			second := r.Model + r.ModelID + tier
			k := r.ProviderID + "\x00" + second
			if name != CatalogFreeTier && strings.TrimSpace(second) == "" {
				t.Errorf("%s record %d: no model or tier", name, i)
			}
			if seen[k] {
				t.Errorf("%s: duplicate (%s, %s)", name, r.ProviderID, second)
			}
			seen[k] = true
			if k < prev {
				t.Errorf("%s: record %d (%s, %s) is out of order (provider ID, then model or tier)", name, i, r.ProviderID, second)
			}
			prev = k
		}
	}
	// The free-tier catalog has exactly one record per monitored provider.
	ft, err := FreeTierRecords()
	if err != nil {
		t.Fatal(err)
	}
	if len(ft) != MonitoredProviders {
		t.Errorf("free_tier: %d records, want %d", len(ft), MonitoredProviders)
	}
	for _, r := range ft {
		p, _ := reg.Get(r.ProviderId)
		if r.ProviderName != p.Name {
			t.Errorf("free_tier %s: provider_name %q, providers.json says %q", r.ProviderId, r.ProviderName, p.Name)
		}
		if (r.HasFreeTier == nil || !*r.HasFreeTier) && (r.TierType != nil || len(r.IncludedModels) > 0 || r.TrialCreditUsd != nil) {
			t.Errorf("free_tier %s: no free tier but free-tier details", r.ProviderId)
		}
		if r.TrialCreditUsd == nil && r.TrialCreditRecurring != nil && *r.TrialCreditRecurring {
			t.Errorf("free_tier %s: recurring trial credit without an amount", r.ProviderId)
		}
		if r.Notes == nil || *r.Notes == "" {
			t.Errorf("free_tier %s: no notes (say where the facts come from or that they are unknown)", r.ProviderId)
		}
	}
	// Rate limits: every tier names its official page; a tier without any value says why.
	rl, err := RateLimitRecords()
	if err != nil {
		t.Fatal(err)
	}
	providers := map[string]bool{}
	for _, r := range rl {
		providers[r.ProviderId] = true
		if !strings.HasPrefix(r.SourceUrl, "https://") {
			t.Errorf("rate_limits %s/%s: source_url %q", r.ProviderId, r.Tier, r.SourceUrl)
		}
		if r.Notes == nil || *r.Notes == "" {
			t.Errorf("rate_limits %s/%s: no notes", r.ProviderId, r.Tier)
		}
	}
	for _, p := range []string{"openai", "anthropic", "google-gemini", "mistral", "cohere", "groq", "together", "fireworks",
		"deepseek", "perplexity", "xai", "openrouter", "cerebras", "ai21"} {
		if !providers[p] {
			t.Errorf("rate_limits: no record for %s", p)
		}
	}
	if !providers["azure-openai"] && !providers["aws-bedrock"] {
		t.Error("rate_limits: neither azure-openai nor aws-bedrock")
	}
}

// TestIncludedFreeModelsAreCataloged checks that the free-tier catalog names models of the model catalog, so
// that pricing's free_tier flag (derived from it) points at real records.
func TestIncludedFreeModelsAreCataloged(t *testing.T) {
	have := catalogedModels(t)
	ft, _ := FreeTierRecords()
	for _, r := range ft {
		for _, m := range r.IncludedModels {
			if !have[r.ProviderId+"/"+m] {
				t.Errorf("free_tier %s includes %q, which is not in models.json", r.ProviderId, m)
			}
		}
	}
}

// dataDir is the upstream snapshots kept in the repository (the tests run in seeds/).
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "sources", "upstream"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func convert(t *testing.T, dir string) *catalogbuild.Result {
	t.Helper()
	known := map[string]bool{}
	names := catalogbuild.ProviderNames{}
	for _, p := range Providers().All() {
		known[p.ID] = true
		names[p.ID] = p.Name
	}
	ft, err := CatalogJSON(CatalogFreeTier)
	if err != nil {
		t.Fatal(err)
	}
	res, err := catalogbuild.Convert(catalogbuild.Input{DataDir: dir, KnownProviders: known, ProviderNames: names, FreeTierJSON: ft})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGeneratedCatalogsUpToDate re-runs the converter on sources/upstream and compares its output with the
// committed files: a difference means someone edited a generated file by hand, or changed the converter or the
// data without running `make catalogs`.
func TestGeneratedCatalogsUpToDate(t *testing.T) {
	dir := dataDir(t)
	res := convert(t, dir)
	for _, name := range catalogbuild.Files {
		want, err := CatalogJSON(strings.TrimSuffix(name, ".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.Files[name], want) {
			t.Errorf("seeds/catalogs/%s is not what the converter produces from %s: run `make catalogs`", name, dir)
		}
	}
	s := res.Stats
	if s.Pricing < 300 || len(s.PricingProviders) < 40 {
		t.Errorf("pricing: %d records over %d providers, expected at least 300 over 40", s.Pricing, len(s.PricingProviders))
	}
	if s.KnowledgeFromLLMStats > 0 {
		c, _ := LoadCatalog(CatalogModels)
		if !credits(c) {
			t.Error("models.json uses llm-stats knowledge cutoffs but does not credit llm-stats")
		}
	}
	if c, _ := LoadCatalog(CatalogBenchmarks); !credits(c) {
		t.Error("benchmarks.json does not credit llm-stats")
	}
}

func credits(c *Catalog) bool {
	for _, s := range c.Sources {
		if strings.Contains(s.URL, "JonathanChavezTamales/llm-leaderboard") && s.License != nil && *s.License == "CC-BY-4.0" {
			return true
		}
	}
	return false
}

// TestConverterDeterministic runs the conversion twice and expects identical bytes.
func TestConverterDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: converts the reference data twice")
	}
	dir := dataDir(t)
	a, b := convert(t, dir), convert(t, dir)
	for _, name := range catalogbuild.Files {
		if !bytes.Equal(a.Files[name], b.Files[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestParseCatalogRejects(t *testing.T) {
	for name, in := range map[string]string{
		"not json":         `{`,
		"bad as_of":        `{"as_of":"2026-7-1","sources":[{"name":"a","url":"https://a","license":null}],"records":[]}`,
		"no sources":       `{"as_of":"2026-07-01","sources":[],"records":[]}`,
		"no records":       `{"as_of":"2026-07-01","sources":[{"name":"a","url":"https://a","license":null}]}`,
		"unknown provider": `{"as_of":"2026-07-01","sources":[{"name":"a","url":"https://a","license":null}],"records":[{"provider_id":"nope"}]}`,
		"unknown field":    `{"as_of":"2026-07-01","sources":[{"name":"a","url":"https://a","license":null}],"records":[],"x":1}`,
		"unknown target":   `{"as_of":"2026-07-01","sources":[{"name":"a","url":"https://a","license":null}],"records":[{"from_provider":"openai","to_provider":"nope"}]}`,
	} {
		if _, err := ParseCatalog("test", []byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestRecordSchemasReject makes sure the schema check has teeth: broken records fail it.
func TestRecordSchemasReject(t *testing.T) {
	for schemaName, in := range map[string]string{
		"PricingRecord":    `{"provider_id":"openai","model":"m","task":"llm","pricing":{"input_per_1m_tokens":-1,"output_per_1m_tokens":null,"cached_input_per_1m_tokens":null,"per_image":null,"per_minute_audio":null,"per_1k_characters":null,"per_request":null},"free_tier":false}`,
		"ModelRecord":      `{"provider_id":"openai","model_id":"m","task":"llm","context_window":1,"max_output_tokens":1,"capabilities":{"vision":true,"function_calling":true,"json_mode":true},"knowledge_cutoff":"2024-01-01"}`,
		"RateLimitTier":    `{"provider_id":"openai","tier":"free","limits":{"requests_per_minute":1,"tokens_per_minute":1,"requests_per_day":1,"tokens_per_day":1,"concurrent_requests":1},"notes":null,"source_url":"https://x","extra":1}`,
		"BenchmarksRecord": `{"provider_id":"openai","model_id":"m","scores":{"mmlu":"high"}}`,
		"FreeTierRecord":   `{"provider_id":"openai"}`,
	} {
		if err := schema(t, schemaName).Validate(value(t, []byte(in))); err == nil {
			t.Errorf("%s accepts a broken record", schemaName)
		}
	}
}
