package catalog

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/seeds"
)

type rec struct {
	Provider, Model, Kind string
	Free                  bool
	Score                 *float64
	Context               *int
	Released              string // YYYY-MM-DD or ""
}

func f(v float64) *float64 { return &v }
func n(v int) *int         { return &v }

func provider(r *rec) string { return r.Provider }
func model(r *rec) string    { return r.Model }
func score(r *rec) *float64  { return r.Score }
func released(r *rec) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, r.Released)
	return d, err == nil
}

// records are deliberately out of order, with a tie on score, unknown values and a provider without records.
var records = []rec{
	{Provider: "b", Model: "m2", Kind: "llm", Score: f(70), Context: n(8000), Released: "2025-03-01"},
	{Provider: "a", Model: "m9", Kind: "image", Free: true, Score: nil, Context: nil, Released: ""},
	{Provider: "a", Model: "m1", Kind: "llm", Score: f(90), Context: n(128000), Released: "2024-06-15"},
	{Provider: "c", Model: "Big-Model", Kind: "llm", Free: true, Score: f(70), Context: n(32000), Released: "2025-01-10"},
	{Provider: "b", Model: "m1", Kind: "llm", Score: f(80), Context: n(200000), Released: "2025-12-31"},
}

var known = map[string]bool{"a": true, "b": true, "c": true, "d": true}

func testCatalog(t *testing.T) *Catalog[rec] {
	t.Helper()
	c, err := New(Spec[rec]{
		Name: "test", Provider: provider, Known: func(id string) bool { return known[id] },
		Natural: ByKeys(provider, model),
		Orders: map[string]Order[rec]{
			"score": {By: Then(Descending(score), ByKeys(provider, model))},
			"free":  {By: ByKeys(model, provider), Only: func(r *rec) bool { return r.Free }},
		},
	}, "2026-01-02", []seeds.Source{{Name: "src", URL: "https://example.com"}}, slices.Clone(records))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ids(rs []rec) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Provider + "/" + r.Model
	}
	return strings.Join(out, " ")
}

