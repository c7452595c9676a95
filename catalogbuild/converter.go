package catalogbuild

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
)

// lModel is one litellm entry after mapping.
type lModel struct {
	key                  key
	srcKey               string
	priority             int
	task                 string // our Task
	rates                api.PricingRates
	hasPrice             bool
	context, maxOut      *int64
	vision, fc, jsonMode bool
	audioOut             bool
	deprecationDate      string
}

// mModel is one models.dev entry after mapping.
type mModel struct {
	key key
	// srcID is the model's key in models.dev, which key.model may spell in another case (dataKey).
	srcID    string
	priority int
	m        mdModel
	task     string
}

// gEntry is one genai-prices model under our provider ID.
type gEntry struct {
	pid    string
	m      gpModel
	equals []string
	rule   any // m.Match decoded once: gpLookup evaluates it for many names
}

// gpHit is a memoized answer of gpLookup.
type gpHit struct {
	m  gpModel
	ok bool
}

type converter struct {
	in    Input
	snap  snapshots
	stats Stats
	asOf  string

	litellm  []litellmEntry
	md       modelsDev
	gp       genaiPrices
	ls       llmStats
	bench    []benchRecord
	freeTier map[key]bool

	deprecated map[key]string // why
	// litellmShutdown is litellm's deprecation_date of each model that has one, past or ahead.
	litellmShutdown map[key]string
	// lineage holds the models that follow another's shutdown day (followLineage).
	lineage   map[key]LineageFact
	lm        map[key]*lModel
	mm        map[key]*mModel
	gByProv   map[string][]gEntry
	gEquals   map[string]map[string]int // provider -> exact name -> index in gByProv of the first model naming it
	gMemo     map[key]gpHit
	knowledge map[key]string // from llm-stats
	modelKeys map[key]bool

	usedGenAI bool

	official map[string]*LifecycleFile
	// retiredSpelling maps, per provider, the lower-case form of each model ID its lifecycle page retires to the
	// page's spelling (see dataKey).
	retiredSpelling map[string]map[string]string
	apiModels       map[string]*APIModelList
	accepted        map[string]*AcceptedIDs
	usedPages       map[string]Source
	// prices are the curated price structures (sources/official/prices); pricedKeys the models whose pricing
	// record took them.
	prices     map[string]*PriceFile
	pricedKeys map[key]bool
	report     Report
}

func (c *converter) load() error {
	var err error
	if c.litellm, err = loadLiteLLM(c.in.DataDir); err != nil {
		return err
	}
	if err := readJSON(c.in.DataDir, snapModelsDev.File, &c.md); err != nil {
		return err
	}
	if err := readJSON(c.in.DataDir, snapGenAI.File, &c.gp); err != nil {
		return err
	}
	if rel, ok, err := readGenAIRelease(c.in.DataDir); err != nil {
		return err
	} else if ok {
		c.gp = mergeGenAIRelease(c.gp, rel)
	}
	if err := readJSON(c.in.DataDir, snapLLMStats.File, &c.ls); err != nil {
		return err
	}
	var b struct {
		Records []benchRecord `json:"records"`
	}
	if err := readJSON(c.in.DataDir, "benchmarks.json", &b); err != nil {
		return err
	}
	c.bench = b.Records
	c.freeTier = map[key]bool{}
	if len(c.in.FreeTierJSON) > 0 {
		var ft struct {
			Records []struct {
				ProviderID     string   `json:"provider_id"`
				IncludedModels []string `json:"included_models"`
			} `json:"records"`
		}
		if err := json.Unmarshal(c.in.FreeTierJSON, &ft); err != nil {
			return fmt.Errorf("free_tier.json: %w", err)
		}
		for _, r := range ft.Records {
			for _, m := range r.IncludedModels {
				c.freeTier[key{r.ProviderID, m}] = true
			}
		}
	}
	return nil
}

