package decide

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func evidence(benchmark, task string, score float64, date string, self bool) api.BenchmarkEvidence {
	return api.BenchmarkEvidence{Benchmark: benchmark, Task: task, Score: score, Unit: "percent", Date: date, SelfReported: self, Source: "s"}
}

func tier(t string) *api.LineupTier {
	return &api.LineupTier{Tier: api.LineupTierTier(t), Source: "s"}
}

func TestCanonicalModel(t *testing.T) {
	for id, want := range map[string]string{
		"us.anthropic.claude-opus-4-1-20250805-v1:0": "claude-opus-4-1",
		"claude-opus-4-1@20250805":                   "claude-opus-4-1",
		"anthropic/claude-opus-4.1":                  "claude-opus-4-1",
		"claude-opus-4-1":                            "claude-opus-4-1",
		"claude-fable-5@default":                     "claude-fable-5",
		"databricks-claude-sonnet-4-5":               "claude-sonnet-4-5",
		"~anthropic/claude-opus-latest":              "claude-opus",
		"openai.gpt-5.4":                             "gpt-5-4",
		"gpt-5.4-2026-03-05":                         "gpt-5-4",
		"amazon.nova-lite-v1:0":                      "amazon-nova-lite",
		"meta-llama/Llama-3.3-70B-Instruct":          "llama-3-3-70b-instruct",
	} {
		if got := canonicalModel(id); got != want {
			t.Errorf("canonicalModel(%q) = %q, want %q", id, got, want)
		}
	}
}

// qualityCatalog: four code models of three generations and kinds of evidence, plus a model only a tier places.
func qualityCatalog(extra ...seeds.BenchmarkRecord) Catalogs {
	caps := seeds.ModelCapabilities{FunctionCalling: capYes, JsonMode: capYes}
	price := func(p, m string, in float64) seeds.PricingRecord {
		return seeds.PricingRecord{ProviderId: p, Model: m, Task: "llm", Pricing: rates(f(in), f(5*in), nil)}
	}
	model := func(p, m string) seeds.ModelRecord {
		return seeds.ModelRecord{ProviderId: p, ModelId: m, Task: "llm", ContextWindow: iptr(400000), Capabilities: caps}
	}
	return Catalogs{
		Pricing: []seeds.PricingRecord{
			price("anthropic", "claude-old-4", 3), price("anthropic", "claude-new-5", 5), price("openai", "gpt-new-6", 2),
			price("deepseek", "deepseek-v9", 0.3), price("mistral", "mistral-tiered", 0.5),
		},
		Models: []seeds.ModelRecord{
			model("anthropic", "claude-old-4"), model("anthropic", "claude-new-5"), model("openai", "gpt-new-6"),
			model("deepseek", "deepseek-v9"), model("mistral", "mistral-tiered"),
		},
		Benchmarks: append([]seeds.BenchmarkRecord{
			// The old model topped SWE-bench in its day (independent, early 2025).
			{ProviderId: "anthropic", ModelId: "claude-old-4", Evidence: []api.BenchmarkEvidence{
				evidence("swe_bench_verified", "code", 80.1, "2025-03", false)}},
			// This year's flagships score a little lower on the same benchmark, one independent, one self-reported.
			{ProviderId: "anthropic", ModelId: "claude-new-5", Tier: tier("flagship"), Evidence: []api.BenchmarkEvidence{
				evidence("swe_bench_verified", "code", 78.2, "2026-10", true), evidence("terminal_bench", "code", 59.1, "2026-11-02", false)}},
			{ProviderId: "openai", ModelId: "gpt-new-6", Tier: tier("flagship"), Evidence: []api.BenchmarkEvidence{
				evidence("swe_bench_verified", "code", 76.0, "2026-09-15", false)}},
			{ProviderId: "deepseek", ModelId: "deepseek-v9", Evidence: []api.BenchmarkEvidence{
				evidence("swe_bench_verified", "code", 60.0, "2026-08", false)}},
			{ProviderId: "mistral", ModelId: "mistral-tiered", Tier: tier("fast")},
		}, extra...),
		Today: "2026-11-28",
	}
}

