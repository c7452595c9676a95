package decide

import (
	"cmp"
	"maps"
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
	"aime_2024": "AIME 2024", "arc_agi_1": "ARC-AGI-1", "codeforces": "Codeforces", "finance_agent": "Finance Agent",
	"frontiermath_tier_1_3": "FrontierMath Tier 1-3", "frontiermath_tier_4": "FrontierMath Tier 4", "gdpval": "GDPval",
	"healthbench": "HealthBench", "hmmt_feb_2025": "HMMT February 2025", "mmmlu": "MMMLU", "multichallenge": "MultiChallenge",
	"terminal_bench_2": "Terminal-Bench 2.0", "aider_polyglot": "Aider Polyglot", "livecodebench": "LiveCodeBench",
	"humaneval": "HumanEval", "gpqa_diamond": "GPQA Diamond", "gpqa": "GPQA", "mmlu_pro": "MMLU-Pro", "mmlu": "MMLU",
	"humanitys_last_exam": "Humanity's Last Exam", "tau_bench_retail": "τ-bench retail", "tau_bench_airline": "τ-bench airline",
	"tau2_bench_telecom": "τ²-bench telecom", "lmarena_text": "LMArena text", "aime_2025": "AIME 2025", "mmmu": "MMMU",
	"osworld": "OSWorld", "bfcl": "BFCL", "math": "MATH", "mgsm": "MGSM", "hellaswag": "HellaSwag",
	"aime_2026": "AIME 2026", "arc_agi_2": "ARC-AGI-2", "bfcl_v3": "BFCL v3", "browsecomp": "BrowseComp",
	"charxiv": "CharXiv", "commit0": "Commit0", "cursorbench": "CursorBench", "deepswe": "DeepSWE", "gaia": "GAIA",
	"gdpval_aa": "GDPval-AA", "aa_briefcase": "AA-Briefcase", "humanitys_last_exam_tools": "Humanity's Last Exam (with tools)",
	"humanitys_last_exam_verified": "Humanity's Last Exam (verified)", "ifeval": "IFEval",
	"matharena_apex": "MathArena Apex", "mcp_atlas": "MCP Atlas", "mmlu_redux": "MMLU-Redux", "mmmu_pro": "MMMU-Pro",
	"nl2repo": "NL2Repo", "osworld_verified": "OSWorld-Verified", "swe_bench_multilingual": "SWE-bench Multilingual",
	"multi_swe_bench":      "Multi-SWE-bench",
	"swe_bench_multimodal": "SWE-bench Multimodal", "swt_bench": "SWT-bench", "tau2_bench": "τ²-bench",
	"terminal_bench_2_0": "Terminal-Bench 2.0", "terminal_bench_2_1": "Terminal-Bench 2.1",
	"terminal_bench_3": "Terminal-Bench 3", "terminal_bench_4": "Terminal-Bench 4", "toolathlon": "Toolathlon",
	"toolathlon_verified": "Toolathlon (verified)",
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
	// Above is set when the lineup rule sets the value: the model its provider's lineup places it above (Steps
	// places), whose own quality (AboveValue) and evidence (AboveEvidence) it rests on; Maker names the lineup's
	// owner ("Anthropic's"). Evidence is then the model's own, lower, results ("" without any).
	Above, AboveEvidence, Maker string
	AboveValue                  float64
	Steps                       int
}

// ownPhrase is what the quality rests on: the evidence, or the tier.
func (q QualityOf) ownPhrase() string {
	if q.FromTier != "" {
		return "the provider's " + q.FromTier + " tier, no benchmark result"
	}
	return q.Evidence
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
	if q.Above != "" {
		own := "no published result"
		if q.Evidence != "" {
			own = "its own results lower: " + q.Evidence
		}
		place := "1 point"
		if q.Steps > 1 {
			place = strconv.Itoa(q.Steps) + " points, 1 per place"
		}
		return s + " (" + own + "; " + q.Maker + " lineup places it above " + q.Above + " (quality " +
			strconv.FormatFloat(round2(q.AboveValue*100), 'f', -1, 64) + ": " + q.AboveEvidence + "), plus " + place + ")"
	}
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
	// tierPages is the page each tier was read from (one provider's lineup as it publishes it), below the
	// models its lineup places directly below each model (lineupBelow), lifted the memo of quality per
	// task|model (filled while Build runs, read-only after).
	tierPages map[string]string
	below     map[string][]string
	lifted    map[string]QualityOf
	field     map[string][]float64 // benchmark+unit -> each canonical model's best result, ascending
	today     time.Time
}

