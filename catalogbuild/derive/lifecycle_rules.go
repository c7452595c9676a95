package derive

import (
	"strings"
	"time"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

// The rules and tables shared by the lifecycle, knowledge-cutoff, version and task-fit catalogs (the lifecycle catalogs).

// The sources of the lifecycle catalogs: the data the converter picks current models and dates from.
var (
	lifecycleSrcLiteLLM = seeds.Source{
		Name:    "BerriAI/litellm model_prices_and_context_window.json (commit 8442b939, 2026-07-24)",
		URL:     "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json",
		License: ptrTo("MIT"),
	}
	lifecycleSrcModelsDev = seeds.Source{
		Name:    "models.dev (anomalyco/models.dev, formerly sst/models.dev, commit f3fc6922, 2026-07-02)",
		URL:     "https://github.com/anomalyco/models.dev",
		License: ptrTo("MIT"),
	}
	lifecycleSrcGenAIPrices = seeds.Source{
		Name:    "pydantic/genai-prices (commit 47df840a, 2026-08-21): deprecated and removed models",
		URL:     "https://github.com/pydantic/genai-prices",
		License: ptrTo("MIT"),
	}
)

// lifecyclePolicyURLs are the providers' published model lifecycle or deprecation policy pages. A provider
// missing here has none that we know of (null).
var lifecyclePolicyURLs = map[string]string{
	"openai":           "https://platform.openai.com/docs/deprecations",
	"anthropic":        "https://docs.anthropic.com/en/docs/about-claude/model-deprecations",
	"google-gemini":    "https://ai.google.dev/gemini-api/docs/models",
	"google-vertex-ai": "https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions",
	"azure-openai":     "https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/model-retirements",
	"aws-bedrock":      "https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html",
	"cohere":           "https://docs.cohere.com/docs/deprecations",
	"groq":             "https://console.groq.com/docs/deprecations",
}

// documentedPointers maps "provider/alias" to the snapshot the provider's documentation says the alias points to
// (catalogbuild.AliasPointers: the converter retires an alias with its snapshot by the same table).
var documentedPointers = catalogbuild.AliasPointers

// ---- reading the source facts ----

// lifecycleFactString returns a string field of a source entry, "" when absent.
func lifecycleFactString(fields map[string]any, name string) string {
	s, _ := fields[name].(string)
	return s
}

// lifecycleFullDate returns s when it is a whole, valid date (YYYY-MM-DD), else nil: a month alone is not a day, and
// the sources hold a few impossible days (models.dev has "2025-02-31"), which are no date either.
func lifecycleFullDate(s string) *string {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return nil
	}
	return &s
}

// lifecycleReleaseDate is models.dev's release_date of a model when it gives a whole day.
func lifecycleReleaseDate(f catalogbuild.SourceFacts) *string {
	return lifecycleFullDate(lifecycleFactString(f.ModelsDev, "release_date"))
}

// lifecycleLiteLLMDeprecation is litellm's deprecation_date of a model ("" when none).
func lifecycleLiteLLMDeprecation(f catalogbuild.SourceFacts) string {
	return lifecycleFactString(f.LiteLLM, "deprecation_date")
}

// lifecycleIDTokens splits a model ID into its lower-case words ("gemini-2.0-flash-exp" -> gemini, 2, 0, flash, exp).
func lifecycleIDTokens(id string) []string {
	return strings.FieldsFunc(strings.ToLower(id), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
}
