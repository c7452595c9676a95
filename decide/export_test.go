package decide

import (
	"slices"
	"testing"

	"github.com/switchboard/switchboard/seeds"
)

// TestProviderModels: the provider's priced models of the task in pick's order (quality first: gpt-big's 49 before
// gpt-mini's 41.8), embeddings and unpriced models left out, max cost applied.
func TestProviderModels(t *testing.T) {
	ix := testIndex(t)
	live := Statuses{"openai": op(100)}
	if got := ix.ProviderModels("openai", "llm", nil); !slices.Equal(got, []string{"gpt-big", "gpt-mini"}) {
		t.Errorf("openai llm = %v", got)
	}
	// The order is the one GET /pick ranks them in on that provider.
	best, rest, _, err := ix.Pick(PickQuery{Task: "llm", Avoid: []string{"anthropic", "groq", "mistral", "cohere", "deepseek"}}, live)
	if err != nil || best.Model != "gpt-big" || len(rest) != 1 || rest[0].Model != "gpt-mini" {
		t.Errorf("pick = %+v %+v %v", best, rest, err)
	}
	if got := ix.ProviderModels("openai", "llm", f(1)); !slices.Equal(got, []string{"gpt-mini"}) {
		t.Errorf("openai llm at most $1 = %v", got)
	}
	if got := ix.ProviderModels("openai", "embedding", nil); !slices.Equal(got, []string{"embed-small"}) {
		t.Errorf("openai embedding = %v", got)
	}
	if got := ix.ProviderModels("cohere", "llm", nil); len(got) != 0 {
		t.Errorf("cohere (unpriced) = %v", got)
	}
}

// TestProviderModelsGenerallyAvailableFirst: a preview model comes after every generally available one, even when
// it would score higher.
func TestProviderModelsGenerallyAvailableFirst(t *testing.T) {
	ix, err := Build(seeds.Providers(), Catalogs{
		Pricing: []seeds.PricingRecord{
			{ProviderId: "openai", Model: "ga-small", Task: "llm", Pricing: rates(f(1), f(2), nil)},
			{ProviderId: "openai", Model: "preview-big", Task: "llm", Pricing: rates(f(0.1), f(0.2), nil)},
		},
		Stages: map[string]string{"openai/ga-small": "ga", "openai/preview-big": "preview"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.ProviderModels("openai", "llm", nil); !slices.Equal(got, []string{"ga-small", "preview-big"}) {
		t.Errorf("models = %v", got)
	}
}

// TestFailoverRanking: the primary first with all its models and no score, then GET /failover's chain with its
// scores, each provider's models bounded by max cost.
func TestFailoverRanking(t *testing.T) {
	ix := testIndex(t)
	live := Statuses{"anthropic": op(100), "groq": deg(100), "mistral": op(2000), "deepseek": down(), "openai": op(50)}
	q := FailoverQuery{Primary: "openai", Limit: 10, MaxCost: f(0.2)}
	chain, note, err := ix.Failover(q, live)
	if err != nil {
		t.Fatal(err)
	}
	ranking, note2, err := ix.FailoverRanking(q, live)
	if err != nil || note2 != note {
		t.Fatal(err, note2)
	}
	if len(ranking) != len(chain)+1 || ranking[0].Provider != "openai" || ranking[0].Score != nil ||
		!slices.Equal(ranking[0].Models, []string{"gpt-big", "gpt-mini"}) {
		t.Fatalf("ranking = %+v", ranking)
	}
	for i, e := range chain {
		r := ranking[i+1]
		if r.Provider != e.Provider || r.Score == nil || *r.Score != e.Score || r.Models[0] != e.Model {
			t.Errorf("entry %d = %+v, chain %+v", i+1, r, e)
		}
		if r.Provider == "mistral" && !slices.Equal(r.Models, []string{"mistral-small"}) {
			t.Errorf("mistral models %v", r.Models)
		}
	}
	if _, _, err := ix.FailoverRanking(FailoverQuery{Primary: "nope", Limit: 5}, live); err == nil {
		t.Error("unknown primary: no error")
	}
}
