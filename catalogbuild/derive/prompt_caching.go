package derive

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// This file holds the per-provider caching facts that /prompt-caching, /caching-granularity and /semantic-caching
// share, the rule that picks the model whose prices /prompt-caching shows, and helpers the other per-provider
// catalogs of the cost and batch group use.

func init() {
	Register(Deriver{Name: "prompt_caching", Build: buildPromptCaching})
}

// Caching types of the caching facts (CachingGranularityRecord.caching_type).
const (
	cachingAutomatic           = "automatic"
	cachingExplicit            = "explicit"
	cachingAutomaticExplicit   = "automatic_and_explicit"
	cachingProviderDependent   = "provider_dependent"
	semanticTypeExactPrefix    = "exact_prefix"
	semanticTypeExactMatch     = "exact_match"
	noTextGenerationCachingMsg = "No text-generation API: there is no prompt to cache, so prompt caching does not apply."
)

// cachingFact is what a provider's official prompt-caching documentation says. Only providers whose page is cited
// have one; a nil pointer is a fact the page does not state.
type cachingFact struct {
	Type            string
	Elements        []string
	Independent     *bool
	MinTokens       *int64
	MaxBreakpoints  *int64
	TTLOptions      []int64 // seconds
	DefaultTTL      *int64  // seconds
	Markup          *bool
	MarkupMethod    *string
	TTLConfigurable *bool
	Scope           *string // who shares a cache entry
	Notes           string
	URL             string
}

