package impl_test

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// liveCheck is one provider's latest observation.
type liveCheck struct {
	status parse.Status
	rt     float64
}

// recordStatuses records one check per provider two minutes before now, through the poller's state machine as
// the poll cycle does, and returns a health view loaded from the store.
func recordStatuses(tb testing.TB, st store.Store, now time.Time, checks map[string]liveCheck) *health.View {
	tb.Helper()
	n := 0
	for id, c := range checks {
		at := now.Add(-2 * time.Minute)
		fx := poller.Step(nil, nil, poller.Observation{ProviderID: id, ProviderName: id, At: at, Status: c.status},
			func() string { n++; return fmt.Sprintf("00000000-0000-4000-9000-%012d", n) })
		rt := c.rt
		if _, err := st.RecordCheckResult(context.Background(), store.CheckResult{
			Check: store.Check{ProviderID: id, CheckedAt: at, Outcome: store.Outcome(c.status), ResponseTimeMs: &rt},
			State: fx.State, Change: fx.Change, NewIncident: fx.NewIncident, UpdatedIncident: fx.UpdatedIncident, Events: fx.Events,
		}); err != nil {
			tb.Fatal(err)
		}
	}
	view := health.New(st, health.Options{})
	if err := view.Refresh(context.Background(), time.Now()); err != nil {
		tb.Fatal(err)
	}
	return view
}

// decisionStatuses: a realistic mix. groq is down, anthropic degraded, the rest of these operational; every
// other provider is unknown (never polled).
var decisionStatuses = map[string]liveCheck{
	"openai": {parse.Operational, 180}, "anthropic": {parse.Degraded, 3500}, "groq": {parse.Outage, 900},
	"mistral": {parse.Operational, 400}, "deepseek": {parse.Operational, 250}, "together": {parse.Operational, 300},
	"google-gemini": {parse.Operational, 220}, "cerebras": {parse.Operational, 150},
}

// TestDecisionEndpoints runs the nine decision endpoints on every engine; apitest validates every answer against
// the OpenAPI document.
func TestDecisionEndpoints(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, _ := e.Open(t)
			view := recordStatuses(t, st, time.Now().UTC(), decisionStatuses)
			s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Health: view})})
			t.Run("Pick", func(t *testing.T) { testPick(t, s) })
			t.Run("Failover", func(t *testing.T) { testFailover(t, s) })
			t.Run("FailoverExport", func(t *testing.T) { testFailoverExport(t, s) })
			t.Run("Recommend", func(t *testing.T) { testRecommend(t, s) })
			t.Run("Compare", func(t *testing.T) { testCompare(t, s) })
			t.Run("Cheapest", func(t *testing.T) { testCheapest(t, s) })
			t.Run("CostEstimate", func(t *testing.T) { testCostEstimate(t, s) })
			t.Run("TaskCost", func(t *testing.T) { testTaskCost(t, s) })
			t.Run("CostForecast", func(t *testing.T) { testCostForecast(t, s) })
			t.Run("QuotaCheck", func(t *testing.T) { testQuotaCheck(t, s) })
			t.Run("Errors", func(t *testing.T) { testDecisionErrors(t, s) })
			t.Run("Defaults", func(t *testing.T) { testDecisionDefaults(t, s) })
		})
	}
}

var statusBand = map[api.ProviderStatus]int{api.ProviderStatusOperational: 3, api.ProviderStatusDegraded: 2, api.ProviderStatusUnknown: 1}