func TestSelect(t *testing.T) {
	c := testCatalog(t)
	yes, no := true, false
	llm := "llm"
	for _, tc := range []struct {
		name string
		q    Query[rec]
		want string
	}{
		{"natural order", Query[rec]{}, "a/m1 a/m9 b/m1 b/m2 c/Big-Model"},
		{"provider index", Query[rec]{Provider: "b"}, "b/m1 b/m2"},
		{"known provider without records", Query[rec]{Provider: "d"}, ""},
		{"descending, unknown last, ties by provider then model", Query[rec]{Order: "score"}, "a/m1 b/m1 b/m2 c/Big-Model a/m9"},
		{"limit", Query[rec]{Order: "score", Limit: 2}, "a/m1 b/m1"},
		{"a view keeps its subset in its order", Query[rec]{Order: "free"}, "c/Big-Model a/m9"},
		{"a view by provider", Query[rec]{Order: "free", Provider: "b"}, ""},
		{"limit with a filter counts kept records", Query[rec]{Filters: []Filter[rec]{Flag(true, func(r *rec) bool { return r.Provider != "a" })}, Limit: 2}, "b/m1 b/m2"},
		{"flag off is no filter", Query[rec]{Filters: []Filter[rec]{Flag(false, func(r *rec) bool { return r.Free })}}, "a/m1 a/m9 b/m1 b/m2 c/Big-Model"},
		{"flag on", Query[rec]{Filters: []Filter[rec]{Flag(true, func(r *rec) bool { return r.Free })}}, "a/m9 c/Big-Model"},
		{"is true", Query[rec]{Filters: []Filter[rec]{Is(&yes, func(r *rec) bool { return r.Free })}}, "a/m9 c/Big-Model"},
		{"is false keeps the others", Query[rec]{Filters: []Filter[rec]{Is(&no, func(r *rec) bool { return r.Free })}}, "a/m1 b/m1 b/m2"},
		{"is nil is no filter", Query[rec]{Filters: []Filter[rec]{Is(nil, func(r *rec) bool { return r.Free })}}, "a/m1 a/m9 b/m1 b/m2 c/Big-Model"},
		{"is-known true", Query[rec]{Filters: []Filter[rec]{IsKnown(&yes, knownFree)}}, "a/m9 c/Big-Model"},
		{"is-known false drops the unknown", Query[rec]{Filters: []Filter[rec]{IsKnown(&no, knownFree)}}, "b/m1 b/m2"},
		{"is-known nil is no filter", Query[rec]{Filters: []Filter[rec]{IsKnown(nil, knownFree)}}, "a/m1 a/m9 b/m1 b/m2 c/Big-Model"},
		{"enum", Query[rec]{Filters: []Filter[rec]{Equal(&llm, func(r *rec) string { return r.Kind })}}, "a/m1 b/m1 b/m2 c/Big-Model"},
		{"partial, case-insensitive", Query[rec]{Filters: []Filter[rec]{Contains("big", model)}}, "c/Big-Model"},
		{"partial matching nothing", Query[rec]{Filters: []Filter[rec]{Contains("zzz", model)}}, ""},
		{"minimum drops unknown values", Query[rec]{Filters: []Filter[rec]{AtLeast(32000, func(r *rec) *int { return r.Context })}}, "a/m1 b/m1 c/Big-Model"},
		{"minimum 0 keeps unknown values", Query[rec]{Filters: []Filter[rec]{AtLeast(0, func(r *rec) *int { return r.Context })}}, "a/m1 a/m9 b/m1 b/m2 c/Big-Model"},
		{"date range, inclusive", Query[rec]{Filters: []Filter[rec]{Between(day("2025-01-10"), day("2025-03-01"), released)}}, "b/m2 c/Big-Model"},
		{"date from only", Query[rec]{Filters: []Filter[rec]{Between(day("2025-06-01"), time.Time{}, released)}}, "b/m1"},
		{"date to only drops unknown dates", Query[rec]{Filters: []Filter[rec]{Between(time.Time{}, day("2024-12-31"), released)}}, "a/m1"},
		{"filters combine with AND", Query[rec]{Provider: "b", Filters: []Filter[rec]{Equal(&llm, func(r *rec) string { return r.Kind }), AtLeast(100000, func(r *rec) *int { return r.Context })}}, "b/m1"},
	} {
		got, err := c.Select(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got == nil {
			t.Errorf("%s: nil slice (encodes as null)", tc.name)
		}
		if ids(got) != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, ids(got), tc.want)
		}
	}
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestSelectErrors(t *testing.T) {
	c := testCatalog(t)
	var unknown *errs.UnknownProviderError
	if _, err := c.Select(Query[rec]{Provider: "zz"}); !errors.As(err, &unknown) || unknown.ID != "zz" {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := c.Select(Query[rec]{Order: "nope"}); err == nil || errors.As(err, &unknown) {
		t.Errorf("unknown order: %v", err)
	}
}

func TestNewChecks(t *testing.T) {
	ok := Spec[rec]{Name: "x", Provider: provider, Natural: ByKeys(provider), Known: func(id string) bool { return id == "a" }}
	if _, err := New(ok, "2026-01-01", nil, []rec{{Provider: "b"}}); err == nil {
		t.Error("a record of an unknown provider was accepted")
	}
	bad := ok
	bad.Natural = nil
	if _, err := New(bad, "2026-01-01", nil, nil); err == nil {
		t.Error("a spec without a natural order was accepted")
	}
}

func TestMetaAndCount(t *testing.T) {
	c := testCatalog(t)
	if c.AsOf() != "2026-01-02" || len(c.Sources()) != 1 || c.Len() != len(records) {
		t.Errorf("meta: %s %v %d", c.AsOf(), c.Sources(), c.Len())
	}
	all, _ := c.Select(Query[rec]{})
	if got := Count(all, func(r *rec) bool { return r.Free }); got != 2 {
		t.Errorf("Count = %d, want 2", got)
	}
}

// TestSelectSharesWithoutFilters pins the zero-copy path: a request without filters gets the index itself.
func TestSelectSharesWithoutFilters(t *testing.T) {
	c := testCatalog(t)
	a, _ := c.Select(Query[rec]{Provider: "a"})
	b, _ := c.Select(Query[rec]{Provider: "a"})
	if &a[0] != &b[0] {
		t.Error("an unfiltered request copied the records")
	}
}

func TestLoadFromSeeds(t *testing.T) {
	type pricing struct {
		ProviderID string `json:"provider_id"`
		Model      string `json:"model"`
	}
	reg := seeds.Providers()
	c, err := Load(Spec[pricing]{
		Name: seeds.CatalogPricing, Known: reg.Known,
		Provider: func(r *pricing) string { return r.ProviderID },
		Natural:  ByKeys(func(r *pricing) string { return r.ProviderID }, func(r *pricing) string { return r.Model }),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := seeds.LoadCatalog(seeds.CatalogPricing)
	if c.Len() != len(raw.Records) || c.AsOf() != raw.AsOf {
		t.Errorf("loaded %d records as of %s, file has %d as of %s", c.Len(), c.AsOf(), len(raw.Records), raw.AsOf)
	}
	if _, err := Load(Spec[pricing]{Name: "nope", Known: reg.Known, Provider: func(r *pricing) string { return r.ProviderID }, Natural: ByKeys(func(r *pricing) string { return r.Model })}); err == nil {
		t.Error("loading a missing catalog succeeded")
	}
}

func BenchmarkSelectFiltered(b *testing.B) {
	type pricing struct {
		ProviderID string `json:"provider_id"`
		Model      string `json:"model"`
		FreeTier   bool   `json:"free_tier"`
	}
	c, err := Load(Spec[pricing]{
		Name: seeds.CatalogPricing, Known: seeds.Providers().Known,
		Provider: func(r *pricing) string { return r.ProviderID },
		Natural:  ByKeys(func(r *pricing) string { return r.ProviderID }, func(r *pricing) string { return r.Model }),
	})
	if err != nil {
		b.Fatal(err)
	}
	q := Query[pricing]{Filters: []Filter[pricing]{Flag(true, func(r *pricing) bool { return r.FreeTier })}}
	for b.Loop() {
		if _, err := c.Select(q); err != nil {
			b.Fatal(err)
		}
	}
}

// knownFree reads rec.Free as a field that is unknown for a/m1, to test IsKnown.
func knownFree(r *rec) *bool {
	if r.Provider == "a" && r.Model == "m1" {
		return nil
	}
	return &r.Free
}

func TestEqualKnown(t *testing.T) {
	ctx := func(r *rec) *int { return r.Context }
	if EqualKnown[rec](nil, ctx) != nil {
		t.Fatal("EqualKnown(nil) is a filter")
	}
	want := 8000
	keep := EqualKnown(&want, ctx)
	var got []string
	for _, r := range records {
		if keep(&r) {
			got = append(got, r.Provider+"/"+r.Model)
		}
	}
	// a/m9 has an unknown context: dropped, as are the known values that differ.
	if strings.Join(got, " ") != "b/m2" {
		t.Errorf("EqualKnown(8000) kept %v, want [b/m2]", got)
	}
}

func TestAnyContains(t *testing.T) {
	type tool struct {
		Name   string
		Models []string
	}
	models := func(r *tool) []string { return r.Models }
	if AnyContains("", models) != nil {
		t.Fatal(`AnyContains("") is a filter`)
	}
	tools := []tool{
		{"search", []string{"gpt-4o", "GPT-5"}},
		{"code", []string{"o3"}},
		{"files", nil}, // models not published: matches no needle
	}
	keep := AnyContains("gpt-5", models)
	var got []string
	for _, r := range tools {
		if keep(&r) {
			got = append(got, r.Name)
		}
	}
	if strings.Join(got, " ") != "search" {
		t.Errorf(`AnyContains("gpt-5") kept %v, want [search] (case-insensitive, any entry, empty list never)`, got)
	}
}