// cachingFacts are the providers' documented prompt caching, each from the page in URL.
var cachingFacts = map[string]cachingFact{
	"openai": {
		Type: cachingAutomatic, Elements: []string{"system", "messages", "images", "tools", "structured_output_schema"},
		Independent: ptrTo(false), MinTokens: ptrTo[int64](1024), DefaultTTL: ptrTo[int64](300), Markup: ptrTo(false),
		TTLConfigurable: ptrTo(true), Scope: ptrTo("organization"),
		Notes: "Automatic for prompts of 1,024 tokens or more, matched in 128-token increments of an identical prefix; no markup " +
			"(prompt_cache_key only helps routing). In-memory caches are typically cleared after 5-10 minutes of inactivity " +
			"and always within 1 hour; newer models accept prompt_cache_retention for extended (24 h) retention. Caches are " +
			"not shared between organizations.",
		URL: "https://platform.openai.com/docs/guides/prompt-caching",
	},
	"azure-openai": {
		Type: cachingAutomatic, Elements: []string{"system", "messages", "images", "tools", "structured_output_schema"},
		Independent: ptrTo(false), MinTokens: ptrTo[int64](1024), DefaultTTL: ptrTo[int64](300), Markup: ptrTo(false),
		Notes: "Automatic on supported models for prompts of 1,024 tokens or more with an identical prefix; caches are " +
			"typically cleared after 5-10 minutes of inactivity and always within 1 hour of last use.",
		URL: "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/prompt-caching",
	},
	"anthropic": {
		Type: cachingExplicit, Elements: []string{"tools", "system", "messages", "images", "documents", "tool_results"},
		Independent: ptrTo(false), MinTokens: ptrTo[int64](1024), MaxBreakpoints: ptrTo[int64](4),
		TTLOptions: []int64{300, 3600}, DefaultTTL: ptrTo[int64](300), Markup: ptrTo(true),
		MarkupMethod:    ptrTo(`cache_control on a content block ({"type": "ephemeral"}, optional "ttl": "1h")`),
		TTLConfigurable: ptrTo(true), Scope: ptrTo("organization"),
		Notes: "Up to 4 cache breakpoints; the cached prefix runs tools, then system, then messages. 5-minute TTL by default " +
			"(refreshed on each hit) or 1 hour; cache writes cost 1.25x (5 min) or 2x (1 h) the input price, reads 0.1x. " +
			"Minimum 1,024 tokens per cached prefix on most models (more on some Haiku and newer models).",
		URL: "https://docs.claude.com/en/docs/build-with-claude/prompt-caching",
	},
	"google-gemini": {
		Type: cachingAutomaticExplicit, Elements: []string{"system_instruction", "tools", "contents"},
		Independent: ptrTo(false), MinTokens: ptrTo[int64](1024), DefaultTTL: ptrTo[int64](3600), Markup: ptrTo(false),
		MarkupMethod:    ptrTo("cachedContents API (explicit caches, referenced by the cached_content request field)"),
		TTLConfigurable: ptrTo(true), Scope: ptrTo("project"),
		Notes: "Implicit caching is automatic on Gemini 2.5 and newer models; explicit caches are created with the " +
			"cachedContents API, with any TTL (1 hour by default) and an hourly storage charge. The minimum prompt size " +
			"depends on the model (1,024 tokens for Flash models, more for Pro models).",
		URL: "https://ai.google.dev/gemini-api/docs/caching",
	},
	"google-vertex-ai": {
		Type: cachingAutomaticExplicit, Elements: []string{"system_instruction", "tools", "contents"},
		Independent: ptrTo(false), DefaultTTL: ptrTo[int64](3600), Markup: ptrTo(false),
		MarkupMethod:    ptrTo("cachedContents resource (explicit context caches, referenced by the cached_content field)"),
		TTLConfigurable: ptrTo(true), Scope: ptrTo("project"),
		Notes: "Gemini models: implicit caching is automatic; explicit context caches have a configurable TTL (60 minutes " +
			"by default) and a storage charge. Partner models (Claude) use their own cache_control markup.",
		URL: "https://cloud.google.com/vertex-ai/generative-ai/docs/context-cache/context-cache-overview",
	},
	"aws-bedrock": {
		Type: cachingExplicit, Elements: []string{"system", "messages", "tools"},
		Independent: ptrTo(false), DefaultTTL: ptrTo[int64](300), Markup: ptrTo(true),
		MarkupMethod: ptrTo("cachePoint content block (Converse API) or cache_control (InvokeModel with Anthropic models)"),
		Notes: "Prompt caching on supported Claude and Amazon Nova models: the caller places cache checkpoints; a cached " +
			"prefix lives 5 minutes, reset on each hit. Minimum tokens per checkpoint and the number of checkpoints " +
			"depend on the model.",
		URL: "https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html",
	},
	"deepseek": {
		Type: cachingAutomatic, Elements: []string{"messages"}, Independent: ptrTo(false), MinTokens: ptrTo[int64](64),
		Markup: ptrTo(false), TTLConfigurable: ptrTo(false), Scope: ptrTo("user"),
		Notes: "Context caching on disk is on by default for every request: a repeated prompt prefix is served from cache " +
			"in 64-token units. Unused caches are cleared automatically, usually within hours to days; each user's cache " +
			"is separate.",
		URL: "https://api-docs.deepseek.com/guides/kv_cache",
	},
	"groq": {
		Type: cachingAutomatic, Elements: []string{"messages"}, Independent: ptrTo(false), Markup: ptrTo(false),
		Notes: "Automatic prompt caching of identical prompt prefixes on supported models; cached input tokens are billed " +
			"at a discount and need no code change.",
		URL: "https://console.groq.com/docs/prompt-caching",
	},
	"fireworks": {
		Type: cachingAutomatic, Elements: []string{"messages"}, Independent: ptrTo(false), Markup: ptrTo(false),
		Notes: "Prompt caching is on by default for serverless models: a repeated prompt prefix is reused and its tokens " +
			"billed at the cached price.",
		URL: "https://docs.fireworks.ai/guides/prompt-caching",
	},
	"alibaba-dashscope": {
		Type: cachingAutomaticExplicit, Elements: []string{"messages"}, Independent: ptrTo(false),
		MinTokens: ptrTo[int64](1024), DefaultTTL: ptrTo[int64](300), Markup: ptrTo(false),
		MarkupMethod:    ptrTo(`cache_control ({"type": "ephemeral"}) on a message, for the explicit cache`),
		TTLConfigurable: ptrTo(false),
		Notes: "Implicit cache: automatic on supported Qwen models. Explicit cache: the caller marks the prefix; entries " +
			"need at least 1,024 tokens and live 5 minutes, renewed on each hit. min_tokens_per_block and the TTL are " +
			"those of the explicit cache.",
		URL: "https://www.alibabacloud.com/help/en/model-studio/context-cache",
	},
	"openrouter": {
		Type: cachingProviderDependent, Elements: []string{"messages"}, Independent: ptrTo(false),
		MarkupMethod: ptrTo("cache_control breakpoints for Anthropic and Gemini models; automatic for the others that cache"),
		Notes: "OpenRouter passes caching through to the provider behind each model: automatic for OpenAI, DeepSeek, Grok " +
			"and Groq models, cache_control breakpoints for Anthropic (and explicit Gemini) models; cached tokens are " +
			"billed at that provider's cached price.",
		URL: "https://openrouter.ai/docs/features/prompt-caching",
	},
}

