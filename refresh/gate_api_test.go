package refresh_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// TestLifecycleEventsNeverCutBehindPriceEvents: 3,000 price changes leave every deprecation in the build's
// events, and subscribers get one catalog.changed summary with the counts.
func TestLifecycleEventsNeverCutBehindPriceEvents(t *testing.T) {
	var evs []store.CatalogEvent
	for i := range 3000 {
		evs = append(evs, store.CatalogEvent{Type: refresh.EventPriceChanged, ModelID: "m" + string(rune('a'+i%26))})
	}
	for range 5 {
		evs = append(evs, store.CatalogEvent{Type: refresh.EventModelDeprecated})
	}
	kept, left := refresh.CapEvents(evs)
	dep := 0
	for _, e := range kept {
		if e.Type == refresh.EventModelDeprecated {
			dep++
		}
	}
	if dep != 5 || left[refresh.EventPriceChanged] != 3000-refresh.MaxEventsPerType || len(kept) != refresh.MaxEventsPerType+5 {
		t.Errorf("kept %d events (%d deprecations), left out %v", len(kept), dep, left)
	}
	sum, err := refresh.Summary(strings.Repeat("a", 64), kept, left)
	if err != nil {
		t.Fatal(err)
	}
	var p refresh.ChangedPayload
	if err := json.Unmarshal(sum, &p); err != nil || p.Total != 3005 || p.Counts.PriceChanged != 3000 || p.Counts.ModelDeprecated != 5 || p.LeftOut != 2600 {
		t.Errorf("summary %s (%v)", sum, err)
	}
	if sum, _ := refresh.Summary(strings.Repeat("a", 64), kept[:refresh.SummaryAbove], nil); sum != nil {
		t.Errorf("a summary for %d events", refresh.SummaryAbove)
	}
}

// TestFakeFreeModelNeverTopsCheapestOverHTTP: through the API, /cheapest ranks neither fake model while the
// checked catalogs serve (nothing observed: it answers from catalog facts).
func TestFakeFreeModelNeverTopsCheapestOverHTTP(t *testing.T) {
	t.Cleanup(func() { seeds.Install(nil) })
	_, checked, prob, _ := fakeFree(t)
	seeds.Install(checked.WithProbation(prob))
	srv := apitest.Start(t, apitest.Options{})
	res := srv.Get("/api/v1/cheapest?task=llm&input_tokens=1000&output_tokens=1000")
	var ans struct {
		Results []struct {
			Model string `json:"model"`
		} `json:"results"`
	}
	res.Decode(t, &ans)
	if res.Status != 200 || len(ans.Results) == 0 {
		t.Fatalf("/cheapest = %d, %d results", res.Status, len(ans.Results))
	}
	for _, r := range ans.Results {
		if r.Model == free || r.Model == cheap {
			t.Errorf("/cheapest ranks %s", r.Model)
		}
	}
}
