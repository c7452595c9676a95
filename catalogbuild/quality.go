package catalogbuild

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/gen/api"
)

// Quality evidence, curated by hand into sources/official/quality: one file per provider, each result tied to a
// page (the provider's model page, card or announcement) or to an independent data set kept in sources/upstream,
// each tier to the provider's models page. It fills the `evidence` and `tier` of the benchmarks catalog, beside the
// data sets' `scores`, so that current models have quality evidence that the 2025 data sets cannot give.

// QualityPage is a page of a quality file. Via names the open record the figures were read from when they were
// not read on the page itself (for example a models.dev file at a commit that cites the page); such figures are
// not `verified`.
type QualityPage struct {
	OfficialPage
	Via *string `json:"via"`
}

// QualityEvidence is one published result of a curated model.
type QualityEvidence struct {
	Benchmark    string  `json:"benchmark"`
	Task         string  `json:"task"`
	Score        float64 `json:"score"`
	Unit         string  `json:"unit"`
	SelfReported bool    `json:"self_reported"`
	Date         string  `json:"date"`
	Source       string  `json:"source"`
	Setting      *string `json:"setting"`
}

// QualityTier is the provider's own place for a model in its lineup; its date is the check date of its page.
type QualityTier struct {
	Tier   string `json:"tier"`
	Source string `json:"source"`
}

// QualityRef names another curated model: a host's model that is the maker's model shares the maker's evidence.
type QualityRef struct {
	ProviderID string `json:"provider_id"`
	ModelID    string `json:"model_id"`
}

// IndependentRef maps a curated model to the rows of an independent data set (a reviewed mapping: the rows are of
// this very model).
type IndependentRef struct {
	Dataset string `json:"dataset"`
	Model   string `json:"model"`
}

// QualityModel is the curated quality of one model, by its API ID at the provider.
type QualityModel struct {
	ModelID     string            `json:"model_id"`
	SameAs      *QualityRef       `json:"same_as"`
	Evidence    []QualityEvidence `json:"evidence"`
	Independent []IndependentRef  `json:"independent"`
	Tier        *QualityTier      `json:"tier"`
	Note        *string           `json:"note"`
}

// QualityFile is sources/official/quality/<provider>.json.
type QualityFile struct {
	ProviderID string         `json:"provider_id"`
	Pages      []QualityPage  `json:"pages"`
	Models     []QualityModel `json:"models"`
}