func newQualityIndex(recs []seeds.BenchmarkRecord, today string) *qualityIndex {
	qi := &qualityIndex{results: map[string][]result{}, tiers: map[string]string{}, tierPages: map[string]string{},
		lifted: map[string]QualityOf{}, field: map[string][]float64{}}
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
			qi.tierPages[key] = b.Tier.Source
		}
	}
	keys := slices.Collect(maps.Keys(qi.results))
	for k := range qi.tiers {
		if qi.results[k] == nil {
			keys = append(keys, k)
		}
	}
	qi.below = lineupBelow(keys, qi.tiers, qi.tierPages)
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
	v := rel
	if len(vs) >= 2 {
		below, _ := slices.BinarySearch(vs, r.score)
		equal := 0
		for i := below; i < len(vs) && vs[i] == r.score; i++ {
			equal++
		}
		pct := (float64(below) + float64(max(equal-1, 0))/2) / float64(len(vs)-1)
		w := math.Min(1, float64(len(vs)-1)/(percentileFullField-1))
		v = (w*pct + rel) / (1 + w)
	}
	return v
}

// fieldShare is how much a result of a benchmark counts by the size of its field: 0 when its model is alone on
// it, 1 from thinFieldFull models, linear between. A benchmark variant only one model reports is its own best
// (share of best 100%) and says nothing of where its model stands (issue 35: a lone
// "humanitys_last_exam_verified" result gave quality 91.9).
func (qi *qualityIndex) fieldShare(r result) float64 {
	n := len(qi.field[r.benchmark+"|"+r.unit])
	return math.Min(1, math.Max(0, float64(n-1))/(thinFieldFull-1))
}

// thinBlend is the weighted mean of a model's results (sum of weight × value, each weight times its
// fieldShare), with the shortfall of that weight below evidenceFullWeight filled by neutralResult aged as the
// results are (aging, their weighted mean factor): results of thin fields count little, and a model measured only
// on them stays near the neutral value of their time instead of at its own best.
func thinBlend(sum, weight, aging float64) float64 {
	if weight >= evidenceFullWeight {
		return sum / weight
	}
	return (sum + (evidenceFullWeight-weight)*neutralResult*aging) / evidenceFullWeight
}

// percentileFullField is the field size from which a result's percentile weighs as much as its distance to
// the best; thinFieldFull the one from which a result counts in full. evidenceFullWeight is the weight (one
// self-reported result of a full field) a model's results need to stand without neutralResult, the value of a
// result that says nothing of its model's place (the middle of the 0..1 scale).
const (
	percentileFullField = 10.0
	thinFieldFull       = 5.0
	evidenceFullWeight  = weightSelfReported
	neutralResult       = 0.5
)

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

// quality is the model's quality for task after the lineup rule: its own quality (own), raised where its
// provider's lineup places it above a model of higher quality to that model's quality plus lineupStep per place
// between them (docs/decisions.md, "Quality"). A provider publishes results for some models of a lineup and only
// names the place of its newest ones: without the rule, Claude Opus 5.5 and the flagship Claude Fable 5.2 (tiers
// only) ranked below Claude Opus 5 (results of 2026-07). Called while Build runs only (it fills the memo).
func (qi *qualityIndex) quality(modelID, task string) QualityOf {
	return qi.lineupQuality(canonicalModel(modelID), task, map[string]bool{})
}

func (qi *qualityIndex) lineupQuality(key, task string, visiting map[string]bool) QualityOf {
	memo := task + "|" + key
	if q, ok := qi.lifted[memo]; ok {
		return q
	}
	q := qi.own(key, task)
	if visiting[key] {
		return q // a lineup that contradicts itself: no place counts in the cycle
	}
	visiting[key] = true
	for _, b := range qi.below[key] {
		lb := qi.lineupQuality(b, task, visiting)
		if !lb.Known {
			continue
		}
		v := math.Min(1, lb.Value+lineupStep)
		if q.Known && v <= q.Value {
			continue
		}
		root := QualityOf{Value: v, Known: true, Steps: lb.Steps + 1, Maker: makerOf(key), Above: lb.Above,
			AboveValue: lb.AboveValue, AboveEvidence: lb.AboveEvidence}
		if lb.Above == "" {
			root.Above, root.AboveValue, root.AboveEvidence = b, lb.Value, lb.ownPhrase()
		}
		if q.Known && q.FromTier == "" {
			root.Evidence = q.Evidence // its own, lower results
		}
		q = root
	}
	delete(visiting, key)
	qi.lifted[memo] = q
	return q
}

// lineupStep is the quality (0..1) a place in its provider's lineup adds above the model it is placed over: one
// point, so that the newer or higher model wins a tie it would otherwise lose to a lower price or its name.
const lineupStep = 0.01

// tierRank orders the lineup tiers.
var tierRank = map[string]int{"fast": 1, "balanced": 2, "flagship": 3}