// TestNewerStrongerModelWins: a 2025 result on an old model does not beat this year's flagships; a
// self-reported result weighs less than an independent one; the reason names the evidence; a model without
// results is placed by its tier below measured current models.
func TestNewerStrongerModelWins(t *testing.T) {
	ix, err := Build(seeds.Providers(), qualityCatalog())
	if err != nil {
		t.Fatal(err)
	}
	q := func(p, m string) QualityOf {
		for _, x := range ix.byProvider[p] {
			if x.ID == m {
				return x.Quality["code"]
			}
		}
		t.Fatalf("%s/%s not indexed", p, m)
		return QualityOf{}
	}
	old, newer, gpt, ds := q("anthropic", "claude-old-4"), q("anthropic", "claude-new-5"), q("openai", "gpt-new-6"), q("deepseek", "deepseek-v9")
	if !(newer.Value > old.Value && gpt.Value > old.Value && old.Value > ds.Value-0.3) {
		t.Errorf("code quality: new %.3f, gpt %.3f, old %.3f, deepseek %.3f", newer.Value, gpt.Value, old.Value, ds.Value)
	}
	if !strings.Contains(newer.Evidence, "SWE-bench Verified 78.2, self-reported, 2026-10") || !strings.Contains(newer.Evidence, "Terminal-Bench 59.1, independent, 2026-11") {
		t.Errorf("evidence = %q", newer.Evidence)
	}
	// The tier-placed model is a code candidate only by evidence: it has none, so it is not one.
	for _, m := range ix.byTask["code"] {
		if m.ID == "mistral-tiered" {
			t.Error("a model without code evidence is a code candidate")
		}
	}
	if tq := ix.quality.quality("mistral-tiered", "llm"); !tq.Known || tq.FromTier != "fast" || tq.Value != tierQuality["fast"] {
		t.Errorf("tier quality = %+v", tq)
	}
	live := Statuses{"anthropic": op(300), "openai": op(300), "deepseek": op(300), "mistral": op(300)}
	best, rest, _, err := ix.Pick(PickQuery{Task: "code"}, live)
	if err != nil {
		t.Fatal(err)
	}
	if best.Model == "claude-old-4" || rest[0].Model == "claude-old-4" {
		t.Errorf("code pick: %s, then %s", best.Model, rest[0].Model)
	}
	if !strings.Contains(best.Reason, "quality ") || !strings.Contains(best.Reason, "2026-") {
		t.Errorf("reason names no evidence: %q", best.Reason)
	}

	// The same result made independent weighs more than self-reported: the model's quality moves towards it.
	c := qualityCatalog()
	c.Benchmarks[1].Evidence[0].SelfReported = false
	ix2, err := Build(seeds.Providers(), c)
	if err != nil {
		t.Fatal(err)
	}
	swe := ix2.quality.normalised(result{benchmark: "swe_bench_verified", unit: "percent", score: 78.2}) * math.Pow(agingPerYear, ix2.quality.ageYears("2026-10"))
	if up := ix2.quality.quality("claude-new-5", "code"); math.Abs(up.Value-swe) >= math.Abs(newer.Value-swe) {
		t.Errorf("independent %.4f, self-reported %.4f: the SWE-bench result (%.4f) weighs no more", up.Value, newer.Value, swe)
	}

	// A newer model with better evidence displaces the older one at the top of the pick.
	ix3, err := Build(seeds.Providers(), qualityCatalog())
	if err != nil {
		t.Fatal(err)
	}
	before, _, _, _ := ix3.Pick(PickQuery{Task: "code"}, live)
	c = qualityCatalog(seeds.BenchmarkRecord{ProviderId: "deepseek", ModelId: "deepseek-v10", Tier: tier("flagship"), Evidence: []api.BenchmarkEvidence{
		evidence("swe_bench_verified", "code", 82.5, "2026-11-20", false), evidence("terminal_bench", "code", 64, "2026-11-20", false)}})
	c.Pricing = append(c.Pricing, seeds.PricingRecord{ProviderId: "deepseek", Model: "deepseek-v10", Task: "llm", Pricing: rates(f(0.5), f(2), nil)})
	c.Models = append(c.Models, seeds.ModelRecord{ProviderId: "deepseek", ModelId: "deepseek-v10", Task: "llm", ContextWindow: iptr(400000),
		Capabilities: seeds.ModelCapabilities{FunctionCalling: capYes, JsonMode: capYes}})
	ix4, err := Build(seeds.Providers(), c)
	if err != nil {
		t.Fatal(err)
	}
	after, rest, _, _ := ix4.Pick(PickQuery{Task: "code"}, live)
	if before.Model == "deepseek-v10" || after.Model != "deepseek-v10" || !slices.ContainsFunc(rest, func(e PickEntry) bool { return e.Model == before.Model }) {
		t.Errorf("before %s, after %s then %s", before.Model, after.Model, rest[0].Model)
	}
}

