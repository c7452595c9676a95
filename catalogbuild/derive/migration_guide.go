package derive

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// The migration guides are built, pair by pair among the 15 most used LLM providers, from four catalogs: the
// reference-compat matrix (which API the caller's code is on), function calling and tool-call format (tools),
// and structured output (schemas). The rules are those of GET /migration-guide's description in the OpenAPI
// document; a change here must change it too.
//
// They are computed when the server loads its catalogs (MigrationGuides), not written to seeds/catalogs: a guide
// is keyed by two providers and has no provider_id, which the catalog file format requires of every record, and
// computing them from the embedded inputs means they can never drift from those.

// MigrationProviders are the 15 most used LLM providers (the first 15 of providers.json): the guides cover every
// ordered pair of them.
var MigrationProviders = []string{"openai", "anthropic", "google-gemini", "google-vertex-ai", "aws-bedrock", "azure-openai",
	"mistral", "cohere", "groq", "together", "fireworks", "deepseek", "perplexity", "xai", "openrouter"}

// Difficulty levels, easiest first (MigrationGuideDifficulty).
var migrationDifficulties = []string{"drop_in", "easy", "moderate", "hard"}

// migrationAuth is how each provider authenticates: native is its own API, reference its reference-compatible
// endpoint (only read when the guide stays on the reference SDK, that is when both sides are drop-in).
type migrationAuth struct{ native, reference string }

// migrationAuths is hand-curated from each provider's authentication page (URL beside each entry).
var migrationAuths = map[string]migrationAuth{
	// https://platform.openai.com/docs/api-reference/authentication
	"openai": {"Authorization: Bearer <OpenAI API key>", "Authorization: Bearer <OpenAI API key>"},
	// https://docs.claude.com/en/api/overview
	"anthropic": {"x-api-key: <Anthropic API key> plus an anthropic-version header", "Authorization: Bearer <Anthropic API key>"},
	// https://ai.google.dev/gemini-api/docs/api-key
	"google-gemini": {"x-goog-api-key: <Gemini API key>", "Authorization: Bearer <Gemini API key>"},
	// https://cloud.google.com/vertex-ai/docs/authentication
	"google-vertex-ai": {"Authorization: Bearer <short-lived Google Cloud OAuth access token> (service account or ADC)", "Authorization: Bearer <short-lived Google Cloud OAuth access token>"},
	// https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys.html
	"aws-bedrock": {"AWS Signature Version 4 with IAM credentials, or a Bedrock API key as a Bearer token", "Authorization: Bearer <Bedrock API key>"},
	// https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference
	"azure-openai": {"api-key: <Azure resource key> header, or a Microsoft Entra ID Bearer token", "Authorization: Bearer <Azure resource key> (v1 API)"},
	// https://docs.mistral.ai/api/
	"mistral": {"Authorization: Bearer <Mistral API key>", "Authorization: Bearer <Mistral API key>"},
	// https://docs.cohere.com/reference/about
	"cohere": {"Authorization: Bearer <Cohere API key>", "Authorization: Bearer <Cohere API key>"},
	// https://console.groq.com/docs/api-reference
	"groq": {"Authorization: Bearer <Groq API key>", "Authorization: Bearer <Groq API key>"},
	// https://docs.together.ai/reference/authentication-1
	"together": {"Authorization: Bearer <Together API key>", "Authorization: Bearer <Together API key>"},
	// https://docs.fireworks.ai/api-reference/introduction
	"fireworks": {"Authorization: Bearer <Fireworks API key>", "Authorization: Bearer <Fireworks API key>"},
	// https://api-docs.deepseek.com/
	"deepseek": {"Authorization: Bearer <DeepSeek API key>", "Authorization: Bearer <DeepSeek API key>"},
	// https://docs.perplexity.ai/guides/getting-started
	"perplexity": {"Authorization: Bearer <Perplexity API key>", "Authorization: Bearer <Perplexity API key>"},
	// https://docs.x.ai/docs/api-reference
	"xai": {"Authorization: Bearer <xAI API key>", "Authorization: Bearer <xAI API key>"},
	// https://openrouter.ai/docs/api-reference/authentication
	"openrouter": {"Authorization: Bearer <OpenRouter API key>", "Authorization: Bearer <OpenRouter API key>"},
}

