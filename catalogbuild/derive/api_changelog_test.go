package derive

import (
	"testing"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func TestPricingImpact(t *testing.T) {
	tiered := func(base float64) map[string]any {
		return map[string]any{"base": base, "tiers": []any{map[string]any{"start": 200000.0, "price": base * 2}}}
	}
	for name, c := range map[string]struct {
		before, after map[string]any
		want          api.ApiChangelogImpact
	}{
		"output rises":           {map[string]any{"input_mtok": 2.0, "output_mtok": 10.0}, map[string]any{"input_mtok": 2.0, "output_mtok": 15.0}, impactHigh},
		"input rises, out falls": {map[string]any{"input_mtok": 2.0, "output_mtok": 10.0}, map[string]any{"input_mtok": 3.0, "output_mtok": 5.0}, impactHigh},
		"both fall":              {map[string]any{"input_mtok": 10.0, "output_mtok": 40.0}, map[string]any{"input_mtok": 2.0, "output_mtok": 8.0}, impactLow},
		"tiered base falls":      {map[string]any{"input_mtok": tiered(2.5), "output_mtok": tiered(15)}, map[string]any{"input_mtok": tiered(2), "output_mtok": tiered(12)}, impactLow},
		"tiers dropped only":     {map[string]any{"input_mtok": tiered(5), "output_mtok": tiered(25)}, map[string]any{"input_mtok": 5.0, "output_mtok": 25.0}, impactMedium},
		"cache price only":       {map[string]any{"input_mtok": 1.0, "cache_read_mtok": 0.5}, map[string]any{"input_mtok": 1.0, "cache_read_mtok": 0.1}, impactMedium},
	} {
		if got := pricingImpact(c.before, c.after); got != c.want {
			t.Errorf("%s: impact %s, want %s", name, got, c.want)
		}
	}
}

func TestPricingEntries(t *testing.T) {
	step := func(start string, in, out float64) genaiPriceStep {
		s := genaiPriceStep{Prices: map[string]any{"input_mtok": in, "output_mtok": out}}
		if start != "" {
			s.Constraint = &struct {
				StartDate string `json:"start_date"`
			}{start}
		}
		return s
	}
	url := ptrTo("https://example.com/pricing")
	steps := []genaiPriceStep{step("", 10, 40), step("2025-06-10", 2, 8), step("", 3, 9), step("2026-09-01", 3, 12)}
	got := pricingEntries(steps, "openai", "o3", url)
	if len(got) != 2 {
		t.Fatalf("%d entries, want 2 (steps without a start_date are not dated changes): %+v", len(got), got)
	}
	if got[0].Date.String() != "2025-06-10" || got[0].Impact != impactLow || got[0].ChangeType != changePricingChange || got[0].SourceUrl != url {
		t.Errorf("first entry %+v", got[0])
	}
	// The second change is compared with the step just before it (3/9), not with the first price.
	if got[1].Date.String() != "2026-09-01" || got[1].Impact != impactHigh || len(got[1].AffectedModels) != 1 || got[1].AffectedModels[0] != "o3" {
		t.Errorf("second entry %+v", got[1])
	}
	if len(pricingEntries(steps[:1], "openai", "o3", url)) != 0 {
		t.Error("a single price set is not a change")
	}
}

func TestModelChangeEntries(t *testing.T) {
	models := []seeds.ModelRecord{
		{ProviderId: "openai", ModelId: "a"}, {ProviderId: "openai", ModelId: "b"}, {ProviderId: "groq", ModelId: "c"},
	}
	facts := map[string]catalogbuild.SourceFacts{
		"openai/a": {ModelsDev: map[string]any{"release_date": "2025-04-14"}, LiteLLM: map[string]any{"deprecation_date": "2026-10-01"}},
		"openai/b": {ModelsDev: map[string]any{"release_date": "2025-04"}}, // not a whole day: no entry
		// groq/c has no facts at all
	}
	got := modelChangeEntries(models, facts, func(id string) string { return "Name of " + id })
	if len(got) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(got), got)
	}
	sortChangelog(got)
	if got[0].ChangeType != changeDeprecation || got[0].Impact != impactHigh || got[0].Date.String() != "2026-10-01" {
		t.Errorf("deprecation entry %+v", got[0])
	}
	if got[1].ChangeType != changeNewModel || got[1].Impact != impactLow || got[1].Date.String() != "2025-04-14" || got[1].SourceUrl != nil {
		t.Errorf("new-model entry %+v", got[1])
	}
}
