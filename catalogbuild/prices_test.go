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

	"github.com/switchboard/switchboard/gen/api"
)

const priceFileOK = `{
  "provider_id": "deepseek",
  "pages": [{"id": "ds-pricing", "title": "DeepSeek: Models & Pricing", "url": "https://api-docs.deepseek.com/quick_start/pricing", "checked": "2026-11-28", "as_of": null}],
  "models": [
    {"model_id": "m1", "standard": null, "promotion": null, "time_of_day": null,
     "long_context": {"threshold_tokens": 200000, "input_per_1m": 4, "output_per_1m": 18, "cached_input_per_1m": null, "source": "ds-pricing"}},
    {"model_id": "m2", "standard": {"input_per_1m_tokens": 1.5, "output_per_1m_tokens": 7.5, "cached_input_per_1m_tokens": null, "source": "ds-pricing"},
     "long_context": null, "time_of_day": null,
     "promotion": {"input_per_1m": 0.75, "output_per_1m": 3.75, "cached_input_per_1m": null, "ends": "2026-12-31", "note": "Half price through 2026-12-31.", "source": "ds-pricing"}},
    {"model_id": "m3", "standard": null, "long_context": null, "promotion": null,
     "time_of_day": {"note": "Off-peak at half.", "source": "ds-pricing", "windows": [
       {"label": "off_peak", "days": ["mon", "tue"], "from_utc": "10:00", "to_utc": "24:00", "input_per_1m": 0.15, "output_per_1m": 0.6, "cached_input_per_1m": 0.003},
       {"label": "off_peak", "days": ["sat"], "from_utc": "00:00", "to_utc": "24:00", "input_per_1m": 0.15, "output_per_1m": 0.6, "cached_input_per_1m": null}]}}
  ]
}`