func testPick(t *testing.T, s *apitest.Server) {
	var p api.PickResponse
	get(t, s, "/api/v1/pick?task=llm", &p)
	if p.Pick == nil || p.Pick.Status != api.ProviderStatusOperational || len(p.RunnersUp) != 2 || p.Pick.Reason == "" {
		t.Fatalf("pick = %+v", p)
	}
	all := append([]api.PickEntry{*p.Pick}, p.RunnersUp...)
	stages, err := seeds.Stages()
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range all {
		if e.ProviderId == "groq" || (i > 0 && e.Score > all[i-1].Score) {
			t.Errorf("entry %d = %+v", i, e)
		}
		// A generally available, priced model: never an experimental build at an unknown price.
		if stage := stages[e.ProviderId+"/"+e.Model]; stage != "ga" || e.InputPer1mUsd == nil {
			t.Errorf("entry %d = %s/%s, stage %q, input price %v: want a generally available, priced model", i, e.ProviderId, e.Model, stage, e.InputPer1mUsd)
		}
	}
	get(t, s, "/api/v1/pick?task=llm&needs=vision,function_calling&min_context=100000&budget=5&avoid=openai", &p)
	for _, e := range append([]api.PickEntry{*p.Pick}, p.RunnersUp...) {
		if e.ProviderId == "openai" || !isTrue(e.Capabilities.Vision) || !isTrue(e.Capabilities.FunctionCalling) || e.ContextWindow == nil ||
			*e.ContextWindow < 100000 || e.InputPer1mUsd == nil || *e.InputPer1mUsd > 5 {
			t.Errorf("constraints not honoured: %+v", e)
		}
	}
	get(t, s, "/api/v1/pick?task=llm&free_only=true", &p)
	if p.Pick == nil {
		t.Fatal("no free pick")
	}
	// A degraded provider ranks below every operational one (anthropic is degraded; avoid the others that qualify).
	get(t, s, "/api/v1/pick?task=llm&min_context=150000&needs=vision", &p)
	all = append([]api.PickEntry{*p.Pick}, p.RunnersUp...)
	for i := 1; i < len(all); i++ {
		if statusBand[all[i].Status] > statusBand[all[i-1].Status] {
			t.Errorf("%s after %s", all[i].Status, all[i-1].Status)
		}
	}
	r := s.Get("/api/v1/pick?task=llm&min_context=100000000&budget=0.1")
	if r.Status != 404 || !strings.Contains(r.Error(t), "with context >= 100000000") || !strings.Contains(r.Error(t), "left none") {
		t.Errorf("nothing qualifies = %d %s", r.Status, r.Body)
	}
}

func testFailover(t *testing.T, s *apitest.Server) {
	var f api.FailoverResponse
	get(t, s, "/api/v1/failover?primary=openai&task=llm&limit=10", &f)
	if f.Primary != "openai" || len(f.FailoverChain) != 10 {
		t.Fatalf("failover = %+v", f)
	}
	if f.Model == nil || *f.Model == "" || f.Scope != api.FailoverResponseScopeProvider {
		t.Errorf("reference model %v, scope %q", f.Model, f.Scope)
	}
	routed := false
	for i, e := range f.FailoverChain {
		if e.ProviderId == "openai" || e.ProviderId == "groq" || e.Status == api.ProviderStatusOutage || e.Reason == "" || e.Model == "" ||
			e.UnitPriceUsd == nil {
			t.Errorf("entry %+v", e)
		}
		// Backups that route to the primary's infrastructure come last.
		shares := slices.Contains(e.FailureDomain.Shares, api.FailureDomainSharesInfrastructure)
		if routed && !shares {
			t.Errorf("an independent backup after one routed to the primary at %d", i)
		}
		routed = routed || shares
	}
	// The caller's model: OpenAI announced gpt-5's shutdown for 2026-12-11 with gpt-6.1-sol as its replacement
	// (deprecations catalog); the note says so, and no backup is a model shutting down within 30 days.
	get(t, s, "/api/v1/failover?primary=openai&model=gpt-5&scope=model&limit=10", &f)
	verb := "shuts down on"
	if time.Now().UTC().Format(time.DateOnly) >= "2026-12-11" {
		verb = "was shut down on"
	}
	if f.Note == nil || *f.Note != "gpt-5 at openai "+verb+" 2026-12-11; its provider names gpt-6.1-sol as the replacement." ||
		f.Model == nil || *f.Model != "gpt-5" || f.Scope != api.FailoverResponseScopeModel {
		t.Errorf("failover for gpt-5: note %v, model %v, scope %q", f.Note, f.Model, f.Scope)
	}
	for _, e := range f.FailoverChain {
		if strings.TrimPrefix(e.Model, "openai/") == "gpt-5" {
			t.Errorf("scope=model offers the withdrawn model: %+v", e)
		}
	}
	for path, want := range map[string]int{
		"/api/v1/failover?primary=openai&model=no-such-model": 404, "/api/v1/failover?primary=openai&scope=region": 400,
		"/api/v1/failover/export?primary=openai&format=litellm&model=no-such-model": 404,
		"/api/v1/pick?task=llm&prefer=fast":                                         400, "/api/v1/pick?task=llm&min_quality=101": 400,
	} {
		if r := s.Get(path); r.Status != want || !strings.Contains(r.Error(t), "parameter") {
			t.Errorf("GET %s = %d %s, want %d naming the parameter", path, r.Status, r.Body, want)
		}
	}
	var p api.PickResponse
	for _, prefer := range []string{"quality", "balanced", "cost&min_quality=10"} {
		get(t, s, "/api/v1/pick?task=code&prefer="+prefer, &p)
		if p.Pick == nil || p.Pick.Quality == nil || *p.Pick.Quality < 0 || !strings.Contains(p.Pick.Reason, "quality ") {
			t.Errorf("pick code prefer=%s: %+v", prefer, p.Pick)
		}
	}
	get(t, s, "/api/v1/failover?primary=openai&max_cost_per_1m=0.1", &f)
	if len(f.FailoverChain) != 5 {
		t.Errorf("default limit: %d entries", len(f.FailoverChain))
	}
	for _, e := range f.FailoverChain {
		if e.InputPer1mUsd == nil || *e.InputPer1mUsd > 0.1 {
			t.Errorf("over max_cost: %+v", e)
		}
	}
}

