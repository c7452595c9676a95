package catalogbuild

import (
	"fmt"
	"slices"
	"sync"

	"github.com/switchboard/switchboard/gen/api"
)

// officialKeys lists every model the providers' own pages list as current, sorted.
func (c *converter) officialKeys() []key {
	var out []key
	for pid, f := range c.official {
		for _, m := range f.Current {
			out = append(out, key{pid, m.ModelID})
		}
	}
	sortKeys(out)
	return out
}

// officialModel returns the curated record of a current model, or of the current model its alias names (an alias
// is served with its model's facts), or nil.
func (c *converter) officialModel(k key) *CurrentModel {
	return c.official[k.provider].CurrentOrAlias(k.model)
}

// priceKey is the key whose prices a model is served with: the model an alias names, else the model itself.
func (c *converter) priceKey(k key) key {
	if t, ok := c.official[k.provider].AliasOf(k.model); ok {
		return key{k.provider, t}
	}
	return k
}

// curatedPrices returns the curated price structures of a model, or of the model its alias names.
func (c *converter) curatedPrices(k key) *PricedModel {
	if m := c.prices[k.provider].Model(k.model); m != nil {
		return m
	}
	return c.prices[k.provider].Model(c.priceKey(k).model)
}

// officialSource adds a curated page to the sources of the catalog being built and returns its id.
func (c *converter) officialSource(provider, page string) string {
	p, _ := c.official[provider].Page(page)
	return c.usePage(p)
}

// usePage adds a curated page (of any curated folder) to the sources of the catalog being built and returns its id.
func (c *converter) usePage(p OfficialPage) string {
	c.usedPages[p.ID] = p.Source()
	return p.ID
}

// provenance accumulates the sources and the confidence of one record, field by field.
type provenance struct {
	srcs   []string
	levels []string
}

func (p *provenance) add(level string, srcs ...string) {
	for _, s := range srcs {
		if !slices.Contains(p.srcs, s) {
			p.srcs = append(p.srcs, s)
		}
	}
	p.levels = append(p.levels, level)
}

// record is result in the generated record's types.
func (p *provenance) record(fallback string) (api.RecordSources, api.Confidence) {
	srcs, conf := p.result(fallback)
	return srcs, api.Confidence(conf)
}

// result is the record's sources (sorted) and its confidence: disputed when any field was disputed, verified
// when every field came from the provider's pages, agreed when every field was verified or agreed, else single.
func (p *provenance) result(fallback string) ([]string, string) {
	srcs := slices.Clone(p.srcs)
	if len(srcs) == 0 && fallback != "" {
		srcs = []string{fallback}
	}
	slices.Sort(srcs)
	if srcs == nil {
		srcs = []string{}
	}
	switch {
	case slices.Contains(p.levels, ConfidenceDisputed):
		return srcs, ConfidenceDisputed
	case len(p.levels) > 0 && !slices.ContainsFunc(p.levels, func(l string) bool { return l != ConfidenceVerified }):
		return srcs, ConfidenceVerified
	case len(p.levels) > 0 && !slices.ContainsFunc(p.levels, func(l string) bool { return l != ConfidenceVerified && l != ConfidenceAgreed }):
		return srcs, ConfidenceAgreed
	}
	return srcs, ConfidenceSingle
}

// officialRate is the token price (0 input, 1 output, 2 cached input) the provider's pages give a model, or nil.
func (c *converter) officialRate(k key, i int) *float64 {
	if pm := c.curatedPrices(k); pm != nil && pm.Standard != nil {
		if v := []*float64{pm.Standard.InputPer1mTokens, pm.Standard.OutputPer1mTokens, pm.Standard.CachedInputPer1mTokens}[i]; v != nil {
			return v
		}
	}
	if off := c.officialModel(k); off != nil {
		return []*float64{off.InputPer1mTokens, off.OutputPer1mTokens, off.CachedInputPer1mTokens}[i]
	}
	return nil
}

