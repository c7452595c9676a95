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
	before, on, after := at(day.Add(-12*time.Hour)), at(day.Add(12*time.Hour)), at(day.Add(36*time.Hour))
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
	for _, s := range []*apitest.Server{on, after} {
		if pr, mo, jm, st := has(s); pr || mo || jm || st != api.DeprecationsStatusSunset {
			t.Errorf("on or after %s: %s/%s in pricing %v, models %v, json-mode %v, status %q; want gone and sunset",
				*target.SunsetDate, target.ProviderID, target.ModelID, pr, mo, jm, st)
		}
	}
	// The days left count from the server's day, in both lifecycle answers: 1 the day before, 0 on the day, -1
	// after; the lifecycle stage turns sunset on the day, as the deprecation status does.
	for _, c := range []struct {
		s     *apitest.Server
		days  int
		stage api.ModelLifecycleStage
	}{{before, 1, ""}, {on, 0, api.ModelLifecycleStageSunset}, {after, -1, api.ModelLifecycleStageSunset}} {
		dr := catGet[api.DeprecationsResponse](t, c.s, "/api/v1/deprecations?provider="+p)
		i := slices.IndexFunc(dr.Deprecations, func(r api.DeprecationsRecord) bool { return r.ModelId == target.ModelID })
		if i < 0 || dr.Deprecations[i].DaysUntilShutdown == nil || *dr.Deprecations[i].DaysUntilShutdown != c.days {
			t.Errorf("deprecations, %d days before %s: record %+v", c.days, *target.SunsetDate, dr.Deprecations[max(i, 0)])
		}
		lr := catGet[api.ModelLifecycleResponse](t, c.s, "/api/v1/model-lifecycle?provider="+p+"&model="+url.QueryEscape(target.ModelID))
		j := slices.IndexFunc(lr.Data, func(r api.ModelLifecycleRecord) bool { return r.ModelId == target.ModelID })
		switch {
		case j < 0:
			t.Errorf("model-lifecycle has no record of %s/%s", target.ProviderID, target.ModelID)
		case lr.Data[j].DaysUntilShutdown == nil || *lr.Data[j].DaysUntilShutdown != c.days:
			t.Errorf("model-lifecycle, %d days before %s: days_until_shutdown %v", c.days, *target.SunsetDate, lr.Data[j].DaysUntilShutdown)
		case c.stage != "" && lr.Data[j].Stage != c.stage, c.stage == "" && lr.Data[j].Stage == api.ModelLifecycleStageSunset:
			t.Errorf("model-lifecycle, %d days before %s: stage %s", c.days, *target.SunsetDate, lr.Data[j].Stage)
		}
	}
	// A record without a shutdown day has none left to count.
	dr := catGet[api.DeprecationsResponse](t, before, "/api/v1/deprecations?status=active&limit=5")
	for _, r := range dr.Deprecations {
		if r.SunsetDate == nil && r.DaysUntilShutdown != nil {
			t.Errorf("%s/%s: no sunset date but %d days until shutdown", r.ProviderId, r.ModelId, *r.DaysUntilShutdown)
		}
	}
}
