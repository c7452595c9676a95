package catalogbuild

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Source is one entry of a catalog's `sources` (the OpenAPI Source schema).
type Source struct {
	// ID is what records cite in their `sources`.
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	URL     string  `json:"url"`
	License *string `json:"license"`
	// AsOf is the date the source's data holds for: a snapshot's date, or the day a page was read.
	AsOf *string `json:"as_of,omitempty"`
}

// snapshot describes one file of sources/upstream. Title, URL and credit are fixed here; the commit and date come
// from the file's manifest (resolve), and where the file carries its own `source.commit` the converter checks that
// both agree, so that a refreshed data file cannot be converted under a stale date and attribution.
type snapshot struct {
	File   string
	Title  string
	Commit string
	Date   string // YYYY-MM-DD, the as-of date of the data (from the manifest)
	Source Source
}

// snapshots are the resolved snapshots of one build.
type snapshots struct {
	LiteLLM, ModelsDev, GenAI, LLMStats, SimpleEvals snapshot
}

// dates are the snapshots' dates by source id; the MTEB board has no snapshot of the converter's.
func (s snapshots) dates() DataSetDates {
	return DataSetDates{SourceLiteLLM: s.LiteLLM.Date, SourceModelsDev: s.ModelsDev.Date, SourceGenAI: s.GenAI.Date,
		SourceLLMStats: s.LLMStats.Date, SourceSimpleEvals: s.SimpleEvals.Date}
}

func resolveSnapshots(dir string) (snapshots, error) {
	var s snapshots
	var err error
	for _, p := range []struct {
		dst  *snapshot
		spec snapshot
	}{{&s.LiteLLM, snapLiteLLM}, {&s.ModelsDev, snapModelsDev}, {&s.GenAI, snapGenAI}, {&s.LLMStats, snapLLMStats}, {&s.SimpleEvals, snapSimpleEvals}} {
		if *p.dst, err = p.spec.resolve(dir); err != nil {
			return s, err
		}
		if err := checkCommit(dir, *p.dst); err != nil {
			return s, err
		}
	}
	// The genai-prices data set is the snapshot brought up to its newer npm release, when the folder has one.
	rel, ok, err := genaiReleaseManifest(dir)
	if err != nil || !ok {
		return s, err
	}
	s.GenAI.Date = max(s.GenAI.Date, rel.Date)
	s.GenAI.Source.Name = fmt.Sprintf("%s, updated by its npm release @pydantic/genai-prices %s (%s)", s.GenAI.Source.Name, *rel.Version, rel.Date)
	return s, nil
}

// genaiReleaseManifest is the manifest of the genai-prices npm release; ok is false when there is none.
func genaiReleaseManifest(dir string) (Manifest, bool, error) {
	if _, err := os.Stat(filepath.Join(dir, genaiReleaseFile)); errors.Is(err, os.ErrNotExist) {
		return Manifest{}, false, nil
	}
	m, err := ReadManifest(dir, genaiReleaseFile)
	if err != nil {
		return Manifest{}, false, err
	}
	if m.Version == nil {
		return Manifest{}, false, fmt.Errorf("%s: the manifest names no version", genaiReleaseFile)
	}
	return *m, true, nil
}

var (
	snapLiteLLM = snapshot{
		File:   "litellm-model-prices.json",
		Title:  "BerriAI/litellm model_prices_and_context_window.json",
		Source: Source{ID: SourceLiteLLM, URL: "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json"},
	}
	snapModelsDev = snapshot{
		File:   "models-dev.json",
		Title:  "models.dev (anomalyco/models.dev, formerly sst/models.dev)",
		Source: Source{ID: SourceModelsDev, URL: "https://github.com/anomalyco/models.dev"},
	}
	snapGenAI = snapshot{
		File:   "genai-prices.json",
		Title:  "pydantic/genai-prices prices/providers/*.yml",
		Source: Source{ID: SourceGenAI, URL: "https://github.com/pydantic/genai-prices"},
	}
	snapLLMStats = snapshot{
		File:   "llm-stats.json",
		Title:  "LLM-Stats.com / JonathanChavezTamales/llm-leaderboard, CC BY 4.0 (restructured into a single JSON, scores converted to percent)",
		Source: Source{ID: SourceLLMStats, URL: "https://github.com/JonathanChavezTamales/llm-leaderboard"},
	}
	snapSimpleEvals = snapshot{
		File:   "simple-evals-results.json",
		Title:  "openai/simple-evals README benchmark results",
		Source: Source{ID: SourceSimpleEvals, URL: "https://github.com/openai/simple-evals"},
	}
)

