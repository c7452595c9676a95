package derive

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "model_task_fit", Build: buildModelTaskFit})
}

// taskFitBenchmarks maps each task to the benchmark that measures it: HumanEval (writing functions from
// docstrings) for code_generation, MATH for math, GPQA (graduate-level reasoning) for reasoning, all three from the
// /benchmarks catalog; and from the same data sets' other rows (sources/upstream/benchmarks.json, attributed to
// catalog models as /benchmarks attributes its rows): IFEval (verifiable instructions) for
// instruction_following, BFCL (the Berkeley Function Calling Leaderboard) for tool_use, FACTS Grounding (answers
// grounded in a given document) for rag_qa. The other four tasks (summarization, creative_writing,
// structured_extraction, long_context) have no benchmark in the data, so they get no records rather than a
// guess; MMLU and MGSM measure none of the ten tasks.
var taskFitBenchmarks = map[string]string{
	"code_generation":       "humaneval",
	"math":                  "math",
	"reasoning":             "gpqa",
	"instruction_following": "ifeval",
	"tool_use":              "bfcl",
	"rag_qa":                "facts-grounding",
}

// extraTaskFitBenchmarks are the benchmarks of taskFitBenchmarks that the /benchmarks catalog does not carry.
var extraTaskFitBenchmarks = []string{"ifeval", "bfcl", "facts-grounding"}

// taskFitTier is the spec's tier of a score: elite from 90, strong from 75, capable from 60, limited below.
func taskFitTier(score float64) string {
	switch {
	case score >= 90:
		return "elite"
	case score >= 75:
		return "strong"
	case score >= 60:
		return "capable"
	}
	return "limited"
}

// taskFitScore is a benchmark's percent score on the 0-100 scale, rounded to one decimal.
func taskFitScore(percent float64) float64 { return math.Round(percent*10) / 10 }

// taskFitRecords derives one record per model and task whose benchmark the model has a score for.
func taskFitRecords(bench []seeds.BenchmarkRecord) []api.ModelTaskFitRecord {
	var recs []api.ModelTaskFitRecord
	for _, b := range bench {
		for task, key := range taskFitBenchmarks {
			pct, ok := b.Scores[key]
			if !ok {
				continue
			}
			s := taskFitScore(pct)
			recs = append(recs, api.ModelTaskFitRecord{ProviderId: b.ProviderId, ModelId: b.ModelId, Task: api.ModelTaskFitTask(task), Score: s, Tier: api.ModelTaskFitTier(taskFitTier(s))})
		}
	}
	slices.SortFunc(recs, func(a, b api.ModelTaskFitRecord) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.ModelId, b.ModelId), strings.Compare(string(a.Task), string(b.Task)))
	})
	return recs
}

// withScores adds extra scores (keyed "provider/model") to the benchmark records, a record per model that has
// none yet; a score the record already has is kept.
func withScores(bench []seeds.BenchmarkRecord, extra map[string]map[string]float64) []seeds.BenchmarkRecord {
	out := make([]seeds.BenchmarkRecord, 0, len(bench)+len(extra))
	seen := map[string]bool{}
	for _, b := range bench {
		k := b.ProviderId + "/" + b.ModelId
		seen[k] = true
		scores := maps.Clone(b.Scores)
		for m, v := range extra[k] {
			if _, ok := scores[m]; !ok {
				scores[m] = v
			}
		}
		b.Scores = scores
		out = append(out, b)
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if seen[k] {
			continue
		}
		p, m, _ := strings.Cut(k, "/")
		out = append(out, seeds.BenchmarkRecord{ProviderId: p, ModelId: m, Scores: extra[k]})
	}
	return out
}

func buildModelTaskFit(in *Input) (*Catalog, error) {
	c, err := in.Catalog(seeds.CatalogBenchmarks)
	if err != nil {
		return nil, err
	}
	bench, err := seeds.Records[seeds.BenchmarkRecord](c)
	if err != nil {
		return nil, err
	}
	models, err := CurrentLLMModels(in)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(models))
	for i, m := range models {
		ids[i] = m.ProviderId + "/" + m.ModelId
	}
	known := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		known[p.ID] = true
	}
	extra, err := catalogbuild.BenchmarkScores(in.converterInput(known), ids, extraTaskFitBenchmarks)
	if err != nil {
		return nil, err
	}
	// The fit is read from the data sets' scores only: the benchmarks catalog's pages and independent results
	// (evidence, tiers) are not sources of these records.
	var sources []seeds.Source
	for _, s := range c.Sources {
		if s.ID == catalogbuild.SourceSimpleEvals || s.ID == catalogbuild.SourceLLMStats {
			sources = append(sources, s)
		}
	}
	return &Catalog{AsOf: c.AsOf, Sources: sources, Records: taskFitRecords(withScores(bench, extra))}, nil
}