// litellmKey maps a litellm entry to (provider, model ID), or ok=false when it is not one of ours or is a variant.
func litellmKey(e litellmEntry, spec litellmProvider) (string, bool) {
	id := e.Key
	matched := false
	for _, p := range spec.Prefixes {
		if strings.HasPrefix(id, p) {
			id, matched = strings.TrimPrefix(id, p), true
			break
		}
	}
	if !matched && spec.RequirePrefix {
		return "", false
	}
	if id == "" || strings.HasPrefix(id, "ft:") || !ValidID(id) {
		// An ID outside the pattern (markup, whitespace, escapes) is never a model of ours, whatever the source.
		return "", false
	}
	if !spec.SlashOK && strings.Contains(id, "/") {
		return "", false
	}
	// "@" is Vertex AI's version separator: a Bedrock key carrying one is not a Bedrock model ID.
	if spec.Bedrock && (!strings.Contains(id, ".") || strings.Contains(id, "/") || strings.Contains(id, "@")) {
		return "", false
	}
	return id, true
}

func (c *converter) litellmSpecs() map[string]struct {
	litellmProvider
	priority int
} {
	m := map[string]struct {
		litellmProvider
		priority int
	}{}
	for i, p := range litellmProviders {
		m[p.Name] = struct {
			litellmProvider
			priority int
		}{p.litellmProvider, i}
	}
	return m
}

// collectDeprecated gathers every (provider, model) that a source says is retired as of the reference date.
func (c *converter) collectDeprecated() {
	c.deprecated = map[key]string{}
	c.litellmShutdown = map[key]string{}
	specs := c.litellmSpecs()
	for _, e := range c.litellm {
		spec, ok := specs[e.Provider]
		if !ok {
			continue
		}
		id, ok := litellmKey(e, spec.litellmProvider)
		if !ok {
			continue
		}
		d := e.str("deprecation_date")
		if d == "" {
			continue
		}
		k := c.dataKey(spec.ID, id)
		if prev, ok := c.litellmShutdown[k]; !ok || d < prev {
			c.litellmShutdown[k] = d
		}
		if d <= c.asOf {
			c.deprecated[k] = "litellm deprecation_date " + d
		}
	}
	for _, p := range modelsDevProviders {
		for id, m := range c.md.Providers[p.Name].Models {
			if m.Status == "deprecated" {
				c.deprecated[c.dataKey(p.ID, id)] = "models.dev status=deprecated"
			}
		}
	}
	for _, p := range c.gp.Providers {
		pid, ok := genaiPricesProviders[p.ID]
		if !ok {
			continue
		}
		for _, m := range p.Models {
			if m.Deprecated || m.Removed {
				for _, n := range gpEquals(m.Match) {
					c.deprecated[c.dataKey(pid, n)] = "genai-prices deprecated/removed"
				}
			}
		}
	}
	// The providers' own pages decide last: a model they list as current, or whose shutdown they moved past the
	// reference date, is not retired; a shutdown they list on or before the reference date retires the model, even
	// one they also list as available (Azure's schedule dates every GA version: the model is live until that day).
	for pid, f := range c.official {
		for _, m := range f.Current {
			delete(c.deprecated, key{pid, m.ModelID})
		}
		for _, r := range f.Retired {
			k := key{pid, r.ModelID}
			switch {
			case r.Shutdown != nil && *r.Shutdown <= c.asOf:
				c.deprecated[k] = "official: shut down on " + *r.Shutdown
			case r.Removed:
				c.deprecated[k] = "official: no longer served (no day stated)"
			case r.Shutdown != nil:
				delete(c.deprecated, k)
			}
		}
	}
}