// TestPickPrefer: prefer=cost takes the cheapest model above the floor, balanced trades quality for price,
// quality takes the strongest.
func TestPickPrefer(t *testing.T) {
	ix, err := Build(seeds.Providers(), qualityCatalog())
	if err != nil {
		t.Fatal(err)
	}
	live := Statuses{"anthropic": op(300), "openai": op(300), "deepseek": op(300), "mistral": op(300)}
	got := map[string]string{}
	for _, p := range []string{PreferQuality, PreferBalanced, PreferCost} {
		best, _, _, err := ix.Pick(PickQuery{Task: "code", Prefer: p, MinQuality: f(20)}, live)
		if err != nil {
			t.Fatal(p, err)
		}
		got[p] = best.Model
	}
	if got[PreferQuality] != "claude-new-5" || got[PreferCost] != "deepseek-v9" {
		t.Errorf("picks = %v", got)
	}
	if _, _, _, err := ix.Pick(PickQuery{Task: "code", Prefer: "fast"}, live); err == nil || !strings.Contains(err.Error(), "prefer") {
		t.Errorf("bad prefer: %v", err)
	}
}

// claudeHosts: Claude on its maker, two licensed clouds, an aggregator and a reseller; GPT and Llama elsewhere.
func claudeHosts(t *testing.T, shutdowns map[string]string) *Index {
	t.Helper()
	caps := seeds.ModelCapabilities{FunctionCalling: capYes, JsonMode: capYes, Vision: capYes}
	var c Catalogs
	add := func(p, m string, in float64) {
		c.Pricing = append(c.Pricing, seeds.PricingRecord{ProviderId: p, Model: m, Task: "llm", Pricing: rates(f(in), f(5*in), nil)})
		c.Models = append(c.Models, seeds.ModelRecord{ProviderId: p, ModelId: m, Task: "llm", ContextWindow: iptr(200000), Capabilities: caps})
	}
	add("anthropic", "claude-opus-5", 5)
	add("anthropic", "claude-haiku-5", 1)
	add("aws-bedrock", "anthropic.claude-opus-5-v1:0", 5)
	add("aws-bedrock", "anthropic.claude-haiku-5-v1:0", 1)
	add("google-vertex-ai", "claude-opus-5@default", 5.5)
	add("azure-openai", "claude-opus-5", 5)
	add("openrouter", "anthropic/claude-opus-5", 5)
	add("openrouter", "openai/gpt-6", 2.5)
	add("replicate", "anthropic/claude-opus-5", 5)
	add("openai", "gpt-6", 2.5)
	add("groq", "llama-5-70b", 0.6)
	c.Benchmarks = []seeds.BenchmarkRecord{
		{ProviderId: "anthropic", ModelId: "claude-opus-5", Tier: tier("flagship"), Evidence: []api.BenchmarkEvidence{evidence("gpqa_diamond", "llm", 88, "2026-10", true)}},
		{ProviderId: "anthropic", ModelId: "claude-haiku-5", Tier: tier("fast")},
		{ProviderId: "openai", ModelId: "gpt-6", Tier: tier("flagship"), Evidence: []api.BenchmarkEvidence{evidence("gpqa_diamond", "llm", 87, "2026-09", false)}},
		{ProviderId: "groq", ModelId: "llama-5-70b", Evidence: []api.BenchmarkEvidence{evidence("gpqa_diamond", "llm", 60, "2026-06", false)}},
	}
	c.Shutdowns, c.Replacements, c.Today = shutdowns, map[string]string{"anthropic/claude-haiku-5": "claude-haiku-5-5"}, "2026-11-28"
	ix, err := Build(seeds.Providers(), c)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func chainOf(es []FailoverEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Provider + "/" + e.Model
	}
	return out
}

