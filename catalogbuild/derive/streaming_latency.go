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
	Register(Deriver{Name: "streaming_latency", Build: buildStreamingLatency})
}

// StreamingBenchmarkSource names the only published latency figures in sources/upstream: the `throughput` (output
// tokens per second) and `latency` (seconds to the first token) of LLM-Stats.com's provider-model rows.
const StreamingBenchmarkSource = "LLM-Stats.com"

const llmStatsDate = "2025-10-16"

var streamingSrcLLMStats = seeds.Source{
	Name: "LLM-Stats.com / JonathanChavezTamales/llm-leaderboard, CC BY 4.0 (commit 24a9ccf7, 2025-10-16; restructured into a " +
		"single JSON): provider-model throughput and latency",
	URL:     "https://github.com/JonathanChavezTamales/llm-leaderboard",
	License: ptrTo("CC-BY-4.0"),
}

// llmStatsRow is one provider-model row of llm-stats.json.
type llmStatsRow struct {
	ModelID    string   `json:"model_id"`
	ModelName  string   `json:"model_name"`
	Throughput *float64 `json:"throughput"`
	Latency    *float64 `json:"latency"`
	UpdatedAt  string   `json:"updated_at"`
}

// placeholderRepeats is how many rows may share one exact (throughput, latency) pair before the pair is taken for a
// placeholder and the row dropped: independent measurements of different models do not coincide to the last digit,
// and the file's most common pairs (100 tokens/s with 0.5 s on 82 rows, 42 with 0.4, 85 with 0.7...) are defaults.
const placeholderRepeats = 3

// fieldDefaultRepeats is how many rows may share one exact throughput or latency value before that value is taken
// for a default and left out (null) wherever it appears: latency 0.5 s alone is on 82 of 244 rows, 0.4 s on 23.
const fieldDefaultRepeats = 10

// minThroughput drops the throughputs below one token per second (Mistral's 0.1 on six models), not measurements.
const minThroughput = 1.0

