package impl_test

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/seeds"
)

// TestShutdownDayAtReadTime: a model whose shutdown day comes after the catalogs were built leaves /pricing,
// /models and the per-model catalogs on that day by the server's clock, and /deprecations calls it sunset; the
// day before, it is still served and deprecated.
func TestShutdownDayAtReadTime(t *testing.T) {
	type dep struct {
		ProviderID string  `json:"provider_id"`
		ModelID    string  `json:"model_id"`
		Status     string  `json:"status"`
		SunsetDate *string `json:"sunset_date"`
	}
	deps, _ := catFile[dep](t, "deprecations")
	prices, err := seeds.PricingRecords()
	if err != nil {
		t.Fatal(err)
	}
	var target *dep
	for i, d := range deps {
		if d.Status == "deprecated" && d.SunsetDate != nil && slices.ContainsFunc(prices, func(p seeds.PricingRecord) bool {
			return p.ProviderId == d.ProviderID && p.Model == d.ModelID
		}) {
			target = &deps[i]
			break
		}
	}
	if target == nil {
		t.Skip("no priced model with a shutdown day ahead of the build in the catalogs")
	}
	day, err := time.Parse(time.DateOnly, *target.SunsetDate)
	if err != nil {
		t.Fatal(err)
	}
	at := func(now time.Time) *apitest.Server {
		return apitest.Start(t, apitest.Options{Deps: func(d *impl.Deps) { d.Now = func() time.Time { return now } }})
	}
	before, on := at(day.Add(-12*time.Hour)), at(day.Add(12*time.Hour))
	p := url.QueryEscape(target.ProviderID)
	has := func(s *apitest.Server) (inPricing, inModels, inJSONMode bool, status api.DeprecationsStatus) {
		pr := catGet[api.PricingResponse](t, s, "/api/v1/pricing?provider="+p)
		inPricing = slices.ContainsFunc(pr.Pricing, func(r api.PricingRecord) bool { return r.Model == target.ModelID })
		mr := catGet[api.ModelsResponse](t, s, "/api/v1/models?provider="+p)
		inModels = slices.ContainsFunc(mr.Models, func(r api.ModelRecord) bool { return r.ModelId == target.ModelID })
		jr := catGet[api.JsonModeResponse](t, s, "/api/v1/json-mode?provider="+p)
		inJSONMode = slices.ContainsFunc(jr.JsonMode, func(r api.JsonModeRecord) bool { return r.ModelId == target.ModelID })
		dr := catGet[api.DeprecationsResponse](t, s, "/api/v1/deprecations?provider="+p)
		for _, r := range dr.Deprecations {
			if r.ModelId == target.ModelID {
				status = r.Status
			}
		}
		return
	}
	if pr, mo, jm, st := has(before); !pr || !mo || st != api.DeprecationsStatusDeprecated {
		t.Errorf("the day before %s: %s/%s in pricing %v, models %v, json-mode %v, status %q; want served and deprecated",
			*target.SunsetDate, target.ProviderID, target.ModelID, pr, mo, jm, st)
	}
	if pr, mo, jm, st := has(on); pr || mo || jm || st != api.DeprecationsStatusSunset {
		t.Errorf("on %s: %s/%s in pricing %v, models %v, json-mode %v, status %q; want gone and sunset",
			*target.SunsetDate, target.ProviderID, target.ModelID, pr, mo, jm, st)
	}
}