// round1 rounds to one decimal place (the percentages of the caching catalogs).
func round1(x float64) float64 { return math.Round(x*10) / 10 }

// textGenerator reports whether the provider serves language models (providers.json category llm): only those
// have prompts to cache, batch or rerank against.
func textGenerator(p seeds.Provider) bool { return slices.Contains(p.Categories, "llm") }

// cachedPriceModel is the rule of /prompt-caching's price_model: among the provider's language models (pricing
// task llm or code) with an input and a cached-input price, the one with the highest input price (the provider's
// top tier), ties by model ID ascending. ok is false when there is none.
func cachedPriceModel(pricing []seeds.PricingRecord, providerID string) (best seeds.PricingRecord, ok bool) {
	for _, r := range pricing {
		if r.ProviderId != providerID || (r.Task != "llm" && r.Task != "code") ||
			r.Pricing.InputPer1mTokens == nil || r.Pricing.CachedInputPer1mTokens == nil {
			continue
		}
		if !ok || cmp.Or(cmp.Compare(*r.Pricing.InputPer1mTokens, *best.Pricing.InputPer1mTokens),
			strings.Compare(best.Model, r.Model)) > 0 {
			best, ok = r, true
		}
	}
	return best, ok
}

// cachedModelCount counts the provider's language models with a cached-input price: the evidence that a provider
// without a cited caching page bills cached tokens.
func cachedModelCount(pricing []seeds.PricingRecord, providerID string) int {
	n := 0
	for _, r := range pricing {
		if r.ProviderId == providerID && (r.Task == "llm" || r.Task == "code") && r.Pricing.CachedInputPer1mTokens != nil {
			n++
		}
	}
	return n
}

// cachingStatus is what the caching catalogs agree on for one provider: supported or not (nil: not confirmed),
// the documented facts if any, the price model and a sentence on where the answer comes from.
type cachingStatus struct {
	Supported *bool
	Fact      *cachingFact
	Price     *seeds.PricingRecord
	Basis     string
}

// cachingStatusOf applies the rule of /prompt-caching's description: documented caching, else a cached price in
// the pricing catalog, else nothing to cache for a provider without language models, else unknown.
func cachingStatusOf(p seeds.Provider, pricing []seeds.PricingRecord) cachingStatus {
	st := cachingStatus{}
	if m, ok := cachedPriceModel(pricing, p.ID); ok {
		st.Price = &m
	}
	if f, ok := cachingFacts[p.ID]; ok {
		st.Supported, st.Fact, st.Basis = ptrTo(true), &f, f.Notes+" Source: "+f.URL+"."
		return st
	}
	switch n := cachedModelCount(pricing, p.ID); {
	case n > 0:
		st.Supported = ptrTo(true)
		st.Basis = fmt.Sprintf("The pricing catalog lists a cached-input price for %d of %s's language models "+
			"(litellm / models.dev / genai-prices), so cached tokens are billed; how caching is triggered was not "+
			"confirmed from the provider's documentation.", n, p.Name)
	case !textGenerator(p):
		st.Supported, st.Basis = ptrTo(false), noTextGenerationCachingMsg
	default:
		st.Basis = "Prompt caching not confirmed: the pricing catalog lists no cached-input price for this provider and " +
			"no official caching documentation was cited."
	}
	return st
}

