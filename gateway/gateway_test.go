package gateway

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// testNames is a small table in the shape of names.json.
var testNames = &Names{
	LiteLLM: map[string]map[string]string{
		"openai":       {"gpt-4o-mini": "openai/gpt-4o-mini", "gpt-4o": "openai/gpt-4o"},
		"anthropic":    {"claude-sonnet-4-5": "anthropic/claude-sonnet-4-5"},
		"groq":         {"llama-3.1-8b-instant": "groq/llama-3.1-8b-instant"},
		"azure-openai": {"gpt-4o": "azure/gpt-4o"},
	},
	OpenRouter: map[string]string{
		"openai/gpt-4o-mini":          "",
		"openai/gpt-oss-120b":         "",
		"anthropic/claude-sonnet-4.5": "anthropic/claude-sonnet-4-5",
		"anthropic/claude-opus-4.7":   "anthropic/claude-opus-4-7",
		"anthropic/claude-opus-4.7-x": "anthropic/claude-opus-4-7",
	},
}

func score(v float64) *float64 { return &v }

func TestOpenRouterSlug(t *testing.T) {
	for _, c := range []struct{ model, slug, why string }{
		{"openai/gpt-oss-120b", "openai/gpt-oss-120b", ""},       // the slug itself
		{"gpt-oss-120b", "openai/gpt-oss-120b", ""},              // the slug's last part
		{"gpt-4o-mini", "openai/gpt-4o-mini", ""},                // idem
		{"claude-sonnet-4-5", "anthropic/claude-sonnet-4.5", ""}, // models.dev's base_model
		{"claude-opus-4-7", "", "several OpenRouter models match"},
		{"llama-3.1-8b-instant", "", "no OpenRouter model slug is known"},
	} {
		slug, why, ok := testNames.OpenRouterSlug(c.model)
		if slug != c.slug || ok != (c.slug != "") || !strings.Contains(why, c.why) {
			t.Errorf("OpenRouterSlug(%s) = %q %q %v, want %q %q", c.model, slug, why, ok, c.slug, c.why)
		}
	}
}

// ranking: primary openai (its best model unknown to LiteLLM, the second known), then anthropic, azure (named by
// deployment), groq, and mistral with no model at all.
var ranking = []Candidate{
	{Provider: "openai", Models: []string{"gpt-5-unlisted", "gpt-4o-mini", "gpt-4o"}},
	{Provider: "anthropic", Models: []string{"claude-sonnet-4-5"}, Score: score(90)},
	{Provider: "azure-openai", Models: []string{"gpt-4o"}, Score: score(80)},
	{Provider: "groq", Models: []string{"llama-3.1-8b-instant"}, Score: score(70)},
	{Provider: "mistral", Score: score(60)},
}

func reasons(sk []Skip) map[string]string {
	m := map[string]string{}
	for _, s := range sk {
		m[s.Provider] = s.Reason
	}
	return m
}

func gatewayModels(ts []Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.GatewayModel
	}
	return out
}

func TestBuildLiteLLM(t *testing.T) {
	ex, err := testNames.Build(LiteLLM, "llm", ranking)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "groq/llama-3.1-8b-instant"}
	if got := gatewayModels(ex.Targets); !slices.Equal(got, want) {
		t.Fatalf("targets %v, want %v", got, want)
	}
	if ex.Targets[0].Model != "gpt-4o-mini" || ex.Targets[0].Score != nil || *ex.Targets[1].Score != 90 {
		t.Errorf("targets %+v", ex.Targets)
	}
	r := reasons(ex.Skipped)
	if len(r) != 2 || !strings.Contains(r["azure-openai"], "deployment name") || !strings.Contains(r["mistral"], "no priced llm model") {
		t.Errorf("skipped %v", ex.Skipped)
	}
	b, _ := json.Marshal(ex.Config)
	const wantJSON = `{"model_list":[` +
		`{"model_name":"openai/gpt-4o-mini","litellm_params":{"model":"openai/gpt-4o-mini"}},` +
		`{"model_name":"anthropic/claude-sonnet-4-5","litellm_params":{"model":"anthropic/claude-sonnet-4-5"}},` +
		`{"model_name":"groq/llama-3.1-8b-instant","litellm_params":{"model":"groq/llama-3.1-8b-instant"}}],` +
		`"router_settings":{"fallbacks":[{"openai/gpt-4o-mini":["anthropic/claude-sonnet-4-5","groq/llama-3.1-8b-instant"]}]}}`
	if string(b) != wantJSON {
		t.Errorf("config\n%s\nwant\n%s", b, wantJSON)
	}
	if !strings.Contains(ex.Note, LiteLLMDoc) {
		t.Errorf("note %q", ex.Note)
	}
}

