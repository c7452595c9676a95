// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"encoding/json"
	"testing"
)

// TestMergeGenAIRelease: the newer npm release wins the prices and lends nothing it lacks; the snapshot lends it
// the maintainers' check dates where the prices did not change, and its flags.
func TestMergeGenAIRelease(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	var snap genaiPrices
	snap.Providers = append(snap.Providers, struct {
		ID     string    `json:"id"`
		Models []gpModel `json:"models"`
	}{ID: "openai", Models: []gpModel{
		{ID: "same", Prices: raw(`{"input_mtok": 1, "output_mtok": 2}`), PricesChecked: "2026-08-01"},
		{ID: "cheaper", Prices: raw(`{"input_mtok": 5}`), PricesChecked: "2026-08-01"},
		{ID: "gone", Prices: raw(`{"input_mtok": 9}`), PricesChecked: "2026-08-01"},
		{ID: "flagged", Prices: raw(`{"input_mtok": 3}`), Removed: true},
		{ID: "emptied", Prices: raw(`{"input_mtok": 2}`), PricesChecked: "2026-08-01"},
	}})
	var rel genaiRelease
	rel.Source.Published = "2026-09-23"
	rel.Providers = append(rel.Providers, struct {
		ID     string    `json:"id"`
		Models []gpModel `json:"models"`
	}{ID: "openai", Models: []gpModel{
		{ID: "same", Prices: raw(`{"output_mtok":2,"input_mtok":1}`)},
		{ID: "cheaper", Prices: raw(`{"input_mtok": 4}`)},
		{ID: "new", Prices: raw(`{"input_mtok": 7}`), Deprecated: true},
		{ID: "flagged", Prices: raw(`{"input_mtok": 3}`)},
		{ID: "emptied", Prices: raw(`{}`)},
	}}, struct {
		ID     string    `json:"id"`
		Models []gpModel `json:"models"`
	}{ID: "newcomer", Models: []gpModel{{ID: "m", Prices: raw(`{"input_mtok": 1}`)}}})

	got := mergeGenAIRelease(snap, rel)
	models := map[string]gpModel{}
	for _, p := range got.Providers {
		for _, m := range p.Models {
			models[p.ID+"/"+m.ID] = m
		}
	}
	for id, want := range map[string]struct {
		checked, prices string
		removed, deprec bool
	}{
		"openai/same":    {"2026-08-01", `{"input_mtok":1,"output_mtok":2}`, false, false},
		"openai/cheaper": {"2026-09-23", `{"input_mtok":4}`, false, false},
		"openai/new":     {"2026-09-23", `{"input_mtok":7}`, false, true},
		"openai/gone":    {"2026-08-01", `{"input_mtok":9}`, false, false},
		"openai/flagged": {"", `{"input_mtok":3}`, true, false},            // same prices: the snapshot's (absent) check
		"openai/emptied": {"2026-08-01", `{"input_mtok":2}`, false, false}, // an empty price says nothing
		"newcomer/m":     {"2026-09-23", `{"input_mtok":1}`, false, false},
	} {
		m, ok := models[id]
		if !ok {
			t.Errorf("%s: missing", id)
			continue
		}
		if m.PricesChecked != want.checked || !sameJSON(m.Prices, raw(want.prices)) || m.Removed != want.removed || m.Deprecated != want.deprec {
			t.Errorf("%s: checked %q prices %s removed %v deprecated %v; want %+v", id, m.PricesChecked, m.Prices, m.Removed, m.Deprecated, want)
		}
	}
	if len(models) != 7 {
		t.Errorf("%d models, want 7", len(models))
	}
}