func (c *converter) readLiteLLM() {
	specs := c.litellmSpecs()
	c.lm = map[key]*lModel{}
	// Deterministic: entries in key order, then precedence by table order.
	sort.Slice(c.litellm, func(i, j int) bool { return c.litellm[i].Key < c.litellm[j].Key })
	for _, e := range c.litellm {
		spec, ok := specs[e.Provider]
		if !ok {
			c.stats.SkippedLiteLLMProviders[e.Provider]++
			continue
		}
		id, ok := litellmKey(e, spec.litellmProvider)
		if !ok || sessionResource(e) {
			continue
		}
		task := litellmTask(e.Mode)
		if task == "llm" {
			task = outputTask(e)
		}
		if task == "" {
			continue
		}
		k := c.dataKey(spec.ID, id)
		if _, dep := c.deprecated[k]; dep {
			continue
		}
		if d := e.str("deprecation_date"); d != "" && d > c.asOf {
			c.stats.DeprecatedAfterAsOf = append(c.stats.DeprecatedAfterAsOf, k.String()+" "+d)
		}
		l := &lModel{key: k, srcKey: e.Key, priority: spec.priority, task: task, deprecationDate: e.str("deprecation_date")}
		l.rates = litellmRates(e, task)
		if allZero(l.rates) && !trustedZero(e, id) {
			// A zero price without a cited source is taken as "not filled in", not as free.
			l.rates = api.PricingRates{}
		}
		l.hasPrice = anyPrice(l.rates)
		if v, ok := e.num("max_input_tokens"); ok && v > 0 {
			n := int64(v)
			l.context = &n
		}
		if v, ok := e.num("max_output_tokens"); ok && v > 0 && task != "embedding" {
			n := int64(v)
			l.maxOut = &n
		}
		l.vision = e.flag("supports_vision")
		l.fc = e.flag("supports_function_calling")
		l.jsonMode = e.flag("supports_response_schema")
		l.audioOut = e.flag("supports_audio_output")
		if prev, ok := c.lm[k]; ok {
			// Same model from two litellm providers (or prefixed and unprefixed keys): keep the one with a price,
			// then the earlier provider in the table, then the shorter key (the unprefixed one).
			if better(prev, l) {
				continue
			}
		}
		c.lm[k] = l
	}
	// Bedrock: drop a cross-region profile whose base model is listed.
	for k := range c.lm {
		if k.provider != "aws-bedrock" {
			continue
		}
		if base, geo := bedrockBase(k.model); geo {
			if _, ok := c.lm[key{k.provider, base}]; ok {
				delete(c.lm, k)
			}
		}
	}
}

// outputTask refines the task of a litellm chat entry by its declared output modalities: a "chat" model that
// outputs no text (music, speech or image generation through the chat API) is not an llm.
func outputTask(e litellmEntry) string {
	outs, ok := e.Fields["supported_output_modalities"].([]any)
	if !ok || len(outs) == 0 {
		return "llm"
	}
	var list []string
	for _, o := range outs {
		if s, ok := o.(string); ok {
			list = append(list, s)
		}
	}
	switch {
	case hasAny(list, "text"):
		return "llm"
	case hasAny(list, "video"):
		return "video"
	case hasAny(list, "image"):
		return "image"
	case hasAny(list, "audio"):
		return "speech"
	}
	return "llm"
}

// trustedZero reports whether an all-zero litellm price is a real "free" price: the entry cites the provider's
// pricing page (`source`). A model's name (":free", "-Free") is no source: anyone can name a model so.
func trustedZero(e litellmEntry, _ string) bool {
	return e.str("source") != ""
}

// sessionResource reports whether a litellm entry prices a tool session rather than a model: litellm lists the
// Code Interpreter sandbox as "openai/container" (mode chat, billed per session), and OpenAI's model list has no
// model of that name. An entry whose only charges are per session is a resource of the API, never a model.
func sessionResource(e litellmEntry) bool {
	perSession := false
	for f := range e.Fields {
		switch {
		case strings.HasSuffix(f, "_cost_per_session"):
			perSession = true
		case strings.Contains(f, "cost_per"):
			return false
		}
	}
	return perSession
}