// checkCommit verifies a file's own source.commit against the snapshot table.
func checkCommit(dir string, s snapshot) error {
	b, err := os.ReadFile(filepath.Join(dir, s.File))
	if err != nil {
		return err
	}
	var f struct {
		Source struct {
			Commit string `json:"commit"`
		} `json:"source"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	if f.Source.Commit != "" && f.Source.Commit != s.Commit {
		return fmt.Errorf("%s: source commit is %q, the converter knows %q: update its manifest (commit, date)", s.File, f.Source.Commit, s.Commit)
	}
	return nil
}

func readJSON(dir, file string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// ---- litellm ----

type litellmEntry struct {
	Key      string
	Provider string
	Mode     string
	Fields   map[string]any
}

func (e litellmEntry) num(field string) (float64, bool) {
	v, ok := e.Fields[field]
	if !ok || v == nil {
		return 0, false
	}
	f, ok := v.(float64)
	return f, ok
}

func (e litellmEntry) flag(field string) bool {
	v, _ := e.Fields[field].(bool)
	return v
}

func (e litellmEntry) str(field string) string {
	v, _ := e.Fields[field].(string)
	return v
}

func loadLiteLLM(dir string) ([]litellmEntry, error) {
	var raw map[string]map[string]any
	if err := readJSON(dir, snapLiteLLM.File, &raw); err != nil {
		return nil, err
	}
	out := make([]litellmEntry, 0, len(raw))
	for k, v := range raw {
		if k == "sample_spec" {
			continue
		}
		p, _ := v["litellm_provider"].(string)
		m, _ := v["mode"].(string)
		out = append(out, litellmEntry{Key: k, Provider: p, Mode: m, Fields: v})
	}
	return out, nil
}

// ---- models.dev ----

type mdModel struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Family           string   `json:"family"`
	Status           string   `json:"status"`
	Knowledge        string   `json:"knowledge"`
	ToolCall         bool     `json:"tool_call"`
	StructuredOutput *bool    `json:"structured_output"`
	Cost             *mdCost  `json:"cost"`
	Limit            mdLimit  `json:"limit"`
	Modalities       mdModals `json:"modalities"`
}

type mdCost struct {
	Input     *float64 `json:"input"`
	Output    *float64 `json:"output"`
	CacheRead *float64 `json:"cache_read"`
}

type mdLimit struct {
	Context int64 `json:"context"`
	Input   int64 `json:"input"`
	Output  int64 `json:"output"`
}

type mdModals struct {
	Input  []string `json:"input"`
	Output []string `json:"output"`
}

type modelsDev struct {
	Providers map[string]struct {
		Models map[string]mdModel `json:"models"`
	} `json:"providers"`
}

// ---- genai-prices ----

type gpModel struct {
	ID            string          `json:"id"`
	Match         json.RawMessage `json:"match"`
	Prices        json.RawMessage `json:"prices"`
	PricesChecked string          `json:"prices_checked"`
	Deprecated    bool            `json:"deprecated"`
	Removed       bool            `json:"removed"`
}

type genaiPrices struct {
	Providers []struct {
		ID     string    `json:"id"`
		Models []gpModel `json:"models"`
	} `json:"providers"`
}

// gpPriceSet is one set of genai-prices prices, in USD per 1M tokens (base tier where tiered).
type gpPriceSet struct {
	Input, Output, CacheRead *float64
	Requests                 *float64 // requests_kcount: USD per 1000 requests
}

type gpConstrained struct {
	Constraint *struct {
		StartDate string `json:"start_date"`
		StartTime string `json:"start_time"`
	} `json:"constraint"`
	Prices map[string]json.RawMessage `json:"prices"`
}

// tierBase reads a genai-prices price: a number, or {"base": n, "tiers": [...]} (context-length tiers; the base
// price applies up to the first tier).
func tierBase(raw json.RawMessage) (*float64, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return &f, nil
	}
	var t struct {
		Base *float64 `json:"base"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	return t.Base, nil
}

func parsePriceSet(m map[string]json.RawMessage) (gpPriceSet, error) {
	var s gpPriceSet
	var err error
	if s.Input, err = tierBase(m["input_mtok"]); err != nil {
		return s, err
	}
	if s.Output, err = tierBase(m["output_mtok"]); err != nil {
		return s, err
	}
	if s.CacheRead, err = tierBase(m["cache_read_mtok"]); err != nil {
		return s, err
	}
	if s.Requests, err = tierBase(m["requests_kcount"]); err != nil {
		return s, err
	}
	return s, nil
}

// gpPrices returns the prices of a genai-prices model in force on date (YYYY-MM-DD), and the start date of that
// price ("" for the undated one). ok is false when the model has time-of-day prices (such as off-peak discounts),
// which one price cannot represent.
func gpPrices(m gpModel, date string) (set gpPriceSet, since string, ok bool, err error) {
	raw := m.Prices
	if len(raw) > 0 && raw[0] == '{' {
		var p map[string]json.RawMessage
		if err := json.Unmarshal(raw, &p); err != nil {
			return set, "", false, err
		}
		set, err = parsePriceSet(p)
		return set, "", err == nil, err
	}
	var list []gpConstrained
	if err := json.Unmarshal(raw, &list); err != nil {
		return set, "", false, err
	}
	found := false
	for _, c := range list {
		start := ""
		if c.Constraint != nil {
			if c.Constraint.StartTime != "" || c.Constraint.StartDate == "" {
				return set, "", false, nil
			}
			start = c.Constraint.StartDate
		}
		if start > date {
			continue
		}
		if found && start < since {
			continue
		}
		s, err := parsePriceSet(c.Prices)
		if err != nil {
			return set, "", false, err
		}
		set, since, found = s, start, true
	}
	return set, since, found, nil
}

// gpEquals returns the exact model names a genai-prices match rule accepts (its "equals" clauses, at any depth
// of "or"). Only these are taken as API names; prefix and regex rules are not.
func gpEquals(raw json.RawMessage) []string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			if s, ok := t["equals"].(string); ok {
				out = append(out, s)
			}
			if or, ok := t["or"].([]any); ok {
				for _, y := range or {
					walk(y)
				}
			}
		case []any:
			for _, y := range t {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// ---- llm-stats ----

type llmStats struct {
	Organizations map[string]struct {
		Models map[string]struct {
			ModelID         string `json:"model_id"`
			KnowledgeCutoff string `json:"knowledge_cutoff"`
		} `json:"models"`
	} `json:"organizations"`
	Providers map[string]struct {
		Models []struct {
			ModelID      string  `json:"model_id"`
			ProviderID   string  `json:"provider_id"`
			ModelIDUsed  string  `json:"provider_model_id_used"`
			Organization string  `json:"organization_id"`
			DeprecatedAt *string `json:"deprecated_at"`
		} `json:"models"`
	} `json:"providers"`
}

// ---- benchmarks.json ----

type benchRecord struct {
	Dataset         string   `json:"dataset"`
	Model           string   `json:"model"`
	ModelID         string   `json:"model_id"`
	Organization    *string  `json:"organization"`
	BenchmarkKey    string   `json:"benchmark_key"`
	Score           *float64 `json:"score"`
	MaxScore        *float64 `json:"max_score"`
	NormalizedScore *float64 `json:"normalized_score"`
}

func hasAny(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}
