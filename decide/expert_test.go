package decide

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// The expectations an expert would have of the decisions on the real catalogs, written from the providers'
// lineups of November 2026 with every provider up. They need the quality evidence and lineup tiers of the
// benchmark catalog: on catalogs without them, the cases that rank by quality fail (see the report of the
// branch that added this file).

const expertDay = "2026-11-28"

// claudeClouds are the providers that run Claude on their own infrastructure besides Anthropic.
var claudeClouds = []string{"aws-bedrock", "google-vertex-ai", "azure-openai", "databricks"}

func expertIndex(t *testing.T) (*Index, Statuses) {
	t.Helper()
	ix, err := LoadAt(expertDay)
	if err != nil {
		t.Fatal(err)
	}
	live := Statuses{}
	for _, p := range ix.reg.All() {
		live[p.ID] = observed(StatusOperational, 150, 300, 99.9)
	}
	return ix, live
}

func modelOf(ix *Index, provider, id string) *Model {
	for _, m := range ix.byProvider[provider] {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func TestExpertPicks(t *testing.T) {
	ix, live := expertIndex(t)
	// These cases rank by the quality evidence and lineup tiers of the benchmark catalog; a catalog that holds
	// none at all (before the quality data lands) cannot meet them, and says nothing about the rules.
	if len(ix.quality.tiers) == 0 && !slices.ContainsFunc(slices.Collect(maps.Values(ix.quality.results)), func(rs []result) bool {
		return slices.ContainsFunc(rs, func(r result) bool { return !r.legacy })
	}) {
		t.Skip("the benchmark catalog holds no dated evidence and no lineup tier yet")
	}
	for _, c := range []struct {
		name string
		q    PickQuery
		// flagship: the pick is its provider's flagship, or its lineup places it above the provider's
		// best-evidenced model (the lineup rule, docs/decisions.md "Quality"). Without it (budget cases): any
		// model inside the budget, on this generation's evidence or a current lineup tier (issue 35's done
		// condition: "a current-generation model inside it"), not a 2024 or 2025 model.
		flagship bool
	}{
		{"code: a flagship coding model", PickQuery{Task: "code"}, true},
		{"agent: a flagship model", PickQuery{Task: "agent"}, true},
		{"llm: a flagship model", PickQuery{Task: "llm"}, true},
		{"llm under $0.2: a current small model", PickQuery{Task: "llm", Budget: f(0.2)}, false},
		{"code under $0.2: a current small model", PickQuery{Task: "code", Budget: f(0.2)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			best, rest, _, err := ix.Pick(c.q, live)
			if err != nil {
				t.Fatal(err)
			}
			m := modelOf(ix, best.Provider, best.Model)
			placed := strings.Contains(best.Reason, " lineup places it above ")
			if c.flagship && (m == nil || (m.Tier != "flagship" && !placed)) {
				t.Errorf("pick %s/%s (tier %q), want a flagship or a model its lineup places above the best-evidenced one; reason %q",
					best.Provider, best.Model, tierOf(m), best.Reason)
			}
			if c.q.Budget != nil && (best.UnitPrice == nil || *best.UnitPrice > *c.q.Budget) {
				t.Errorf("pick %s/%s at %v, outside the budget %v", best.Provider, best.Model, best.UnitPrice, *c.q.Budget)
			}
			for _, old := range []string{", 2024-", ", 2025-", ", undated"} {
				if strings.Contains(best.Reason, old) {
					t.Errorf("pick %s/%s stands on evidence of a past generation (%q): %q", best.Provider, best.Model, old, best.Reason)
				}
			}
			// The evidence behind it is of this generation (2026), or the provider's current lineup.
			if best.Quality == nil || !(strings.Contains(best.Reason, ", 2026-") || strings.Contains(best.Reason, " tier, no benchmark result")) {
				t.Errorf("pick %s/%s stands on no current evidence: %q", best.Provider, best.Model, best.Reason)
			}
			if best.Model == "amazon.nova-lite-v1:0" {
				t.Errorf("the 2024 budget model is the default pick")
			}
			for _, e := range rest {
				if e.Score == best.Score && e.Quality != nil && best.Quality != nil && *e.Quality != *best.Quality {
					t.Errorf("different quality, same score: %+v and %+v", best, e)
				}
			}
		})
	}
}

func tierOf(m *Model) string {
	if m == nil {
		return "not indexed"
	}
	return m.Tier
}

func TestExpertFailover(t *testing.T) {
	ix, live := expertIndex(t)
	chain, _, err := ix.Failover(FailoverQuery{Primary: "anthropic", Task: "llm", Limit: 10}, live)
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) == 0 || !slices.Contains([]string{"aws-bedrock", "google-vertex-ai"}, chain[0].Provider) || ModelFamily(chain[0].Model) != "claude" {
		t.Fatalf("failover for Anthropic: first %v, want Claude on Bedrock or Vertex AI", chainOf(chain))
	}
	ref, _, _, _ := ix.FailoverReference(FailoverQuery{Primary: "anthropic", Task: "llm"})
	if ref == nil || canonicalModel(chain[0].Model) != ref.Canon {
		t.Errorf("first backup %s is not the primary's model %v", chain[0].Model, ref)
	}
	// Claude on Foundry may run on Anthropic's infrastructure (Microsoft's Foundry data-privacy page for Claude):
	// it says so and comes after Bedrock and Vertex AI, before any other family.
	for i, e := range chain {
		if e.Provider != "azure-openai" || ModelFamily(e.Model) != "claude" {
			continue
		}
		if !slices.Contains(e.Domain.Shares, ShareMayInfrastructure) {
			t.Errorf("Claude on Foundry does not say it may share Anthropic's infrastructure: %+v", e.Domain)
		}
		for _, before := range chain[:i] {
			if ModelFamily(before.Model) != "claude" {
				t.Errorf("Claude on Foundry after another family: %v", chainOf(chain))
			}
		}
		for _, after := range chain[i+1:] {
			if after.Provider == "aws-bedrock" || after.Provider == "google-vertex-ai" {
				t.Errorf("Claude on Foundry before Bedrock or Vertex AI: %v", chainOf(chain))
			}
		}
	}
	for _, e := range chain {
		if e.Model == "" || e.UnitPrice == nil {
			t.Errorf("entry names no priced model: %+v", e)
		}
		if aggregators[e.Provider] && slices.Contains(e.Domain.Shares, ShareInfrastructure) && e.Provider == chain[0].Provider {
			t.Errorf("an aggregator routing to Anthropic leads: %v", chainOf(chain))
		}
	}

	// Claude's clouds in outage: a comparable model of another family leads.
	out := Statuses{}
	for id, l := range live {
		out[id] = l
	}
	for _, p := range claudeClouds {
		out[p] = down()
	}
	chain, _, _ = ix.Failover(FailoverQuery{Primary: "anthropic", Task: "llm", Limit: 10}, out)
	if len(chain) == 0 || ModelFamily(chain[0].Model) == "claude" || slices.Contains(chain[0].Domain.Shares, ShareInfrastructure) {
		t.Fatalf("with Claude's clouds down: %v", chainOf(chain))
	}
	if ref != nil && ref.Quality["llm"].Known && (chain[0].Quality == nil || *chain[0].Quality < 0.8*ref.Quality["llm"].Value*100) {
		t.Errorf("%s/%s (quality %v) is no comparable model to %s (%.1f)", chain[0].Provider, chain[0].Model, chain[0].Quality, ref.ID, ref.Quality["llm"].Value*100)
	}

	// OpenAI failing: GPT on Azure OpenAI (or Bedrock) first.
	chain, _, _ = ix.Failover(FailoverQuery{Primary: "openai", Task: "llm", Limit: 10}, live)
	if len(chain) == 0 || !slices.Contains([]string{"azure-openai", "aws-bedrock", "databricks"}, chain[0].Provider) || ModelFamily(chain[0].Model) != "gpt" {
		t.Errorf("failover for OpenAI: %v", chainOf(chain))
	}
	// A caller on gpt-5, which OpenAI shuts down on 2026-12-11: the note names the day and gpt-6.1-sol.
	chain, note, _ := ix.Failover(FailoverQuery{Primary: "openai", Model: "gpt-5", Limit: 10}, live)
	if note != "gpt-5 at openai shuts down on 2026-12-11; its provider names gpt-6.1-sol as the replacement." {
		t.Errorf("note for gpt-5: %q", note)
	}
	for _, e := range chain {
		if day, _, ok := ix.Retirement(e.Provider, e.Model); ok && day <= "2026-12-28" {
			t.Errorf("a backup shutting down within 30 days: %s/%s on %s", e.Provider, e.Model, day)
		}
	}
	// The model withdrawn everywhere: another family first.
	chain, _, _ = ix.Failover(FailoverQuery{Primary: "anthropic", Task: "llm", Scope: ScopeModel, Limit: 10}, live)
	if len(chain) == 0 || ModelFamily(chain[0].Model) == "claude" {
		t.Errorf("scope=model for Anthropic: %v", chainOf(chain))
	}
}

// TestExpertRankingsDiscriminate: on the real catalogs with every provider up, no two recommended providers
// with different figures share a score, and none sits at 100.
func TestExpertRankingsDiscriminate(t *testing.T) {
	ix, live := expertIndex(t)
	for _, task := range []string{"llm", "code", "agent", ""} {
		recs, _, err := ix.Recommend(RecommendQuery{Task: task, Limit: 10}, live)
		if err != nil {
			t.Fatal(err)
		}
		// The figures a recommendation weighs besides the equal live ones: free tier, cheapest price, best quality.
		type inputs struct {
			free           bool
			price, quality float64
		}
		of := func(p string) inputs {
			o := ix.offers[p][task]
			return inputs{ix.freeTier[p], o.price, o.bestQuality.Value}
		}
		seen := map[float64]string{}
		for _, r := range recs {
			if r.Score >= 100 {
				t.Errorf("recommend %q: %s at %v", task, r.Provider, r.Score)
			}
			if other, dup := seen[r.Score]; dup && of(other) != of(r.Provider) {
				t.Errorf("recommend %q: %s %+v and %s %+v tie at %v", task, other, of(other), r.Provider, of(r.Provider), r.Score)
			}
			seen[r.Score] = r.Provider
		}
	}
}