// migrationAuthSources are the pages behind migrationAuths, for the catalog's sources, in the order of
// MigrationProviders.
var migrationAuthSources = []string{
	"https://platform.openai.com/docs/api-reference/authentication", "https://docs.claude.com/en/api/overview",
	"https://ai.google.dev/gemini-api/docs/api-key", "https://cloud.google.com/vertex-ai/docs/authentication",
	"https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys.html", "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference",
	"https://docs.mistral.ai/api/", "https://docs.cohere.com/reference/about", "https://console.groq.com/docs/api-reference",
	"https://docs.together.ai/reference/authentication-1", "https://docs.fireworks.ai/api-reference/introduction",
	"https://api-docs.deepseek.com/", "https://docs.perplexity.ai/guides/getting-started", "https://docs.x.ai/docs/api-reference",
	"https://openrouter.ai/docs/api-reference/authentication",
}

// MigrationFacts are what the rules read about one provider, gathered from the four input catalogs. A nil
// pointer is a fact the catalogs leave unknown.
type MigrationFacts struct {
	ID string
	// From reference_compat.
	Compatible, DropIn *bool
	Quirks             []string
	// From function_calling.
	Tools, Parallel, Forced *bool
	MaxTools                *int
	ForceOption             string // the tool-choice value that forces some tool call ("" when none is listed)
	// From structured_output, over the provider's models.
	Schema, Strict *bool
	SchemaParam    string // "" when no model names one
	// From tool_call_format.
	ResultRole, ResultKey, SchemaFormat string
	StrictRoles                         *bool
}

func isTrueFact(b *bool) bool  { return b != nil && *b }
func isFalseFact(b *bool) bool { return b != nil && !*b }

// migrationFeatures are the capabilities a guide compares, with how to read each from the facts.
var migrationFeatures = []struct {
	name string
	of   func(*MigrationFacts) *bool
}{
	{"tool calling", func(f *MigrationFacts) *bool { return f.Tools }},
	{"parallel tool calls", func(f *MigrationFacts) *bool { return f.Parallel }},
	{"forced tool choice", func(f *MigrationFacts) *bool { return f.Forced }},
	{"JSON-schema structured output", func(f *MigrationFacts) *bool { return f.Schema }},
	{"strict schema enforcement", func(f *MigrationFacts) *bool { return f.Strict }},
	{"reference chat-completions compatibility", func(f *MigrationFacts) *bool { return f.Compatible }},
}