// undatedBase is the key of a dated snapshot's undated model; ok is false for an ID without a date suffix.
func undatedBase(k key) (key, bool) {
	loc := snapshotDate.FindStringIndex(k.model)
	if loc == nil {
		return key{}, false
	}
	return key{k.provider, k.model[:loc[0]]}, true
}

// contradictedCopy reports a dated snapshot's data-set price that is only each data set's price for the undated
// model base, where the provider's page gives base another price: the data sets copied a value the page
// contradicts (litellm's gpt-4o-mini-tts-2025-03-20 at $2.50 text input, where OpenAI's page has $0.60 for
// gpt-4o-mini-tts). A snapshot the data sets price apart from its model (gpt-4o-2024-05-13) is not touched.
func (c *converter) contradictedCopy(base key, baseSrc func() map[string]api.PricingRates, bySrc map[string]api.PricingRates, i int, of func(api.PricingRates) *float64) (float64, bool) {
	off := c.officialRate(base, i)
	if off == nil {
		return 0, false
	}
	n := 0
	for src, r := range bySrc {
		v := of(r)
		if v == nil {
			continue
		}
		b := of(baseSrc()[src])
		if b == nil || *b != *v || *v == *off {
			return 0, false
		}
		n++
	}
	return *off, n > 0
}

// sourceRates are each data set's token prices for one model, where it gives any.
func (c *converter) sourceRates(k key, task string) map[string]api.PricingRates {
	out := map[string]api.PricingRates{}
	if l := c.lm[k]; l != nil && l.hasPrice {
		out[SourceLiteLLM] = l.rates
	}
	if m := c.mm[k]; m != nil {
		if r := mdRates(m.m, task); anyPrice(r) {
			out[SourceModelsDev] = r
		}
	}
	if task == "llm" || task == "code" || task == "embedding" {
		if g, ok := c.gpLookup(k); ok {
			if set, _, ok, err := gpPrices(g, c.asOf); err == nil && ok {
				if r := gpRates(set, task); anyPrice(r) {
					out[SourceGenAI] = r
				}
			}
		}
	}
	return out
}

