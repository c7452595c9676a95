package impl_test

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
)

// TestPriceStructuresHTTP reads the long-context, promotion and time-of-day structures of the served pricing
// catalog through /pricing, then checks that the cost endpoints apply them by the request and by the server's
// clock, and say so in applied. apitest validates every answer against the OpenAPI document.
func TestPriceStructuresHTTP(t *testing.T) {
	var clock atomic.Value
	clock.Store(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)) // a Saturday: off-peak all day for DeepSeek
	setClock := func(s string) {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		clock.Store(at)
	}
	s := apitest.Start(t, apitest.Options{Deps: func(d *impl.Deps) { d.Now = func() time.Time { return clock.Load().(time.Time) } }})

	record := func(provider, model string) api.PricingRecord {
		t.Helper()
		var p api.PricingResponse
		get(t, s, "/api/v1/pricing?provider="+provider, &p)
		for _, r := range p.Pricing {
			if r.Model == model {
				return r
			}
		}
		t.Fatalf("/pricing has no %s/%s", provider, model)
		return api.PricingRecord{}
	}
	flash := record("deepseek", "deepseek-flash")
	if flash.TimeOfDay == nil || len(flash.TimeOfDay.Windows) == 0 || flash.TimeOfDay.Windows[0].InputPer1m*2 != *flash.Pricing.InputPer1mTokens ||
		flash.LongContext != nil || flash.Promotion != nil {
		t.Errorf("deepseek-flash = %+v", flash)
	}
	promo := record("google-gemini", "gemini-3.8-flash")
	if promo.Promotion == nil || promo.Promotion.Ends.Format(time.DateOnly) != "2026-12-31" || promo.Promotion.InputPer1m >= *promo.Pricing.InputPer1mTokens {
		t.Errorf("gemini-3.8-flash = %+v", promo)
	}
	haiku := record("anthropic", "claude-haiku-5-5")
	if haiku.LongContext == nil || haiku.LongContext.ThresholdTokens != 100000 || haiku.LongContext.InputPer1m <= *haiku.Pricing.InputPer1mTokens {
		t.Errorf("claude-haiku-5-5 = %+v", haiku)
	}

	estimate := func(query string) api.CostEstimateResponse {
		t.Helper()
		var e api.CostEstimateResponse
		get(t, s, "/api/v1/cost-estimate?"+query, &e)
		return e
	}
	cases := []struct {
		name, clock, query string
		total              float64
		applied            []string
	}{
		{"off-peak Saturday", "2026-11-28T09:00:00Z", "provider=deepseek&model=deepseek-flash&input_tokens=1000000&output_tokens=0", 0.15, []string{"off_peak"}},
		{"peak Wednesday", "2026-12-02T02:00:00Z", "provider=deepseek&model=deepseek-flash&input_tokens=1000000&output_tokens=0", 0.3, []string{}},
		{"peak ends at 04:00", "2026-12-02T04:00:00Z", "provider=deepseek&model=deepseek-flash&input_tokens=1000000&output_tokens=0", 0.15, []string{"off_peak"}},
		{"off-peak cached", "2026-11-28T09:00:00Z", "provider=deepseek&model=deepseek-flash&input_tokens=1000000&output_tokens=0&cached_tokens=1000000", 0.003, []string{"off_peak", "cached_input"}},
		{"at the threshold", "2026-11-28T09:00:00Z", "provider=anthropic&model=claude-haiku-5-5&input_tokens=100000&output_tokens=0", 0.01, []string{}},
		{"above the threshold", "2026-11-28T09:00:00Z", "provider=anthropic&model=claude-haiku-5-5&input_tokens=100001&output_tokens=0", 0.050001, []string{"long_context"}},
		{"promotion", "2026-12-31T23:00:00Z", "provider=google-gemini&model=gemini-3.8-flash&input_tokens=1000000&output_tokens=0", 0.75, []string{"promotion until 2026-12-31"}},
		{"promotion over", "2027-01-01T00:00:00Z", "provider=google-gemini&model=gemini-3.8-flash&input_tokens=1000000&output_tokens=0", 1.5, []string{}},
	}
	for _, c := range cases {
		setClock(c.clock)
		e := estimate(c.query)
		if e.EstimatedTotalUsd != c.total || !slices.Equal(e.Applied, c.applied) {
			t.Errorf("%s: total %v applied %q, want %v %q", c.name, e.EstimatedTotalUsd, e.Applied, c.total, c.applied)
		}
	}

	setClock("2026-11-28T09:00:00Z")
	var tc api.TaskCostResponse
	get(t, s, "/api/v1/task-cost?task_type=chat&input_tokens=1000000&output_tokens=0&limit=50", &tc)
	for _, r := range tc.ProvidersRanked {
		if r.ProviderId == "deepseek" && !slices.Contains(r.Applied, "off_peak") {
			t.Errorf("task-cost deepseek = %+v", r)
		}
	}
	var fc api.CostForecastResponse
	// With every input token cached, deepseek-flash (cache hits at $0.003-0.006) is among the 50 cheapest.
	get(t, s, "/api/v1/cost-forecast?task=llm&limit=50&cache_hit_rate=1&avg_output_tokens=0", &fc)
	seen := 0
	for _, f := range fc.Forecasts {
		switch {
		case f.ProviderId == "deepseek" && f.Model == "deepseek-flash":
			seen++
			if !slices.Equal(f.Applied, []string{"time_of_day averaged", "cached_input"}) {
				t.Errorf("forecast deepseek-flash = %+v", f)
			}
		case f.ProviderId == "google-gemini" && f.Model == "gemini-3.8-flash":
			if !slices.Equal(f.Applied, []string{"promotion until 2026-12-31"}) || f.Pricing.InputPer1m != promo.Promotion.InputPer1m {
				t.Errorf("forecast gemini-3.8-flash = %+v", f)
			}
		}
	}
	if seen != 1 {
		t.Errorf("cost-forecast does not list deepseek-flash: %+v", fc.Forecasts)
	}
	var ch api.CheapestResponse
	get(t, s, "/api/v1/cheapest?task=llm&input_tokens=1000&output_tokens=0&limit=20", &ch)
	for _, r := range ch.Results {
		if r.Applied == nil {
			t.Errorf("cheapest %s/%s: applied is null", r.ProviderId, r.Model)
		}
	}
}
