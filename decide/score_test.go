package decide

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// minGap is the least score gap the table test accepts between twins that differ in one figure: ten times the
// rounding of a score. Quality decides a pick, so price and latency only break near-ties, by small but never
// vanishing gaps.
const minGap = 0.1

// twinIndex holds two models alike in everything but what a case changes: "openai/a" and "anthropic/b".
func twinIndex(t *testing.T, priceA, priceB float64, bench ...seeds.BenchmarkRecord) *Index {
	t.Helper()
	caps := seeds.ModelCapabilities{FunctionCalling: capYes, JsonMode: capYes}
	ix, err := Build(seeds.Providers(), Catalogs{
		Pricing: []seeds.PricingRecord{
			{ProviderId: "openai", Model: "a", Task: "llm", Pricing: rates(f(priceA), f(4*priceA), nil)},
			{ProviderId: "anthropic", Model: "b", Task: "llm", Pricing: rates(f(priceB), f(4*priceB), nil)},
		},
		Models: []seeds.ModelRecord{
			{ProviderId: "openai", ModelId: "a", Task: "llm", ContextWindow: iptr(200000), Capabilities: caps},
			{ProviderId: "anthropic", ModelId: "b", Task: "llm", ContextWindow: iptr(200000), Capabilities: caps},
		},
		Benchmarks: bench,
		FreeTier:   []seeds.FreeTierRecord{{ProviderId: "openai", HasFreeTier: &yes}, {ProviderId: "anthropic", HasFreeTier: &yes}},
		Today:      "2026-11-28",
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func observed(status string, p50, p95, uptime float64) Live {
	return Live{Status: status, ResponseTimeMs: &p50, P50Ms: &p50, P95Ms: &p95, Uptime7d: &uptime}
}

// TestScoresDiscriminate: with everything else equal, a 2x price, a degraded status, a 3x latency, a lower
// uptime or weaker evidence moves a candidate below its twin in pick (every prefer), failover and recommend
// (where the decision weighs that figure), also where the old scales stopped at a cap (latency under 20 ms,
// prices under the cheap end, uptime under 90 %); the same inputs give the same scores (no random part).
func TestScoresDiscriminate(t *testing.T) {
	base := observed(StatusOperational, 100, 200, 99.9)
	ev := func(model string, score float64) seeds.BenchmarkRecord {
		return seeds.BenchmarkRecord{ProviderId: map[string]string{"a": "openai", "b": "anthropic"}[model], ModelId: model,
			Evidence: []api.BenchmarkEvidence{{Benchmark: "gpqa_diamond", Task: "llm", Score: score, Unit: "percent", Date: "2026-10-01", Source: "s"}}}
	}
	cases := []struct {
		name           string
		priceA, priceB float64
		liveA, liveB   Live
		bench          []seeds.BenchmarkRecord
		skip           string // the decision that does not weigh this figure
	}{
		{"2x price", 1, 2, base, base, nil, ""},
		{"degraded", 1, 1, base, observed(StatusDegraded, 100, 200, 99.9), nil, "recommend"}, // recommend takes operational providers only
		{"3x latency", 1, 1, base, observed(StatusOperational, 300, 600, 99.9), nil, ""},
		{"lower 7-day uptime (99.9 -> 97)", 1, 1, base, observed(StatusOperational, 100, 200, 97), nil, ""},
		{"weaker evidence", 1, 1, base, base, []seeds.BenchmarkRecord{ev("a", 80), ev("b", 70)}, ""},
		// At the old caps: everything was 1 (or 0) below 20 ms, at or below $0.05 and under 90 % uptime.
		{"cap: 5 ms vs 15 ms", 0.01, 0.01, observed(StatusOperational, 5, 5, 100), observed(StatusOperational, 15, 15, 100), nil, ""},
		{"cap: $0.01 vs $0.04", 0.01, 0.04, observed(StatusOperational, 5, 5, 100), observed(StatusOperational, 5, 5, 100), nil, ""},
		{"cap: 85 % vs 80 % uptime", 1, 1, observed(StatusOperational, 100, 200, 85), observed(StatusOperational, 100, 200, 80), nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ix := twinIndex(t, c.priceA, c.priceB, c.bench...)
			live := Statuses{"openai": c.liveA, "anthropic": c.liveB}
			for _, prefer := range []string{PreferQuality, PreferBalanced, PreferCost} {
				q := PickQuery{Task: "llm", Prefer: prefer, MinQuality: f(0)}
				if c.bench == nil {
					q.MinQuality = nil
					if prefer == PreferCost {
						continue // no quality known: nothing passes the floor
					}
				}
				best, rest, _, err := ix.Pick(q, live)
				if err != nil {
					t.Fatal(err)
				}
				if best.Provider != "openai" || len(rest) != 1 || best.Score-rest[0].Score < minGap {
					t.Errorf("pick %s: %s %.2f, then %s %.2f", prefer, best.Provider, best.Score, rest[0].Provider, rest[0].Score)
				}
				again, _, _, _ := ix.Pick(q, live)
				if again.Score != best.Score {
					t.Errorf("pick is not deterministic: %v then %v", best.Score, again.Score)
				}
			}
			chain, _, err := ix.Failover(FailoverQuery{Primary: "groq", Task: "llm", Limit: 10}, live)
			if err != nil {
				t.Fatal(err)
			}
			if len(chain) != 2 || chain[0].Provider != "openai" || chain[1].Provider != "anthropic" || chain[0].Score-chain[1].Score < minGap {
				t.Errorf("failover: %+v", chain)
			}
			if c.skip == "recommend" {
				return
			}
			recs, _, _ := ix.Recommend(RecommendQuery{Task: "llm", Limit: 10}, live)
			if len(recs) < 2 || recs[0].Provider != "openai" || recs[1].Provider != "anthropic" || recs[0].Score-recs[1].Score < minGap || recs[0].Score >= 100 {
				t.Errorf("recommend: %+v", recs)
			}
		})
	}
}

// TestUnknownRanksLastAndSaysSo: a provider without an observation ranks after every observed one, even a
// degraded one, and its reason says "status unknown"; with nothing observed at all the decisions still answer,
// with a note.
func TestUnknownRanksLastAndSaysSo(t *testing.T) {
	ix := twinIndex(t, 1, 0.5) // b is cheaper, yet unknown
	live := Statuses{"openai": observed(StatusDegraded, 3000, 6000, 90)}
	best, rest, note, err := ix.Pick(PickQuery{Task: "llm"}, live)
	if err != nil {
		t.Fatal(err)
	}
	if best.Provider != "openai" || rest[0].Provider != "anthropic" || !strings.HasPrefix(rest[0].Reason, "status unknown") || note != "" {
		t.Errorf("pick: %+v then %+v (note %q)", best, rest, note)
	}
	chain, _, _ := ix.Failover(FailoverQuery{Primary: "groq", Task: "llm", Limit: 10}, live)
	if chain[0].Provider != "openai" || !strings.HasPrefix(chain[1].Reason, "status unknown") {
		t.Errorf("failover: %+v", chain)
	}
	// Nothing observed: answers from catalog facts, with the note.
	if _, _, note, err := ix.Pick(PickQuery{Task: "llm"}, Statuses{}); err != nil || note != NothingObserved {
		t.Errorf("pick offline: %v, note %q", err, note)
	}
	res, note := ix.Cheapest(CheapestQuery{Task: "llm", Input: 1000, Output: 1000, Limit: 5}, Statuses{})
	if len(res) != 2 || res[0].Provider != "anthropic" || res[0].Status != StatusUnknown || note != NothingObserved {
		t.Errorf("cheapest offline: %+v, note %q", res, note)
	}
	recs, note, _ := ix.Recommend(RecommendQuery{Limit: 5}, Statuses{})
	if len(recs) == 0 || note != NothingObserved {
		t.Errorf("recommend offline: %d, note %q", len(recs), note)
	}
	// Some observed: cheapest keeps to operational providers, and an empty answer says why.
	res, note = ix.Cheapest(CheapestQuery{Task: "llm", Input: 1000, Output: 1000, Limit: 5}, live)
	if len(res) != 0 || !strings.Contains(note, "operational") {
		t.Errorf("cheapest with openai degraded: %+v, note %q", res, note)
	}
}

// TestUnitPricedTasks: image, speech, search and video are priced per unit, and cheapest prices units.
func TestUnitPricedTasks(t *testing.T) {
	ix, err := Build(seeds.Providers(), Catalogs{Pricing: []seeds.PricingRecord{
		{ProviderId: "openai", Model: "img", Task: "image", Pricing: seeds.PricingRates{PerImage: f(0.04)}},
		{ProviderId: "openai", Model: "img-tokens", Task: "image", Pricing: rates(f(5), f(40), nil)}, // no per-image price
		{ProviderId: "stability-ai", Model: "sd", Task: "image", Pricing: seeds.PricingRates{PerImage: f(0.035)}},
		{ProviderId: "openai", Model: "tts", Task: "speech", Pricing: seeds.PricingRates{Per1kCharacters: f(0.015)}},
		{ProviderId: "perplexity", Model: "search", Task: "search", Pricing: seeds.PricingRates{PerRequest: f(0.005)}},
		{ProviderId: "openai", Model: "sora", Task: "video", Pricing: seeds.PricingRates{PerSecondVideo: f(0.1)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	live := Statuses{"openai": observed(StatusOperational, 100, 100, 100), "stability-ai": observed(StatusOperational, 100, 100, 100),
		"perplexity": observed(StatusOperational, 100, 100, 100)}
	res, _ := ix.Cheapest(CheapestQuery{Task: "image", Units: 100, Limit: 5}, live)
	if len(res) != 2 || res[0].Model != "sd" || res[0].CostUSD != 3.5 || res[0].Unit != UnitImage || res[0].UnitPrice != 0.035 || res[1].CostUSD != 4 {
		t.Errorf("image = %+v", res)
	}
	for task, want := range map[string]Unit{"speech": UnitChars, "search": UnitRequest, "video": UnitVideoSec} {
		best, _, _, err := ix.Pick(PickQuery{Task: task}, live)
		if err != nil || best.Unit != want || best.UnitPrice == nil {
			t.Errorf("pick %s = %+v, %v", task, best, err)
		}
	}
	// task-cost: one task is one unit for a model priced per unit; a provider's token-priced image model
	// (10,000 in × $5 + 2,000 out × $40 per 1M = $0.13) loses to its per-image one ($0.04).
	tc, err := ix.TaskCosts(TaskCostQuery{TaskType: "image", Input: 10000, Output: 2000, Limit: 5})
	if err != nil || len(tc) != 2 || tc[0].Provider != "stability-ai" || tc[0].CostUSD != 0.035 || tc[1].Model != "img" || tc[1].CostUSD != 0.04 ||
		tc[1].InputPer1M != nil || tc[1].Unit != UnitImage {
		t.Errorf("task-cost image = %+v, %v", tc, err)
	}
	if tc, _ = ix.TaskCosts(TaskCostQuery{TaskType: "search", Limit: 5}); len(tc) != 1 || tc[0].CostUSD != 0.005 || tc[0].Unit != UnitRequest {
		t.Errorf("task-cost search = %+v", tc)
	}
	// budget reads in the task's unit.
	if _, _, _, err := ix.Pick(PickQuery{Task: "image", Budget: f(0.01)}, live); err == nil || !strings.Contains(err.Error(), "at most $0.01/image") {
		t.Errorf("image budget: %v", err)
	}
}