// settlePricing decides each token price of a record: the provider's page where it gives one; else the data sets,
// cross-checked (agreeing values are kept, disagreeing ones become null and go to the report, except a dated
// genai-prices change that postdates the other snapshots, which is the newer fact); then the bounds and the rule
// that $0 is a fact only where a source says the model is free. Per-image, per-minute and per-request prices come
// from the one data set that gives them.
func (c *converter) settlePricing(rec *api.PricingRecord, override bool, chosen string) {
	k := key{rec.ProviderId, rec.Model}
	off := c.officialModel(k)
	task := string(rec.Task)
	if task == "code" {
		task = "llm"
	}
	bySrc := c.sourceRates(c.priceKey(k), task)
	base, dated := undatedBase(k)
	// The undated model's data-set prices, read at most once for the three token prices and only where a page
	// prices that model.
	baseSrc := sync.OnceValue(func() map[string]api.PricingRates { return c.sourceRates(base, task) })
	var prov provenance
	fields := []struct {
		name     string
		dst      **float64
		of       func(api.PricingRates) *float64
		official *float64
	}{
		{"input_per_1m_tokens", &rec.Pricing.InputPer1mTokens, func(r api.PricingRates) *float64 { return r.InputPer1mTokens }, nil},
		{"output_per_1m_tokens", &rec.Pricing.OutputPer1mTokens, func(r api.PricingRates) *float64 { return r.OutputPer1mTokens }, nil},
		{"cached_input_per_1m_tokens", &rec.Pricing.CachedInputPer1mTokens, func(r api.PricingRates) *float64 { return r.CachedInputPer1mTokens }, nil},
	}
	if off != nil {
		fields[0].official, fields[1].official, fields[2].official = off.InputPer1mTokens, off.OutputPer1mTokens, off.CachedInputPer1mTokens
	}
	officialFree := off != nil && off.InputPer1mTokens != nil && *off.InputPer1mTokens == 0 && (off.OutputPer1mTokens == nil || *off.OutputPer1mTokens == 0)
	// The price pages' standard rates outrank the lifecycle curation, which records the rate a models page shows
	// (a promotional one where a promotion runs) and leaves cached-input prices it did not read empty.
	var std *StandardRates
	if pm := c.curatedPrices(k); pm != nil {
		std = pm.Standard
	}
	// A price page's $0 standard rates are the page saying the model is free (Gemma 4 on the Gemini API: "Free of
	// charge" on the free tier, "Not available" on the paid one).
	officialFree = officialFree || (std != nil && std.InputPer1mTokens != nil && *std.InputPer1mTokens == 0 &&
		(std.OutputPer1mTokens == nil || *std.OutputPer1mTokens == 0))
	stdOf := []func(*StandardRates) *float64{
		func(s *StandardRates) *float64 { return s.InputPer1mTokens },
		func(s *StandardRates) *float64 { return s.OutputPer1mTokens },
		func(s *StandardRates) *float64 { return s.CachedInputPer1mTokens },
	}
	for i, f := range fields {
		if std != nil && i == 2 && std.NoCachedInput {
			*f.dst = nil
			prov.add(ConfidenceVerified, c.pricesSource(k.provider, std.Source))
			continue
		}
		if std != nil && stdOf[i](std) != nil {
			v := *stdOf[i](std)
			*f.dst = &v
			prov.add(ConfidenceVerified, c.pricesSource(k.provider, std.Source))
			continue
		}
		if f.official != nil {
			v := *f.official
			*f.dst = &v
			ids := make([]string, len(off.Sources))
			for i, s := range off.Sources {
				ids[i] = c.officialSource(k.provider, s)
			}
			prov.add(ConfidenceVerified, ids...)
			continue
		}
		if *f.dst == nil {
			continue
		}
		if dated {
			if v, ok := c.contradictedCopy(base, baseSrc, bySrc, i, f.of); ok {
				c.report.reject("pricing", k, f.name, **f.dst, fmt.Sprintf("the data sets give this snapshot their price for %s, which the provider's page contradicts (%g)", base.model, v))
				*f.dst = nil
				continue
			}
		}
		if override && f.of(bySrc[SourceGenAI]) != nil {
			prov.add(ConfidenceSingle, SourceGenAI)
			continue
		}
		var vals []sourced
		for _, src := range []string{SourceLiteLLM, SourceModelsDev, SourceGenAI} {
			if v := f.of(bySrc[src]); v != nil {
				vals = append(vals, sourced{src, *v})
			}
		}
		_, srcs, agreed := crossCheck(vals)
		switch {
		case len(vals) <= 1:
			prov.add(ConfidenceSingle, chosen)
		case agreed:
			prov.add(ConfidenceAgreed, srcs...)
		default:
			*f.dst = nil
			prov.add(ConfidenceDisputed, srcs...)
			c.report.Disputed = append(c.report.Disputed, Dispute{"pricing", k.provider, k.model, f.name, fmtValues(vals), "null: the data sets disagree by more than 2% and no official page was curated"})
		}
	}
	for _, p := range []*float64{rec.Pricing.PerImage, rec.Pricing.PerMinuteAudio, rec.Pricing.Per1kCharacters, rec.Pricing.PerRequest, rec.Pricing.PerSecondVideo} {
		if p != nil {
			prov.add(ConfidenceSingle, chosen)
			break
		}
	}
	// $0 is a fact only where a source says the model is free; a model's name (":free") is no source: anyone
	// can name a model so.
	free := c.freeTier[c.priceKey(k)] || officialFree
	for _, f := range []struct {
		name string
		dst  **float64
	}{{"input_per_1m_tokens", &rec.Pricing.InputPer1mTokens}, {"output_per_1m_tokens", &rec.Pricing.OutputPer1mTokens},
		{"cached_input_per_1m_tokens", &rec.Pricing.CachedInputPer1mTokens}, {"per_image", &rec.Pricing.PerImage},
		{"per_minute_audio", &rec.Pricing.PerMinuteAudio}, {"per_1k_characters", &rec.Pricing.Per1kCharacters},
		{"per_request", &rec.Pricing.PerRequest}, {"per_second_video", &rec.Pricing.PerSecondVideo}} {
		if *f.dst != nil && **f.dst == 0 && !free {
			c.report.reject("pricing", k, f.name, 0, "a $0 price, and no source says the model is free")
			*f.dst = nil
		}
	}
	if tokenTask(string(rec.Task)) {
		if p := rec.Pricing.InputPer1mTokens; p != nil && *p > MaxLLMInputPer1M {
			c.report.reject("pricing", k, "input_per_1m_tokens", *p, "above the bound of $150 per 1M input tokens")
			rec.Pricing.InputPer1mTokens = nil
		}
		if p := rec.Pricing.OutputPer1mTokens; p != nil && *p > MaxLLMOutputPer1M {
			c.report.reject("pricing", k, "output_per_1m_tokens", *p, "above the bound of $600 per 1M output tokens")
			rec.Pricing.OutputPer1mTokens = nil
		}
	}
	if p := rec.Pricing.InputPer1mTokens; rec.Task == "embedding" && p != nil && *p > MaxEmbeddingInputPer1M {
		c.report.reject("pricing", k, "input_per_1m_tokens", *p, "above the bound of $10 per 1M tokens for an embedding model: a unit slip")
		rec.Pricing.InputPer1mTokens = nil
	}
	if rec.Task == "image" {
		for _, f := range []struct {
			name string
			dst  **float64
		}{{"input_per_1m_tokens", &rec.Pricing.InputPer1mTokens}, {"output_per_1m_tokens", &rec.Pricing.OutputPer1mTokens},
			{"cached_input_per_1m_tokens", &rec.Pricing.CachedInputPer1mTokens}} {
			switch p := *f.dst; {
			case p == nil:
			case k.provider == "fireworks":
				// Fireworks prices image generation per step or per image (its pricing page); litellm writes those
				// prices in its per-token fields (flux-kontext-pro's $0.04 per image as 4e-08 per token).
				c.report.reject("pricing", k, f.name, *p, "Fireworks prices image models per step or per image, not per token: a unit price read as per token")
				*f.dst = nil
			case *p > 0 && *p < MinImageTokenPer1M:
				c.report.reject("pricing", k, f.name, *p, "below $0.01 per 1M tokens for an image generator: a per-step or per-image price read as per token")
				*f.dst = nil
			}
		}
	}
	rec.FreeTier = free
	rec.Sources, rec.Confidence = prov.record(chosen)
}