func testRecommend(t *testing.T, s *apitest.Server) {
	var r api.RecommendResponse
	get(t, s, "/api/v1/recommend?task=llm&limit=20", &r)
	if len(r.Recommendations) != 6 { // openai, mistral, deepseek, together, google-gemini, cerebras
		t.Fatalf("recommend = %+v", r)
	}
	for _, e := range r.Recommendations {
		if e.Status != api.ProviderStatusOperational || e.Name == "" {
			t.Errorf("entry %+v", e)
		}
	}
	get(t, s, "/api/v1/recommend?free_only=true&avoid=cerebras", &r)
	for _, e := range r.Recommendations {
		if e.Id == "cerebras" || !strings.Contains(e.Reason, "free tier") || strings.Contains(e.Reason, "no free tier") {
			t.Errorf("free_only/avoid: %+v", e)
		}
	}
}

func testCompare(t *testing.T, s *apitest.Server) {
	var c api.CompareResponse
	get(t, s, "/api/v1/compare?providers=openai,groq,writer", &c)
	o := c.Comparison["openai"]
	if len(c.Comparison) != 3 || o.Status == nil || *o.Status != api.ProviderStatusOperational || num(o.ResponseTimeMs) != "180" ||
		o.Pricing == nil || o.Models == nil || len(*o.Models) == 0 || o.RateLimits == nil {
		t.Fatalf("compare = %+v", c)
	}
	if w := c.Comparison["writer"]; w.Pricing != nil || *w.Status != api.ProviderStatusUnknown {
		t.Errorf("writer = %+v", w)
	}
	r := get(t, s, "/api/v1/compare?providers=openai,groq&metrics=price,models", &c)
	if g := c.Comparison["groq"]; g.Status != nil || g.ResponseTimeMs != nil || g.Pricing == nil || g.Benchmarks != nil || g.RateLimits != nil || g.Models == nil {
		t.Errorf("metrics selection = %+v", g)
	}
	if !strings.Contains(string(r.Body), `"status":null`) {
		t.Errorf("unrequested metric not null: %s", r.Body)
	}
}