// TestFailoverScopes: a failing Anthropic is best replaced by Claude on Bedrock or Vertex AI (own
// infrastructure), then by another family, with the aggregator and the reseller that route to Anthropic last;
// with the model withdrawn everywhere, other families come first and the model itself is never offered.
func TestFailoverScopes(t *testing.T) {
	ix := claudeHosts(t, nil)
	live := Statuses{}
	for _, p := range []string{"anthropic", "aws-bedrock", "google-vertex-ai", "azure-openai", "openrouter", "replicate", "openai", "groq"} {
		live[p] = op(100)
	}
	chain, _, err := ix.Failover(FailoverQuery{Primary: "anthropic", Limit: 10}, live)
	if err != nil {
		t.Fatal(err)
	}
	// Claude on Foundry (azure-openai) may run on Anthropic's infrastructure: after Bedrock and Vertex AI,
	// before other families.
	want := []string{"aws-bedrock/anthropic.claude-opus-5-v1:0", "google-vertex-ai/claude-opus-5@default", "azure-openai/claude-opus-5", "openai/gpt-6",
		"openrouter/openai/gpt-6", "groq/llama-5-70b", "replicate/anthropic/claude-opus-5"}
	if got := chainOf(chain); !slices.Equal(got, want) {
		t.Fatalf("scope=provider: %v, want %v", got, want)
	}
	if d := chain[0].Domain; !slices.Equal(d.Shares, []string{ShareModelFamily}) || !strings.Contains(chain[0].Reason, "the same model as claude-opus-5") {
		t.Errorf("bedrock: %+v %q", d, chain[0].Reason)
	}
	if d := chain[2].Domain; !slices.Equal(d.Shares, []string{ShareMayInfrastructure, ShareModelFamily}) || !strings.Contains(chain[2].Reason, "may share the outage") {
		t.Errorf("foundry: %+v %q", d, chain[2].Reason)
	}
	if d := chain[6].Domain; !slices.Contains(d.Shares, ShareInfrastructure) {
		t.Errorf("replicate reselling Claude shares no infrastructure: %+v", d)
	}
	if chain[0].Quality == nil || chain[0].InputPer1M == nil || *chain[0].InputPer1M != 5 {
		t.Errorf("bedrock entry names no price or quality: %+v", chain[0])
	}
	// With Claude's clouds down, a comparable model of another family leads.
	down2 := with(with(with(live, "aws-bedrock", down()), "google-vertex-ai", down()), "azure-openai", down())
	chain, _, _ = ix.Failover(FailoverQuery{Primary: "anthropic", Limit: 10}, down2)
	if len(chain) == 0 || chain[0].Provider != "openai" || !strings.Contains(chain[0].Reason, "another family") {
		t.Errorf("clouds down: %v", chainOf(chain))
	}
	// The caller's model decides what "the same model" is: haiku on Bedrock for a haiku user.
	chain, _, _ = ix.Failover(FailoverQuery{Primary: "anthropic", Model: "claude-haiku-5", Limit: 10}, live)
	if len(chain) == 0 || chain[0].Model != "anthropic.claude-haiku-5-v1:0" {
		t.Errorf("model=claude-haiku-5: %v", chainOf(chain))
	}
	// scope=model: other families first, Claude after, claude-opus-5 nowhere.
	chain, _, _ = ix.Failover(FailoverQuery{Primary: "anthropic", Scope: ScopeModel, Limit: 10}, live)
	got := chainOf(chain)
	if len(got) < 3 || !strings.HasPrefix(got[0], "openai/") || slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "opus-5") }) {
		t.Errorf("scope=model: %v", got)
	}
	for i, e := range chain {
		if e.Domain.Shares == nil {
			t.Errorf("entry %d has nil shares", i)
		}
		if i > 0 && slices.Contains(chain[i-1].Domain.Shares, ShareModelFamily) && !slices.Contains(e.Domain.Shares, ShareModelFamily) {
			t.Errorf("scope=model: another family after Claude: %v", got)
		}
	}
	if _, _, err := ix.Failover(FailoverQuery{Primary: "anthropic", Model: "claude-nope", Limit: 5}, live); err == nil || !strings.Contains(err.Error(), "parameter model") {
		t.Errorf("unknown model: %v", err)
	}
	if _, _, err := ix.Failover(FailoverQuery{Primary: "anthropic", Scope: "region", Limit: 5}, live); err == nil || !strings.Contains(err.Error(), "scope") {
		t.Errorf("bad scope: %v", err)
	}
}

