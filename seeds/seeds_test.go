package seeds

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestProviders(t *testing.T) {
	r := Providers()
	if n := len(r.All()); n != MonitoredProviders {
		t.Fatalf("%d providers, want %d", n, MonitoredProviders)
	}
	// The formats of docs/statuspage-formats.md; "http" is plain reachability.
	formats := map[string]bool{"statuspage": true, "incidentio": true, "instatus": true, "betterstack": true,
		"google-cloud": true, "aws-health": true, "azure-status": true, "rss": true, "http": true}
	id := regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	for _, p := range r.All() {
		if !id.MatchString(p.ID) || len(p.ID) > 64 {
			t.Errorf("provider ID %q is not a lowercase slug", p.ID)
		}
		if !formats[p.Format] {
			t.Errorf("%s: format %q is not one of the known formats", p.ID, p.Format)
		}
		if !r.Known(p.ID) {
			t.Errorf("Known(%q) = false", p.ID)
		}
	}
	if r.Known("not-a-provider") {
		t.Error("Known accepts an unknown ID")
	}
	if p, ok := r.Get("openai"); !ok || p.Name != "OpenAI" {
		t.Errorf("Get(openai) = %+v, %v", p, ok)
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"not json":  `{`,
		"duplicate": `[{"id":"a","name":"A","status_api_url":"u","format":"rss"},{"id":"a","name":"A","status_api_url":"u","format":"rss"}]`,
		"no format": `[{"id":"a","name":"A","status_api_url":"u"}]`,
	} {
		if _, err := parseProviders([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestAPIScopes(t *testing.T) {
	var f struct {
		AsOf      string           `json:"as_of"`
		Sources   []string         `json:"sources"`
		Providers map[string]Scope `json:"providers"`
	}
	if err := json.Unmarshal(apiScopesJSON, &f); err != nil {
		t.Fatal(err)
	}
	if f.AsOf == "" || len(f.Sources) == 0 {
		t.Error("api_scopes.json lacks as_of or sources")
	}
	// Components only mean something on pages that list components, keywords on pages that do not.
	componentFormats := map[string]bool{"statuspage": true, "incidentio": true, "instatus": true, "betterstack": true}
	keywordFormats := map[string]bool{"google-cloud": true, "aws-health": true, "azure-status": true, "rss": true}
	r := Providers()
	for id, sc := range f.Providers {
		p, ok := r.Get(id)
		if !ok {
			t.Errorf("%s: unknown provider", id)
			continue
		}
		if sc.Source == "" {
			t.Errorf("%s: scope without a source", id)
		}
		if len(sc.Components)+len(sc.Keywords) == 0 && !sc.DisruptionTop {
			t.Errorf("%s: empty scope (leave the provider out instead)", id)
		}
		for _, v := range append(append([]string(nil), sc.Components...), sc.Keywords...) {
			if strings.TrimSpace(v) == "" || strings.TrimSpace(v) != v {
				t.Errorf("%s: blank or padded scope value %q", id, v)
			}
		}
		if len(sc.Components) > 0 && !componentFormats[p.Format] {
			t.Errorf("%s: components given for format %s, which has none", id, p.Format)
		}
		if len(sc.Keywords) > 0 && !keywordFormats[p.Format] {
			t.Errorf("%s: keywords given for format %s, which has components", id, p.Format)
		}
		if sc.DisruptionTop && p.Format != "rss" {
			t.Errorf("%s: disruption_top is read on rss feeds only, not %s", id, p.Format)
		}
		if got := p.Scope; len(got.Components) != len(sc.Components) || len(got.Keywords) != len(sc.Keywords) ||
			got.DisruptionTop != sc.DisruptionTop {
			t.Errorf("%s: registry scope %+v, file says %+v", id, got, sc)
		}
	}
}

// TestStaleCatalogs: a catalog is stale once its newest source is older than StaleAfter, judged at the clock given.
func TestStaleCatalogs(t *testing.T) {
	dates, err := CatalogSourceDates()
	if err != nil {
		t.Fatal(err)
	}
	newest := map[string]time.Time{}
	var latest time.Time
	for _, d := range dates {
		if d.AsOf.After(newest[d.Catalog]) {
			newest[d.Catalog] = d.AsOf
		}
		if d.AsOf.After(latest) {
			latest = d.AsOf
		}
	}
	for name, d := range newest {
		s, err := StaleCatalogs(d.Add(StaleAfter))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s {
			if c.Catalog == name {
				t.Errorf("%s is stale exactly 45 days after its newest source", name)
			}
		}
	}
	all, err := StaleCatalogs(latest.Add(StaleAfter + 24*time.Hour))
	if err != nil || len(all) != len(newest) {
		t.Fatalf("46 days after every source: %d stale of %d (%v)", len(all), len(newest), err)
	}
	for i, c := range all {
		if !c.Newest.Equal(newest[c.Catalog]) || c.AgeDays < 46 || (i > 0 && c.Newest.Before(all[i-1].Newest)) {
			t.Errorf("stale %d: %+v", i, c)
		}
	}
}