// cachingInputs are the providers and the pricing records the caching catalogs read, with the pricing catalog's
// envelope (its as_of and sources are those of the derived catalogs, plus the pages cited).
type cachingInputs struct {
	providers []seeds.Provider
	pricing   []seeds.PricingRecord
	priceCat  *seeds.Catalog
}

func readCachingInputs(in *Input) (*cachingInputs, error) {
	cat, err := in.Catalog(seeds.CatalogPricing)
	if err != nil {
		return nil, err
	}
	recs, err := seeds.Records[seeds.PricingRecord](cat)
	if err != nil {
		return nil, err
	}
	return &cachingInputs{providers: sortedProviders(), pricing: recs, priceCat: cat}, nil
}

// sortedProviders are the 52 providers by ID: every per-provider catalog has one record each, in this order.
func sortedProviders() []seeds.Provider {
	ps := slices.Clone(seeds.Providers().All())
	slices.SortFunc(ps, func(a, b seeds.Provider) int { return strings.Compare(a.ID, b.ID) })
	return ps
}

// officialSources lists the pages in urls (keyed by provider ID) as catalog sources, in provider order, one per
// address.
func officialSources(what string, urls map[string]string) []seeds.Source {
	var out []seeds.Source
	seen := map[string]bool{}
	for _, p := range sortedProviders() {
		u, ok := urls[p.ID]
		if !ok || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, seeds.Source{Name: p.Name + " documentation: " + what, URL: u})
	}
	return out
}

func cachingURLs() map[string]string {
	out := map[string]string{}
	for id, f := range cachingFacts {
		out[id] = f.URL
	}
	return out
}

// cachingSources are the pricing catalog's sources followed by the caching pages cited.
func (ci *cachingInputs) cachingSources() []seeds.Source {
	return append(slices.Clone(ci.priceCat.Sources), officialSources("prompt caching", cachingURLs())...)
}

// promptCachingOf builds one provider's /prompt-caching record.
func promptCachingOf(p seeds.Provider, pricing []seeds.PricingRecord) api.PromptCachingRecord {
	st := cachingStatusOf(p, pricing)
	r := api.PromptCachingRecord{ProviderId: p.ID, ProviderName: p.Name, CachingSupported: st.Supported,
		CacheableElements: []string{}, Notes: ptrTo(st.Basis)}
	if f := st.Fact; f != nil {
		r.CacheableElements = slices.Clone(f.Elements)
		r.RequiresExplicitMarkup = f.Markup
		if f.DefaultTTL != nil {
			r.CacheTtlMinutes = ptrTo(float64(*f.DefaultTTL) / 60)
		}
	}
	if m := st.Price; m != nil {
		in, cached := *m.Pricing.InputPer1mTokens, *m.Pricing.CachedInputPer1mTokens
		r.UncachedInputPricePerMtoken, r.CachedInputPricePerMtoken, r.PriceModel = ptrTo(in), ptrTo(cached), ptrTo(m.Model)
		if in > 0 {
			r.SavingsPct = ptrTo(round1((1 - cached/in) * 100))
		}
	}
	return r
}

func buildPromptCaching(in *Input) (*Catalog, error) {
	ci, err := readCachingInputs(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.PromptCachingRecord, 0, len(ci.providers))
	for _, p := range ci.providers {
		recs = append(recs, promptCachingOf(p, ci.pricing))
	}
	return &Catalog{AsOf: ci.priceCat.AsOf, Sources: ci.cachingSources(), Records: recs}, nil
}
