package decide

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// Quality is one number per model and task, 0..1, that a newer, stronger model wins (docs/decisions.md,
// "Quality"). It is built from the benchmark catalog's dated evidence, its legacy scores and, where neither
// measures the task, the provider's own place for the model in its lineup. Results are shared across the hosts
// of one model (canonicalModel): Claude on Bedrock carries the results Anthropic published for Claude.

// Weights of a result in a model's quality: the provider's own published figures count half as much as
// independent runs; legacy scores (undated, from data sets of the previous generation of benchmarks) count half
// and are taken as legacyAgeYears old.
const (
	weightIndependent  = 1.0
	weightSelfReported = 0.5
	weightLegacy       = 0.5
	legacyAgeYears     = 2.0
	// agingPerYear multiplies a normalised result per year of its age at the index's day (0.7^age), so that the
	// best result of early 2025 loses to a middling one of this year: a year is about a model generation. A factor
	// rather than a deduction keeps old results apart from each other instead of piling them up at 0.
	agingPerYear = 0.7
)

// tierQuality is the quality of a model no result measures for the task, from its provider's lineup tier: below
// what a current model with average results reaches, ordered flagship > balanced > fast.
var tierQuality = map[string]float64{"flagship": 0.6, "balanced": 0.45, "fast": 0.3}

// taskBenchmarks lists, per decision task, the benchmark ID prefixes that measure it (an evidence entry also
// counts for the task it names). Legacy `scores` names are the old benchmarks of the same tasks.
var taskBenchmarks = map[string][]string{
	"code":  {"swe_bench", "terminal_bench", "aider", "livecodebench", "humaneval", "scicode", "codeforces"},
	"agent": {"tau_bench", "tau2_bench", "terminal_bench", "swe_bench", "bfcl", "osworld", "browsecomp", "mcp_atlas"},
	"llm":   {"gpqa", "mmlu_pro", "humanitys_last_exam", "arena", "lmarena", "mmlu", "simpleqa", "aime"},
}

// benchmarkNames are the names reasons give benchmarks (IDs not listed are written as they are).
var benchmarkNames = map[string]string{
	"swe_bench_verified": "SWE-bench Verified", "swe_bench_pro": "SWE-bench Pro", "terminal_bench": "Terminal-Bench",
	"terminal_bench_2": "Terminal-Bench 2.0", "aider_polyglot": "Aider Polyglot", "livecodebench": "LiveCodeBench",
	"humaneval": "HumanEval", "gpqa_diamond": "GPQA Diamond", "gpqa": "GPQA", "mmlu_pro": "MMLU-Pro", "mmlu": "MMLU",
	"humanitys_last_exam": "Humanity's Last Exam", "tau_bench_retail": "τ-bench retail", "tau_bench_airline": "τ-bench airline",
	"tau2_bench_telecom": "τ²-bench telecom", "lmarena_text": "LMArena text", "aime_2025": "AIME 2025", "mmmu": "MMMU",
	"osworld": "OSWorld", "bfcl": "BFCL", "math": "MATH", "mgsm": "MGSM", "hellaswag": "HellaSwag",
}

func measures(task, benchmark, evidenceTask string) bool {
	if evidenceTask == task {
		return true
	}
	for _, p := range taskBenchmarks[task] {
		if strings.HasPrefix(benchmark, p) {
			// mmlu must not take mmlu_pro's place and the reverse: both are llm anyway; aider matches aider_polyglot.
			return true
		}
	}
	return false
}

// result is one benchmark result of a canonical model, legacy scores included.
type result struct {
	benchmark, unit, date, evidenceTask string
	score                               float64
	selfReported, legacy                bool
}

// QualityOf is a model's quality for one task: Value 0..1 (Known false: nothing measures it), and the evidence
// its reason names.
type QualityOf struct {
	Value    float64
	Known    bool
	FromTier string // the lineup tier when no result measures the task
	Evidence string // "SWE-bench Verified 78.2, self-reported, 2026-10; ..."
}

// Pct is the quality on the 0-100 scale responses give, nil when unknown.
func (q QualityOf) Pct() *float64 {
	if !q.Known {
		return nil
	}
	v := round2(q.Value * 100)
	return &v
}

// phrase is the quality part of a reason.
func (q QualityOf) phrase() string {
	if !q.Known {
		return "quality unknown (no benchmark result or lineup tier)"
	}
	s := "quality " + strconv.FormatFloat(round2(q.Value*100), 'f', -1, 64)
	if q.FromTier != "" {
		return s + " (the provider's " + q.FromTier + " tier, no benchmark result)"
	}
	return s + " (" + q.Evidence + ")"
}

