// Package catalogbuild converts the upstream snapshots of sources/upstream into the generated catalogs of seeds/catalogs:
// pricing.json, models.json and benchmarks.json. It is the library behind `make catalogs` (cmd/catalogbuild), kept
// apart from package main so that the seeds tests can run the same conversion and compare it with the committed
// files.
//
// # Sources and precedence
//
// Pricing (USD; per 1M tokens, per image, per minute of audio, per 1000 characters, per request):
//   - litellm (BerriAI/litellm model_prices_and_context_window.json) is the primary price source wherever it has a
//     price for the (provider, model). Units: per token x 1e6; STT per second x 60; TTS per character x 1000;
//     image generation per image (output_cost_per_image, else litellm's input_cost_per_image, which is its
//     per-generated-image price for DALL-E style models); search per query (the first, smallest tier of tiered
//     prices).
//   - models.dev is next: its cost.* are already per 1M tokens.
//   - genai-prices (pydantic) is last, and is used three ways: (1) a dated price change (constraint.start_date)
//     that took effect after the snapshot of the chosen source and on or before the catalog's as_of replaces that
//     source's input/output/cached prices; (2) a model known from litellm or models.dev without any price takes
//     genai-prices' price; (3) a model that only genai-prices lists is added when a maintainer verified its price
//     (prices_checked), it is neither deprecated nor removed, and its ID is an exact "equals" name of its match
//     rule (so that it is an API name, not a pattern). Time-of-day prices (off-peak discounts) are never used.
//   - A missing cached-input price is filled from another source only when that source has the same input and
//     output prices (the same price generation).
//
// Models (context window, max output, capabilities, knowledge cutoff):
//   - models.dev first for context window, max output, vision (image in its input modalities), function calling
//     (tool_call), JSON mode (structured_output when the field is present) and knowledge cutoff; litellm fills
//     what models.dev lacks (max_input_tokens, max_output_tokens, supports_vision, supports_function_calling,
//     supports_response_schema). A capability that neither source reports is false.
//   - The knowledge cutoff falls back to llm-stats (CC-BY-4.0, credited in the catalog's sources) for models
//     whose API name it gives unambiguously.
//   - The task comes from litellm's mode where litellm lists the model (chat/completion/responses -> llm,
//     embedding, image_generation -> image, audio_transcription/audio_speech -> speech, video_generation ->
//     video, search -> search), otherwise from models.dev's modalities. Chat models whose name marks them as
//     code models (codex, codestral, devstral, coder, code) are `code`; chat models that output both text and
//     audio are `multimodal` in the model catalog (`llm` in pricing, whose Task enum has no multimodal). rerank,
//     realtime, image_edit, ocr, moderation and vector-store entries are not a Task and are left out.
//
// Benchmarks (percent 0-100, keys mmlu, humaneval, math, gpqa, mgsm, hellaswag only):
//   - openai/simple-evals rows first (OpenAI's own zero-shot harness; MATH is MATH-500 for o1 and later), then
//     llm-stats (mostly vendor self-reported; CC-BY-4.0). Rows are attributed only to the publisher's own API
//     (benchmarkOrgs) and only when the API name is a model in the generated model catalog; reasoning-effort
//     variants ("o3-high") and display names are not API names and are left out.
//
// # Current models only
//
// The reference date is the newest snapshot among the sources (genai-prices, 2026-08-21). An entry is dropped
// when litellm's deprecation_date is on or before it, when models.dev marks it status=deprecated, or when
// genai-prices marks it deprecated or removed; the drop applies to that (provider, model) in every source.
// Region-, size-, quality- and commitment-qualified litellm keys (azure/eu/..., 1024-x-1024/..., bedrock/<region>/
// ...) and fine-tuned ("ft:") entries are variants, not models, and are left out; a Bedrock cross-region
// inference profile (us., eu., global. ...) is kept only when its base model ID is not listed.
package catalogbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Input configures a conversion.
type Input struct {
	// DataDir is the folder of the upstream snapshots and their manifests (sources/upstream).
	DataDir string
	// OfficialDir is the folder of the providers' curated lifecycle pages; "" is OfficialLifecycleDir(DataDir).
	OfficialDir string
	// PricesDir is the folder of the curated price structures; "" is the prices folder beside OfficialDir.
	PricesDir string
	// KnownProviders are the 52 provider IDs; a mapping to any other ID is an error.
	KnownProviders map[string]bool
	// ProviderNames are their display names (see WithProvenance).
	ProviderNames ProviderNames
	// FreeTierJSON is seeds/catalogs/free_tier.json: the models it lists as included in a provider's free tier
	// get free_tier=true in pricing. May be nil.
	FreeTierJSON []byte
	// Context stops a conversion between its steps (the run-time refresh's timeout and shutdown); nil never does.
	Context context.Context
}

