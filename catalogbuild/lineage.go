package catalogbuild

import (
	"regexp"
	"slices"
	"strings"
)

// One lifecycle per model: a model ID that is another spelling of a model whose lifecycle someone else decides
// follows that lifecycle, so that no catalog offers a model another catalog calls shut down.
//
//   - An alias follows the snapshot its provider's documentation says it points to (AliasPointers).
//   - A host's or aggregator's spelling of a model (OpenRouter's "openai/gpt-4-0613", Bedrock's
//     "anthropic.claude-3-5-sonnet-20240620-v1:0", Vertex AI's "claude-3-5-sonnet@20240620", Azure's
//     "Mistral-large-2407") follows the maker's lifecycle.
//
// Either rule yields to the model's own provider's pages: a host with its own schedule (Bedrock, Vertex AI,
// Azure, and every other provider whose lifecycle file lists the model as current or retired) decides for its
// own IDs, and a host retiring a model never retires it at the maker (the rule only runs from maker to host).
//
//   - A Bedrock cross-Region inference profile ("global.", "us.", "eu." ...) follows the Bedrock model it invokes
//     when Bedrock's own lifecycle pages list that model: Bedrock's lifecycle page says its dates are Bedrock's and
//     may differ from the maker's, and only they apply on Bedrock, so the maker's day never reaches such a profile.

// AliasPointer is the snapshot an alias points to according to its provider's model documentation.
type AliasPointer struct {
	Version string
	URL     string
}

// The model overview pages that name the snapshot each alias points to.
const (
	OpenAIModelsURL    = "https://platform.openai.com/docs/models"
	AnthropicModelsURL = "https://docs.anthropic.com/en/docs/about-claude/models/overview"
)

// AliasPointers maps "provider/alias" to the snapshot the provider's documentation says the alias points to. Only
// pointers stated on those pages are listed (aliases of models the provider has shut down are removed with them).
var AliasPointers = map[string]AliasPointer{
	"openai/gpt-4o":               {"gpt-4o-2024-08-06", OpenAIModelsURL},
	"openai/gpt-4o-mini":          {"gpt-4o-mini-2024-07-18", OpenAIModelsURL},
	"openai/gpt-4.1":              {"gpt-4.1-2025-04-14", OpenAIModelsURL},
	"openai/gpt-4.1-mini":         {"gpt-4.1-mini-2025-04-14", OpenAIModelsURL},
	"openai/o3":                   {"o3-2025-04-16", OpenAIModelsURL},
	"openai/gpt-5":                {"gpt-5-2025-08-07", OpenAIModelsURL},
	"openai/gpt-5-mini":           {"gpt-5-mini-2025-08-07", OpenAIModelsURL},
	"openai/gpt-5-nano":           {"gpt-5-nano-2025-08-07", OpenAIModelsURL},
	"anthropic/claude-haiku-4-5":  {"claude-haiku-4-5-20251001", AnthropicModelsURL},
	"anthropic/claude-sonnet-4-5": {"claude-sonnet-4-5-20250929", AnthropicModelsURL},
	"anthropic/claude-opus-4-5":   {"claude-opus-4-5-20251101", AnthropicModelsURL},
}

// Lineage rules, as named in notes and reports.
const (
	RuleAlias   = "alias"
	RuleMaker   = "maker"
	RuleProfile = "profile"
)

// makerOrgs maps the organisation part of a namespaced model ID ("openai/gpt-4-0613", Bedrock's "anthropic.",
// Vertex AI's "xai/") to the provider whose own API the model comes from. Only makers that publish a lifecycle of
// their API models are listed: open-weight families hosted under a hub name (meta-llama, Qwen...) have no
// maker schedule to follow.
var makerOrgs = map[string]string{
	"openai": "openai", "anthropic": "anthropic", "google": "google-gemini", "mistralai": "mistral",
	"mistral": "mistral", "cohere": "cohere", "x-ai": "xai", "xai": "xai", "deepseek": "deepseek",
	"ai21": "ai21", "perplexity": "perplexity",
}