// BuildMigrationGuide applies the rules to one ordered pair:
//   - The caller's code stays on the reference SDK (the reference path) when both providers are drop-in
//     replacements; otherwise it moves between the providers' native APIs (the native path).
//   - missing_features: each compared capability the source has (true) and the target is known to lack (false).
//     A capability the source has and the target leaves unknown is a gotcha ("... not confirmed on <to>").
//   - Difficulty: on the reference path drop_in when no capability is missing or unconfirmed, else easy; on the native path
//     moderate when one side is a drop-in replacement (its native API is the reference API), hard when neither
//     is. Three or more missing features raise it one level; losing tool calling altogether makes it hard.
//   - param_changes (native path only; on the reference path the parameter names stay the reference ones):
//     the structured-output parameter, the tool-choice value that forces a tool call, and where a tool result
//     goes (role and content key), each when the two providers differ.
//   - gotchas: unconfirmed capabilities; the target's known quirks on the reference path; on the native path
//     that the target is not drop-in and a different tool schema format; a target stricter on role ordering;
//     a lower tool count limit.
//   - auth_change: the two providers' authentication on the path taken.
func BuildMigrationGuide(from, to *MigrationFacts) api.MigrationGuideRecord {
	g := api.MigrationGuideRecord{
		FromProvider: from.ID, ToProvider: to.ID, ReferenceCompat: isTrueFact(to.Compatible),
		ParamChanges: []api.MigrationGuideParamChange{}, MissingFeatures: []string{}, Gotchas: []string{},
	}
	reference := isTrueFact(from.DropIn) && isTrueFact(to.DropIn)
	unconfirmed := 0
	for _, feat := range migrationFeatures {
		src, dst := feat.of(from), feat.of(to)
		switch {
		case !isTrueFact(src):
		case isFalseFact(dst):
			g.MissingFeatures = append(g.MissingFeatures, feat.name)
		case dst == nil:
			unconfirmed++
			g.Gotchas = append(g.Gotchas, fmt.Sprintf("%s not confirmed on %s", feat.name, to.ID))
		}
	}
	level := 0
	switch {
	case reference && len(g.MissingFeatures) == 0 && unconfirmed == 0:
		level = 0
	case reference:
		level = 1
	case isTrueFact(from.DropIn) || isTrueFact(to.DropIn):
		level = 2
	default:
		level = 3
	}
	if len(g.MissingFeatures) >= 3 {
		level++
	}
	if slices.Contains(g.MissingFeatures, "tool calling") {
		level = 3
	}
	g.Difficulty = api.MigrationGuideDifficulty(migrationDifficulties[min(level, 3)])

	if reference {
		g.Gotchas = append(g.Gotchas, prefixAll(to.ID+": ", to.Quirks)...)
		g.AuthChange = authChange(migrationAuths[from.ID].reference, migrationAuths[to.ID].reference)
	} else {
		g.ParamChanges = paramChanges(from, to)
		g.AuthChange = authChange(migrationAuths[from.ID].native, migrationAuths[to.ID].native)
		if !isTrueFact(to.DropIn) {
			g.Gotchas = append(g.Gotchas, fmt.Sprintf("%s is not a drop-in replacement for the reference SDK: port the calls to its native API", to.ID))
		}
		if from.SchemaFormat != "" && to.SchemaFormat != "" && from.SchemaFormat != to.SchemaFormat {
			g.Gotchas = append(g.Gotchas, fmt.Sprintf("tool parameters are declared as %s instead of %s", to.SchemaFormat, from.SchemaFormat))
		}
	}
	if isTrueFact(to.StrictRoles) && !isTrueFact(from.StrictRoles) {
		g.Gotchas = append(g.Gotchas, fmt.Sprintf("%s rejects messages that break its expected role order", to.ID))
	}
	if from.MaxTools != nil && to.MaxTools != nil && *to.MaxTools < *from.MaxTools {
		g.Gotchas = append(g.Gotchas, fmt.Sprintf("at most %d tools per request on %s (%d on %s)", *to.MaxTools, to.ID, *from.MaxTools, from.ID))
	}
	return g
}

func prefixAll(prefix string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = prefix + x
	}
	return out
}