var (
	benchmarkIDRE  = regexp.MustCompile(`^[a-z0-9_]+$`)
	evidenceDateRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$`)
	// qualityTasks are the tasks a result may measure, as the decision endpoints name tasks.
	qualityTasks = []string{"code", "agent", "llm", "reasoning", "math", "vision", "multilingual", "search"}
	lineupTiers  = []string{"flagship", "balanced", "fast"}
)

// LoadQuality reads every file of dir (sources/official/quality, beside the lifecycle folder) and checks it on its own (pages, dates, units, page ids cited) and across
// files (page ids unique, same_as targets present and not chained). A missing folder is no curated data.
func LoadQuality(dir string, known map[string]bool) (map[string]*QualityFile, error) {
	files, err := curatedFiles(dir, known, func(f *QualityFile) string { return f.ProviderID })
	if err != nil {
		return nil, err
	}
	out := map[string]*QualityFile{}
	pageOwner := map[string]string{}
	for _, f := range files {
		base := f.ProviderID + ".json"
		if err := f.check(base); err != nil {
			return nil, err
		}
		for _, p := range f.Pages {
			if other, ok := pageOwner[p.ID]; ok {
				return nil, fmt.Errorf("%s: page id %q is also a page of %s.json", base, p.ID, other)
			}
			pageOwner[p.ID] = f.ProviderID
		}
		out[f.ProviderID] = f
	}
	for _, f := range out {
		for _, m := range f.Models {
			if m.SameAs == nil {
				continue
			}
			t := out[m.SameAs.ProviderID].model(m.SameAs.ModelID)
			if t == nil || t.SameAs != nil {
				return nil, fmt.Errorf("%s.json: %s is the same as %s/%s, which has no quality entry of its own", f.ProviderID, m.ModelID, m.SameAs.ProviderID, m.SameAs.ModelID)
			}
		}
	}
	return out, nil
}

func (f *QualityFile) model(id string) *QualityModel {
	if f == nil {
		return nil
	}
	return byID(f.Models, func(m *QualityModel) string { return m.ModelID }, id)
}

func (f *QualityFile) page(id string) (QualityPage, bool) {
	if p := byID(f.Pages, func(p *QualityPage) string { return p.ID }, id); p != nil {
		return *p, true
	}
	return QualityPage{}, false
}

func (f *QualityFile) check(file string) error {
	plain := make([]OfficialPage, len(f.Pages))
	for i, p := range f.Pages {
		plain[i] = p.OfficialPage
		if p.Via != nil && strings.TrimSpace(*p.Via) == "" {
			return fmt.Errorf("%s: page %s has an empty via", file, p.ID)
		}
	}
	ids, err := CheckPages(file, plain)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range f.Models {
		if m.ModelID == "" || seen[m.ModelID] {
			return fmt.Errorf("%s: model %q is empty or repeated", file, m.ModelID)
		}
		seen[m.ModelID] = true
		what := file + ": " + m.ModelID
		if m.SameAs != nil {
			if len(m.Evidence) > 0 || len(m.Independent) > 0 || m.Tier != nil {
				return fmt.Errorf("%s: an entry that is the same as another model carries no evidence or tier of its own", what)
			}
			if m.SameAs.ProviderID == f.ProviderID && m.SameAs.ModelID == m.ModelID {
				return fmt.Errorf("%s: same_as names itself", what)
			}
			continue
		}
		if len(m.Evidence) == 0 && len(m.Independent) == 0 && m.Tier == nil {
			return fmt.Errorf("%s: no evidence, independent rows, tier or same_as", what)
		}
		for _, e := range m.Evidence {
			if err := checkEvidence(what, e, ids); err != nil {
				return err
			}
		}
		for _, r := range m.Independent {
			if _, ok := independentSets[r.Dataset]; !ok || r.Model == "" {
				return fmt.Errorf("%s: independent data set %q (model %q) is not known", what, r.Dataset, r.Model)
			}
		}
		if t := m.Tier; t != nil {
			if !slices.Contains(lineupTiers, t.Tier) {
				return fmt.Errorf("%s: tier %q is not one of %v", what, t.Tier, lineupTiers)
			}
			if !ids[t.Source] {
				return fmt.Errorf("%s: tier cites unknown page %q", what, t.Source)
			}
		}
	}
	return nil
}

func checkEvidence(what string, e QualityEvidence, pages map[string]bool) error {
	if !benchmarkIDRE.MatchString(e.Benchmark) {
		return fmt.Errorf("%s: benchmark %q is not a snake-case id", what, e.Benchmark)
	}
	what += " " + e.Benchmark
	if !slices.Contains(qualityTasks, e.Task) {
		return fmt.Errorf("%s: task %q is not one of %v", what, e.Task, qualityTasks)
	}
	switch e.Unit {
	case "percent":
		if e.Score < 0 || e.Score > 100 {
			return fmt.Errorf("%s: %v is not a percent 0-100", what, e.Score)
		}
	case "elo":
		if e.Score <= 0 {
			return fmt.Errorf("%s: Elo %v is not positive", what, e.Score)
		}
	default:
		return fmt.Errorf("%s: unit %q is not percent or elo", what, e.Unit)
	}
	if math.IsNaN(e.Score) || math.IsInf(e.Score, 0) {
		return fmt.Errorf("%s: score is not a number", what)
	}
	if !evidenceDateRE.MatchString(e.Date) {
		return fmt.Errorf("%s: date %q is not YYYY-MM or YYYY-MM-DD", what, e.Date)
	}
	if !pages[e.Source] {
		return fmt.Errorf("%s: cites unknown page %q", what, e.Source)
	}
	if e.Setting != nil && strings.TrimSpace(*e.Setting) == "" {
		return fmt.Errorf("%s: setting is empty (null when the source does not say)", what)
	}
	return nil
}

// independentSet is an independent results data set kept in sources/upstream, and how its benchmarks read.
type independentSet struct {
	File   string
	Title  string
	URL    string
	Tasks  map[string]independentBench
	Loader func(dir string) (map[string][]independentRow, Source, error)
}

type independentBench struct{ id, task string }

type independentRow struct {
	Benchmark string
	Score     float64
	Date      string
	Setting   string
}

// independentSets are the independent data sets a quality entry may map rows from, by id.
var independentSets = map[string]independentSet{
	openHandsID: {
		File: openHandsFile,
		Tasks: map[string]independentBench{
			"swe-bench":            {"swe_bench_verified", "code"},
			"swe-bench-multimodal": {"swe_bench_multimodal", "code"},
			"swt-bench":            {"swt_bench", "code"},
			"commit0":              {"commit0", "code"},
			"gaia":                 {"gaia", "agent"},
		},
	},
}

const (
	openHandsID   = "openhands-index"
	openHandsFile = "openhands-index.json"
)

// openHandsSnapshot is sources/upstream/openhands-index.json: the scores.json and metadata.json of every model
// folder under results/ of OpenHands/openhands-index-results (the OpenHands agent's own runs), flattened.
type openHandsSnapshot struct {
	Source struct {
		Repo    string `json:"repo"`
		Commit  string `json:"commit"`
		Date    string `json:"date"`
		License string `json:"license"`
	} `json:"source"`
	Results []struct {
		Model        string  `json:"model"`
		Benchmark    string  `json:"benchmark"`
		Score        float64 `json:"score"`
		Metric       string  `json:"metric"`
		AgentVersion string  `json:"agent_version"`
		Submitted    string  `json:"submission_time"`
	} `json:"results"`
}

// loadOpenHands reads the snapshot, checks it against its manifest, and returns its rows by model.
func loadOpenHands(dir string) (map[string][]independentRow, Source, error) {
	m, err := ReadManifest(dir, openHandsFile)
	if err != nil {
		return nil, Source{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, openHandsFile))
	if err != nil {
		return nil, Source{}, err
	}
	var s openHandsSnapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, Source{}, fmt.Errorf("%s: %w", openHandsFile, err)
	}
	if m.Commit == nil || *m.Commit != s.Source.Commit || m.Date != s.Source.Date {
		return nil, Source{}, fmt.Errorf("%s: source commit %s of %s disagrees with its manifest", openHandsFile, s.Source.Commit, s.Source.Date)
	}
	rows := map[string][]independentRow{}
	bench := independentSets[openHandsID].Tasks
	for _, r := range s.Results {
		if _, ok := bench[r.Benchmark]; !ok {
			continue
		}
		if r.Score < 0 || r.Score > 100 {
			return nil, Source{}, fmt.Errorf("%s: %s %s: %v is not a percent", openHandsFile, r.Model, r.Benchmark, r.Score)
		}
		day, _, _ := strings.Cut(r.Submitted, "T")
		if !dayRE.MatchString(day) {
			return nil, Source{}, fmt.Errorf("%s: %s %s: submission time %q has no date", openHandsFile, r.Model, r.Benchmark, r.Submitted)
		}
		rows[r.Model] = append(rows[r.Model], independentRow{Benchmark: r.Benchmark, Score: r.Score, Date: day,
			Setting: "OpenHands agent " + r.AgentVersion + " (" + r.Metric + ")"})
	}
	date := m.Date
	src := Source{ID: openHandsID, URL: "https://github.com/OpenHands/openhands-index-results", License: m.License, AsOf: &date,
		Name: fmt.Sprintf("OpenHands Index results (OpenHands/openhands-index-results, commit %s, %s): the OpenHands agent's runs per model", s.Source.Commit[:8], m.Date)}
	return rows, src, nil
}

func init() {
	s := independentSets[openHandsID]
	s.Loader = loadOpenHands
	independentSets[openHandsID] = s
}

// qualityRecord is the evidence and tier of one model, with the sources they cite.
type qualityRecord struct {
	evidence []api.BenchmarkEvidence
	tier     *api.LineupTier
	cited    []string
	viaOnly  bool // some cited page's figures were read from an open record, not the page
	shared   bool // taken from another provider's entry (same_as)
}

// qualityRecords resolves the curated files into records by (provider, model), with the catalog sources they cite.
func qualityRecords(files map[string]*QualityFile, dataDir string) (map[key]qualityRecord, []Source, error) {
	rowsBySet := map[string]map[string][]independentRow{}
	srcBySet := map[string]Source{}
	pageSrc := map[string]Source{}
	via := map[string]bool{}
	for _, f := range files {
		for _, p := range f.Pages {
			checked := p.Checked
			name := p.Title + " (official page, checked " + p.Checked + ")"
			if p.Via != nil {
				name = p.Title + " (provider's published results, as recorded by " + *p.Via + ")"
				via[p.ID] = true
			}
			pageSrc[p.ID] = Source{ID: p.ID, Name: name, URL: p.URL, AsOf: &checked}
		}
	}
	own := func(f *QualityFile, m QualityModel) (qualityRecord, error) {
		var r qualityRecord
		r.evidence = []api.BenchmarkEvidence{}
		for _, e := range m.Evidence {
			r.evidence = append(r.evidence, api.BenchmarkEvidence{Benchmark: e.Benchmark, Task: e.Task, Score: e.Score,
				Unit: api.BenchmarkEvidenceUnit(e.Unit), SelfReported: e.SelfReported, Date: e.Date, Source: e.Source, Setting: e.Setting})
			r.cited = append(r.cited, e.Source)
			r.viaOnly = r.viaOnly || via[e.Source]
		}
		for _, ref := range m.Independent {
			set := independentSets[ref.Dataset]
			if _, ok := rowsBySet[ref.Dataset]; !ok {
				rows, src, err := set.Loader(dataDir)
				if err != nil {
					return r, err
				}
				rowsBySet[ref.Dataset], srcBySet[ref.Dataset] = rows, src
			}
			rows := rowsBySet[ref.Dataset][ref.Model]
			if len(rows) == 0 {
				return r, fmt.Errorf("quality %s/%s: %s has no rows for %q", f.ProviderID, m.ModelID, ref.Dataset, ref.Model)
			}
			for _, row := range rows {
				b := set.Tasks[row.Benchmark]
				setting := row.Setting
				r.evidence = append(r.evidence, api.BenchmarkEvidence{Benchmark: b.id, Task: b.task, Score: row.Score,
					Unit: api.BenchmarkEvidenceUnitPercent, SelfReported: false, Date: row.Date, Source: ref.Dataset, Setting: &setting})
			}
			r.cited = append(r.cited, ref.Dataset)
		}
		if m.Tier != nil {
			p, _ := f.page(m.Tier.Source)
			d, err := time.Parse(time.DateOnly, p.Checked)
			if err != nil {
				return r, fmt.Errorf("quality %s/%s: %w", f.ProviderID, m.ModelID, err)
			}
			r.tier = &api.LineupTier{Tier: api.LineupTierTier(m.Tier.Tier), Source: m.Tier.Source, Date: openapi_types.Date{Time: d}}
			r.cited = append(r.cited, m.Tier.Source)
		}
		slices.SortStableFunc(r.evidence, func(a, b api.BenchmarkEvidence) int {
			return strings.Compare(a.Benchmark+"\x00"+a.Date, b.Benchmark+"\x00"+b.Date)
		})
		return r, nil
	}
	out := map[key]qualityRecord{}
	for _, pid := range sortedFileIDs(files) {
		f := files[pid]
		for _, m := range f.Models {
			src, srcModel := f, m
			if m.SameAs != nil {
				src = files[m.SameAs.ProviderID]
				srcModel = *src.model(m.SameAs.ModelID)
			}
			r, err := own(src, srcModel)
			if err != nil {
				return nil, nil, err
			}
			r.shared = m.SameAs != nil
			out[key{f.ProviderID, m.ModelID}] = r
		}
	}
	var sources []Source
	seen := map[string]bool{}
	for _, k := range sortedKeyList(out) {
		for _, id := range out[k].cited {
			if seen[id] {
				continue
			}
			seen[id] = true
			if s, ok := srcBySet[id]; ok {
				sources = append(sources, s)
			} else {
				sources = append(sources, pageSrc[id])
			}
		}
	}
	slices.SortFunc(sources, func(a, b Source) int { return strings.Compare(a.ID, b.ID) })
	return out, sources, nil
}

func sortedFileIDs(files map[string]*QualityFile) []string {
	ids := make([]string, 0, len(files))
	for id := range files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
