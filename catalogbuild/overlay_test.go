// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestApplyOfficial(t *testing.T) {
	file := []byte(`{"as_of": "2026-11-22", "sources": [{"id": "docs-x", "name": "X docs", "url": "https://x.example/limits", "license": null}],
	"records": [{"provider_id": "a", "tier": "t", "rpm": null}, {"provider_id": "b", "tier": "old", "rpm": 1}, {"provider_id": "c", "tier": "t", "rpm": 3}]}`)
	facts := OfficialFacts{"b": {ProviderID: "b",
		Pages: []OfficialPage{
			{ID: "b-limits", Title: "B limits", URL: "https://x.example/limits", Checked: "2026-11-24"},
			{ID: "b-tiers", Title: "B tiers", URL: "https://b.example/tiers", Checked: "2026-11-23"},
		},
		Catalogs: map[string]CatalogFacts{"rate_limits": {
			Records: []json.RawMessage{json.RawMessage(`{"provider_id": "b", "tier": "paid", "rpm": 500, "notes": null, "sources": ["b-tiers"]}`), json.RawMessage(`{"provider_id": "b", "tier": "free", "rpm": 10, "notes": "Free tier."}`)},
			Sources: []string{"b-limits", "b-tiers"},
		}},
	}}
	out, err := ApplyOfficial("rate_limits", file, facts)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		AsOf    string           `json:"as_of"`
		Sources []Source         `json:"sources"`
		Records []map[string]any `json:"records"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range env.Records {
		order = append(order, r["provider_id"].(string)+"/"+r["tier"].(string))
	}
	if strings.Join(order, " ") != "a/t b/free b/paid c/t" { // b's tiers sorted
		t.Errorf("records %v", order)
	}
	b := env.Records[1]
	if b["confidence"] != ConfidenceVerified || len(b["sources"].([]any)) != 2 || b["sources"].([]any)[0] != "b-tiers" || b["sources"].([]any)[1] != "docs-x" {
		t.Errorf("curated record provenance: %v", b)
	}
	// A record that names its own pages cites those alone, not every page of its catalog.
	if paid := env.Records[2]; len(paid["sources"].([]any)) != 1 || paid["sources"].([]any)[0] != "b-tiers" || paid["notes"] != "Sources: https://b.example/tiers." {
		t.Errorf("a record citing one page: %v", paid)
	}
	if len(env.Sources) != 2 || env.Sources[1].URL != "https://b.example/tiers" || env.AsOf != "2026-11-24" {
		t.Errorf("sources %+v, as_of %s", env.Sources, env.AsOf)
	}
	// The base source the curated page shares a URL with takes the page's check day, not the catalog's as_of.
	if a := env.Sources[0].AsOf; a == nil || *a != "2026-11-24" {
		t.Errorf("docs-x as_of %v, want the b-limits page's check day 2026-11-24", a)
	}
	if a := env.Sources[1].AsOf; a == nil || *a != "2026-11-23" {
		t.Errorf("b-tiers as_of %v, want its check day 2026-11-23", a)
	}
	if env.Records[1]["notes"] != "Free tier. Sources: https://x.example/limits, https://b.example/tiers." {
		t.Errorf("notes: %v", env.Records[1]["notes"])
	}
	if _, ok := env.Records[0]["sources"]; ok {
		t.Error("another provider's record was touched")
	}
	again, err := ApplyOfficial("rate_limits", out, facts)
	if err != nil || string(again) != string(out) {
		t.Errorf("not idempotent: %v", err)
	}
	if same, _ := ApplyOfficial("sla", file, facts); string(same) != string(file) {
		t.Error("a catalog without curated facts changed")
	}
}

func TestLoadProviderFactsChecks(t *testing.T) {
	known := map[string]bool{"openai": true}
	for i, bad := range []string{
		`{"provider_id": "openai", "pages": [{"id": "p", "title": "t", "url": "https://x", "checked": "2026-11-24", "as_of": null}], "catalogs": {"sla": {"records": [{"provider_id": "anthropic"}], "sources": ["p"], "unknown": {}}}}`,
		`{"provider_id": "openai", "pages": [{"id": "p", "title": "t", "url": "https://x", "checked": "2026-11-24", "as_of": null}], "catalogs": {"sla": {"records": [{"provider_id": "openai"}], "sources": ["q"], "unknown": {}}}}`,
		`{"provider_id": "openai", "pages": [{"id": "p", "title": "t", "url": "ftp://x", "checked": "2026-11-24", "as_of": null}], "catalogs": {}}`,
		`{"provider_id": "openai", "pages": [{"id": "p", "title": "t", "url": "https://x", "checked": "2026-11-24", "as_of": null}], "catalogs": {"sla": {"records": [{"provider_id": "openai", "sources": ["q"]}], "sources": ["p"], "unknown": {}}}}`,
		// A review note must name a field of an existing record, or it would be lost from REPORT.md silently.
		`{"provider_id": "openai", "pages": [{"id": "p", "title": "t", "url": "https://x", "checked": "2026-11-24", "as_of": null}], "catalogs": {"sla": {"records": [{"provider_id": "openai"}], "sources": ["p"], "unknown": {}, "review": {"records[1].notes": "x"}}}}`,
		`{"provider_id": "openai", "pages": [{"id": "p", "title": "t", "url": "https://x", "checked": "2026-11-24", "as_of": null}], "catalogs": {"sla": {"records": [{"provider_id": "openai"}], "sources": ["p"], "unknown": {}, "review": {"notes": "x"}}}}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "openai.json"), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadProviderFacts(dir, known); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	ok := `{"provider_id": "openai", "pages": [{"id": "p", "title": "t", "url": "https://x", "checked": "2026-11-24", "as_of": null}], "catalogs": {"sla": {"records": [{"provider_id": "openai"}], "sources": ["p"], "unknown": {}, "review": {"records[0].notes": "read in an older version"}}}}`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openai.json"), []byte(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := LoadProviderFacts(dir, known); err != nil || f["openai"].Catalogs["sla"].Review["records[0].notes"] == "" {
		t.Errorf("a valid review note: %v", err)
	}
	if _, err := LoadProviderFacts(filepath.Join("..", "sources", "official", "providers"), knownAll(t)); err != nil {
		t.Errorf("the committed curated facts: %v", err)
	}
}