// lineupBelow maps each canonical model to the models its provider's lineup places below it: on one lineup page,
// those of a lower tier (flagship over balanced over fast); in one line, the generations it succeeds (lineOf:
// claude-opus-5-5 over claude-opus-5, gpt-6-2-astra over gpt-6-astra). Tiers of different pages are not
// compared: last year's flagship is not placed above this year's balanced model.
func lineupBelow(keys []string, tiers, pages map[string]string) map[string][]string {
	slices.Sort(keys)
	out := map[string][]string{}
	for _, a := range keys {
		la, va, oka := lineOf(a)
		for _, b := range keys {
			if a == b {
				continue
			}
			samePage := pages[a] != "" && pages[a] == pages[b] && tierRank[tiers[a]] > tierRank[tiers[b]]
			lb, vb, okb := lineOf(b)
			succeeds := oka && okb && la == lb && slices.Compare(va, vb) > 0
			if samePage || succeeds {
				out[a] = append(out[a], b)
			}
		}
	}
	return out
}

// lineOf splits a canonical model into its line and generation: the first run of all-digit parts is the
// generation, the rest the line ("claude-opus-5-5" is line "claude-opus-*", generation [5 5]; "gpt-6-2-astra"
// "gpt-*-astra", [6 2]). ok is false when no part is all digits ("kimi-k3", "deepseek-v4-pro"): such a model
// has no line the name shows. A later generation of one line succeeds the earlier ones; the lifecycle catalog
// has no launch day for the newest models (Claude Opus 5.5, Fable 5.2), so the name orders them.
func lineOf(canon string) (line string, gen []int, ok bool) {
	parts := strings.Split(canon, "-")
	start := -1
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if i == 0 || err != nil || p == "" || strings.ContainsAny(p, "+-") {
			if start >= 0 {
				break
			}
			continue
		}
		if start < 0 {
			start = i
		}
		gen = append(gen, n)
	}
	if start < 0 {
		return "", nil, false
	}
	rest := slices.Concat(parts[:start], []string{"*"}, parts[start+len(gen):])
	if len(gen) == 2 && gen[0] >= 1 && gen[0] <= 12 && gen[1] >= 2000 {
		gen = []int{gen[1], gen[0]} // a month and year (command-a-plus-05-2026): the year orders first
	}
	return strings.Join(rest, "-"), gen, true
}

// familyMakers name the maker whose lineup places a family's models, for reasons.
var familyMakers = map[string]string{
	"claude": "Anthropic", "gpt": "OpenAI", "gpt-oss": "OpenAI", "gemini": "Google", "gemma": "Google", "grok": "xAI",
	"kimi": "Moonshot AI", "mistral": "Mistral AI", "command": "Cohere", "deepseek": "DeepSeek", "qwen": "Alibaba",
	"glm": "Z.ai", "llama": "Meta", "nova": "Amazon", "minimax": "MiniMax", "jamba": "AI21",
}

func makerOf(canon string) string {
	if m := familyMakers[ModelFamily(canon)]; m != "" {
		return m + "'s"
	}
	return "its provider's"
}

// own is the model's quality for task: the weighted mean of its results that measure the task, each
// normalised and multiplied by agingPerYear per year of age, weighted 1 (independent), 0.5 (self-reported) or 0.5
// (legacy score); for agent and code, else its llm results; else its lineup tier's value; else unknown.
func (qi *qualityIndex) own(key, task string) QualityOf {
	var sum, weights, agingSum, rawWeights float64
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
		aging := math.Pow(agingPerYear, qi.ageYears(r.date))
		agingSum += w * aging
		rawWeights += w
		w *= qi.fieldShare(r)
		sum += w * qi.normalised(r) * aging
		weights += w
		used = append(used, named{r, w})
	}
	if len(used) > 0 {
		// The reason names the results that weigh most, newest first (results are sorted newest first).
		slices.SortStableFunc(used, func(a, b named) int { return cmp.Compare(b.w, a.w) })
		parts := make([]string, 0, 2)
		for _, u := range used[:min(2, len(used))] {
			parts = append(parts, evidencePhrase(u.r))
		}
		return QualityOf{Value: thinBlend(sum, weights, agingSum/rawWeights), Known: true, Evidence: strings.Join(parts, "; ")}
	}
	// An agent or code model no result of its task measures is judged by its general (llm) results before its
	// tier: they say more about it than its place in a lineup.
	if task == "agent" || task == "code" {
		if g := qi.own(key, "llm"); g.Known && g.FromTier == "" {
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

// placedAboveCoder reports whether the model's lineup places it above a model with a code result (Claude Fable
// 5.2 above Claude Opus 5): the lineup rule makes it a code candidate as a code result would.
func (qi *qualityIndex) placedAboveCoder(modelID string) bool {
	q := qi.quality(modelID, "code")
	return q.Above != "" && qi.hasEvidence(q.Above, "code")
}
