package derive

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "model_task_fit", Build: buildModelTaskFit})
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