func authChange(from, to string) string {
	if from == to {
		return "Same scheme (" + to + "): swap in the target's key"
	}
	return from + " -> " + to
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// paramChanges are the native-path renames; a side that has no such parameter is null.
func paramChanges(from, to *MigrationFacts) []api.MigrationGuideParamChange {
	out := []api.MigrationGuideParamChange{}
	add := func(a, b string) {
		if a != b && (a != "" || b != "") {
			out = append(out, api.MigrationGuideParamChange{From: optional(a), To: optional(b)})
		}
	}
	add(from.SchemaParam, to.SchemaParam)
	force := func(f *MigrationFacts) string {
		if f.ForceOption == "" {
			return ""
		}
		return "tool_choice=" + f.ForceOption
	}
	add(force(from), force(to))
	result := func(f *MigrationFacts) string {
		if f.ResultRole == "" {
			return ""
		}
		return "tool result: role " + f.ResultRole + ", " + f.ResultKey
	}
	add(result(from), result(to))
	return out
}

// forceOptions are the tool-choice values that force the model to call some tool, in the spellings providers use.
var forceOptions = []string{"required", "any", "ANY", "REQUIRED"}

// Minimal views of the input catalogs: only the fields the rules read.
type (
	mgCompat struct {
		ProviderID  string   `json:"provider_id"`
		Compatible  *bool    `json:"reference_compatible"`
		DropIn      *bool    `json:"drop_in_replacement"`
		KnownQuirks []string `json:"known_quirks"`
	}
	mgFunctionCalling struct {
		ProviderID string   `json:"provider_id"`
		Supported  *bool    `json:"tool_call_supported"`
		Parallel   *bool    `json:"parallel_calls_supported"`
		MaxTools   *int     `json:"max_tools"`
		Forced     *bool    `json:"forced_mode"`
		Options    []string `json:"tool_choice_options"`
	}
	mgStructured struct {
		ProviderID string  `json:"provider_id"`
		Schema     *bool   `json:"json_schema_supported"`
		Strict     *bool   `json:"strict_enforcement"`
		Param      *string `json:"response_format_param"`
	}
	mgToolFormat struct {
		ProviderID   string  `json:"provider_id"`
		ModelID      *string `json:"model_id"`
		ResultRole   string  `json:"tool_result_role"`
		ResultKey    string  `json:"tool_result_content_key"`
		StrictRoles  *bool   `json:"strict_role_ordering"`
		SchemaFormat string  `json:"tool_schema_format"`
	}
)

// anyOf summarises a per-model boolean for a provider: true if a model has it, false if every model is known
// not to, nil otherwise (no models, or only unknowns besides falses).
func anyOf(vals []*bool) *bool {
	t, f := true, false
	known := 0
	for _, v := range vals {
		if isTrueFact(v) {
			return &t
		}
		if v != nil {
			known++
		}
	}
	if known > 0 && known == len(vals) {
		return &f
	}
	return nil
}

// mostCommon is the most frequent non-empty value, ties broken by the smallest; "" when there is none.
func mostCommon(vals []string) string {
	n := map[string]int{}
	for _, v := range vals {
		if v != "" {
			n[v]++
		}
	}
	best := ""
	for v, c := range n {
		if best == "" || c > n[best] || (c == n[best] && v < best) {
			best = v
		}
	}
	return best
}

// migrationFactsFrom gathers the facts of every provider in ids from the four catalogs' records.
func migrationFactsFrom(ids []string, compat []mgCompat, fc []mgFunctionCalling, so []mgStructured, tf []mgToolFormat) map[string]*MigrationFacts {
	out := map[string]*MigrationFacts{}
	for _, id := range ids {
		out[id] = &MigrationFacts{ID: id}
	}
	for _, r := range compat {
		if f := out[r.ProviderID]; f != nil {
			f.Compatible, f.DropIn, f.Quirks = r.Compatible, r.DropIn, r.KnownQuirks
		}
	}
	for _, r := range fc {
		f := out[r.ProviderID]
		if f == nil {
			continue
		}
		f.Tools, f.Parallel, f.Forced, f.MaxTools = r.Supported, r.Parallel, r.Forced, r.MaxTools
		for _, o := range forceOptions {
			if slices.Contains(r.Options, o) {
				f.ForceOption = o
				break
			}
		}
	}
	schema, strict := map[string][]*bool{}, map[string][]*bool{}
	params, strictParams := map[string][]string{}, map[string][]string{}
	for _, r := range so {
		schema[r.ProviderID] = append(schema[r.ProviderID], r.Schema)
		strict[r.ProviderID] = append(strict[r.ProviderID], r.Strict)
		if r.Param != nil && isTrueFact(r.Schema) {
			params[r.ProviderID] = append(params[r.ProviderID], *r.Param)
			if isTrueFact(r.Strict) {
				strictParams[r.ProviderID] = append(strictParams[r.ProviderID], *r.Param)
			}
		}
	}
	formats, providerWide := map[string][]string{}, map[string]string{}
	byKey := map[string]mgToolFormat{}
	for _, r := range tf {
		f := out[r.ProviderID]
		if f == nil {
			continue
		}
		k := strings.Join([]string{r.ResultRole, r.ResultKey, r.SchemaFormat}, "\x00")
		byKey[r.ProviderID+"\x00"+k] = r
		if r.ModelID == nil {
			providerWide[r.ProviderID] = k
		}
		formats[r.ProviderID] = append(formats[r.ProviderID], k)
	}
	for id, f := range out {
		f.Schema, f.Strict = anyOf(schema[id]), anyOf(strict[id])
		f.SchemaParam = cmp.Or(mostCommon(strictParams[id]), mostCommon(params[id]))
		// A provider-wide record wins; otherwise the format most of the provider's models share.
		if k := cmp.Or(providerWide[id], mostCommon(formats[id])); k != "" {
			r := byKey[id+"\x00"+k]
			f.ResultRole, f.ResultKey, f.SchemaFormat, f.StrictRoles = r.ResultRole, r.ResultKey, r.SchemaFormat, r.StrictRoles
		}
	}
	return out
}

// MigrationInputs are the catalogs the guides are built from.
var MigrationInputs = []string{"reference_compat", "function_calling", "structured_output", "tool_call_format"}

func init() {
	// reference_compat and function_calling are curated files; the other two inputs are derived in the same run.
	Register(Deriver{Name: "migration_guide", Needs: []string{"structured_output", "tool_call_format"}, Build: buildMigrationGuides})
}

// buildMigrationGuides builds the guide of every ordered pair of MigrationProviders, in the endpoint's order, from
// the input catalogs. A guide follows by rule from all of its inputs: it cites every source of the catalog and is
// as sure as one source (single). as_of is the oldest as_of of the inputs.
func buildMigrationGuides(in *Input) (*Catalog, error) {
	cats := make([]*seeds.Catalog, len(MigrationInputs))
	for i, n := range MigrationInputs {
		var err error
		if cats[i], err = in.Catalog(n); err != nil {
			return nil, fmt.Errorf("migration guides: reading %s: %w", n, err)
		}
	}
	compat, err1 := seeds.Records[mgCompat](cats[0])
	fc, err2 := seeds.Records[mgFunctionCalling](cats[1])
	so, err3 := seeds.Records[mgStructured](cats[2])
	tf, err4 := seeds.Records[mgToolFormat](cats[3])
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, fmt.Errorf("migration guides: %w", err)
	}
	sources := migrationSources(cats)
	cited, err := migrationCitations(cats, sources)
	if err != nil {
		return nil, err
	}
	facts := migrationFactsFrom(MigrationProviders, compat, fc, so, tf)
	var guides []api.MigrationGuideRecord
	for _, a := range MigrationProviders {
		for _, b := range MigrationProviders {
			if a != b {
				g := BuildMigrationGuide(facts[a], facts[b])
				g.Sources, g.Confidence = union(cited[a], cited[b]), api.ConfidenceSingle
				guides = append(guides, g)
			}
		}
	}
	sortMigrationGuides(guides)
	// The catalog's sources are those its guides cite: the input catalogs also cover providers no guide concerns.
	cites := map[string]bool{}
	for _, g := range guides {
		for _, id := range g.Sources {
			cites[id] = true
		}
	}
	sources = slices.DeleteFunc(sources, func(s seeds.Source) bool { return !cites[s.ID] })
	return &Catalog{AsOf: oldestAsOf(cats), Sources: sources, Records: guides}, nil
}