// stopped is the error of a conversion whose context ended, checked between steps.
func (in Input) stopped() error {
	if in.Context == nil {
		return nil
	}
	if err := in.Context.Err(); err != nil {
		return fmt.Errorf("catalog build stopped: %w", err)
	}
	return nil
}

// Files are the names of the generated catalogs, in seeds/catalogs.
var Files = []string{"pricing.json", "models.json", "benchmarks.json"}

// Stats counts what a conversion kept and dropped.
type Stats struct {
	Pricing, Models, Benchmarks       int
	PricingProviders, ModelsProviders []string
	BenchmarkProviders                []string
	Deprecated                        int
	GenAIOverrides, GenAIFallbacks    []string
	GenAIAdded                        int
	CachedFilled                      int
	KnowledgeFromLLMStats             int
	DeprecatedAfterAsOf               []string
	// FollowedRetired are the models retired because the snapshot their alias points to, or their maker's
	// model, is shut down (followLineage).
	FollowedRetired                     []string
	ByPricingProvider, ByModelsProvider map[string]int
	ByBenchmarkProvider                 map[string]int
	PricingTasks                        map[string]int
	SkippedLiteLLMProviders             map[string]int
}

// Catalog is the envelope of every catalog file.
type Catalog[R any] struct {
	AsOf    string   `json:"as_of"`
	Sources []Source `json:"sources"`
	Records []R      `json:"records"`
}

// ordered is the catalog with each record encoded in the order of its OpenAPI schema (SchemaOrdered).
func (c Catalog[R]) ordered() (Catalog[json.RawMessage], error) {
	recs, err := SchemaOrdered(c.Records)
	if err != nil {
		return Catalog[json.RawMessage]{}, err
	}
	raw, ok := recs.([]json.RawMessage)
	if !ok {
		return Catalog[json.RawMessage]{}, fmt.Errorf("records of type %T are not generated API records", c.Records)
	}
	return Catalog[json.RawMessage]{AsOf: c.AsOf, Sources: c.Sources, Records: raw}, nil
}

// Result is a conversion's output.
type Result struct {
	// Files maps each name of Files to its bytes.
	Files  map[string][]byte
	Stats  Stats
	Report Report
}

type key struct{ provider, model string }

func (k key) String() string { return k.provider + "/" + k.model }