func TestBuildLiteLLMUnknownModels(t *testing.T) {
	ex, err := testNames.Build(LiteLLM, "code", []Candidate{
		{Provider: "openai", Models: []string{"a", "b"}},
		{Provider: "anthropic", Models: []string{"c"}, Score: score(1)},
		{Provider: "cerebras", Models: []string{"d"}, Score: score(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := reasons(ex.Skipped)
	if len(ex.Targets) != 0 || !strings.Contains(r["openai"], "none of the 2 candidate code models of openai") ||
		r["anthropic"] != "LiteLLM's model map does not list anthropic/c" || !strings.Contains(r["cerebras"], "lists no model of cerebras") {
		t.Errorf("targets %v, skipped %v", ex.Targets, ex.Skipped)
	}
	// Nothing to route to is still a well-formed config.
	b, _ := json.Marshal(ex.Config)
	if string(b) != `{"model_list":[],"router_settings":{"fallbacks":[]}}` {
		t.Errorf("config %s", b)
	}
}

func TestBuildPortkey(t *testing.T) {
	ex, err := testNames.Build(Portkey, "llm", append(slices.Clone(ranking),
		Candidate{Provider: "aws-bedrock", Models: []string{"amazon.nova-lite-v1:0"}, Score: score(50)},
		Candidate{Provider: "google-vertex-ai", Models: []string{"gemini-2.5-pro"}, Score: score(40)},
		Candidate{Provider: "tavily", Models: []string{"search"}, Score: score(30)}))
	if err != nil {
		t.Fatal(err)
	}
	// Portkey takes the provider's own model ID: the primary's best model is the target.
	want := []string{"gpt-5-unlisted", "claude-sonnet-4-5", "llama-3.1-8b-instant", "amazon.nova-lite-v1:0", "gemini-2.5-pro"}
	if got := gatewayModels(ex.Targets); !slices.Equal(got, want) {
		t.Fatalf("targets %v, want %v", got, want)
	}
	r := reasons(ex.Skipped)
	if len(r) != 3 || r["azure-openai"] == "" || r["mistral"] == "" || r["tavily"] != "Portkey has no provider for tavily" {
		t.Errorf("skipped %v", ex.Skipped)
	}
	c := ex.Config.(PortkeyConfig)
	if c.Strategy.Mode != "fallback" || len(c.Targets) != 5 {
		t.Fatalf("config %+v", c)
	}
	first, bedrock, vertex := c.Targets[0], c.Targets[3], c.Targets[4]
	if first.Provider != "openai" || first.APIKey != "<openai API key>" || first.OverrideParams.Model != "gpt-5-unlisted" {
		t.Errorf("first target %+v", first)
	}
	if bedrock.Provider != "bedrock" || bedrock.APIKey != "" || bedrock.AWSAccessKeyID == "" || bedrock.AWSSecretAccessKey == "" || bedrock.AWSRegion == "" {
		t.Errorf("bedrock target %+v", bedrock)
	}
	if vertex.Provider != "vertex-ai" || vertex.VertexProjectID == "" || vertex.VertexRegion == "" || vertex.APIKey == "" {
		t.Errorf("vertex target %+v", vertex)
	}
}

func TestBuildOpenRouter(t *testing.T) {
	ex, err := testNames.Build(OpenRouter, "llm", []Candidate{
		{Provider: "openai", Models: []string{"gpt-5-unlisted", "gpt-4o-mini"}},
		{Provider: "cerebras", Models: []string{"gpt-oss-120b"}, Score: score(95)},
		{Provider: "groq", Models: []string{"openai/gpt-oss-120b"}, Score: score(94)}, // the same OpenRouter model
		{Provider: "tavily", Models: []string{"search"}, Score: score(93)},
		{Provider: "anthropic", Models: []string{"claude-sonnet-4-5"}, Score: score(92)},
		{Provider: "openrouter", Models: []string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4.5"}, Score: score(91)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"openai/gpt-4o-mini", "openai/gpt-oss-120b", "anthropic/claude-sonnet-4.5"}
	if got := gatewayModels(ex.Targets); !slices.Equal(got, want) {
		t.Fatalf("targets %v, want %v", got, want)
	}
	r := reasons(ex.Skipped)
	if r["groq"] != "its model openai/gpt-oss-120b is cerebras's target already" || r["tavily"] != "OpenRouter does not route to tavily" ||
		r["openrouter"] != "OpenRouter tries at most 3 models" {
		t.Errorf("skipped %v", ex.Skipped)
	}
	c := ex.Config.(OpenRouterRequest)
	if !slices.Equal(c.Models, want) || c.Provider == nil || !slices.Equal(c.Provider.Order, []string{"OpenAI", "Cerebras", "Anthropic"}) || !c.Provider.AllowFallbacks {
		t.Errorf("config %+v %+v", c, c.Provider)
	}
}

func TestBuildUnknownFormat(t *testing.T) {
	if _, err := testNames.Build("kong", "llm", ranking); err == nil {
		t.Error("kong: no error")
	}
}

// TestEmbeddedNames: the generated table loads and holds what the catalogs' providers need.
func TestEmbeddedNames(t *testing.T) {
	n, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ provider, model, name string }{
		{"openai", "gpt-4o-mini", "openai/gpt-4o-mini"},
		{"google-gemini", "gemini-2.5-flash", "gemini/gemini-2.5-flash"},
		{"anthropic", "claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"},
	} {
		if got := n.LiteLLM[c.provider][c.model]; got != c.name {
			t.Errorf("LiteLLM name of %s/%s = %q, want %q", c.provider, c.model, got, c.name)
		}
	}
	if slug, _, ok := n.OpenRouterSlug("claude-sonnet-4-5"); !ok || slug != "anthropic/claude-sonnet-4.5" {
		t.Errorf("OpenRouter slug of claude-sonnet-4-5 = %q", slug)
	}
	if len(n.OpenRouter) < 100 {
		t.Errorf("%d OpenRouter slugs", len(n.OpenRouter))
	}
}
