package derive

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "model_task_fit", Build: buildModelTaskFit})
}

// taskFitRecord is the OpenAPI ModelTaskFitRecord schema.
type taskFitRecord struct {
	ProviderID string  `json:"provider_id"`
	ModelID    string  `json:"model_id"`
	Task       string  `json:"task"`
	Score      float64 `json:"score"`
	Tier       string  `json:"tier"`
}

// taskFitBenchmarks maps each task to the benchmark of benchmarks.json that measures it: HumanEval (writing
// functions from docstrings) for code_generation, MATH for math, GPQA (graduate-level reasoning) for reasoning.
// The other seven tasks have no benchmark in the catalog, so they get no records rather than a guess; MMLU and
// MGSM (general knowledge, multilingual math) measure none of the ten tasks.
var taskFitBenchmarks = map[string]string{
	"code_generation": "humaneval",
	"math":            "math",
	"reasoning":       "gpqa",
}

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
func taskFitRecords(bench []seeds.BenchmarkRecord) []taskFitRecord {
	var recs []taskFitRecord
	for _, b := range bench {
		for task, key := range taskFitBenchmarks {
			pct, ok := b.Scores[key]
			if !ok {
				continue
			}
			s := taskFitScore(pct)
			recs = append(recs, taskFitRecord{ProviderID: b.ProviderID, ModelID: b.ModelID, Task: task, Score: s, Tier: taskFitTier(s)})
		}
	}
	slices.SortFunc(recs, func(a, b taskFitRecord) int {
		return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID), strings.Compare(a.Task, b.Task))
	})
	return recs
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
	return &Catalog{AsOf: c.AsOf, Sources: c.Sources, Records: taskFitRecords(bench)}, nil
}