// makerFamilies names the maker of an un-namespaced model ID by its first word, for hosts that spell models
// without the maker's name (Vertex AI, Azure).
var makerFamilies = []struct{ prefix, maker string }{
	{"claude-", "anthropic"}, {"gemini-", "google-gemini"}, {"gpt-", "openai"}, {"o1", "openai"}, {"o3", "openai"},
	{"o4-", "openai"}, {"chatgpt-", "openai"}, {"codex-", "openai"}, {"mistral-", "mistral"}, {"ministral-", "mistral"},
	{"codestral-", "mistral"}, {"pixtral-", "mistral"}, {"magistral-", "mistral"}, {"devstral-", "mistral"},
	{"open-mistral-", "mistral"}, {"open-mixtral-", "mistral"}, {"command-", "cohere"}, {"cohere-command-", "cohere"},
	{"grok-", "xai"}, {"jamba-", "ai21"}, {"sonar", "perplexity"},
}

var (
	bedrockVersionRE = regexp.MustCompile(`-v[0-9]+(:[0-9]+)?$`)
	atVersionRE      = regexp.MustCompile(`@[0-9]+$`)
)

// makerSpellings returns the maker a host's model ID names and the IDs the maker may spell it with, most literal
// first; "" when the ID names no maker with a published lifecycle.
func makerSpellings(provider, model string) (string, []string) {
	id := strings.ToLower(strings.TrimPrefix(model, "~"))
	maker := ""
	if provider == "aws-bedrock" {
		id, _ = bedrockBase(id)
		org, rest, ok := strings.Cut(id, ".")
		if !ok {
			return "", nil
		}
		maker, id = makerOrgs[org], bedrockVersionRE.ReplaceAllString(rest, "")
	} else if org, rest, ok := strings.Cut(id, "/"); ok {
		if strings.Contains(rest, "/") {
			return "", nil
		}
		maker, id = makerOrgs[org], rest
	} else {
		for _, f := range makerFamilies {
			if strings.HasPrefix(id, f.prefix) {
				maker = f.maker
				break
			}
		}
		id = strings.TrimPrefix(id, "cohere-")
	}
	if maker == "" || maker == provider {
		return "", nil
	}
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(id)
	if base, ver, ok := strings.Cut(id, "@"); ok && maker == "anthropic" {
		add(base + "-" + ver) // Vertex AI's claude-3-5-sonnet@20240620
	}
	add(atVersionRE.ReplaceAllString(id, ""))
	if maker == "anthropic" {
		add(strings.ReplaceAll(id, ".", "-")) // OpenRouter's claude-3.5-sonnet
	}
	return maker, out
}

// profileBase returns the Bedrock model a cross-Region inference profile invokes, when Bedrock's own lifecycle
// file lists that model (current or retired); ok is false for any other model.
func profileBase(files map[string]*LifecycleFile, provider, model string) (string, bool) {
	if provider != "aws-bedrock" {
		return "", false
	}
	base, ok := bedrockBase(model)
	if !ok || !OwnSchedule(files, provider, base) {
		return "", false
	}
	return base, true
}

// LineageParent is the (provider, model) whose lifecycle a model follows, and the rule that says so.
type LineageParent struct {
	Provider, Model, Rule string
}

// Parents lists the models whose lifecycle the model (provider, model) follows, most direct first: the snapshot
// its alias points to, then the maker's spellings of it. known reports the models a maker's lifecycle covers
// (current or retired), case-insensitively keyed by lower-case "provider/model" to the maker's own spelling.
func Parents(provider, model string, known map[string]string) []LineageParent {
	var out []LineageParent
	if p, ok := AliasPointers[provider+"/"+model]; ok {
		out = append(out, LineageParent{provider, p.Version, RuleAlias})
	}
	maker, ids := makerSpellings(provider, model)
	for _, id := range ids {
		if own, ok := known[maker+"/"+id]; ok {
			out = append(out, LineageParent{maker, own, RuleMaker})
			break
		}
	}
	return out
}

// OwnSchedule reports whether the model's own provider's lifecycle page lists it (as current or retired): its
// provider then decides its lifecycle, whatever its maker does.
func OwnSchedule(files map[string]*LifecycleFile, provider, model string) bool {
	f := files[provider]
	return f.Retirement(model) != nil || f.CurrentModel(model) != nil
}

// LineageFact is a model that follows another's lifecycle (Parents) where that one has a shutdown date: the model
// shuts down with it.
type LineageFact struct {
	Parent LineageParent
	// Shutdown is the parent's shutdown day (YYYY-MM-DD); on or before the build's reference day the model is
	// retired with it.
	Shutdown string
	// Page is the id of the parent's provider's page that gives the day ("" when litellm's deprecation_date gives
	// it); Replacement is the replacement that page names.
	Page        string
	Replacement *string
}

