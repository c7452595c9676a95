package catalogbuild

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
)

func sortKeys(ks []key) {
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].provider != ks[j].provider {
			return ks[i].provider < ks[j].provider
		}
		return ks[i].model < ks[j].model
	})
}

func providersOf(counts map[string]int) []string {
	return sortedKeys(counts)
}

// buildModels merges models.dev and litellm into the model catalog.
func (c *converter) buildModels() (map[key]bool, Catalog[api.ModelRecord]) {
	keys := map[key]bool{}
	for k := range c.mm {
		keys[k] = true
	}
	for k, l := range c.lm {
		if l.task != "search" {
			keys[k] = true
		}
	}
	for _, k := range c.officialKeys() {
		if t := c.officialModel(k).Task; t != "search" && t != "rerank" && t != "moderation" {
			keys[k] = true
		}
	}
	list := make([]key, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	sortKeys(list)
	usedLLMStats := false
	counts := map[string]int{}
	var recs []api.ModelRecord
	for _, k := range list {
		// An alias is served as the model it names: its limits and capabilities are that model's data, not what
		// the data sets hold under the alias, which may be an older model the alias once named (xAI's grok-4 is
		// Grok 4.3 now, and the data sets' grok-4 is Grok 4 0709). The data sets' own entry is kept only where they
		// have none for the model.
		dk := k
		if t := c.priceKey(k); t != k && (c.mm[t] != nil || c.lm[t] != nil) {
			dk = t
		}
		m, l := c.mm[dk], c.lm[dk]
		var task string
		var audioOut bool
		switch {
		case m == nil && l == nil:
			task = c.officialModel(k).Task
		case l != nil:
			task = l.task
			audioOut = l.audioOut
			if m != nil {
				audioOut = hasAny(m.m.Modalities.Output, "audio") && hasAny(m.m.Modalities.Output, "text")
			}
		default:
			task = m.task
			audioOut = hasAny(m.m.Modalities.Output, "audio") && hasAny(m.m.Modalities.Output, "text")
		}
		_, modelTask := refine(task, k.model, audioOut)
		r := api.ModelRecord{ProviderId: k.provider, ModelId: k.model, Task: api.ModelTask(modelTask)}
		liteWindow := l != nil && l.context != nil
		if m == nil && liteWindow {
			// litellm's max_input_tokens is an input limit. It is no window where models.dev gives the model the ID
			// names a variant or snapshot of that very input limit, with the same output limit, inside a larger
			// window: litellm copied the base model's limits (OpenAI's GPT-5 snapshots and gpt-5-search-api: 272,000
			// input of GPT-5's 400,000 window). Unknown then, rather than the input limit.
			if b, ok := c.familyBase(k); ok && b.m.Limit.Input == *l.context && b.m.Limit.Context > *l.context &&
				(l.maxOut == nil || b.m.Limit.Output == *l.maxOut) {
				c.report.reject("models", k, "context_window", *l.context, fmt.Sprintf("litellm's max_input_tokens, an input limit: models.dev gives %s that input limit in a %d-token window", b.key.model, b.m.Limit.Context))
				liteWindow = false
			}
		}
		if m != nil && m.m.Limit.Context > 0 {
			r.ContextWindow = intPtr(m.m.Limit.Context)
		} else if liteWindow {
			r.ContextWindow = intPtr(*l.context)
		}
		if task != "embedding" {
			if m != nil && m.m.Limit.Output > 0 {
				r.MaxOutputTokens = intPtr(m.m.Limit.Output)
			} else if l != nil && l.maxOut != nil {
				r.MaxOutputTokens = intPtr(*l.maxOut)
			}
		}
		if m != nil {
			r.Capabilities.Vision = boolPtr(hasAny(m.m.Modalities.Input, "image"))
			r.Capabilities.FunctionCalling = boolPtr(m.m.ToolCall)
			if m.m.StructuredOutput != nil {
				r.Capabilities.JsonMode = boolPtr(*m.m.StructuredOutput)
			} else if l != nil {
				r.Capabilities.JsonMode = boolPtr(l.jsonMode)
			}
			r.KnowledgeCutoff = month(m.m.Knowledge)
		} else if l != nil {
			r.Capabilities = api.ModelsCapabilities{Vision: boolPtr(l.vision), FunctionCalling: boolPtr(l.fc), JsonMode: boolPtr(l.jsonMode)}
		}
		if off := c.officialModel(k); off != nil && off.KnowledgeCutoff != nil {
			mo := (*off.KnowledgeCutoff)[:7] // the page's cutoff outranks the data sets' month
			r.KnowledgeCutoff = &mo
		}
		if r.KnowledgeCutoff == nil {
			if mo, ok := c.knowledge[k]; ok {
				v := mo
				r.KnowledgeCutoff = &v
				usedLLMStats = true
				c.stats.KnowledgeFromLLMStats++
			}
		}
		// litellm's max_input_tokens is an input limit: it is compared with models.dev's input limit where
		// models.dev states one apart from the window, else with the window.
		var ctxVals []sourced
		if m != nil && m.m.Limit.Context > 0 {
			v := m.m.Limit.Context
			if m.m.Limit.Input > 0 && l != nil && l.context != nil {
				v = m.m.Limit.Input
			}
			ctxVals = append(ctxVals, sourced{SourceModelsDev, float64(v)})
		}
		if liteWindow {
			ctxVals = append(ctxVals, sourced{SourceLiteLLM, float64(*l.context)})
		}
		// The data sets' output limits, for the record's confidence and a page's rounded figure; the value kept is
		// models.dev's where it gives one (above).
		var outVals []sourced
		if task != "embedding" {
			if m != nil && m.m.Limit.Output > 0 {
				outVals = append(outVals, sourced{SourceModelsDev, float64(m.m.Limit.Output)})
			}
			if l != nil && l.maxOut != nil {
				outVals = append(outVals, sourced{SourceLiteLLM, float64(*l.maxOut)})
			}
		}
		c.settleModel(&r, m != nil, l != nil, ctxVals, outVals)
		recs = append(recs, r)
		counts[k.provider]++
	}
	c.modelKeys = keys
	sources := []Source{c.snap.ModelsDev.Source, c.snap.LiteLLM.Source}
	asOf := maxDate(c.snap.ModelsDev.Date, c.snap.LiteLLM.Date)
	if usedLLMStats {
		sources = append(sources, c.snap.LLMStats.Source)
	}
	var cited [][]string
	for _, r := range recs {
		cited = append(cited, r.Sources)
	}
	sources, asOf = c.withPages(sources, asOf, cited)
	c.stats.Models = len(recs)
	c.stats.ByModelsProvider = counts
	c.stats.ModelsProviders = providersOf(counts)
	return keys, Catalog[api.ModelRecord]{AsOf: asOf, Sources: sources, Records: recs}
}

// mdRates converts a models.dev cost block.
func mdRates(m mdModel, task string) api.PricingRates {
	var r api.PricingRates
	if m.Cost == nil {
		return r
	}
	if m.Cost.Input != nil {
		r.InputPer1mTokens = ptr(roundSig(*m.Cost.Input, 9))
	}
	if m.Cost.Output != nil && !(task == "embedding" && *m.Cost.Output == 0) {
		r.OutputPer1mTokens = ptr(roundSig(*m.Cost.Output, 9))
	}
	if m.Cost.CacheRead != nil {
		r.CachedInputPer1mTokens = ptr(roundSig(*m.Cost.CacheRead, 9))
	}
	return r
}

func gpRates(s gpPriceSet, task string) api.PricingRates {
	var r api.PricingRates
	if s.Input != nil {
		r.InputPer1mTokens = ptr(roundSig(*s.Input, 9))
	}
	if s.Output != nil && !(task == "embedding" && *s.Output == 0) {
		r.OutputPer1mTokens = ptr(roundSig(*s.Output, 9))
	}
	if s.CacheRead != nil {
		r.CachedInputPer1mTokens = ptr(roundSig(*s.CacheRead, 9))
	}
	return r
}

func eq(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) < 1e-9
}