func testCheapest(t *testing.T, s *apitest.Server) {
	var c api.CheapestResponse
	get(t, s, "/api/v1/cheapest?task=llm", &c)
	if len(c.Results) != 5 {
		t.Fatalf("cheapest = %+v", c)
	}
	live := map[string]bool{}
	for id, l := range decisionStatuses {
		live[id] = l.status == parse.Operational
	}
	for i, r := range c.Results {
		if !live[r.ProviderId] || r.Status != api.ProviderStatusOperational {
			t.Errorf("not operational: %+v", r)
		}
		// input 1,000,000 and output 500,000 tokens by default.
		want := *r.InputPer1mUsd
		if r.OutputPer1mUsd != nil {
			want += *r.OutputPer1mUsd / 2
		}
		if math.Abs(r.EstimatedCostUsd-want) > 1e-6 {
			t.Errorf("cost %v, want %v", r.EstimatedCostUsd, want)
		}
		if i > 0 && r.EstimatedCostUsd < c.Results[i-1].EstimatedCostUsd {
			t.Errorf("not sorted at %d", i)
		}
	}
	get(t, s, "/api/v1/cheapest?task=llm&min_quality=mmlu:80&limit=20", &c)
	for _, r := range c.Results {
		if r.QualityScore["mmlu"] < 80 {
			t.Errorf("min_quality: %+v", r)
		}
	}
}