func writePriceFile(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadPrices(t *testing.T) {
	known := map[string]bool{"deepseek": true}
	files, err := LoadPrices(writePriceFile(t, "deepseek.json", priceFileOK), known)
	if err != nil {
		t.Fatal(err)
	}
	f := files["deepseek"]
	if f == nil || len(f.Models) != 3 {
		t.Fatalf("files = %+v", files)
	}
	if lc := f.Model("m1").LongContext; lc == nil || lc.ThresholdTokens != 200000 || lc.InputPer1m != 4 {
		t.Errorf("m1 long context = %+v", lc)
	}
	if p := f.Model("m2").Promotion; p == nil || p.Ends.Format("2006-01-02") != "2026-12-31" {
		t.Errorf("m2 promotion = %+v", p)
	}
	if f.Model("nope") != nil {
		t.Error("unknown model found")
	}
	// A missing folder is no curated data.
	if files, err := LoadPrices(filepath.Join(t.TempDir(), "none"), known); err != nil || len(files) != 0 {
		t.Errorf("missing folder: %v, %v", files, err)
	}
}

func TestLoadPricesRejects(t *testing.T) {
	known := map[string]bool{"deepseek": true}
	cases := []struct{ name, from, to, want string }{
		{"unknown page", `"source": "ds-pricing"}},`, `"source": "other"}},`, "unknown page"},
		{"zero threshold", `"threshold_tokens": 200000`, `"threshold_tokens": 0`, "not positive"},
		{"negative rate", `"input_per_1m": 4,`, `"input_per_1m": -4,`, "out of range"},
		{"no end day", `"ends": "2026-12-31", "note": "Half price through 2026-12-31."`, `"ends": "2026-12-31", "note": " "`, "end day and a note"},
		{"overlap", `{"label": "off_peak", "days": ["sat"]`, `{"label": "off_peak", "days": ["tue"]`, "overlaps"},
		{"empty range", `"from_utc": "10:00", "to_utc": "24:00"`, `"from_utc": "10:00", "to_utc": "10:00"`, "no UTC time range"},
		{"bad time", `"from_utc": "10:00"`, `"from_utc": "25:00"`, "no UTC time range"},
		{"bad day", `"days": ["mon", "tue"]`, `"days": ["mon", "tues"]`, "day"},
		{"unknown field", `"model_id": "m1",`, `"model_id": "m1", "bogus": 1,`, "unknown field"},
		{"cached and none", `"cached_input_per_1m_tokens": null, "source": "ds-pricing"}`, `"cached_input_per_1m_tokens": 0.1, "no_cached_input": true, "source": "ds-pricing"}`, "say there is none"},
		{"repeated model", `"model_id": "m2"`, `"model_id": "m1"`, "repeated"},
		{"two structures", `"model_id": "m2", "standard": {"input_per_1m_tokens": 1.5, "output_per_1m_tokens": 7.5, "cached_input_per_1m_tokens": null, "source": "ds-pricing"},
     "long_context": null,`, `"model_id": "m2", "standard": null,
     "long_context": {"threshold_tokens": 1000, "input_per_1m": 1, "output_per_1m": null, "cached_input_per_1m": null, "source": "ds-pricing"},`, "more than one"},
	}
	for _, c := range cases {
		body := strings.Replace(priceFileOK, c.from, c.to, 1)
		if body == priceFileOK {
			t.Fatalf("%s: the replacement did not apply", c.name)
		}
		_, err := LoadPrices(writePriceFile(t, "deepseek.json", body), known)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := LoadPrices(writePriceFile(t, "other.json", priceFileOK), known); err == nil {
		t.Error("a file named after another provider was accepted")
	}
	if _, err := LoadPrices(writePriceFile(t, "deepseek.json", priceFileOK), map[string]bool{}); err == nil {
		t.Error("an unknown provider was accepted")
	}
}

// TestPriceStructuresReachRecords builds the repository's catalogs and checks that every curated structure is on
// its pricing record with its page among the record's and the catalog's sources.
func TestPriceStructuresReachRecords(t *testing.T) {
	known := knownAll(t)
	res, err := Convert(Input{DataDir: filepath.Join("..", "sources", "upstream"), KnownProviders: known})
	if err != nil {
		t.Fatal(err)
	}
	files, err := LoadPrices(filepath.Join("..", "sources", "official", "prices"), known)
	if err != nil {
		t.Fatal(err)
	}
	life, err := LoadLifecycle(filepath.Join("..", "sources", "official", "lifecycle"), known)
	if err != nil {
		t.Fatal(err)
	}
	var pricing Catalog[api.PricingRecord]
	if err := json.Unmarshal(res.Files["pricing.json"], &pricing); err != nil {
		t.Fatal(err)
	}
	catalogSources := map[string]bool{}
	for _, s := range pricing.Sources {
		catalogSources[s.ID] = true
	}
	n, noCache := 0, 0
	for _, r := range pricing.Records {
		m := files[r.ProviderId].Model(r.Model)
		if m != nil {
			n++
		} else if target, ok := life[r.ProviderId].AliasOf(r.Model); ok {
			m = files[r.ProviderId].Model(target) // an alias is priced as its model
		}
		if m == nil {
			if r.LongContext != nil || r.Promotion != nil || r.TimeOfDay != nil {
				t.Errorf("%s/%s has structures no file gives", r.ProviderId, r.Model)
			}
			continue
		}
		if (m.LongContext != nil) != (r.LongContext != nil) || (m.Promotion != nil) != (r.Promotion != nil) || (m.TimeOfDay != nil) != (r.TimeOfDay != nil) {
			t.Errorf("%s/%s: structures not carried over", r.ProviderId, r.Model)
		}
		if s := m.Standard; s != nil && s.InputPer1mTokens != nil && (r.Pricing.InputPer1mTokens == nil || *r.Pricing.InputPer1mTokens != *s.InputPer1mTokens) {
			t.Errorf("%s/%s: standard input not applied", r.ProviderId, r.Model)
		}
		// A page that says the model has no cached-input price outranks a data set that gives one.
		if s := m.Standard; s != nil && s.NoCachedInput {
			noCache++
			if r.Pricing.CachedInputPer1mTokens != nil {
				t.Errorf("%s/%s: cached input %v served, the page says there is none", r.ProviderId, r.Model, *r.Pricing.CachedInputPer1mTokens)
			}
		}
		for _, src := range r.Sources {
			if !catalogSources[src] {
				t.Errorf("%s/%s cites %s, not in the catalog's sources", r.ProviderId, r.Model, src)
			}
		}
	}
	want := 0
	for _, f := range files {
		want += len(f.Models)
	}
	if n != want || n == 0 {
		t.Errorf("%d records with curated structures, want %d", n, want)
	}
	if noCache == 0 {
		t.Error("no curated model says it has no cached-input price: the check checked nothing")
	}
}
