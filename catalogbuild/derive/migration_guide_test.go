package derive

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func mgBool(v bool) *bool { return &v }
func mgInt(v int) *int    { return &v }

// mgFacts is a provider with every capability, on the reference API (drop-in).
func mgFacts(id string) *MigrationFacts {
	return &MigrationFacts{
		ID: id, Compatible: mgBool(true), DropIn: mgBool(true), Tools: mgBool(true), Parallel: mgBool(true), Forced: mgBool(true),
		ForceOption: "required", Schema: mgBool(true), Strict: mgBool(true), SchemaParam: "response_format",
		ResultRole: "tool", ResultKey: "content", SchemaFormat: "json_schema", StrictRoles: mgBool(false),
	}
}

func TestMigrationRules(t *testing.T) {
	// openai and groq are real auth entries with the same Bearer scheme.
	from, to := mgFacts("openai"), mgFacts("groq")
	g := BuildMigrationGuide(from, to)
	if g.Difficulty != "drop_in" || len(g.ParamChanges) != 0 || len(g.MissingFeatures) != 0 || !g.ReferenceCompat {
		t.Errorf("two drop-in providers with the same capabilities: %+v", g)
	}
	if !strings.Contains(g.AuthChange, "Bearer <Groq API key>") {
		t.Errorf("auth_change %q", g.AuthChange)
	}

	// An unconfirmed capability on the target: a gotcha, and no longer drop_in.
	to.Strict = nil
	if g = BuildMigrationGuide(from, to); g.Difficulty != "easy" || !slices.Contains(g.Gotchas, "strict schema enforcement not confirmed on groq") {
		t.Errorf("unconfirmed strict mode: %+v", g)
	}
	// A missing capability: listed, easy on the reference path.
	to.Strict = mgBool(false)
	if g = BuildMigrationGuide(from, to); g.Difficulty != "easy" || !slices.Equal(g.MissingFeatures, []string{"strict schema enforcement"}) {
		t.Errorf("missing strict mode: %+v", g)
	}
	// Three missing capabilities raise the level by one.
	to.Parallel, to.Forced = mgBool(false), mgBool(false)
	if g = BuildMigrationGuide(from, to); g.Difficulty != "moderate" || len(g.MissingFeatures) != 3 {
		t.Errorf("three missing features: %+v", g)
	}
	// Losing tool calling altogether is hard.
	to = mgFacts("groq")
	to.Tools = mgBool(false)
	if g = BuildMigrationGuide(from, to); g.Difficulty != "hard" || g.MissingFeatures[0] != "tool calling" {
		t.Errorf("no tool calling: %+v", g)
	}
	// A capability the source lacks is never missing.
	from.Strict, to = mgBool(false), mgFacts("groq")
	to.Strict = mgBool(false)
	if g = BuildMigrationGuide(from, to); len(g.MissingFeatures) != 0 || g.Difficulty != "drop_in" {
		t.Errorf("a capability neither has: %+v", g)
	}
}

func TestMigrationNativePath(t *testing.T) {
	from, to := mgFacts("openai"), mgFacts("anthropic")
	to.DropIn = mgBool(false)
	to.ForceOption, to.SchemaParam, to.ResultRole, to.StrictRoles = "any", "output_format", "user", mgBool(true)
	to.Quirks = []string{"a quirk of the compatibility layer"}
	g := BuildMigrationGuide(from, to)
	if g.Difficulty != "moderate" {
		t.Errorf("drop-in source to a native target: %s, want moderate", g.Difficulty)
	}
	got := make([]string, len(g.ParamChanges))
	for i, c := range g.ParamChanges {
		got[i] = fmt.Sprintf("%v->%v", *c.From, *c.To)
	}
	want := []string{"response_format->output_format", "tool_choice=required->tool_choice=any",
		"tool result: role tool, content->tool result: role user, content"}
	if !slices.Equal(got, want) {
		t.Errorf("param_changes %v, want %v", got, want)
	}
	if slices.ContainsFunc(g.Gotchas, func(s string) bool { return strings.Contains(s, "quirk") }) {
		t.Error("compatibility-layer quirks listed on the native path")
	}
	if !slices.Contains(g.Gotchas, "anthropic rejects messages that break its expected role order") {
		t.Errorf("gotchas %v lack the role ordering", g.Gotchas)
	}
	if !strings.Contains(g.AuthChange, "x-api-key") {
		t.Errorf("auth_change %q does not name the native scheme", g.AuthChange)
	}
	// Neither side drop-in: hard. A parameter only one side has: null on the other.
	from.DropIn, from.SchemaParam = mgBool(false), ""
	g = BuildMigrationGuide(from, to)
	if g.Difficulty != "hard" || g.ParamChanges[0].From != nil || *g.ParamChanges[0].To != "output_format" {
		t.Errorf("native to native: %+v", g)
	}
	// Quirks of the target show on the reference path.
	to.DropIn = mgBool(true)
	from.DropIn = mgBool(true)
	if g = BuildMigrationGuide(from, to); !slices.Contains(g.Gotchas, "anthropic: a quirk of the compatibility layer") || len(g.ParamChanges) != 0 {
		t.Errorf("reference path: %+v", g)
	}
}