// matched loads the reference data and maps litellm's and models.dev's entries onto our (provider, model) keys,
// retired models left out: the steps Convert and Facts share.
func matched(in Input) (*converter, error) {
	if err := checkTables(in.KnownProviders); err != nil {
		return nil, err
	}
	snap, err := resolveSnapshots(in.DataDir)
	if err != nil {
		return nil, err
	}
	if in.OfficialDir == "" {
		in.OfficialDir = OfficialLifecycleDir(in.DataDir)
	}
	official, err := LoadLifecycle(in.OfficialDir, in.KnownProviders)
	if err != nil {
		return nil, err
	}
	if in.PricesDir == "" {
		// Beside the lifecycle folder, so that a build over another lifecycle folder (a test's) reads none of
		// the repository's price structures.
		in.PricesDir = filepath.Join(filepath.Dir(filepath.Clean(in.OfficialDir)), "prices")
	}
	prices, err := LoadPrices(in.PricesDir, in.KnownProviders)
	if err != nil {
		return nil, err
	}
	if err := in.stopped(); err != nil {
		return nil, err
	}
	apiModels, err := LoadAPIModels(in.DataDir)
	if err != nil {
		return nil, err
	}
	c := &converter{in: in, snap: snap, official: official, apiModels: apiModels, usedPages: map[string]Source{},
		prices: prices, pricedKeys: map[key]bool{},
		stats: Stats{SkippedLiteLLMProviders: map[string]int{}}}
	if err := c.load(); err != nil {
		return nil, err
	}
	// The reference date: the newest day any source holds for. Models shut down on or before it are retired
	// here; later shutdowns are judged by the server's clock when it answers.
	c.asOf = maxDate(c.snap.LiteLLM.Date, c.snap.ModelsDev.Date, c.snap.GenAI.Date, newestChecked(official))
	c.collectDeprecated()
	c.readLiteLLM()
	if err := in.stopped(); err != nil {
		return nil, err
	}
	c.readModelsDev()
	c.applyAcceptedIDs()
	c.followLineage()
	return c, in.stopped()
}

// Convert reads the reference data and builds the three catalogs. The output depends only on the input files:
// records are sorted, maps are encoded in key order and floats are rounded, so that a re-run gives the same bytes.
func Convert(in Input) (*Result, error) {
	c, err := matched(in)
	if err != nil {
		return nil, err
	}
	if err := c.readGenAI(); err != nil {
		return nil, err
	}
	c.readLLMStatsKnowledge()
	if err := in.stopped(); err != nil {
		return nil, err
	}
	models, modelsCat := c.buildModels()
	if err := in.stopped(); err != nil {
		return nil, err
	}
	pricingCat, err := c.buildPricing()
	if err != nil {
		return nil, err
	}
	if err := in.stopped(); err != nil {
		return nil, err
	}
	benchCat, err := c.buildBenchmarks(models)
	if err != nil {
		return nil, err
	}
	c.collectReviews()
	c.report.Followed = slices.Clone(c.stats.FollowedRetired)
	c.report.sort()
	res := &Result{Files: map[string][]byte{}, Stats: c.stats, Report: c.report}
	for name, cat := range map[string]interface {
		ordered() (Catalog[json.RawMessage], error)
	}{"pricing.json": pricingCat, "models.json": modelsCat, "benchmarks.json": benchCat} {
		if err := in.stopped(); err != nil {
			return nil, err
		}
		v, err := cat.ordered()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b, err := encode(v)
		if err != nil {
			return nil, fmt.Errorf("encoding %s: %w", name, err)
		}
		if b, err = WithProvenance(b, in.ProviderNames, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if b, err = WithSourceDates(b, c.snap.dates()); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		res.Files[name] = b
	}
	return res, nil
}

// encode writes a catalog as indented JSON with a final newline, HTML characters unescaped.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func checkTables(known map[string]bool) error {
	if len(known) == 0 {
		return fmt.Errorf("conv: no known provider IDs given")
	}
	var ids []string
	for _, p := range litellmProviders {
		ids = append(ids, p.ID)
	}
	for _, p := range modelsDevProviders {
		ids = append(ids, p.ID)
	}
	for _, id := range genaiPricesProviders {
		ids = append(ids, id)
	}
	for _, o := range benchmarkOrgs {
		ids = append(ids, o.ID)
	}
	for _, id := range llmStatsFirstParty {
		ids = append(ids, id)
	}
	for _, id := range ids {
		if !known[id] {
			return fmt.Errorf("conv: mapping table names %q, which is not one of the monitored providers", id)
		}
	}
	return nil
}