// buildPricing merges the three price sources into the price catalog.
func (c *converter) buildPricing() (Catalog[api.PricingRecord], error) {
	type cand struct {
		task     string
		rates    api.PricingRates
		date     string
		audio    bool
		override bool // a dated genai-prices price change after the chosen source's snapshot
		src      string
	}
	out := map[key]cand{}
	// litellm, then models.dev, then genai-prices for models known to the other two.
	for k, l := range c.lm {
		if l.hasPrice {
			out[k] = cand{task: l.task, rates: l.rates, date: c.snap.LiteLLM.Date, audio: l.audioOut, src: SourceLiteLLM}
		}
	}
	for k, m := range c.mm {
		if _, ok := out[k]; ok {
			continue
		}
		r := mdRates(m.m, m.task)
		if anyPrice(r) {
			out[k] = cand{task: m.task, rates: r, date: c.snap.ModelsDev.Date, src: SourceModelsDev,
				audio: hasAny(m.m.Modalities.Output, "audio") && hasAny(m.m.Modalities.Output, "text")}
		}
	}
	// (2) fallback: a known model without any price.
	known := map[key]string{}
	for k, l := range c.lm {
		known[k] = l.task
	}
	for k, m := range c.mm {
		if _, ok := known[k]; !ok {
			known[k] = m.task
		}
	}
	for _, k := range sortedKeyList(known) {
		if _, ok := out[k]; ok {
			continue
		}
		task := known[k]
		if task != "llm" && task != "embedding" {
			continue // genai-prices has token prices only
		}
		g, ok := c.gpLookup(k)
		if !ok {
			continue
		}
		set, _, ok, err := gpPrices(g, c.asOf)
		if err != nil {
			return Catalog[api.PricingRecord]{}, fmt.Errorf("genai-prices %s: %w", g.ID, err)
		}
		if !ok {
			continue
		}
		r := gpRates(set, task)
		if anyPrice(r) {
			out[k] = cand{task: task, rates: r, date: c.snap.GenAI.Date, src: SourceGenAI}
			c.stats.GenAIFallbacks = append(c.stats.GenAIFallbacks, k.String())
			c.usedGenAI = true
		}
	}
	// (1) dated price changes after the chosen source's snapshot; cached-price fill.
	for _, k := range sortedCandKeys(out) {
		cd := out[k]
		if cd.date != c.snap.GenAI.Date && (cd.task == "llm" || cd.task == "embedding") {
			if g, ok := c.gpLookup(k); ok {
				set, since, ok, err := gpPrices(g, c.asOf)
				if err != nil {
					return Catalog[api.PricingRecord]{}, fmt.Errorf("genai-prices %s: %w", g.ID, err)
				}
				if ok && since != "" && since > cd.date {
					gr := gpRates(set, cd.task)
					cd.rates.InputPer1mTokens, cd.rates.OutputPer1mTokens, cd.rates.CachedInputPer1mTokens = gr.InputPer1mTokens, gr.OutputPer1mTokens, gr.CachedInputPer1mTokens
					cd.date = c.snap.GenAI.Date
					cd.override = true
					c.stats.GenAIOverrides = append(c.stats.GenAIOverrides, fmt.Sprintf("%s (price from %s)", k, since))
					c.usedGenAI = true
				}
			}
		}
		if cd.rates.CachedInputPer1mTokens == nil && cd.rates.InputPer1mTokens != nil {
			if m, ok := c.mm[k]; ok {
				mr := mdRates(m.m, m.task)
				if mr.CachedInputPer1mTokens != nil && eq(mr.InputPer1mTokens, cd.rates.InputPer1mTokens) && eq(mr.OutputPer1mTokens, cd.rates.OutputPer1mTokens) {
					cd.rates.CachedInputPer1mTokens = mr.CachedInputPer1mTokens
					c.stats.CachedFilled++
				}
			}
		}
		out[k] = cd
	}
	// (3) models that only genai-prices lists, with a maintainer-verified price.
	for _, pid := range sortedKeys(c.gByProv) {
		for _, g := range c.gByProv[pid] {
			m := g.m
			if m.PricesChecked == "" || m.Deprecated || m.Removed {
				continue
			}
			isName := false
			for _, n := range g.equals {
				if n == m.ID {
					isName = true
				}
			}
			k := key{pid, m.ID}
			if !isName {
				continue
			}
			if _, ok := out[k]; ok {
				continue
			}
			if _, ok := known[k]; ok {
				continue
			}
			if _, dep := c.deprecated[k]; dep {
				continue
			}
			// A complete list refuses the ID outright; on a partial one, only an ID that would be priced is named in
			// the report.
			partial := c.accepted[k.provider] != nil && !c.accepted[k.provider].Complete
			if !partial && !c.namedKey(k) {
				c.dropForeign(k)
				continue
			}
			set, _, ok, err := gpPrices(m, c.asOf)
			if err != nil {
				return Catalog[api.PricingRecord]{}, fmt.Errorf("genai-prices %s: %w", m.ID, err)
			}
			if !ok {
				continue
			}
			task := "llm"
			if pid == "voyage-ai" || isEmbedName(m.ID, "") {
				task = "embedding"
			}
			r := gpRates(set, task)
			if !anyPrice(r) {
				continue
			}
			if partial && !c.namedKey(k) {
				c.dropForeign(k)
				continue
			}
			out[k] = cand{task: task, rates: r, date: c.snap.GenAI.Date, src: SourceGenAI}
			c.stats.GenAIAdded++
			c.usedGenAI = true
		}
	}
	// Models the providers' own pages list that no data set has yet.
	for _, k := range c.officialKeys() {
		if _, ok := out[k]; ok {
			continue
		}
		m := c.officialModel(k)
		if m.Task == "rerank" || m.Task == "moderation" {
			continue
		}
		out[k] = cand{task: m.Task}
	}
	// An alias a provider's page names is priced as its model: the model's candidate replaces whatever a data set
	// gives the alias (often an older model's price, kept under the alias after it moved on), and an alias whose
	// model has no price is not priced.
	for _, k := range sortedCandKeys(out) {
		pk := c.priceKey(k)
		if pk == k {
			continue
		}
		if cd, ok := out[pk]; ok {
			out[k] = cd
			c.report.Aliases = append(c.report.Aliases, AliasPrice{k.provider, k.model, pk.model, "priced as its model"})
		} else {
			delete(out, k)
			c.report.Aliases = append(c.report.Aliases, AliasPrice{k.provider, k.model, pk.model, "not priced: its model has no price record"})
		}
	}
	list := sortedCandKeys(out)
	counts := map[string]int{}
	tasks := map[string]int{}
	recs := make([]api.PricingRecord, 0, len(list))
	for _, k := range list {
		cd := out[k]
		ptask, _ := refine(cd.task, k.model, cd.audio)
		if off := c.officialModel(k); off != nil && off.NoTokenPrice {
			c.report.reject("pricing", k, "input_per_1m_tokens", "(every token price)", "the provider's page offers the model without a per-token price")
			continue
		}
		rec := api.PricingRecord{ProviderId: k.provider, Model: k.model, Task: api.Task(ptask), Pricing: cd.rates}
		c.settlePricing(&rec, cd.override, cd.src)
		if !anyPrice(rec.Pricing) {
			continue // every price was rejected or disputed: nothing left to serve
		}
		c.applyStructures(&rec)
		recs = append(recs, rec)
		counts[k.provider]++
		tasks[ptask]++
	}
	sources := []Source{c.snap.LiteLLM.Source, c.snap.ModelsDev.Source}
	asOf := maxDate(c.snap.LiteLLM.Date, c.snap.ModelsDev.Date)
	if c.usedGenAI || cites(recs, func(r api.PricingRecord) []string { return r.Sources }, SourceGenAI) {
		sources = append(sources, c.snap.GenAI.Source)
		asOf = maxDate(asOf, c.snap.GenAI.Date)
	}
	var cited [][]string
	for _, r := range recs {
		cited = append(cited, r.Sources)
	}
	if err := c.checkPricedKeys(); err != nil {
		return Catalog[api.PricingRecord]{}, err
	}
	sources, asOf = c.withPages(sources, asOf, cited)
	c.stats.Pricing = len(recs)
	c.stats.ByPricingProvider = counts
	c.stats.PricingProviders = providersOf(counts)
	c.stats.PricingTasks = tasks
	c.stats.Deprecated = len(c.deprecated)
	return Catalog[api.PricingRecord]{AsOf: asOf, Sources: sources, Records: recs}, nil
}

