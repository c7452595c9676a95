package derive

import (
	"slices"
	"strings"
	"testing"

	openapi_types "github.com/oapi-codegen/runtime/types"

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

// changelogFixture is a provider's lifecycle file with each kind of dated fact: an announcement with a shutdown
// still ahead (of any build date), a shutdown without announcement, a retirement without dates, one that follows
// another entry, a launch citing two pages, and a current model without a launch day.
func changelogFixture() map[string]*catalogbuild.LifecycleFile {
	s := func(v string) *string { return &v }
	return map[string]*catalogbuild.LifecycleFile{"openai": {
		ProviderID: "openai",
		Pages: []catalogbuild.OfficialPage{
			{ID: "oa-deprecations", Title: "Deprecations", URL: "https://example.com/deprecations", Checked: "2026-11-20"},
			{ID: "oa-models", Title: "Models", URL: "https://example.com/models", Checked: "2026-11-21"},
			{ID: "oa-launch", Title: "Launch post", URL: "https://example.com/launch", Checked: "2026-11-22"},
			{ID: "oa-unused", Title: "Unused", URL: "https://example.com/unused", Checked: "2026-11-22"},
		},
		Retired: []catalogbuild.Retirement{
			{ModelID: "a", Announced: s("2026-11-02"), Shutdown: s("2099-01-15"), Replacement: s("b"), Source: "oa-deprecations"},
			{ModelID: "c", Shutdown: s("2026-11-10"), Source: "oa-deprecations"},
			{ModelID: "d", Source: "oa-deprecations"},
			// The page names only c: the entry that follows it is no announced event of its own.
			{ModelID: "c-undated", Shutdown: s("2026-11-10"), Source: "oa-deprecations", Follows: s("c")},
		},
		Current: []catalogbuild.CurrentModel{
			{ModelID: "e", Task: "llm", Stage: "ga", Released: s("2026-11-12"), Sources: []string{"oa-models", "oa-launch"}},
			{ModelID: "f", Task: "llm", Stage: "ga", Sources: []string{"oa-models"}},
		},
	}}
}

func TestCuratedChangeEntries(t *testing.T) {
	got, err := curatedChangeEntries(changelogFixture(), func(id string) string { return "OpenAI" })
	if err != nil {
		t.Fatal(err)
	}
	sortChangelog(got.entries)
	type want struct {
		date, title string
		typ         api.ApiChangelogChangeType
		impact      api.ApiChangelogImpact
		url         string
		sources     []string
	}
	wants := []want{
		// The shutdown ahead is in the catalog: the server, not the build, decides when it is served.
		{"2099-01-15", "Model shutdown: a", changeDeprecation, impactHigh, "https://example.com/deprecations", []string{"oa-deprecations"}},
		{"2026-11-12", "New model: e", changeNewModel, impactLow, "https://example.com/models", []string{"oa-models", "oa-launch"}},
		{"2026-11-10", "Model shutdown: c", changeDeprecation, impactHigh, "https://example.com/deprecations", []string{"oa-deprecations"}},
		{"2026-11-02", "Deprecation announced: a", changeDeprecation, impactMedium, "https://example.com/deprecations", []string{"oa-deprecations"}},
	}
	if len(got.entries) != len(wants) {
		t.Fatalf("%d entries, want %d: %+v", len(got.entries), len(wants), got.entries)
	}
	for i, w := range wants {
		e := got.entries[i]
		if e.Date.String() != w.date || e.Title != w.title || e.ChangeType != w.typ || e.Impact != w.impact ||
			e.SourceUrl == nil || *e.SourceUrl != w.url || !slices.Equal(e.Sources, w.sources) ||
			e.Confidence != api.ConfidenceVerified || e.ProviderId != "openai" || e.CatalogEvent != nil {
			t.Errorf("entry %d: %+v, want %+v", i, e, w)
		}
	}
	if d := got.entries[3].Description; !strings.Contains(d, "2099-01-15") || !strings.Contains(d, "replacement it names is b") ||
		!strings.Contains(d, "https://example.com/deprecations, checked 2026-11-20") {
		t.Errorf("announcement description %q lacks the shutdown day, the replacement or the page", d)
	}
	for _, k := range []string{"openai/a", "openai/c", "openai/d", "openai/c-undated"} {
		if !got.retired[k] {
			t.Errorf("%s is not marked retired", k)
		}
	}
	if !got.launched["openai/e"] || got.launched["openai/f"] {
		t.Errorf("launched %v, want only openai/e", got.launched)
	}
	var ids []string
	for _, p := range got.pages {
		ids = append(ids, p.ID)
	}
	if !slices.Equal(ids, []string{"oa-deprecations", "oa-launch", "oa-models"}) {
		t.Errorf("cited pages %v, want the three an entry cites", ids)
	}
}

func TestCuratedChangeEntriesRefusesUnknownPage(t *testing.T) {
	files := changelogFixture()
	files["openai"].Retired[1].Source = "nowhere"
	if _, err := curatedChangeEntries(files, func(string) string { return "OpenAI" }); err == nil {
		t.Error("a retirement citing a page the file does not list was accepted")
	}
}

func TestMergeChanges(t *testing.T) {
	curated, err := curatedChangeEntries(changelogFixture(), func(string) string { return "OpenAI" })
	if err != nil {
		t.Fatal(err)
	}
	day := func(s string) openapi_types.Date {
		d, _ := gaDay(s)
		return d
	}
	data := []api.ApiChangelogRecord{
		deprecationEntry("openai", "a", day("2099-02-01")),        // the page dates a's shutdown: dropped
		deprecationEntry("openai", "d", day("2026-11-20")),        // the page retires d without a day: dropped
		newModelEntry("openai", "OpenAI", "e", day("2026-10-01")), // the page dates e's launch: dropped
		newModelEntry("openai", "OpenAI", "f", day("2026-09-01")), // the page gives f no launch day: kept
		newModelEntry("openai", "OpenAI", "f", day("2026-09-01")), // the same fact twice: kept once
		deprecationEntry("azure-openai", "a", day("2026-12-01")),  // the same model at another host: its own fact
	}
	got := mergeChanges(curated, data)
	sortChangelog(got)
	var keys []string
	for _, r := range got {
		keys = append(keys, r.Date.String()+" "+r.ProviderId+" "+r.Title)
	}
	want := []string{
		"2099-01-15 openai Model shutdown: a",
		"2026-12-01 azure-openai Model shutdown: a",
		"2026-11-12 openai New model: e",
		"2026-11-10 openai Model shutdown: c",
		"2026-11-02 openai Deprecation announced: a",
		"2026-09-01 openai New model: f",
	}
	if !slices.Equal(keys, want) {
		t.Errorf("merged\n%s\nwant\n%s", strings.Join(keys, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range got {
		if r.ProviderId == "azure-openai" && (r.Confidence != api.ConfidenceSingle || !slices.Equal(r.Sources, []string{catalogbuild.SourceLiteLLM})) {
			t.Errorf("the data set's entry cites %v (%s), want litellm (single)", r.Sources, r.Confidence)
		}
	}
}