func TestMigrationFactsFrom(t *testing.T) {
	s := func(v string) *string { return &v }
	f := migrationFactsFrom([]string{"p", "q"},
		[]mgCompat{{ProviderID: "p", Compatible: mgBool(true), DropIn: mgBool(false)}, {ProviderID: "x"}},
		[]mgFunctionCalling{{ProviderID: "p", Supported: mgBool(true), MaxTools: mgInt(64), Options: []string{"auto", "ANY", "none"}}},
		[]mgStructured{
			{ProviderID: "p", Schema: mgBool(true), Strict: mgBool(false), Param: s("tools")},
			{ProviderID: "p", Schema: mgBool(true), Strict: mgBool(false), Param: s("tools")},
			{ProviderID: "p", Schema: mgBool(true), Strict: mgBool(true), Param: s("response_schema")},
			{ProviderID: "q", Schema: mgBool(false), Strict: mgBool(false)},
			{ProviderID: "q", Schema: nil, Strict: nil},
		},
		[]mgToolFormat{
			{ProviderID: "p", ModelID: s("m1"), ResultRole: "user", ResultKey: "a", SchemaFormat: "x"},
			{ProviderID: "p", ModelID: s("m2"), ResultRole: "user", ResultKey: "a", SchemaFormat: "x"},
			{ProviderID: "p", ModelID: nil, ResultRole: "tool", ResultKey: "content", SchemaFormat: "json_schema"},
			{ProviderID: "q", ModelID: s("m1"), ResultRole: "user", ResultKey: "b", SchemaFormat: "y"},
			{ProviderID: "q", ModelID: s("m2"), ResultRole: "tool", ResultKey: "c", SchemaFormat: "z"},
			{ProviderID: "q", ModelID: s("m3"), ResultRole: "user", ResultKey: "b", SchemaFormat: "y"},
		})
	p, q := f["p"], f["q"]
	if !isTrueFact(p.Compatible) || !isFalseFact(p.DropIn) || p.ForceOption != "ANY" || *p.MaxTools != 64 {
		t.Errorf("p compat and tools: %+v", p)
	}
	// The parameter of the strictly enforcing model wins over the more common one.
	if !isTrueFact(p.Schema) || !isTrueFact(p.Strict) || p.SchemaParam != "response_schema" {
		t.Errorf("p structured output: schema %v strict %v param %q", p.Schema, p.Strict, p.SchemaParam)
	}
	// One model unknown, one false: not known to lack it.
	if q.Schema != nil || q.Strict != nil || q.SchemaParam != "" || q.Compatible != nil {
		t.Errorf("q structured output: %+v", q)
	}
	// The provider-wide tool format wins; otherwise the most common per-model one.
	if p.ResultRole != "tool" || p.ResultKey != "content" || q.ResultRole != "user" || q.ResultKey != "b" {
		t.Errorf("tool formats: p %s/%s, q %s/%s", p.ResultRole, p.ResultKey, q.ResultRole, q.ResultKey)
	}
}

// TestMigrationGuidesFromSeeds builds the guides from the embedded catalogs: every ordered pair of the 15 once, in
// the endpoint's order, with reference_compat read from the target's reference-compat record.
func TestMigrationGuidesFromSeeds(t *testing.T) {
	built, err := buildMigrationGuides(&Input{})
	if err != nil {
		t.Fatal(err)
	}
	asOf, sources, guides := built.AsOf, built.Sources, built.Records.([]api.MigrationGuideRecord)
	if len(guides) != 15*14 || len(sources) == 0 || asOf == "" {
		t.Fatalf("%d guides, %d sources, as_of %q", len(guides), len(sources), asOf)
	}
	compat := map[string]bool{}
	c, _ := seeds.LoadCatalog("reference_compat")
	recs, err := seeds.Records[mgCompat](c)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		compat[r.ProviderID] = isTrueFact(r.Compatible)
	}
	seen := map[string]bool{}
	levels := map[string]int{}
	idOf := map[string]string{}
	for _, src := range sources {
		idOf[src.URL] = src.ID
	}
	for i, g := range guides {
		// A guide cites what it stands on: both providers' authentication pages and their input records' sources,
		// not every source of the catalog.
		from, to := slices.Index(MigrationProviders, g.FromProvider), slices.Index(MigrationProviders, g.ToProvider)
		if from >= 0 && to >= 0 && (!slices.Contains(g.Sources, idOf[migrationAuthSources[from]]) ||
			!slices.Contains(g.Sources, idOf[migrationAuthSources[to]]) || len(g.Sources) >= len(sources)) {
			t.Errorf("guide %s>%s cites %d of %d sources: %v", g.FromProvider, g.ToProvider, len(g.Sources), len(sources), g.Sources)
		}
		k := g.FromProvider + ">" + g.ToProvider
		if seen[k] || g.FromProvider == g.ToProvider || !slices.Contains(MigrationProviders, g.FromProvider) || !slices.Contains(MigrationProviders, g.ToProvider) {
			t.Errorf("guide %d: %s repeated or outside the 15", i, k)
		}
		seen[k] = true
		levels[string(g.Difficulty)]++
		if g.ReferenceCompat != compat[g.ToProvider] {
			t.Errorf("%s: reference_compat %v, the target's record says %v", k, g.ReferenceCompat, compat[g.ToProvider])
		}
		if g.AuthChange == "" || g.ParamChanges == nil || g.MissingFeatures == nil || g.Gotchas == nil {
			t.Errorf("%s: empty auth_change or nil lists", k)
		}
		if i > 0 {
			p := guides[i-1]
			pi, gi := slices.Index(migrationDifficulties, string(p.Difficulty)), slices.Index(migrationDifficulties, string(g.Difficulty))
			if pi > gi || (pi == gi && p.FromProvider+">"+p.ToProvider > k) {
				t.Errorf("guide %d (%s) is out of order", i, k)
			}
		}
	}
	// The data should exercise more than one level, or max_difficulty could not be told apart.
	if len(levels) < 3 {
		t.Errorf("difficulties %v: the guides do not exercise the levels", levels)
	}
	for _, p := range MigrationProviders {
		if _, ok := migrationAuths[p]; !ok {
			t.Errorf("no authentication entry for %s", p)
		}
	}
}
