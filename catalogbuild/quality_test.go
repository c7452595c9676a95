// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/gen/api"
)

const qualityGood = `{"provider_id": "anthropic",
 "pages": [{"id": "q-anthropic-models", "title": "Models overview", "url": "https://platform.claude.com/docs/en/models/overview", "checked": "2026-11-28", "as_of": null, "via": null}],
 "models": [{"model_id": "claude-opus-5", "same_as": null,
   "evidence": [{"benchmark": "swe_bench_verified", "task": "code", "score": 96, "unit": "percent", "self_reported": true, "date": "2026-07-24", "source": "q-anthropic-models", "setting": null}],
   "independent": [], "tier": {"tier": "balanced", "source": "q-anthropic-models"}, "note": null}]}`

// writeQuality writes files (name to content) into a fresh folder.
func writeQuality(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestQualityFilesAreChecked: every value of a curated quality file is dated and sourced from a page of its file
// or a known independent data set, in a known unit and range; anything else fails the load, naming the problem.
func TestQualityFilesAreChecked(t *testing.T) {
	known := knownAll(t)
	if _, err := LoadQuality(writeQuality(t, map[string]string{"anthropic.json": qualityGood}), known); err != nil {
		t.Fatalf("a good file is refused: %v", err)
	}
	bad := map[string]struct {
		files map[string]string
		want  string
	}{
		"evidence cites an unknown page": {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"date": "2026-07-24", "source": "q-anthropic-models"`, `"date": "2026-07-24", "source": "nowhere"`, 1)}, `unknown page "nowhere"`},
		"tier cites an unknown page":     {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"tier": "balanced", "source": "q-anthropic-models"`, `"tier": "balanced", "source": "nowhere"`, 1)}, `tier cites unknown page "nowhere"`},
		"undated result":                 {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"2026-07-24"`, `""`, 1)}, "is not YYYY-MM"},
		"result dated by a year only":    {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"2026-07-24"`, `"2026"`, 1)}, "is not YYYY-MM"},
		"percent above 100":              {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"score": 96`, `"score": 960`, 1)}, "not a percent"},
		"unknown unit":                   {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"unit": "percent"`, `"unit": "points"`, 1)}, `unit "points"`},
		"benchmark not snake case":       {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"swe_bench_verified"`, `"SWE-bench Verified"`, 1)}, "snake-case"},
		"unknown task":                   {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"task": "code"`, `"task": "poetry"`, 1)}, `task "poetry"`},
		"unknown tier":                   {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"tier": "balanced"`, `"tier": "premium"`, 1)}, `tier "premium"`},
		"page without check date":        {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"checked": "2026-11-28"`, `"checked": "recently"`, 1)}, "is not a date"},
		"file named after another":       {map[string]string{"openai.json": qualityGood}, "must be a known provider and the file's name"},
		"unknown field":                  {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"note": null`, `"score": 1`, 1)}, "unknown field"},
		"unknown independent data set": {map[string]string{"anthropic.json": strings.Replace(qualityGood, `"independent": []`, `"independent": [{"dataset": "somebody", "model": "x"}]`, 1)},
			`data set "somebody"`},
		"entry with nothing": {map[string]string{"anthropic.json": `{"provider_id": "anthropic", "pages": [], "models": [{"model_id": "claude-opus-5", "same_as": null, "evidence": [], "independent": [], "tier": null, "note": null}]}`},
			"no evidence, independent rows, tier or same_as"},
		"same_as with evidence of its own": {map[string]string{"anthropic.json": qualityGood,
			"aws-bedrock.json": `{"provider_id": "aws-bedrock", "pages": [{"id": "q-bedrock", "title": "Bedrock", "url": "https://docs.aws.amazon.com/bedrock/", "checked": "2026-11-28", "as_of": null, "via": null}], "models": [{"model_id": "anthropic.claude-opus-5", "same_as": {"provider_id": "anthropic", "model_id": "claude-opus-5"}, "evidence": [], "independent": [], "tier": {"tier": "flagship", "source": "q-bedrock"}, "note": null}]}`},
			"carries no evidence or tier of its own"},
		"same_as a model with no entry": {map[string]string{"anthropic.json": qualityGood,
			"aws-bedrock.json": `{"provider_id": "aws-bedrock", "pages": [], "models": [{"model_id": "anthropic.claude-opus-9", "same_as": {"provider_id": "anthropic", "model_id": "claude-opus-9"}, "evidence": [], "independent": [], "tier": null, "note": null}]}`},
			"has no quality entry of its own"},
		"page id in two files": {map[string]string{"anthropic.json": qualityGood,
			"openai.json": `{"provider_id": "openai", "pages": [{"id": "q-anthropic-models", "title": "Models", "url": "https://developers.openai.com/api/docs/models", "checked": "2026-11-28", "as_of": null, "via": null}], "models": []}`},
			"is also a page of"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := LoadQuality(writeQuality(t, c.files), known)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestQualityMerged: a conversion with a curated folder gives the maker's record its evidence and tier (verified,
// citing the page), a host's record that is the same model the same evidence (single: the page speaks of the
// maker's model), the independent rows as results that are not self-reported, and a curated model the model
// catalog does not know fails the build.
func TestQualityMerged(t *testing.T) {
	known := knownAll(t)
	data := filepath.Join("..", "sources", "upstream")
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "official", "quality"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The upstream folder is linked file by file so that the quality folder beside it is the test's own.
	up := filepath.Join(root, "upstream")
	if err := os.MkdirAll(up, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		abs, err := filepath.Abs(filepath.Join(data, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(up, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	lifecycle, err := filepath.Abs(OfficialLifecycleDir(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(lifecycle, filepath.Join(root, "official", "lifecycle")); err != nil {
		t.Fatal(err)
	}
	host := `{"provider_id": "google-vertex-ai", "pages": [], "models": [{"model_id": "gemini-3.5-flash", "same_as": {"provider_id": "google-gemini", "model_id": "gemini-3.5-flash"}, "evidence": [], "independent": [], "tier": null, "note": null}]}`
	maker := `{"provider_id": "google-gemini", "pages": [{"id": "q-gemini-models", "title": "Gemini models", "url": "https://ai.google.dev/models", "checked": "2026-11-28", "as_of": null, "via": null}],
	 "models": [{"model_id": "gemini-3.5-flash", "same_as": null, "evidence": [], "independent": [{"dataset": "openhands-index", "model": "Gemini-3.5-Flash"}], "tier": null, "note": null},
	            {"model_id": "gemini-3.5-flash-lite", "same_as": null, "evidence": [], "independent": [], "tier": {"tier": "fast", "source": "q-gemini-models"}, "note": null}]}`
	for name, body := range map[string]string{"google-vertex-ai.json": host, "google-gemini.json": maker, "anthropic.json": qualityGood} {
		if err := os.WriteFile(filepath.Join(root, "official", "quality", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Convert(Input{DataDir: up, OfficialDir: filepath.Join(root, "official", "lifecycle"), KnownProviders: known})
	if err != nil {
		t.Fatal(err)
	}
	var bench Catalog[api.BenchmarksRecord]
	if err := json.Unmarshal(res.Files["benchmarks.json"], &bench); err != nil {
		t.Fatal(err)
	}
	rec := func(p, m string) *api.BenchmarksRecord {
		i := slices.IndexFunc(bench.Records, func(r api.BenchmarksRecord) bool { return r.ProviderId == p && r.ModelId == m })
		if i < 0 {
			t.Fatalf("no record for %s/%s", p, m)
		}
		return &bench.Records[i]
	}
	opus := rec("anthropic", "claude-opus-5")
	if len(opus.Evidence) != 1 || opus.Evidence[0].Score != 96 || !opus.Evidence[0].SelfReported || opus.Tier == nil || opus.Tier.Tier != "balanced" ||
		opus.Tier.Date.String() != "2026-11-28" || opus.Confidence != ConfidenceVerified || !slices.Equal(opus.Sources, []string{"q-anthropic-models"}) {
		t.Errorf("maker's record: %+v", opus)
	}
	flash, vertex := rec("google-gemini", "gemini-3.5-flash"), rec("google-vertex-ai", "gemini-3.5-flash")
	if len(flash.Evidence) != 5 || !slices.Equal(flash.Sources, []string{"openhands-index"}) {
		t.Errorf("independent rows: %+v", flash.Evidence)
	}
	for _, e := range flash.Evidence {
		if e.SelfReported || e.Source != "openhands-index" || e.Setting == nil || !strings.HasPrefix(*e.Setting, "OpenHands agent ") {
			t.Errorf("independent result marked or sourced wrong: %+v", e)
		}
		if e.Benchmark == "swe_bench_verified" && (e.Score != 78.6 || e.Date != "2026-06-12" || e.Task != "code") {
			t.Errorf("SWE-bench Verified row: %+v", e)
		}
	}
	if !slices.EqualFunc(vertex.Evidence, flash.Evidence, func(a, b api.BenchmarkEvidence) bool { return a.Benchmark == b.Benchmark && a.Score == b.Score }) ||
		vertex.Confidence != ConfidenceSingle {
		t.Errorf("the host does not share the maker's evidence: %+v", vertex)
	}
	ids := map[string]bool{}
	for _, s := range bench.Sources {
		ids[s.ID] = true
	}
	for _, id := range []string{"q-anthropic-models", "q-gemini-models", "openhands-index"} {
		if !ids[id] {
			t.Errorf("source %s is not among the catalog's sources", id)
		}
	}

	unknown := strings.Replace(qualityGood, `"model_id": "claude-opus-5"`, `"model_id": "claude-opus-404"`, 1)
	if err := os.WriteFile(filepath.Join(root, "official", "quality", "anthropic.json"), []byte(unknown), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Convert(Input{DataDir: up, OfficialDir: filepath.Join(root, "official", "lifecycle"), KnownProviders: known}); err == nil || !strings.Contains(err.Error(), "claude-opus-404") {
		t.Errorf("a curated model the model catalog lacks: %v", err)
	}
}

// TestCommittedQualityEvidence holds the committed benchmarks catalog to the rules of the evidence: every result and
// tier is dated and names a source of the catalog, which the record cites; self-reported results cite a
// provider's page (no license), independent ones a data set.
func TestCommittedQualityEvidence(t *testing.T) {
	sources, records := catalogFile(t, "benchmarks")
	byID := map[string]Source{}
	for _, s := range sources {
		byID[s.ID] = s
	}
	dateRE := regexp.MustCompile(`^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$`)
	withQuality := 0
	for _, r := range records {
		name := r["provider_id"].(string) + "/" + r["model_id"].(string)
		cited := map[string]bool{}
		if srcs, ok := r["sources"].([]any); ok {
			for _, s := range srcs {
				cited[s.(string)] = true
			}
		}
		ev, _ := r["evidence"].([]any)
		for _, x := range ev {
			e := x.(map[string]any)
			src, _ := e["source"].(string)
			s, ok := byID[src]
			if !ok || !cited[src] || !dateRE.MatchString(e["date"].(string)) {
				t.Errorf("%s: %v is not dated or cites a source the record or catalog lacks", name, e)
				continue
			}
			if e["self_reported"].(bool) != (s.License == nil) {
				t.Errorf("%s: %v: self_reported does not match its source %s", name, e, s.ID)
			}
		}
		if tier, ok := r["tier"].(map[string]any); ok {
			src, _ := tier["source"].(string)
			if _, ok := byID[src]; !ok || !cited[src] || !dayRE.MatchString(tier["date"].(string)) {
				t.Errorf("%s: tier %v is not dated or cites a source the record or catalog lacks", name, tier)
			}
		}
		if len(ev) > 0 || r["tier"] != nil {
			withQuality++
		}
	}
	if withQuality == 0 {
		t.Error("no record carries evidence or a tier")
	}
}

// qualityCoverageFloor is the share of current models the committed benchmarks catalog must give quality evidence or
// a lineup tier; issue 35 asks for 90%. It is a floor under the measured share so that a change that loses evidence
// (a dropped page, a renamed model without its entry) fails here rather than silently. It was lowered to 0.88 for a
// day (2026-11-28) when the hosts' own pages named 42 more current models in scope; OpenAI's announcement pages
// (GPT-4.1, 5.2, 5.4, 5.5, gpt-oss) brought it back: 128 of 142 (the 14 without are listed by the test's log).
const qualityCoverageFloor = 0.90

// hostMakers names, for a host that serves another company's models under the maker's own IDs, that maker: Azure
// OpenAI's gpt-*/o* deployments are OpenAI's models, so a release date missing on Microsoft's pages is OpenAI's.
var hostMakers = map[string]string{"azure-openai": "openai"}

// datedSnapshotRE is a maker's dated snapshot ID (o3-deep-research-2025-06-26): OpenAI names snapshots by release day.
var datedSnapshotRE = regexp.MustCompile(`^(.+)-([0-9]{4}-[0-9]{2}-[0-9]{2})$`)

// makerRelease is the release day of a host's model taken from its maker's records when the host gives none: the
// maker's launch date for that ID, else the earliest dated snapshot of that ID on the maker's own pages. Without it a
// model released years ago would count as current only because the host's page does not date it.
func makerRelease[K comparable](files map[string]*LifecycleFile, launches map[K]map[string]any, host, id string) *string {
	maker, ok := hostMakers[host]
	if !ok {
		return nil
	}
	for _, r := range launches {
		if r["provider_id"] == maker && r["model_id"] == id {
			if d, ok := r["launch_date"].(string); ok {
				return &d
			}
		}
	}
	f := files[maker]
	if f == nil {
		return nil
	}
	var ids []string
	for _, r := range f.Retired {
		ids = append(ids, r.ModelID)
	}
	for _, c := range f.Current {
		ids = append(ids, c.ModelID)
	}
	var earliest *string
	for _, s := range ids {
		if g := datedSnapshotRE.FindStringSubmatch(s); g != nil && g[1] == id && (earliest == nil || g[2] < *earliest) {
			d := g[2]
			earliest = &d
		}
	}
	return earliest
}

// TestQualityCoverage measures, over the models the providers' own pages list as current (sources/official/lifecycle:
// chat or code, generally available, priced there or in the pricing catalog, not released more than a year before the
// newest check date), the share whose benchmarks record carries evidence or a tier, and logs it by provider.
func TestQualityCoverage(t *testing.T) {
	files, err := LoadLifecycle(OfficialLifecycleDir(filepath.Join("..", "sources", "upstream")), knownAll(t))
	if err != nil {
		t.Fatal(err)
	}
	newest, err := time.Parse(time.DateOnly, newestChecked(files))
	if err != nil {
		t.Fatal(err)
	}
	since := newest.AddDate(-1, 0, 0).Format(time.DateOnly)
	type pk struct{ p, m string }
	index := func(name, modelField string) map[pk]map[string]any {
		_, recs := catalogFile(t, name)
		out := map[pk]map[string]any{}
		for _, r := range recs {
			out[pk{r["provider_id"].(string), r[modelField].(string)}] = r
		}
		return out
	}
	prices, launches, bench := index("pricing", "model"), index("model_lifecycle", "model_id"), index("benchmarks", "model_id")
	type row struct{ current, evidence, tierOnly int }
	by := map[string]*row{}
	var missing []string
	for _, pid := range slices.Sorted(maps.Keys(files)) {
		for _, m := range files[pid].Current {
			k := pk{pid, m.ModelID}
			if (m.Task != "llm" && m.Task != "code") || m.Stage != "ga" {
				continue
			}
			priced := m.InputPer1mTokens != nil
			if p, ok := prices[k]["pricing"].(map[string]any); ok && p["input_per_1m_tokens"] != nil {
				priced = true
			}
			released := m.Released
			if d, ok := launches[k]["launch_date"].(string); ok && released == nil {
				released = &d
			}
			if released == nil {
				released = makerRelease(files, launches, pid, m.ModelID)
			}
			if released == nil {
				// A dated snapshot (gpt-5-2025-08-07, Azure's model and version) was released on its date.
				if d := snapshotDate.FindString(m.ModelID); d != "" {
					d = d[1:]
					released = &d
				}
			}
			if !priced || (released != nil && *released < since) {
				continue
			}
			r := by[pid]
			if r == nil {
				r = &row{}
				by[pid] = r
			}
			r.current++
			ev, _ := bench[k]["evidence"].([]any)
			switch {
			case len(ev) > 0:
				r.evidence++
			case bench[k]["tier"] != nil:
				r.tierOnly++
			default:
				missing = append(missing, pid+"/"+m.ModelID)
			}
		}
	}
	var total, covered int
	var table strings.Builder
	table.WriteString("provider | current | evidence | tier only | none\n")
	for _, pid := range slices.Sorted(maps.Keys(by)) {
		r := by[pid]
		fmt.Fprintf(&table, "%s | %d | %d | %d | %d\n", pid, r.current, r.evidence, r.tierOnly, r.current-r.evidence-r.tierOnly)
		total += r.current
		covered += r.evidence + r.tierOnly
	}
	if total == 0 {
		t.Fatal("no current models")
	}
	share := float64(covered) / float64(total)
	t.Logf("current models released since %s: %d, with evidence or tier: %d (%.0f%%)\n%swithout: %s", since, total, covered, 100*share, table.String(), strings.Join(missing, ", "))
	if share < qualityCoverageFloor {
		t.Errorf("quality coverage %.2f is below the floor %.2f; without evidence or tier: %s", share, qualityCoverageFloor, strings.Join(missing, ", "))
	}
}