var (
	reRegion  = regexp.MustCompile(`^(us|eu|apac|global|jp|au|ca)\.`)
	reVendor  = regexp.MustCompile(`^(anthropic|openai|meta|mistral|cohere|google|deepseek|qwen|xai|ai21|moonshotai|zai)\.`)
	reVersion = regexp.MustCompile(`(-v\d+)?:\d+$`)
	reDate    = regexp.MustCompile(`-(20\d\d-?\d\d-?\d\d|latest|default)$`)
)

// canonicalModel is the model an ID names whatever the host's spelling: "us.anthropic.claude-opus-4-1-20250805-v1:0",
// "claude-opus-4-1@20250805", "anthropic/claude-opus-4.1" and "claude-opus-4-1" are all "claude-opus-4-1". It
// drops region and vendor prefixes, namespaces, pinned dates and version suffixes, and writes dots as dashes.
func canonicalModel(id string) string {
	s := strings.ToLower(strings.TrimPrefix(id, "~"))
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimPrefix(s, "databricks-")
	s = reRegion.ReplaceAllString(s, "")
	s = reVendor.ReplaceAllString(s, "")
	s = reVersion.ReplaceAllString(s, "")
	s = reDate.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, ".", "-")
}

// qualityIndex holds every canonical model's results and tier, and per benchmark the sorted results of all
// models, to normalise a result by its place among them.
type qualityIndex struct {
	results map[string][]result
	tiers   map[string]string
	field   map[string][]float64 // benchmark+unit -> each canonical model's best result, ascending
	today   time.Time
}

func newQualityIndex(recs []seeds.BenchmarkRecord, today string) *qualityIndex {
	qi := &qualityIndex{results: map[string][]result{}, tiers: map[string]string{}, field: map[string][]float64{}}
	qi.today, _ = time.Parse(time.DateOnly, today)
	best := map[string]map[string]float64{} // benchmark+unit -> canonical -> best
	add := func(key string, r result) {
		for _, have := range qi.results[key] {
			if have == r {
				return // the same result recorded for another host of the model
			}
		}
		qi.results[key] = append(qi.results[key], r)
		k := r.benchmark + "|" + r.unit
		if best[k] == nil {
			best[k] = map[string]float64{}
		}
		if v, ok := best[k][key]; !ok || r.score > v {
			best[k][key] = r.score
		}
	}
	for _, b := range recs {
		key := canonicalModel(b.ModelId)
		for name, v := range b.Scores {
			add(key, result{benchmark: name, unit: "percent", score: v, legacy: true})
		}
		for _, e := range b.Evidence {
			add(key, result{benchmark: e.Benchmark, unit: string(e.Unit), date: e.Date, evidenceTask: e.Task, score: e.Score, selfReported: e.SelfReported})
		}
		if b.Tier != nil && qi.tiers[key] == "" {
			qi.tiers[key] = string(b.Tier.Tier)
		}
	}
	if qi.today.IsZero() {
		// An index without a day (Load) ages results from the newest one it holds, so recency still counts.
		for _, rs := range qi.results {
			for _, r := range rs {
				d, err := time.Parse(time.DateOnly, r.date)
				if err != nil {
					d, err = time.Parse("2006-01", r.date)
				}
				if err == nil && d.After(qi.today) {
					qi.today = d
				}
			}
		}
	}
	for k, byModel := range best {
		vs := make([]float64, 0, len(byModel))
		for _, v := range byModel {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		qi.field[k] = vs
	}
	for _, rs := range qi.results {
		slices.SortFunc(rs, func(a, b result) int {
			return cmp.Or(cmp.Compare(b.date, a.date), cmp.Compare(a.benchmark, b.benchmark), cmp.Compare(b.score, a.score))
		})
	}
	return qi
}

// normalised is a result on 0..1: its distance to the best result of the field (percent: score / best; Elo:
// 1 - (best - score) / 400, 400 points being tenfold odds) and its percentile among the models with a result of
// that benchmark (the lowest 0, the highest 1), averaged with the percentile weighted by the field's size (full
// weight from percentileFullField models: in a field of three, one place is no evidence of much). The distance
// keeps a benchmark every model finds hard from dragging its models below those measured on an easy one.
func (qi *qualityIndex) normalised(r result) float64 {
	vs := qi.field[r.benchmark+"|"+r.unit]
	top := r.score
	if len(vs) > 0 {
		top = vs[len(vs)-1]
	}
	rel := 1.0
	switch {
	case r.unit == "elo":
		rel = clamp01(1 - (top-r.score)/400)
	case top > 0:
		rel = clamp01(r.score / top)
	}
	if len(vs) < 2 {
		return rel
	}
	below, _ := slices.BinarySearch(vs, r.score)
	equal := 0
	for i := below; i < len(vs) && vs[i] == r.score; i++ {
		equal++
	}
	pct := (float64(below) + float64(max(equal-1, 0))/2) / float64(len(vs)-1)
	w := math.Min(1, float64(len(vs)-1)/(percentileFullField-1))
	return (w*pct + rel) / (1 + w)
}

// percentileFullField is the field size from which a result's percentile weighs as much as its distance to
// the best.
const percentileFullField = 10.0

// ageYears is the age of a result dated YYYY-MM-DD or YYYY-MM at the index's day (the middle of a month given
// alone); legacyAgeYears when undated, or when neither the index nor any result has a day.
func (qi *qualityIndex) ageYears(date string) float64 {
	if date == "" || qi.today.IsZero() {
		return legacyAgeYears
	}
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		if d, err = time.Parse("2006-01", date); err != nil {
			return legacyAgeYears
		}
		d = d.AddDate(0, 0, 14)
	}
	return math.Max(0, qi.today.Sub(d).Hours()/24/365.25)
}