// better reports whether a should be kept over b.
func better(a, b *lModel) bool {
	if a.hasPrice != b.hasPrice {
		return a.hasPrice
	}
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	if len(a.srcKey) != len(b.srcKey) {
		return len(a.srcKey) < len(b.srcKey)
	}
	return a.srcKey < b.srcKey
}

func anyPrice(r api.PricingRates) bool {
	return r.InputPer1mTokens != nil || r.OutputPer1mTokens != nil || r.CachedInputPer1mTokens != nil || r.PerImage != nil ||
		r.PerMinuteAudio != nil || r.Per1kCharacters != nil || r.PerRequest != nil || r.PerSecondVideo != nil
}

func allZero(r api.PricingRates) bool {
	if !anyPrice(r) {
		return false
	}
	for _, p := range []*float64{r.InputPer1mTokens, r.OutputPer1mTokens, r.CachedInputPer1mTokens, r.PerImage, r.PerMinuteAudio, r.Per1kCharacters, r.PerRequest, r.PerSecondVideo} {
		if p != nil && *p != 0 {
			return false
		}
	}
	return true
}

// litellmRates converts litellm's prices into our units for a task.
func litellmRates(e litellmEntry, task string) api.PricingRates {
	var r api.PricingRates
	if v, ok := e.num("input_cost_per_token"); ok {
		r.InputPer1mTokens = perToken(v)
	}
	if v, ok := e.num("output_cost_per_token"); ok {
		r.OutputPer1mTokens = perToken(v)
	} else if v, ok := e.num("output_cost_per_image_token"); ok && task == "image" {
		// Token-priced image generators (gpt-image-*): their output tokens are image tokens.
		r.OutputPer1mTokens = perToken(v)
	}
	if v, ok := e.num("cache_read_input_token_cost"); ok {
		r.CachedInputPer1mTokens = perToken(v)
	}
	if task == "speech" || task == "image" || task == "video" {
		// A zero token price on a per-minute, per-character or per-image product means "not priced by token".
		for _, f := range []**float64{&r.InputPer1mTokens, &r.OutputPer1mTokens, &r.CachedInputPer1mTokens} {
			if *f != nil && **f == 0 {
				*f = nil
			}
		}
	}
	switch task {
	case "embedding":
		if r.OutputPer1mTokens != nil && *r.OutputPer1mTokens == 0 {
			r.OutputPer1mTokens = nil // embeddings have no output tokens
		}
	case "image":
		if v, ok := e.num("output_cost_per_image"); ok {
			r.PerImage = ptr(roundSig(v, 9))
		} else if v, ok := e.num("input_cost_per_image"); ok {
			r.PerImage = ptr(roundSig(v, 9))
		}
	case "speech":
		switch e.Mode {
		case "audio_transcription":
			if v, ok := e.num("input_cost_per_second"); ok {
				// litellm stores per-second prices to about 4 significant digits (e.g. $0.0043/min as 7.167e-05/s);
				// rounding the per-minute price to 4 significant digits gives back the published figure.
				r.PerMinuteAudio = ptr(roundSig(v*60, 4))
			}
		case "audio_speech":
			if v, ok := e.num("input_cost_per_character"); ok {
				r.Per1kCharacters = ptr(roundSig(v*1000, 9))
			}
			if v, ok := e.num("output_cost_per_second"); ok && v > 0 {
				r.PerMinuteAudio = ptr(roundSig(v*60, 4))
			}
		}
	case "video":
		// litellm names the per-second price of generated video two ways (Veo: output_cost_per_second; Sora and
		// Runway: output_cost_per_video_per_second); a resolution-specific price (..._1080p) is not the standard one.
		if v, ok := e.num("output_cost_per_video_per_second"); ok {
			r.PerSecondVideo = ptr(roundSig(v, 9))
		} else if v, ok := e.num("output_cost_per_second"); ok {
			r.PerSecondVideo = ptr(roundSig(v, 9))
		}
	case "search":
		if v, ok := e.num("input_cost_per_query"); ok {
			r.PerRequest = ptr(roundSig(v, 9))
		} else if tiers, ok := e.Fields["tiered_pricing"].([]any); ok && len(tiers) > 0 {
			if t, ok := tiers[0].(map[string]any); ok {
				if v, ok := t["input_cost_per_query"].(float64); ok {
					r.PerRequest = ptr(roundSig(v, 9))
				}
			}
		}
	}
	return r
}