func testCostEstimate(t *testing.T, s *apitest.Server) {
	var e api.CostEstimateResponse
	get(t, s, "/api/v1/cost-estimate?provider=openai&input_tokens=3000000&output_tokens=1000000&cached_tokens=1000000", &e)
	out := 0.0
	if e.Rates.OutputPer1mUsd != nil {
		out = *e.Rates.OutputPer1mUsd
	}
	in := e.Rates.InputPer1mUsd
	// The discount is the model's served cached-input price against its input price, or 50% where none is served.
	var pr api.PricingResponse
	get(t, s, "/api/v1/pricing?provider=openai", &pr)
	wantD := -1.0
	for _, r := range pr.Pricing {
		if r.Model == e.Model && r.Pricing.InputPer1mTokens != nil && *r.Pricing.InputPer1mTokens == in {
			wantD = 0.5
			if c := r.Pricing.CachedInputPer1mTokens; c != nil {
				wantD = 1 - *c/in
			}
		}
	}
	d := e.Rates.CacheDiscountPct / 100
	near := func(a, b float64) bool { return math.Abs(a-b) < 2e-6 }
	if e.Provider != "openai" || !near(d, wantD) || e.Breakdown.InputCostUsd != round6(2*in) ||
		!near(e.Breakdown.CachedCostUsd, in*(1-d)) || e.Breakdown.OutputCostUsd != round6(out) || !near(e.CacheSavingsUsd, in*d) ||
		e.EstimatedTotalUsd != round6(e.Breakdown.InputCostUsd+e.Breakdown.CachedCostUsd+e.Breakdown.OutputCostUsd) {
		t.Errorf("estimate = %+v", e)
	}
	seen := map[string]bool{}
	for _, a := range e.CheaperAlternatives {
		if a.ProviderId == "openai" || a.ProviderId == "groq" || a.EstimatedTotalUsd >= e.EstimatedTotalUsd || seen[a.ProviderId] {
			t.Errorf("alternative %+v", a)
		}
		seen[a.ProviderId] = true
	}
	get(t, s, "/api/v1/cost-estimate?provider=anthropic&model=OPUS&input_tokens=1000&output_tokens=0", &e)
	if !strings.Contains(e.Model, "opus") {
		t.Errorf("model filter: %+v", e)
	}
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func testTaskCost(t *testing.T, s *apitest.Server) {
	var tc api.TaskCostResponse
	get(t, s, "/api/v1/task-cost?task_type=chat&cached_tokens=5000", &tc)
	if len(tc.ProvidersRanked) != 10 || tc.Meta.CheapestProvider == nil || *tc.Meta.CheapestProvider != tc.ProvidersRanked[0].ProviderId {
		t.Fatalf("task-cost = %+v", tc)
	}
	seen := map[string]bool{}
	for i, r := range tc.ProvidersRanked {
		if r.Rank != i+1 || seen[r.ProviderId] || math.Abs(r.InputCostUsd+r.OutputCostUsd-r.EstimatedCostUsd) > 1e-9 {
			t.Errorf("entry %+v", r)
		}
		seen[r.ProviderId] = true
	}
	// Search is priced per request: one task is one request, its price the input cost.
	get(t, s, "/api/v1/task-cost?task_type=search", &tc)
	if len(tc.ProvidersRanked) == 0 || tc.Meta.CheapestProvider == nil || *tc.Meta.CheapestProvider != tc.ProvidersRanked[0].ProviderId {
		t.Fatalf("search = %+v", tc)
	}
	for _, r := range tc.ProvidersRanked {
		if r.PriceUnit != api.PriceUnitRequest || r.InputPer1mUsd != nil || r.EstimatedCostUsd != r.UnitPriceUsd || r.InputCostUsd != r.UnitPriceUsd {
			t.Errorf("search entry %+v", r)
		}
	}
}

func testCostForecast(t *testing.T, s *apitest.Server) {
	var f api.CostForecastResponse
	get(t, s, "/api/v1/cost-forecast?cache_hit_rate=0.5&task=all&limit=50", &f)
	if len(f.Forecasts) != 50 || f.UsageProfile.RequestsPerDay != 100 || f.UsageProfile.AvgInputTokens != 2000 || f.UsageProfile.CacheHitRate != 0.5 {
		t.Fatalf("forecast = %+v", f.UsageProfile)
	}
	for _, r := range f.Forecasts {
		if r.WeeklyCost != round6(7*r.DailyCost) || r.YearlyCost != round6(365*r.DailyCost) || (!r.Pricing.CachingAvailable && r.CostBreakdown.CacheSavingsPerDay != 0) {
			t.Errorf("forecast %+v", r)
		}
	}
}

func testQuotaCheck(t *testing.T, s *apitest.Server) {
	var q api.QuotaCheckResponse
	get(t, s, "/api/v1/quota-check?provider=groq&planned_rpm=40&planned_tpm=1000", &q)
	if q.Tier != "free" || q.Verdict != api.QuotaCheckResponseVerdictExceeds || q.Details.Rpm.Status != api.QuotaDetailStatusExceeds ||
		q.Details.Tpm.Status != api.QuotaDetailStatusSafe || len(q.Suggestions) == 0 {
		t.Fatalf("quota = %+v", q)
	}
	for _, sg := range q.Suggestions {
		if sg.ProviderId == "groq" || sg.Rpm == nil || *sg.Rpm < 40 {
			t.Errorf("suggestion %+v", sg)
		}
	}
	get(t, s, "/api/v1/quota-check?provider=openai&planned_rpm=40", &q)
	if q.Verdict != api.QuotaCheckResponseVerdictUnknown || len(q.MissingLimits) != 1 || q.MissingLimits[0] != api.QuotaCheckResponseMissingLimitsRpm ||
		q.Details.Rpm.Status != api.QuotaDetailStatusUnknown || q.Limits.Rpm != nil || len(q.Suggestions) != 0 {
		t.Errorf("unknown limits = %+v", q)
	}
}

// testDecisionErrors: 400 for every bad parameter, 404 for unknown providers, each naming the parameter.
func testDecisionErrors(t *testing.T, s *apitest.Server) {
	cases := []struct {
		path   string
		status int
		param  string
	}{
		{"/pick", 400, "task"},
		{"/pick?task=poetry", 400, "task"},
		{"/pick?task=llm&budget=-1", 400, "budget"},
		{"/pick?task=llm&budget=abc", 400, "budget"},
		{"/pick?task=llm&min_context=-5", 400, "min_context"},
		{"/pick?task=llm&needs=telepathy", 400, "needs"},
		{"/pick?task=llm&free_only=maybe", 400, "free_only"},
		{"/pick?task=llm&avoid=nope", 404, "avoid"},
		{"/failover", 400, "primary"},
		{"/failover?primary=openai&limit=11", 400, "limit"},
		{"/failover?primary=openai&limit=0", 400, "limit"},
		{"/failover?primary=openai&task=poetry", 400, "task"},
		{"/failover?primary=openai&max_cost_per_1m=-1", 400, "max_cost_per_1m"},
		{"/failover?primary=nope", 404, "primary"},
		{"/recommend?limit=21", 400, "limit"},
		{"/recommend?task=poetry", 400, "task"},
		{"/recommend?free_only=1x", 400, "free_only"},
		{"/recommend?avoid=openai,nope", 404, "avoid"},
		{"/compare", 400, "providers"},
		{"/compare?providers=openai", 400, "providers"},
		{"/compare?providers=a,b,c,d,e,f,g,h,i,j,k", 400, "providers"},
		{"/compare?providers=openai,openai", 400, "providers"},
		{"/compare?providers=openai,groq&metrics=vibes", 400, "metrics"},
		{"/compare?providers=openai,nope", 404, "providers"},
		{"/cheapest", 400, "task"},
		{"/cheapest?task=llm&input_tokens=-1", 400, "input_tokens"},
		{"/cheapest?task=llm&output_tokens=x", 400, "output_tokens"},
		{"/cheapest?task=llm&limit=21", 400, "limit"},
		{"/cheapest?task=llm&min_quality=mmlu", 400, "min_quality"},
		{"/cheapest?task=llm&min_quality=vibes:80", 400, "min_quality"},
		{"/cheapest?task=llm&min_quality=mmlu:101", 400, "min_quality"},
		{"/cost-estimate?input_tokens=1&output_tokens=1", 400, "provider"},
		{"/cost-estimate?provider=openai&output_tokens=1", 400, "input_tokens"},
		{"/cost-estimate?provider=openai&input_tokens=1", 400, "output_tokens"},
		{"/cost-estimate?provider=openai&input_tokens=1&output_tokens=1&cached_tokens=2", 400, "cached_tokens"},
		{"/cost-estimate?provider=openai&input_tokens=1&output_tokens=1&cached_tokens=-2", 400, "cached_tokens"},
		{"/cost-estimate?provider=nope&input_tokens=1&output_tokens=1", 404, "provider"},
		{"/cost-estimate?provider=openai&input_tokens=1&output_tokens=1&model=zzzz", 404, "model"},
		{"/task-cost", 400, "task_type"},
		{"/task-cost?task_type=poetry", 400, "task_type"},
		{"/task-cost?task_type=chat&input_tokens=-1", 400, "input_tokens"},
		{"/task-cost?task_type=chat&output_tokens=-1", 400, "output_tokens"},
		{"/task-cost?task_type=chat&cached_tokens=20000", 400, "cached_tokens"},
		{"/task-cost?task_type=chat&limit=51", 400, "limit"},
		{"/task-cost?task_type=chat&free_only=yes", 400, "free_only"},
		{"/cost-forecast?requests_per_day=-1", 400, "requests_per_day"},
		{"/cost-forecast?avg_input_tokens=-1", 400, "avg_input_tokens"},
		{"/cost-forecast?avg_output_tokens=x", 400, "avg_output_tokens"},
		{"/cost-forecast?cache_hit_rate=1.5", 400, "cache_hit_rate"},
		{"/cost-forecast?task=poetry", 400, "task"},
		{"/cost-forecast?limit=0", 400, "limit"},
		{"/quota-check", 400, "provider"},
		{"/quota-check?provider=groq&tier=tier9", 400, "tier"},
		{"/quota-check?provider=groq&planned_rpm=-1", 400, "planned_rpm"},
		{"/quota-check?provider=groq&planned_tpm=x", 400, "planned_tpm"},
		{"/quota-check?provider=nope", 404, "provider"},
	}
	for _, c := range cases {
		r := s.Get("/api/v1" + c.path)
		if r.Status != c.status || !strings.Contains(r.Error(t), c.param) {
			t.Errorf("GET %s = %d %s, want %d naming %s", c.path, r.Status, r.Body, c.status, c.param)
		}
	}
}

// testDecisionDefaults checks that every default of the document is what the handler applies: the answer
// without the parameter equals the answer with the document's default written out.
func testDecisionDefaults(t *testing.T, s *apitest.Server) {
	base := map[string]string{
		"/failover": "primary=openai", "/recommend": "", "/compare": "providers=openai,groq", "/cheapest": "task=llm",
		"/cost-estimate": "provider=openai&input_tokens=1000&output_tokens=1000", "/task-cost": "task_type=chat",
		"/cost-forecast": "", "/quota-check": "provider=groq&planned_rpm=10", "/pick": "task=llm",
	}
	n := 0
	for path, q := range base {
		op := s.Doc.Paths.Value(path).Get
		for _, p := range op.Parameters {
			d := p.Value.Schema.Value.Default
			if d == nil || strings.Contains("&"+q, "&"+p.Value.Name+"=") {
				continue
			}
			var v string
			switch d := d.(type) {
			case []any:
				parts := make([]string, len(d))
				for i, x := range d {
					parts[i] = fmt.Sprint(x)
				}
				v = strings.Join(parts, ",")
			case float64:
				v = fmt.Sprint(int64(d))
				if d != math.Trunc(d) || p.Value.Schema.Value.Type.Is("number") {
					v = fmt.Sprint(d)
				}
			default:
				v = fmt.Sprint(d)
			}
			without := s.Get("/api/v1" + path + "?" + q)
			with := s.Get("/api/v1" + path + "?" + strings.TrimPrefix(q+"&"+p.Value.Name+"="+url.QueryEscape(v), "&"))
			if without.Status != 200 || with.Status != 200 || string(without.Body) != string(with.Body) {
				t.Errorf("%s default %s=%s: %d vs %d\n%s\n%s", path, p.Value.Name, v, without.Status, with.Status, without.Body, with.Body)
			}
			n++
		}
	}
	if n < 15 {
		t.Errorf("only %d defaults checked", n)
	}
}

// BenchmarkDecisionHandlers times each handler on its default query over the real catalogs, with every provider
// operational (the largest candidate field for cheapest and recommend).
func BenchmarkDecisionHandlers(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite://"+b.TempDir()+"/bench.db", store.Options{Migrate: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	checks := map[string]liveCheck{}
	for i, p := range seeds.Providers().All() {
		checks[p.ID] = liveCheck{parse.Operational, float64(100 + 10*i)}
	}
	srv := impl.New(impl.Deps{Store: st, Health: recordStatuses(b, st, time.Now().UTC(), checks)})
	cases := []struct {
		name string
		call func() (any, error)
	}{
		{"pick", func() (any, error) {
			return srv.GetPick(ctx, api.GetPickRequestObject{Params: api.GetPickParams{Task: api.TaskLlm}})
		}},
		{"failover", func() (any, error) {
			return srv.GetFailover(ctx, api.GetFailoverRequestObject{Params: api.GetFailoverParams{Primary: "openai"}})
		}},
		{"recommend", func() (any, error) { return srv.GetRecommend(ctx, api.GetRecommendRequestObject{}) }},
		{"compare", func() (any, error) {
			return srv.GetCompare(ctx, api.GetCompareRequestObject{Params: api.GetCompareParams{Providers: []string{"openai", "anthropic"}}})
		}},
		{"cheapest", func() (any, error) {
			return srv.GetCheapest(ctx, api.GetCheapestRequestObject{Params: api.GetCheapestParams{Task: api.TaskLlm}})
		}},
		{"cost-estimate", func() (any, error) {
			return srv.GetCostEstimate(ctx, api.GetCostEstimateRequestObject{Params: api.GetCostEstimateParams{Provider: "openai", InputTokens: 1000000, OutputTokens: 1000000}})
		}},
		{"task-cost", func() (any, error) {
			return srv.GetTaskCost(ctx, api.GetTaskCostRequestObject{Params: api.GetTaskCostParams{TaskType: api.GetTaskCostParamsTaskTypeChat}})
		}},
		{"cost-forecast", func() (any, error) { return srv.GetCostForecast(ctx, api.GetCostForecastRequestObject{}) }},
		{"quota-check", func() (any, error) {
			return srv.GetQuotaCheck(ctx, api.GetQuotaCheckRequestObject{Params: api.GetQuotaCheckParams{Provider: "groq"}})
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if _, err := c.call(); err != nil { // builds the index outside the timing
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPickChoosesGenerallyAvailablePricedModel: with every provider up, as on the simulator, /pick?task=llm
// chooses a generally available model with a known price (never an experimental build at $0).
func TestPickChoosesGenerallyAvailablePricedModel(t *testing.T) {
	st := dbtest.OpenStore(t, "sqlite://"+t.TempDir()+"/pick.db")
	checks := map[string]liveCheck{}
	for _, p := range seeds.Providers().All() {
		checks[p.ID] = liveCheck{parse.Operational, 200}
	}
	view := recordStatuses(t, st, time.Now().UTC(), checks)
	s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Health: view})})
	var body api.PickResponse
	r := s.Get("/api/v1/pick?task=llm")
	if r.Status != 200 {
		t.Fatalf("pick: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &body)
	stages, err := seeds.Stages()
	if err != nil {
		t.Fatal(err)
	}
	if body.Pick == nil {
		t.Fatal("no pick")
	}
	for _, e := range append([]api.PickEntry{*body.Pick}, body.RunnersUp...) {
		if stage := stages[e.ProviderId+"/"+e.Model]; stage != "ga" {
			t.Errorf("pick %s/%s is %q, want ga", e.ProviderId, e.Model, stage)
		}
		if e.InputPer1mUsd == nil {
			t.Errorf("pick %s/%s has no known input price", e.ProviderId, e.Model)
		}
	}
}

// TestPickReplayFollowsTheSnapshot: /pick is marked x-answer-reuse: second, so the HTTP layer replays a repeated
// query within one second and snapshot; a poll cycle that takes the picked provider down is seen at once, in the
// same second, and another query is never answered with a replay of the first.
func TestPickReplayFollowsTheSnapshot(t *testing.T) {
	ctx := context.Background()
	st := dbtest.OpenStore(t, "sqlite://"+t.TempDir()+"/replay.db")
	checks := map[string]liveCheck{}
	for _, p := range seeds.Providers().All() {
		checks[p.ID] = liveCheck{parse.Operational, 200}
	}
	now := time.Now().UTC().Truncate(time.Second)
	view := recordStatuses(t, st, now, checks)
	s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Health: view, Now: func() time.Time { return now }})})
	get := func(q string) (api.PickResponse, string) {
		t.Helper()
		r := s.Get("/api/v1/pick?" + q)
		if r.Status != 200 {
			t.Fatalf("pick?%s: %d %s", q, r.Status, r.Body)
		}
		var body api.PickResponse
		r.Decode(t, &body)
		return body, string(r.Body)
	}
	first, firstRaw := get("task=llm")
	if _, again := get("task=llm"); again != firstRaw {
		t.Errorf("the same query in the same second answered differently:\n%s\n%s", firstRaw, again)
	}
	if _, budget := get("task=llm&budget=0.2"); budget == firstRaw {
		t.Error("a query with a budget got the answer of the query without one")
	}
	down := first.Pick.ProviderId
	states, err := st.ProviderStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var prev *store.ProviderState
	for i := range states {
		if states[i].ProviderID == down {
			prev = &states[i]
		}
	}
	at := now.Add(-time.Minute)
	fx := poller.Step(prev, nil, poller.Observation{ProviderID: down, ProviderName: down, At: at, Status: parse.Outage},
		func() string { return "00000000-0000-4000-9000-999999999999" })
	rt := 900.0
	if _, err := st.RecordCheckResult(ctx, store.CheckResult{
		Check: store.Check{ProviderID: down, CheckedAt: at, Outcome: store.Outcome(parse.Outage), ResponseTimeMs: &rt},
		State: fx.State, Change: fx.Change, NewIncident: fx.NewIncident, UpdatedIncident: fx.UpdatedIncident, Events: fx.Events,
	}); err != nil {
		t.Fatal(err)
	}
	if err := view.Refresh(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	after, _ := get("task=llm")
	if after.Pick.ProviderId == down {
		t.Errorf("after %s went down the pick is still %s/%s (%s)", down, after.Pick.ProviderId, after.Pick.Model, after.Pick.Status)
	}
}