// streamingModels is the explicit table from (LLM-Stats.com provider, LLM-Stats.com model ID) to our provider and
// the model's API name in models.json. Providers LLM-Stats.com lists that are not among our 52 (lambda, zeroeval)
// are absent, as is its "google", whose rows mix the Gemini API and Vertex AI Model Garden. Rows of retired models
// (o1-preview, gpt-4.5, command-r-plus-04-2024, Llama 3.1 70B on Groq...) have no current API name and are absent.
var streamingModels = map[[2]string]mtebServed{
	{"openai", "gpt-4.1-2025-04-14"}:             {"openai", "gpt-4.1-2025-04-14"},
	{"openai", "gpt-4.1-mini-2025-04-14"}:        {"openai", "gpt-4.1-mini-2025-04-14"},
	{"openai", "gpt-4o-2024-08-06"}:              {"openai", "gpt-4o-2024-08-06"},
	{"openai", "o3-2025-04-16"}:                  {"openai", "o3-2025-04-16"},
	{"openai", "o3-pro-2025-06-10"}:              {"openai", "o3-pro-2025-06-10"},
	{"openai", "gpt-5-2025-08-07"}:               {"openai", "gpt-5"},
	{"openai", "gpt-5-mini-2025-08-07"}:          {"openai", "gpt-5-mini"},
	{"openai", "gpt-5-nano-2025-08-07"}:          {"openai", "gpt-5-nano"},
	{"anthropic", "claude-haiku-4-5-20251015"}:   {"anthropic", "claude-haiku-4-5"},
	{"azure", "gpt-4-0613"}:                      {"azure-openai", "gpt-4-0613"},
	{"azure", "gpt-4o-2024-05-13"}:               {"azure-openai", "gpt-4o-2024-05-13"},
	{"azure", "gpt-4o-mini-2024-07-18"}:          {"azure-openai", "gpt-4o-mini-2024-07-18"},
	{"azure", "gpt-4-turbo-2024-04-09"}:          {"azure-openai", "gpt-4-turbo-2024-04-09"},
	{"azure", "o1-2024-12-17"}:                   {"azure-openai", "o1-2024-12-17"},
	{"azure", "o1-mini"}:                         {"azure-openai", "o1-mini"},
	{"azure", "phi-3.5-mini-instruct"}:           {"azure-openai", "phi-3.5-mini-instruct"},
	{"bedrock", "claude-3-5-haiku-20241022"}:     {"aws-bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0"},
	{"bedrock", "claude-3-haiku-20240307"}:       {"aws-bedrock", "anthropic.claude-3-haiku-20240307-v1:0"},
	{"deepinfra", "deepseek-r1-0528"}:            {"deepinfra", "deepseek-ai/DeepSeek-R1-0528"},
	{"deepinfra", "llama-3.1-70b-instruct"}:      {"deepinfra", "meta-llama/Meta-Llama-3.1-70B-Instruct"},
	{"deepinfra", "llama-3.1-8b-instruct"}:       {"deepinfra", "meta-llama/Meta-Llama-3.1-8B-Instruct"},
	{"deepinfra", "llama-3.2-11b-instruct"}:      {"deepinfra", "meta-llama/Llama-3.2-11B-Vision-Instruct"},
	{"deepinfra", "llama-3.2-3b-instruct"}:       {"deepinfra", "meta-llama/Llama-3.2-3B-Instruct"},
	{"deepinfra", "llama-4-maverick"}:            {"deepinfra", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"},
	{"deepinfra", "llama-4-scout"}:               {"deepinfra", "meta-llama/Llama-4-Scout-17B-16E-Instruct"},
	{"deepinfra", "glm-4.6"}:                     {"deepinfra", "zai-org/GLM-4.6"},
	{"deepseek", "deepseek-r1"}:                  {"deepseek", "deepseek-r1"},
	{"fireworks", "deepseek-r1"}:                 {"fireworks", "accounts/fireworks/models/deepseek-r1"},
	{"fireworks", "llama-3.1-405b-instruct"}:     {"fireworks", "accounts/fireworks/models/llama-v3p1-405b-instruct"},
	{"fireworks", "llama-3.1-70b-instruct"}:      {"fireworks", "accounts/fireworks/models/llama-v3p1-70b-instruct"},
	{"fireworks", "llama-3.1-8b-instruct"}:       {"fireworks", "accounts/fireworks/models/llama-v3p1-8b-instruct"},
	{"fireworks", "llama-3.2-11b-instruct"}:      {"fireworks", "accounts/fireworks/models/llama-v3p2-11b-vision-instruct"},
	{"fireworks", "llama-3.2-90b-instruct"}:      {"fireworks", "accounts/fireworks/models/llama-v3p2-90b-vision-instruct"},
	{"fireworks", "llama-3.3-70b-instruct"}:      {"fireworks", "accounts/fireworks/models/llama-v3p3-70b-instruct"},
	{"fireworks", "llama-4-maverick"}:            {"fireworks", "accounts/fireworks/models/llama4-maverick-instruct-basic"},
	{"fireworks", "llama-4-scout"}:               {"fireworks", "accounts/fireworks/models/llama4-scout-instruct-basic"},
	{"fireworks", "qwen-2.5-72b-instruct"}:       {"fireworks", "accounts/fireworks/models/qwen2p5-72b-instruct"},
	{"fireworks", "qwen-2.5-coder-32b-instruct"}: {"fireworks", "accounts/fireworks/models/qwen2p5-coder-32b-instruct"},
	{"fireworks", "qwen3-235b-a22b"}:             {"fireworks", "accounts/fireworks/models/qwen3-235b-a22b"},
	{"fireworks", "qwen3-30b-a3b"}:               {"fireworks", "accounts/fireworks/models/qwen3-30b-a3b"},
	{"fireworks", "qwq-32b-preview"}:             {"fireworks", "accounts/fireworks/models/qwen-qwq-32b-preview"},
	{"groq", "llama-3.1-8b-instruct"}:            {"groq", "llama-3.1-8b-instant"},
	{"groq", "llama-3.3-70b-instruct"}:           {"groq", "llama-3.3-70b-versatile"},
	{"groq", "llama-4-maverick"}:                 {"groq", "meta-llama/llama-4-maverick-17b-128e-instruct"},
	{"groq", "llama-4-scout"}:                    {"groq", "meta-llama/llama-4-scout-17b-16e-instruct"},
	{"groq", "gpt-oss-120b"}:                     {"groq", "openai/gpt-oss-120b"},
	{"groq", "gpt-oss-20b"}:                      {"groq", "openai/gpt-oss-20b"},
	{"hyperbolic", "llama-3.1-405b-instruct"}:    {"hyperbolic", "meta-llama/Meta-Llama-3.1-405B-Instruct"},
	{"hyperbolic", "llama-3.1-8b-instruct"}:      {"hyperbolic", "meta-llama/Meta-Llama-3.1-8B-Instruct"},
	{"hyperbolic", "llama-3.3-70b-instruct"}:     {"hyperbolic", "meta-llama/Llama-3.3-70B-Instruct"},
	{"novita", "deepseek-r1-0528"}:               {"novita", "deepseek/deepseek-r1-0528"},
	{"novita", "gemma-3-27b-it"}:                 {"novita", "google/gemma-3-27b-it"},
	{"novita", "kimi-k2-instruct"}:               {"novita", "moonshotai/kimi-k2-instruct"},
	{"novita", "llama-4-maverick"}:               {"novita", "meta-llama/llama-4-maverick-17b-128e-instruct-fp8"},
	{"novita", "llama-4-scout"}:                  {"novita", "meta-llama/llama-4-scout-17b-16e-instruct"},
	{"novita", "qwen3-235b-a22b"}:                {"novita", "qwen/qwen3-235b-a22b-fp8"},
	{"novita", "qwen3-30b-a3b"}:                  {"novita", "qwen/qwen3-30b-a3b-fp8"},
	{"novita", "qwen3-32b"}:                      {"novita", "qwen/qwen3-32b-fp8"},
	{"sambanova", "llama-3.3-70b-instruct"}:      {"sambanova", "Meta-Llama-3.3-70B-Instruct"},
	{"sambanova", "llama-4-maverick"}:            {"sambanova", "Llama-4-Maverick-17B-128E-Instruct"},
	{"together", "gemma-3n-e4b-it"}:              {"together", "google/gemma-3n-E4B-it"},
	{"together", "llama-3.1-405b-instruct"}:      {"together", "meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo"},
	{"together", "llama-3.1-70b-instruct"}:       {"together", "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo"},
	{"together", "llama-3.1-8b-instruct"}:        {"together", "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo"},
	{"together", "llama-3.3-70b-instruct"}:       {"together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
	{"together", "llama-4-maverick"}:             {"together", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"},
	{"together", "llama-4-scout"}:                {"together", "meta-llama/Llama-4-Scout-17B-16E-Instruct"},
	{"xai", "grok-code-fast-1"}:                  {"xai", "grok-code-fast"},
}

// round2 keeps two decimals, so derived figures do not print float noise.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// latencyRecord turns one row into a record, or reports false when the row carries no usable figure. The
// rules: `latency` (seconds) x 1000 is the time to first token; `throughput` is output tokens per second; the time
// per output token is 1000 / throughput ms (the same figure, inverted; LLM-Stats.com publishes no separate
// inter-token delay); LLM-Stats.com publishes no 90th percentile. d tells the figures taken for defaults.
func latencyRecord(row llmStatsRow, to mtebServed, providerName string, d defaults) (api.StreamingLatencyRecord, bool) {
	if d.row(row) {
		return api.StreamingLatencyRecord{}, false
	}
	r := api.StreamingLatencyRecord{
		ProviderId: to.ProviderID, ProviderName: providerName, ModelId: to.ModelID, ModelName: row.ModelName,
		BenchmarkSource: StreamingBenchmarkSource, MeasuredAt: monthOf(row.UpdatedAt),
	}
	if row.Latency != nil && *row.Latency > 0 && !d.latency[*row.Latency] {
		r.MedianTtftMs = ptrTo(round2(*row.Latency * 1000))
	}
	if row.Throughput != nil && *row.Throughput >= minThroughput && !d.throughput[*row.Throughput] {
		r.ThroughputTokensPerSec = ptrTo(*row.Throughput)
		r.MedianTptMs = ptrTo(round2(1000 / *row.Throughput))
	}
	return r, r.MedianTtftMs != nil || r.ThroughputTokensPerSec != nil
}

// monthOf is the YYYY-MM of a timestamp: the month LLM-Stats.com last updated the row, the only period the data
// gives for its figures.
func monthOf(ts string) string {
	if len(ts) >= 7 {
		return ts[:7]
	}
	return ts
}

// defaults are the figures of llm-stats.json taken for placeholders rather than measurements.
type defaults struct {
	pairs      map[[2]float64]bool // (throughput, latency) pairs on placeholderRepeats or more rows: drop the row
	throughput map[float64]bool    // values on fieldDefaultRepeats or more rows: leave the figure out
	latency    map[float64]bool
}

// row tells whether a row's pair is a placeholder.
func (d defaults) row(r llmStatsRow) bool {
	return r.Throughput != nil && r.Latency != nil && d.pairs[[2]float64{*r.Throughput, *r.Latency}]
}

// findDefaults counts the figures of every row of the file (all providers, ours or not).
func findDefaults(all []llmStatsRow) defaults {
	pairs, tput, lat := map[[2]float64]int{}, map[float64]int{}, map[float64]int{}
	for _, r := range all {
		if r.Throughput != nil {
			tput[*r.Throughput]++
		}
		if r.Latency != nil {
			lat[*r.Latency]++
		}
		if r.Throughput != nil && r.Latency != nil {
			pairs[[2]float64{*r.Throughput, *r.Latency}]++
		}
	}
	d := defaults{pairs: map[[2]float64]bool{}, throughput: map[float64]bool{}, latency: map[float64]bool{}}
	for k, n := range pairs {
		d.pairs[k] = n >= placeholderRepeats
	}
	for k, n := range tput {
		d.throughput[k] = n >= fieldDefaultRepeats
	}
	for k, n := range lat {
		d.latency[k] = n >= fieldDefaultRepeats
	}
	return d
}

func buildStreamingLatency(in *Input) (*Catalog, error) {
	var f struct {
		Providers map[string]struct {
			Models []llmStatsRow `json:"models"`
		} `json:"providers"`
	}
	if err := readDataJSON(in.DataDir, "llm-stats.json", &f); err != nil {
		return nil, err
	}
	var all []llmStatsRow
	for _, p := range f.Providers {
		all = append(all, p.Models...)
	}
	d := findDefaults(all)
	// A model retired since the table was written (models.json leaves retired models out) has no latency to
	// report any more.
	models, err := Records[seeds.ModelRecord](in, seeds.CatalogModels)
	if err != nil {
		return nil, err
	}
	current := map[[2]string]bool{}
	for _, m := range models {
		current[[2]string{m.ProviderId, m.ModelId}] = true
	}
	reg := seeds.Providers()
	var recs []api.StreamingLatencyRecord
	for pid, p := range f.Providers {
		for _, row := range p.Models {
			to, ok := streamingModels[[2]string{pid, row.ModelID}]
			if !ok || !current[[2]string{to.ProviderID, to.ModelID}] {
				continue
			}
			prov, _ := reg.Get(to.ProviderID)
			if r, ok := latencyRecord(row, to, prov.Name, d); ok {
				recs = append(recs, r)
			}
		}
	}
	slices.SortFunc(recs, func(a, b api.StreamingLatencyRecord) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.ModelId, b.ModelId))
	})
	return &Catalog{AsOf: llmStatsDate, Sources: []seeds.Source{streamingSrcLLMStats}, Records: recs}, nil
}