func sortedKeyList[V any](m map[key]V) []key {
	out := make([]key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortKeys(out)
	return out
}

func sortedCandKeys[V any](m map[key]V) []key { return sortedKeyList(m) }

var benchMetrics = map[string]bool{"mmlu": true, "humaneval": true, "math": true, "gpqa": true, "mgsm": true, "hellaswag": true}

// buildBenchmarks attributes the benchmark rows to (provider, API name) keys of the model catalog.
func (c *converter) buildBenchmarks(models map[key]bool) (Catalog[api.BenchmarksRecord], error) {
	scores, usedDataset, err := c.benchmarkScores(models, benchMetrics)
	if err != nil {
		return Catalog[api.BenchmarksRecord]{}, err
	}
	files, err := LoadQuality(filepath.Join(filepath.Dir(filepath.Clean(c.in.OfficialDir)), "quality"), c.in.KnownProviders)
	if err != nil {
		return Catalog[api.BenchmarksRecord]{}, err
	}
	quality, qualitySources, err := qualityRecords(files, c.in.DataDir)
	if err != nil {
		return Catalog[api.BenchmarksRecord]{}, err
	}
	all := map[key]bool{}
	for k := range scores {
		all[k] = true
	}
	for k := range quality {
		if !models[k] {
			return Catalog[api.BenchmarksRecord]{}, fmt.Errorf("sources/official/quality: %s is not a model of the model catalog", k)
		}
		all[k] = true
	}
	var sources []Source
	var dates []string
	var scoreSources []string
	if usedDataset["openai-simple-evals"] {
		sources = append(sources, c.snap.SimpleEvals.Source)
		dates = append(dates, c.snap.SimpleEvals.Date)
		scoreSources = append(scoreSources, SourceSimpleEvals)
	}
	if usedDataset["llm-stats"] {
		sources = append(sources, c.snap.LLMStats.Source)
		dates = append(dates, c.snap.LLMStats.Date)
		scoreSources = append(scoreSources, SourceLLMStats)
	}
	licensed := map[string]bool{}
	for _, s := range qualitySources {
		if s.License != nil {
			licensed[s.ID] = true
		}
		if s.AsOf != nil {
			dates = append(dates, *s.AsOf)
		}
	}
	sources = append(sources, qualitySources...)
	list := sortedKeyList(all)
	counts := map[string]int{}
	recs := make([]api.BenchmarksRecord, 0, len(list))
	for _, k := range list {
		rec := api.BenchmarksRecord{ProviderId: k.provider, ModelId: k.model, Scores: scores[k], Evidence: []api.BenchmarkEvidence{}}
		if rec.Scores == nil {
			rec.Scores = map[string]float64{}
		}
		if q, ok := quality[k]; ok {
			rec.Evidence, rec.Tier = q.evidence, q.tier
			// The record cites what it holds: the data sets behind its scores, then its evidence's and tier's sources.
			var cited []string
			if len(scores[k]) > 0 {
				cited = append(cited, scoreSources...)
			}
			cited = append(cited, q.cited...)
			slices.Sort(cited)
			rec.Sources = slices.Compact(cited)
			// verified only where the provider's own page states the values for this very record.
			conf := ConfidenceVerified
			if len(scores[k]) > 0 || q.viaOnly || q.shared || slices.ContainsFunc(rec.Sources, func(id string) bool { return licensed[id] }) {
				conf = ConfidenceSingle
			}
			rec.Confidence = api.Confidence(conf)
		}
		recs = append(recs, rec)
		counts[k.provider]++
	}
	c.stats.Benchmarks = len(recs)
	c.stats.ByBenchmarkProvider = counts
	c.stats.BenchmarkProviders = providersOf(counts)
	return Catalog[api.BenchmarksRecord]{AsOf: maxDate(dates...), Sources: sources, Records: recs}, nil
}

// benchmarkScores attributes the rows of the given benchmarks to (provider, API name) keys of models, as percents
// 0-100: simple-evals first, then llm-stats; within a data set the first row in file order wins; a row goes to
// the first API name of the catalog only. usedDataset names the data sets that gave a score.
func (c *converter) benchmarkScores(models map[key]bool, metrics map[string]bool) (map[key]map[string]float64, map[string]bool, error) {
	apiName := c.llmStatsAPINames()
	scores := map[key]map[string]float64{}
	usedDataset := map[string]bool{}
	for _, ds := range []string{"openai-simple-evals", "llm-stats"} {
		for _, r := range c.bench {
			if r.Dataset != ds || !metrics[r.BenchmarkKey] || r.Organization == nil {
				continue
			}
			o, ok := benchmarkOrgs[*r.Organization]
			if !ok {
				continue
			}
			var pct float64
			switch {
			case r.NormalizedScore != nil:
				pct = *r.NormalizedScore * 100
			case r.MaxScore != nil && *r.MaxScore == 100 && r.Score != nil:
				pct = *r.Score
			default:
				continue
			}
			pct = roundSig(math.Round(pct*1000)/1000, 10)
			if pct < 0 || pct > 100 {
				return nil, nil, fmt.Errorf("benchmarks.json: %s %s %s: score %v out of 0-100", ds, r.ModelID, r.BenchmarkKey, pct)
			}
			for _, k := range c.benchKeys(*r.Organization, o.ID, o.Prefix, r.ModelID, apiName) {
				if !models[k] {
					continue
				}
				s := scores[k]
				if s == nil {
					s = map[string]float64{}
					scores[k] = s
				}
				if _, ok := s[r.BenchmarkKey]; !ok {
					s[r.BenchmarkKey] = pct
					usedDataset[ds] = true
				}
				break // the first API name in the catalog only; never two records for one row
			}
		}
	}
	return scores, usedDataset, nil
}

// BenchmarkScores gives the scores of the named benchmarks (benchmark_key of benchmarks.json, for example
// "ifeval") for the models named "provider/model", attributed as the benchmarks catalog attributes its rows.
// Keys of the result are "provider/model".
func BenchmarkScores(in Input, models []string, metrics []string) (map[string]map[string]float64, error) {
	c, err := matched(in)
	if err != nil {
		return nil, err
	}
	want := map[key]bool{}
	for _, m := range models {
		p, id, ok := strings.Cut(m, "/")
		if !ok {
			return nil, fmt.Errorf("benchmark scores: model %q is not provider/model", m)
		}
		want[key{p, id}] = true
	}
	set := map[string]bool{}
	for _, m := range metrics {
		set[m] = true
	}
	scores, _, err := c.benchmarkScores(want, set)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]float64, len(scores))
	for k, v := range scores {
		out[k.String()] = v
	}
	return out, nil
}

