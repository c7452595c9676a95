package decide

import (
	"slices"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// structIndex has one model per structure: a long-context tier above 200,000 input tokens (anthropic), a
// promotion through 2026-12-31 (google-gemini), off-peak windows (deepseek), and a plain model (groq).
func structIndex(t *testing.T) *Index {
	t.Helper()
	ends := openapi_types.Date{Time: time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)}
	offPeak := func(days []api.PricingTimeWindowDays, from, to string) api.PricingTimeWindow {
		return api.PricingTimeWindow{Label: api.PricingTimeWindowLabelOffPeak, Days: days, FromUtc: from, ToUtc: to,
			InputPer1m: 0.5, OutputPer1m: f(1), CachedInputPer1m: f(0.05)}
	}
	weekdays := []api.PricingTimeWindowDays{"mon", "tue", "wed", "thu", "fri"}
	ix, err := Build(seeds.Providers(), Catalogs{Pricing: []seeds.PricingRecord{
		{ProviderId: "anthropic", Model: "long", Task: "llm", Pricing: rates(f(1), f(5), f(0.1)),
			LongContext: &api.PricingLongContext{ThresholdTokens: 200000, InputPer1m: 2, OutputPer1m: f(7.5), CachedInputPer1m: f(0.2)}},
		{ProviderId: "google-gemini", Model: "promo", Task: "llm", Pricing: rates(f(1.5), f(7.5), nil),
			Promotion: &api.PricingPromotion{InputPer1m: 0.75, OutputPer1m: f(3.75), Ends: ends, Note: "n", Source: "s"}},
		{ProviderId: "deepseek", Model: "peak", Task: "llm", Pricing: rates(f(1), f(2), f(0.1)),
			TimeOfDay: &api.PricingTimeOfDay{Note: "n", Source: "s", Windows: []api.PricingTimeWindow{
				offPeak(weekdays, "00:00", "01:00"), offPeak(weekdays, "10:00", "24:00"),
				offPeak([]api.PricingTimeWindowDays{"sat", "sun"}, "00:00", "24:00")}}},
		{ProviderId: "groq", Model: "plain", Task: "llm", Pricing: rates(f(1), f(1), nil)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestCostEstimateStructures(t *testing.T) {
	ix := structIndex(t)
	wed := "2026-12-02T" // a Wednesday
	cases := []struct {
		name            string
		provider        string
		in, out, cached uint64
		when            time.Time
		total, inPrice  float64
		applied         []string
	}{
		// Long context: a request of exactly the threshold is standard; one token more bills every token high.
		{"at threshold", "anthropic", 200000, 1000, 0, at(wed + "12:00:00Z"), 0.2 + 0.005, 1, []string{}},
		{"above threshold", "anthropic", 200001, 1000, 0, at(wed + "12:00:00Z"), 0.400002 + 0.0075, 2, []string{"long_context"}},
		{"above threshold, cached", "anthropic", 300000, 0, 100000, at(wed + "12:00:00Z"), 0.4 + 0.02, 2, []string{"long_context", "cached_input"}},
		{"below, cached", "anthropic", 100000, 0, 50000, at(wed + "12:00:00Z"), 0.05 + 0.005, 1, []string{"cached_input"}},
		// Promotion: in force through the last second of its end day (UTC), over from the next.
		{"promotion on", "google-gemini", 1_000_000, 1_000_000, 0, at("2026-11-28T08:00:00Z"), 0.75 + 3.75, 0.75, []string{"promotion until 2026-12-31"}},
		{"promotion last second", "google-gemini", 1_000_000, 0, 0, at("2026-12-31T23:59:59Z"), 0.75, 0.75, []string{"promotion until 2026-12-31"}},
		{"promotion over", "google-gemini", 1_000_000, 0, 0, at("2027-01-01T00:00:00Z"), 1.5, 1.5, []string{}},
		{"promotion, other zone", "google-gemini", 1_000_000, 0, 0, at("2027-01-01T01:00:00+02:00"), 0.75, 0.75, []string{"promotion until 2026-12-31"}},
		{"no clock", "google-gemini", 1_000_000, 0, 0, time.Time{}, 1.5, 1.5, []string{}},
		{"no cached price", "google-gemini", 1_000_000, 0, 400000, at("2027-02-01T00:00:00Z"), 0.9 + 0.3, 1.5, []string{"cache_discount_50"}},
		// Time of day: windows include their start and exclude their end.
		{"peak before window end", "deepseek", 1_000_000, 0, 0, at(wed + "00:59:59Z"), 0.5, 0.5, []string{"off_peak"}},
		{"peak at window end", "deepseek", 1_000_000, 0, 0, at(wed + "01:00:00Z"), 1, 1, []string{}},
		{"window start", "deepseek", 1_000_000, 0, 0, at(wed + "10:00:00Z"), 0.5, 0.5, []string{"off_peak"}},
		{"last minute of day", "deepseek", 1_000_000, 0, 0, at(wed + "23:59:00Z"), 0.5, 0.5, []string{"off_peak"}},
		{"weekend", "deepseek", 1_000_000, 0, 0, at("2026-12-05T09:00:00Z"), 0.5, 0.5, []string{"off_peak"}},
		{"off-peak cached", "deepseek", 1_000_000, 0, 1_000_000, at("2026-12-05T09:00:00Z"), 0.05, 0.5, []string{"off_peak", "cached_input"}},
		{"plain", "groq", 1_000_000, 0, 0, at(wed + "12:00:00Z"), 1, 1, []string{}},
	}
	for _, c := range cases {
		e, err := ix.CostEstimate(EstimateQuery{Provider: c.provider, Input: c.in, Output: c.out, Cached: c.cached, At: c.when}, Statuses{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e.Total != round6(c.total) || e.InputPer1M != c.inPrice || !slices.Equal(e.Applied, c.applied) {
			t.Errorf("%s: total %v, input price %v, applied %q; want %v, %v, %q", c.name, e.Total, e.InputPer1M, e.Applied, round6(c.total), c.inPrice, c.applied)
		}
	}
}

func round6(x float64) float64 { return float64(int64(x*1e6+0.5)) / 1e6 }

func TestTaskCostAndCheapestApplyStructures(t *testing.T) {
	ix := structIndex(t)
	sat := at("2026-12-05T09:00:00Z")
	tc, err := ix.TaskCosts(TaskCostQuery{TaskType: "chat", Input: 1_000_000, Output: 0, Limit: 10, At: sat})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TaskCost{}
	for _, c := range tc {
		got[c.Provider] = c
	}
	// deepseek off-peak 0.5, google-gemini promotion 0.75, anthropic long context 2 (1M > 200K), groq 1.
	if tc[0].Provider != "deepseek" || got["deepseek"].CostUSD != 0.5 || !slices.Equal(got["deepseek"].Applied, []string{"off_peak"}) ||
		got["google-gemini"].CostUSD != 0.75 || got["anthropic"].CostUSD != 2 || !slices.Equal(got["anthropic"].Applied, []string{"long_context"}) ||
		got["groq"].Applied == nil || len(got["groq"].Applied) != 0 {
		t.Errorf("task costs = %+v", tc)
	}
	res, _ := ix.Cheapest(CheapestQuery{Task: "llm", Input: 1_000_000, Output: 0, Limit: 10, At: sat}, Statuses{})
	if len(res) != 4 || res[0].Provider != "deepseek" || res[0].CostUSD != 0.5 || *res[0].InputPer1M != 0.5 || res[0].UnitPrice != 0.5 ||
		!slices.Equal(res[0].Applied, []string{"off_peak"}) {
		t.Errorf("cheapest = %+v", res)
	}
}

func TestForecastStructures(t *testing.T) {
	ix := structIndex(t)
	q := ForecastQuery{RequestsPerDay: 10, AvgInput: 100000, AvgOutput: 0, Task: "llm", Limit: 10, At: at("2026-12-02T12:00:00Z")}
	fs, err := ix.Forecasts(q)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Forecast{}
	for _, f := range fs {
		got[f.Provider] = f
	}
	// deepseek: 1M tokens a day; off-peak minutes of the week: weekdays 60 + 840 = 900 × 5 = 4500, weekend 2880,
	// 7380 of 10080 at 0.5, the rest at 1: 0.5 × 7380/10080 + 1 × 2700/10080 = 0.366071 + 0.267857 = 0.633928.
	if d := got["deepseek"]; d.Daily != 0.633928 || !slices.Equal(d.Applied, []string{"time_of_day averaged"}) || d.InputPer1M != 1 {
		t.Errorf("deepseek forecast = %+v", d)
	}
	if g := got["google-gemini"]; g.Daily != 0.75 || !slices.Equal(g.Applied, []string{"promotion until 2026-12-31"}) {
		t.Errorf("gemini forecast = %+v", g)
	}
	// 100,000 per request is below the 200,000 threshold; 300,000 is above.
	if a := got["anthropic"]; a.Daily != 1 || len(a.Applied) != 0 {
		t.Errorf("anthropic forecast = %+v", a)
	}
	q.AvgInput = 300000
	fs, _ = ix.Forecasts(q)
	for _, f := range fs {
		if f.Provider == "anthropic" && (f.Daily != 6 || !slices.Equal(f.Applied, []string{"long_context"})) {
			t.Errorf("anthropic long forecast = %+v", f)
		}
	}
}

// TestCostEstimateChoosesByPriceInForce: without a model filter the estimate takes the model whose input price for
// this request is lowest, a promotion in force included.
func TestCostEstimateChoosesByPriceInForce(t *testing.T) {
	ends := openapi_types.Date{Time: time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)}
	ix, err := Build(seeds.Providers(), Catalogs{Pricing: []seeds.PricingRecord{
		{ProviderId: "mistral", Model: "a-steady", Task: "llm", Pricing: rates(f(1), f(1), nil)},
		{ProviderId: "mistral", Model: "b-promo", Task: "llm", Pricing: rates(f(1.5), f(1), nil),
			Promotion: &api.PricingPromotion{InputPer1m: 0.75, OutputPer1m: f(1), Ends: ends, Note: "n", Source: "s"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		when  string
		model string
	}{{"2026-12-31T12:00:00Z", "b-promo"}, {"2027-01-01T00:00:00Z", "a-steady"}} {
		e, err := ix.CostEstimate(EstimateQuery{Provider: "mistral", Input: 1000, At: at(c.when)}, Statuses{})
		if err != nil || e.Model != c.model {
			t.Errorf("at %s: model %q (%v), want %q", c.when, e.Model, err, c.model)
		}
	}
}

// TestCostEstimateExactModelWins: a model named exactly is estimated even when another ID containing the name is
// cheaper at the volume (the exact one above its long-context threshold); a partial name still takes the cheapest.
func TestCostEstimateExactModelWins(t *testing.T) {
	ix, err := Build(seeds.Providers(), Catalogs{Pricing: []seeds.PricingRecord{
		{ProviderId: "google-gemini", Model: "pro-preview", Task: "llm", Pricing: rates(f(2), f(12), nil),
			LongContext: &api.PricingLongContext{ThresholdTokens: 200000, InputPer1m: 4, OutputPer1m: f(18), Source: "s"}},
		{ProviderId: "google-gemini", Model: "pro-preview-customtools", Task: "llm", Pricing: rates(f(2), f(12), nil)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ model, want, applied string }{
		{"pro-preview", "pro-preview", "long_context"},
		{"PRO-PREVIEW", "pro-preview", "long_context"},
		{"pro-prev", "pro-preview-customtools", ""},
	} {
		e, err := ix.CostEstimate(EstimateQuery{Provider: "google-gemini", Model: c.model, Input: 300000, Output: 2000, At: at("2026-11-28T12:00:00Z")}, Statuses{})
		if err != nil || e.Model != c.want || (c.applied != "") != slices.Contains(e.Applied, c.applied) {
			t.Errorf("model %q: %q applied %v (%v), want %q with %q", c.model, e.Model, e.Applied, err, c.want, c.applied)
		}
	}
}