// settleModel applies the providers' pages and the bounds to one model record: the page's context window and
// output limit win; a window above MaxContextWindow, an output limit above the window, and an output limit equal to
// the window that no official page states (a number copied across fields) are rejected into the report.
func (c *converter) settleModel(rec *api.ModelRecord, fromModelsDev, fromLiteLLM bool, ctxVals, outVals []sourced) {
	k := key{rec.ProviderId, rec.ModelId}
	off := c.officialModel(k)
	var prov provenance
	officialOut := false
	var pages []string
	if off != nil {
		pages = make([]string, len(off.Sources))
		for i, s := range off.Sources {
			pages[i] = c.officialSource(k.provider, s)
		}
	}
	officialCtx := off != nil && (off.ContextWindow != nil || off.ContextWindowText != nil)
	switch {
	case off != nil && off.ContextWindow != nil:
		rec.ContextWindow = intPtr(*off.ContextWindow)
		prov.add(ConfidenceVerified, pages...)
	case off != nil && off.ContextWindowText != nil:
		v, from := roundedLimit(*off.ContextWindowText, ctxVals)
		rec.ContextWindow = intPtr(v)
		prov.add(ConfidenceVerified, append(slices.Clone(pages), from...)...)
	}
	switch {
	case off != nil && off.MaxOutputTokens != nil:
		rec.MaxOutputTokens = intPtr(*off.MaxOutputTokens)
		officialOut = true
		prov.add(ConfidenceVerified, pages...)
	case off != nil && off.MaxOutputText != nil && rec.Task != api.ModelTaskEmbedding:
		v, from := roundedLimit(*off.MaxOutputText, outVals)
		rec.MaxOutputTokens = intPtr(v)
		officialOut = true
		prov.add(ConfidenceVerified, append(slices.Clone(pages), from...)...)
	case rec.MaxOutputTokens != nil:
		// A data set's output limit: the record is no surer than it (two data sets agreeing, or one).
		if len(outVals) >= 2 && agreeInts(outVals) {
			prov.add(ConfidenceAgreed, SourceModelsDev, SourceLiteLLM)
		} else if len(outVals) > 0 {
			prov.add(ConfidenceSingle, outVals[0].src)
		}
	}
	if !officialCtx {
		switch {
		case len(ctxVals) >= 2 && agreeInts(ctxVals):
			prov.add(ConfidenceAgreed, SourceModelsDev, SourceLiteLLM)
		case len(ctxVals) >= 2:
			c.report.Disputed = append(c.report.Disputed, Dispute{"models", k.provider, k.model, "context_window", fmtValues(ctxVals), "null: the data sets disagree by more than 2% and no official page was curated"})
			rec.ContextWindow = nil
			prov.add(ConfidenceDisputed, SourceModelsDev, SourceLiteLLM)
		default:
			if fromModelsDev {
				prov.add(ConfidenceSingle, SourceModelsDev)
			}
			if fromLiteLLM {
				prov.add(ConfidenceSingle, SourceLiteLLM)
			}
		}
	}
	if w := rec.ContextWindow; w != nil && *w > MaxContextWindow {
		c.report.reject("models", k, "context_window", *w, "above the bound of 10M tokens")
		rec.ContextWindow = nil
	}
	if o, w := rec.MaxOutputTokens, rec.ContextWindow; o != nil && w != nil {
		switch {
		case *o > *w:
			c.report.reject("models", k, "max_output_tokens", *o, "above the context window")
			rec.MaxOutputTokens = nil
		case *o == *w && !officialOut:
			c.report.reject("models", k, "max_output_tokens", *o, "equal to the context window, which no official page states: a copied number")
			rec.MaxOutputTokens = nil
		}
	}
	// The same copy where the page gives another window: a data set's output limit equal to that data set's own
	// window, which the page contradicts (litellm's 131,072 both ways for ministral-3b-2512, whose page says 256k),
	// is no output limit either.
	if o, w := rec.MaxOutputTokens, rec.ContextWindow; o != nil && w != nil && officialCtx && !officialOut &&
		copiedFromOwnWindow(float64(*o), float64(*w), ctxVals, outVals) {
		c.report.reject("models", k, "max_output_tokens", *o, "equal to the same data set's context window: a copied number")
		rec.MaxOutputTokens = nil
	}
	if off != nil && !fromModelsDev && !fromLiteLLM && len(prov.srcs) == 0 {
		// A model only the provider's page lists: the page is its source even where it states no limit.
		prov.add(ConfidenceVerified, pages...)
	}
	fallback := SourceModelsDev
	if !fromModelsDev {
		fallback = SourceLiteLLM
	}
	rec.Sources, rec.Confidence = prov.record(fallback)
}

// copiedFromOwnWindow reports an output limit that every data set giving it also gives as the model's window, a
// window the page contradicts (served is the page's).
func copiedFromOwnWindow(out, served float64, ctxVals, outVals []sourced) bool {
	n := 0
	for _, ov := range outVals {
		if ov.v != out {
			continue
		}
		n++
		if ov.v == served || !slices.ContainsFunc(ctxVals, func(cv sourced) bool { return cv.src == ov.src && cv.v == ov.v }) {
			return false
		}
	}
	return n > 0
}

func agreeInts(vals []sourced) bool {
	nums := make([]float64, len(vals))
	for i, v := range vals {
		nums[i] = v.v
	}
	return agree(nums)
}