// sortMigrationGuides puts guides in the endpoint's order: difficulty (easiest first), then from, then to.
func sortMigrationGuides(g []api.MigrationGuideRecord) {
	slices.SortFunc(g, func(a, b api.MigrationGuideRecord) int {
		return cmp.Or(cmp.Compare(slices.Index(migrationDifficulties, string(a.Difficulty)), slices.Index(migrationDifficulties, string(b.Difficulty))),
			strings.Compare(a.FromProvider, b.FromProvider), strings.Compare(a.ToProvider, b.ToProvider))
	})
}

// migrationCitations gives, per provider of MigrationProviders, the ids (in sources, the guide catalog's own) of
// what a guide that involves it stands on: the sources its records of the input catalogs cite, and its
// authentication page.
func migrationCitations(cats []*seeds.Catalog, sources []seeds.Source) (map[string][]string, error) {
	if len(migrationAuthSources) != len(MigrationProviders) {
		return nil, fmt.Errorf("migration guides: %d authentication pages for %d providers", len(migrationAuthSources), len(MigrationProviders))
	}
	idOfURL := map[string]string{}
	for _, s := range sources {
		idOfURL[s.URL] = s.ID
	}
	out := map[string][]string{}
	for i, p := range MigrationProviders {
		out[p] = append(out[p], idOfURL[migrationAuthSources[i]])
	}
	for _, c := range cats {
		urlOf := map[string]string{}
		for _, s := range c.Sources {
			urlOf[s.ID] = s.URL
		}
		recs, err := seeds.Records[struct {
			ProviderID string   `json:"provider_id"`
			Sources    []string `json:"sources"`
		}](c)
		if err != nil {
			return nil, fmt.Errorf("migration guides: %s: %w", c.Name, err)
		}
		for _, r := range recs {
			if _, ok := out[r.ProviderID]; !ok {
				continue
			}
			for _, id := range r.Sources {
				final, ok := idOfURL[urlOf[id]]
				if !ok {
					return nil, fmt.Errorf("migration guides: %s cites %q, which is not among its sources", c.Name, id)
				}
				out[r.ProviderID] = append(out[r.ProviderID], final)
			}
		}
	}
	return out, nil
}