func (c *converter) readModelsDev() {
	c.mm = map[key]*mModel{}
	for prio, p := range modelsDevProviders {
		prov := c.md.Providers[p.Name]
		for _, id := range sortedKeys(prov.Models) {
			m := prov.Models[id]
			if m.ID == "" {
				m.ID = id
			}
			if !ValidID(id) {
				continue // markup, whitespace or escapes: never a model ID
			}
			k := c.dataKey(p.ID, id)
			if _, dep := c.deprecated[k]; dep {
				continue
			}
			if p.ID == "aws-bedrock" && strings.Contains(id, "@") {
				continue // Vertex AI's version separator: not a Bedrock model ID
			}
			if p.ID == "aws-bedrock" {
				if base, geo := bedrockBase(id); geo {
					if _, ok := prov.Models[base]; ok {
						continue
					}
				}
			}
			t := mdTask(m)
			if t == "" {
				continue
			}
			if _, ok := c.mm[k]; ok {
				continue // an earlier models.dev provider already gave it
			}
			c.mm[k] = &mModel{key: k, srcID: id, priority: prio, m: m, task: t}
		}
	}
}

func (c *converter) readGenAI() error {
	c.gByProv = map[string][]gEntry{}
	c.gEquals = map[string]map[string]int{}
	c.gMemo = map[key]gpHit{}
	for _, p := range c.gp.Providers {
		pid, ok := genaiPricesProviders[p.ID]
		if !ok {
			continue
		}
		if c.gEquals[pid] == nil {
			c.gEquals[pid] = map[string]int{}
		}
		for _, m := range p.Models {
			var rule any
			if err := json.Unmarshal(m.Match, &rule); err != nil {
				rule = nil // a rule that does not decode matches nothing
			}
			g := gEntry{pid: pid, m: m, equals: gpEquals(m.Match), rule: rule}
			for _, n := range g.equals {
				if _, seen := c.gEquals[pid][n]; !seen {
					c.gEquals[pid][n] = len(c.gByProv[pid])
				}
			}
			c.gByProv[pid] = append(c.gByProv[pid], g)
		}
	}
	return nil
}

// gpLookup finds the genai-prices model for (provider, model ID): an exact "equals" name first; otherwise the
// single model whose match rule accepts the name (none when several do).
//
// Each answer is kept: the converter asks for one key several times, and an exact name is found in a map, so that
// a source of many entries costs one pass over the provider's rules per key, not a decode of each rule.
func (c *converter) gpLookup(k key) (gpModel, bool) {
	if h, ok := c.gMemo[k]; ok {
		return h.m, h.ok
	}
	h := c.gpFind(k)
	c.gMemo[k] = h
	return h.m, h.ok
}

func (c *converter) gpFind(k key) gpHit {
	list := c.gByProv[k.provider]
	if i, ok := c.gEquals[k.provider][k.model]; ok {
		return gpHit{list[i].m, true}
	}
	var found gpHit
	for _, g := range list {
		if gpEval(g.rule, k.model) {
			if found.ok {
				return gpHit{} // several rules accept the name: none is taken
			}
			found = gpHit{g.m, true}
		}
	}
	return found
}