// quality is the model's quality for task: the weighted mean of its results that measure the task, each
// normalised and multiplied by agingPerYear per year of age, weighted 1 (independent), 0.5 (self-reported) or 0.5
// (legacy score); for agent and code, else its llm results; else its lineup tier's value; else unknown.
func (qi *qualityIndex) quality(modelID, task string) QualityOf {
	key := canonicalModel(modelID)
	var sum, weights float64
	type named struct {
		r result
		w float64
	}
	var used []named
	for _, r := range qi.results[key] {
		if !measures(task, r.benchmark, r.evidenceTask) {
			continue
		}
		w := weightIndependent
		switch {
		case r.legacy:
			w = weightLegacy
		case r.selfReported:
			w = weightSelfReported
		}
		v := qi.normalised(r) * math.Pow(agingPerYear, qi.ageYears(r.date))
		sum += w * v
		weights += w
		used = append(used, named{r, w})
	}
	if weights > 0 {
		// The reason names the results that weigh most, newest first (results are sorted newest first).
		slices.SortStableFunc(used, func(a, b named) int { return cmp.Compare(b.w, a.w) })
		parts := make([]string, 0, 2)
		for _, u := range used[:min(2, len(used))] {
			parts = append(parts, evidencePhrase(u.r))
		}
		return QualityOf{Value: sum / weights, Known: true, Evidence: strings.Join(parts, "; ")}
	}
	// An agent or code model no result of its task measures is judged by its general (llm) results before its
	// tier: they say more about it than its place in a lineup.
	if task == "agent" || task == "code" {
		if g := qi.quality(modelID, "llm"); g.Known && g.FromTier == "" {
			g.Evidence = "general results: " + g.Evidence
			return g
		}
	}
	if t := qi.tiers[key]; t != "" {
		return QualityOf{Value: tierQuality[t], Known: true, FromTier: t}
	}
	return QualityOf{}
}

// evidencePhrase writes a result as reasons give it: "SWE-bench Verified 78.2, self-reported, 2026-10".
func evidencePhrase(r result) string {
	name := benchmarkNames[r.benchmark]
	if name == "" {
		name = r.benchmark
	}
	s := name + " " + strconv.FormatFloat(r.score, 'f', -1, 64)
	if r.unit == "elo" {
		s += " Elo"
	}
	switch {
	case r.legacy:
		return s + ", undated"
	case r.selfReported:
		s += ", self-reported"
	default:
		s += ", independent"
	}
	if len(r.date) >= 7 {
		s += ", " + r.date[:7]
	}
	return s
}

// hasEvidence reports whether a result (not a tier) measures the model on task.
func (qi *qualityIndex) hasEvidence(modelID, task string) bool {
	for _, r := range qi.results[canonicalModel(modelID)] {
		if measures(task, r.benchmark, r.evidenceTask) {
			return true
		}
	}
	return false
}