// union is the sorted set of the ids of both lists.
func union(a, b []string) api.RecordSources {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// oldestAsOf is the earliest as_of of the input catalogs: a guide is no newer than its oldest fact.
func oldestAsOf(cats []*seeds.Catalog) string {
	oldest := ""
	for _, c := range cats {
		if oldest == "" || c.AsOf < oldest {
			oldest = c.AsOf
		}
	}
	return oldest
}

// migrationSources are the input catalogs' sources and the authentication pages, once each, sorted by URL.
func migrationSources(cats []*seeds.Catalog) []seeds.Source {
	seen := map[string]bool{}
	var out []seeds.Source
	add := func(s seeds.Source) {
		if !seen[s.URL] {
			seen[s.URL] = true
			out = append(out, s)
		}
	}
	for _, c := range cats {
		for _, s := range c.Sources {
			add(s)
		}
	}
	// The authentication pages were read with the official pages of the hand-curated reference-compatibility
	// catalog (cats[0]): they take the newest of those pages' dates.
	checked := cats[0].AsOf
	for _, s := range cats[0].Sources {
		if s.License == nil && s.AsOf != nil && *s.AsOf > checked {
			checked = *s.AsOf
		}
	}
	for _, u := range migrationAuthSources {
		add(seeds.Source{Name: "Authentication (official documentation)", URL: u, AsOf: &checked})
	}
	slices.SortFunc(out, func(a, b seeds.Source) int {
		return cmp.Or(strings.Compare(a.URL, b.URL), strings.Compare(a.Name, b.Name))
	})
	// Ids stay those of the input catalogs; the authentication pages get theirs, and a clash gets a suffix.
	used := map[string]bool{}
	for i := range out {
		id := out[i].ID
		if id == "" {
			id = catalogbuild.SourceID(catalogbuild.Source{URL: out[i].URL})
		}
		base := id
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		used[id] = true
		out[i].ID = id
	}
	return out
}