// gpEval evaluates a decoded genai-prices match rule.
func gpEval(v any, name string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for op, arg := range m {
		switch op {
		case "or":
			list, _ := arg.([]any)
			any := false
			for _, x := range list {
				if gpEval(x, name) {
					any = true
					break
				}
			}
			if !any {
				return false
			}
		case "and":
			list, _ := arg.([]any)
			for _, x := range list {
				if !gpEval(x, name) {
					return false
				}
			}
		case "equals":
			s, _ := arg.(string)
			if name != s {
				return false
			}
		case "starts_with":
			s, _ := arg.(string)
			if !strings.HasPrefix(name, s) {
				return false
			}
		case "ends_with":
			s, _ := arg.(string)
			if !strings.HasSuffix(name, s) {
				return false
			}
		case "contains":
			s, _ := arg.(string)
			if !strings.Contains(name, s) {
				return false
			}
		case "regex":
			s, _ := arg.(string)
			re, err := regexp.Compile(s)
			if err != nil || !re.MatchString(name) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// readLLMStatsKnowledge collects knowledge cutoffs from llm-stats under the API names of the publishers' own
// providers. A (provider, model) that two llm-stats models claim with different cutoffs is left out.
func (c *converter) readLLMStatsKnowledge() {
	apiName := c.llmStatsAPINames()
	c.knowledge = map[key]string{}
	conflict := map[key]bool{}
	for _, org := range sortedKeys(c.ls.Organizations) {
		o, ok := benchmarkOrgs[org]
		if !ok {
			continue
		}
		models := c.ls.Organizations[org].Models
		for _, mid := range sortedKeys(models) {
			m := models[mid]
			mo := month(m.KnowledgeCutoff)
			if mo == nil {
				continue
			}
			for _, k := range c.benchKeys(org, o.ID, o.Prefix, mid, apiName) {
				if prev, ok := c.knowledge[k]; ok && prev != *mo {
					conflict[k] = true
				}
				c.knowledge[k] = *mo
			}
		}
	}
	for k := range conflict {
		delete(c.knowledge, k)
	}
}

// llmStatsAPINames maps (our provider, llm-stats model ID) to the API name llm-stats recorded for it on the
// publisher's own provider.
func (c *converter) llmStatsAPINames() map[key]string {
	out := map[key]string{}
	for _, p := range sortedKeys(c.ls.Providers) {
		pid, ok := llmStatsFirstParty[p]
		if !ok {
			continue
		}
		for _, r := range c.ls.Providers[p].Models {
			if r.ModelIDUsed != "" {
				out[key{pid, r.ModelID}] = r.ModelIDUsed
			}
		}
	}
	return out
}

// benchKeys returns the candidate (provider, API name) keys of an llm-stats or simple-evals model ID.
func (c *converter) benchKeys(org, pid, prefix, modelID string, apiName map[key]string) []key {
	var out []key
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, key{pid, id})
		}
	}
	if a, ok := benchmarkAliases[pid+"/"+modelID]; ok {
		add(a)
	}
	if a, ok := apiName[key{pid, modelID}]; ok {
		add(a)
	}
	add(prefix + modelID)
	return out
}

// dataKey is the key of a data set's model: the provider's lifecycle page's spelling of a model it retires, where
// the data set writes the same ID in another case (Azure's schedule retires DeepSeek-R1, litellm prices
// deepseek-r1), so that the page's shutdown reaches the model; else the data set's own ID.
func (c *converter) dataKey(provider, id string) key {
	if c.retiredSpelling == nil {
		c.retiredSpelling = map[string]map[string]string{}
		for pid, f := range c.official {
			m := map[string]string{}
			for _, r := range f.Retired {
				lower := strings.ToLower(r.ModelID)
				if prev, seen := m[lower]; seen && prev != r.ModelID {
					m[lower] = "" // two spellings on one page: neither is taken for the other
					continue
				}
				m[lower] = r.ModelID
			}
			c.retiredSpelling[pid] = m
		}
	}
	if s := c.retiredSpelling[provider][strings.ToLower(id)]; s != "" {
		return key{provider, s}
	}
	return key{provider, id}
}