// TestShutdownSoon: a model shutting down within 30 days is never picked or offered as a backup, and a caller
// still using it is told the day and the replacement.
func TestShutdownSoon(t *testing.T) {
	ix := claudeHosts(t, map[string]string{"anthropic/claude-haiku-5": "2026-12-10", "aws-bedrock/anthropic.claude-opus-5-v1:0": "2026-12-20"})
	live := Statuses{}
	for _, p := range []string{"anthropic", "aws-bedrock", "google-vertex-ai", "azure-openai", "openrouter", "replicate", "openai", "groq"} {
		live[p] = op(100)
	}
	chain, note, err := ix.Failover(FailoverQuery{Primary: "anthropic", Model: "claude-haiku-5", Limit: 10}, live)
	if err != nil {
		t.Fatal(err)
	}
	if note != "claude-haiku-5 at anthropic shuts down on 2026-12-10; its provider names claude-haiku-5-5 as the replacement." {
		t.Errorf("note = %q", note)
	}
	if slices.Contains(chainOf(chain), "aws-bedrock/anthropic.claude-opus-5-v1:0") {
		t.Errorf("a model shutting down in 22 days is offered: %v", chainOf(chain))
	}
	for _, q := range []PickQuery{{Task: "llm"}, {Task: "llm", Prefer: PreferCost, MinQuality: f(0)}, {Task: "llm", Avoid: []string{"openai", "google-vertex-ai", "openrouter", "replicate", "groq", "aws-bedrock"}}} {
		best, rest, _, err := ix.Pick(q, live)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range append([]PickEntry{best}, rest...) {
			if e.Model == "claude-haiku-5" || e.Model == "anthropic.claude-opus-5-v1:0" {
				t.Errorf("pick %+v offers %s", q, e.Model)
			}
		}
	}
	for _, r := range mustRecommend(t, ix, live) {
		if strings.Contains(r.Reason, "claude-haiku-5,") {
			t.Errorf("recommend names a model shutting down: %q", r.Reason)
		}
	}
}