// shutdownFact is the shutdown day a model's own lifecycle gives it: its provider's page first, then litellm's
// deprecation_date. A model its page lists as current, or retires without a day, has none.
func (c *converter) shutdownFact(k key) (LineageFact, bool) {
	f := c.official[k.provider]
	if r := f.Retirement(k.model); r != nil {
		if r.Shutdown == nil {
			return LineageFact{}, false
		}
		return LineageFact{Shutdown: *r.Shutdown, Page: r.Source, Replacement: r.Replacement}, true
	}
	if f.CurrentModel(k.model) != nil {
		return LineageFact{}, false
	}
	if d, ok := c.litellmShutdown[k]; ok {
		return LineageFact{Shutdown: d}, true
	}
	return LineageFact{}, false
}

// followLineage applies the lineage rules after the data sets are read: a model whose alias target or maker has a
// shutdown date gets that date (c.lineage), and is retired with it when the day is on or before the reference
// date. Aliases are settled first, so that a host's spelling of an alias follows the alias's snapshot.
func (c *converter) followLineage() {
	known := map[string]string{}
	note := func(k key) { known[strings.ToLower(k.String())] = k.model }
	for k := range c.lm {
		note(k)
	}
	for k := range c.mm {
		note(k)
	}
	for k := range c.deprecated {
		note(k)
	}
	for pid, f := range c.official {
		for _, r := range f.Retired {
			note(key{pid, r.ModelID})
		}
		for _, m := range f.Current {
			note(key{pid, m.ModelID})
		}
	}
	c.lineage = map[key]LineageFact{}
	var cands []key
	for k := range c.lm {
		cands = append(cands, k)
	}
	for k := range c.mm {
		if c.lm[k] == nil {
			cands = append(cands, k)
		}
	}
	sortKeys(cands)
	retire := func(k key, p LineageParent, fact LineageFact) {
		pk := key{p.Provider, p.Model}
		fact.Parent = p
		c.lineage[k] = fact
		if fact.Shutdown <= c.asOf {
			c.deprecated[k] = "follows " + p.Rule + " " + pk.String() + ", shut down on " + fact.Shutdown
			delete(c.lm, k)
			delete(c.mm, k)
			c.stats.FollowedRetired = append(c.stats.FollowedRetired, k.String()+" ("+p.Rule+" "+pk.String()+")")
		}
	}
	// A profile of a model Bedrock schedules follows Bedrock only, even while Bedrock gives that model no day.
	onHost := map[key]bool{}
	for _, k := range cands {
		_, ownDay := c.litellmShutdown[k]
		if ownDay || OwnSchedule(c.official, k.provider, k.model) {
			continue
		}
		base, ok := profileBase(c.official, k.provider, k.model)
		if !ok {
			continue
		}
		onHost[k] = true
		if fact, ok := c.shutdownFact(key{k.provider, base}); ok {
			retire(k, LineageParent{k.provider, base, RuleProfile}, fact)
		}
	}
	for _, rule := range []string{RuleAlias, RuleMaker} {
		for _, k := range cands {
			// A model with a shutdown day of its own (its provider's page, or litellm's entry for that provider's
			// spelling) keeps it.
			_, ownDay := c.litellmShutdown[k]
			if _, done := c.lineage[k]; done || ownDay || onHost[k] || OwnSchedule(c.official, k.provider, k.model) {
				continue
			}
			for _, p := range Parents(k.provider, k.model, known) {
				if p.Rule != rule {
					continue
				}
				pk := key{p.Provider, p.Model}
				fact, ok := c.shutdownFact(pk)
				if !ok {
					fact, ok = c.lineage[pk]
				}
				if !ok {
					continue
				}
				retire(k, p, fact)
				break
			}
		}
	}
}

// Lineage is what followLineage found, keyed "provider/model": the models that follow another's shutdown day,
// retired ones included.
func (c *converter) lineageByName() map[string]LineageFact {
	out := make(map[string]LineageFact, len(c.lineage))
	for k, f := range c.lineage {
		out[k.String()] = f
	}
	return out
}