func maxDate(ds ...string) string {
	m := ""
	for _, d := range ds {
		if d > m {
			m = d
		}
	}
	return m
}

// ---- numbers ----

// roundSig rounds to n significant digits, which removes binary noise such as 0.15000000000000002.
func roundSig(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	return f
}

func ptr(x float64) *float64 { return &x }

// intPtr narrows a count read from a data set to the int of the generated types (64 bits on every platform the
// build runs on).
func intPtr(x int64) *int { v := int(x); return &v }

// perToken converts a litellm per-token price to USD per 1M tokens.
func perToken(x float64) *float64 { return ptr(roundSig(x*1e6, 9)) }

// ---- task classification ----

var tokenSplit = regexp.MustCompile(`[^a-z0-9]+`)

var codeTokens = map[string]bool{"code": true, "coder": true, "codex": true, "codestral": true, "devstral": true,
	"codellama": true, "codegemma": true}

// isCodeName reports whether a model's API name marks it as a code model.
func isCodeName(id string) bool {
	for _, t := range tokenSplit.Split(strings.ToLower(id), -1) {
		if codeTokens[t] || strings.HasPrefix(t, "codestral") || strings.HasPrefix(t, "devstral") {
			return true
		}
	}
	return false
}

func isEmbedName(id, family string) bool {
	return strings.Contains(strings.ToLower(id), "embed") || strings.Contains(strings.ToLower(family), "embed")
}

// litellmTask maps litellm's mode to our Task ("" = not a Task).
func litellmTask(mode string) string {
	switch mode {
	case "chat", "completion", "responses":
		return "llm"
	case "embedding":
		return "embedding"
	case "image_generation":
		return "image"
	case "audio_transcription", "audio_speech":
		return "speech"
	case "video_generation":
		return "video"
	case "search":
		return "search"
	}
	return ""
}

// mdTask derives the task of a models.dev entry from its modalities and name ("" = not a Task).
func mdTask(m mdModel) string {
	in, out := m.Modalities.Input, m.Modalities.Output
	switch {
	case strings.Contains(strings.ToLower(m.ID), "rerank"):
		return ""
	case isEmbedName(m.ID, m.Family):
		return "embedding"
	case hasAny(out, "video"):
		return "video"
	case hasAny(out, "image"):
		return "image"
	case len(out) == 1 && out[0] == "audio":
		return "speech"
	case len(in) == 1 && in[0] == "audio" && len(out) == 1 && out[0] == "text":
		return "speech"
	}
	return "llm"
}

// refine turns a generic llm task into code or multimodal (the latter for the model catalog only).
func refine(task, id string, textAndAudioOut bool) (pricingTask, modelTask string) {
	if task != "llm" {
		return task, task
	}
	// A model its provider names an image generator or a text-to-speech voice is not a language model, whatever
	// mode a data set gave it (litellm lists Fireworks' FLUX and Gemini's TTS models as chat).
	switch {
	case imageNameRE.MatchString(id):
		return "image", "image"
	case ttsNameRE.MatchString(id):
		return "speech", "speech"
	}
	if isCodeName(id) {
		return "code", "code"
	}
	if textAndAudioOut {
		return "llm", "multimodal"
	}
	return "llm", "llm"
}

// imageNameRE and ttsNameRE match model IDs that name an image generator (FLUX, or an "image" part such as
// gpt-5.4-image-2) or a text-to-speech model (a "tts" part), as whole parts of the ID.
var (
	imageNameRE = regexp.MustCompile(`(?i)(^|[-/_.])(flux|image)([-/_.0-9]|$)`)
	ttsNameRE   = regexp.MustCompile(`(?i)(^|[-/_.])tts([-/_.]|$)`)
)

var monthRE = regexp.MustCompile(`^([0-9]{4}-[0-9]{2})(-[0-9]{2})?$`)

func month(s string) *string {
	m := monthRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil
	}
	v := m[1]
	return &v
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