func mustRecommend(t *testing.T, ix *Index, live Statuses) []RecommendEntry {
	t.Helper()
	recs, _, err := ix.Recommend(RecommendQuery{Task: "llm", Limit: 20}, live)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestFailoverMainTask: without task or model, a speech provider's failover is about speech.
func TestFailoverMainTask(t *testing.T) {
	ix, err := Build(seeds.Providers(), Catalogs{Pricing: []seeds.PricingRecord{
		{ProviderId: "elevenlabs", Model: "eleven-v3", Task: "speech", Pricing: seeds.PricingRates{Per1kCharacters: f(0.1)}},
		{ProviderId: "openai", Model: "tts-2", Task: "speech", Pricing: seeds.PricingRates{Per1kCharacters: f(0.015)}},
		{ProviderId: "openai", Model: "gpt-6", Task: "llm", Pricing: rates(f(2), f(8), nil)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	chain, _, err := ix.Failover(FailoverQuery{Primary: "elevenlabs", Limit: 5}, Statuses{"openai": op(100)})
	if err != nil || len(chain) != 1 || chain[0].Model != "tts-2" || chain[0].Unit != UnitChars {
		t.Errorf("chain = %+v, %v", chain, err)
	}
	if _, task, _, _ := ix.FailoverReference(FailoverQuery{Primary: "openai"}); task != "llm" {
		t.Errorf("openai's failover task = %q", task)
	}
}

// TestRecencyWithoutDay: an index built without a day (Load) still ages results, from the newest it holds.
func TestRecencyWithoutDay(t *testing.T) {
	c := qualityCatalog()
	c.Today = ""
	ix, err := Build(seeds.Providers(), c)
	if err != nil {
		t.Fatal(err)
	}
	if old, newer := ix.quality.quality("claude-old-4", "code"), ix.quality.quality("claude-new-5", "code"); old.Value >= newer.Value {
		t.Errorf("without a day: old %.3f, new %.3f", old.Value, newer.Value)
	}
}

// TestThinFieldsCountLittle: a result alone on its benchmark (its own best, share 100%) gives the neutral value,
// not full credit; a result in a field of thinFieldFull models counts in full; a lone result added to a model's
// full-field results does not drag it toward the neutral value.
func TestThinFieldsCountLittle(t *testing.T) {
	lone := evidence("humanitys_last_exam_verified", "reasoning", 54.9, "2026-11", true)
	var recs []seeds.BenchmarkRecord
	for i, s := range []float64{40, 45, 50, 55, 60} {
		recs = append(recs, seeds.BenchmarkRecord{ProviderId: "p", ModelId: "m" + strconv.Itoa(i),
			Evidence: []api.BenchmarkEvidence{evidence("gpqa_diamond", "reasoning", s, "2026-11", true)}})
	}
	recs = append(recs, seeds.BenchmarkRecord{ProviderId: "p", ModelId: "alone", Evidence: []api.BenchmarkEvidence{lone}},
		seeds.BenchmarkRecord{ProviderId: "p", ModelId: "m4-plus", Evidence: []api.BenchmarkEvidence{
			evidence("gpqa_diamond", "reasoning", 60, "2026-11", true), evidence("humanitys_last_exam_tools", "reasoning", 70, "2026-11", true)}})
	qi := newQualityIndex(recs, "2026-11-28")
	aging := math.Pow(agingPerYear, qi.ageYears("2026-11"))
	if q := qi.quality("alone", "llm"); !q.Known || !(math.Abs(q.Value-neutralResult*aging) <= 1e-9) {
		t.Errorf("a lone result: quality %+v, want the neutral %.4f", q, neutralResult*aging)
	}
	// The best of a field of six (five plus m4-plus, equal at 60) counts in full: share 1, percentile near the top.
	top := qi.quality("m4", "llm")
	if want := qi.normalised(result{benchmark: "gpqa_diamond", unit: "percent", score: 60}) * aging; !(math.Abs(top.Value-want) <= 1e-9) || top.Value < 0.9 {
		t.Errorf("full field: quality %.4f, want %.4f", top.Value, want)
	}
	// m4-plus has the same GPQA result and a lone one: the lone one does not move it.
	if plus := qi.quality("m4-plus", "llm"); !(math.Abs(plus.Value-top.Value) <= 1e-9) {
		t.Errorf("a lone result beside a full-field one moved the quality: %.4f vs %.4f", plus.Value, top.Value)
	}
	// Blending: half a full weight of evidence is half the neutral value.
	if got := thinBlend(0.25*0.8, 0.25, 1); !(math.Abs(got-(0.25*0.8+0.25*0.5)/0.5) <= 1e-12) {
		t.Errorf("thinBlend = %v", got)
	}
}

// TestLineupPlaces: a model its provider's lineup places above another (a higher tier on the same page, a later
// generation of the same line) never scores below it, and the reason says so; tiers of different pages are not
// compared.
func TestLineupPlaces(t *testing.T) {
	for id, want := range map[string]string{"claude-opus-5-5": "claude-opus-*", "gpt-6-2-astra": "gpt-*-astra", "kimi-k3": "", "llama-3-3-70b-instruct": "llama-*-70b-instruct"} {
		if line, _, _ := lineOf(id); line != want {
			t.Errorf("lineOf(%q) = %q, want %q", id, line, want)
		}
	}
	if _, a, _ := lineOf("command-r-08-2024"); slices.Compare(a, []int{2024, 8}) != 0 {
		t.Errorf("a month-year generation orders by year first: %v", a)
	}
	page := func(tr, src string) *api.LineupTier {
		return &api.LineupTier{Tier: api.LineupTierTier(tr), Source: src}
	}
	recs := []seeds.BenchmarkRecord{
		{ProviderId: "anthropic", ModelId: "claude-opus-5", Tier: page("balanced", "overview-5"), Evidence: []api.BenchmarkEvidence{
			evidence("swe_bench_pro", "code", 79.2, "2026-07-24", true)}},
		{ProviderId: "anthropic", ModelId: "claude-opus-5-5", Tier: page("balanced", "overview-5-2")},
		{ProviderId: "anthropic", ModelId: "claude-fable-5-2", Tier: page("flagship", "overview-5-2")},
		{ProviderId: "anthropic", ModelId: "claude-haiku-5-5", Tier: page("fast", "overview-5-2")},
		// Last year's flagship on another page is not placed above this year's balanced model.
		{ProviderId: "anthropic", ModelId: "claude-titan-3", Tier: page("flagship", "overview-3"), Evidence: []api.BenchmarkEvidence{
			evidence("swe_bench_pro", "code", 40, "2025-01", false)}},
	}
	for i, s := range []float64{50, 55, 60, 65} { // a field of five on SWE-bench Pro
		recs = append(recs, seeds.BenchmarkRecord{ProviderId: "x", ModelId: "other-" + strconv.Itoa(i), Evidence: []api.BenchmarkEvidence{
			evidence("swe_bench_pro", "code", s, "2026-07", false)}})
	}
	qi := newQualityIndex(recs, "2026-11-28")
	opus, opus55, fable, haiku := qi.quality("claude-opus-5", "code"), qi.quality("claude-opus-5-5", "code"),
		qi.quality("claude-fable-5-2", "code"), qi.quality("claude-haiku-5-5", "code")
	if opus.Above != "" || !(opus55.Value > opus.Value && fable.Value > opus55.Value) {
		t.Errorf("opus 5 %.4f, opus 5.5 %.4f, fable 5.2 %.4f: the lineup order is not kept", opus.Value, opus55.Value, fable.Value)
	}
	if math.Abs(fable.Value-(opus.Value+2*lineupStep)) > 1e-9 || fable.Above != "claude-opus-5" || fable.Steps != 2 {
		t.Errorf("fable 5.2 = %+v, want claude-opus-5's quality plus two places", fable)
	}
	want := "no published result; Anthropic's lineup places it above claude-opus-5 (quality " +
		strconv.FormatFloat(round2(opus.Value*100), 'f', -1, 64) + ": SWE-bench Pro 79.2, self-reported, 2026-07), plus 2 points, 1 per place"
	if !strings.Contains(fable.phrase(), want) {
		t.Errorf("reason %q, want it to contain %q", fable.phrase(), want)
	}
	// Haiku 5.5 is below them all: its tier stands; the old flagship of another page places nothing.
	if haiku.Above != "" || haiku.FromTier != "fast" {
		t.Errorf("haiku 5.5 = %+v", haiku)
	}
	if titan := qi.quality("claude-titan-3", "code"); titan.Above != "" {
		t.Errorf("a flagship of another page is placed above this year's models: %+v", titan)
	}
	if !qi.placedAboveCoder("claude-fable-5-2") || qi.placedAboveCoder("claude-haiku-5-5") {
		t.Error("code candidacy by lineup place")
	}
}

// TestEveryServedBenchmarkHasAName: reasons name the evidence ("SWE-bench Verified 78.2, ..."); a benchmark ID
// added to the quality sources without a display name would reach callers as a snake-case ID.
func TestEveryServedBenchmarkHasAName(t *testing.T) {
	recs, err := seeds.BenchmarkRecords()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range recs {
		for _, e := range r.Evidence {
			seen++
			if _, ok := benchmarkNames[e.Benchmark]; !ok {
				t.Errorf("%s/%s: benchmark %q has no name in benchmarkNames", r.ProviderId, r.ModelId, e.Benchmark)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no evidence in the benchmark catalog: the check checks nothing")
	}
}

// TestFailoverComparableFirst: a model of another family below comparableShare of the reference's quality ranks
// after the comparable ones, however cheap, and its reason does not call it comparable.
func TestFailoverComparableFirst(t *testing.T) {
	caps := seeds.ModelCapabilities{FunctionCalling: capYes, JsonMode: capYes, Vision: capYes}
	var c Catalogs
	add := func(p, m string, in float64, score float64) {
		c.Pricing = append(c.Pricing, seeds.PricingRecord{ProviderId: p, Model: m, Task: "llm", Pricing: rates(f(in), f(5*in), nil)})
		c.Models = append(c.Models, seeds.ModelRecord{ProviderId: p, ModelId: m, Task: "llm", ContextWindow: iptr(200000), Capabilities: caps})
		c.Benchmarks = append(c.Benchmarks, seeds.BenchmarkRecord{ProviderId: p, ModelId: m,
			Evidence: []api.BenchmarkEvidence{evidence("gpqa_diamond", "llm", score, "2026-10", false)}})
	}
	add("anthropic", "claude-opus-5", 5, 90)
	add("openai", "gpt-6", 2.5, 88)
	add("together", "tiny-free-27b", 0, 70) // 70 < 0.8 × 90
	c.Today = "2026-11-28"
	ix, err := Build(seeds.Providers(), c)
	if err != nil {
		t.Fatal(err)
	}
	live := Statuses{"anthropic": down(), "openai": op(100), "together": op(100)}
	chain, _, err := ix.Failover(FailoverQuery{Primary: "anthropic", Limit: 10}, live)
	if err != nil || len(chain) != 2 {
		t.Fatalf("chain %v, %v", chainOf(chain), err)
	}
	if chain[0].Model != "gpt-6" || !strings.Contains(chain[0].Reason, "a comparable model of another family") {
		t.Errorf("first: %s %q", chain[0].Model, chain[0].Reason)
	}
	if chain[1].Model != "tiny-free-27b" || !strings.Contains(chain[1].Reason, "of lower or unknown quality than claude-opus-5") {
		t.Errorf("second: %s %q", chain[1].Model, chain[1].Reason)
	}
}