// cites reports whether any record cites the source id.
func cites[R any](recs []R, of func(R) []string, id string) bool {
	for _, r := range recs {
		if slices.Contains(of(r), id) {
			return true
		}
	}
	return false
}

// withPages adds the official pages the records cite to a catalog's sources (sorted by id, after the data sets),
// and moves its as-of date to the newest page's check date.
func (c *converter) withPages(sources []Source, asOf string, cited [][]string) ([]Source, string) {
	seen := map[string]bool{}
	for _, s := range sources {
		seen[s.ID] = true
	}
	var pages []Source
	for _, ids := range cited {
		for _, id := range ids {
			if p, ok := c.usedPages[id]; ok && !seen[id] {
				seen[id] = true
				pages = append(pages, p)
			}
		}
	}
	slices.SortFunc(pages, func(a, b Source) int { return strings.Compare(a.ID, b.ID) })
	for _, f := range c.official {
		for _, p := range f.Pages {
			if seen[p.ID] {
				asOf = maxDate(asOf, p.Checked)
			}
		}
	}
	for _, f := range c.prices {
		for _, p := range f.Pages {
			if seen[p.ID] {
				asOf = maxDate(asOf, p.Checked)
			}
		}
	}
	return append(sources, pages...), asOf
}

// boolPtr is a capability a data set states. A model no data set knows keeps nil: unknown, not false.
func boolPtr(b bool) *bool { return &b }

// snapshotDate is the date suffix of a dated model ID (gpt-5-2025-08-07).
var snapshotDate = regexp.MustCompile(`-[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// familyBase is models.dev's entry for the model a variant or dated snapshot ID builds on: the longest
// hyphen-separated prefix of the ID, date suffix first, that models.dev lists under the same provider
// (gpt-5-2025-08-07 and gpt-5-search-api: gpt-5).
func (c *converter) familyBase(k key) (*mModel, bool) {
	id := k.model
	if loc := snapshotDate.FindStringIndex(id); loc != nil {
		id = id[:loc[0]]
		if b := c.mm[key{k.provider, id}]; b != nil {
			return b, true
		}
	}
	for i := strings.LastIndexByte(id, '-'); i > 0; i = strings.LastIndexByte(id, '-') {
		id = id[:i]
		if b := c.mm[key{k.provider, id}]; b != nil {
			return b, true
		}
	}
	return nil, false
}
