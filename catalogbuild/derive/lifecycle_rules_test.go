package derive

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func TestDeprecationStatus(t *testing.T) {
	for _, c := range []struct{ shutdown, want string }{
		{"", "active"},
		{"2026-09-28", "deprecated"},
		{"2026-08-22", "deprecated"},
		{"2026-08-21", "sunset"}, // on the reference day the model is gone, as the converter judges it
		{"2025-01-01", "sunset"},
	} {
		if got := deprecationStatus(c.shutdown, "2026-08-21"); string(got) != c.want {
			t.Errorf("deprecationStatus(%q) = %s, want %s", c.shutdown, got, c.want)
		}
	}
	none := &lifecycleFacts{reference: "2026-08-21"}
	r, err := deprecationOf(seeds.ModelRecord{ProviderId: "openai", ModelId: "gpt-3.5-turbo-1106"},
		catalogbuild.SourceFacts{LiteLLM: map[string]any{"deprecation_date": "2026-09-28"}}, none, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "deprecated" || r.SunsetDate == nil || r.SunsetDate.String() != "2026-09-28" || r.AnnouncedAt != nil || r.ReplacementModel != nil {
		t.Errorf("deprecationOf: %+v", r)
	}
	// The provider's page outranks litellm: its dates and replacement, and its own shutdown day.
	page := catalogbuild.OfficialPage{ID: "openai-deprecations", Title: "Deprecations", URL: "https://platform.openai.com/docs/deprecations", Checked: "2026-11-24"}
	day, announced, repl := "2026-10-23", "2026-04-14", "gpt-4.1"
	official := &lifecycleFacts{reference: "2026-11-24", files: map[string]*catalogbuild.LifecycleFile{"openai": {
		ProviderID: "openai", Pages: []catalogbuild.OfficialPage{page},
		Retired: []catalogbuild.Retirement{{ModelID: "gpt-4-turbo", Announced: &announced, Shutdown: &day, Replacement: &repl, Source: page.ID}},
	}}}
	r, err = deprecationOf(seeds.ModelRecord{ProviderId: "openai", ModelId: "gpt-4-turbo"},
		catalogbuild.SourceFacts{LiteLLM: map[string]any{"deprecation_date": "2027-01-01"}}, official, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "sunset" || r.SunsetDate.String() != day || r.AnnouncedAt.String() != announced || *r.ReplacementModel != repl || !strings.Contains(*r.Notes, page.URL) {
		t.Errorf("deprecationOf with the provider's page: %+v", r)
	}
}

func TestLifecycleStage(t *testing.T) {
	for _, c := range []struct{ id, status, shutdown, want string }{
		{"gpt-4o", "", "", "ga"},
		{"gpt-4o", "", "2026-09-01", "hard_deprecated"},
		{"gpt-4o", "", "2026-01-01", "sunset"},
		{"gpt-4o", "deprecated", "", "soft_deprecated"},
		{"grok-4-1-fast-reasoning", "beta", "", "beta"},
		{"some-model", "alpha", "", "experimental"},
		{"gemini-exp-1206", "", "", "experimental"},
		{"learnlm-1.5-pro-experimental", "", "", "experimental"},
		{"gemini-2.5-flash-preview-09-2025", "", "", "preview"},
		{"gpt-4o-audio-preview", "beta", "", "beta"}, // the source status wins over the name
		{"expert-model", "", "", "ga"},               // "exp" must be a whole word
		{"previewer", "", "", "ga"},
	} {
		if got, why := lifecycleStage(c.id, c.status, c.shutdown, "2026-08-21"); got != c.want || why == "" {
			t.Errorf("lifecycleStage(%q, %q, %q) = %s (%s), want %s", c.id, c.status, c.shutdown, got, why, c.want)
		}
	}
	if v := lifecycleSLAEligible("google-vertex-ai", stagePreview); v == nil || *v {
		t.Errorf("Vertex AI preview: sla_eligible %v, want false", v)
	}
	if v := lifecycleSLAEligible("openai", stagePreview); v != nil {
		t.Errorf("OpenAI preview: sla_eligible %v, want unknown", *v)
	}
	if v := lifecycleSLAEligible("openai", stageSunset); v == nil || *v {
		t.Errorf("sunset: sla_eligible %v, want false", v)
	}
	none := &lifecycleFacts{reference: "2026-08-21"}
	r, err := lifecycleOf(seeds.ModelRecord{ProviderId: "openai", ModelId: "gpt-x"}, catalogbuild.SourceFacts{ModelsDev: map[string]any{"release_date": "2025-02"}}, none, nil)
	if err != nil || r.LaunchDate != nil || r.Stage != "ga" {
		t.Errorf("a month-only release date is no launch date: %+v", r)
	}
	// The provider's models page sets the stage and launch date of a model it lists; its deprecation page the
	// shutdown of one it retires.
	page := catalogbuild.OfficialPage{ID: "p", Title: "Models", URL: "https://ai.google.dev/gemini-api/docs/models", Checked: "2026-11-24"}
	released, day := "2026-10-01", "2026-12-31"
	official := &lifecycleFacts{reference: "2026-11-24", files: map[string]*catalogbuild.LifecycleFile{"google-gemini": {
		ProviderID: "google-gemini", Pages: []catalogbuild.OfficialPage{page},
		Current: []catalogbuild.CurrentModel{{ModelID: "gemini-next", Task: "llm", Stage: "preview", Released: &released, Sources: []string{"p"}}},
		Retired: []catalogbuild.Retirement{{ModelID: "gemini-old", Shutdown: &day, Source: "p"}},
	}}}
	r, err = lifecycleOf(seeds.ModelRecord{ProviderId: "google-gemini", ModelId: "gemini-next"}, catalogbuild.SourceFacts{}, official, nil)
	if err != nil || r.Stage != "preview" || r.LaunchDate == nil || r.LaunchDate.String() != released {
		t.Errorf("with the provider's models page: %+v", r)
	}
	r, err = lifecycleOf(seeds.ModelRecord{ProviderId: "google-gemini", ModelId: "gemini-old"}, catalogbuild.SourceFacts{}, official, nil)
	if err != nil || r.Stage != "hard_deprecated" || r.DeprecationDate == nil || r.DeprecationDate.String() != day {
		t.Errorf("with the provider's deprecation page: %+v", r)
	}
}

func TestKnowledgeCutoffOf(t *testing.T) {
	month := "2024-10"
	m := seeds.ModelRecord{ProviderId: "openai", ModelId: "x", KnowledgeCutoff: &month}
	for _, c := range []struct {
		knowledge, want string
		approx          bool
	}{
		{"2024-10-23", "2024-10-23", false},
		{"2024-10", "2024-10-01", true},
		{"2024-11-01", "2024-10-01", true}, // a day in another month is not models.json's month
		{"2024-10-32", "2024-10-01", true}, // an impossible day is no day
		{"", "2024-10-01", true},           // llm-stats gave the month
	} {
		r := knowledgeCutoffOf(m, catalogbuild.SourceFacts{ModelsDev: map[string]any{"knowledge": c.knowledge}})
		if r.CutoffDate == nil || r.CutoffDate.String() != c.want || r.CutoffApproximate != c.approx || r.Notes == nil {
			t.Errorf("knowledge %q: %+v, want %s approximate %v", c.knowledge, r, c.want, c.approx)
		}
	}
	r := knowledgeCutoffOf(seeds.ModelRecord{ProviderId: "perplexity", ModelId: "sonar-pro"}, catalogbuild.SourceFacts{})
	if r.CutoffDate != nil || r.DocsUrl == nil {
		t.Errorf("Sonar without a cutoff: %+v", r)
	}
	// The provider's page outranks the data sets' month, and its address in the notes is what the record cites.
	page := catalogbuild.Source{ID: "acme-x", Name: "Acme: X (official page, checked 2026-11-28)", URL: "https://docs.acme.example/x"}
	for _, c := range []struct {
		oc     catalogbuild.OfficialCutoff
		want   string
		approx bool
	}{
		{catalogbuild.OfficialCutoff{Day: "2023-10-01", Page: page, Title: "Acme: X", Checked: "2026-11-28"}, "2023-10-01", false},
		{catalogbuild.OfficialCutoff{Day: "2026-05-01", Approximate: true, Page: page, Title: "Acme: X", Checked: "2026-11-28"}, "2026-05-01", true},
	} {
		r := knowledgeCutoffOf(m, catalogbuild.SourceFacts{ModelsDev: map[string]any{"knowledge": "2024-10-23"}, Cutoff: &c.oc})
		if r.CutoffDate == nil || r.CutoffDate.String() != c.want || r.CutoffApproximate != c.approx ||
			r.Notes == nil || !strings.Contains(*r.Notes, page.URL) || strings.Contains(*r.Notes, "models.dev") {
			t.Errorf("official cutoff %+v: %+v", c.oc, r)
		}
	}
}

func TestAliasGroups(t *testing.T) {
	ids := []string{"gpt-4o", "gpt-4o-2024-08-06", "gpt-4o-2024-05-13", "gpt-3.5-turbo", "gpt-3.5-turbo-0125",
		"o3-mini", "chatgpt-4o-latest", "gpt-4.1-nano-2025-04-14"}
	got := aliasGroups("openai", ids)
	want := map[string][]string{
		"gpt-4o":            {"gpt-4o-2024-08-06", "gpt-4o-2024-05-13"},
		"gpt-3.5-turbo":     {"gpt-3.5-turbo-0125"},
		"chatgpt-4o-latest": nil,
	}
	if len(got) != len(want) {
		t.Fatalf("aliasGroups: %v, want %v", got, want)
	}
	for alias, vs := range want {
		g := slices.Clone(got[alias])
		slices.Sort(g)
		w := slices.Clone(vs)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("alias %s: %v, want %v", alias, got[alias], vs)
		}
	}
	// Mistral: YYMM versions of the -latest alias; Anthropic and Vertex AI: 8-digit dates; Gemini: -001.
	if g := aliasGroups("mistral", []string{"mistral-large-latest", "mistral-large-2411", "mistral-large-2407"}); len(g["mistral-large-latest"]) != 2 {
		t.Errorf("mistral: %v", g)
	}
	if g := aliasGroups("google-vertex-ai", []string{"claude-3-haiku", "claude-3-haiku@20240307", "gemini-2.0-flash", "gemini-2.0-flash-001"}); len(g) != 2 ||
		len(g["claude-3-haiku"]) != 1 || len(g["gemini-2.0-flash"]) != 1 {
		t.Errorf("vertex: %v", g)
	}
	// Four digits elsewhere are separate checkpoints, not versions of the undated name.
	if g := aliasGroups("deepinfra", []string{"deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1-0528"}); len(g) != 0 {
		t.Errorf("deepinfra: %v", g)
	}
	// Four digits still count for a -latest alias.
	if g := aliasGroups("xai", []string{"grok-2-vision-latest", "grok-2-vision-1212"}); len(g["grok-2-vision-latest"]) != 1 {
		t.Errorf("xai: %v", g)
	}
}

func TestVersionsOfAndResolve(t *testing.T) {
	facts := map[string]catalogbuild.SourceFacts{"openai/gpt-4o-2024-05-13": {ModelsDev: map[string]any{"release_date": "2024-05-13"}}}
	vs, err := versionsOf("openai", []string{"gpt-4o-2024-05-13", "gpt-4o-2024-11-20", "gpt-4o-x-001"}, facts)
	got := []string{}
	for _, v := range vs {
		got = append(got, v.VersionId)
	}
	if err != nil || !slices.Equal(got, []string{"gpt-4o-2024-11-20", "gpt-4o-2024-05-13", "gpt-4o-x-001"}) || vs[0].ReleaseDate == nil ||
		vs[0].ReleaseDate.String() != "2024-11-20" || vs[2].ReleaseDate != nil {
		t.Errorf("versionsOf: %+v", vs)
	}
	recs, err := modelVersionRecords([]seeds.ModelRecord{{ProviderId: "openai", ModelId: "gpt-4o"}, {ProviderId: "openai", ModelId: "gpt-4o-2024-08-06"},
		{ProviderId: "openai", ModelId: "gpt-4o-2024-11-20"}}, map[string]catalogbuild.SourceFacts{"openai/gpt-4o-2024-11-20": {ModelsDev: map[string]any{}}}, nil)
	if err != nil || len(recs) != 1 || recs[0].CurrentPinnedVersion == nil || *recs[0].CurrentPinnedVersion != "gpt-4o-2024-08-06" || !recs[0].Pinnable ||
		recs[0].LifecyclePolicyUrl == nil {
		t.Fatalf("modelVersionRecords: %+v", recs)
	}
	// The record cites what names the alias or its versions (a data set, the page stating the pointer), no more.
	if want := []string{catalogbuild.SourceModelsDev, "platform-openai-com-docs-models"}; !reflect.DeepEqual(recs[0].Sources, want) || recs[0].Confidence != "single" {
		t.Errorf("modelVersionRecords: sources %v confidence %s, want %v single", recs[0].Sources, recs[0].Confidence, want)
	}
	r := resolveAliasOf(recs[0])
	if r.ReleaseDate == nil || r.ReleaseDate.String() != "2024-08-06" || r.Notes == nil {
		t.Errorf("resolveAliasOf: %+v", r)
	}
}

// TestDocumentedPointersAreCurrent keeps the pointer table in step with the data: every alias and version it
// names must be a current model, or the table entry is stale.
func TestDocumentedPointersAreCurrent(t *testing.T) {
	models, err := CurrentLLMModels(&Input{DataDir: dataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	current := map[string]bool{}
	for _, m := range models {
		current[m.ProviderId+"/"+m.ModelId] = true
	}
	for key, p := range documentedPointers {
		provider, _, _ := strings.Cut(key, "/")
		if !current[key] || !current[provider+"/"+p.Version] {
			t.Errorf("documented pointer %s -> %s: alias or version is not a current model", key, p.Version)
		}
	}
}

func TestTaskFit(t *testing.T) {
	for _, c := range []struct {
		score float64
		want  string
	}{{100, "elite"}, {90, "elite"}, {89.9, "strong"}, {75, "strong"}, {74.9, "capable"}, {60, "capable"}, {59.9, "limited"}, {0, "limited"}} {
		if got := taskFitTier(c.score); got != c.want {
			t.Errorf("taskFitTier(%v) = %s, want %s", c.score, got, c.want)
		}
	}
	recs := taskFitRecords([]seeds.BenchmarkRecord{
		{ProviderId: "openai", ModelId: "a", Scores: map[string]float64{"humaneval": 89.96, "mmlu": 80}},
		{ProviderId: "openai", ModelId: "b", Scores: map[string]float64{"gpqa": 59.94, "math": 75}},
		{ProviderId: "openai", ModelId: "c", Scores: map[string]float64{"ifeval": 87.4, "bfcl": 66.6, "facts-grounding": 85.3}},
	})
	want := []api.ModelTaskFitRecord{
		{ProviderId: "openai", ModelId: "a", Task: "code_generation", Score: 90, Tier: "elite"}, // rounds to 90.0, so elite
		{ProviderId: "openai", ModelId: "b", Task: "math", Score: 75, Tier: "strong"},
		{ProviderId: "openai", ModelId: "b", Task: "reasoning", Score: 59.9, Tier: "limited"},
		{ProviderId: "openai", ModelId: "c", Task: "instruction_following", Score: 87.4, Tier: "strong"},
		{ProviderId: "openai", ModelId: "c", Task: "rag_qa", Score: 85.3, Tier: "strong"},
		{ProviderId: "openai", ModelId: "c", Task: "tool_use", Score: 66.6, Tier: "capable"},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("taskFitRecords: %+v, want %+v", recs, want)
	}
}

// TestTaskFitExtraScores: the rows the /benchmarks catalog does not carry (IFEval, BFCL, FACTS Grounding) are
// attributed to catalog models like its own, and a score the catalog record has is kept.
func TestTaskFitExtraScores(t *testing.T) {
	got := withScores([]seeds.BenchmarkRecord{{ProviderId: "openai", ModelId: "a", Scores: map[string]float64{"humaneval": 90}}},
		map[string]map[string]float64{"openai/a": {"ifeval": 80, "humaneval": 10}, "groq/b": {"bfcl": 70}})
	want := []seeds.BenchmarkRecord{
		{ProviderId: "openai", ModelId: "a", Scores: map[string]float64{"humaneval": 90, "ifeval": 80}},
		{ProviderId: "groq", ModelId: "b", Scores: map[string]float64{"bfcl": 70}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("withScores = %+v, want %+v", got, want)
	}
}

// TestLifecycleConfidence: `verified` only where the provider's page states the record's value, and every record
// cites only sources that name its model.
func TestLifecycleConfidence(t *testing.T) {
	dep := catalogbuild.OfficialPage{ID: "oa-dep", Title: "OpenAI API: Deprecations", URL: "https://platform.openai.com/docs/deprecations", Checked: "2026-11-24"}
	models := catalogbuild.OfficialPage{ID: "oa-models", Title: "OpenAI API: Models", URL: "https://platform.openai.com/docs/models", Checked: "2026-11-20"}
	azure := catalogbuild.OfficialPage{ID: "az-ret", Title: "Foundry: Model retirements", URL: "https://learn.microsoft.com/azure/ai-foundry/retirements", Checked: "2026-11-25"}
	day, repl := "2026-12-11", "gpt-5.5"
	lf := &lifecycleFacts{reference: "2026-11-25", files: map[string]*catalogbuild.LifecycleFile{"openai": {
		ProviderID: "openai", Pages: []catalogbuild.OfficialPage{dep, models},
		Retired: []catalogbuild.Retirement{{ModelID: "gpt-5-2025-08-07", Shutdown: &day, Replacement: &repl, Source: dep.ID},
			// The page names only the snapshot: the alias's entry follows it and is single.
			{ModelID: "gpt-5-pro", Shutdown: &day, Source: dep.ID, Follows: ptrTo("gpt-5-2025-08-07")}},
		Current: []catalogbuild.CurrentModel{{ModelID: "gpt-6", Task: "llm", Stage: "ga", Sources: []string{models.ID}}},
	}, "azure-openai": {
		ProviderID: "azure-openai", Pages: []catalogbuild.OfficialPage{azure},
		Retired: []catalogbuild.Retirement{{ModelID: "gpt-35-turbo", Shutdown: &day, Source: azure.ID}},
	}}}
	lin := map[string]catalogbuild.LineageFact{
		"openai/gpt-5":                  {Parent: catalogbuild.LineageParent{Provider: "openai", Model: "gpt-5-2025-08-07", Rule: catalogbuild.RuleAlias}, Shutdown: day, Page: dep.ID, Replacement: &repl},
		"openrouter/openai/gpt-5.0":     {Parent: catalogbuild.LineageParent{Provider: "openai", Model: "gpt-5-2025-08-07", Rule: catalogbuild.RuleMaker}, Shutdown: day, Page: dep.ID},
		"azure-openai/gpt-5-2025-08-07": {Parent: catalogbuild.LineageParent{Provider: "openai", Model: "gpt-5-2025-08-07", Rule: catalogbuild.RuleMaker}, Shutdown: day, Page: dep.ID},
	}
	inLiteLLM := catalogbuild.SourceFacts{LiteLLM: map[string]any{}}
	for _, c := range []struct {
		provider, model string
		facts           catalogbuild.SourceFacts
		status          api.DeprecationsStatus
		confidence      api.Confidence
		sources         []string
		days            *int
		replacement     *string
		note            string
	}{
		{"openai", "gpt-5-2025-08-07", inLiteLLM, "deprecated", "verified", []string{dep.ID}, ptrTo(16), &repl, "From the provider's page OpenAI API: Deprecations"},
		{"openai", "gpt-5", inLiteLLM, "deprecated", "single", []string{dep.ID}, ptrTo(16), &repl, "The alias points to gpt-5-2025-08-07"},
		{"openai", "gpt-5-pro", inLiteLLM, "deprecated", "single", []string{dep.ID}, ptrTo(16), nil, "From the provider's page OpenAI API: Deprecations"},
		{"openrouter", "openai/gpt-5.0", inLiteLLM, "deprecated", "single", []string{dep.ID}, ptrTo(16), nil, "openrouter serves openai's model gpt-5-2025-08-07"},
		// A host with its own lifecycle page that does not list the model follows the maker, and says which page it searched.
		{"azure-openai", "gpt-5-2025-08-07", inLiteLLM, "deprecated", "single", []string{dep.ID}, ptrTo(16), nil,
			"Not listed on Foundry: Model retirements (https://learn.microsoft.com/azure/ai-foundry/retirements), checked 2026-11-25."},
		{"openai", "gpt-6", catalogbuild.SourceFacts{}, "active", "verified", []string{models.ID}, nil, nil, "Listed as available on OpenAI API: Models (https://platform.openai.com/docs/models), checked 2026-11-20."},
		// Nothing deprecates it: active and single, the note names the page searched, which the record does not cite.
		{"openai", "gpt-4.2", catalogbuild.SourceFacts{LiteLLM: map[string]any{}, ModelsDev: map[string]any{}}, "active", "single",
			[]string{catalogbuild.SourceLiteLLM, catalogbuild.SourceModelsDev}, nil, nil,
			"Not listed on OpenAI API: Deprecations (https://platform.openai.com/docs/deprecations), checked 2026-11-24;"},
		{"openai", "gpt-3.9", catalogbuild.SourceFacts{LiteLLM: map[string]any{"deprecation_date": "2026-11-25"}}, "sunset", "single",
			[]string{catalogbuild.SourceLiteLLM}, ptrTo(0), nil, "litellm's deprecation_date is 2026-11-25"},
		{"mistral", "mistral-x", inLiteLLM, "active", "single", []string{catalogbuild.SourceLiteLLM}, nil, nil, "No deprecation page of the provider is on file."},
	} {
		r, err := deprecationOf(seeds.ModelRecord{ProviderId: c.provider, ModelId: c.model}, c.facts, lf, lin)
		if err != nil {
			t.Fatal(err)
		}
		key := c.provider + "/" + c.model
		if r.Status != c.status || r.Confidence != c.confidence || !reflect.DeepEqual(r.Sources, c.sources) {
			t.Errorf("%s: status %s confidence %s sources %v, want %s %s %v", key, r.Status, r.Confidence, r.Sources, c.status, c.confidence, c.sources)
		}
		if !reflect.DeepEqual(r.DaysUntilShutdown, c.days) || !reflect.DeepEqual(r.ReplacementModel, c.replacement) {
			t.Errorf("%s: days %v replacement %v, want %v %v", key, r.DaysUntilShutdown, r.ReplacementModel, c.days, c.replacement)
		}
		if r.Notes == nil || !strings.Contains(*r.Notes, c.note) {
			t.Errorf("%s: notes %v, want them to say %q", key, r.Notes, c.note)
		}
		// The lifecycle record rests on the same verdict: same shutdown day, sunset exactly when the deprecation is.
		l, err := lifecycleOf(seeds.ModelRecord{ProviderId: c.provider, ModelId: c.model}, c.facts, lf, lin)
		if err != nil {
			t.Fatal(err)
		}
		if (l.Stage == api.ModelLifecycleStageSunset) != (r.Status == deprecationSunset) || !reflect.DeepEqual(l.DaysUntilShutdown, r.DaysUntilShutdown) {
			t.Errorf("%s: lifecycle stage %s days %v, deprecation %s days %v", key, l.Stage, l.DaysUntilShutdown, r.Status, r.DaysUntilShutdown)
		}
		if c.confidence == "single" && l.Confidence == "verified" {
			t.Errorf("%s: lifecycle record verified where the deprecation record is not", key)
		}
	}
}

// TestScheduledRetirementStaysActive: a retirement day the provider set at release (Azure's schedule dates every
// generally available model) is served with its day and days left, while the model stays `active` and keeps its
// stage; from the day on it is `sunset`, like any other. An announced shutdown without the mark is `deprecated`.
func TestScheduledRetirementStaysActive(t *testing.T) {
	day := "2027-05-15"
	file := &catalogbuild.LifecycleFile{
		Pages:   []catalogbuild.OfficialPage{{ID: "schedule", Title: "Model retirement schedule", URL: "https://learn.microsoft.com/x", Checked: "2026-11-28"}},
		Current: []catalogbuild.CurrentModel{{ModelID: "gpt-x", Task: "llm", Stage: "ga", Sources: []string{"schedule"}}},
		Retired: []catalogbuild.Retirement{
			{ModelID: "gpt-x", Shutdown: &day, Source: "schedule", Scheduled: true},
			{ModelID: "gpt-y", Shutdown: &day, Source: "schedule"},
			{ModelID: "gpt-z", Shutdown: &day, Source: "schedule", Scheduled: true},
		},
	}
	for _, c := range []struct {
		model, ref, status, stage string
	}{
		{"gpt-x", "2026-11-28", "active", "ga"},
		{"gpt-z", "2026-11-28", "active", "ga"}, // not among the current models: the schedule dates GA models
		{"gpt-y", "2026-11-28", "deprecated", "hard_deprecated"},
		{"gpt-x", "2027-05-15", "sunset", "sunset"},
	} {
		r := file.Retirement(c.model)
		dep, err := curatedDeprecation("azure-openai", r, file, c.ref)
		if err != nil {
			t.Fatal(err)
		}
		lc, err := curatedLifecycle("azure-openai", r, file, c.ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(dep.Status) != c.status || string(lc.Stage) != c.stage || dep.SunsetDate == nil || dep.SunsetDate.String() != day ||
			lc.DeprecationDate == nil || dep.DaysUntilShutdown == nil {
			t.Errorf("%s at %s: status %s, stage %s, sunset %v, days %v; want %s, %s with the day", c.model, c.ref, dep.Status, lc.Stage,
				dep.SunsetDate, dep.DaysUntilShutdown, c.status, c.stage)
		}
	}
}

// TestAliasTakesItsModelsLifecycle: an alias the provider's page names is served with its model's stage and launch
// day, verified on that page, even where a data set dates the alias by an older model (models.dev gave
// ministral-3b-latest the release date of Ministral 3B 24.10).
func TestAliasTakesItsModelsLifecycle(t *testing.T) {
	released := "2025-12-02"
	lf := &lifecycleFacts{reference: "2026-11-28", files: map[string]*catalogbuild.LifecycleFile{"mistral": {
		ProviderID: "mistral",
		Pages:      []catalogbuild.OfficialPage{{ID: "mistral-models", Title: "Mistral AI Docs: Models", URL: "https://docs.mistral.ai/models", Checked: "2026-11-25"}},
		Current:    []catalogbuild.CurrentModel{{ModelID: "ministral-3b-2512", Task: "llm", Stage: "ga", Released: &released, Sources: []string{"mistral-models"}}},
		Aliases:    []catalogbuild.Alias{{Alias: "ministral-3b-latest", Model: "ministral-3b-2512", Source: "mistral-models"}},
	}}}
	r, err := lifecycleOf(seeds.ModelRecord{ProviderId: "mistral", ModelId: "ministral-3b-latest"},
		catalogbuild.SourceFacts{ModelsDev: map[string]any{"release_date": "2024-10-01"}}, lf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.LaunchDate == nil || r.LaunchDate.String() != released || r.Stage != "ga" || r.Confidence != api.ConfidenceVerified ||
		r.Notes == nil || !strings.HasPrefix(*r.Notes, "Listed as available on ") || !strings.Contains(*r.Notes, "ministral-3b-2512") {
		t.Errorf("ministral-3b-latest: %+v (notes %v)", r, r.Notes)
	}
	// An alias of a retired model is retired with it, whatever a data set says of the alias, and cites the page
	// that names the alias as well as the retirement's.
	day := "2026-03-31"
	f := lf.files["mistral"]
	f.Pages = append(f.Pages, catalogbuild.OfficialPage{ID: "mistral-deprecated", Title: "Mistral AI Docs: Deprecated models", URL: "https://docs.mistral.ai/deprecated", Checked: "2026-11-25"})
	f.Retired = []catalogbuild.Retirement{{ModelID: "codestral-2405", Shutdown: &day, Source: "mistral-deprecated"}}
	f.Aliases = append(f.Aliases, catalogbuild.Alias{Alias: "codestral-old-latest", Model: "codestral-2405", Source: "mistral-models"})
	r, err = lifecycleOf(seeds.ModelRecord{ProviderId: "mistral", ModelId: "codestral-old-latest"}, catalogbuild.SourceFacts{}, lf, nil)
	if err != nil || r.Stage != "sunset" || r.DeprecationDate == nil || r.DeprecationDate.String() != day ||
		r.Notes == nil || !strings.HasPrefix(*r.Notes, "An API name of codestral-2405 on Mistral AI Docs: Models") ||
		!slices.Contains(r.Sources, "mistral-models") || !slices.Contains(r.Sources, "mistral-deprecated") {
		t.Errorf("alias of a retired model: %+v (notes %v, %v)", r, stringOrNil(r.Notes), err)
	}
	// The page an alias alone cites is a source of the lifecycle catalogs, so that its records' sources resolve.
	f.Pages = append(f.Pages, catalogbuild.OfficialPage{ID: "mistral-aliases", Title: "Mistral AI Docs: Aliases", URL: "https://docs.mistral.ai/aliases", Checked: "2026-11-26"})
	f.Aliases = append(f.Aliases, catalogbuild.Alias{Alias: "ministral-latest", Model: "ministral-3b-2512", Source: "mistral-aliases"})
	if !slices.ContainsFunc(citedPages(lf), func(s seeds.Source) bool { return s.ID == "mistral-aliases" }) {
		t.Errorf("the alias's own page is not among the cited pages: %+v", citedPages(lf))
	}
	// An alias whose model the file neither lists nor retires is no alias the file can answer for.
	f.Aliases = append(f.Aliases, catalogbuild.Alias{Alias: "ghost-latest", Model: "ghost", Source: "mistral-models"})
	if _, ok := aliasVerdict("ghost-latest", f); ok {
		t.Error("an alias of an unknown model took a verdict")
	}
}

func stringOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestRemovedIsSunsetWithoutDay: a model the page says is no longer served, without a day, is `sunset` in both
// lifecycle catalogs with no shutdown day; one merely deprecated without a day stays `warning` / `soft_deprecated`.
func TestRemovedIsSunsetWithoutDay(t *testing.T) {
	f := &catalogbuild.LifecycleFile{ProviderID: "together",
		Pages:   []catalogbuild.OfficialPage{{ID: "p", Title: "Together AI: Deprecations", URL: "https://docs.together.ai/docs/deprecations", Checked: "2026-11-28"}},
		Retired: []catalogbuild.Retirement{{ModelID: "gone", Source: "p", Removed: true}, {ModelID: "old", Source: "p"}}}
	for model, want := range map[string][2]string{"gone": {"sunset", "sunset"}, "old": {"warning", "soft_deprecated"}} {
		r := f.Retirement(model)
		d, err := curatedDeprecation("together", r, f, "2026-11-28")
		if err != nil || string(d.Status) != want[0] || d.SunsetDate != nil || d.DaysUntilShutdown != nil {
			t.Errorf("%s deprecation: %+v, %v (want %s without a day)", model, d, err, want[0])
		}
		l, err := lifecycleRecord("together", model, retirementVerdict(r, f), "2026-11-28", nil)
		if err != nil || string(l.Stage) != want[1] || l.DeprecationDate != nil {
			t.Errorf("%s lifecycle: %+v, %v (want %s)", model, l, err, want[1])
		}
	}
}
