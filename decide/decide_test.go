package decide

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/seeds"
)

var yes = true

// capYes is a capability the test's catalogs state.
var capYes = &yes

func f(v float64) *float64 { return &v }
func i64(v int64) *int64   { return &v }
func iptr(v int) *int      { return &v }

func rates(in, out, cached *float64) seeds.PricingRates {
	return seeds.PricingRates{InputPer1mTokens: in, OutputPer1mTokens: out, CachedInputPer1mTokens: cached}
}

// testIndex is a small catalog over real provider IDs, so tests control every figure.
func testIndex(t testing.TB) *Index {
	t.Helper()
	ix, err := Build(seeds.Providers(), Catalogs{
		Pricing: []seeds.PricingRecord{
			{ProviderId: "openai", Model: "gpt-mini", Task: "llm", Pricing: rates(f(0.15), f(0.6), f(0.075))},
			{ProviderId: "openai", Model: "gpt-big", Task: "llm", Pricing: rates(f(3), f(15), f(0.3))},
			{ProviderId: "openai", Model: "embed-small", Task: "embedding", Pricing: rates(f(0.02), nil, nil)},
			{ProviderId: "anthropic", Model: "claude-fast", Task: "llm", Pricing: rates(f(0.1), f(0.5), nil)},
			{ProviderId: "groq", Model: "llama-cheap", Task: "llm", Pricing: rates(f(0.05), f(0.08), nil), FreeTier: true},
			{ProviderId: "mistral", Model: "mistral-small", Task: "llm", Pricing: rates(f(0.2), f(0.6), nil), FreeTier: true},
			{ProviderId: "mistral", Model: "mistral-embed", Task: "embedding", Pricing: rates(f(0.1), nil, nil)},
			{ProviderId: "cohere", Model: "command-unpriced", Task: "llm", Pricing: rates(nil, nil, nil)},
			{ProviderId: "deepseek", Model: "deepseek-chat", Task: "llm", Pricing: rates(f(0.27), f(1.1), nil)},
		},
		Models: []seeds.ModelRecord{
			{ProviderId: "openai", ModelId: "gpt-mini", Task: "llm", ContextWindow: iptr(128000), Capabilities: seeds.ModelCapabilities{Vision: capYes, FunctionCalling: capYes, JsonMode: capYes}},
			{ProviderId: "openai", ModelId: "gpt-big", Task: "llm", ContextWindow: iptr(1000000), Capabilities: seeds.ModelCapabilities{Vision: capYes, FunctionCalling: capYes, JsonMode: capYes}},
			{ProviderId: "anthropic", ModelId: "claude-fast", Task: "llm", ContextWindow: iptr(200000), Capabilities: seeds.ModelCapabilities{FunctionCalling: capYes}},
			{ProviderId: "groq", ModelId: "llama-cheap", Task: "llm", ContextWindow: iptr(8192)},
			{ProviderId: "mistral", ModelId: "mistral-small", Task: "llm", ContextWindow: iptr(32000), Capabilities: seeds.ModelCapabilities{FunctionCalling: capYes, JsonMode: capYes}},
			{ProviderId: "cohere", ModelId: "command-unpriced", Task: "llm", ContextWindow: iptr(4000000)},
		},
		Benchmarks: []seeds.BenchmarkRecord{
			{ProviderId: "openai", ModelId: "gpt-big", Scores: map[string]float64{"mmlu": 88, "gpqa": 50}},
			{ProviderId: "openai", ModelId: "gpt-mini", Scores: map[string]float64{"mmlu": 82}},
			{ProviderId: "groq", ModelId: "llama-cheap", Scores: map[string]float64{"mmlu": 70}},
		},
		RateLimits: []seeds.RateLimitRecord{
			{ProviderId: "groq", Tier: "free", Limits: seeds.RateLimitValues{RequestsPerMinute: iptr(30), TokensPerMinute: iptr(12000), RequestsPerDay: iptr(1000)}},
			{ProviderId: "anthropic", Tier: "tier1", Limits: seeds.RateLimitValues{RequestsPerMinute: iptr(50), TokensPerMinute: iptr(30000)}},
			{ProviderId: "anthropic", Tier: "tier2", Limits: seeds.RateLimitValues{RequestsPerMinute: iptr(1000), TokensPerMinute: iptr(450000)}},
			{ProviderId: "cerebras", Tier: "free", Limits: seeds.RateLimitValues{RequestsPerMinute: iptr(30), TokensPerMinute: iptr(60000)}},
			{ProviderId: "perplexity", Tier: "tier1", Limits: seeds.RateLimitValues{RequestsPerMinute: iptr(150)}},
			{ProviderId: "openai", Tier: "free", Limits: seeds.RateLimitValues{}},
		},
		FreeTier: []seeds.FreeTierRecord{{ProviderId: "groq", HasFreeTier: &yes}, {ProviderId: "mistral", HasFreeTier: &yes}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func op(ms float64) Live  { return Live{Status: StatusOperational, ResponseTimeMs: &ms} }
func deg(ms float64) Live { return Live{Status: StatusDegraded, ResponseTimeMs: &ms} }
func down() Live          { return Live{Status: StatusOutage} }

// allUp: every priced provider operational at 300 ms.
func allUp() Statuses {
	return Statuses{"openai": op(300), "anthropic": op(300), "groq": op(300), "mistral": op(300), "cohere": op(300), "deepseek": op(300)}
}

func with(s Statuses, id string, l Live) Statuses {
	out := Statuses{}
	for k, v := range s {
		out[k] = v
	}
	out[id] = l
	return out
}

func TestPickScoreFormula(t *testing.T) {
	ix := testIndex(t)
	// openai gpt-mini, operational at 300 ms, uptime unknown, prefer=quality: 70 + quality 22 × 0.3316 (MMLU 82
	// is the middle of 70, 82, 88: 82/88 of the best and percentile 0.5 weighted 2/9 for a field of three,
	// (0.9318 + 0.2222 × 0.5) / 1.2222 = 0.8533, × 0.7^2 for an undated score = 0.4181; a field of three counts
	// half (fieldShare 2/4), so the legacy weight 0.5 counts 0.25 and the 0.25 short of a full weight is the
	// neutral 0.5 aged alike: (0.25 × 0.4181 + 0.25 × 0.5 × 0.49) / 0.5 = 0.3316; 7.2943; it was 0.4181 before
	// thin fields counted less, issue 35) + price 3 / (1 + log10(1 + 0.2625/0.05)) (blend (3×0.15 + 0.6)/4 =
	// 0.2625; 1.6705) + latency 2 / (1 + ln(1 + 300/20)) (0.5301) + context 0.5 × 128k/328k (0.1951) + 3 × 0.5/3
	// = 80.1900 -> 80.19.
	best, _, _, err := ix.Pick(PickQuery{Task: "llm", Needs: []string{"vision"}, Budget: f(1)}, allUp())
	if err != nil {
		t.Fatal(err)
	}
	if best.Provider != "openai" || best.Model != "gpt-mini" || best.Score != 80.19 || best.Quality == nil || *best.Quality != 33.16 {
		t.Fatalf("best = %+v", best)
	}
	want := "operational, 300 ms, 7-day uptime unknown, quality 33.16 (MMLU 82, undated), $0.15/1M input, 128k context, has vision, function calling, json mode"
	if best.Reason != want {
		t.Errorf("reason = %q, want %q", best.Reason, want)
	}
}

func TestPickRules(t *testing.T) {
	ix := testIndex(t)
	cases := []struct {
		name     string
		q        PickQuery
		live     Statuses
		want     string // provider/model of the pick
		notIn    string // provider that must not appear at all
		errParam string // when the field empties: the parameter the error names
	}{
		// Quality first: gpt-big (quality 36.75: MMLU 88 is the best of three, (0.25 × 0.49 + 0.25 × 0.245) / 0.5;
		// its GPQA 50 is alone on its benchmark and counts nothing) before gpt-mini (33.16) and llama-cheap
		// (28.19); unmeasured models last.
		{name: "best score wins", q: PickQuery{Task: "llm"}, live: allUp(), want: "openai/gpt-big"},
		{name: "outage drops out", q: PickQuery{Task: "llm"}, live: with(allUp(), "openai", down()), want: "groq/llama-cheap", notIn: "openai"},
		{name: "degraded ranks below operational", q: PickQuery{Task: "llm"}, live: with(allUp(), "openai", deg(300)), want: "groq/llama-cheap"},
		{name: "latency does not outweigh quality", q: PickQuery{Task: "llm"}, live: with(allUp(), "openai", op(3000)), want: "openai/gpt-big"},
		{name: "prefer cost: cheapest above the floor", q: PickQuery{Task: "llm", Prefer: PreferCost, MinQuality: f(30)}, live: allUp(), want: "openai/gpt-mini"},
		{name: "prefer cost: a lower floor", q: PickQuery{Task: "llm", Prefer: PreferCost, MinQuality: f(25)}, live: allUp(), want: "groq/llama-cheap"},
		// No fixture model reaches the default floor since thin fields count less (issue 35): the error names it.
		{name: "prefer cost: the default floor (45)", q: PickQuery{Task: "llm", Prefer: PreferCost}, live: allUp(), errParam: "min_quality"},
		{name: "prefer cost: a floor none reaches", q: PickQuery{Task: "llm", Prefer: PreferCost, MinQuality: f(60)}, live: allUp(), errParam: "min_quality"},
		// llama-cheap: quality 28.2 at $0.0575 blended, gpt-mini 33.2 at $0.2625: more quality per dollar.
		{name: "prefer balanced: quality per dollar", q: PickQuery{Task: "llm", Prefer: PreferBalanced}, live: allUp(), want: "groq/llama-cheap"},
		{name: "min_quality", q: PickQuery{Task: "llm", MinQuality: f(35)}, live: allUp(), want: "openai/gpt-big"},
		{name: "an unpriced operational model never beats a priced degraded one", q: PickQuery{Task: "llm", MinContext: i64(100000)},
			live: Statuses{"openai": deg(10), "anthropic": deg(10), "cohere": op(9000)}, want: "openai/gpt-big", notIn: "cohere"},
		{name: "avoid", q: PickQuery{Task: "llm", Avoid: []string{"openai", "groq"}}, live: allUp(), want: "anthropic/claude-fast", notIn: "openai"},
		{name: "agent needs function calling, JSON mode and 128k", q: PickQuery{Task: "agent"}, live: allUp(), want: "openai/gpt-big", notIn: "groq"},
		{name: "free_only", q: PickQuery{Task: "llm", FreeOnly: true, Avoid: []string{"groq"}}, live: allUp(), want: "mistral/mistral-small"},
		{name: "needs", q: PickQuery{Task: "llm", Needs: []string{"json_mode", "function_calling"}, Avoid: []string{"openai"}}, live: allUp(), want: "mistral/mistral-small"},
		{name: "min_context", q: PickQuery{Task: "llm", MinContext: i64(500000)}, live: allUp(), want: "openai/gpt-big", notIn: "groq"},
		{name: "budget excludes unknown prices", q: PickQuery{Task: "llm", MinContext: i64(2000000), Budget: f(100)}, live: allUp(), errParam: "budget"},
		{name: "an unknown price never qualifies", q: PickQuery{Task: "llm", MinContext: i64(2000000)}, live: allUp(), errParam: "price"},
		{name: "everything in outage", q: PickQuery{Task: "llm"}, live: Statuses{"openai": down(), "anthropic": down(), "groq": down(), "mistral": down(), "cohere": down(), "deepseek": down()}, errParam: "live status"},
		{name: "no model of the task", q: PickQuery{Task: "video"}, live: allUp(), errParam: "task"},
		{name: "min_context empties", q: PickQuery{Task: "llm", MinContext: i64(5000000), Budget: f(0.1)}, live: allUp(), errParam: "min_context"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			best, rest, _, err := ix.Pick(c.q, c.live)
			if c.errParam != "" {
				if !errs.IsNotFound(err) || !strings.Contains(err.Error(), "("+c.errParam+" left none)") {
					t.Fatalf("err = %v, want a 404 naming %s", err, c.errParam)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := best.Provider + "/" + best.Model; got != c.want {
				t.Errorf("pick = %s (%v), want %s", got, best.Score, c.want)
			}
			if len(rest) > 2 {
				t.Errorf("%d runners-up", len(rest))
			}
			prev, band := best.Score, map[string]int{StatusOperational: 3, StatusDegraded: 2, StatusUnknown: 1}
			prevBand := 3
			for _, e := range append([]PickEntry{best}, rest...) {
				if band[e.Status] > prevBand {
					t.Errorf("%s entry %s/%s ranks below a worse status", e.Status, e.Provider, e.Model)
				}
				prevBand = band[e.Status]
				if e.Provider == c.notIn {
					t.Errorf("%s appears: %+v", c.notIn, e)
				}
				if e.Score > prev {
					t.Errorf("not sorted: %v after %v", e.Score, prev)
				}
				prev = e.Score
			}
		})
	}
	// The message names every constraint applied, in order.
	_, _, _, err := ix.Pick(PickQuery{Task: "llm", MinContext: i64(2000000), Budget: f(0.1)}, allUp())
	want := "no llm model of a provider not in outage with context >= 2000000 at most $0.1/1M input (budget left none)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if _, _, _, err := ix.Pick(PickQuery{Task: "llm", Avoid: []string{"nope"}}, allUp()); !errs.IsNotFound(err) || !strings.Contains(err.Error(), "avoid") {
		t.Errorf("unknown avoid: %v", err)
	}
}

func TestFailoverRules(t *testing.T) {
	ix := testIndex(t)
	live := Statuses{"anthropic": op(100), "groq": deg(100), "mistral": op(2000), "deepseek": down(), "openai": op(50)}
	chain, _, err := ix.Failover(FailoverQuery{Primary: "openai", Task: "llm", Limit: 10}, live)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, e := range chain {
		pos[e.Provider] = i
		if i > 0 && (e.Score > chain[i-1].Score || (e.Score == chain[i-1].Score && e.Provider < chain[i-1].Provider)) {
			t.Errorf("not ordered at %d: %+v", i, e)
		}
	}
	if _, ok := pos["openai"]; ok {
		t.Error("the primary is in the chain")
	}
	if _, ok := pos["deepseek"]; ok {
		t.Error("a provider in outage is in the chain")
	}
	if pos["anthropic"] != 0 || pos["mistral"] > pos["groq"] {
		t.Errorf("order: %+v", chain)
	}
	// anthropic claude-fast: 70 + quality 0 (unknown) + latency 6 / (1 + ln(1 + 100/20)) (2.1492) + uptime 0 +
	// price 5 / (1 + log10(1 + 0.2/0.05)) (blend (3×0.1 + 0.5)/4 = 0.2; 2.9430) = 75.09.
	if chain[0].Score != 75.09 || chain[0].Model != "claude-fast" || *chain[0].InputPer1M != 0.1 ||
		chain[0].Reason != "operational, 100 ms, 7-day uptime unknown, claude-fast, a model of another family, of lower or unknown quality than gpt-big, quality unknown (no benchmark result or lineup tier), $0.1/1M input" {
		t.Errorf("first = %+v", chain[0])
	}
	// max_cost keeps providers whose cheapest matching model is within it; unknown prices drop out.
	chain, _, _ = ix.Failover(FailoverQuery{Primary: "openai", Task: "llm", Limit: 10, MaxCost: f(0.1)}, live)
	for _, e := range chain {
		if e.InputPer1M == nil || *e.InputPer1M > 0.1 {
			t.Errorf("over max_cost: %+v", e)
		}
	}
	if chain, _, _ = ix.Failover(FailoverQuery{Primary: "openai", Limit: 2}, live); len(chain) != 2 {
		t.Errorf("limit 2: %d entries", len(chain))
	}
	if _, _, err := ix.Failover(FailoverQuery{Primary: "nope", Limit: 5}, live); !errs.IsNotFound(err) {
		t.Errorf("unknown primary: %v", err)
	}
}

func TestRecommendRules(t *testing.T) {
	ix := testIndex(t)
	live := Statuses{"anthropic": op(300), "groq": op(300), "mistral": deg(100), "openai": down()}
	recs, _, err := ix.Recommend(RecommendQuery{Task: "llm", Limit: 20}, live)
	if err != nil {
		t.Fatal(err)
	}
	// groq: quality 30 × 0.2819 (llama-cheap, MMLU 70: 70/88 of the best, percentile 0 weighted 2/9, / 1.2222,
	// × 0.7^2 = 0.3188, in a field of three counting half: (0.25 × 0.3188 + 0.25 × 0.5 × 0.49) / 0.5; 8.4573) +
	// latency 25 / (1 + ln(16)) (6.6268) + 15 (free tier) + price 15 / (1 + log10(1 + 0.0575/0.05)) (11.2576) =
	// 41.34; anthropic: 6.6268 + 15 / (1 + log10(5)) (8.8289) = 15.46.
	if len(recs) != 2 || recs[0].Provider != "groq" || recs[0].Score != 41.34 || recs[1].Provider != "anthropic" || recs[1].Score != 15.46 {
		t.Fatalf("recs = %+v", recs)
	}
	if recs, _, _ = ix.Recommend(RecommendQuery{Limit: 20, FreeOnly: true}, live); len(recs) != 1 || recs[0].Provider != "groq" {
		t.Errorf("free_only = %+v", recs)
	}
	if recs, _, _ = ix.Recommend(RecommendQuery{Limit: 20, Avoid: []string{"groq"}}, live); len(recs) != 1 || recs[0].Provider != "anthropic" {
		t.Errorf("avoid = %+v", recs)
	}
}

func TestCheapestRules(t *testing.T) {
	ix := testIndex(t)
	live := with(allUp(), "groq", deg(100))
	res, _ := ix.Cheapest(CheapestQuery{Task: "llm", Input: 1_000_000, Output: 500_000, Limit: 20}, live)
	for _, r := range res {
		if r.Provider == "groq" || r.Provider == "cohere" {
			t.Errorf("%s must not qualify (degraded / unpriced)", r.Provider)
		}
	}
	// anthropic claude-fast: 0.1 + 0.25 = 0.35; openai gpt-mini: 0.15 + 0.3 = 0.45; mistral: 0.2 + 0.3 = 0.5.
	if len(res) < 3 || res[0].Model != "claude-fast" || res[0].CostUSD != 0.35 || res[1].CostUSD != 0.45 || res[2].CostUSD != 0.5 {
		t.Fatalf("res = %+v", res)
	}
	res, _ = ix.Cheapest(CheapestQuery{Task: "llm", Input: 1_000_000, Output: 500_000, Limit: 5, MinQuality: &Quality{"mmlu", 85}}, live)
	if len(res) != 1 || res[0].Model != "gpt-big" || res[0].Quality["mmlu"] != 88 || res[0].Quality["gpqa"] != 50 {
		t.Errorf("min_quality = %+v", res)
	}
	// Embeddings have no output price: output tokens add nothing.
	res, _ = ix.Cheapest(CheapestQuery{Task: "embedding", Input: 1_000_000, Output: 500_000, Limit: 5}, live)
	if len(res) != 2 || res[0].CostUSD != 0.02 || res[0].OutputPer1M != nil {
		t.Errorf("embedding = %+v", res)
	}
	for _, bad := range []string{"mmlu", "bogus:80", "mmlu:101", "mmlu:x"} {
		if _, err := ParseQuality(bad); !errs.IsInput(err) {
			t.Errorf("ParseQuality(%q) = %v", bad, err)
		}
	}
}

// TestCostEstimateGolden pins the arithmetic with hand-computed figures.
func TestCostEstimateGolden(t *testing.T) {
	ix := testIndex(t)
	// openai's cheapest llm... is gpt-mini (0.15 in, 0.6 out); 1,234,567 input of which 234,567 cached, 345,678 output:
	//   input  1,000,000 × 0.15 / 1e6          = 0.15
	//   cached   234,567 × 0.075 / 1e6         = 0.017592525  -> 0.017593
	//   output   345,678 × 0.6 / 1e6           = 0.2074068    -> 0.207407
	//   total  0.15 + 0.017593 + 0.207407      = 0.375; savings = 0.017593
	e, err := ix.CostEstimate(EstimateQuery{Provider: "openai", Model: "GPT", Input: 1_234_567, Output: 345_678, Cached: 234_567}, allUp())
	if err != nil {
		t.Fatal(err)
	}
	if e.Model != "gpt-mini" || e.InputCost != 0.15 || e.CachedCost != 0.017593 || e.OutputCost != 0.207407 || e.Total != 0.375 || e.Savings != 0.017593 {
		t.Fatalf("estimate = %+v", e)
	}
	// Alternatives: cheaper llm models of other providers, one per provider, at most 3, cheapest first.
	//   groq llama-cheap: 0.05 + 0.00586425->0.005864 + 0.02765424->0.027654 = 0.083518
	//   anthropic claude-fast: 0.1 + 0.01172835->0.011728 + 0.172839 = 0.284567
	//   mistral (0.2 + 0.023457 + 0.207407 = 0.430864) costs more: left out.
	if len(e.Alternatives) != 2 || e.Alternatives[0].Provider != "groq" || e.Alternatives[0].Total != 0.083518 ||
		e.Alternatives[0].SavingsPct != 77.73 || e.Alternatives[1].Total != 0.284567 || e.Alternatives[1].SavingsPct != 24.12 {
		t.Errorf("alternatives = %+v", e.Alternatives)
	}
	// A provider in outage offers no alternative.
	e, _ = ix.CostEstimate(EstimateQuery{Provider: "openai", Model: "big", Input: 1_234_567, Output: 345_678, Cached: 234_567}, with(allUp(), "groq", down()))
	for _, a := range e.Alternatives {
		if a.Provider == "groq" || a.Provider == "openai" {
			t.Errorf("alternative %+v", a)
		}
	}
	if len(e.Alternatives) != 3 {
		t.Errorf("%d alternatives for gpt-big", len(e.Alternatives))
	}
	// Large volumes stay exact: 10^10 tokens at $0.15 = 1500; half a micro-dollar rounds up.
	e, _ = ix.CostEstimate(EstimateQuery{Provider: "openai", Input: 10_000_000_000, Output: 10_000_000_000}, allUp())
	if e.InputCost != 1500 || e.OutputCost != 6000 || e.Total != 7500 {
		t.Errorf("10^10 tokens = %+v", e)
	}
	e, _ = ix.CostEstimate(EstimateQuery{Provider: "openai", Model: "embed", Input: 25, Output: 7}, allUp())
	if e.InputCost != 0.000001 || e.OutputCost != 0 || e.OutputPer1M != nil { // 25 × 0.02 / 1e6 = 0.0000005 -> 0.000001
		t.Errorf("half micro = %+v", e)
	}
	if _, err := ix.CostEstimate(EstimateQuery{Provider: "openai", Input: 5, Cached: 6}, allUp()); !errs.IsInput(err) {
		t.Errorf("cached > input: %v", err)
	}
	for _, q := range []EstimateQuery{{Provider: "nope"}, {Provider: "openai", Model: "zzz"}, {Provider: "cohere"}} {
		if _, err := ix.CostEstimate(q, allUp()); !errs.IsNotFound(err) {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

func TestTaskCostGolden(t *testing.T) {
	ix := testIndex(t)
	// 10,000 input (4,000 cached), 2,000 output; per provider its cheapest llm model:
	//   groq 0.05/0.08: 6000×0.05=0.0003 + 4000×0.025=0.0001 + 2000×0.08=0.00016 -> 0.00056
	//   anthropic 0.1/0.5: 0.0006 + 0.0002 + 0.001 -> 0.0018 (221.43 % more)
	//   openai gpt-mini 0.15/0.6: 0.0009 + 0.0003 + 0.0012 -> 0.0024 (328.57 % more)
	r, err := ix.TaskCosts(TaskCostQuery{TaskType: "chat", Input: 10000, Output: 2000, Cached: 4000, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		p            string
		cost, in, pc float64
	}{{"groq", 0.00056, 0.0004, 0}, {"anthropic", 0.0018, 0.0008, 221.43}, {"openai", 0.0024, 0.0012, 328.57}}
	if len(r) != 3 {
		t.Fatalf("r = %+v", r)
	}
	for i, w := range want {
		if r[i].Rank != i+1 || r[i].Provider != w.p || r[i].CostUSD != w.cost || r[i].InputCost != w.in || r[i].PctMore == nil || *r[i].PctMore != w.pc {
			t.Errorf("rank %d = %+v (pct %v), want %+v", i+1, r[i], r[i].PctMore, w)
		}
	}
	if r, _ = ix.TaskCosts(TaskCostQuery{TaskType: "chat", Input: 10000, Output: 2000, Limit: 10, FreeOnly: true}); len(r) != 2 || !r[0].FreeTier {
		t.Errorf("free_only = %+v", r)
	}
	if r, _ = ix.TaskCosts(TaskCostQuery{TaskType: "search", Limit: 10}); len(r) != 0 {
		t.Errorf("search, which this catalog does not price = %+v", r)
	}
	if _, err := ix.TaskCosts(TaskCostQuery{TaskType: "chat", Input: 1, Cached: 2, Limit: 1}); !errs.IsInput(err) {
		t.Errorf("cached > input: %v", err)
	}
}

func TestForecastGolden(t *testing.T) {
	ix := testIndex(t)
	// 100 requests/day × 2,000 input (25 % cached) and 500 output = 200,000 input, 50,000 cached, 50,000 output.
	//   gpt-big 3/15, cached 0.3: input 150,000×3=0.45 + 50,000×0.3=0.015 -> 0.465; saved 0.15-0.015 = 0.135;
	//   output 50,000×15 = 0.75; daily 1.215, weekly 8.505, monthly 36.45, yearly 443.475.
	//   claude-fast 0.1/0.5, no cached price: input 0.02, output 0.025, daily 0.045, saved 0.
	fs, err := ix.Forecasts(ForecastQuery{RequestsPerDay: 100, AvgInput: 2000, AvgOutput: 500, CacheHitRate: 0.25, Task: "llm", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Forecast{}
	for i, f := range fs {
		got[f.Model] = f
		if i > 0 && f.Daily < fs[i-1].Daily {
			t.Errorf("not sorted at %d", i)
		}
	}
	b := got["gpt-big"]
	if b.DailyInput != 0.465 || b.DailySaved != 0.135 || b.DailyOutput != 0.75 || b.Daily != 1.215 || b.Weekly != 8.505 ||
		b.Monthly != 36.45 || b.Yearly != 443.475 || !b.CachingAvailable {
		t.Errorf("gpt-big = %+v", b)
	}
	c := got["claude-fast"]
	if c.DailyInput != 0.02 || c.DailySaved != 0 || c.DailyOutput != 0.025 || c.Daily != 0.045 || c.Yearly != 16.425 || c.CachingAvailable {
		t.Errorf("claude-fast = %+v", c)
	}
	if _, ok := got["command-unpriced"]; ok {
		t.Error("an unpriced model is forecast")
	}
	if fs, _ = ix.Forecasts(ForecastQuery{RequestsPerDay: 1, AvgInput: 1, Task: "all", Limit: 50}); len(fs) != 8 {
		t.Errorf("all = %d forecasts", len(fs))
	}
	// Extreme volumes do not overflow.
	fs, err = ix.Forecasts(ForecastQuery{RequestsPerDay: 100_000_000, AvgInput: 10_000_000_000, AvgOutput: 10_000_000_000, CacheHitRate: 1, Task: "llm", Limit: 1})
	if err != nil || len(fs) != 1 || math.IsInf(fs[0].Yearly, 0) || fs[0].Yearly <= 0 {
		t.Errorf("extreme = %+v, %v", fs, err)
	}
}

func TestQuotaCheck(t *testing.T) {
	ix := testIndex(t)
	r, err := ix.QuotaCheck(QuotaQuery{Provider: "groq", Tier: "free", RPM: 20, TPM: 10000})
	if err != nil {
		t.Fatal(err)
	}
	// rpm 20/30 = 66.67 % safe; tpm 10000/12000 = 83.33 % tight.
	if r.Verdict != QuotaTight || r.RPM.Status != QuotaSafe || *r.RPM.UsagePct != 66.67 || *r.RPM.Headroom != 10 ||
		r.TPM.Status != QuotaTight || *r.TPM.UsagePct != 83.33 || len(r.Suggestions) != 0 {
		t.Errorf("tight = %+v", r)
	}
	r, _ = ix.QuotaCheck(QuotaQuery{Provider: "groq", Tier: "free", RPM: 40, TPM: 20000})
	if r.Verdict != QuotaExceeds || *r.RPM.Headroom != -10 || *r.TPM.UsagePct != 166.67 {
		t.Errorf("exceeds = %+v", r)
	}
	// Suggestions cover both values with known limits: anthropic tier2 (1000), anthropic tier1 (50), cerebras free
	// has rpm 30 < 40; perplexity has no tpm: not suggested.
	if len(r.Suggestions) != 2 || r.Suggestions[0].Tier != "tier2" || r.Suggestions[1].Tier != "tier1" {
		t.Errorf("suggestions = %+v", r.Suggestions)
	}
	// Unknown limits are said to be unknown, never guessed, and never read as room: the verdict is unknown and
	// names the limits the plan uses that are missing (tpm only when tokens are planned).
	for _, c := range []struct {
		q       QuotaQuery
		missing string
	}{{QuotaQuery{Provider: "openai", Tier: "free", RPM: 10, TPM: 10}, "rpm,tpm"}, {QuotaQuery{Provider: "openai", Tier: "paid", RPM: 10}, "rpm"}} {
		r, _ = ix.QuotaCheck(c.q)
		if r.Verdict != QuotaUnknown || strings.Join(r.Missing, ",") != c.missing || r.RPM.Status != QuotaUnknown || r.RPM.UsagePct != nil ||
			r.RPM.Headroom != nil || r.Limits.RequestsPerMinute != nil {
			t.Errorf("%+v = %+v", c.q, r)
		}
	}
	// A known limit exceeded outweighs an unknown one; perplexity tier1 publishes rpm only.
	if r, _ = ix.QuotaCheck(QuotaQuery{Provider: "perplexity", Tier: "tier1", RPM: 200, TPM: 10}); r.Verdict != QuotaExceeds || strings.Join(r.Missing, ",") != "tpm" {
		t.Errorf("exceeds over unknown = %+v", r)
	}
	if r, _ = ix.QuotaCheck(QuotaQuery{Provider: "perplexity", Tier: "tier1", RPM: 100}); r.Verdict != QuotaSafe || len(r.Missing) != 0 {
		t.Errorf("rpm only, known = %+v", r)
	}
	if _, err := ix.QuotaCheck(QuotaQuery{Provider: "nope", Tier: "free"}); !errs.IsNotFound(err) {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestCompare(t *testing.T) {
	ix := testIndex(t)
	c, err := ix.Compare([]string{"openai", "groq", "writer"}, nil, Statuses{"openai": op(180)})
	if err != nil {
		t.Fatal(err)
	}
	o := c["openai"]
	if *o.Status != StatusOperational || *o.ResponseTimeMs != 180 || o.Pricing.Model != "gpt-mini" || o.Benchmarks.ModelId != "gpt-big" ||
		len(o.Models) != 2 || o.Models[0] != "gpt-big" || o.RateLimits == nil {
		t.Errorf("openai = %+v", o)
	}
	w := c["writer"]
	if *w.Status != StatusUnknown || w.Pricing != nil || w.Benchmarks != nil || w.Models == nil || len(w.Models) != 0 {
		t.Errorf("writer = %+v", w)
	}
	c, _ = ix.Compare([]string{"openai", "groq"}, []string{"price"}, Statuses{})
	if g := c["groq"]; g.Status != nil || g.Pricing == nil || g.Models != nil || g.RateLimits != nil || g.Benchmarks != nil {
		t.Errorf("price only = %+v", g)
	}
	if _, err := ix.Compare([]string{"openai", "openai"}, nil, nil); !errs.IsInput(err) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := ix.Compare([]string{"openai", "nope"}, nil, nil); !errs.IsNotFound(err) {
		t.Errorf("unknown: %v", err)
	}
}

// TestSeedIndex builds the real catalogs' index.
func TestSeedIndex(t *testing.T) {
	ix, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	// A broken join gives far fewer: 1,212 and 1,289 on 2026-11-28, once the curated providers were served only under
	// the model IDs an official source names (1,598 and 1,614 before).
	if len(ix.priced) < 1100 || len(ix.byTask["llm"]) < 1150 {
		t.Errorf("%d priced models, %d llm", len(ix.priced), len(ix.byTask["llm"]))
	}
}

// TestLoadAtLeavesOutShutModels: the index of a day ranks no model whose shutdown day is within 30 days, and
// holds none whose day has come.
func TestLoadAtLeavesOutShutModels(t *testing.T) {
	c := Catalogs{
		Pricing: []seeds.PricingRecord{
			{ProviderId: "openai", Model: "old", Task: "llm", Pricing: rates(f(1), f(2), nil)},
			{ProviderId: "openai", Model: "new", Task: "llm", Pricing: rates(f(1), f(2), nil)},
		},
		Shutdowns: map[string]string{"openai/old": "2026-10-23"},
	}
	has := func(day string) bool {
		c.Today = day
		ix, err := Build(seeds.Providers(), c)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(ix.priced, func(m *Model) bool { return m.ID == "old" })
	}
	if !has("2026-09-22") || has("2026-09-23") || has("2026-10-22") || has("2026-10-23") || has("2026-11-24") {
		t.Error("a model is ranked until 31 days before its shutdown, and never from 30 days before")
	}
	c.Today = "2026-10-01"
	ix, err := Build(seeds.Providers(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.byProvider["openai"]) != 2 || ix.byProvider["openai"][1].Ending != "2026-10-23" {
		t.Errorf("a model shutting down soon stays reachable by its ID: %+v", ix.byProvider["openai"])
	}
	if _, err := LoadAt("2026-11-24"); err != nil {
		t.Fatal(err)
	}
}

// TestPickPrefersGenerallyAvailable: a preview model is picked only when no generally available model fits, and
// says so; experimental and sunset models are never indexed.
func TestPickPrefersGenerallyAvailable(t *testing.T) {
	ix, err := Build(seeds.Providers(), Catalogs{
		Pricing: []seeds.PricingRecord{
			{ProviderId: "openai", Model: "ga-small", Task: "llm", Pricing: rates(f(1), f(2), nil)},
			{ProviderId: "openai", Model: "preview-big", Task: "llm", Pricing: rates(f(0.1), f(0.2), nil)},
			{ProviderId: "google-gemini", Model: "exp-free", Task: "llm", Pricing: rates(f(0.01), f(0.01), nil)},
			{ProviderId: "anthropic", Model: "gone", Task: "llm", Pricing: rates(f(0.01), f(0.01), nil)},
		},
		Models: []seeds.ModelRecord{
			{ProviderId: "openai", ModelId: "ga-small", Task: "llm", ContextWindow: iptr(100000)},
			{ProviderId: "openai", ModelId: "preview-big", Task: "llm", ContextWindow: iptr(1000000)},
		},
		Stages: map[string]string{"openai/ga-small": "ga", "openai/preview-big": "preview", "google-gemini/exp-free": "experimental", "anthropic/gone": "sunset"},
	})
	if err != nil {
		t.Fatal(err)
	}
	live := Statuses{"openai": op(100), "google-gemini": op(100), "anthropic": op(100)}
	best, rest, _, err := ix.Pick(PickQuery{Task: "llm"}, live)
	if err != nil || best.Model != "ga-small" || len(rest) != 0 {
		t.Errorf("pick = %+v %v %v, want ga-small alone (the preview is cheaper, exp and sunset are never candidates)", best, rest, err)
	}
	best, _, _, err = ix.Pick(PickQuery{Task: "llm", MinContext: i64(500000)}, live)
	if err != nil || best.Model != "preview-big" || !strings.HasPrefix(best.Reason, "preview (no generally available model fits)") {
		t.Errorf("pick with min_context = %+v %v, want preview-big saying why", best, err)
	}
}

// TestPinnedVersionRankedOnce: a pinned version priced and sized as its alias is one offer, ranked once under the
// alias, and still estimated by its own ID; a pinned version priced differently is an offer of its own.
func TestPinnedVersionRankedOnce(t *testing.T) {
	ix, err := Build(seeds.Providers(), Catalogs{
		Pricing: []seeds.PricingRecord{
			{ProviderId: "openai", Model: "m", Task: "llm", Pricing: rates(f(1), f(2), nil)},
			{ProviderId: "openai", Model: "m-2026-01-01", Task: "llm", Pricing: rates(f(1), f(2), nil)},
			{ProviderId: "openai", Model: "m-2025-01-01", Task: "llm", Pricing: rates(f(3), f(6), nil)},
		},
		Models: []seeds.ModelRecord{
			{ProviderId: "openai", ModelId: "m", Task: "llm", ContextWindow: iptr(100000)},
			{ProviderId: "openai", ModelId: "m-2026-01-01", Task: "llm", ContextWindow: iptr(100000)},
			{ProviderId: "openai", ModelId: "m-2025-01-01", Task: "llm", ContextWindow: iptr(100000)},
		},
		Pinned: map[string]string{"openai/m-2026-01-01": "m", "openai/m-2025-01-01": "m"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	res, _ := ix.Cheapest(CheapestQuery{Task: "llm", Input: 1000, Output: 1000, Limit: 10}, Statuses{"openai": op(100)})
	for _, r := range res {
		got = append(got, r.Model)
	}
	if !slices.Equal(got, []string{"m", "m-2025-01-01"}) {
		t.Errorf("cheapest = %v, want the alias once and the differently priced version", got)
	}
	e, err := ix.CostEstimate(EstimateQuery{Provider: "openai", Model: "m-2026-01-01", Input: 1000}, nil)
	if err != nil || e.Model != "m-2026-01-01" {
		t.Errorf("estimate of the pinned version = %+v %v", e, err)
	}
}

// TestPickPruningChangesNothing compares Pick with and without its skipping, on the real catalogs, for queries
// and live statuses of every kind: the same pick, runners-up and scores, or the same error.
func TestPickPruningChangesNothing(t *testing.T) {
	ix, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var providers []string
	for _, p := range ix.reg.All() {
		providers = append(providers, p.ID)
	}
	statuses := []string{StatusOperational, StatusDegraded, StatusOutage, StatusUnknown}
	budget, ctx := 2.0, int64(200000)
	queries := []PickQuery{
		{Task: "llm"}, {Task: "llm", Needs: []string{"vision", "json_mode"}, Budget: &budget}, {Task: "code"},
		{Task: "llm", MinContext: &ctx}, {Task: "embedding"}, {Task: "image"}, {Task: "llm", FreeOnly: true},
		{Task: "llm", Avoid: []string{"openai", "anthropic"}}, {Task: "llm", Prefer: PreferBalanced}, {Task: "code", Prefer: PreferCost},
		{Task: "agent", Prefer: PreferCost, MinQuality: f(10)},
	}
	for round := range 12 {
		live := Statuses{}
		for i, id := range providers {
			if round == 0 {
				break // no status at all: every provider unknown
			}
			rt := float64((i*37+round*101)%3000) + 50
			live[id] = Live{Status: statuses[(i+round)%len(statuses)], ResponseTimeMs: &rt}
		}
		for _, q := range queries {
			prune = true
			best, rest, _, err := ix.Pick(q, live)
			prune = false
			wantBest, wantRest, _, wantErr := ix.Pick(q, live)
			prune = true
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("round %d %+v: error %v, full scan %v", round, q, err, wantErr)
			}
			got, want := append([]PickEntry{best}, rest...), append([]PickEntry{wantBest}, wantRest...)
			for i := range max(len(got), len(want)) {
				if i >= len(got) || i >= len(want) || got[i].Provider != want[i].Provider || got[i].Model != want[i].Model || got[i].Score != want[i].Score {
					t.Fatalf("round %d %+v: pruned %+v, full scan %+v", round, q, got, want)
				}
			}
		}
	}
}

// TestPreparedStatusesDecideAlike: the statuses with their latency scores worked out ahead give every decision the
// same answer as the statuses they copy, with latencies known, unknown and in outage.
func TestPreparedStatusesDecideAlike(t *testing.T) {
	ix := testIndex(t)
	p50, p95 := 120.0, 900.0
	live := with(with(allUp(), "mistral", Live{Status: StatusDegraded, P50Ms: &p50, P95Ms: &p95}), "deepseek", down())
	live["groq"] = Live{Status: StatusOperational} // no latency known
	live["cohere"] = Live{}                        // no status: unknown
	prepared := live.Prepared()
	for id, l := range live {
		if got, want := latencyScore(prepared[id]), latencyScore(l); got != want || !prepared[id].prepared {
			t.Errorf("%s: prepared latency score %v, want %v", id, got, want)
		}
		if got, want := pickProviderPart(prepared[id], pickWeights[PreferQuality]), pickProviderPart(l, pickWeights[PreferQuality]); got != want {
			t.Errorf("%s: prepared pick part %v, want %v", id, got, want)
		}
		if got, want := liveReason(prepared[id]), liveReason(l); got != want {
			t.Errorf("%s: prepared reason %q, want %q", id, got, want)
		}
	}
	for _, q := range []PickQuery{{Task: "llm"}, {Task: "llm", Needs: []string{"json_mode"}}, {Task: "embedding"}} {
		b1, r1, n1, e1 := ix.Pick(q, live)
		b2, r2, n2, e2 := ix.Pick(q, prepared)
		if b1.Reason != b2.Reason || b1.Score != b2.Score || len(r1) != len(r2) || n1 != n2 || (e1 == nil) != (e2 == nil) {
			t.Errorf("pick %+v: %+v %v, prepared %+v %v", q, b1, e1, b2, e2)
		}
	}
	c1, _, e1 := ix.Failover(FailoverQuery{Primary: "openai", Limit: 5}, live)
	c2, _, e2 := ix.Failover(FailoverQuery{Primary: "openai", Limit: 5}, prepared)
	if len(c1) != len(c2) || (e1 == nil) != (e2 == nil) {
		t.Fatalf("failover: %d %v, prepared %d %v", len(c1), e1, len(c2), e2)
	}
	for i := range c1 {
		if c1[i].Provider != c2[i].Provider || c1[i].Score != c2[i].Score {
			t.Errorf("failover %d: %+v, prepared %+v", i, c1[i], c2[i])
		}
	}
	rec1, _, _ := ix.Recommend(RecommendQuery{Limit: 5}, live)
	rec2, _, _ := ix.Recommend(RecommendQuery{Limit: 5}, prepared)
	if len(rec1) != len(rec2) {
		t.Fatalf("recommend: %d, prepared %d", len(rec1), len(rec2))
	}
	for i := range rec1 {
		if rec1[i].Provider != rec2[i].Provider || rec1[i].Score != rec2[i].Score {
			t.Errorf("recommend %d: %+v, prepared %+v", i, rec1[i], rec2[i])
		}
	}
}

func TestShutdownNotice(t *testing.T) {
	const today = "2026-11-28"
	for _, c := range []struct {
		shutdown       string
		live, eligible bool
		left           int // ignored when shutdown is ""
	}{
		{"", true, true, 0},
		{"2026-11-27", false, false, -1},
		{"2026-11-28", false, false, 0}, // gone on its shutdown day
		{"2026-11-29", true, false, 1},
		{"2026-12-28", true, false, 30}, // 30 days left: within the notice
		{"2026-12-29", true, true, 31},
		{"not-a-day", true, true, 0},
	} {
		live, left := ShutdownIn(c.shutdown, today)
		if live != c.live || Eligible(c.shutdown, today) != c.eligible {
			t.Errorf("%q: live %v eligible %v, want %v %v", c.shutdown, live, Eligible(c.shutdown, today), c.live, c.eligible)
		}
		switch {
		case c.shutdown == "" || c.shutdown == "not-a-day":
			if left != nil {
				t.Errorf("%q: %d days left, want none", c.shutdown, *left)
			}
		case left == nil || *left != c.left:
			t.Errorf("%q: days left %v, want %d", c.shutdown, left, c.left)
		}
	}
	// A model shutting down within the notice is no candidate (Ending is set) but stays reachable by its ID; one
	// whose day is further off is a candidate; one whose day has come is out of the index.
	reg := seeds.Providers()
	price := 1.0
	cat := func(shutdown string) Catalogs {
		return Catalogs{Pricing: []seeds.PricingRecord{{ProviderId: "openai", Model: "m", Task: "llm",
			Pricing: seeds.PricingRates{InputPer1mTokens: &price, OutputPer1mTokens: &price}}},
			Shutdowns: map[string]string{"openai/m": shutdown}, Today: today}
	}
	for shutdown, want := range map[string]struct{ indexed, candidate bool }{
		"2026-12-10": {true, false}, "2027-02-01": {true, true}, today: {false, false},
	} {
		ix, err := Build(reg, cat(shutdown))
		if err != nil {
			t.Fatal(err)
		}
		ms := ix.byProvider["openai"]
		if got := len(ms) == 1; got != want.indexed {
			t.Errorf("shutdown %s: model indexed %v, want %v", shutdown, got, want.indexed)
			continue
		}
		if want.indexed && (ms[0].Ending == "") != want.candidate {
			t.Errorf("shutdown %s: candidate %v (Ending %q), want %v", shutdown, ms[0].Ending == "", ms[0].Ending, want.candidate)
		}
	}
}
